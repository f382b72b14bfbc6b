#!/bin/sh
# Real Apache Flink as the oracle of the interval join: two replayed
# traces, four [join] stages over them (bounds around zero, inclusive and
# exclusive, both positive, both negative; parallelism 1 to 3), each with
# a sink with the subtask column, one with both sides' late outputs and
# its pairs into a window (count and sum of a key's pairs every 2 s),
# exported with --export-flink as keyBy(..).intervalJoin(..).between(..)
# (and sideOutputLeftLateData, sideOutputRightLateData), and compared
# with wmrun's --sim and real run by flink_lib.sh's oracle at two speeds:
# every pair, the subtask that made it, and every late record. A join
# with other bounds on Flink's side must be caught.
#
# Timing-robust (doc/architecture.md section 8.1): every timestamp is
# even and every watermark odd (the newest even timestamp less the 200 ms
# bound, less 1), so no record ever arrives exactly at the join's
# watermark, where whether it is late, and whether a partner's cleanup
# timer fired before it, would hang on when the watermark came. Pairs
# exactly at a bound are there, for the exclusive bounds to drop.
# Skipped (77) as flink_lib.sh's flink_require says.
. "$srcdir/tests/lib/lib.sh"
. "$srcdir/tests/lib/flink_lib.sh"
. "$srcdir/tests/lib/join_lib.sh"
flink_require
flink_classpath

# The traces of join_lib.sh, every timestamp even.
join_traces 8

# join NAME PARALLELISM BETWEEN [KEY = VALUE ...]: a join of the two and
# its sink.
join() {
	j=$1 p=$2 b=$3
	shift 3
	printf '[join %s]\nleft = impressions\nright = clicks\n' "$j"
	printf 'between = %s\nparallelism = %s\n' "$b" "$p"
	printf '%s\n' "$@"
	printf '[sink %s_out]\ninput = %s\npath = %s\n' "$j" "$j" "$scratch/$run.$j.out"
	printf 'subtask_column = true\n'
}
conf() {
	run=$1
	cat <<CONF
[job]
name = joins
speed = 10
CONF
	join_sources
	join around 2 '-1 s, 500 ms' \
		"left_late = $scratch/$run.around_left.late" \
		"right_late = $scratch/$run.around_right.late" 'value = sum'
	# The pairs as records, into a window: a count and a sum per key
	# and 2 s.
	printf '[window per_key]\ninput = around\nparallelism = 3\n'
	printf 'size = 2 s\naggregates = count, sum\n'
	printf '[sink per_key_out]\ninput = per_key\npath = %s\n' \
		"$scratch/$run.per_key.out"
	printf 'subtask_column = true\n'
	join exclusive 3 '-1 s, 500 ms' 'lower_bound_exclusive = true' \
		'upper_bound_exclusive = true'
	join after 1 '200 ms, 2 s'
	join before 2 '-3 s, -100 ms'
}

oracle joins

# What the traces are for, seen in wmrun's outputs (which Flink agreed
# on): pairs at both bounds, which the exclusive join drops and no more.
at_bounds=$(awk -F, 'NR > 1 && ($4 - $3 == -1000 || $4 - $3 == 500)' \
	"$scratch/joins.sim.around.out" | wc -l)
[ "$at_bounds" -gt 0 ] || fail "no pair lies at a bound"
[ $(($(wc -l <"$scratch/joins.sim.around.out") - at_bounds)) -eq \
	"$(wc -l <"$scratch/joins.sim.exclusive.out")" ] ||
	fail "the exclusive join does not drop exactly the pairs at the bounds"
expect_status 0 "$WMRUN" --sim "$scratch/joins.sim.conf"
expect_line '^  join late, dropped +[1-9][0-9]* \(left 0, right [1-9][0-9]*\)$' "$scratch/err"

# Bounds Flink does not share must be caught.
if (MUTATE='s/^between = -1 s, 500 ms$/between = -1 s, 400 ms/' \
	SIM_ONLY=1 oracle joins_mutated) >"$scratch/mutated.log" 2>&1; then
	cat "$scratch/mutated.log" >&2
	fail "other bounds on Flink's side went unnoticed"
fi
grep -q 'Flink (speed = 10) differs in' "$scratch/mutated.log" || {
	cat "$scratch/mutated.log" >&2
	fail "the mutated cross-check failed for another reason"
}
[ "$(tail -n +2 "$scratch/joins.sim.around_right.late" | wc -l)" -gt 0 ] ||
	fail "no click went to the right late output"
echo "$at_bounds pairs at a bound"
