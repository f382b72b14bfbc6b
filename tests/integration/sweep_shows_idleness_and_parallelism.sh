#!/bin/sh
# --sweep: the quiet-partition incident run once per idle_timeout shows the
# windows' stall fraction falling once an idle timeout is set and falling
# further the shorter it is, its fire delays in the summary's units (the
# CSV's in ms); a sweep over parallelism runs every value; the
# table is the same on every run; bad keys and values are refused before
# anything runs, naming the option or the combination.
. "$srcdir/tests/lib/lib.sh"

conf="$EXAMPLES/quiet_partitions_no_idleness.conf"

expect_status 0 "$WMRUN" --sim --sweep "events.idle_timeout=none,10 min,30s" \
	--sweep-csv "$scratch/idle.csv" "$conf"
cat "$scratch/out"
cp "$scratch/out" "$scratch/idle.table"
[ "$(wc -l <"$scratch/idle.csv")" -eq 4 ] || fail "the CSV has not 3 rows"
# stall_fraction is the column after the value; every run accounted.
stall() { awk -F, -v v="$1" '$1 == v { print $2 }' "$scratch/idle.csv"; }
none=$(stall none) ten=$(stall "10 min") thirty=$(stall 30s)
echo "stall fraction: none $none, 10 min $ten, 30s $thirty"
awk -v a="$none" -v b="$ten" -v c="$thirty" \
	'BEGIN { exit !(a > 0.5 && a > b && b > c) }' ||
	fail "the stall does not fall as idle_timeout is set and shortened"
[ "$(grep -c ',true,0$' "$scratch/idle.csv")" -eq 3 ] ||
	fail "a run did not account for every record"
# The fire delays in the summary's units in the table, in ms in the CSV:
# the 30 s timeout's p50, p99 and max.
expect_line '^30s +[0-9.]+% +9\.0 s +29\.4 s +29\.4 s ' "$scratch/idle.table"
expect_line '^30s,[0-9.]+,9000,29392,29400,' "$scratch/idle.csv"

# Deterministic: the same table again, byte for byte.
expect_status 0 "$WMRUN" --sim --sweep "events.idle_timeout=none,10 min,30s" \
	"$conf"
cmp "$scratch/out" "$scratch/idle.table" || fail "the table changed"

# Every parallelism runs (more subtasks than partitions included).
expect_status 0 "$WMRUN" --sim --sweep events.parallelism=1,2,4,8,32 \
	"$EXAMPLES/quiet_partitions.conf"
cat "$scratch/out"
for p in 1 2 4 8 32; do
	expect_line "^$p +[0-9.]+% .* yes$" "$scratch/out"
done

# Refused before anything runs, naming the option or the combination.
expect_status 64 "$WMRUN" --sim --sweep events.idle_timout=1s "$conf"
expect_line 'unrecognized key "idle_timout" .*did you mean "idle_timeout"' \
	"$scratch/err"
expect_status 64 "$WMRUN" --sim --sweep clicks.rate=1/s "$conf"
expect_line 'no stage named "clicks"' "$scratch/err"
expect_status 64 "$WMRUN" --sim --sweep "events.rate=1/s,,2/s" "$conf"
expect_line 'invalid --sweep "events.rate=1/s,,2/s"' "$scratch/err"
expect_status 78 "$WMRUN" --sim --sweep events.rate=1/s,fast "$conf"
expect_line '^wmrun: --sweep combination events.rate=fast: .*quiet_partitions_no_idleness.conf:[0-9]+:[0-9]+: ' \
	"$scratch/err"
[ ! -s "$scratch/out" ] || fail "a refused sweep printed a table"
