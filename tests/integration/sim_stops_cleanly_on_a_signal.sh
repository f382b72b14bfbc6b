#!/bin/sh
# wmrun --sim stops on SIGTERM or Ctrl-C as a real run does: the sources
# end their streams (END(STOP)), what is in flight drains, the summary is
# printed marked stopped with every record accounted, every output ends
# with a whole line, and the exit status is 128 + the signal. A signal the
# caller left ignored (nohup's SIGHUP, a background job's SIGINT) stays
# ignored. --sim used to die where it stood: no summary, a CSV cut short.
. "$srcdir/tests/lib/lib.sh"

# Hours of processing time at an unlimited rate: billions of records,
# far more than any test waits for.
cat >"$scratch/flood.conf" <<CONF
[job]
processing_time = 1 h
[source s]
parallelism = 2
partitions = 4
rate = unlimited
keys = 64
[window w]
input = s
parallelism = 2
size = 1 ms
aggregates = count, sum
[sink o]
input = w
parallelism = 2
path = $scratch/results.csv
CONF

# start [default INT | ignore SIGNAL] -- wmrun --sim on the flood in the
# background, as $pid, once it writes results (it has set up and catches
# signals). A background job of a shell without job control has SIGINT
# ignored: `default INT` gives it the default, as an interactive shell
# would; `ignore SIGNAL` ignores SIGNAL as well.
start() {
	rm -f "$scratch/results.csv"
	case "${1:-}" in
	default) set -- env --default-signal="$2" "$WMRUN" ;;
	ignore) set -- sh -c "trap '' $2; exec \"\$0\" \"\$@\"" "$WMRUN" ;;
	*) set -- "$WMRUN" ;;
	esac
	"$@" --sim --summary "$scratch/s.json" "$scratch/flood.conf" \
		>"$scratch/out" 2>"$scratch/err" &
	pid=$!
	await_growth 0
}

size() {
	{ wc -c <"$scratch/results.csv"; } 2>/dev/null || echo 0
}

# await_growth BYTES -- until results.csv holds more than BYTES plus two
# buffers: wmrun is still running after whatever came before (a buffer
# may have been on its way out).
await_growth() {
	tries=0
	until [ "$(size)" -gt $(($1 + 8192)) ]; do
		kill -0 "$pid" 2>/dev/null || {
			cat "$scratch/err" >&2
			fail "wmrun --sim ended with $(size) bytes written"
		}
		tries=$((tries + 1))
		[ "$tries" -le 600 ] || fail "no results written in 60 s"
		sleep 0.1
	done
}

# finish -- wait for $pid to end (a zombie, not yet reaped), 60 s at the
# most, then reap it: $rc is its exit status.
finish() {
	tries=0
	until [ "$(cut -d' ' -f3 "/proc/$pid/stat" 2>/dev/null || echo Z)" = Z ]; do
		tries=$((tries + 1))
		[ "$tries" -le 600 ] || {
			kill -KILL "$pid"
			wait "$pid"
			fail "wmrun --sim did not end in 60 s after the signal"
		}
		sleep 0.1
	done
	wait "$pid"
	rc=$?
}

# stop SIGNAL STATUS -- SIGNAL stops the job with STATUS, a summary marked
# stopped, every record accounted and every line of the results whole.
stop() {
	kill "-$1" "$pid"
	finish
	[ "$rc" -eq "$2" ] || {
		cat "$scratch/err" >&2
		fail "SIG$1: exit status $rc, expected $2"
	}
	expect_line "^wmrun: stopped by signal $(($2 - 128)): " "$scratch/err"
	expect_line '^wmrun: job "unnamed" stopped after [0-9]+ ms of processing time' "$scratch/err"
	expect_line '^  every record accounted  yes$' "$scratch/err"
	expect_line '"stopped":true' "$scratch/s.json"
	[ "$(tail -c 1 "$scratch/results.csv" | od -An -c | tr -d ' ')" = '\n' ] ||
		fail "SIG$1: the results end in the middle of a line"
	bad=$(awk -F, 'NF != 8' "$scratch/results.csv" | head -n 3)
	[ -z "$bad" ] || fail "SIG$1: cut lines in the results: $bad"
	# What the summary counts is what the results hold.
	written=$(sed -n 's/.*"results_written":\([0-9]*\).*/\1/p' "$scratch/s.json")
	lines=$(($(wc -l <"$scratch/results.csv") - 1))
	[ "$written" -eq "$lines" ] ||
		fail "SIG$1: $lines results in the file, $written in the summary"
}

start
stop TERM 143
# Ignored by the caller: the job goes on, and stops at the next signal.
start ignore HUP
kill -HUP "$pid"
await_growth "$(size)"
stop TERM 143
start
kill -INT "$pid"
await_growth "$(size)"
stop TERM 143
# Ctrl-C, where SIGINT is not ignored.
env --default-signal=INT true 2>/dev/null || {
	echo "SKIP: env cannot give a background job the default SIGINT" >&2
	exit 77
}
start default INT
stop INT 130
