#!/bin/sh
# report_opens_in_chromium.sh -- the --report page of the quiet-partitions
# incident under --sim opens in a real browser: headless Chromium renders
# it to a screenshot of the size asked, not blank, and its DOM, as
# Chromium built it, holds every plot with every series drawn
# (report_lib.sh says which). Skipped, saying why, where Chromium or
# python3 is absent.
. "${srcdir:-.}/tests/integration/lib.sh"
. "$srcdir/tests/integration/report_lib.sh"

report_need_browser
page="$scratch/report.html"
expect_status 0 "$WMRUN" --sim --quiet --report "$page" \
	"$EXAMPLES/quiet_partitions.conf"
report_open "$page"
report_expect_quiet_partitions "$page" exact
exit 0
