#!/bin/sh
# A file sink is exactly-once under --sim's checkpoints and restart
# (runtime/checkpoint/part_commit.h): with a crash at fail_at, the file
# holds the very lines of the run without the crash, each once, where
# standard output gets those fired between the checkpoint and the crash
# twice. The job is examples/restart_quiet_partition.conf: a keyBy from 4
# source subtasks to 2 window subtasks, 3 partitions silent in the night
# (idle), no late record.
#
# Which columns a restart may change: key, window bounds, count, sum and
# late_firing come from the window's state, which the checkpoint restores
# whole (doc/semantics.md section 12.1), so they are the same line for
# line. fire_time and watermark are when and at what event time a window
# fired: after the restore, event time starts again at MIN and waits one
# more idle_timeout for the silent partitions (section 12.4), so the
# windows fired after the restore fire later and at another watermark.
# They are compared everywhere else: with checkpoints but no crash, the
# whole lines are the same.
. "$srcdir/tests/lib/lib.sh"

example="$srcdir/examples/restart_quiet_partition.conf"

# conf NAME FAIL PATH: the example, its checkpoints in $scratch/NAME.chk,
# its sink into PATH, late records into $scratch/NAME.late, and fail_at
# FAIL ("none": no crash; "plain": no checkpoint key at all).
conf() {
	sed -e "s|^checkpoint_dir = .*|checkpoint_dir = $scratch/$1.chk|" \
		-e "s|^path = .*|path = $3|" \
		-e "s|^fail_at = .*|fail_at = $2|" \
		-e "s|^aggregates = .*|&\nlate_output = $scratch/$1.late|" \
		"$example" |
		case $2 in
		none) grep -v '^fail_at' ;;
		plain) grep -v '^fail_at\|^checkpoint' ;;
		*) cat ;;
		esac >"$scratch/$1.conf"
}

# run NAME FAIL: --sim of the example into $scratch/NAME.csv.
run() {
	conf "$1" "$2" "$scratch/$1.csv"
	expect_status 0 "$WMRUN" --sim --summary "$scratch/$1.json" "$scratch/$1.conf"
	expect_line '^  every record accounted  yes$' "$scratch/err"
	! grep -q '"late_records_[a-z_]*":[1-9]' "$scratch/$1.json" ||
		fail "$1: late records (the comparison assumes none)"
}

# lines NAME [CUT]: NAME.csv's results sorted, header left out, with only
# the columns CUT (cut -f) if given.
lines() {
	sed 1d "$scratch/$1.csv" | if [ -n "${2:-}" ]; then cut -d, -f"$2"; else cat; fi |
		sort >"$scratch/$1.sorted"
}

deterministic=1-5,8 # without fire_time (6) and watermark (7)

run plain plain
run none none
lines plain
lines none
cmp -s "$scratch/plain.sorted" "$scratch/none.sorted" ||
	fail "checkpoints changed the results of a file sink"
[ "$(head -1 "$scratch/none.csv")" = "$(head -1 "$scratch/plain.csv")" ] ||
	fail "no header, or another one"

# The crash at 2 h, restored from the checkpoint of 1 h 50 min; and a
# crash at 5 min, before the first checkpoint, from the start.
for at in "2 h" "5 min"; do
	name=$(echo "fail $at" | tr -d ' ')
	run "$name" "$at"
	again=$(sed -n 's/.*"results_again":\([0-9]*\).*/\1/p' "$scratch/$name.json")
	[ "$again" -gt 0 ] || fail "$name: no result fired again, the test shows nothing"
	lines "$name" $deterministic
	lines none $deterministic
	cmp -s "$scratch/$name.sorted" "$scratch/none.sorted" || {
		diff "$scratch/$name.sorted" "$scratch/none.sorted" | head >&2
		fail "$name: the file is not the run's without the crash, each line once"
	}
	[ "$(grep -c '^key,' "$scratch/$name.csv")" = 1 ] || fail "$name: header not once"
	# The late output (no record is late) holds its header alone.
	[ "$(cat "$scratch/$name.late")" = "partition,timestamp,key,value" ] ||
		fail "$name: late output: $(head -3 "$scratch/$name.late")"
	# Every part committed and gone.
	left=$(find "$scratch/$name.chk/parts" -type f)
	[ -z "$left" ] || fail "$name: parts left: $left"
done

# Standard output cannot take lines back: at-least-once, and the notice
# says so. The same comparison finds the lines fired again there.
conf stdout "2 h" -
expect_status 0 "$WMRUN" --sim "$scratch/stdout.conf"
expect_line '^wmrun: notice: sink "out" writes to standard output: .*at-least-once' "$scratch/err"
cp "$scratch/out" "$scratch/stdout.csv"
lines stdout $deterministic
! cmp -s "$scratch/stdout.sorted" "$scratch/none.sorted" ||
	fail "standard output holds no line twice: the comparison cannot fail"
exit 0
