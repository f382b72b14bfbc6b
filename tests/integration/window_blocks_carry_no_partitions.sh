#!/bin/sh
# The metrics of a source's partitions (each with a histogram of its gaps)
# are the source subtasks' alone: a window subtask's block carries none.
# Every block used to have room for the partitions of the largest source
# subtask, so that each window subtask of a 65,536-partition job over 4
# source subtasks added 22 MiB to the shared segment (181 MiB for 4 + 4).
# And a partition's entry is small enough (its histogram of gaps in 768
# bytes, runtime/metrics/metrics.h) for the 4 + 4 job's whole segment,
# rings of the default size included, to stay within 64 MiB (92 MiB with
# every histogram bucket in 64 bits). --check shows the segment the job
# would create.
. "$srcdir/tests/lib/lib.sh"

# The segment's size in KiB, from --check's line.
segment_kib() {
	expect_status 0 "$WMRUN" --check "$1"
	awk '$1 == "segment" {
		n = $2; u = $3
		if (u == "KiB") k = n; else if (u == "MiB") k = n * 1024
		else if (u == "GiB") k = n * 1024 * 1024; else exit 1
		printf "%d\n", k; found = 1 }
	     END { exit !found }' "$scratch/out" ||
		fail "no segment line in --check's output: $(cat "$scratch/out")"
}

for windows in 1 4; do
	printf '[job]\nring_size = 4 KiB\nevent_time = 10 s\n[source s]\nparallelism = 4\npartitions = 65536\nrate = 1/s\n[window w]\ninput = s\nparallelism = %s\nsize = 1 min\n' \
		"$windows" >"$scratch/w$windows.conf"
done
one=$(segment_kib "$scratch/w1.conf") || exit 1
four=$(segment_kib "$scratch/w4.conf") || exit 1
# Three more window subtasks add their blocks (13 KiB each), their
# fire-delay histograms (432 KiB each, runtime/metrics/metrics.h, of which
# a run touches the pages its delays reach), twelve rings of 8 KiB and
# their doorbells and channels: well under 2 MiB, where room for the
# partitions would be 66 MiB.
[ $((four - one)) -lt 2048 ] ||
	fail "3 more window subtasks grew the segment by $((four - one)) KiB (from $one KiB)"

sed '/^ring_size/d' "$scratch/w4.conf" >"$scratch/default_rings.conf"
whole=$(segment_kib "$scratch/default_rings.conf") || exit 1
[ "$whole" -le $((64 * 1024)) ] ||
	fail "the 65,536-partition job over 4 + 4 subtasks needs a segment of $whole KiB, more than 64 MiB"
