#!/bin/sh
# Incident 5: an idle timeout (3 s) shorter than the gap between readings
# (about 10 s): every partition flaps between idle and active, and
# readings that the slowest sensor's watermark would have waited for are
# late. Without the idle timeout no reading is late. Either way every
# record is in a window or in the late file.
. "$srcdir/tests/lib/lib.sh"

conf="$EXAMPLES/idle_flapping.conf"
sed "s|^late_output = .*|late_output = $scratch/late.csv|" "$conf" >"$scratch/flap.conf"
sed "/^idle_timeout/d; s|^late_output = .*|late_output = $scratch/late_none.csv|" \
	"$conf" >"$scratch/steady.conf"

expect_status 0 "$WMRUN" --sim --summary "$scratch/flap.json" "$scratch/flap.conf"
expect_status 0 "$WMRUN" --sim --summary "$scratch/steady.json" "$scratch/steady.conf"

# total JSON FIELD -- FIELD summed over the partitions.
total() {
	sed 's/{"partition"/\n&/g' "$1" | grep '^{"partition"' |
		sed "s/.*\"$2\":\\([0-9]*\\).*/\\1/" | awk '{ n += $1 } END { print n + 0 }'
}
flips=$(total "$scratch/flap.json" idle_transitions)
back=$(total "$scratch/flap.json" active_transitions)
late=$(($(wc -l <"$scratch/late.csv") - 1))
read_n=$(sed 's/.*"records_read":\([0-9]*\),.*/\1/' "$scratch/flap.json")
echo "read $read_n; went idle $flips times, active $back times; $late late"
# Nearly every reading wakes its partition and is followed by a timeout.
[ "$flips" -gt $((read_n * 9 / 10)) ] || fail "only $flips idle transitions for $read_n readings"
[ $((flips - back)) -le 8 ] && [ $((back - flips)) -le 8 ] ||
	fail "idle ($flips) and active ($back) transitions do not alternate"
[ "$late" -gt 0 ] || fail "no reading was late with flapping"
expect_line "\"late_records_side_output\":$late," "$scratch/flap.json"
expect_line '"all_records_accounted":true' "$scratch/flap.json"
[ "$(total "$scratch/steady.json" idle_transitions)" -eq 0 ] ||
	fail "partitions went idle without an idle timeout"
[ "$(wc -l <"$scratch/late_none.csv")" -eq 1 ] || fail "readings were late without flapping"
# The summary says it flaps, with the count of idle spells and their rate,
# and advises a timeout above the gaps; without the timeout it says
# nothing of flapping.
expect_status 0 "$WMRUN" --sim "$scratch/flap.conf"
expect_line "^  idleness flapping\$" "$scratch/err"
spells=$(sed -n 's/^    source sensors: its partitions went idle \([0-9]*\) times in 2 h 0 min (\([0-9]*\) an hour): idle_timeout 3 s is below their gaps.*/\1 \2/p' "$scratch/err")
[ -n "$spells" ] || fail "no flapping line for source sensors: $(cat "$scratch/err")"
[ "${spells#* }" -eq $((${spells% *} / 2)) ] || fail "$spells: not the spells of 2 h per hour"
[ "${spells% *}" -gt $((read_n * 9 / 10)) ] || fail "only ${spells% *} idle spells said for $read_n readings"
expect_line "^    idle_timeout = [0-9]+ (s|min) \\(partition sensors-[0-7]: 3 times its p99 gap .*; 3 s set, below the gaps: it flaps" "$scratch/err"
expect_line "\"diagnosis\":\\[\\{\"source\":\"sensors\",\"idle_spells\":${spells% *}," "$scratch/flap.json"
expect_status 0 "$WMRUN" --sim "$scratch/steady.conf"
! grep -q '^  idleness flapping\|went idle' "$scratch/err" || fail "flapping said without an idle timeout"
