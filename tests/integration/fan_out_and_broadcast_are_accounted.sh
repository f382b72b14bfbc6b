#!/bin/sh
# A record read once reaches every window stage that reads its source, and
# every subtask behind a broadcast edge: the summary accounts for it once
# per receiver. It once compared all windows' records with the records
# read and said "every record accounted NO" for such valid jobs.
. "$srcdir/tests/lib/lib.sh"

cat >"$scratch/fanout.conf" <<CONF
[job]
event_time = 10 min
[source s]
partitions = 2
rate = 10/s
keys = 5
[window a]
input = s
size = 1 min
[window b]
input = s
size = 5 min
[window c]
input = s
parallelism = 3
partitioning = broadcast
size = 1 min
CONF
for mode in --sim real; do
	if [ "$mode" = real ]; then
		sed -i 's/^\[job\]$/[job]\nspeed = 600/' "$scratch/fanout.conf"
		expect_status 0 "$WMRUN" --summary "$scratch/s.json" "$scratch/fanout.conf"
	else
		expect_status 0 "$WMRUN" --sim --summary "$scratch/s.json" "$scratch/fanout.conf"
	fi
	expect_line '^  every record accounted  yes$' "$scratch/err"
	read=$(sed -n 's/.*"records_read":\([0-9]*\).*/\1/p' "$scratch/s.json")
	due=$(sed -n 's/.*"records_due_to_windows":\([0-9]*\).*/\1/p' "$scratch/s.json")
	got=$(sed -n 's/.*"records_to_windows":\([0-9]*\).*/\1/p' "$scratch/s.json")
	[ "$read" -gt 0 ] || fail "$mode: nothing read"
	# a and b once each, c once per each of its 3 subtasks
	[ "$due" -eq $((5 * read)) ] || fail "$mode: due $due for $read read, expected $((5 * read))"
	[ "$got" -eq "$due" ] || fail "$mode: windows received $got of $due"
	expect_line '"all_records_accounted":true' "$scratch/s.json"
done
