#!/bin/sh
# A real run's --report samples on the grid --sim draws the same job on,
# in real time: 2 h of the quiet-partitions incident at speed 2000 is a
# bucket of 10 s of processing time under --sim, so the real run samples
# every 5 ms of real time rather than every 250 ms (8 min 20 s of
# processing time, which drew a moving watermark as a staircase), and
# its page keeps the same buckets. --sample-interval still decides when
# given. Nothing depends on the machine's speed but the count of
# samples, which only a machine that stops the observer for most of the
# run could bring under half of them.
. "$srcdir/tests/lib/lib.sh"

sed 's/^event_time = 12 h/event_time = 2 h/' "$EXAMPLES/quiet_partitions.conf" \
	>"$scratch/job.conf"
grep -q '^event_time = 2 h' "$scratch/job.conf" && grep -q '^speed = 2000 ' "$scratch/job.conf" ||
	fail "examples/quiet_partitions.conf is not the job this test expects"

# buckets PAGE -- "N STEP": the samples and the bucket a page says.
buckets() {
	sed -n 's/.*>\([0-9]*\) samples of the job, kept in buckets of \([^<]*\) of processing time.*/\1 \2/p' "$1"
}

expect_status 0 "$WMRUN" --sim --quiet --report "$scratch/sim.html" "$scratch/job.conf"
expect_status 0 timeout 120 "$WMRUN" --quiet --report "$scratch/real.html" "$scratch/job.conf"
sim=$(buckets "$scratch/sim.html")
real=$(buckets "$scratch/real.html")
echo "--sim: $sim; real: $real"
[ "${sim#* }" = "10 s" ] || fail "--sim's buckets are not of 10 s: $sim"
[ "${real#* }" = "${sim#* }" ] || fail "the real run's buckets ($real) are not --sim's ($sim)"
# 2 h at 10 s: 720 points of the grid.
[ "${real%% *}" -ge 360 ] || fail "the real run took ${real%% *} samples, not about 720"

# Given, the interval is the user's: 250 ms, 8 min 20 s of processing
# time, on a human step.
expect_status 0 timeout 120 "$WMRUN" --quiet --sample-interval 250ms \
	--report "$scratch/given.html" "$scratch/job.conf"
given=$(buckets "$scratch/given.html")
[ "${given#* }" = "10 min" ] || fail "--sample-interval 250ms kept buckets of ${given#* }"
exit 0
