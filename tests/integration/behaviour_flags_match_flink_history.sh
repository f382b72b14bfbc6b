#!/bin/sh
# Switching on one newer-Flink rule over flink-2.1 (the rules the traces
# were recorded from) changes exactly the traces that FLAGS.txt says depend
# on it, and no other: each flag is implemented, and implemented narrowly.
. "$srcdir/tests/lib/lib.sh"

for flag in VALVE_FLUSH_UNCONDITIONAL VALVE_REDERIVE_ON_ACTIVE \
	MUX_ALLIDLE_FLUSH_MAX MUX_EMPTY_IS_IDLE MUX_REACTIVATE; do
	grep -v '^#' "$TRACES/FLAGS.txt" | grep -w "$flag" |
		sed 's/ .*//; s#.*/##' | sort >"$scratch/expected"
	[ -s "$scratch/expected" ] || fail "FLAGS.txt names no trace for $flag"
	"$WMCONFORM" --behaviour "flink-2.1,$flag" "$TRACES" >"$scratch/out"
	sed -n 's/^FAIL \([^ :]*\).*/\1/p' "$scratch/out" | sort >"$scratch/failed"
	diff "$scratch/expected" "$scratch/failed" >"$scratch/diff" || {
		cat "$scratch/diff" >&2
		fail "$flag changes other traces than FLAGS.txt predicts"
	}
	echo "ok: $flag changes $(wc -l <"$scratch/failed") traces, as predicted"
done
# released (Flink 2.3, wmrun's default) is flink-2.1 with the all-idle
# flush: it changes the traces of that flag, which is why wmconform's
# default stays flink-2.1, the Flink the traces were recorded from.
grep -v '^#' "$TRACES/FLAGS.txt" | grep -w MUX_ALLIDLE_FLUSH_MAX |
	sed 's/ .*//; s#.*/##' | sort >"$scratch/expected"
"$WMCONFORM" --behaviour released "$TRACES" >"$scratch/out"
sed -n 's/^FAIL \([^ :]*\).*/\1/p' "$scratch/out" | sort >"$scratch/failed"
diff "$scratch/expected" "$scratch/failed" ||
	fail "released changes other traces than MUX_ALLIDLE_FLUSH_MAX's"
expect_status 0 "$WMCONFORM" --behaviour flink-2.3,-MUX_ALLIDLE_FLUSH_MAX "$TRACES"
# All master rules at once still leave the flag-independent traces intact.
"$WMCONFORM" --behaviour master "$TRACES" >"$scratch/out"
grep -v '^#' "$TRACES/FLAGS.txt" | grep ' -$' | sed 's/ .*//; s#.*/##' |
	while read -r name; do
		grep -q "^PASS $name\$" "$scratch/out" ||
			fail "$name should pass under master behaviour"
	done || exit 1
