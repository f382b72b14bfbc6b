/*
 * affinity.c
 *	The machine, read with hwloc: this machine (allowed CPUs honoured),
 *	a synthetic description or an XML file, copied into plain arrays
 *	(affinity_internal.h) for the planner (affinity_plan.c), which never
 *	sees hwloc; pinning and binding are affinity_apply.c's. The
 *	heuristic and its guarantees are described in affinity.h.
 */
#include "config.h"

#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <hwloc.h>
#include <hwloc/export.h>

#include "runtime/conf/cpulist.h"
#include "runtime/plan/affinity_internal.h"

void
wm_affinity_say(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	if (err == NULL || errlen == 0)
		return;
	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
}

/* ------------------------------------------------------------------ */
/* Topology */

static bool
ends_with(const char *s, const char *suffix)
{
	size_t n = strlen(s), m = strlen(suffix);

	return n >= m && strcmp(s + n - m, suffix) == 0;
}

/* Copy the subtree of `obj` into a->objs; returns its index. */
static unsigned
copy_tree(struct wm_affinity *a, hwloc_obj_t obj, const bool *primary,
	  unsigned *next_kid)
{
	unsigned idx = a->n_objs++;
	struct tree_obj *t = &a->objs[idx];
	unsigned i;

	t->pus = 0;
	t->cores = 0;
	t->kid0 = *next_kid;
	t->nkids = obj->arity;
	t->pu = NONE;
	*next_kid += obj->arity;
	if (obj->type == HWLOC_OBJ_PU && obj->arity == 0) {
		t->pu = obj->logical_index;
		t->pus = a->pus[t->pu].allowed ? 1 : 0;
		t->cores = primary[t->pu] ? 1 : 0;
		return idx;
	}
	for (i = 0; i < obj->arity; i++) {
		unsigned k = copy_tree(a, obj->children[i], primary, next_kid);

		/* a->objs may not move: it was sized for every object. */
		a->kids[a->objs[idx].kid0 + i] = k;
		a->objs[idx].pus += a->objs[k].pus;
		a->objs[idx].cores += a->objs[k].cores;
	}
	return idx;
}

/* PU i of the topology as a struct wm_affinity_pu: its CPU, core (a PU
 * without a core object a core of its own, numbered after the real ones:
 * *coreless counts them), package, node, and whether `allowed`. */
static void
read_pu(struct wm_affinity *a, unsigned i, hwloc_const_bitmap_t allowed,
	unsigned n_hw_cores, unsigned *coreless)
{
	hwloc_topology_t topo = a->topo;
	hwloc_obj_t pu = hwloc_get_obj_by_type(topo, HWLOC_OBJ_PU, i);
	hwloc_obj_t core, pkg;
	struct wm_affinity_pu *p = &a->pus[i];

	p->cpu = pu->os_index;
	core = hwloc_get_ancestor_obj_by_type(topo, HWLOC_OBJ_CORE, pu);
	p->core = core ? core->logical_index : n_hw_cores + (*coreless)++;
	pkg = hwloc_get_ancestor_obj_by_type(topo, HWLOC_OBJ_PACKAGE, pu);
	p->package = pkg ? pkg->logical_index : 0;
	/* The first node, in topology order, local to the PU (a PU may see
	 * several: DRAM first, then HBM or CXL). */
	p->node = a->node_os[0];
	for (unsigned j = 0; j < a->n_nodes; j++) {
		hwloc_obj_t node =
			hwloc_get_obj_by_type(topo, HWLOC_OBJ_NUMANODE, j);

		if (node && node->cpuset &&
		    hwloc_bitmap_isset(node->cpuset, p->cpu)) {
			p->node = node->os_index;
			break;
		}
	}
	p->allowed = hwloc_bitmap_isset(allowed, p->cpu);
	if (p->allowed)
		a->n_allowed++;
}

/* The tree of objects, copied (copy_tree()), each PU marked primary if it
 * is the first allowed PU of its core. 0 or -ENOMEM. */
static int
read_tree(struct wm_affinity *a, bool *primary)
{
	hwloc_topology_t topo = a->topo;
	unsigned total = 0, next_kid = 0;
	int depth = hwloc_topology_get_depth(topo);
	bool *core_seen = calloc(a->n_cores, sizeof(*core_seen));

	if (core_seen == NULL)
		return -ENOMEM;
	for (unsigned i = 0; i < a->n_pus; i++) {
		struct wm_affinity_pu *p = &a->pus[i];

		if (p->allowed && !core_seen[p->core]) {
			core_seen[p->core] = true;
			primary[i] = true;
		}
	}
	free(core_seen);
	for (int d = 0; d < depth; d++)
		total += (unsigned)hwloc_get_nbobjs_by_depth(topo, d);
	a->objs = calloc(total, sizeof(*a->objs));
	a->kids = calloc(total, sizeof(*a->kids));
	if (!a->objs || !a->kids)
		return -ENOMEM;
	copy_tree(a, hwloc_get_root_obj(topo), primary, &next_kid);
	return 0;
}

/* Everything of a->topo that the planner needs, copied into a: the PUs,
 * nodes, cores and the tree. 0, or -EINVAL (no usable PU) or -ENOMEM with
 * a message. */
static int
read_topology(struct wm_affinity *a, char *err, size_t errlen)
{
	hwloc_topology_t topo = a->topo;
	hwloc_bitmap_t allowed = NULL, bound = NULL;
	unsigned n_hw_cores, coreless = 0;
	bool *primary = NULL;
	int n, rc = -ENOMEM;

	n = hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_PU);
	if (n <= 0) {
		wm_affinity_say(err, errlen, "topology has no processing unit");
		return -EINVAL;
	}
	a->n_pus = (unsigned)n;
	n = hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_PACKAGE);
	a->n_packages = n > 0 ? (unsigned)n : 1;
	n = hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_NUMANODE);
	a->n_nodes = n > 0 ? (unsigned)n : 1;
	n = hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_CORE);
	n_hw_cores = n > 0 ? (unsigned)n : 0;

	a->pus = calloc(a->n_pus, sizeof(*a->pus));
	a->node_os = calloc(a->n_nodes, sizeof(*a->node_os));
	primary = calloc(a->n_pus, sizeof(*primary));
	allowed = hwloc_bitmap_dup(hwloc_topology_get_allowed_cpuset(topo));
	bound = hwloc_bitmap_alloc();
	if (!a->pus || !a->node_os || !primary || !allowed || !bound)
		goto out;
	/* On this machine, also honour the calling thread's affinity
	 * (taskset): children forked later inherit it. */
	if (a->this_machine &&
	    hwloc_get_cpubind(topo, bound, HWLOC_CPUBIND_THREAD) == 0)
		hwloc_bitmap_and(allowed, allowed, bound);
	for (unsigned i = 0; i < a->n_nodes; i++) {
		hwloc_obj_t node =
			hwloc_get_obj_by_type(topo, HWLOC_OBJ_NUMANODE, i);

		a->node_os[i] = node ? node->os_index : 0;
	}
	for (unsigned i = 0; i < a->n_pus; i++)
		read_pu(a, i, allowed, n_hw_cores, &coreless);
	a->n_cores = n_hw_cores + coreless;
	if (a->n_allowed == 0) {
		wm_affinity_say(err, errlen,
				"topology has no processing unit allowed "
				"for this process");
		rc = -EINVAL;
		goto out;
	}
	if (read_tree(a, primary) != 0 ||
	    hwloc_bitmap_list_asprintf(
		    &a->all_list, hwloc_topology_get_topology_cpuset(topo)) <
		    0 ||
	    hwloc_bitmap_list_asprintf(&a->allowed_list, allowed) < 0)
		goto out;
	rc = 0;
out:
	if (rc == -ENOMEM)
		wm_affinity_say(err, errlen,
				"could not read topology: out of memory");
	free(primary);
	hwloc_bitmap_free(allowed);
	hwloc_bitmap_free(bound);
	return rc;
}

int
wm_affinity_open(const char *description, struct wm_affinity **out, char *err,
		 size_t errlen)
{
	struct wm_affinity *a;
	int rc;

	*out = NULL;
	a = calloc(1, sizeof(*a));
	if (a == NULL) {
		wm_affinity_say(err, errlen,
				"could not read topology: out of memory");
		return -ENOMEM;
	}
	if (hwloc_topology_init(&a->topo) < 0) {
		rc = errno ? -errno : -ENOMEM;
		wm_affinity_say(err, errlen, "could not initialise hwloc: %s",
				strerror(-rc));
		free(a);
		return rc;
	}
	if (description == NULL) {
		/* Keep disallowed PUs, marked as such, to name them in
		 * messages rather than call them nonexistent. */
		hwloc_topology_set_flags(
			a->topo, HWLOC_TOPOLOGY_FLAG_INCLUDE_DISALLOWED);
	} else if (ends_with(description, ".xml")) {
		FILE *f = fopen(description, "r");

		if (f == NULL) {
			rc = -errno;
			wm_affinity_say(
				err, errlen,
				"could not open topology file \"%s\": %s",
				description, strerror(errno));
			goto fail;
		}
		fclose(f);
		if (hwloc_topology_set_xml(a->topo, description) < 0) {
			wm_affinity_say(err, errlen,
					"invalid topology file \"%s\": hwloc "
					"could not read it as XML",
					description);
			rc = -EINVAL;
			goto fail;
		}
	} else if (hwloc_topology_set_synthetic(a->topo, description) < 0) {
		wm_affinity_say(err, errlen,
				"invalid synthetic topology \"%s\": expected "
				"hwloc levels such as \"pack:2 numa:2 "
				"core:16 pu:2\"",
				description);
		rc = -EINVAL;
		goto fail;
	}
	if (hwloc_topology_load(a->topo) < 0) {
		rc = errno ? -errno : -EINVAL;
		if (description == NULL)
			wm_affinity_say(err, errlen,
					"could not read this machine's "
					"topology: %s",
					strerror(-rc));
		else
			wm_affinity_say(err, errlen,
					"invalid topology \"%s\": %s",
					description, strerror(-rc));
		goto fail;
	}
	/* HWLOC_XMLFILE or HWLOC_SYNTHETIC in the environment can replace
	 * the machine: then it is a model, not something to bind with. */
	a->this_machine =
		description == NULL && hwloc_topology_is_thissystem(a->topo);
	rc = read_topology(a, err, errlen);
	if (rc < 0)
		goto fail;
	*out = a;
	return 0;
fail:
	wm_affinity_close(a);
	return rc;
}

void
wm_affinity_close(struct wm_affinity *a)
{
	if (a == NULL)
		return;
	hwloc_topology_destroy(a->topo);
	free(a->pus);
	free(a->node_os);
	free(a->objs);
	free(a->kids);
	free(a->all_list);
	free(a->allowed_list);
	free(a);
}

bool
wm_affinity_is_this_machine(const struct wm_affinity *a)
{
	return a->this_machine;
}

unsigned
wm_affinity_packages(const struct wm_affinity *a)
{
	return a->n_packages;
}

unsigned
wm_affinity_nodes(const struct wm_affinity *a)
{
	return a->n_nodes;
}

unsigned
wm_affinity_cores(const struct wm_affinity *a)
{
	return a->n_cores;
}

unsigned
wm_affinity_pus(const struct wm_affinity *a)
{
	return a->n_pus;
}

unsigned
wm_affinity_allowed_pus(const struct wm_affinity *a)
{
	return a->n_allowed;
}

const struct wm_affinity_pu *
wm_affinity_pu(const struct wm_affinity *a, unsigned i)
{
	return i < a->n_pus ? &a->pus[i] : NULL;
}

const struct wm_affinity_pu *
wm_affinity_pu_by_cpu(const struct wm_affinity *a, unsigned cpu)
{
	unsigned i;

	for (i = 0; i < a->n_pus; i++)
		if (a->pus[i].cpu == cpu)
			return &a->pus[i];
	return NULL;
}

unsigned
wm_affinity_node(const struct wm_affinity *a, unsigned i)
{
	return i < a->n_nodes ? a->node_os[i] : NONE;
}

int
wm_affinity_export_xml(const struct wm_affinity *a, const char *path, char *err,
		       size_t errlen)
{
	if (hwloc_topology_export_xml(a->topo, path, 0) < 0) {
		int e = errno ? errno : EIO;

		wm_affinity_say(err, errlen,
				"could not write topology file \"%s\": %s",
				path, strerror(e));
		return -e;
	}
	return 0;
}
