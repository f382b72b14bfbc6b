#!/bin/sh
# --sweep without --sim runs real jobs (supervisor, workers, rings), one
# after another, never two at once, and prints each run's row from its
# real summary. Ctrl-C stops the running job, which drains and accounts
# for every record; the sweep starts no further run and prints the rows
# it has, the cut one marked, and exits 130. A Ctrl-C from a terminal
# (the whole process group) reaches the running job once, not twice (a
# second signal would stop it without draining).
. "$srcdir/tests/lib/lib.sh"

# job RATE-FREE LENGTH: one source of two partitions, a window, a sink.
job() {
	cat <<CONF
[job]
name = real-sweep
$1
[source events]
parallelism = 1
partitions = 2
rate = 10/s
keys = 4
[window counts]
input = events
parallelism = 1
type = tumbling
size = 1 min
aggregates = count
[sink out]
input = counts
parallelism = 1
path = -
CONF
}

# Two short runs at high speed: both rows, from the real summaries (20 min
# of event time at 10/s per partition: 24000 records), in order.
job "event_time = 20 min
speed = 20000" >"$scratch/short.conf"
expect_status 0 "$WMRUN" --sweep events.keys=2,4 --sweep-csv "$scratch/r.csv" \
	"$scratch/short.conf"
cat "$scratch/out" "$scratch/err"
expect_line '^wmrun: --sweep run 1 of 2: events.keys=2$' "$scratch/err"
expect_line '^wmrun: --sweep run 2 of 2: events.keys=4$' "$scratch/err"
# After each run, how far the sweep is.
expect_line '^wmrun: --sweep: 1 of 2 runs done, [0-9.]+ m?s so far, about [0-9.]+ m?s left$' "$scratch/err"
expect_line '^wmrun: --sweep: 2 of 2 runs done in [0-9.]+ m?s$' "$scratch/err"
expect_line '^2 +[0-9.]+% .* yes$' "$scratch/out"
expect_line '^4 +[0-9.]+% .* yes$' "$scratch/out"
[ "$(wc -l <"$scratch/out")" -eq 3 ] || fail "the table has not 2 rows"
sweep_rows "$scratch/r.csv" 2
[ "$(cut -d, -f7 "$scratch/r.csv" | sort -u | tr '\n' ' ')" = "24000 records_read " ] ||
	fail "a real run did not read its 24000 records"

# A job that would run for hours, interrupted once its workers run: to the
# sweep alone, then to its process group as a terminal's Ctrl-C would.
job "processing_time = 10 h
speed = 1" >"$scratch/long.conf"
for target in sweep group; do
	if [ "$target" = group ]; then
		set -m
	fi
	$INTERRUPTIBLE "$WMRUN" --sweep events.keys=2,4 \
		--sweep-csv "$scratch/cut.csv" "$scratch/long.conf" \
		>"$scratch/out" 2>"$scratch/err" &
	pid=$!
	set +m
	watch_job "$pid"
	# The sweep's child is the first run's supervisor: wait until it
	# runs its workers (events/0, and counts/0 with the sink).
	supervisor_up() {
		sup=$(pgrep -P "$pid" | head -n 1)
		[ -n "$sup" ] && workers_up "$sup" 2
	}
	await "the first run's workers" supervisor_up
	if [ "$target" = group ]; then
		kill -INT -- "-$pid"
		wait "$pid"
		got=$?
		[ "$got" -eq 130 ] || fail "exit status $got after Ctrl-C, expected 130"
	else
		interrupt "$pid"
	fi
	cat "$scratch/out" "$scratch/err"
	expect_line '^2 +[0-9.]+% .* yes \(cut short, exit 130: stopped by signal 2: Interrupt\)$' \
		"$scratch/out"
	[ "$(wc -l <"$scratch/out")" -eq 2 ] || fail "the table has not only the cut row"
	expect_line '^wmrun: --sweep stopped by signal 2: Interrupt: run 1 of 2 cut short, 1 not run$' \
		"$scratch/err"
	! grep -q 'run 2 of 2' "$scratch/err" || fail "the second run started after the stop"
	[ "$(wc -l <"$scratch/cut.csv")" -eq 2 ] || fail "the CSV has not only the cut row"
	expect_line '^2,.*,true,130$' "$scratch/cut.csv"
done
