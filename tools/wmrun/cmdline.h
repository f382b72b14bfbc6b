/*
 * cmdline.h
 *	wmrun's command line: what it asks for (struct wm_cmdline), read from
 *	argv and checked for options that cannot go together.
 *
 * main.c dispatches on the result alone: once wm_cmdline_parse() said to
 * go on, every option is known to make sense with the others, and main.c
 * checks only what needs the topology (an output that is also an input).
 */
#ifndef WM_TOOLS_WMRUN_CMDLINE_H
#define WM_TOOLS_WMRUN_CMDLINE_H

#include <stdbool.h>
#include <stdint.h>

#include "runtime/conf/set_keys.h"
#include "runtime/run/endpoint.h"
#include "runtime/study/sweep.h"

/* --live=WHEN, in the order of its words (live_words, cmdline.c). */
enum wm_cmdline_live {
	WM_CMDLINE_LIVE_AUTO,
	WM_CMDLINE_LIVE_ALWAYS,
	WM_CMDLINE_LIVE_NEVER
};

/* What the command line asks for. */
struct wm_cmdline {
	const char *summary;	    /* --summary FILE, or NULL */
	const char *metrics;	    /* --metrics FILE, or NULL */
	const char *report;	    /* --report FILE.html, or NULL */
	const char *record;	    /* --record-trace FILE, or NULL */
	const char *record_nexmark; /* --record-nexmark FILE, or NULL */
	const char *path; /* the topology file; NULL: the built-in one */
	bool sim;
	bool check_only;
	bool quiet;
	enum wm_cmdline_live live;
	int64_t sample_interval_ms;
	bool interval_given;	     /* --sample-interval, not the default */
	struct wm_listen prometheus; /* --prometheus; .on false: none */
	struct wm_sweep sweep;	     /* --sweep; no axes: none */
	const char *sweep_csv;	     /* --sweep-csv FILE, or NULL */
	const char *export_flink;    /* --export-flink DIR, or NULL */
	double export_speed;	     /* --export-speed S; 0: the job's */
	const char *resume;	     /* --resume DIR, or NULL */
	struct wm_key_setting *sets; /* --set SECTION.KEY=VALUE, in order */
	size_t n_sets;
};

/* argv into *cl. -1 to go on, or the exit status once --help or --version
 * has been answered or a bad command line refused with a usage message. */
int wm_cmdline_parse(int argc, char **argv, struct wm_cmdline *cl);

/* What wm_cmdline_parse() allocated (the --set settings). */
void wm_cmdline_free(struct wm_cmdline *cl);

#endif /* WM_TOOLS_WMRUN_CMDLINE_H */
