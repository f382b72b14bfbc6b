/*
 * affinity_plan.c
 *	The placement plan: pure logic on the machine as affinity.c read it,
 *	no side effect, no hwloc. The heuristic (pairs, then a recursion over
 *	the tree with quotas and a refinement) and its guarantees G1-G7 are
 *	described in affinity.h; an explicit CPU list is followed as given.
 */
#include "config.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "runtime/conf/cpulist.h"
#include "runtime/plan/affinity_internal.h"

/* ------------------------------------------------------------------ */
/* Plan: the heuristic */

/* Per-plan state. Adjacency is undirected, parallel edges merged. */
struct planner {
	const struct wm_affinity *a;
	size_t n;
	size_t *adj0;	   /* [n + 1]: neighbours of x are adj0[x]..adj0[x+1] */
	unsigned *adj_to;  /* neighbour */
	int64_t *adj_w;	   /* merged weight, both directions */
	unsigned *partner; /* [n]: matched task or NONE */
	unsigned *pu_of;   /* [n]: result, index into a->pus */
	unsigned *loc;	   /* [n]: scratch, position in the current set */
};

static int
cmp_unsigned_pair(const void *x, const void *y)
{
	const unsigned *p = x, *q = y;

	return p[0] < q[0] ? -1 : p[0] > q[0];
}

/* Build the undirected, merged adjacency of the task graph. */
static int
build_adjacency(struct planner *p, const struct wm_affinity_edge *edges,
		size_t n_edges)
{
	size_t *deg = calloc(p->n + 1, sizeof(*deg));
	unsigned *pairs = NULL; /* (neighbour, weight) scratch per task */
	size_t e, x, total = 0;
	int rc = -ENOMEM;

	if (deg == NULL)
		return -ENOMEM;
	for (e = 0; e < n_edges; e++) {
		if (edges[e].weight == 0)
			continue;
		deg[edges[e].producer]++;
		deg[edges[e].consumer]++;
		total += 2;
	}
	p->adj0 = calloc(p->n + 1, sizeof(*p->adj0));
	p->adj_to = calloc(total + 1, sizeof(*p->adj_to));
	p->adj_w = calloc(total + 1, sizeof(*p->adj_w));
	pairs = calloc(2 * (total + 1), sizeof(*pairs));
	if (!p->adj0 || !p->adj_to || !p->adj_w || !pairs)
		goto out;
	for (x = 0; x < p->n; x++)
		p->adj0[x + 1] = p->adj0[x] + deg[x];
	memset(deg, 0, (p->n + 1) * sizeof(*deg));
	for (e = 0; e < n_edges; e++) {
		unsigned u = edges[e].producer, v = edges[e].consumer;
		size_t iu, iv;

		if (edges[e].weight == 0)
			continue;
		iu = p->adj0[u] + deg[u]++;
		iv = p->adj0[v] + deg[v]++;
		pairs[2 * iu] = v;
		pairs[2 * iu + 1] = edges[e].weight;
		pairs[2 * iv] = u;
		pairs[2 * iv + 1] = edges[e].weight;
	}
	/* Sort each list by neighbour, merge duplicates, compact. */
	total = 0;
	for (x = 0; x < p->n; x++) {
		size_t lo = p->adj0[x], hi = p->adj0[x + 1], i;
		size_t start = total;

		qsort(pairs + 2 * lo, hi - lo, 2 * sizeof(*pairs),
		      cmp_unsigned_pair);
		for (i = lo; i < hi; i++) {
			if (total > start &&
			    p->adj_to[total - 1] == pairs[2 * i]) {
				p->adj_w[total - 1] += pairs[2 * i + 1];
				continue;
			}
			p->adj_to[total] = pairs[2 * i];
			p->adj_w[total] = pairs[2 * i + 1];
			total++;
		}
		p->adj0[x] = start;
	}
	p->adj0[p->n] = total;
	rc = 0;
out:
	free(deg);
	free(pairs);
	return rc;
}

/* Mutual choice of the relatively heaviest neighbour (see affinity.h). */
static int
match_pairs(struct planner *p)
{
	int64_t *traffic = calloc(p->n, sizeof(*traffic));
	unsigned *best = calloc(p->n, sizeof(*best));
	size_t x, i;

	if (!traffic || !best) {
		free(traffic);
		free(best);
		return -ENOMEM;
	}
	for (x = 0; x < p->n; x++)
		for (i = p->adj0[x]; i < p->adj0[x + 1]; i++)
			traffic[x] += p->adj_w[i];
	for (x = 0; x < p->n; x++) {
		double best_score = 0;

		best[x] = NONE;
		/* Neighbours ascend, so '>' keeps the lowest on a tie. */
		for (i = p->adj0[x]; i < p->adj0[x + 1]; i++) {
			unsigned y = p->adj_to[i];
			/* w / sqrt(W(y)) ranks as w^2 / W(y): no libm. */
			double s = (double)p->adj_w[i] * (double)p->adj_w[i] /
				   (double)traffic[y];

			if (s > best_score) {
				best_score = s;
				best[x] = y;
			}
		}
	}
	for (x = 0; x < p->n; x++) {
		unsigned y = best[x];

		p->partner[x] = y != NONE && best[y] == x ? y : NONE;
	}
	free(traffic);
	free(best);
	return 0;
}

/* Largest-remainder share of `e` in proportion to x[] (e <= sum of x). */
static void
share(uint64_t e, const unsigned *x, unsigned k, unsigned *q)
{
	uint64_t sum = 0, given = 0;
	unsigned c;

	for (c = 0; c < k; c++)
		sum += x[c];
	if (sum == 0) {
		memset(q, 0, k * sizeof(*q));
		return;
	}
	for (c = 0; c < k; c++) {
		q[c] = sum ? (unsigned)(e * x[c] / sum) : 0;
		given += q[c];
	}
	while (given < e) {
		unsigned best = NONE;
		uint64_t best_rem = 0;

		for (c = 0; c < k; c++) {
			uint64_t rem = e * x[c] % sum;

			/* Each child gets at most one extra. */
			if (q[c] == e * x[c] / sum &&
			    (best == NONE || rem > best_rem)) {
				best = c;
				best_rem = rem;
			}
		}
		q[best]++;
		given++;
	}
}

/* How many of `t` tasks each child of `o` gets (affinity.h, step 1). */
static void
quotas(const struct wm_affinity *a, const struct tree_obj *o, size_t t,
       unsigned *x, unsigned *order, unsigned *q)
{
	const unsigned *kids = a->kids + o->kid0;
	unsigned k = o->nkids, c, i;

	if (t <= o->cores) {
		unsigned have = 0;

		/* Fewest children with enough cores: largest first. */
		for (c = 0; c < k; c++) {
			unsigned j = c;

			while (j > 0 && a->objs[kids[order[j - 1]]].cores <
						a->objs[kids[c]].cores) {
				order[j] = order[j - 1];
				j--;
			}
			order[j] = c;
		}
		for (c = 0; c < k; c++)
			x[c] = 0;
		for (i = 0; i < k && have < t; i++) {
			x[order[i]] = a->objs[kids[order[i]]].cores;
			have += x[order[i]];
		}
		share(t, x, k, q);
	} else if (t <= o->pus) {
		for (c = 0; c < k; c++)
			x[c] = a->objs[kids[c]].pus - a->objs[kids[c]].cores;
		share(t - o->cores, x, k, q);
		for (c = 0; c < k; c++)
			q[c] += a->objs[kids[c]].cores;
	} else {
		uint64_t each = t / o->pus;

		for (c = 0; c < k; c++)
			x[c] = a->objs[kids[c]].pus;
		share(t - each * o->pus, x, k, q);
		for (c = 0; c < k; c++)
			q[c] += (unsigned)(each * x[c]);
	}
}

/* A pair or a single task during one split; members are set positions. */
struct unit {
	unsigned m[2];
	unsigned size;
	int64_t internal; /* weight between the two members */
};

/* The split of one set of tasks among k children (affinity.h, step 2). */
struct split {
	struct planner *p;
	const unsigned *set; /* tasks, ascending */
	size_t t;
	unsigned k;
	const unsigned *quota;
	unsigned *rem;	    /* [k] free places */
	unsigned *child;    /* [t] child of each member, NONE = not yet */
	unsigned *unit_of;  /* [t] */
	int64_t *conn;	    /* [t * k]: weight from member to child */
	struct unit *units; /* [t] */
	size_t n_units;
};

static void
split_put(struct split *s, unsigned i, unsigned c)
{
	struct planner *p = s->p;
	unsigned x = s->set[i];
	unsigned from = s->child[i];
	size_t j;

	s->child[i] = c;
	for (j = p->adj0[x]; j < p->adj0[x + 1]; j++) {
		unsigned y = p->loc[p->adj_to[j]];

		if (y == NONE)
			continue;
		if (from != NONE)
			s->conn[(size_t)y * s->k + from] -= p->adj_w[j];
		s->conn[(size_t)y * s->k + c] += p->adj_w[j];
	}
}

/* The child with room for `size` that holds most of the unit's traffic,
 * damped by fullness; NONE if no child has room. */
static unsigned
split_choose(const struct split *s, const unsigned *m, unsigned size)
{
	unsigned best = NONE, c, j;
	double best_score = 0;

	for (c = 0; c < s->k; c++) {
		int64_t w = 0;
		double score;

		if (s->rem[c] < size)
			continue;
		for (j = 0; j < size; j++)
			w += s->conn[(size_t)m[j] * s->k + c];
		score = (double)w * s->rem[c] / s->quota[c];
		if (best == NONE || score > best_score ||
		    (score == best_score &&
		     (uint64_t)s->rem[c] * s->quota[best] >
			     (uint64_t)s->rem[best] * s->quota[c])) {
			best = c;
			best_score = score;
		}
	}
	return best;
}

static void
split_place_unit(struct split *s, size_t u, unsigned c)
{
	unsigned j;

	for (j = 0; j < s->units[u].size; j++)
		split_put(s, s->units[u].m[j], c);
	s->rem[c] -= s->units[u].size;
}

/* Weight between units u and v. */
static int64_t
unit_between(const struct split *s, size_t u, size_t v)
{
	const struct planner *p = s->p;
	int64_t w = 0;
	unsigned j;
	size_t i;

	for (j = 0; j < s->units[u].size; j++) {
		unsigned x = s->set[s->units[u].m[j]];

		for (i = p->adj0[x]; i < p->adj0[x + 1]; i++) {
			unsigned y = p->loc[p->adj_to[i]];

			if (y != NONE && s->unit_of[y] == v)
				w += p->adj_w[i];
		}
	}
	return w;
}

/* Gain in cut weight from moving unit u to child `to`, ignoring the
 * units that move the other way. */
static int64_t
unit_move_gain(const struct split *s, size_t u, unsigned to)
{
	const struct unit *un = &s->units[u];
	unsigned from = s->child[un->m[0]], j;
	int64_t g = 0;

	for (j = 0; j < un->size; j++)
		g += s->conn[(size_t)un->m[j] * s->k + to] -
		     s->conn[(size_t)un->m[j] * s->k + from];
	/* Both members counted their mutual edge as left behind. */
	return g + 2 * un->internal;
}

static void
split_refine(struct split *s)
{
	unsigned pass;
	size_t u, v;

	for (pass = 0; pass < MAX_PASSES; pass++) {
		bool improved = false;

		for (u = 0; u < s->n_units; u++) {
			unsigned cu = s->child[s->units[u].m[0]];
			size_t best = NONE;
			int64_t best_gain = 0;

			for (v = 0; v < s->n_units; v++) {
				unsigned cv = s->child[s->units[v].m[0]];
				int64_t g;

				if (cv == cu ||
				    s->units[v].size != s->units[u].size)
					continue;
				g = unit_move_gain(s, u, cv) +
				    unit_move_gain(s, v, cu);
				if (g <= best_gain)
					continue;
				g -= 2 * unit_between(s, u, v);
				if (g > best_gain) {
					best_gain = g;
					best = v;
				}
			}
			if (best != NONE) {
				unsigned cv = s->child[s->units[best].m[0]];
				unsigned j;

				for (j = 0; j < s->units[u].size; j++)
					split_put(s, s->units[u].m[j], cv);
				for (j = 0; j < s->units[best].size; j++)
					split_put(s, s->units[best].m[j], cu);
				improved = true;
			}
		}
		if (!improved)
			break;
	}
}

/* Split set[0..t) among k children with the given quotas: child[i]. */
static int
split_run(struct planner *p, const unsigned *set, size_t t, unsigned k,
	  const unsigned *quota, unsigned *child)
{
	struct split s = {.p = p, .set = set, .t = t, .k = k, .quota = quota};
	size_t i, u, n_first;
	unsigned c, size;
	int rc = -ENOMEM;

	s.child = child;
	s.rem = calloc(k, sizeof(*s.rem));
	s.unit_of = calloc(t, sizeof(*s.unit_of));
	s.conn = calloc(t * k, sizeof(*s.conn));
	s.units = calloc(t, sizeof(*s.units));
	if (!s.rem || !s.unit_of || !s.conn || !s.units)
		goto out;
	for (c = 0; c < k; c++)
		s.rem[c] = quota[c];
	for (i = 0; i < t; i++) {
		p->loc[set[i]] = (unsigned)i;
		child[i] = NONE;
		s.unit_of[i] = NONE;
	}
	/* Units: pairs whose both tasks are here, then single tasks. */
	for (size = 2; size >= 1; size--) {
		for (i = 0; i < t; i++) {
			unsigned y = p->partner[set[i]];
			unsigned j = y == NONE ? NONE : p->loc[y];
			struct unit *un = &s.units[s.n_units];

			if (s.unit_of[i] != NONE || (size == 2) != (j != NONE))
				continue;
			un->m[0] = (unsigned)i;
			un->size = size;
			s.unit_of[i] = (unsigned)s.n_units;
			if (size == 2) {
				size_t e;

				un->m[1] = j;
				s.unit_of[j] = (unsigned)s.n_units;
				for (e = p->adj0[set[i]];
				     e < p->adj0[set[i] + 1]; e++)
					if (p->adj_to[e] == y)
						un->internal = p->adj_w[e];
			}
			s.n_units++;
		}
	}
	/* Greedy assignment; a pair no child has room for is split (the
	 * second task becomes a unit of its own, appended). */
	n_first = s.n_units;
	for (u = 0; u < n_first; u++) {
		struct unit *un = &s.units[u];

		c = split_choose(&s, un->m, un->size);
		if (c != NONE) {
			split_place_unit(&s, u, c);
			continue;
		}
		/* Now two single tasks. */
		s.units[s.n_units].m[0] = un->m[1];
		s.units[s.n_units].size = 1;
		s.unit_of[un->m[1]] = (unsigned)s.n_units;
		un->size = 1;
		un->internal = 0;
		split_place_unit(&s, u, split_choose(&s, un->m, 1));
		split_place_unit(&s, s.n_units,
				 split_choose(&s, s.units[s.n_units].m, 1));
		s.n_units++;
	}
	split_refine(&s);
	rc = 0;
out:
	for (i = 0; i < t; i++)
		p->loc[set[i]] = NONE;
	free(s.rem);
	free(s.unit_of);
	free(s.conn);
	free(s.units);
	return rc;
}

/* Place set[0..t) under tree object `obj`. */
static int
place(struct planner *p, unsigned obj, unsigned *set, size_t t)
{
	const struct wm_affinity *a = p->a;
	const struct tree_obj *o = &a->objs[obj];
	unsigned k = o->nkids, c, used = 0, last = 0;
	unsigned *x = NULL, *order = NULL, *q = NULL, *child = NULL;
	unsigned *sorted = NULL;
	size_t i, pos;
	int rc = -ENOMEM;

	if (t == 0)
		return 0;
	if (o->pu != NONE) {
		for (i = 0; i < t; i++)
			p->pu_of[set[i]] = o->pu;
		return 0;
	}
	x = calloc(k, sizeof(*x));
	order = calloc(k, sizeof(*order));
	q = calloc(k, sizeof(*q));
	child = calloc(t, sizeof(*child));
	sorted = calloc(t, sizeof(*sorted));
	if (!x || !order || !q || !child || !sorted)
		goto out;
	quotas(a, o, t, x, order, q);
	for (c = 0; c < k; c++)
		if (q[c] > 0) {
			used++;
			last = c;
		}
	if (used == 1) {
		for (i = 0; i < t; i++)
			child[i] = last;
	} else {
		rc = split_run(p, set, t, k, q, child);
		if (rc < 0)
			goto out;
	}
	/* Group by child, keeping task order, then recurse. */
	pos = 0;
	for (c = 0; c < k; c++) {
		size_t start = pos;

		for (i = 0; i < t; i++)
			if (child[i] == c)
				sorted[pos++] = set[i];
		rc = place(p, a->kids[o->kid0 + c], sorted + start,
			   pos - start);
		if (rc < 0)
			goto out;
	}
	rc = 0;
out:
	free(x);
	free(order);
	free(q);
	free(child);
	free(sorted);
	return rc;
}

static int
plan_heuristic(const struct wm_affinity *a,
	       const struct wm_affinity_edge *edges, size_t n_edges,
	       struct wm_affinity_plan *plan, char *err, size_t errlen)
{
	struct planner p = {.a = a, .n = plan->n_tasks};
	unsigned *set = NULL;
	size_t i;
	int rc = -ENOMEM;

	p.partner = calloc(p.n, sizeof(*p.partner));
	p.pu_of = calloc(p.n, sizeof(*p.pu_of));
	p.loc = calloc(p.n, sizeof(*p.loc));
	set = calloc(p.n, sizeof(*set));
	if (!p.partner || !p.pu_of || !p.loc || !set)
		goto out;
	for (i = 0; i < p.n; i++) {
		p.loc[i] = NONE;
		set[i] = (unsigned)i;
	}
	rc = build_adjacency(&p, edges, n_edges);
	if (rc == 0)
		rc = match_pairs(&p);
	if (rc == 0)
		rc = place(&p, 0, set, p.n);
	if (rc == 0)
		for (i = 0; i < p.n; i++) {
			const struct wm_affinity_pu *pu = &a->pus[p.pu_of[i]];

			plan->place[i].cpu = pu->cpu;
			plan->place[i].node = pu->node;
		}
out:
	if (rc == -ENOMEM)
		wm_affinity_say(err, errlen,
				"could not plan placement: out of memory");
	free(p.adj0);
	free(p.adj_to);
	free(p.adj_w);
	free(p.partner);
	free(p.pu_of);
	free(p.loc);
	free(set);
	return rc;
}

/* ------------------------------------------------------------------ */
/* Plan: an explicit CPU list */

static void
task_label(const struct wm_affinity_task *t, size_t i, char *buf, size_t len)
{
	if (t->stage != NULL)
		snprintf(buf, len, "%s/%u", t->stage, t->index);
	else
		snprintf(buf, len, "task %zu", i);
}

static int
plan_explicit(const struct wm_affinity *a, const char *list,
	      struct wm_affinity_plan *plan, char *err, size_t errlen)
{
	unsigned *cpus;
	uint64_t count;
	size_t i;
	int rc;

	rc = wm_cpulist_parse(list, NULL, &count, err, errlen);
	if (rc < 0)
		return rc;
	if (count != plan->n_tasks) {
		wm_affinity_say(err, errlen,
				"CPU list \"%s\" names %llu CPUs for %zu "
				"tasks: give one CPU per task, in task order",
				list, (unsigned long long)count, plan->n_tasks);
		return -EINVAL;
	}
	cpus = calloc(plan->n_tasks, sizeof(*cpus));
	if (cpus == NULL) {
		wm_affinity_say(err, errlen,
				"could not plan placement: out of memory");
		return -ENOMEM;
	}
	wm_cpulist_parse(list, cpus, &count, err, errlen);
	for (i = 0; i < plan->n_tasks; i++) {
		const struct wm_affinity_pu *pu =
			wm_affinity_pu_by_cpu(a, cpus[i]);
		char label[128];

		task_label(&plan->tasks[i], i, label, sizeof(label));
		if (pu == NULL) {
			wm_affinity_say(err, errlen,
					"CPU %u in CPU list \"%s\" (task "
					"\"%s\") does not exist %s (CPUs %s)",
					cpus[i], list, label,
					a->this_machine ? "on this machine"
							: "in this topology",
					a->all_list);
			rc = -EINVAL;
			break;
		}
		if (!pu->allowed) {
			wm_affinity_say(err, errlen,
					"CPU %u in CPU list \"%s\" (task "
					"\"%s\") is not allowed for this "
					"process (allowed CPUs %s)",
					cpus[i], list, label, a->allowed_list);
			rc = -EINVAL;
			break;
		}
		plan->place[i].cpu = pu->cpu;
		plan->place[i].node = pu->node;
	}
	free(cpus);
	return rc;
}

/* ------------------------------------------------------------------ */
/* Plan: entry points */

void
wm_affinity_plan_free(struct wm_affinity_plan *plan)
{
	if (plan == NULL)
		return;
	free(plan->place);
	free(plan->ring_node);
	free(plan->tasks);
	free(plan->edges);
	free(plan->names);
	free(plan);
}

/* Copy tasks (with their stage names) and edges into the plan. */
static int
plan_copy_input(struct wm_affinity_plan *plan,
		const struct wm_affinity_task *tasks,
		const struct wm_affinity_edge *edges)
{
	size_t i, len = 0, pos = 0;

	for (i = 0; i < plan->n_tasks; i++)
		if (tasks[i].stage != NULL)
			len += strlen(tasks[i].stage) + 1;
	plan->place = calloc(plan->n_tasks, sizeof(*plan->place));
	plan->ring_node = calloc(plan->n_edges + 1, sizeof(*plan->ring_node));
	plan->tasks = calloc(plan->n_tasks, sizeof(*plan->tasks));
	plan->edges = calloc(plan->n_edges + 1, sizeof(*plan->edges));
	plan->names = malloc(len + 1);
	if (!plan->place || !plan->ring_node || !plan->tasks || !plan->edges ||
	    !plan->names)
		return -ENOMEM;
	for (i = 0; i < plan->n_tasks; i++) {
		plan->tasks[i] = tasks[i];
		if (tasks[i].stage != NULL) {
			size_t n = strlen(tasks[i].stage) + 1;

			memcpy(plan->names + pos, tasks[i].stage, n);
			plan->tasks[i].stage = plan->names + pos;
			pos += n;
		}
	}
	if (plan->n_edges > 0)
		memcpy(plan->edges, edges, plan->n_edges * sizeof(*edges));
	return 0;
}

int
wm_affinity_plan_new(const struct wm_affinity *a,
		     const struct wm_affinity_task *tasks, size_t n_tasks,
		     const struct wm_affinity_edge *edges, size_t n_edges,
		     const char *cpus, struct wm_affinity_plan **out, char *err,
		     size_t errlen)
{
	struct wm_affinity_plan *plan;
	size_t e;
	int rc;

	*out = NULL;
	if (n_tasks == 0 || n_tasks > MAX_TASKS) {
		wm_affinity_say(err, errlen,
				"cannot place %zu tasks: between 1 and %d "
				"are supported",
				n_tasks, MAX_TASKS);
		return -EINVAL;
	}
	for (e = 0; e < n_edges; e++) {
		char label[128];

		if (edges[e].producer >= n_tasks ||
		    edges[e].consumer >= n_tasks) {
			wm_affinity_say(err, errlen,
					"invalid edge %zu: task %u does not "
					"exist (there are %zu tasks)",
					e,
					edges[e].producer >= n_tasks
						? edges[e].producer
						: edges[e].consumer,
					n_tasks);
			return -EINVAL;
		}
		if (edges[e].producer == edges[e].consumer) {
			task_label(&tasks[edges[e].producer], edges[e].producer,
				   label, sizeof(label));
			wm_affinity_say(err, errlen,
					"invalid edge %zu: task \"%s\" "
					"cannot feed itself",
					e, label);
			return -EINVAL;
		}
	}
	plan = calloc(1, sizeof(*plan));
	if (plan == NULL) {
		wm_affinity_say(err, errlen,
				"could not plan placement: out of memory");
		return -ENOMEM;
	}
	plan->n_tasks = n_tasks;
	plan->n_edges = n_edges;
	rc = plan_copy_input(plan, tasks, edges);
	if (rc < 0) {
		wm_affinity_say(err, errlen,
				"could not plan placement: out of memory");
		goto fail;
	}
	if (cpus != NULL && cpus[0] != '\0') {
		plan->explicit_cpus = true;
		rc = plan_explicit(a, cpus, plan, err, errlen);
	} else {
		rc = plan_heuristic(a, edges, n_edges, plan, err, errlen);
	}
	if (rc < 0)
		goto fail;
	for (e = 0; e < n_edges; e++)
		plan->ring_node[e] = plan->place[edges[e].consumer].node;
	*out = plan;
	return 0;
fail:
	wm_affinity_plan_free(plan);
	return rc;
}

void
wm_affinity_describe(const struct wm_affinity *a,
		     const struct wm_affinity_plan *plan, FILE *out)
{
	char label[128], label2[128];
	int width = 4, w;
	uint64_t total = 0, crossing = 0;
	size_t i, e, n_crossing = 0;
	unsigned n;

	for (i = 0; i < plan->n_tasks; i++) {
		task_label(&plan->tasks[i], i, label, sizeof(label));
		w = (int)strlen(label);
		if (w > width)
			width = w;
	}
	fprintf(out,
		"placement of %zu tasks on %u of %u CPUs (%u package%s, "
		"%u NUMA node%s, %u core%s), %s\n",
		plan->n_tasks, a->n_allowed, a->n_pus, a->n_packages,
		a->n_packages == 1 ? "" : "s", a->n_nodes,
		a->n_nodes == 1 ? "" : "s", a->n_cores,
		a->n_cores == 1 ? "" : "s",
		plan->explicit_cpus ? "from the CPU list" : "by heuristic");
	fprintf(out, "%-*s  %5s %5s %7s %5s\n", width, "task", "cpu", "core",
		"package", "node");
	for (i = 0; i < plan->n_tasks; i++) {
		const struct wm_affinity_pu *pu =
			wm_affinity_pu_by_cpu(a, plan->place[i].cpu);

		task_label(&plan->tasks[i], i, label, sizeof(label));
		fprintf(out, "%-*s  %5u %5u %7u %5u\n", width, label,
			plan->place[i].cpu, pu ? pu->core : 0,
			pu ? pu->package : 0, plan->place[i].node);
	}
	fprintf(out, "tasks per node:");
	for (n = 0; n < a->n_nodes; n++) {
		size_t count = 0;

		for (i = 0; i < plan->n_tasks; i++)
			if (plan->place[i].node == a->node_os[n])
				count++;
		fprintf(out, " node %u: %zu%s", a->node_os[n], count,
			n + 1 < a->n_nodes ? "," : "\n");
	}
	if (plan->n_edges > 0)
		fprintf(out, "%-*s  %-*s  %5s %s\n", width, "ring from", width,
			"to", "node", "weight");
	for (e = 0; e < plan->n_edges; e++) {
		const struct wm_affinity_edge *ed = &plan->edges[e];
		bool cross = plan->place[ed->producer].node !=
			     plan->place[ed->consumer].node;

		task_label(&plan->tasks[ed->producer], ed->producer, label,
			   sizeof(label));
		task_label(&plan->tasks[ed->consumer], ed->consumer, label2,
			   sizeof(label2));
		fprintf(out, "%-*s  %-*s  %5u %u", width, label, width, label2,
			plan->ring_node[e], ed->weight);
		if (cross)
			fprintf(out, "  (crosses from node %u)",
				plan->place[ed->producer].node);
		fputc('\n', out);
		total += ed->weight;
		if (cross) {
			crossing += ed->weight;
			n_crossing++;
		}
	}
	if (plan->n_edges > 0)
		fprintf(out,
			"rings crossing NUMA nodes: %zu of %zu, weight %llu "
			"of %llu\n",
			n_crossing, plan->n_edges, (unsigned long long)crossing,
			(unsigned long long)total);
}
