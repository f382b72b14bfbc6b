#!/bin/sh
# restarts_survive_random_kills.sh with 40 late records in the trace, each
# three minutes behind its partition, and checkpoint_watermarks = true:
# the watermarks come back with the restored checkpoint, so a record late
# in the fault-free run is late again when the restored job replays it
# (with watermarks restarting at MIN, as Flink does by default, the
# replayed backlog would take it into a window and change the results).
# Twenty runs, each with one worker SIGKILLed at a seeded random moment,
# must give the fault-free run's results and late records.
#
# What this takes of a real run (doc/semantics.md section 12.5, the exact
# limit): each source subtask replays its backlog on its records' due
# times, so its watermarks move as before, but the two subtasks' backlogs
# reach the windows at their processes' pace. A record three minutes late
# is late whatever the pace only if the restored checkpoint is younger
# than that when the job restarts: with a checkpoint every 20 s that
# holds as long as checkpoints complete within some 2.5 min of processing
# time (300 ms of real time at speed 500). On a machine so loaded that
# they take longer, or that a process waits that long for a CPU (then
# even the fault-free run accepts some), the results can differ.
#
# Skipped (77) while wmrun does not know checkpoint_watermarks.
. "$srcdir/tests/integration/lib.sh"
. "$srcdir/tests/integration/random_kills_lib.sh"

random_kills_trace 40 >"$scratch/trace.csv"
random_kills_conf "$scratch/trace.csv" "$scratch/clean.chk" "$scratch/clean.csv" \
	"checkpoint_watermarks = true" >"$scratch/clean.conf"
random_kills_conf "$scratch/trace.csv" "$scratch/run.chk" "$scratch/run.csv" \
	"checkpoint_watermarks = true" >"$scratch/run.conf"
if ! "$WMRUN" --check "$scratch/clean.conf" >"$scratch/out" 2>"$scratch/err"; then
	grep -q 'checkpoint_watermarks' "$scratch/err" || {
		cat "$scratch/err" >&2
		fail "wmrun --check refused the job"
	}
	echo "SKIP: wmrun does not take checkpoint_watermarks yet: $(cat "$scratch/err")"
	exit 77
fi

# The fault-free run: every late record late (40 of them, in the side
# output), none lost.
expect_status 0 timeout 60 "$WMRUN" "$scratch/clean.conf"
expect_line '^  every record accounted  yes$' "$scratch/err"
expect_line '^  late, side output       40$' "$scratch/err"
grep -q '^  restarts' "$scratch/err" && fail "a restart in the fault-free run"
CLEAN="$scratch/clean.results"
results "$scratch/clean.csv" >"$CLEAN"
tail -n +2 "$scratch/clean.csv.late" | sort >"$CLEAN.late"
[ "$(wc -l <"$CLEAN")" -eq 300 ] || fail "$(wc -l <"$CLEAN") results, not 300"
[ "$(wc -l <"$CLEAN.late")" -eq 40 ] || fail "$(wc -l <"$CLEAN.late") late records, not 40"

hits=0 dups_total=0
for seed in $(seq 1 "$seeds"); do
	kill_run "$seed" "$scratch/run.conf" "$CLEAN"
done
echo "$hits of $seeds kills restarted the job; $dups_total results written twice in all"
# A quarter at least: most kills land while the job runs (1.2 s of the
# 0 to 1.5 s the seeds draw).
[ "$hits" -ge $((seeds / 4)) ] && [ "$hits" -gt 0 ] ||
	fail "only $hits of $seeds kills hit a running worker"
exit 0
