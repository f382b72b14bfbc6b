#!/bin/sh
# A generated source states its rate: without one it used to generate as
# fast as it could, so a topology that lost or mistyped its rate line ran
# a job of some 10^11 records, and --check said nothing. Now it is refused
# at its section (exit 78) unless `rate = unlimited` is written, and
# --check says how many records the sources read at most, or that they
# are unlimited (rate = unlimited) or unbounded (no run length).
. "$srcdir/tests/lib/lib.sh"

conf() { # conf [JOB LINES] [SOURCE LINES]
	printf '[job]\n%b[source s]\npartitions = 4\n%b' "$1" "$2"
	printf '[window w]\ninput = s\nsize = 1 s\n[sink out]\ninput = w\npath = -\n'
}

conf 'event_time = 1 min\n' '' >"$scratch/norate.conf"
expect_status 78 "$WMRUN" --check "$scratch/norate.conf"
expect_line '^wmrun: .*norate.conf:3:1: source "s" has no rate: give rate = N/s \(per partition\), or rate = unlimited' "$scratch/err"
expect_status 78 "$WMRUN" --sim "$scratch/norate.conf"

# [global] may give it, as any source key.
{ printf '[global]\nrate = 2/s\n'; conf 'event_time = 1 min\n' ''; } >"$scratch/global.conf"
expect_status 0 "$WMRUN" --check "$scratch/global.conf"
expect_line '^records: at most 484$' "$scratch/out"

# A rate and a run length: a bound that the run keeps.
conf 'event_time = 1 min\n' 'rate = 10/s\n' >"$scratch/bounded.conf"
expect_status 0 "$WMRUN" --check "$scratch/bounded.conf"
expect_line '^records: at most 2404$' "$scratch/out"
expect_line '^  source s +at most 2404$' "$scratch/out"
expect_status 0 "$WMRUN" --sim --quiet --summary "$scratch/s.json" "$scratch/bounded.conf"
read=$(sed -n 's/.*"records_read":\([0-9]*\).*/\1/p' "$scratch/s.json")
[ -n "$read" ] && [ "$read" -le 2404 ] && [ "$read" -ge 2400 ] ||
	fail "the run read $read records, --check said at most 2404"

# rate = unlimited, written: accepted, and said.
conf 'event_time = 1 min\n' 'rate = unlimited\n' >"$scratch/unlimited.conf"
expect_status 0 "$WMRUN" --check "$scratch/unlimited.conf"
expect_line '^records: unlimited$' "$scratch/out"
expect_line '^  source s +unlimited: rate = unlimited makes as many as it can in the run length' "$scratch/out"
# ... and bounded by records = N.
conf 'event_time = 1 min\nrecords = 100\n' 'rate = unlimited\n' >"$scratch/records.conf"
expect_status 0 "$WMRUN" --check "$scratch/records.conf"
expect_line '^records: at most 400$' "$scratch/out"

# No run length: unbounded.
conf '' 'rate = 10/s\n' >"$scratch/endless.conf"
expect_status 0 "$WMRUN" --check "$scratch/endless.conf"
expect_line '^records: unbounded$' "$scratch/out"
expect_line '^  source s +unbounded: no run length' "$scratch/out"
exit 0
