/*
 * sweep.h
 *	--sweep: one job run once per combination of values of some of its
 *	topology's keys, and a table of what each run measured.
 *
 * Axes: each --sweep SECTION.KEY=V1,V2,... is one axis (SECTION as in
 * override.h, split from KEY at the first dot, so [job]'s dotted keys
 * work: job.pipeline.auto-watermark-interval=100ms). Values are separated
 * by commas and trimmed of blanks; none may be empty, so a value holding
 * a comma cannot be swept. Several axes make a grid: every combination,
 * the last axis varying fastest.
 *
 * A row, from the run's summary (runtime/report/report.h):
 *   stall_fraction   the share of processing time the job's window
 *                    watermarks were stalled: the window subtasks' output
 *                    watermark stalled time (progress.h), summed, over
 *                    their number times the job's processing time
 *                    (end_ns); 0 for a job without windows or time
 *   fire delay       p50, p99 and max of fire_delay_ms; none when no
 *                    window fired on time (the table in the summary's
 *                    units, the CSV in ms)
 *   late_ratio       late records (dropped and side output) over records
 *                    read; 0 when none was read
 *   records_per_s    as the summary's
 *   accounted        every record accounted for (wm_report_accounted())
 *   status           the run's exit status, as wmrun's for that job alone
 *
 * Runs go one per process (wm_sweep_run()), as many at once as this
 * process may use CPUs: a --sim run is one single-threaded process, so a
 * sweep on n CPUs takes about 1/n of the time; each process's row comes
 * back through a pipe and rows are printed in combination order, so the
 * table is the same however the runs were spread. Real runs go one after
 * another, never two at once (wm_sweep_run_real()): a real run pins one
 * process per subtask to the machine's CPUs, and two at once would
 * disturb each other's figures.
 */
#ifndef WM_RUNTIME_STUDY_SWEEP_H
#define WM_RUNTIME_STUDY_SWEEP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "runtime/conf/set_keys.h"
#include "runtime/report/report.h"

struct wm_sweep_axis {
	char *option; /* SECTION.KEY as given, for messages and headers */
	char *section;
	char *key;
	size_t n_values;
	char **values;
};

struct wm_sweep {
	size_t n_axes;
	struct wm_sweep_axis *axes;
	/* --set: keys set in every run, after the swept ones are (the
	 * caller's; wm_sweep_free() leaves them) */
	const struct wm_key_setting *sets;
	size_t n_sets;
};

#define WM_SWEEP_ERROR_MAX 512
#define WM_SWEEP_MAX_AXES 16 /* --sweep options in one sweep */

struct wm_sweep_row {
	int status;
	double stall_fraction;
	bool fired; /* some window fired on time: the delays mean something */
	int64_t fire_delay_p50_ms, fire_delay_p99_ms, fire_delay_max_ms;
	uint64_t records_read, late_records;
	double late_ratio;
	double records_per_s;
	bool accounted;
	/* A real sweep a stop signal ended: the run it cut short (its
	 * figures those of the drained job), and those it never ran (no
	 * figures; the tables leave them out). */
	bool cut;
	bool skipped;
	char error[WM_SWEEP_ERROR_MAX]; /* why status is not 0, or "" */
};

/* Add the axis "SECTION.KEY=V1,V2,..." (`arg`). 0, or -EINVAL with a
 * message naming the option (a KEY given twice included), or -ENOMEM. */
int wm_sweep_add_axis(struct wm_sweep *s, const char *arg, char *err,
		      size_t errlen);
void wm_sweep_free(struct wm_sweep *s);

/* How many combinations (the product of the axes' sizes; 1 without
 * axes), and which value of each axis combination `i` takes, into
 * idx[n_axes]. */
size_t wm_sweep_combinations(const struct wm_sweep *s);
void wm_sweep_combination(const struct wm_sweep *s, size_t i, size_t *idx);

/* "events.parallelism=2, events.idle_timeout=1s": combination i, for a
 * message, into buf. */
void wm_sweep_describe(const struct wm_sweep *s, size_t i, char *buf,
		       size_t len);

/* The row a finished run's summary gives (status, error left alone). */
void wm_sweep_row_from_report(const struct wm_topology *t,
			      const struct wm_job_report *rep,
			      struct wm_sweep_row *row);

/* The table for people, one row per combination in order (none for a
 * skipped one; the cut one says so); and the same as CSV with a header
 * line (--sweep-csv; the cut row's exit_status, 128 + n, marks it). */
void wm_sweep_print_table(FILE *f, const struct wm_sweep *s,
			  const struct wm_sweep_row *rows);
void wm_sweep_print_csv(FILE *f, const struct wm_sweep *s,
			const struct wm_sweep_row *rows);

/*
 * Run the topology in the `len` bytes at `text` (named `name`) once per
 * combination under --sim, up to `jobs` at once, filling rows[] (one per
 * combination). Every combination's topology is loaded before any runs:
 * one the loader refuses stops the sweep with a message naming the
 * combination and the topology's error (lines of the user's file), and
 * the exit status for it (78). Sinks and late outputs write to a null
 * output: the table is the result. 0 once every run ended (its own
 * status in its row), or an exit status after a message in err. How
 * far it is goes to progress_out (NULL: nowhere) as sweep_progress.h
 * says, a line a second at most.
 */
int wm_sweep_run(const struct wm_sweep *s, const char *text, size_t len,
		 const char *name, unsigned jobs, FILE *progress_out,
		 struct wm_sweep_row *rows, char *err, size_t errlen);

/*
 * The same as real jobs (supervisor.h), one after another, each showing
 * nothing while it runs; before each, a line "wmrun: --sweep run I of N:
 * COMBINATION" on standard error, and after each the runs done and the
 * time left on progress_out (NULL: nowhere). A stop signal (SIGINT, SIGTERM, SIGHUP
 * not ignored by the caller) goes on to the running job, which drains;
 * its row is marked cut, the rows after it skipped, and *stopped is the
 * signal (0: none came). Returns with those signals blocked: the caller
 * prints the rows and exits, and one that comes now has nothing left to
 * stop. 0, or an exit status after a message in err, as wm_sweep_run().
 */
int wm_sweep_run_real(const struct wm_sweep *s, const char *text, size_t len,
		      const char *name, FILE *progress_out,
		      struct wm_sweep_row *rows, int *stopped, char *err,
		      size_t errlen);

/* How many runs may go at once: the CPUs this process may run on. */
unsigned wm_sweep_jobs(void);

#endif /* WM_RUNTIME_STUDY_SWEEP_H */
