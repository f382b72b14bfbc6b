#!/bin/sh
# A window stage's "out" is what it emitted (Flink's numRecordsOut of a
# window operator): its results, and the late records it sent to the side
# output. It used to read 0, the records it sent on edges, while hundreds
# of results were written.
. "$srcdir/tests/lib/lib.sh"

# json_field JSON FIELD -- a top-level number of the summary.
json_field() {
	sed 's/"stages".*//' "$1" | sed "s/.*\"$2\":\\([0-9]*\\).*/\\1/"
}

# window_out JSON -- records_out of the window stage.
window_out() {
	sed 's/"kind":"window"/\n&/' "$1" | tail -n 1 |
		sed 's/.*"kind":"window","parallelism":[0-9]*,"records_in":[0-9]*,"records_out":\([0-9]*\),.*/\1/'
}

expect_status 0 "$WMRUN" --sim --summary "$scratch/q.json" \
	"$EXAMPLES/quiet_partitions.conf"
results=$(json_field "$scratch/q.json" results_written)
[ "$results" -gt 0 ] || fail "the built-in job wrote no result"
[ "$(window_out "$scratch/q.json")" = "$results" ] ||
	fail "window records_out is $(window_out "$scratch/q.json"), $results results were written"
expect_line "^    window  counts +in 604800 +out $results +watermark" "$scratch/err"

# With a late side output, its records are emitted too.
sed "s|^late_output = .*|late_output = $scratch/late.csv|" \
	"$EXAMPLES/late_data.conf" >"$scratch/side.conf"
expect_status 0 "$WMRUN" --sim --summary "$scratch/s.json" "$scratch/side.conf"
results=$(json_field "$scratch/s.json" results_written)
side=$(json_field "$scratch/s.json" late_records_side_output)
[ "$side" -gt 0 ] || fail "no record went to the side output"
[ "$(window_out "$scratch/s.json")" = $((results + side)) ] ||
	fail "window records_out is $(window_out "$scratch/s.json"), expected $results results + $side late"
echo ok
