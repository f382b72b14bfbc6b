/*
 * affinity_internal.h
 *	What the three steps of runtime/plan/affinity.h share: the machine as
 *	read (a copy of hwloc's tree in plain arrays, so that the planner is
 *	plain C over plain arrays and runs the same on this machine, a
 *	synthetic one or an XML file), and the bounds of a plan. For
 *	affinity.c, affinity_plan.c and affinity_apply.c only.
 */
#ifndef WM_RUNTIME_PLAN_AFFINITY_INTERNAL_H
#define WM_RUNTIME_PLAN_AFFINITY_INTERNAL_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>

#include "runtime/plan/affinity.h"

/* hwloc's, opaque here: only affinity.c and affinity_apply.c include
 * hwloc.h. */
struct hwloc_topology;

#define NONE UINT_MAX
/* Bounds that keep every product below 2^63 and every table small. */
/* Refinement is quadratic in the tasks of one split: 4096 tasks (far more
 * processes than any machine runs well) plan in well under a second. */
#define MAX_TASKS 4096
#define MAX_NODE_OS 4096
/* Kernighan-Lin passes per level; each pass strictly lowers the cut. */
#define MAX_PASSES 16
/* One normal hwloc object (machine, package, group, cache, core, PU). */
struct tree_obj {
	unsigned pus;	/* allowed PUs below */
	unsigned cores; /* allowed cores below (= primary PUs below) */
	unsigned kid0;	/* children: kids[kid0 .. kid0 + nkids) */
	unsigned nkids;
	unsigned pu; /* leaf: index into pus[]; NONE otherwise */
};

struct wm_affinity {
	struct hwloc_topology *topo; /* hwloc_topology_t */
	bool this_machine;
	unsigned n_packages, n_nodes, n_cores, n_pus, n_allowed;
	struct wm_affinity_pu *pus; /* [n_pus], topology order */
	unsigned *node_os;	    /* [n_nodes] */
	struct tree_obj *objs;	    /* objs[0] is the root */
	unsigned *kids;
	unsigned n_objs;
	char *all_list;	    /* "0-127", for messages */
	char *allowed_list; /* "0-3" */
};

/* A message into err (if any), as every function of affinity.h gives. */
void wm_affinity_say(char *err, size_t errlen, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

#endif /* WM_RUNTIME_PLAN_AFFINITY_INTERNAL_H */
