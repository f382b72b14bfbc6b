/*
 * footprint.h
 *	The memory a job will need, estimated from its topology before it
 *	runs, and the memory this machine lets it have.
 *
 * The estimate adds up, for a real run:
 *
 *   segment	  the shared segment's bytes, exactly as ipc/shm.c lays it
 *		  out; counted whole, since a ring's pages are all touched
 *		  once it has wrapped
 *   page tables  of every process, for the pages of the segment it
 *		  touches (ipc/shm.h: the supervisor the tables, a worker
 *		  the tables and its own rings): a 4 KiB page-table page for
 *		  each 2 MiB span, and one for each 1 GiB span above them,
 *		  counted as if the mapping started on a 2 MiB boundary
 *   processes	  WM_FOOTPRINT_PROCESS_BYTES per process, WM_FOOTPRINT_
 *		  CHANNEL_BYTES per channel and WM_FOOTPRINT_PROGRAM_BYTES
 *		  once
 *   window state for each window stage, the (key, window) states alive
 *		  at once times WM_FOOTPRINT_STATE_BYTES (sessions:
 *		  WM_FOOTPRINT_SESSION_BYTES), and with plugin aggregates
 *		  WM_FOOTPRINT_PLUGIN_STATE_BYTES more each
 *   join state   for each join stage, the records its buffers hold at
 *		  once: an interval join's, each side's records of lag +
 *		  the time the other side may still pair with one (upper
 *		  for left records, -lower for right ones), at most all of
 *		  them, times WM_FOOTPRINT_JOIN_RECORD_BYTES; a window
 *		  join's, those of lag + size + allowed lateness in each of
 *		  their windows, times WM_FOOTPRINT_WINDOW_JOIN_RECORD_BYTES,
 *		  and its (key, window) entries as a window's states
 *		  (footprint.c, join_records())
 *
 * and for --sim, which has one process and no segment, the window state,
 * the metrics blocks, WM_FOOTPRINT_SIM_SUBTASK_BYTES per subtask and the
 * program once.
 *
 * States alive at once. A window's state lives from the first record in
 * it until the watermark passes its end + allowed lateness L. Event time
 * runs with processing time (operators/source_gen.h), and the watermark
 * trails the newest event time by the lag: the bound B (0 for ascending
 * watermarks), the watermark interval, and the longest a partition can
 * hold it back: a sparse partition's gap between records, a silence or
 * an outage, a source subtask without partitions, each cut to the idle
 * timeout if there is one. The windows of a key alive at once are then
 * those whose start lies within size + lag + L of the newest record:
 * ceil((size + lag + L) / slide) of them for tumbling (1 + (lag + L) /
 * size) and sliding windows. A key's sessions alive at once are disjoint
 * and at least a gap long, and lie within gap + lag + L: at most
 * 2 + ceil((lag + L) / gap). A hold that lasts for ever (a partition
 * silent for ever, no watermark interval) lasts the run length; with no
 * run length the states grow as long as the job runs, and the estimate
 * counts only what a moving watermark keeps (wm_footprint_window.
 * unbounded says so).
 *
 * Times keys: the most keys of any generating source the window reads (a
 * source's keys are 0 to keys - 1, so a union shares them); a replayed
 * trace's keys are unknown without reading it, and count as one
 * (keys_unknown). A window whose input is not hashed may see every key in
 * every subtask: times its parallelism. Then the records ceil it: no
 * more states than records (times the windows of each, size / slide for
 * sliding windows) can open, counting the records that arrive while the
 * states live, and all the run's records (a replayed trace has at most a
 * record per 8 bytes of it), so that a short job with huge windows is
 * not refused for states it can never make.
 *
 * How exact: the segment is exact; page tables within a page per ring;
 * the window state is an upper bound for the job as described, within 2x
 * of the peak memory of states that do exist (the per-state figures are
 * above the measured peaks, which the tables' doubling makes up to 1.8x
 * the troughs); the process figures are generous by 2x to 4x, and small. So
 * the whole is meant to be within 2x above what the job takes at its
 * peak, never far below it, except that allocator or kernel overheads
 * beyond those measured are not counted.
 *
 * A job is refused when its estimate exceeds what this machine has
 * (wm_footprint_machine()). No side effects beyond reading files below
 * /proc and /sys, and stat() of replayed traces.
 */
#ifndef WM_RUNTIME_PLAN_FOOTPRINT_H
#define WM_RUNTIME_PLAN_FOOTPRINT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "runtime/plan/plan.h"
#include "runtime/conf/topology.h"

/*
 * Peak bytes per (key, window) state of the window operator: its state
 * table entry (64 B at a load of 3/8 to 3/4), its trigger and cleanup
 * timers (a 32 B heap node and 8 B index slots at a load of at most 1/2
 * each), the transient old table of a doubling, and for sessions the
 * merging window set's entry. Measured with operators/window.c on x86-64
 * glibc: VmHWM less the VmRSS before, in a process that opened 1, 1.5,
 * 2, 3 and 4 million states (two timers each; 100 sliding windows per
 * record, or a session per record): 173 to 319 bytes per state, sessions
 * 186 to 327, the highest just after the tables doubled (1 M), the
 * lowest just before (1.5 M), varying by 10 percent with what the
 * allocator had kept from before. The figures are the highest with 15
 * to 20 percent to spare, and at most twice the lowest;
 * tests/unit/check_footprint.c measures both ends again.
 */
#define WM_FOOTPRINT_STATE_BYTES 368u
#define WM_FOOTPRINT_SESSION_BYTES 400u

/*
 * A (key, window) state of a window with plugin aggregates, beyond the
 * above: its slot in the accumulators' table (operators/
 * window_plugins.c), 56 B at a load of 3/8 to 3/4, up to 149 B. Measured
 * with a state of 368 B (tests/unit/check_footprint.c): 428.2 B in all
 * at 1 M states, 302.2 at 1.5 M. What the plugin keeps in its
 * accumulators is its own and unknown here (the estimate says so):
 * plugins/quantile.c keeps 8 B a record.
 */
#define WM_FOOTPRINT_PLUGIN_STATE_BYTES 152u

/*
 * Peak bytes per record an interval join keeps (operators/
 * interval_join.c) at its worst, every record of a key and timestamp of
 * its own: a key's 64 B table entry (at a load of 3/8 to 3/4), its
 * buffer's first allocation of 8 records (128 B and malloc's header) and
 * a cleanup timer in a heap that doubles. Measured as the window's
 * states are (tests/unit/check_footprint.c): 364.5 bytes a record at 1 M
 * records, 456 at 1.6 M, just after the key table doubled; the figure is
 * the highest with 15 percent to spare. A key with many records costs
 * far less a record (16 B in its buffer and a timer a timestamp).
 */
#define WM_FOOTPRINT_JOIN_RECORD_BYTES 528u

/*
 * Peak bytes per record a window join keeps in each of its windows
 * (operators/window_join.c): a 24 B node of the record pool, which
 * doubles. Measured (tests/unit/check_footprint.c): 48.6 B a record just
 * after the pool doubled to 2^21 nodes (both arrays touched), 33.9 at
 * 1.5 M records, 25.7 at 1 M just before; the figure is the highest
 * with 15 percent to spare. Each (key, window) entry and its two timers
 * are counted as a window's state (WM_FOOTPRINT_STATE_BYTES).
 */
#define WM_FOOTPRINT_WINDOW_JOIN_RECORD_BYTES 56u

/*
 * A worker process beyond the segment: measured on a 128 x 128 job, 124
 * to 144 KiB private, 56 KiB of its own page tables, a 16 KiB kernel
 * stack, and the kernel's task, memory map and file structures; 512 KiB
 * with room for sinks' buffers and large valves. A channel: its plan
 * entry and both ends' views; in a real run also the run of records its
 * producer stages (64 frames of 32 B and the view: 2144 B, rounded up).
 * The program and libraries, the supervisor's plan and report: once. A
 * --sim subtask: its task, queue (256 frames to start with) and valves.
 */
#define WM_FOOTPRINT_PROCESS_BYTES (512u << 10)
#define WM_FOOTPRINT_CHANNEL_BYTES 256u
#define WM_FOOTPRINT_STAGED_BYTES 2304u
#define WM_FOOTPRINT_PROGRAM_BYTES (4u << 20)
#define WM_FOOTPRINT_SIM_SUBTASK_BYTES (32u << 10)

/* One window stage's state. Counts are doubles: they may pass 2^64 (or
 * be infinite) long before they are compared with a machine. */
struct wm_footprint_window {
	uint32_t stage;
	bool session;
	double keys;	   /* distinct keys, times the subtasks that may
			   * each see them (input not hashed) */
	bool keys_unknown; /* a replayed trace feeds it: counted as 1 key */
	double lag_ms;	   /* how far the watermark may trail, at most */
	double per_key;	   /* windows (sessions) of a key alive at once */
	double records;	   /* most records that can open states at once */
	uint32_t windows_per_record;
	double states;	 /* alive at once: min(keys x per_key, records x
			   * windows_per_record) */
	bool by_records; /* the records gave the smaller figure */
	bool unbounded;	 /* the watermark may stall for as long as the
			   * job runs, which has no end */
	/* It has plugin aggregates: each state costs
	 * WM_FOOTPRINT_PLUGIN_STATE_BYTES more, and what they keep. */
	bool plugins;
	double bytes;
};

struct wm_footprint {
	bool sim;
	uint32_t processes; /* supervisor and workers; 1 for --sim */
	uint32_t rings;
	uint64_t ring_bytes;	/* one ring's, page-aligned */
	uint64_t segment_bytes; /* 0 for --sim */
	uint64_t page_table_bytes;
	uint64_t process_bytes; /* processes, channels, program; --sim:
				  * subtasks, metrics, program */
	uint32_t n_windows;
	struct wm_footprint_window *windows; /* in stage order */
	double window_bytes;
	/* The joins': records kept at once, their bytes, and whether a
	 * watermark held for ever lets them grow as long as the job runs. */
	double join_records;
	double join_bytes;
	bool joins_unbounded;
	double total_bytes;
	/* The stage whose input rings are the most (whose section a refusal
	 * for the segment names); a job without rings names its first
	 * stage. */
	uint32_t ring_stage;
};

/*
 * Estimate what `topo` (planned as `plan`) needs, for a real run or for
 * --sim. Returns 0 (free with wm_footprint_free()), -ENOMEM, or -EINVAL
 * with a message in err for a plan the segment cannot lay out.
 */
int wm_footprint_estimate(const struct wm_topology *topo,
			  const struct wm_plan *plan, bool sim,
			  struct wm_footprint *fp, char *err, size_t errlen);
void wm_footprint_free(struct wm_footprint *fp);

/* What this machine lets a job have, and which limit says so. */
struct wm_footprint_machine {
	uint64_t bytes;
	const char *limit; /* "physical memory", "cgroup memory limit",
			    * "RLIMIT_AS" */
};

/*
 * Physical memory (sysinfo()), lowered by this process's cgroup limit
 * (wm_footprint_cgroup_limit() on /proc/self) and by RLIMIT_AS if they
 * are set. Never fails: with nothing readable, as good as no limit.
 */
void wm_footprint_machine(struct wm_footprint_machine *m);

/*
 * The memory limit of the cgroup of the process whose /proc/PID/cgroup is
 * `cgroup` and /proc/PID/mountinfo is `mountinfo`: the lowest cgroup v2
 * memory.max, or v1 memory.limit_in_bytes, from its cgroup up to the root
 * of the mounted hierarchy. 0 with *bytes set, or -ENOENT when no limit
 * is set or none can be read.
 */
int wm_footprint_cgroup_limit(const char *cgroup, const char *mountinfo,
			      uint64_t *bytes);

/*
 * 0 if the estimate fits `m`, else -E2BIG and in err (the same for
 * --check, --sim and a run): "FILE:LINE:COL: the job needs about X of
 * memory and this machine has Y (LIMIT): " and what takes the most, at
 * that window stage's section, or for the segment and processes at the
 * section of ring_stage.
 */
int wm_footprint_verdict(const struct wm_topology *topo,
			 const struct wm_footprint *fp,
			 const struct wm_footprint_machine *m, char *err,
			 size_t errlen);

/*
 * For --check: how many records the sources can read, at most, in all
 * and per source; or that they are unbounded (no run length, a Kafka
 * topic without stopping offsets, rate = unlimited without records =),
 * saying why. A job of 10^11 records is not a surprise at the end.
 */
void wm_footprint_print_records(FILE *out, const struct wm_topology *topo);

/* The estimate broken down, one line per part, for --check. */
void wm_footprint_print(FILE *out, const struct wm_topology *topo,
			const struct wm_footprint *fp,
			const struct wm_footprint_machine *m);

/* `bytes` for a person: "512 B", "1.5 KiB" ... "2.3 EiB", "unbounded";
 * returns buf. */
char *wm_footprint_bytes_text(double bytes, char *buf, size_t len);

#endif /* WM_RUNTIME_PLAN_FOOTPRINT_H */
