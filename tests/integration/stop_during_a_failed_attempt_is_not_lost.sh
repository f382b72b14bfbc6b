#!/bin/sh
# A stop signal that comes while a failed attempt is being torn down (its
# workers killed, before the restart) ends the job: no restart follows,
# and the job ends with its attempt's cause, saying it was stopped. It
# used to be dropped: the job restarted, and went on restarting. Here every
# attempt fails at once (the workers cannot wait for their start line:
# futex_fails), so most of the job's life is such a teardown; SIGTERM is
# sent five times, to five jobs, beside four busy loops on the two cores.
. "$srcdir/tests/lib/lib.sh"

if ! "$FUTEX_FAILS" all true 2>"$scratch/err"; then
	cat "$scratch/err" >&2
	echo "SKIP: seccomp filters cannot be installed here"
	exit 77
fi
busy_loops 4
trap 'stop_busy_loops; rm -rf "$scratch"' EXIT

# Enough attempts that a lost signal shows as the job giving up after all
# of them.
cat >"$scratch/job.conf" <<CONF
[job]
name = always-failing
event_time = 1 d
speed = 500
checkpoint_interval = 20 s
checkpoint_dir = $scratch/ckpt
restart_strategy = fixed-delay
restart_attempts = 1000000
restart_delay = 0 s
[source events]
parallelism = 2
partitions = 4
rate = 10/s
[window counts]
input = events
size = 10 s
[sink out]
input = counts
path = $scratch/out.csv
CONF

# The last try's err is removed first: the new job's redirection creates
# it again, and until then it is the last try's, whose restarts would let
# the signal go before the new job has even started.
restarted() {
	[ -f "$scratch/err" ] &&
		[ "$(grep -c 'restarting from' "$scratch/err")" -ge "$1" ]
}

for try in 1 2 3 4 5; do
	rm -f "$scratch/err"
	"$FUTEX_FAILS" all "$WMRUN" --live=never "$scratch/job.conf" \
		>"$scratch/out" 2>"$scratch/err" &
	sup=$!
	await "the job restarting" restarted 3
	kill -TERM "$sup"
	before=$(grep -c 'restarting from' "$scratch/err")
	# A few restarts may be under way when the signal comes; a lost one
	# lets the job restart for ever.
	gone() { ! kill -0 "$sup" 2>/dev/null; }
	await "the job ending after SIGTERM (try $try)" gone
	wait "$sup"
	rc=$?
	# 71: the attempt's failure (a signal taken while it ran or was torn
	# down); 143: taken while the job waited to restart.
	[ "$rc" -eq 71 ] || [ "$rc" -eq 143 ] ||
		{ cat "$scratch/err" >&2; fail "try $try: exit status $rc, expected 71 or 143"; }
	after=$(grep -c 'restarting from' "$scratch/err")
	[ "$after" -le $((before + 1)) ] ||
		fail "try $try: $((after - before)) restarts after SIGTERM"
	expect_line '^wmrun: job "always-failing" (failed|stopped) after ' "$scratch/err"
	grep -q 'signal 15' "$scratch/err" ||
		{ cat "$scratch/err" >&2; fail "try $try: no line names signal 15"; }
done
echo ok
