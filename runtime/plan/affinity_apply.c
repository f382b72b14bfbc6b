/*
 * affinity_apply.c
 *	A plan applied on this machine: a process pinned to its CPU (hwloc),
 *	a ring's pages bound to a NUMA node (libnuma). The only file
 *	including numa.h.
 */
#include "config.h"

#include <errno.h>
#include <string.h>

#include <hwloc.h>
#include <numa.h>
#include <numaif.h>

#include "runtime/plan/affinity_internal.h"

/* ------------------------------------------------------------------ */
/* Applying a plan on this machine */

int
wm_affinity_pin_self(const struct wm_affinity *a, unsigned cpu, char *err,
		     size_t errlen)
{
	const struct wm_affinity_pu *pu;
	hwloc_bitmap_t set;
	int rc = 0;

	if (!a->this_machine) {
		wm_affinity_say(err, errlen,
				"cannot pin to CPU %u: the topology does not "
				"describe this machine",
				cpu);
		return -EINVAL;
	}
	pu = wm_affinity_pu_by_cpu(a, cpu);
	if (pu == NULL || !pu->allowed) {
		wm_affinity_say(
			err, errlen,
			"cannot pin to CPU %u: %s (allowed CPUs %s)", cpu,
			pu ? "not allowed for this process" : "no such CPU",
			a->allowed_list);
		return -EINVAL;
	}
	set = hwloc_bitmap_alloc();
	if (set == NULL) {
		wm_affinity_say(err, errlen,
				"could not pin to CPU %u: out of memory", cpu);
		return -ENOMEM;
	}
	hwloc_bitmap_only(set, cpu);
	errno = 0;
	if (hwloc_set_cpubind(a->topo, set, HWLOC_CPUBIND_PROCESS) < 0) {
		rc = errno ? -errno : -EINVAL;
		wm_affinity_say(err, errlen,
				"could not pin process to CPU %u: %s", cpu,
				strerror(-rc));
	}
	hwloc_bitmap_free(set);
	return rc;
}

int
wm_affinity_bind_memory(const struct wm_affinity *a, void *addr, size_t len,
			unsigned node, char *err, size_t errlen)
{
	unsigned long mask[MAX_NODE_OS / (8 * sizeof(unsigned long))] = {0};
	const size_t bits = 8 * sizeof(unsigned long);
	long page = sysconf(_SC_PAGESIZE);
	bool known = false;
	unsigned i;

	if (!a->this_machine) {
		wm_affinity_say(err, errlen,
				"cannot bind memory to NUMA node %u: the "
				"topology does not describe this machine",
				node);
		return -EINVAL;
	}
	for (i = 0; i < a->n_nodes; i++)
		if (a->node_os[i] == node && node < MAX_NODE_OS)
			known = true;
	if (!known) {
		wm_affinity_say(err, errlen,
				"cannot bind memory to NUMA node %u: no such "
				"node",
				node);
		return -EINVAL;
	}
	if (len == 0 || page <= 0 || (uintptr_t)addr % (uintptr_t)page != 0) {
		wm_affinity_say(err, errlen,
				"cannot bind memory at %p (%zu bytes) to "
				"NUMA node %u: the range must be non-empty "
				"and start on a page",
				addr, len, node);
		return -EINVAL;
	}
	if (numa_available() < 0) {
		if (a->n_nodes == 1)
			return 0;
		wm_affinity_say(err, errlen,
				"could not bind memory to NUMA node %u: the "
				"kernel has no NUMA policy support",
				node);
		return -ENOSYS;
	}
	mask[node / bits] |= 1UL << (node % bits);
	/* The kernel reads maxnode - 1 bits: node + 2 covers bit `node`. */
	if (mbind(addr, len, MPOL_PREFERRED, mask, node + 2, MPOL_MF_MOVE) <
	    0) {
		int e = errno;

		wm_affinity_say(err, errlen,
				"could not bind memory at %p (%zu bytes) to "
				"NUMA node %u: %s",
				addr, len, node, strerror(e));
		return -e;
	}
	return 0;
}
