#!/bin/sh
# A real run's scheduling noise (how far it fell behind the records'
# schedule) is of all its attempts, not the last one's: a restart gives
# each worker a new metrics block, and the figure of the attempt before
# it was lost, so a run held far behind its schedule before a crash said
# it kept its schedule, and the random-kill test held it to exact results
# it could not give. Here a source worker is stopped for a second of real
# time (200 s of processing time at speed 200), then a window worker is
# killed: the summary must still say the run fell 180 s or more behind.
. "$srcdir/tests/lib/lib.sh"

checkpoint_job job "$scratch/ckpt" "20 s" "1 d"
# Restarted at once: the restore's own backlog is no lateness to speak of.
sed -i 's/^\[source events\]$/restart_strategy = fixed-delay\nrestart_delay = 0 s\n&/' \
	"$scratch/job.conf"
start_job "$scratch/job.conf" "$scratch/job.csv" --live=never \
	--summary "$scratch/s.json"
source=$(worker_of "$sup" events/0) || exit 1
kill -STOP "$source"
sleep 1
kill -CONT "$source"
# A checkpoint committed after it: the source has read its backlog (its
# metrics block says how late it was) and the rest went on.
before=$(wc -l <"$scratch/job.csv")
grown() { [ "$(wc -l <"$scratch/job.csv")" -gt "$1" ]; }
await "a result committed after the stop" grown "$before"

window=$(worker_of "$sup" counts/0) || exit 1
kill -KILL "$window"
restarted() { grep -q 'restarting from checkpoint' "$scratch/err"; }
await "the restart" restarted
before=$(wc -l <"$scratch/job.csv")
await "a result committed after the restart" grown "$before"

kill -TERM "$sup"
ended_with "$sup" 143
noise=$(sed -n 's/.*"scheduling_noise_ms":\([0-9]*\).*/\1/p' "$scratch/s.json")
[ "${noise:-0}" -ge 180000 ] || {
	cat "$scratch/err" >&2
	fail "scheduling noise ${noise:-none} ms after a stop of 200 s before the restart, expected 180000 or more"
}
expect_line '^  behind its schedule     by up to ' "$scratch/err"
echo ok
