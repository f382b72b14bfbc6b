#!/bin/sh
# report_draws_a_real_run.sh -- --report in a real run: the observer's
# samples reach the page the supervisor draws after the job, on the grid
# of processing time --sim uses, so the quiet-partitions incident run by
# real workers (at 20000x, a couple of seconds) shows the same plots and
# series as under --sim (report_lib.sh), checked in the DOM headless
# Chromium built. Nothing here depends on how fast the machine is: the
# job ends when its event time does, and every check is of what the page
# drew. Skipped, saying why, where Chromium or python3 is absent.
. "${srcdir:-.}/tests/lib/lib.sh"
. "$srcdir/tests/lib/report_lib.sh"

report_need_browser
sed 's/^speed = 2000 .*/speed = 20000/' "$EXAMPLES/quiet_partitions.conf" \
	>"$scratch/fast.conf"
grep -q '^speed = 20000$' "$scratch/fast.conf" || fail "no speed to raise"
page="$scratch/real.html"
expect_status 0 "$WMRUN" --quiet --sample-interval 20ms --report "$page" \
	"$scratch/fast.conf"
report_open "$page"
report_expect_quiet_partitions "$page"
exit 0
