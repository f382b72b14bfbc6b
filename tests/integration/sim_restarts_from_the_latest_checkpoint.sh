#!/bin/sh
# --sim's checkpoints and restart (examples/restart_quiet_partition.conf):
# checkpoints change no result; a crash at fail_at restores every subtask
# from the latest complete checkpoint, replays the records after its
# positions, emits the results after it again (at-least-once) and, since
# watermarks are not restored (Flink), holds the windows until the silent
# partitions' idle timeout runs out once more.
. "$srcdir/tests/lib/lib.sh"

example="$srcdir/examples/restart_quiet_partition.conf"

# conf NAME IDLE [fail|nofail|plain]: the example with idle_timeout IDLE,
# its checkpoints in $scratch/NAME.chk, with or without fail_at, or with
# no checkpoint key at all (plain).
conf() {
	sed -e "s|^checkpoint_dir = .*|checkpoint_dir = $scratch/$1.chk|" \
		-e "s|^idle_timeout = [^#]*|idle_timeout = $2 |" "$example" |
		case $3 in
		fail) cat ;;
		nofail) grep -v '^fail_at' ;;
		plain) grep -v '^fail_at\|^checkpoint' ;;
		esac >"$scratch/$1.conf"
}

# run NAME: --sim of $scratch/NAME.conf, results in NAME.out, summary in
# NAME.json.
run() {
	expect_status 0 "$WMRUN" --sim --summary "$scratch/$1.json" "$scratch/$1.conf"
	mv "$scratch/out" "$scratch/$1.out"
	expect_line '^  every record accounted  yes$' "$scratch/err"
	expect_line '"all_records_accounted":true' "$scratch/$1.json"
}

# json NAME KEY: the first number after "KEY": in NAME.json.
json() {
	sed -n "s/.*\"$2\":\(-\{0,1\}[0-9]*\).*/\1/p" "$scratch/$1.json"
}

# Checkpoints alone change nothing of the results; 4 h at 10 min: 24
# complete, the last two retained.
conf plain 30s plain
run plain
conf ckpt 30s nofail
run ckpt
cmp "$scratch/plain.out" "$scratch/ckpt.out" || fail "checkpoints changed the results"
[ "$(json ckpt completed)" = 24 ] || fail "$(json ckpt completed) checkpoints, not 24"
[ "$(ls "$scratch/ckpt.chk" | grep -vx _lock)" = "$(printf 'chk-23\nchk-24')" ] ||
	fail "retained: $(ls "$scratch/ckpt.chk")"
[ -s "$scratch/ckpt.chk/chk-24/_metadata" ] || fail "no manifest in chk-24"

for idle in 30 60; do
	conf "fail$idle" "${idle}s" fail
	run "fail$idle"
	conf "nofail$idle" "${idle}s" nofail
	run "nofail$idle"
	# Restored from the checkpoint of 1 h 50 min, the last before 2 h,
	# after the default strategy's first delay (1 s, jitter up to 10 %).
	[ "$(json "fail$idle" at_ms)" = 7200000 ] || fail "crash not at 2 h"
	delay=$(json "fail$idle" delay_ms)
	[ "$delay" -ge 1000 ] && [ "$delay" -le 1100 ] ||
		fail "restored $delay ms after the crash"
	[ "$(json "fail$idle" checkpoint_ms)" = 6600000 ] ||
		fail "restored from the checkpoint of $(json "fail$idle" checkpoint_ms) ms"
	# Every record counted once, as the run without the crash reads them.
	[ "$(json "fail$idle" records_read)" = "$(json "nofail$idle" records_read)" ] ||
		fail "records read $(json "fail$idle" records_read) after a restart"
	# Replayed: 13 partitions at 1/s for 10 min (3 are silent then).
	[ "$(json "fail$idle" records_replayed)" = $((13 * 600)) ] ||
		fail "$(json "fail$idle" records_replayed) records replayed"
	# The same results, those between the checkpoint and the crash twice.
	again=$(json "fail$idle" results_again)
	[ "$again" -gt 0 ] || fail "no result emitted again"
	[ $(($(wc -l <"$scratch/fail$idle.out") - again)) -eq \
		"$(wc -l <"$scratch/nofail$idle.out")" ] || fail "results: not at-least-once"
	cut -d, -f1-5 "$scratch/fail$idle.out" | sort -u >"$scratch/a"
	cut -d, -f1-5 "$scratch/nofail$idle.out" | sort -u >"$scratch/b"
	cmp "$scratch/a" "$scratch/b" || fail "the restart changed the results"
	# Held for one more idle timeout: the silent partitions' countdown
	# starts at the first periodic tick after the restore (200 ms) and
	# goes idle at the first tick past the timeout (Flink compares with
	# >), so the hold is in (idle, idle + 2 x 200 ms].
	held=$(json "fail$idle" held_ms)
	[ "$held" -gt $((idle * 1000)) ] && [ "$held" -le $((idle * 1000 + 400)) ] ||
		fail "held $held ms after the restore, idle_timeout ${idle} s"
done

# The summary says it.
conf text 30s fail
expect_status 0 "$WMRUN" --sim "$scratch/text.conf"
expect_line '^  restart                 at 2 h 0 min, from chk-11 \(taken at 1 h 50 min\)$' "$scratch/err"
expect_line '^    results emitted again [0-9]+ \(at-least-once sinks\)$' "$scratch/err"
# Flink's default with checkpoints, exponential-delay: the first restore
# waits its initial backoff of 1 s, plus a jitter of up to 10 %.
expect_line '^    restart delay         1\.[01] s \(restart_strategy = exponential-delay, attempt 1\): nothing ran meanwhile$' "$scratch/err"
# A second run into the same directory numbers its checkpoints after the
# first's 23 (the one due at 2 h fell while the job was down), and
# restores only its own.
expect_status 0 "$WMRUN" --sim "$scratch/text.conf"
expect_line 'from chk-34 ' "$scratch/err"
exit 0
