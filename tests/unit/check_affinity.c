/*
 * check_affinity.c
 *	Unit tests for runtime/affinity.[ch]: topologies, the placement plan,
 *	explicit CPU lists, pinning and memory binding.
 *
 * The plan is checked on hwloc synthetic topologies of the machines users
 * have (two sockets, two or four NUMA nodes, SMT), where nothing is bound;
 * pinning and binding are checked on this machine, whatever it is: nothing
 * here assumes its number of PUs or nodes.
 *
 * Checks inside loops collect a verdict and a message and assert once, so
 * that a passing test costs few pipe writes in Check's fork mode.
 */
#include "config.h"

#include <check.h>
#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include <numaif.h>

#include "runtime/plan/affinity.h"
#include "tests/unit/check_main.h"

#define N_ELEMS(a) (sizeof(a) / sizeof((a)[0]))
#define NONE_CPU (~0u)

/* The brief's example: 2 packages x 2 NUMA nodes x 16 cores x 2 PUs
 * (hwloc reads it as 4 nodes, 64 cores, 128 PUs). */
#define SPEC_4NODES_128 "pack:2 numa:2 core:16 pu:2"
/* Two sockets, one node each, 64 PUs. */
#define SPEC_2NODES_64 "pack:2 numa:1 core:16 pu:2"
/* Two sockets split in two nodes each (SNC/NPS2), 64 PUs. */
#define SPEC_4NODES_64 "pack:2 numa:2 core:8 pu:2"

static char err[512];

/* ------------------------------------------------------------------ */
/* Jobs */

struct job {
	struct wm_affinity_task tasks[512];
	struct wm_affinity_edge edges[8192];
	size_t n, n_edges;
};

/* Append a stage of `parallelism` subtasks; returns its first task. */
static unsigned
job_stage(struct job *j, const char *name, unsigned parallelism)
{
	unsigned first = (unsigned)j->n, i;

	ck_assert_uint_le(j->n + parallelism, N_ELEMS(j->tasks));
	for (i = 0; i < parallelism; i++) {
		j->tasks[j->n].stage = name;
		j->tasks[j->n].index = i;
		j->n++;
	}
	return first;
}

static void
job_edge(struct job *j, unsigned from, unsigned to, uint32_t weight)
{
	j->edges[j->n_edges].producer = from;
	j->edges[j->n_edges].consumer = to;
	j->edges[j->n_edges].weight = weight;
	j->n_edges++;
}

/* Hash exchange: every producer feeds every consumer. */
static void
job_all_to_all(struct job *j, unsigned from, unsigned n_from, unsigned to,
	       unsigned n_to, uint32_t weight)
{
	unsigned i, k;

	ck_assert_uint_le(j->n_edges + (size_t)n_from * n_to,
			  N_ELEMS(j->edges));
	for (i = 0; i < n_from; i++)
		for (k = 0; k < n_to; k++)
			job_edge(j, from + i, to + k, weight);
}

static void
job_forward(struct job *j, unsigned from, unsigned to, unsigned n,
	    uint32_t weight)
{
	unsigned i;

	for (i = 0; i < n; i++)
		job_edge(j, from + i, to + i, weight);
}

/*
 * source (p) -> keyBy (q) -> window (q): hash exchange, then forward.
 * Weights follow the traffic: a source emits q units, one per keyBy; a
 * keyBy receives p units and forwards them all (unless `flat`: all 1).
 */
static void
job_keyby_window(struct job *j, unsigned p, unsigned q, bool flat,
		 unsigned *keyby, unsigned *window)
{
	unsigned source;

	memset(j, 0, sizeof(*j));
	source = job_stage(j, "source", p);
	*keyby = job_stage(j, "keyBy", q);
	*window = job_stage(j, "window", q);
	job_all_to_all(j, source, p, *keyby, q, 1);
	job_forward(j, *keyby, *window, q, flat ? 1 : p);
}

/* ------------------------------------------------------------------ */
/* Checks on a plan */

static struct wm_affinity *
open_ok(const char *description)
{
	struct wm_affinity *a = NULL;
	int rc = wm_affinity_open(description, &a, err, sizeof(err));

	ck_assert_msg(rc == 0, "open \"%s\": %d %s",
		      description ? description : "(machine)", rc, err);
	return a;
}

static struct wm_affinity_plan *
plan_ok(const struct wm_affinity *a, const struct job *j, const char *cpus)
{
	struct wm_affinity_plan *plan = NULL;
	int rc = wm_affinity_plan_new(a, j->tasks, j->n, j->edges, j->n_edges,
				      cpus, &plan, err, sizeof(err));

	ck_assert_msg(rc == 0, "plan: %d %s", rc, err);
	ck_assert_uint_eq(plan->n_tasks, j->n);
	ck_assert_uint_eq(plan->n_edges, j->n_edges);
	return plan;
}

/* G1, G7: allowed PUs, node = PU's node, ring on the consumer's node. */
static void
check_consistent(const struct wm_affinity *a,
		 const struct wm_affinity_plan *plan)
{
	char msg[256] = "";
	size_t i;

	for (i = 0; i < plan->n_tasks && !msg[0]; i++) {
		const struct wm_affinity_pu *pu =
			wm_affinity_pu_by_cpu(a, plan->place[i].cpu);

		if (pu == NULL || !pu->allowed)
			snprintf(msg, sizeof(msg), "task %zu on CPU %u", i,
				 plan->place[i].cpu);
		else if (pu->node != plan->place[i].node)
			snprintf(msg, sizeof(msg), "task %zu: node %u, not %u",
				 i, plan->place[i].node, pu->node);
	}
	for (i = 0; i < plan->n_edges && !msg[0]; i++)
		if (plan->ring_node[i] !=
		    plan->place[plan->edges[i].consumer].node)
			snprintf(msg, sizeof(msg), "ring %zu on node %u", i,
				 plan->ring_node[i]);
	ck_assert_msg(msg[0] == '\0', "%s", msg);
}

/* G2-G4: how tasks spread over cores and PUs. */
static void
check_spread(const struct wm_affinity *a, const struct wm_affinity_plan *plan)
{
	unsigned np = wm_affinity_pus(a), nc = wm_affinity_cores(a);
	unsigned *per_pu = calloc(np, sizeof(*per_pu));
	unsigned *per_core = calloc(nc, sizeof(*per_core));
	bool *core_allowed = calloc(nc, sizeof(*core_allowed));
	unsigned allowed = wm_affinity_allowed_pus(a), cores = 0;
	size_t n = plan->n_tasks, i;
	char msg[256] = "";

	ck_assert(per_pu && per_core && core_allowed);
	for (i = 0; i < np; i++) {
		const struct wm_affinity_pu *pu =
			wm_affinity_pu(a, (unsigned)i);

		if (pu->allowed && !core_allowed[pu->core]) {
			core_allowed[pu->core] = true;
			cores++;
		}
	}
	for (i = 0; i < n; i++) {
		unsigned k;

		for (k = 0; k < np; k++)
			if (wm_affinity_pu(a, k)->cpu == plan->place[i].cpu)
				break;
		per_pu[k]++;
		per_core[wm_affinity_pu(a, k)->core]++;
	}
	for (i = 0; i < np && !msg[0]; i++) {
		const struct wm_affinity_pu *pu =
			wm_affinity_pu(a, (unsigned)i);

		if (!pu->allowed)
			continue;
		if (n > allowed && per_pu[i] != n / allowed &&
		    per_pu[i] != (n + allowed - 1) / allowed)
			snprintf(msg, sizeof(msg),
				 "G4: CPU %u has %u of %zu tasks on %u CPUs",
				 pu->cpu, per_pu[i], n, allowed);
		if (n <= allowed && per_pu[i] > 1)
			snprintf(msg, sizeof(msg), "G3: CPU %u has %u tasks",
				 pu->cpu, per_pu[i]);
		if (n <= cores && per_core[pu->core] > 1)
			snprintf(msg, sizeof(msg), "G2: core %u has %u tasks",
				 pu->core, per_core[pu->core]);
		if (n > cores && per_core[pu->core] == 0)
			snprintf(msg, sizeof(msg), "G3: core %u is idle",
				 pu->core);
	}
	free(per_pu);
	free(per_core);
	free(core_allowed);
	ck_assert_msg(msg[0] == '\0', "%s", msg);
}

/* Forward pairs keyBy/i -> window/i on one node. */
static void
check_pairs_on_one_node(const struct wm_affinity_plan *plan, unsigned keyby,
			unsigned window, unsigned q)
{
	char msg[256] = "";
	unsigned i;

	for (i = 0; i < q && !msg[0]; i++)
		if (plan->place[keyby + i].node != plan->place[window + i].node)
			snprintf(msg, sizeof(msg),
				 "keyBy/%u on node %u, window/%u on node %u", i,
				 plan->place[keyby + i].node, i,
				 plan->place[window + i].node);
	ck_assert_msg(msg[0] == '\0', "%s", msg);
}

/* Tasks of [first, first + n) per node; returns the number of nodes. */
static unsigned
per_node(const struct wm_affinity *a, const struct wm_affinity_plan *plan,
	 unsigned first, unsigned n, unsigned *count)
{
	unsigned nodes = wm_affinity_nodes(a), k, i;

	for (k = 0; k < nodes; k++) {
		count[k] = 0;
		for (i = first; i < first + n; i++)
			if (plan->place[i].node == wm_affinity_node(a, k))
				count[k]++;
	}
	return nodes;
}

/* Counts over the nodes that have tasks differ by at most one. */
static bool
balanced(const unsigned *count, unsigned nodes, unsigned *min, unsigned *max)
{
	unsigned k;

	*min = UINT32_MAX;
	*max = 0;
	for (k = 0; k < nodes; k++) {
		if (count[k] == 0)
			continue;
		if (count[k] < *min)
			*min = count[k];
		if (count[k] > *max)
			*max = count[k];
	}
	return *max - *min <= 1;
}

/* ------------------------------------------------------------------ */
/* tcase machine: this machine, whatever it is */

static void
affinity_of_self(cpu_set_t *set)
{
	CPU_ZERO(set);
	ck_assert_int_eq(sched_getaffinity(0, sizeof(*set), set), 0);
}

START_TEST(test_affinity_machine_matches_the_os)
{
	struct wm_affinity *a = open_ok(NULL);
	long online = sysconf(_SC_NPROCESSORS_ONLN);
	unsigned np = wm_affinity_pus(a), i, k, allowed = 0;
	cpu_set_t mine;
	char msg[256] = "";

	affinity_of_self(&mine);
	ck_assert(wm_affinity_is_this_machine(a));
	ck_assert_int_eq(np, online);
	ck_assert_uint_ge(wm_affinity_packages(a), 1);
	ck_assert_uint_ge(wm_affinity_nodes(a), 1);
	ck_assert_uint_ge(wm_affinity_cores(a), wm_affinity_packages(a));
	ck_assert_uint_le(wm_affinity_cores(a), np);
	for (i = 0; i < np && !msg[0]; i++) {
		const struct wm_affinity_pu *pu = wm_affinity_pu(a, i);
		bool node_known = false;

		for (k = 0; k < wm_affinity_nodes(a); k++)
			node_known |= wm_affinity_node(a, k) == pu->node;
		if (pu->allowed != (bool)CPU_ISSET(pu->cpu, &mine))
			snprintf(msg, sizeof(msg),
				 "CPU %u: allowed %d, sched_getaffinity %d",
				 pu->cpu, pu->allowed,
				 CPU_ISSET(pu->cpu, &mine));
		else if (!node_known || pu->core >= wm_affinity_cores(a) ||
			 pu->package >= wm_affinity_packages(a))
			snprintf(msg, sizeof(msg), "CPU %u: bad numbering",
				 pu->cpu);
		else if (wm_affinity_pu_by_cpu(a, pu->cpu) != pu)
			snprintf(msg, sizeof(msg), "CPU %u is listed twice",
				 pu->cpu);
		allowed += pu->allowed;
	}
	ck_assert_msg(msg[0] == '\0', "%s", msg);
	ck_assert_uint_eq(allowed, wm_affinity_allowed_pus(a));
	ck_assert_uint_eq(allowed, (unsigned)CPU_COUNT(&mine));
	wm_affinity_close(a);
}
END_TEST

/* A 3-task pipeline and a job with twice as many tasks as CPUs. */
START_TEST(test_affinity_machine_plan_uses_allowed_cpus)
{
	struct wm_affinity *a = open_ok(NULL);
	struct wm_affinity_plan *plan;
	static struct job j;
	unsigned keyby, window, n = wm_affinity_allowed_pus(a);

	job_keyby_window(&j, 1, 1, false, &keyby, &window);
	plan = plan_ok(a, &j, NULL);
	check_consistent(a, plan);
	check_spread(a, plan);
	wm_affinity_plan_free(plan);

	job_keyby_window(&j, n, n, false, &keyby, &window);
	plan = plan_ok(a, &j, NULL);
	check_consistent(a, plan);
	check_spread(a, plan);
	check_pairs_on_one_node(plan, keyby, window, n);
	wm_affinity_plan_free(plan);
	wm_affinity_close(a);
}
END_TEST

/* Each allowed CPU in turn, in a child, then read back the affinity. */
START_TEST(test_affinity_pin_self_binds_the_process)
{
	struct wm_affinity *a = open_ok(NULL);
	unsigned i;

	for (i = 0; i < wm_affinity_pus(a); i++) {
		const struct wm_affinity_pu *pu = wm_affinity_pu(a, i);
		pid_t pid;
		int st;

		if (!pu->allowed)
			continue;
		pid = fork();
		ck_assert_int_ge(pid, 0);
		if (pid == 0) {
			cpu_set_t set;

			if (wm_affinity_pin_self(a, pu->cpu, err,
						 sizeof(err)) != 0) {
				fprintf(stderr, "%s\n", err);
				_exit(2);
			}
			CPU_ZERO(&set);
			if (sched_getaffinity(0, sizeof(set), &set) != 0)
				_exit(3);
			_exit(CPU_COUNT(&set) == 1 && CPU_ISSET(pu->cpu, &set)
				      ? 0
				      : 4);
		}
		ck_assert_int_eq(waitpid(pid, &st, 0), pid);
		ck_assert_msg(WIFEXITED(st) && WEXITSTATUS(st) == 0,
			      "pin to CPU %u: child status 0x%x", pu->cpu, st);
	}
	wm_affinity_close(a);
}
END_TEST

START_TEST(test_affinity_pin_self_refuses_unknown_cpu)
{
	struct wm_affinity *a = open_ok(NULL);
	unsigned bad = 0, i;

	for (i = 0; i < wm_affinity_pus(a); i++)
		if (wm_affinity_pu(a, i)->cpu >= bad)
			bad = wm_affinity_pu(a, i)->cpu + 1;
	ck_assert_int_eq(wm_affinity_pin_self(a, bad, err, sizeof(err)),
			 -EINVAL);
	ck_assert_msg(strstr(err, "no such CPU") != NULL, "%s", err);
	wm_affinity_close(a);
}
END_TEST

/* Every page of [p, p + len) is on `node` and the policy says so. */
static void
check_pages_on_node(char *p, size_t len, unsigned node)
{
	long page = sysconf(_SC_PAGESIZE);
	unsigned long count = len / (unsigned long)page, i;
	void *pages[64];
	int status[64], mode = -1;
	unsigned long mask[16] = {0};
	char msg[128] = "";

	ck_assert_uint_le(count, N_ELEMS(pages));
	for (i = 0; i < count; i++) {
		p[i * (unsigned long)page] = 1; /* fault it in */
		pages[i] = p + i * (unsigned long)page;
		status[i] = -1;
	}
	ck_assert_int_eq(
		get_mempolicy(&mode, mask, 8 * sizeof(mask), p, MPOL_F_ADDR),
		0);
	ck_assert_int_eq(mode, MPOL_PREFERRED);
	ck_assert(mask[node / (8 * sizeof(long))] &
		  (1UL << (node % (8 * sizeof(long)))));
	ck_assert_int_eq(move_pages(0, count, pages, NULL, status, 0), 0);
	for (i = 0; i < count && !msg[0]; i++)
		if (status[i] != (int)node)
			snprintf(msg, sizeof(msg), "page %lu on node %d", i,
				 status[i]);
	ck_assert_msg(msg[0] == '\0', "%s (wanted %u)", msg, node);
}

/* Private and shared (memfd, like the segment) mappings, every node. */
START_TEST(test_affinity_bind_memory_places_pages)
{
	struct wm_affinity *a = open_ok(NULL);
	size_t len = 16 * (size_t)sysconf(_SC_PAGESIZE);
	unsigned k;

	for (k = 0; k < wm_affinity_nodes(a); k++) {
		unsigned node = wm_affinity_node(a, k);
		char *p = mmap(NULL, len, PROT_READ | PROT_WRITE,
			       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		int fd = memfd_create("wm-affinity-test", MFD_CLOEXEC);
		char *q;

		ck_assert(p != MAP_FAILED);
		ck_assert_msg(wm_affinity_bind_memory(a, p, len, node, err,
						      sizeof(err)) == 0,
			      "%s", err);
		check_pages_on_node(p, len, node);
		munmap(p, len);

		ck_assert_int_ge(fd, 0);
		ck_assert_int_eq(ftruncate(fd, (off_t)len), 0);
		q = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
		ck_assert(q != MAP_FAILED);
		ck_assert_msg(wm_affinity_bind_memory(a, q, len, node, err,
						      sizeof(err)) == 0,
			      "%s", err);
		check_pages_on_node(q, len, node);
		munmap(q, len);
		close(fd);
	}
	wm_affinity_close(a);
}
END_TEST

START_TEST(test_affinity_bind_memory_refuses_bad_ranges)
{
	struct wm_affinity *a = open_ok(NULL);
	size_t page = (size_t)sysconf(_SC_PAGESIZE);
	unsigned node = wm_affinity_node(a, 0), bad = 0, k;
	char *p = mmap(NULL, 2 * page, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	ck_assert(p != MAP_FAILED);
	for (k = 0; k < wm_affinity_nodes(a); k++)
		if (wm_affinity_node(a, k) >= bad)
			bad = wm_affinity_node(a, k) + 1;
	ck_assert_int_eq(
		wm_affinity_bind_memory(a, p + 1, page, node, err, sizeof(err)),
		-EINVAL);
	ck_assert_msg(strstr(err, "start on a page") != NULL, "%s", err);
	ck_assert_int_eq(
		wm_affinity_bind_memory(a, p, 0, node, err, sizeof(err)),
		-EINVAL);
	ck_assert_int_eq(
		wm_affinity_bind_memory(a, p, page, bad, err, sizeof(err)),
		-EINVAL);
	ck_assert_msg(strstr(err, "no such node") != NULL, "%s", err);
	munmap(p, 2 * page);
	/* Unmapped now: the kernel's error comes back. */
	ck_assert_int_eq(
		wm_affinity_bind_memory(a, p, page, node, err, sizeof(err)),
		-EFAULT);
	ck_assert_msg(strstr(err, "could not bind memory") != NULL, "%s", err);
	wm_affinity_close(a);
}
END_TEST

/* Restricted like `taskset -c <first>`: the other CPUs are refused. */
START_TEST(test_affinity_cpu_outside_affinity_is_refused)
{
	struct wm_affinity *a = open_ok(NULL);
	static struct job j;
	struct wm_affinity_plan *plan = NULL;
	unsigned first = NONE_CPU, other = NONE_CPU, i, keyby, window;
	cpu_set_t one, saved;
	char list[32];

	for (i = 0; i < wm_affinity_pus(a); i++) {
		const struct wm_affinity_pu *pu = wm_affinity_pu(a, i);

		if (!pu->allowed)
			continue;
		if (first == NONE_CPU)
			first = pu->cpu;
		else if (other == NONE_CPU)
			other = pu->cpu;
	}
	wm_affinity_close(a);
	if (other == NONE_CPU)
		return; /* one CPU: nothing to restrict */
	affinity_of_self(&saved);
	CPU_ZERO(&one);
	CPU_SET(first, &one);
	ck_assert_int_eq(sched_setaffinity(0, sizeof(one), &one), 0);
	a = open_ok(NULL);
	ck_assert_uint_eq(wm_affinity_allowed_pus(a), 1);
	ck_assert(!wm_affinity_pu_by_cpu(a, other)->allowed);
	job_keyby_window(&j, 1, 1, false, &keyby, &window);
	snprintf(list, sizeof(list), "%u,%u,%u", first, other, first);
	ck_assert_int_eq(wm_affinity_plan_new(a, j.tasks, j.n, j.edges,
					      j.n_edges, list, &plan, err,
					      sizeof(err)),
			 -EINVAL);
	ck_assert_ptr_null(plan);
	ck_assert_msg(strstr(err, "is not allowed for this process") != NULL &&
			      strstr(err, "\"keyBy/0\"") != NULL,
		      "%s", err);
	ck_assert_int_eq(wm_affinity_pin_self(a, other, err, sizeof(err)),
			 -EINVAL);
	/* The heuristic keeps to the one allowed CPU. */
	plan = plan_ok(a, &j, NULL);
	for (i = 0; i < j.n; i++)
		ck_assert_uint_eq(plan->place[i].cpu, first);
	wm_affinity_plan_free(plan);
	wm_affinity_close(a);
	/* Under CK_FORK=no the next tests run in this process. */
	ck_assert_int_eq(sched_setaffinity(0, sizeof(saved), &saved), 0);
}
END_TEST

/* ------------------------------------------------------------------ */
/* tcase synthetic: topologies of other machines */

static const struct {
	const char *spec;
	unsigned packages, nodes, cores, pus;
} shapes[] = {
	{SPEC_4NODES_128, 2, 4, 64, 128}, {SPEC_2NODES_64, 2, 2, 32, 64},
	{SPEC_4NODES_64, 2, 4, 32, 64},	  {"core:2 pu:1", 1, 1, 2, 2},
	{"pack:2 pu:4", 2, 1, 8, 8}, /* no core level: a PU is a core */
};

START_TEST(test_affinity_synthetic_counts)
{
	struct wm_affinity *a = open_ok(shapes[_i].spec);
	unsigned i, pus_per_core;
	char msg[256] = "";

	ck_assert(!wm_affinity_is_this_machine(a));
	ck_assert_uint_eq(wm_affinity_packages(a), shapes[_i].packages);
	ck_assert_uint_eq(wm_affinity_nodes(a), shapes[_i].nodes);
	ck_assert_uint_eq(wm_affinity_cores(a), shapes[_i].cores);
	ck_assert_uint_eq(wm_affinity_pus(a), shapes[_i].pus);
	ck_assert_uint_eq(wm_affinity_allowed_pus(a), shapes[_i].pus);
	pus_per_core = shapes[_i].pus / shapes[_i].cores;
	/* Synthetic PUs are numbered in order; siblings are adjacent and
	 * share core, package and node. */
	for (i = 0; i < shapes[_i].pus && !msg[0]; i++) {
		const struct wm_affinity_pu *pu = wm_affinity_pu(a, i);
		const struct wm_affinity_pu *first =
			wm_affinity_pu(a, i - i % pus_per_core);

		if (pu->cpu != i || pu->core != i / pus_per_core)
			snprintf(msg, sizeof(msg), "PU %u: CPU %u core %u", i,
				 pu->cpu, pu->core);
		else if (pu->package != first->package ||
			 pu->node != first->node)
			snprintf(msg, sizeof(msg), "PU %u leaves its core", i);
		else if (pu->package !=
			 i / (shapes[_i].pus / shapes[_i].packages))
			snprintf(msg, sizeof(msg), "PU %u: package %u", i,
				 pu->package);
		else if (pu->node != i / (shapes[_i].pus / shapes[_i].nodes))
			snprintf(msg, sizeof(msg), "PU %u: node %u", i,
				 pu->node);
	}
	ck_assert_msg(msg[0] == '\0', "%s: %s", shapes[_i].spec, msg);
	ck_assert_ptr_null(wm_affinity_pu(a, shapes[_i].pus));
	ck_assert_ptr_null(wm_affinity_pu_by_cpu(a, shapes[_i].pus));
	wm_affinity_close(a);
}
END_TEST

START_TEST(test_affinity_invalid_synthetic_is_refused)
{
	static const char *const bad[] = {"pack:x", "nonsense", "pu:0",
					  "pack:2 core:"};
	struct wm_affinity *a = (struct wm_affinity *)&a;
	char want[128];
	size_t i;

	for (i = 0; i < N_ELEMS(bad); i++) {
		ck_assert_int_eq(wm_affinity_open(bad[i], &a, err, sizeof(err)),
				 -EINVAL);
		ck_assert_ptr_null(a);
		snprintf(want, sizeof(want),
			 "invalid synthetic topology \"%s\"", bad[i]);
		ck_assert_msg(strncmp(err, want, strlen(want)) == 0, "%s", err);
	}
}
END_TEST

/* Synthetic CPU numbers are not this machine's: no pinning, no binding. */
START_TEST(test_affinity_synthetic_cannot_pin_or_bind)
{
	struct wm_affinity *a = open_ok(SPEC_2NODES_64);
	size_t page = (size_t)sysconf(_SC_PAGESIZE);
	char *p = mmap(NULL, page, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	ck_assert(p != MAP_FAILED);
	ck_assert_int_eq(wm_affinity_pin_self(a, 0, err, sizeof(err)), -EINVAL);
	ck_assert_msg(strstr(err, "does not describe this machine"), "%s", err);
	ck_assert_int_eq(
		wm_affinity_bind_memory(a, p, page, 0, err, sizeof(err)),
		-EINVAL);
	ck_assert_msg(strstr(err, "does not describe this machine"), "%s", err);
	munmap(p, page);
	wm_affinity_close(a);
}
END_TEST

/* An XML file written from a synthetic topology reads back the same, and
 * gives the same plan. */
START_TEST(test_affinity_xml_round_trips)
{
	struct wm_affinity *a = open_ok(SPEC_4NODES_128), *b;
	struct wm_affinity_plan *pa, *pb;
	static struct job j;
	char path[] = "/tmp/wm-affinity-XXXXXX.xml";
	unsigned i, keyby, window;
	int fd = mkstemps(path, 4);

	ck_assert_int_ge(fd, 0);
	close(fd);
	ck_assert_msg(wm_affinity_export_xml(a, path, err, sizeof(err)) == 0,
		      "%s", err);
	b = open_ok(path);
	unlink(path);
	ck_assert(!wm_affinity_is_this_machine(b));
	ck_assert_uint_eq(wm_affinity_packages(b), wm_affinity_packages(a));
	ck_assert_uint_eq(wm_affinity_nodes(b), wm_affinity_nodes(a));
	ck_assert_uint_eq(wm_affinity_cores(b), wm_affinity_cores(a));
	ck_assert_uint_eq(wm_affinity_pus(b), wm_affinity_pus(a));
	ck_assert_uint_eq(wm_affinity_allowed_pus(b),
			  wm_affinity_allowed_pus(a));
	for (i = 0; i < wm_affinity_pus(a); i++)
		if (memcmp(wm_affinity_pu(a, i), wm_affinity_pu(b, i),
			   sizeof(struct wm_affinity_pu)) != 0)
			break;
	ck_assert_uint_eq(i, wm_affinity_pus(a));
	job_keyby_window(&j, 8, 16, false, &keyby, &window);
	pa = plan_ok(a, &j, NULL);
	pb = plan_ok(b, &j, NULL);
	ck_assert_mem_eq(pa->place, pb->place, j.n * sizeof(*pa->place));
	wm_affinity_plan_free(pa);
	wm_affinity_plan_free(pb);
	wm_affinity_close(a);
	wm_affinity_close(b);
}
END_TEST

START_TEST(test_affinity_missing_xml_file_is_reported)
{
	struct wm_affinity *a;

	ck_assert_int_eq(
		wm_affinity_open("/nonexistent/topo.xml", &a, err, sizeof(err)),
		-ENOENT);
	ck_assert_ptr_null(a);
	ck_assert_str_eq(err, "could not open topology file "
			      "\"/nonexistent/topo.xml\": No such file or "
			      "directory");
}
END_TEST

/* ------------------------------------------------------------------ */
/* tcase plan: the heuristic on synthetic machines */

static const char *const plan_specs[] = {SPEC_4NODES_128, SPEC_2NODES_64,
					 SPEC_4NODES_64};

/*
 * source 8 -> keyBy 16 -> window 16 (40 tasks): each keyBy/window pair on
 * one node, rings on the consumer's node, every node used equally, each
 * stage spread evenly, every task on a core of its own.
 */
START_TEST(test_affinity_keyby_window_pairs_share_a_node)
{
	struct wm_affinity *a = open_ok(plan_specs[_i]);
	struct wm_affinity_plan *plan;
	static struct job j;
	unsigned count[64], keyby, window, nodes, lo, hi, k;

	job_keyby_window(&j, 8, 16, false, &keyby, &window);
	plan = plan_ok(a, &j, NULL);
	check_consistent(a, plan);
	check_spread(a, plan);
	check_pairs_on_one_node(plan, keyby, window, 16);

	nodes = per_node(a, plan, 0, (unsigned)j.n, count);
	for (k = 0; k < nodes; k++)
		ck_assert_msg(count[k] > 0, "%s: node %u unused",
			      plan_specs[_i], k);
	ck_assert_msg(balanced(count, nodes, &lo, &hi),
		      "%s: %u to %u tasks per node", plan_specs[_i], lo, hi);
	nodes = per_node(a, plan, 0, 8, count);
	ck_assert_msg(balanced(count, nodes, &lo, &hi) && lo * nodes == 8,
		      "%s: %u to %u sources per node", plan_specs[_i], lo, hi);
	nodes = per_node(a, plan, keyby, 16, count);
	ck_assert_msg(balanced(count, nodes, &lo, &hi) && lo * nodes == 16,
		      "%s: %u to %u keyBys per node", plan_specs[_i], lo, hi);
	wm_affinity_plan_free(plan);
	wm_affinity_close(a);
}
END_TEST

/* The same with every edge weighing 1: the pairing does not depend on the
 * caller estimating traffic. */
START_TEST(test_affinity_equal_weights_still_pair_forward_edges)
{
	struct wm_affinity *a = open_ok(plan_specs[_i]);
	struct wm_affinity_plan *plan;
	static struct job j;
	unsigned keyby, window;

	job_keyby_window(&j, 8, 16, true, &keyby, &window);
	plan = plan_ok(a, &j, NULL);
	check_consistent(a, plan);
	check_spread(a, plan);
	check_pairs_on_one_node(plan, keyby, window, 16);
	wm_affinity_plan_free(plan);
	wm_affinity_close(a);
}
END_TEST

/* 200 tasks: every PU gets floor or ceil of 200 / PUs; pairs stay on one
 * node; nodes get equal shares. */
START_TEST(test_affinity_more_tasks_than_cpus_spread_evenly)
{
	struct wm_affinity *a = open_ok(plan_specs[_i]);
	struct wm_affinity_plan *plan;
	static struct job j;
	unsigned count[64], keyby, window, nodes, lo, hi;

	job_keyby_window(&j, 40, 80, false, &keyby, &window);
	ck_assert_uint_eq(j.n, 200);
	plan = plan_ok(a, &j, NULL);
	check_consistent(a, plan);
	check_spread(a, plan);
	check_pairs_on_one_node(plan, keyby, window, 80);
	nodes = per_node(a, plan, 0, 200, count);
	ck_assert_msg(balanced(count, nodes, &lo, &hi) && lo * nodes == 200,
		      "%s: %u to %u tasks per node", plan_specs[_i], lo, hi);
	wm_affinity_plan_free(plan);
	wm_affinity_close(a);
}
END_TEST

/* 3 tasks on 2 PUs: 2 + 1, the source and its keyBy (matched: the first
 * of keyBy's equal choices) time-share one PU. */
START_TEST(test_affinity_three_tasks_on_two_cpus)
{
	struct wm_affinity *a = open_ok("core:2 pu:1");
	struct wm_affinity_plan *plan;
	static struct job j;
	unsigned keyby, window;

	job_keyby_window(&j, 1, 1, true, &keyby, &window);
	plan = plan_ok(a, &j, NULL);
	check_consistent(a, plan);
	check_spread(a, plan);
	ck_assert_uint_eq(plan->place[0].cpu, plan->place[keyby].cpu);
	ck_assert_uint_ne(plan->place[window].cpu, plan->place[keyby].cpu);
	wm_affinity_plan_free(plan);
	wm_affinity_close(a);
}
END_TEST

/* A job that fits on one node's cores stays on that node. */
START_TEST(test_affinity_small_job_stays_on_one_node)
{
	struct wm_affinity *a = open_ok(plan_specs[_i]);
	struct wm_affinity_plan *plan;
	static struct job j;
	unsigned keyby, window, i;

	job_keyby_window(&j, 2, 2, false, &keyby, &window);
	plan = plan_ok(a, &j, NULL);
	check_consistent(a, plan);
	check_spread(a, plan);
	for (i = 1; i < j.n; i++)
		ck_assert_uint_eq(plan->place[i].node, plan->place[0].node);
	wm_affinity_plan_free(plan);
	wm_affinity_close(a);
}
END_TEST

/* 16 cores, 32 PUs, 12 forward pairs (24 tasks): every core busy, no PU
 * shared, and the 8 cores that must take two tasks take a pair. */
START_TEST(test_affinity_smt_siblings_host_pairs)
{
	struct wm_affinity *a = open_ok("pack:1 core:16 pu:2");
	struct wm_affinity_plan *plan;
	static struct job j;
	unsigned from, to, i, together = 0;

	memset(&j, 0, sizeof(j));
	from = job_stage(&j, "map", 12);
	to = job_stage(&j, "sink", 12);
	job_forward(&j, from, to, 12, 1);
	plan = plan_ok(a, &j, NULL);
	check_consistent(a, plan);
	check_spread(a, plan);
	for (i = 0; i < 12; i++)
		together += plan->place[from + i].cpu / 2 ==
			    plan->place[to + i].cpu / 2;
	ck_assert_uint_eq(together, 8);
	wm_affinity_plan_free(plan);
	wm_affinity_close(a);
}
END_TEST

START_TEST(test_affinity_plan_is_deterministic)
{
	struct wm_affinity *a = open_ok(SPEC_4NODES_128);
	struct wm_affinity_plan *p1, *p2;
	static struct job j;
	unsigned keyby, window;

	job_keyby_window(&j, 40, 80, true, &keyby, &window);
	p1 = plan_ok(a, &j, NULL);
	p2 = plan_ok(a, &j, "");
	ck_assert(!p2->explicit_cpus);
	ck_assert_mem_eq(p1->place, p2->place, j.n * sizeof(*p1->place));
	ck_assert_mem_eq(p1->ring_node, p2->ring_node,
			 j.n_edges * sizeof(*p1->ring_node));
	wm_affinity_plan_free(p1);
	wm_affinity_plan_free(p2);
	wm_affinity_close(a);
}
END_TEST

START_TEST(test_affinity_bad_jobs_are_refused)
{
	struct wm_affinity *a = open_ok(SPEC_2NODES_64);
	struct wm_affinity_plan *plan = NULL;
	static struct job j;
	unsigned keyby, window;

	job_keyby_window(&j, 1, 1, false, &keyby, &window);
	ck_assert_int_eq(wm_affinity_plan_new(a, j.tasks, 0, NULL, 0, NULL,
					      &plan, err, sizeof(err)),
			 -EINVAL);
	j.edges[0].consumer = 7;
	ck_assert_int_eq(wm_affinity_plan_new(a, j.tasks, j.n, j.edges,
					      j.n_edges, NULL, &plan, err,
					      sizeof(err)),
			 -EINVAL);
	ck_assert_str_eq(err, "invalid edge 0: task 7 does not exist (there "
			      "are 3 tasks)");
	j.edges[0].consumer = 0;
	ck_assert_int_eq(wm_affinity_plan_new(a, j.tasks, j.n, j.edges,
					      j.n_edges, NULL, &plan, err,
					      sizeof(err)),
			 -EINVAL);
	ck_assert_str_eq(err, "invalid edge 0: task \"source/0\" cannot feed "
			      "itself");
	ck_assert_ptr_null(plan);
	wm_affinity_close(a);
}
END_TEST

START_TEST(test_affinity_describe_names_every_task_and_ring)
{
	struct wm_affinity *a = open_ok(SPEC_2NODES_64);
	struct wm_affinity_plan *plan;
	static struct job j;
	unsigned keyby, window;
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);

	ck_assert_ptr_nonnull(f);
	job_keyby_window(&j, 8, 16, false, &keyby, &window);
	plan = plan_ok(a, &j, NULL);
	wm_affinity_describe(a, plan, f);
	fclose(f);
	ck_assert_msg(strstr(text, "placement of 40 tasks on 64 of 64 CPUs "
				   "(2 packages, 2 NUMA nodes, 32 cores), "
				   "by heuristic\n") == text,
		      "%s", text);
	ck_assert_ptr_nonnull(strstr(text, "\nwindow/15 "));
	ck_assert_ptr_nonnull(strstr(text, "\nsource/7 "));
	ck_assert_ptr_nonnull(
		strstr(text, "tasks per node: node 0: 20, node 1: 20\n"));
	ck_assert_ptr_nonnull(strstr(text, "\nkeyBy/3    window/3 "));
	/* 4 sources per node, each feeding 8 keyBys on the other. */
	ck_assert_msg(strstr(text, "rings crossing NUMA nodes: 64 of 144, "
				   "weight 64 of 256\n") != NULL,
		      "%s", text);
	free(text);
	wm_affinity_plan_free(plan);
	wm_affinity_close(a);
}
END_TEST

/* ------------------------------------------------------------------ */
/* tcase cpulist: explicit placement */

START_TEST(test_affinity_cpu_list_maps_tasks_in_order)
{
	struct wm_affinity *a = open_ok(SPEC_4NODES_64);
	struct wm_affinity_plan *plan;
	static struct job j;
	static const unsigned want[] = {0, 1, 2, 3, 40, 62, 63};
	unsigned keyby, window, i;

	memset(&j, 0, sizeof(j));
	keyby = job_stage(&j, "keyBy", 5);
	window = job_stage(&j, "window", 2);
	job_forward(&j, keyby, window, 2, 1);
	plan = plan_ok(a, &j, "0-3,40,62-63");
	ck_assert(plan->explicit_cpus);
	for (i = 0; i < j.n; i++) {
		ck_assert_uint_eq(plan->place[i].cpu, want[i]);
		ck_assert_uint_eq(plan->place[i].node, want[i] / 16);
	}
	/* keyBy/0 on node 0 feeds window/0 on CPU 62: node 3. */
	ck_assert_uint_eq(plan->ring_node[0], 3);
	ck_assert_uint_eq(plan->ring_node[1], 3);
	check_consistent(a, plan);
	wm_affinity_plan_free(plan);
	wm_affinity_close(a);
}
END_TEST

/* Repeating a CPU oversubscribes it on purpose. */
START_TEST(test_affinity_cpu_list_allows_duplicates)
{
	struct wm_affinity *a = open_ok(SPEC_2NODES_64);
	struct wm_affinity_plan *plan;
	static struct job j;
	unsigned keyby, window;

	job_keyby_window(&j, 1, 1, false, &keyby, &window);
	plan = plan_ok(a, &j, "5,5,4");
	ck_assert_uint_eq(plan->place[0].cpu, 5);
	ck_assert_uint_eq(plan->place[1].cpu, 5);
	ck_assert_uint_eq(plan->place[2].cpu, 4);
	wm_affinity_plan_free(plan);
	plan = plan_ok(a, &j, "0-1,0");
	ck_assert_uint_eq(plan->place[2].cpu, 0);
	wm_affinity_plan_free(plan);
	wm_affinity_close(a);
}
END_TEST

static const struct {
	const char *list;
	const char *message;
} bad_lists[] = {
	{"0,1-", "invalid CPU list \"0,1-\": expected a CPU number at "
		 "character 5"},
	{"a", "invalid CPU list \"a\": expected a CPU number at character 1"},
	{"3-1,2,0", "invalid CPU list \"3-1,2,0\": range \"3-1\" descends"},
	{"0,,1", "invalid CPU list \"0,,1\": expected a CPU number at "
		 "character 3"},
	{"0,1,", "invalid CPU list \"0,1,\": expected a CPU number at "
		 "character 5"},
	{"-1,0,1", "invalid CPU list \"-1,0,1\": expected a CPU number at "
		   "character 1"},
	{" 0,1,2", "invalid CPU list \" 0,1,2\": expected a CPU number at "
		   "character 1"},
	{"0-2-3", "invalid CPU list \"0-2-3\": unexpected \"-\" at "
		  "character 4"},
	{"0-7:2", "invalid CPU list \"0-7:2\": unexpected \":\" at "
		  "character 4"},
	{"99999999999,1,2", "invalid CPU list \"99999999999,1,2\": expected "
			    "a CPU number at character 1"},
	{"0-3", "CPU list \"0-3\" names 4 CPUs for 3 tasks: give one CPU per "
		"task, in task order"},
	{"0", "CPU list \"0\" names 1 CPUs for 3 tasks: give one CPU per "
	      "task, in task order"},
	{"0,1,64", "CPU 64 in CPU list \"0,1,64\" (task \"window/0\") does "
		   "not exist in this topology (CPUs 0-63)"},
	{"0-1,4000000000", "CPU 4000000000 in CPU list \"0-1,4000000000\" "
			   "(task \"window/0\") does not exist in this "
			   "topology (CPUs 0-63)"},
};

START_TEST(test_affinity_bad_cpu_lists_are_refused)
{
	struct wm_affinity *a = open_ok(SPEC_2NODES_64);
	struct wm_affinity_plan *plan = (struct wm_affinity_plan *)&a;
	static struct job j;
	unsigned keyby, window;

	job_keyby_window(&j, 1, 1, false, &keyby, &window);
	ck_assert_int_eq(wm_affinity_plan_new(a, j.tasks, j.n, j.edges,
					      j.n_edges, bad_lists[_i].list,
					      &plan, err, sizeof(err)),
			 -EINVAL);
	ck_assert_ptr_null(plan);
	ck_assert_str_eq(err, bad_lists[_i].message);
	wm_affinity_close(a);
}
END_TEST

/* ------------------------------------------------------------------ */

static Suite *
affinity_suite(void)
{
	Suite *s = suite_create("affinity");
	TCase *tc;

	tc = tcase_create("machine");
	tcase_add_test(tc, test_affinity_machine_matches_the_os);
	tcase_add_test(tc, test_affinity_machine_plan_uses_allowed_cpus);
	tcase_add_test(tc, test_affinity_pin_self_binds_the_process);
	tcase_add_test(tc, test_affinity_pin_self_refuses_unknown_cpu);
	tcase_add_test(tc, test_affinity_bind_memory_places_pages);
	tcase_add_test(tc, test_affinity_bind_memory_refuses_bad_ranges);
	tcase_add_test(tc, test_affinity_cpu_outside_affinity_is_refused);
	suite_add_tcase(s, tc);

	tc = tcase_create("synthetic");
	tcase_add_loop_test(tc, test_affinity_synthetic_counts, 0,
			    N_ELEMS(shapes));
	tcase_add_test(tc, test_affinity_invalid_synthetic_is_refused);
	tcase_add_test(tc, test_affinity_synthetic_cannot_pin_or_bind);
	tcase_add_test(tc, test_affinity_xml_round_trips);
	tcase_add_test(tc, test_affinity_missing_xml_file_is_reported);
	suite_add_tcase(s, tc);

	tc = tcase_create("plan");
	tcase_set_timeout(tc, 60);
	tcase_add_loop_test(tc, test_affinity_keyby_window_pairs_share_a_node,
			    0, N_ELEMS(plan_specs));
	tcase_add_loop_test(
		tc, test_affinity_equal_weights_still_pair_forward_edges, 0,
		N_ELEMS(plan_specs));
	tcase_add_loop_test(tc,
			    test_affinity_more_tasks_than_cpus_spread_evenly, 0,
			    N_ELEMS(plan_specs));
	tcase_add_test(tc, test_affinity_three_tasks_on_two_cpus);
	tcase_add_loop_test(tc, test_affinity_small_job_stays_on_one_node, 0,
			    N_ELEMS(plan_specs));
	tcase_add_test(tc, test_affinity_smt_siblings_host_pairs);
	tcase_add_test(tc, test_affinity_plan_is_deterministic);
	tcase_add_test(tc, test_affinity_bad_jobs_are_refused);
	tcase_add_test(tc, test_affinity_describe_names_every_task_and_ring);
	suite_add_tcase(s, tc);

	tc = tcase_create("cpulist");
	tcase_add_test(tc, test_affinity_cpu_list_maps_tasks_in_order);
	tcase_add_test(tc, test_affinity_cpu_list_allows_duplicates);
	tcase_add_loop_test(tc, test_affinity_bad_cpu_lists_are_refused, 0,
			    N_ELEMS(bad_lists));
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	return wm_check_main(affinity_suite());
}
