#!/bin/sh
# wmbench nexmark runs each Nexmark query of examples/nexmark/ on wmrun
# and on Flink (flink/peer's NexmarkQueries) over one recorded stream,
# says that their rows were equal before it prints a figure, then prints
# each runtime's events a second, wmrun's ratio to Flink and the figures
# per core; it leaves nothing in TMPDIR. A tiny stream: this checks that
# the comparison works, never how fast anything is. Two of its queries,
# a map's (q2) and a window's (q11), --queries says; a list naming no
# query it has is a usage error.
. "$srcdir/tests/lib/lib.sh"
. "$srcdir/tests/lib/flink_lib.sh"
flink_require
flink_peer

mkdir "$scratch/tmp"
TMPDIR="$scratch/tmp" timeout 900 "$WMBENCH" nexmark --events 60000 --reps 1 \
	--parallelism 2 --queries q2,q11 >"$scratch/out" 2>"$scratch/err" || {
	cat "$scratch/out" "$scratch/err" >&2
	fail "wmbench nexmark exited $?"
}
cat "$scratch/out"
# 60000 events: 55200 bids, some hundreds of them q2's and of q11's
# sessions.
for q in q2 q11; do
	expect_line "^bench=nexmark query=$q parallelism=2 events=60000 rows=[1-9][0-9]* equal=yes cores=[1-9][0-9]*\$" "$scratch/out"
	for rt in flink wmrun; do
		expect_line "^bench=nexmark query=$q parallelism=2 runtime=$rt metric=events_per_s median=[1-9][0-9.]* " "$scratch/out"
		expect_line "^bench=nexmark query=$q parallelism=2 runtime=$rt metric=events_per_s_per_core value=[1-9][0-9]*\$" "$scratch/out"
	done
	expect_line "^bench=nexmark query=$q parallelism=2 runtime=wmrun metric=over_flink ratio=[0-9.]*[1-9][0-9.]*\$" "$scratch/out"
done
! grep -q 'query=q0 ' "$scratch/out" || fail "a query not asked for was run"
[ -z "$(ls -A "$scratch/tmp")" ] || fail "left behind in TMPDIR: $(ls -A "$scratch/tmp")"

# Rows that differ print no figure and exit 70: the example's sessions
# cut at 9 s of silence where Flink's SQL cuts at 10 s.
mkdir "$scratch/examples"
sed 's/^gap = 10 s/gap = 9 s/' "$EXAMPLES/nexmark/q11.conf" >"$scratch/examples/q11.conf"
grep -q '^gap = 9 s' "$scratch/examples/q11.conf" || fail "no gap to change in q11.conf"
expect_status 70 env TMPDIR="$scratch/tmp" timeout 900 "$WMBENCH" nexmark \
	--examples "$scratch/examples" --events 60000 --reps 1 --parallelism 2 \
	--queries q11
! grep -q 'metric=' "$scratch/out" || fail "figures printed for rows that differ"
expect_line "q11: wmrun's rows differ at row" "$scratch/err"

expect_status 64 "$WMBENCH" nexmark --queries q2,q5
expect_line 'invalid query list "q2,q5"' "$scratch/err"
exit 0
