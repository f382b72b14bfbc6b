#!/bin/sh
# examples/restart_quiet_partition.conf run for real: fail_at SIGKILLs the
# last subtask (at 1 h 10 min here, not 2 h: the same quiet night, in 40 %
# less real time), the job restarts from its latest checkpoint, and
# since watermarks are not restored (Flink), the partitions silent since
# 1 h hold event time again until their idle timeout runs out once more.
# The summary's restart line gives that hold: more than idle_timeout, and
# at most idle_timeout plus two watermark intervals (as under --sim) plus
# what real time adds at the speed used.
. "$srcdir/tests/lib/lib.sh"

# The example with its checkpoints and results in $scratch, at speed 200,
# the crash at 70 min and the end at 80 min, and an idle timeout of 2 min
# rather than 30 s (why: the bound below): the hold after the crash is
# over by 74 min (a hold that outlasted the job would be "never caught
# up").
sed -e "s|^checkpoint_dir = .*|checkpoint_dir = $scratch/chk|" \
	-e 's|^speed = [^#]*|speed = 200 |' \
	-e 's|^event_time = [^#]*|event_time = 80 min |' \
	-e 's|^fail_at = 2 h |fail_at = 70 min |' \
	-e 's|^idle_timeout = 30 s |idle_timeout = 2 min |' \
	-e "s|^path = -|path = $scratch/out.csv|" \
	"$srcdir/examples/restart_quiet_partition.conf" >"$scratch/job.conf"
grep -q '^speed = 200 ' "$scratch/job.conf" && grep -q '^fail_at = 70 min ' "$scratch/job.conf" &&
	grep -q '^idle_timeout = 2 min ' "$scratch/job.conf" ||
	fail "examples/restart_quiet_partition.conf is not the job this test expects"

expect_status 0 timeout 120 "$WMRUN" --summary "$scratch/s.json" "$scratch/job.conf"
expect_line '^  every record accounted  yes$' "$scratch/err"
expect_line '^  restarts                1$' "$scratch/err"
# The note is when the supervisor saw the death: fail_at's kill at 1 h 10
# min, seen before the job's end at 1 h 20 min. How soon is the
# machine's: a minute of processing time is 0.3 s at speed 200, and a
# loaded 2-core machine has taken over 1.5 s (1 h 15 min).
expect_line '^    1  at 1 h 1[0-9] min: worker "counts/1" \(pid [0-9]+\) was terminated by signal 9: Killed$' "$scratch/err"
expect_line '^       after [^(]* \(restart_strategy = [a-z-]+, attempt 1\), restored from chk-[0-9]+, event time held ([0-9]+ min )?[0-9.]+ (ms|s) after the restore$' "$scratch/err"
held=$(sed -n 's/.*"restarts":\[{[^]]*"held_ms":\(-\{0,1\}[0-9]*\).*/\1/p' "$scratch/s.json")
[ -n "$held" ] || fail "no held_ms in the summary's restart"

# The bound. Under --sim the hold is in (idle, idle + 2 x 200 ms]: the
# silent partitions' countdown starts at the first periodic watermark tick
# after the restore and they go idle at the first tick past the timeout
# (sim_restarts_from_the_latest_checkpoint.sh). A real run adds the real
# time its workers take to replay the backlog of the 10 min since the
# checkpoint, to tick and to carry the watermark from source to window,
# and any time a loaded machine keeps them off a CPU: all of it is
# processing time multiplied by the speed, 200 ms of it per real ms. Eight
# new processes of the sanitizer build, starting beside the Flink tests'
# JVMs, have taken more than 100 ms (20 s of processing time) before their
# sources ticked. So the timeout is 2 min and the bound allows 500 ms of
# real time, 100 s: it still tells a hold of one idle timeout from one
# that waited for the silence's end (9 h: never, in this job) or two
# timeouts (240 s).
idle=120000 interval=200 real_ms=500 speed=200
bound=$((idle + 2 * interval + real_ms * speed))
echo "event time held $held ms after the restore (idle_timeout $idle ms, bound $bound ms)"
[ "$held" -gt "$idle" ] && [ "$held" -le "$bound" ] ||
	fail "held $held ms after the restore: not in ($idle, $bound] ms"
exit 0
