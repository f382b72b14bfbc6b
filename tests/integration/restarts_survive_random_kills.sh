#!/bin/sh
# A real run with checkpoints survives a worker SIGKILLed at any moment:
# twenty runs of a replayed job (keyBy, windows, partitions that go idle
# and come back, no late record), each with one worker, chosen by the seed,
# killed after a delay chosen by the seed. Each must finish with exit 0,
# account for every record, report exactly the restart that happened
# (naming the killed worker and signal 9) and commit the fault-free run's
# results: the file sink is exactly-once, so its lines equal the fault-free
# run's as a multiset, none twice (random_kills_lib.sh, exactly_once).
# All beside four busy loops on the two cores.
. "$srcdir/tests/lib/lib.sh"
. "$srcdir/tests/lib/random_kills_lib.sh"
busy_loops 4
trap 'stop_busy_loops; rm -rf "$scratch"' EXIT

random_kills_trace >"$scratch/trace.csv"
random_kills_conf "$scratch/trace.csv" "$scratch/clean.chk" "$scratch/clean.csv" \
	>"$scratch/clean.conf"
random_kills_conf "$scratch/trace.csv" "$scratch/run.chk" "$scratch/run.csv" \
	>"$scratch/run.conf"

# The fault-free run, with its checkpoints: no record late, none lost.
expect_status 0 timeout 60 "$WMRUN" "$scratch/clean.conf"
expect_line '^  every record accounted  yes$' "$scratch/err"
expect_line '^  late, dropped           0$' "$scratch/err"
expect_line '^  checkpoints             [1-9][0-9]* completed' "$scratch/err"
grep -q '^  restarts' "$scratch/err" && fail "a restart in the fault-free run"
CLEAN="$scratch/clean.results"
results "$scratch/clean.csv" >"$CLEAN"
[ "$(uniq -d "$CLEAN" | wc -l)" -eq 0 ] || fail "the fault-free run wrote a result twice"
# 10 min of 10 s windows, 5 keys in each.
[ "$(wc -l <"$CLEAN")" -eq 300 ] || fail "$(wc -l <"$CLEAN") results, not 300"

hits=0 dups_total=0
for seed in $(seq 1 "$seeds"); do
	kill_run "$seed" "$scratch/run.conf" "$CLEAN"
done
echo "$hits of $seeds kills restarted the job; $dups_total results written twice in all"
# The delays are drawn below 1.5 s, most well inside the 1.2 s the run
# takes from its start line: a test whose kills all missed tests nothing.
# A quarter at least: most kills land while the job runs (1.2 s of the
# 0 to 1.5 s the seeds draw).
[ "$hits" -ge $((seeds / 4)) ] && [ "$hits" -gt 0 ] ||
	fail "only $hits of $seeds kills hit a running worker"
exit 0
