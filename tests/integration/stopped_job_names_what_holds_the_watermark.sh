#!/bin/sh
# A job stopped while its watermark is stalled says what holds it now:
# the quiet-partition job without idleness, stopped with Ctrl-C in the
# middle of the night (real run, speed 2000: the night is 1.8 s to 16.2 s
# of real time), names for each window subtask the source subtask, and for
# that source subtask the silent partition, holding its watermark.
. "$srcdir/tests/lib/lib.sh"

$INTERRUPTIBLE "$WMRUN" --summary "$scratch/s.json" "$EXAMPLES/quiet_partitions_no_idleness.conf" \
	>"$scratch/out" 2>"$scratch/err" &
sup=$!
sleep 8
interrupt $sup
expect_line '"stopped":true' "$scratch/s.json"
expect_line 'window  counts .*stalled now, held by events/[0-3]' "$scratch/err"
# Every window subtask is held by a source subtask; each source subtask
# that reads a silent partition (13, 14, 15) is held by it.
sed 's/"index":/\n&/g' "$scratch/s.json" | grep '^"index"' |
	sed 's/.*"held_by_now":\([^,]*\),.*/\1/' >"$scratch/now"
grep -c '^"events/[0-3]"$' "$scratch/now" | grep -qx 2 ||
	{ cat "$scratch/now" >&2; fail "the window subtasks do not name a source subtask"; }
for p in 13 14 15; do
	grep -qx "\"events-$p\"" "$scratch/now" ||
		{ cat "$scratch/now" >&2; fail "no source subtask is held by partition $p"; }
done
