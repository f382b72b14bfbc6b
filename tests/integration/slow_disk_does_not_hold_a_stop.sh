#!/bin/sh
# While a checkpoint's writes wait on the disk (here every fsync of the
# supervisor's process held until the test lets it go: an fsync on a
# loaded machine took up to 390 ms, 195 s of processing time at speed
# 500), the supervisor goes on: SIGTERM stops the job, whose workers
# drain and end, all while the fsync is still held. The completion runs
# on a thread of its own (coordinator.c); when the supervisor itself
# made the checkpoint durable, the stop waited for the disk, and the
# workers ran on meanwhile. Once the disk answers, the job ends as
# stopped (143), every record accounted for, and the file holds each
# result once.
. "$srcdir/tests/lib/lib.sh"

[ -f "$HOLD_FSYNC" ] || { echo "SKIP: no $HOLD_FSYNC"; exit 77; }
hold="$scratch/hold"
trap 'rm -f "$hold"; rm -rf "$scratch"' EXIT

checkpoint_job job "$scratch/ckpt" "20 s" "1 d"
# The library in a sanitizer build's wmrun: its runtime need not be
# first then.
ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}verify_asan_link_order=0" \
	WM_HOLD_FSYNC="$hold" LD_PRELOAD="$HOLD_FSYNC" \
	"$WMRUN" --live=never "$scratch/job.conf" >"$scratch/out" \
	2>"$scratch/err" &
sup=$!
watch_job "$sup"
trap 'kill "$watchdog" 2>/dev/null; pkill -9 -P '"$sup"' 2>/dev/null; rm -f "$hold"; rm -rf "$scratch"' EXIT

# A checkpoint committed (results in the file), then the next one's
# writes held.
await "a committed result" running_with_results "$sup" "$scratch/job.csv"
touch "$hold"
held() { [ -f "$hold.held" ]; }
await "a checkpoint's fsync held" held

kill -TERM "$sup"
# (The observer, which shows the job, is no worker: it stays to the end.)
workers_gone() { [ "$(pgrep -l -P "$sup" | grep -vc ' observer$')" -eq 0 ]; }
await "the workers ending while the fsync is held" workers_gone
kill -0 "$sup" 2>/dev/null || { cat "$scratch/err" >&2; fail "the job ended with its fsync held"; }
[ -f "$hold" ] || fail "the hold went before the workers"

rm -f "$hold"
ended_with "$sup" 143
expect_line '^wmrun: job "checkpoint-job" stopped after ' "$scratch/err"
expect_line '^  every record accounted  yes$' "$scratch/err"
# Each result once: no key and window twice in the file.
[ -z "$(tail -n +2 "$scratch/job.csv" | cut -d, -f1-3 | sort | uniq -d)" ] ||
	fail "a result written twice"
echo ok
