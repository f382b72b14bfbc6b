#!/bin/sh
# --sim's crash at fail_at under each restart strategy
# (examples/restart_quiet_partition.conf, crash at 2 h): fixed-delay
# restores after its delay, with nothing running meanwhile and the hold
# measured from the restore; the default's first delay is Flink's initial
# backoff plus its jitter, the same every run of a seed; none, or
# fixed-delay without an attempt, fails the job as a dead worker does
# (exit 1), naming the crash.
. "$srcdir/tests/lib/lib.sh"

example="$srcdir/examples/restart_quiet_partition.conf"

# conf NAME [LINES...]: the example, its checkpoints in $scratch/NAME.chk,
# with these [job] lines after fail_at.
conf() {
	name=$1
	shift
	sed -e "s|^checkpoint_dir = .*|checkpoint_dir = $scratch/$name.chk|" \
		"$example" >"$scratch/$name.conf.in"
	: >"$scratch/$name.lines"
	for l in "$@"; do echo "$l" >>"$scratch/$name.lines"; done
	sed -e "/^fail_at/r $scratch/$name.lines" "$scratch/$name.conf.in" \
		>"$scratch/$name.conf"
}

# json NAME KEY: the first number after "KEY": in NAME.json.
json() {
	sed -n "s/.*\"$2\":\(-\{0,1\}[0-9]*\).*/\1/p" "$scratch/$1.json"
}

# fire_times NAME LOW HIGH: how many results of NAME.out fired in
# (LOW, HIGH) ms of processing time (the sixth field).
fire_times() {
	awk -F, -v lo="$2" -v hi="$3" '$6 > lo && $6 < hi { n++ } END { print n + 0 }' \
		"$scratch/$1.out"
}

# fixed-delay, 5 min: restored at 2 h 5 min; nothing fires while down.
conf fixed "restart_strategy = fixed-delay" "restart_delay = 5 min"
expect_status 0 "$WMRUN" --sim --summary "$scratch/fixed.json" "$scratch/fixed.conf"
mv "$scratch/out" "$scratch/fixed.out"
expect_line '^  every record accounted  yes$' "$scratch/err"
expect_line '^    restart delay         5 min 0 s \(restart_strategy = fixed-delay, attempt 1\): nothing ran meanwhile$' "$scratch/err"
[ "$(json fixed at_ms)" = 7200000 ] || fail "crash at $(json fixed at_ms) ms"
[ "$(json fixed delay_ms)" = 300000 ] || fail "delay $(json fixed delay_ms) ms"
[ "$(json fixed attempt)" = 1 ] || fail "attempt $(json fixed attempt)"
[ "$(fire_times fixed 7200000 7500000)" = 0 ] || fail "results fired while the job was down"
# Replayed: the records since the checkpoint at 1 h 50 min, read before
# the crash; those due while down are read once, after the restore.
[ "$(json fixed records_replayed)" = $((13 * 600)) ] ||
	fail "$(json fixed records_replayed) records replayed"
# The hold is the idle timeout again, counted from the restore.
held=$(json fixed held_ms)
[ "$held" -gt 30000 ] && [ "$held" -le 30400 ] || fail "held $held ms after the restore"
# The first results after the restore wait for that hold.
[ "$(fire_times fixed 7200000 7530000)" = 0 ] || fail "results fired before the hold ended"
[ "$(fire_times fixed 7530000 7600000)" -gt 0 ] || fail "no result after the hold"

# The same results as the restore without delay, by window.
conf now "restart_strategy = fixed-delay" "restart_delay = 0 s"
expect_status 0 "$WMRUN" --sim --summary "$scratch/now.json" "$scratch/now.conf"
mv "$scratch/out" "$scratch/now.out"
[ "$(json now delay_ms)" = 0 ] || fail "delay $(json now delay_ms) ms"
cut -d, -f1-5 "$scratch/fixed.out" | sort -u >"$scratch/a"
cut -d, -f1-5 "$scratch/now.out" | sort -u >"$scratch/b"
cmp "$scratch/a" "$scratch/b" || fail "the delay changed the results"

# The default (exponential-delay): 1 s plus a jitter in [0, 100 ms], the
# same every run of the seed.
conf dflt
expect_status 0 "$WMRUN" --sim --summary "$scratch/dflt.json" "$scratch/dflt.conf"
mv "$scratch/out" "$scratch/dflt.out"
delay=$(json dflt delay_ms)
[ "$delay" -ge 1000 ] && [ "$delay" -le 1100 ] || fail "default delay $delay ms"
expect_line '"strategy":"exponential-delay"' "$scratch/dflt.json"
rm -rf "$scratch/dflt.chk"
expect_status 0 "$WMRUN" --sim --summary "$scratch/dflt2.json" "$scratch/dflt.conf"
cmp "$scratch/out" "$scratch/dflt.out" || fail "a second run of the seed differs"
[ "$(json dflt2 delay_ms)" = "$delay" ] || fail "a second run waited $(json dflt2 delay_ms) ms"

# none: the crash fails the job, exit 1, the summary marked failed.
conf none "restart_strategy = none"
expect_status 1 "$WMRUN" --sim --summary "$scratch/none.json" "$scratch/none.conf"
mv "$scratch/out" "$scratch/none.out"
expect_line '^wmrun: the job failed: every subtask crashed at fail_at \(2 h 0 min\) and restart_strategy = none does not restart it$' "$scratch/err"
expect_line '^  restart                 none: the crash at 2 h 0 min failed the job \(restart_strategy = none, attempt 1\)$' "$scratch/err"
expect_line '"gave_up":true' "$scratch/none.json"
[ "$(fire_times none 7200000 999999999)" = 0 ] || fail "results after the job failed"
[ "$(fire_times none 0 7200000)" -gt 0 ] || fail "the results before the crash are gone"

# fixed-delay with no attempt: the same failure.
conf zero "restart_strategy = fixed-delay" "restart_attempts = 0"
expect_status 1 "$WMRUN" --sim "$scratch/zero.conf"
expect_line '^wmrun: the job failed: every subtask crashed at fail_at \(2 h 0 min\) and restart_strategy = fixed-delay has no attempt left$' "$scratch/err"
exit 0
