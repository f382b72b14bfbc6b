#!/bin/sh
# [job] checkpoint_watermarks holds in the replayed backlog too: a restore
# from a checkpoint older than the lateness of the late records replays
# them, and each is judged as the fault-free run judged it. The random-kills
# job (random_kills_lib.sh: 40 records three minutes late, partition 4 of
# source subtask 0 silent from 5 min to 8 min) under --sim, a checkpoint
# every 250 s, a crash at 490 s: the restore from the checkpoint of 250 s
# replays 4 min of records at once. Partition 4's last records before its
# silence (at 299 s) are in that backlog; if its idleness countdown were
# started by the restore rather than by the time they were due, the
# partition would hold its subtask's watermark near 297 s while the rest of
# the backlog passes, and the late records of 8 min (timestamps of 300.5 s)
# would enter the window of 300 s.
#
# Then examples/late_data.conf (5% of the records late, many of them for
# the side output, allowed lateness 5 s), a checkpoint every minute, a
# crash 50 s after the checkpoint of 19 min: every record of the backlog
# is judged as the fault-free run judged it, with one source subtask (its
# watermarks move through the backlog as before) and with two (--sim runs
# their backlogs instant by instant in the order of the fault-free run, so
# the windows' inputs interleave as before too).
. "$srcdir/tests/lib/lib.sh"
. "$srcdir/tests/lib/random_kills_lib.sh"

random_kills_trace 40 >"$scratch/trace.csv"

# run NAME [JOB_LINE]: --sim of the job with checkpoint_watermarks and a
# checkpoint every 250 s; its results (columns 1-5 and 8) in NAME.res and
# its late records in NAME.late, both sorted (the file sinks are
# exactly-once: each line once); the summary in $scratch/err.
run() {
	random_kills_conf "$scratch/trace.csv" "$scratch/$1.chk" "$scratch/$1.csv" \
		"checkpoint_watermarks = true
${2:-}" | sed 's/^checkpoint_interval = .*/checkpoint_interval = 250 s/' \
		>"$scratch/$1.conf"
	expect_status 0 "$WMRUN" --sim "$scratch/$1.conf"
	expect_line '^  every record accounted  yes$' "$scratch/err"
	results "$scratch/$1.csv" >"$scratch/$1.res"
	tail -n +2 "$scratch/$1.csv.late" | sort >"$scratch/$1.late"
}

run nofail
[ "$(wc -l <"$scratch/nofail.late")" -eq 40 ] ||
	fail "the fault-free run found $(wc -l <"$scratch/nofail.late") records late, not 40"
run crash "fail_at = 490 s"
expect_line '^  restart  .* from chk-1 \(taken at 4 min 10 s\)$' "$scratch/err"
replayed=$(sed -n 's/^    records replayed  *\([0-9]*\) .*/\1/p' "$scratch/err")
[ "${replayed:-0}" -gt 1000 ] || fail "only ${replayed:-no} records replayed"

diff "$scratch/nofail.late" "$scratch/crash.late" >&2 ||
	fail "the late records differ from the fault-free run's"
diff "$scratch/nofail.res" "$scratch/crash.res" >&2 ||
	fail "the results differ from the fault-free run's"

# The input ending in the backlog: a crash at 590 s restored 60 s later
# from the checkpoint of 500 s replays the trace's last 100 s, and the
# input ends with its last records, as without the crash, not after the
# quiet minute since (whose ticks would mark every partition idle, and an
# IDLE announced loses the final watermark: the windows of the last 10 s
# would never fire).
run ended "fail_at = 590 s
restart_strategy = fixed-delay
restart_delay = 60 s"
expect_line '^  restart  .* from chk-2 \(taken at 8 min 20 s\)$' "$scratch/err"
diff "$scratch/nofail.late" "$scratch/ended.late" >&2 ||
	fail "input ended in the backlog: the late records differ from the fault-free run's"
diff "$scratch/nofail.res" "$scratch/ended.res" >&2 ||
	fail "input ended in the backlog: the results differ from the fault-free run's"

# example NAME SOURCE_PARALLELISM [JOB_LINE]: --sim of late_data.conf with
# checkpoint_watermarks, a checkpoint every minute, the source's
# parallelism given; its results without the processing-time columns,
# each line once (standard output is at-least-once: the results fired
# between the checkpoint and the crash come again), in NAME.res, its late
# records (a file: exactly-once) in NAME.late, both sorted.
example() {
	sed -e "s|^late_output = .*|late_output = $scratch/$1.late.csv|" \
		-e "s|^\[job\]|[job]\ncheckpoint_interval = 1 min\ncheckpoint_dir = $scratch/$1.chk\ncheckpoint_watermarks = true\n${3:-}|" \
		-e "/^\[source readings\]/,/^\[window/ s/^parallelism = .*/parallelism = $2/" \
		"$srcdir/examples/late_data.conf" >"$scratch/$1.conf"
	expect_status 0 "$WMRUN" --sim "$scratch/$1.conf"
	expect_line '^  every record accounted  yes$' "$scratch/err"
	cut -d, -f1-5,8 "$scratch/out" | sort -u >"$scratch/$1.res"
	sort "$scratch/$1.late.csv" >"$scratch/$1.late"
}

for n in 1 2; do
	example fault_free$n $n
	[ "$(wc -l <"$scratch/fault_free$n.late")" -gt 1000 ] ||
		fail "only $(wc -l <"$scratch/fault_free$n.late") records for the side output"
	example crash$n $n "fail_at = 1190 s"
	expect_line '^  restart  .* from chk-19 \(taken at 19 min 0 s\)$' "$scratch/err"
	expect_line "^    records replayed      4000 " "$scratch/err"
	diff "$scratch/fault_free$n.late" "$scratch/crash$n.late" >&2 ||
		fail "$n source subtasks: the late records differ from the fault-free run's"
	diff "$scratch/fault_free$n.res" "$scratch/crash$n.res" >&2 ||
		fail "$n source subtasks: the results differ from the fault-free run's"
done
exit 0
