#!/bin/sh
# wmbench pipeline --peer flink runs the benchmark's job on Flink's
# MiniCluster (flink/peer/) in turn with wmrun replaying the same records,
# at parallelism 1 and 2, with Flink's defaults and with object reuse, and
# prints each line with positive values; the peer checks every run itself
# (every record counted, in the trace's number of results) and fails a
# wrong one. Tiny sizes: this checks that the comparison works, never how
# fast anything is. The first run builds the peer (Maven, into the build
# tree), later ones reuse it.
. "$srcdir/tests/lib/lib.sh"
. "$srcdir/tests/lib/flink_lib.sh"
flink_require

# Where wmbench builds the peer (Makefile.am: WM_FLINK_PEER_BUILDDIR).
peer=$(dirname "$WMBENCH")/flink-peer

mkdir "$scratch/tmp"
TMPDIR="$scratch/tmp" timeout 900 "$WMBENCH" pipeline --peer flink \
	--parallelism 1,2 --records 80000 --reps 1 >"$scratch/out" 2>"$scratch/err"
got=$?
if [ "$got" -eq 69 ] && grep -Eq \
	'Could not (transfer|resolve)|UnknownHost|Network is unreachable|Connection (refused|timed out)' \
	"$peer/mvn.log"; then
	tail -5 "$peer/mvn.log"
	echo "SKIP: Maven Central cannot be reached and ~/.m2 lacks Flink"
	exit 77
fi
[ "$got" -eq 0 ] || {
	cat "$scratch/out" "$scratch/err" >&2
	fail "wmbench pipeline --peer flink exited $got"
}

# 80000 records span 10 s of event time: one window, for each of the 1024
# keys (the trace draws every key, as --keys's test shows).
expect_line '^bench=pipeline impl=flink metric=results value=1024$' "$scratch/out"
for p in 1 2; do
	positive "bench=pipeline impl=wmrun variant=p$p-long-keys metric=mrec_per_s"
	for v in p$p p$p-reuse; do
		positive "bench=pipeline impl=flink variant=$v metric=mrec_per_s"
		positive "bench=pipeline impl=flink variant=$v metric=execute_mrec_per_s"
		positive "bench=pipeline variant=$v metric=wmrun_over_flink"
	done
done
# The loop's line, four a wmrun parallelism, the results line, seven a
# parallelism for the peer.
[ "$(wc -l <"$scratch/out")" -eq 24 ] ||
	{ cat "$scratch/out" >&2; fail "expected 24 lines"; }
[ -z "$(ls "$scratch/tmp")" ] || fail "traces left behind: $(ls "$scratch/tmp")"

# The peer's own check, on a trace of this test's: 16000 records over 7
# keys and 160 s of event time, the results counted here as distinct key
# and minute pairs.
awk 'BEGIN { for (i = 0; i < 16000; i++) print i % 8 "," i * 10 "," i % 7 ",1" }' \
	>"$scratch/trace"
results=$(awk -F, '{ seen[$3 "," int($2 / 60000)] } END { print length(seen) }' \
	"$scratch/trace")
[ "$results" -gt 7 ] || fail "the test's trace has $results results"
java_peer() {
	echo "1 default" | timeout 300 java -cp "$peer/wmrun-flink-peer.jar:$(cat "$peer/classpath.txt")" \
		wmrun.peer.PipelinePeer "$scratch/trace" 16000 "$1" 60000
}
expect_status 0 java_peer "$results"
expect_line "^bench=pipeline impl=flink variant=p1 metric=run records=16000 results=$results first_to_last_ns=[1-9][0-9]* execute_ns=[1-9][0-9]*\$" \
	"$scratch/out"
expect_status 70 java_peer $((results + 1))
expect_line "counted 16000 records in $results results, expected 16000 records in $((results + 1))" \
	"$scratch/err"

expect_status 64 "$WMBENCH" pipeline --peer spark
expect_status 69 env PATH=/nonexistent "$WMBENCH" pipeline --peer flink
expect_line 'needs java' "$scratch/err"
