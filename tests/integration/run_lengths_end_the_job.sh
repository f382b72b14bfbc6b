#!/bin/sh
# [job] event_time, processing_time and records each end a job, the first
# one reached winning: 2 partitions at 1000/s give exactly 1000 records
# per partition and second of run length.
. "$srcdir/tests/lib/lib.sh"

# read_with LINES... -- records read by --sim with these [job] lines.
read_with() {
	{
		echo '[job]'
		for l in "$@"; do echo "$l"; done
		printf '[source s]\npartitions = 2\nrate = 1000/s\n'
		printf '[window w]\ninput = s\nsize = 1 s\n'
	} >"$scratch/job.conf"
	expect_status 0 "$WMRUN" --sim --summary "$scratch/s.json" "$scratch/job.conf"
	expect_line '"all_records_accounted":true' "$scratch/s.json"
	sed 's/.*"records_read":\([0-9]*\),.*/\1/' "$scratch/s.json"
}

[ "$(read_with 'event_time = 10 s')" = 20000 ] || fail "event_time = 10 s"
[ "$(read_with 'processing_time = 10 s')" = 20000 ] || fail "processing_time = 10 s"
[ "$(read_with 'records = 500')" = 1000 ] || fail "records = 500"
[ "$(read_with 'records = 500' 'processing_time = 100 ms')" = 200 ] ||
	fail "processing_time before records"
[ "$(read_with 'event_time = 3 s' 'processing_time = 1 h')" = 6000 ] ||
	fail "event_time before processing_time"

# A partition that reached its record limit leaves its subtask's
# multiplexer (Flink releases a finished split): partition 0 at twice the
# rate of partition 1 finishes first and must not hold the windows of the
# time partition 1 still runs.
printf '[job]\nrecords = 2000\n[source s]\npartitions = 2\nrate = 10/s\nskew = 0 x2\n[window w]\ninput = s\nsize = 1 min\n' >"$scratch/uneven.conf"
expect_status 0 "$WMRUN" --sim --summary "$scratch/u.json" "$scratch/uneven.conf"
expect_line '"records_read":4000,' "$scratch/u.json"
max=$(sed 's/.*"fire_delay_ms":{[^}]*"max":\([-0-9]*\)}.*/\1/' "$scratch/u.json")
[ "$max" -lt 1000 ] || fail "windows fired up to $max ms late after a partition finished"
