#!/bin/sh
# report_opens_in_chromium.sh -- the --report pages under --sim open in a
# real browser: headless Chromium renders each to a screenshot of the
# size asked, not blank, and its DOM, as Chromium built it, holds every
# plot with every series drawn: the quiet-partitions incident's page
# (report_lib.sh says which series), its answer at the top (what held
# event time and the advice) with and without idleness, and a small
# sweep's curves over it.
# Skipped, saying why, where Chromium or python3 is absent.
. "${srcdir:-.}/tests/lib/lib.sh"
. "$srcdir/tests/lib/report_lib.sh"

report_need_browser
page="$scratch/report.html"
expect_status 0 "$WMRUN" --sim --quiet --report "$page" \
	"$EXAMPLES/quiet_partitions.conf"
report_open "$page"
report_expect_quiet_partitions "$page" exact
# With idle_timeout = 30 s nothing held event time long: the answer says
# so first.
report_expect "$page" "answer~Nothing held event time long"

# Without it the answer, at the top, is the summary's: the window held 8 h
# by the silent partition, and the idle_timeout that would have fired it.
page="$scratch/stalled.html"
expect_status 0 "$WMRUN" --sim --quiet --report "$page" \
	"$EXAMPLES/quiet_partitions_no_idleness.conf"
report_open "$page"
report_expect "$page" \
	"answer~window counts/0 waited 8 h 0 min on events/2, partition events-15: silent 8 h 0 min, no idle_timeout set" \
	"answer~idle_timeout = 5 s (partition events-1: 3 times its p99 gap 960 ms"

# A small sweep's page: its curves against idle_timeout (none is no
# duration: a column each), one per watermark_at, two points each, and
# its table.
page="$scratch/sweep.html"
expect_status 0 "$WMRUN" --sim --report "$page" \
	--sweep events.idle_timeout=none,30s \
	--sweep events.watermark_at=split,subtask \
	"$EXAMPLES/quiet_partitions.conf"
report_open "$page"
set -- "tables>=1"
for plot in "stall fraction" "fire delay p50" "fire delay p99" \
	"fire delay max" "late ratio"; do
	set -- "$@" plot="$plot" "$plot at events.watermark_at=split=2" \
		"$plot at events.watermark_at=subtask=2"
done
report_expect "$page" "$@"
exit 0
