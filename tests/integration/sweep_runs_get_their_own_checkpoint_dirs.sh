#!/bin/sh
# The runs of a --sweep of a job that takes checkpoints each get a
# checkpoint directory of their own, DIR/run-N for the sweep's row N
# (README, "Sweeps"): they used to share DIR and fail (exit 66 and 74).
# --sim runs in parallel, real runs one after another; every row exits 0,
# and each directory holds its own run's complete checkpoints.
. "$srcdir/tests/lib/lib.sh"

dir="$scratch/sweep.chk"
checkpoint_job job "$dir"

for mode in --sim ""; do
	rm -rf "$dir"
	expect_status 0 "$WMRUN" $mode --sweep "events.keys=2,3,4,5" \
		--sweep-csv "$scratch/rows.csv" "$scratch/job.conf"
	sweep_rows "$scratch/rows.csv" 4
	for n in 1 2 3 4; do
		ls "$dir/run-$n" | grep -q '^chk-[0-9]*$' ||
			fail "${mode:-real}: no checkpoint in $dir/run-$n: $(ls "$dir/run-$n" 2>&1)"
		[ -f "$(ls -d "$dir/run-$n"/chk-* | tail -1)/_metadata" ] ||
			fail "${mode:-real}: run $n: no complete checkpoint"
	done
	[ "$(ls "$dir" | sort | tr '\n' ' ')" = "run-1 run-2 run-3 run-4 " ] ||
		fail "${mode:-real}: $dir holds $(ls "$dir")"
done
exit 0
