#!/bin/sh
# Ctrl-C stops a real job the way Flink's stop does: the sources end their
# streams (END(STOP), no MAX watermark, so open windows stay unfired), the
# rings drain, every worker publishes its final figures, and the summary
# accounts for every record exactly. Workers used to be terminated where
# they stood: records in the rings were lost to the count, and the
# subtasks' counts were up to a millisecond apart (more records in windows
# than read).
. "$srcdir/tests/lib/lib.sh"

cat >"$scratch/flood.conf" <<CONF
[job]
ring_size = 2 KiB
[source s]
parallelism = 3
partitions = 6
rate = unlimited
keys = 64
[keyby k]
input = s
parallelism = 2
[window w]
input = k
parallelism = 2
size = 1 ms
[sink o]
input = w
parallelism = 2
path = $scratch/results.csv
CONF

# To the supervisor alone, and to the whole process group (a terminal's
# Ctrl-C reaches the workers too; they leave the stop to the supervisor).
for target in supervisor group; do
	if [ "$target" = group ]; then
		set -m
	fi
	rm -f "$scratch/results.csv"
	$INTERRUPTIBLE "$WMRUN" --summary "$scratch/s.json" "$scratch/flood.conf" \
		>"$scratch/out" 2>"$scratch/err" &
	pid=$!
	set +m
	# Interrupt a job in full flow: once windows have fired (every
	# 200 ms of watermarks), records are in every stage and ring. On a
	# loaded machine the set-up alone may take a second. (A Ctrl-C
	# during the set-up stops the job as soon as it runs, but before
	# wmrun's first instruction it is the shell's default: the process
	# just dies.)
	tries=0
	until [ "$({ wc -l <"$scratch/results.csv"; } 2>/dev/null || echo 0)" -gt 1 ]; do
		kill -0 "$pid" 2>/dev/null || {
			cat "$scratch/err" >&2
			fail "$target: wmrun ended before a window fired"
		}
		tries=$((tries + 1))
		[ "$tries" -le 600 ] || fail "$target: no window fired in 60 s"
		sleep 0.1
	done
	if [ "$target" = group ]; then
		# Without job control the job shares our group: signal the
		# supervisor alone rather than leave the job running.
		kill -INT -- "-$pid" 2>/dev/null || kill -INT "$pid"
		wait "$pid"
		rc=$?
		[ "$rc" -eq 130 ] ||
			fail "group: exit status $rc after SIGINT, expected 130"
	else
		interrupt "$pid"
	fi
	expect_line '^  every record accounted  yes$' "$scratch/err"
	! grep -q 'between stages' "$scratch/err" ||
		fail "$target: records still between stages after the stop"
	read=$(sed -n 's/.*"records_read":\([0-9]*\).*/\1/p' "$scratch/s.json")
	due=$(sed -n 's/.*"records_due_to_windows":\([0-9]*\).*/\1/p' "$scratch/s.json")
	got=$(sed -n 's/.*"records_to_windows":\([0-9]*\).*/\1/p' "$scratch/s.json")
	[ "$read" -gt 0 ] || fail "$target: nothing read before the stop"
	[ "$got" -eq "$read" ] && [ "$due" -eq "$read" ] ||
		fail "$target: read $read, due $due, into windows $got"
	expect_line '"stopped":true' "$scratch/s.json"
	! pgrep -f "$scratch/flood.conf" >/dev/null ||
		fail "$target: workers left running"
done
