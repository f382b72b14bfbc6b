#!/bin/sh
# [job] event_time_origin: generated event time starts at a given instant
# (milliseconds, a date or an ISO 8601 time in UTC), windows keep their
# records and their delays, and a bad instant is refused naming the file
# and line. A real run's lags are read on the same clock as its event
# time: Flink's watermarkLag and currentEmitEventTimeLag of every source
# sample are a few seconds, not the 57 years between 1970 and now that
# processing time counted from 0 gave against epoch event time.
. "$srcdir/tests/lib/lib.sh"

cat >"$scratch/job.conf" <<CONF
[job]
event_time = 2 min
speed = 60
[source s]
partitions = 2
rate = 50/s
out_of_orderness = 1 s
keys = 5
[window w]
input = s
size = 10 s
[sink out]
input = w
path = out.csv
CONF
cd "$scratch" || exit 99

# first_start: the earliest window start of out.csv.
first_start() {
	awk -F, 'NR > 1 && (m == "" || $2 < m) { m = $2 } END { print m }' out.csv
}
delays() {
	grep -o '"fire_delay_ms":{[^}]*}' "$1"
}

# From 0, the first window holds the records stamped up to 1 s before.
expect_status 0 "$WMRUN" --sim --summary zero.json job.conf
[ "$(first_start)" = -10000 ] || fail "--sim's windows start at $(first_start)"
cut -d, -f1-4 out.csv >zero.csv
# 2026-01-01T00:00:00Z is 1767225600000 ms.
for origin in 1767225600000 2026-01-01 "2026-01-01T00:00:00Z" \
	"2026-01-01 00:00:00.000Z"; do
	expect_status 0 "$WMRUN" --sim --set "job.event_time_origin=$origin" \
		--summary at.json job.conf
	[ "$(first_start)" = 1767225590000 ] ||
		fail "origin $origin: the first window starts at $(first_start)"
	awk -F, -v OFS=, 'NR == 1 { print $1, $2, $3, $4; next }
		{ print $1, $2 - 1767225600000, $3 - 1767225600000, $4 }' out.csv |
		cmp - zero.csv || fail "origin $origin: other windows than from 0"
	[ "$(delays at.json)" = "$(delays zero.json)" ] ||
		fail "origin $origin: fire delays $(delays at.json), from 0 $(delays zero.json)"
done
# Half a window later: windows still start on the epoch's grid.
expect_status 0 "$WMRUN" --sim --set job.event_time_origin=2026-01-01T00:00:05Z job.conf
[ "$(first_start)" = 1767225600000 ] || fail "the first window starts at $(first_start)"

for bad in yesterday 2026-02-29 2026-12-07T10:00:00 "2026-12-07T25:00:00Z" \
	1969-12-31 -5 253402300800000; do
	printf '[job]\nevent_time_origin = %s\n' "$bad" >bad.conf
	sed 1d job.conf >>bad.conf
	expect_status 78 "$WMRUN" --check bad.conf
	expect_line '^wmrun: bad\.conf:2:[0-9]+: .*instant' "$scratch/err"
done

# A real run, on the wall clock, sampled by --metrics.
expect_status 0 timeout 120 "$WMRUN" --quiet --metrics m.jsonl job.conf
# Bounded out-of-orderness of 1 s, a watermark every 200 ms, the
# pipeline's delay at speed 60: seconds, never years or below 0.
lags_within 60000 m.jsonl
exit 0
