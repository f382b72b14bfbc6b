/*
 * sweep_progress.c
 *	Runs done and time left of a sweep (sweep_progress.h).
 */
#include "config.h"

#include "lib/units.h"
#include "runtime/study/sweep_progress.h"

void
wm_sweep_progress_start(struct wm_sweep_progress *p, FILE *out, size_t runs,
			int64_t now_ns, int64_t every_ns)
{
	*p = (struct wm_sweep_progress){.out = out,
					.runs = runs,
					.start_ns = now_ns,
					.every_ns = every_ns,
					.said_ns = -1};
}

void
wm_sweep_progress_run_done(struct wm_sweep_progress *p, int64_t now_ns)
{
	int64_t so_far = now_ns - p->start_ns;
	char a[32], b[32];

	p->done++;
	if (p->out == NULL)
		return;
	if (p->done == p->runs) {
		/* The last: said when lines came before it, or after a run
		 * of its own (a single real run says what it did). */
		if (p->said_ns >= 0 || p->every_ns == 0)
			fprintf(p->out,
				"wmrun: --sweep: %zu of %zu runs done in %s\n",
				p->done, p->runs,
				wm_units_format_duration(so_far, a, sizeof(a)));
		return;
	}
	/* Short runs: the first line once a period has gone, then one a
	 * period; the pace of the first runs alone says little. */
	if (p->every_ns > 0 &&
	    now_ns - (p->said_ns >= 0 ? p->said_ns : p->start_ns) < p->every_ns)
		return;
	fprintf(p->out,
		"wmrun: --sweep: %zu of %zu runs done, %s so far, about %s "
		"left\n",
		p->done, p->runs,
		wm_units_format_duration(so_far, a, sizeof(a)),
		wm_units_format_duration(
			(int64_t)((double)so_far / (double)p->done *
				  (double)(p->runs - p->done)),
			b, sizeof(b)));
	fflush(p->out);
	p->said_ns = now_ns;
}
