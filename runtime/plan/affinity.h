/*
 * affinity.h
 *	Where each subtask process runs and where each ring's pages live:
 *	read the machine (hwloc), plan a placement, pin and bind (libnuma).
 *
 * Three steps, kept apart so the plan can be tested for machines we do not
 * have:
 *
 *   wm_affinity_open()		the machine, a hwloc synthetic description
 *				("pack:2 numa:2 core:16 pu:2") or an XML file
 *   wm_affinity_plan_new()	pure logic on that topology: one PU per task,
 *				one NUMA node per ring; no side effects
 *   wm_affinity_pin_self()	apply it, in each worker; only on a topology
 *   wm_affinity_bind_memory()	opened from this machine (NULL description)
 *
 * Numbers: a CPU is a PU's operating-system index (what taskset, /proc and
 * sched_setaffinity() call CPU n); a node is a NUMA node's OS index (what
 * numactl and mbind() call node n). Cores and packages are numbered 0.. in
 * topology order.
 *
 * Allowed CPUs: on this machine, a PU is allowed when it is in the cgroup
 * cpuset and in the calling thread's CPU affinity at open time, so that
 * `taskset -c 0-3 wmrun` and container limits are honoured (children forked
 * later inherit that affinity). Every PU of a synthetic or XML topology is
 * allowed, unless the XML file says otherwise.
 *
 * The placement heuristic (wm_affinity_plan_new() without a CPU list)
 * ------------------------------------------------------------------
 * Pairs. Each task picks the neighbour with which it has its relatively
 * heaviest edge, w(u,v) / sqrt(W(u) W(v)), where w sums both directions and
 * W(u) is all traffic of u (ties: lower task index). Two tasks that pick
 * each other form a pair. The normalisation makes a forward edge
 * (keyBy/i -> window/i: all of both tasks' traffic) win over any single edge
 * of an all-to-all exchange, even when the caller gives every edge the same
 * weight.
 *
 * Recursion over the hwloc tree (machine, package, group/NUMA node, L3, L2,
 * core, PU). At each object the tasks placed under it are split among its
 * children in two steps:
 *
 * 1. Quotas (how many tasks each child gets), counting allowed PUs only and
 *    calling the first allowed PU of each core its "primary" PU:
 *    - tasks <= cores: compact. Take the fewest children (largest first,
 *      then topology order) with enough cores, and share the tasks among
 *      them in proportion to their cores. A small job stays on one package
 *      or NUMA node and its rings never cross the interconnect; a job that
 *      needs two nodes is spread evenly over two.
 *    - cores < tasks <= PUs: every core gets one task, the remaining tasks
 *      go to second hardware threads in proportion to the children's spare
 *      PUs. Two busy-polling workers on SMT siblings share L1/L2 but halve
 *      each other's issue slots, so siblings are used only when every core
 *      is busy, and then preferably by a pair, which at least gets the
 *      shared cache in return.
 *    - tasks > PUs: every PU gets floor(tasks / PUs) and the remainder goes
 *      one each to PUs in proportion to the children's PUs.
 *    Shares use the largest-remainder method; ties go to the earlier child.
 * 2. Assignment (which tasks), minimising the traffic between children:
 *    pairs first, then single tasks, each to the child with room for it
 *    that already holds most of its traffic, damped by how full that child
 *    is (linear deterministic greedy; an empty child wins ties); then
 *    improving swaps of equal-sized units between children until none
 *    remains (Kernighan-Lin, bounded number of passes). Edges leaving the
 *    object are ignored: every child is equally far from them.
 *
 * Guarantees of a heuristic plan (checked by tests/unit/check_affinity.c):
 *   G1 every task gets one allowed PU; the same input gives the same plan;
 *   G2 tasks <= allowed cores: each task has a core of its own;
 *   G3 cores < tasks <= PUs: every core has a task, no PU has two;
 *   G4 tasks > PUs: every allowed PU has floor(tasks/PUs) or ceil(tasks/PUs);
 *   G5 among the NUMA nodes used, task counts follow their core (G2) or PU
 *      (G3, G4) counts within one task per level of the tree;
 *   G6 a pair is split across children only when no child has two free
 *      places left (quotas are never bent to keep a pair);
 *   G7 each ring's pages go to its consumer's NUMA node.
 * At most 4096 tasks (the refinement is quadratic in the tasks of a split).
 * Not guaranteed: a minimum cut. Locality beyond pairs (e.g. how the
 * sources of an all-to-all exchange spread) is best effort.
 *
 * Explicit placement (a CPU list, Linux cpulist syntax "0-3,8,10-11"): the
 * list maps tasks to CPUs one to one, in task order: it must name exactly as
 * many CPUs as there are tasks (no silent round-robin reuse: a list of the
 * wrong length is almost always a job that changed under its config).
 * Ranges ascend ("3-1" is invalid); the same CPU may appear more than once,
 * deliberately oversubscribing it ("0,0,1" runs 3 tasks on 2 CPUs). Each
 * CPU must exist in the topology and, on this machine, be allowed.
 *
 * Errors: functions taking `err` fill it with one message in the house style
 * (lower case, no final period) and return a negative errno.
 * A struct wm_affinity is read-only after open and may be shared by threads;
 * pin_self and bind_memory act on the calling process.
 */
#ifndef WM_RUNTIME_PLAN_AFFINITY_H
#define WM_RUNTIME_PLAN_AFFINITY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

struct wm_affinity;

/* One PU (hardware thread), as the topology describes it. */
struct wm_affinity_pu {
	unsigned cpu;	  /* OS index: "CPU n" */
	unsigned core;	  /* core number, 0.. in topology order */
	unsigned package; /* package number, 0.. in topology order */
	unsigned node;	  /* OS index of its NUMA node */
	bool allowed;	  /* usable by this process (see above) */
};

/*
 * Open a topology. `description` NULL: this machine; a path ending in ".xml":
 * an XML file written by hwloc (lstopo foo.xml, hwloc_topology_export_xml());
 * anything else: a hwloc synthetic description such as
 * "pack:2 numa:2 core:16 pu:2". On success *out is set and 0 returned; on
 * failure -EINVAL (bad description, no usable PU), -ENOENT/-EACCES (file),
 * -ENOMEM or another -errno, with a message in err.
 */
int wm_affinity_open(const char *description, struct wm_affinity **out,
		     char *err, size_t errlen);
void wm_affinity_close(struct wm_affinity *a);

/* True when opened from this machine: only then can it pin and bind. */
bool wm_affinity_is_this_machine(const struct wm_affinity *a);
/* Counts over the whole topology (allowed or not). Packages, cores and
 * nodes are at least 1: a topology without such objects counts as one. */
unsigned wm_affinity_packages(const struct wm_affinity *a);
unsigned wm_affinity_nodes(const struct wm_affinity *a);
unsigned wm_affinity_cores(const struct wm_affinity *a);
unsigned wm_affinity_pus(const struct wm_affinity *a);
unsigned wm_affinity_allowed_pus(const struct wm_affinity *a);
/* PU i, 0 <= i < wm_affinity_pus(a), in topology order. */
const struct wm_affinity_pu *wm_affinity_pu(const struct wm_affinity *a,
					    unsigned i);
/* The PU whose OS index is `cpu`, or NULL if the topology has none. */
const struct wm_affinity_pu *wm_affinity_pu_by_cpu(const struct wm_affinity *a,
						   unsigned cpu);
/* NUMA node i (0 <= i < wm_affinity_nodes(a)), as its OS index. */
unsigned wm_affinity_node(const struct wm_affinity *a, unsigned i);

/* Write the topology as hwloc XML (for tests and bug reports). */
int wm_affinity_export_xml(const struct wm_affinity *a, const char *path,
			   char *err, size_t errlen);

/* A subtask to place. `stage` and `index` only name it in messages
 * ("window/3"); the plan copies the stage name. */
struct wm_affinity_task {
	const char *stage;
	unsigned index;
};

/*
 * A ring from `producer` to `consumer` (task indexes). `weight` is the
 * expected traffic in any unit, relative to the other edges; 0 = no
 * locality wanted (the ring still gets a node). For a hash exchange from a
 * stage of parallelism p to one of parallelism q, give each of the p*q edges
 * the producer's rate / q; a forward edge carries the producer's whole rate.
 */
struct wm_affinity_edge {
	unsigned producer;
	unsigned consumer;
	uint32_t weight;
};

/* Where one task runs. */
struct wm_affinity_place {
	unsigned cpu;  /* OS index of its PU */
	unsigned node; /* OS index of that PU's NUMA node */
};

/* A plan: read its fields, free it with wm_affinity_plan_free(). */
struct wm_affinity_plan {
	size_t n_tasks;
	size_t n_edges;
	bool explicit_cpus; /* from a CPU list, not the heuristic */
	struct wm_affinity_place *place; /* [n_tasks] */
	unsigned *ring_node;		 /* [n_edges]: consumer's node */
	struct wm_affinity_task *tasks;	 /* [n_tasks], stage names copied */
	struct wm_affinity_edge *edges;	 /* [n_edges], copied */
	char *names;			 /* storage of the stage names */
};

/*
 * Plan a placement of `n_tasks` tasks joined by `n_edges` edges on `a`;
 * `cpus` NULL or "" = heuristic, otherwise an explicit CPU list (see above).
 * Pure: reads `a`, allocates the plan, touches nothing else. Returns 0 and
 * sets *out, or -EINVAL (no task, bad edge, bad CPU list, a CPU that does not
 * exist or is not allowed) / -ENOMEM with a message naming the culprit.
 */
int wm_affinity_plan_new(const struct wm_affinity *a,
			 const struct wm_affinity_task *tasks, size_t n_tasks,
			 const struct wm_affinity_edge *edges, size_t n_edges,
			 const char *cpus, struct wm_affinity_plan **out,
			 char *err, size_t errlen);
void wm_affinity_plan_free(struct wm_affinity_plan *plan);

/* Print the plan for people: every task with its CPU, core, package and
 * node, every ring with its node, and the traffic crossing nodes. */
void wm_affinity_describe(const struct wm_affinity *a,
			  const struct wm_affinity_plan *plan, FILE *out);

/*
 * Bind the whole calling process (every thread) to CPU `cpu`. Children
 * forked afterwards inherit it. Returns 0, -EINVAL if `a` is not this
 * machine (a synthetic or XML topology's CPU numbers describe some other
 * machine: binding by them here would be a silent lie) or `cpu` is not an
 * allowed PU, or the -errno of the failed system call; err says which.
 * A failure is an EX_OSERR for the caller.
 */
int wm_affinity_pin_self(const struct wm_affinity *a, unsigned cpu, char *err,
			 size_t errlen);

/*
 * Ask the kernel to put the pages of [addr, addr + len) on NUMA node `node`
 * (mbind(MPOL_PREFERRED, MPOL_MF_MOVE)). `addr` must be page-aligned; `len`
 * is rounded up to whole pages. On a MAP_SHARED mapping (memfd, shm) the
 * policy belongs to the shared object, so it holds for every process that
 * maps it: call it once, before the pages are first touched; pages already
 * present and mapped only by the caller are moved.
 * PREFERRED rather than BIND: placement is an optimisation, and a node that
 * runs out of memory must slow a ring down, not SIGBUS its producer.
 * On a one-node machine this still makes the call (and so still checks the
 * range), except when the kernel has no NUMA support at all: then there is
 * nothing to choose and it returns 0. Returns 0, -EINVAL (not this machine,
 * no such node, unaligned or empty range) or the -errno of mbind().
 */
int wm_affinity_bind_memory(const struct wm_affinity *a, void *addr, size_t len,
			    unsigned node, char *err, size_t errlen);

#endif /* WM_RUNTIME_PLAN_AFFINITY_H */
