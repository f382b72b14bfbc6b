#!/bin/sh
# An example at speed 2000 exported and run on Flink's MiniCluster: its
# watermark interval, 200 ms of processing time, would be 0.1 ms of
# Flink's wall clock, which Flink reads as 0 (periodic watermarks off:
# every window fired at the end, on Long.MAX_VALUE). The export runs it at
# speed 200 instead, saying so, and Flink's windows fire while the job
# runs: all but the last minute's at a watermark below the maximum, as
# wmrun's do.
# Skipped (77) as flink_lib.sh's flink_require says.
. "$srcdir/tests/lib/lib.sh"
. "$srcdir/tests/lib/flink_lib.sh"
flink_require
flink_classpath

# examples/idle_flapping.conf, 2 h at speed 2000 (36 s on Flink at 200),
# its results to a file.
sed "s|^path = -|path = flink.out|" "$EXAMPLES/idle_flapping.conf" \
	>"$scratch/job.conf"
grep -q '^speed = 2000$' "$scratch/job.conf" && grep -q '^path = flink.out' "$scratch/job.conf" ||
	fail "examples/idle_flapping.conf is not the job this test expects"
expect_status 0 "$WMRUN" --export-flink "$scratch/project" "$scratch/job.conf"
expect_line 'job.conf:[0-9]+:1: warning: the exported job runs at speed 200, not 2000: a processing-time duration of 200 ms would come to less than the millisecond Flink counts in' "$scratch/err"
grep -q 'static final double SPEED = 200;$' \
	"$scratch/project/src/main/java/wmrun/flink/Job.java" ||
	fail "the exported job does not run at speed 200"
flink_run "$scratch/project" "$scratch/flink.log"

# watermark is the next to last column: how many results fired below
# the maximum, against all of them.
awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == "watermark") c = i; next }
	{ n++; if ($c != 9223372036854775807) moving++ }
	END { print moving + 0, n + 0 }' "$scratch/project/flink.out" >"$scratch/counts"
read -r moving total <"$scratch/counts"
echo "Flink fired $moving of $total results before the end of input"
[ "$total" -gt 1000 ] || fail "only $total results"
# 720 windows of 10 s in 2 h: those of the last minute may wait for the
# end, no more.
[ "$moving" -ge $((total - total / 100)) ] ||
	fail "Flink fired only $moving of $total results on a moving watermark"
exit 0
