#!/bin/sh
# A map runs in its source's subtasks and writes its rows (doc/semantics.md
# section 16.6), on the first 60 000 events of the Nexmark examples'
# stream: q2's rows from a real run equal those from --sim, and both
# equal the rows awk derives from the stream --record-nexmark writes
# (every "event_type":2 line's bid auction and price, MOD(auction, 123) =
# 0), apart from everything the job does. q1's price is the DECIMAL
# price * 908 / 1000 with three decimals. A select that divides by zero
# fails every bid: the job still runs to its end, writes no row, and its
# summary names the record errors by cause with the count of bids; the
# summary's line for q2 accounts for every bid; a sink that cannot
# be written stops the job (74) in both drivers.
. "$srcdir/tests/lib/lib.sh"

events="--set bids.nexmark.events=60000"
q2="$EXAMPLES/nexmark/q2.conf"

# shellcheck disable=SC2086 # $events is two words on purpose
expect_status 0 "$WMRUN" --record-nexmark "$scratch/stream.json" $events "$q2"
awk '/"event_type":2/ {
	b = substr($0, index($0, "\"bid\":{"))
	a = b; sub(/.*"auction":/, "", a); sub(/[,}].*/, "", a)
	p = b; sub(/.*"price":/, "", p); sub(/[,}].*/, "", p)
	bids++
	if (a % 123 == 0) print a "," p
} END { print bids > "/dev/stderr" }' "$scratch/stream.json" \
	2>"$scratch/bids" | sort >"$scratch/expected"
bids=$(cat "$scratch/bids")
[ "$(wc -l <"$scratch/expected")" -gt 100 ] ||
	fail "too few q2 rows in the recording to compare"

# shellcheck disable=SC2086
expect_status 0 "$WMRUN" --sim $events "$q2"
[ "$(head -n 1 "$scratch/out")" = "auction,price" ] ||
	fail "q2's header is $(head -n 1 "$scratch/out")"
sed 1d "$scratch/out" | sort >"$scratch/sim"
cmp -s "$scratch/sim" "$scratch/expected" ||
	fail "q2's rows under --sim differ from the recording's"
expect_line '^  every record accounted  yes$' "$scratch/err"
out=$(wc -l <"$scratch/expected")
filtered=$((bids - out))
expect_line "^    map     q2 +in $bids +out $out +filtered $filtered  errors 0\$" \
	"$scratch/err"

# shellcheck disable=SC2086
expect_status 0 "$WMRUN" $events "$q2"
sed 1d "$scratch/out" | sort >"$scratch/real"
cmp -s "$scratch/real" "$scratch/expected" ||
	fail "q2's rows in a real run differ from the recording's"
expect_line '^  every record accounted  yes$' "$scratch/err"
expect_line "^    map     q2 +in $bids +out $out +filtered $filtered  errors 0\$" \
	"$scratch/err"

# q1: price * 0.908, exact, three decimals.
# shellcheck disable=SC2086
expect_status 0 "$WMRUN" --sim $events "$EXAMPLES/nexmark/q1.conf"
[ "$(head -n 1 "$scratch/out")" = "auction,bidder,price,dateTime,extra" ] ||
	fail "q1's header is $(head -n 1 "$scratch/out")"
[ "$(sed 1d "$scratch/out" | wc -l)" -eq "$bids" ] ||
	fail "q1 wrote $(sed 1d "$scratch/out" | wc -l) rows for $bids bids"
sed 1d "$scratch/out" | cut -d, -f3 | grep -Ev '^[0-9]+\.[0-9]{3}$' |
	head -n 3 >"$scratch/q1_bad"
[ ! -s "$scratch/q1_bad" ] ||
	fail "q1's price is no DECIMAL with three decimals: $(cat "$scratch/q1_bad")"
awk '/"event_type":2/ {
	b = substr($0, index($0, "\"bid\":{"))
	a = b; sub(/.*"auction":/, "", a); sub(/[,}].*/, "", a)
	u = b; sub(/.*"bidder":/, "", u); sub(/[,}].*/, "", u)
	p = b; sub(/.*"price":/, "", p); sub(/[,}].*/, "", p)
	m = p * 908
	printf "%s,%s,%d.%03d\n", a, u, int(m / 1000), m % 1000
}' "$scratch/stream.json" | sort >"$scratch/q1_expected"
sed 1d "$scratch/out" | cut -d, -f1-3 | sort >"$scratch/q1_got"
cmp -s "$scratch/q1_got" "$scratch/q1_expected" || {
	diff "$scratch/q1_got" "$scratch/q1_expected" | head -n 5 >&2
	fail "q1's auction, bidder, price are not the bids' with price * 0.908"
}

# A division by zero on every bid: counted by cause, no row, exit 0.
sed -e 's/^where = .*//' \
	-e 's|^select = .*|select = auction / (price - price) AS x|' \
	"$q2" >"$scratch/zero.conf"
# shellcheck disable=SC2086
expect_status 0 "$WMRUN" --sim $events "$scratch/zero.conf"
[ "$(wc -l <"$scratch/out")" -eq 1 ] || fail "rows written for a division by zero"
expect_line "^    map     q2 +in $bids +out 0 +filtered 0  errors $bids\$" "$scratch/err"
expect_line "^      record errors: division by zero $bids\$" "$scratch/err"
expect_line '^  every record accounted  yes$' "$scratch/err"

# A map's sink that cannot be written stops the job, named, in both
# drivers (74, as a window's sink).
sed 's|^path = -|path = /dev/full|' "$EXAMPLES/nexmark/q0.conf" >"$scratch/full.conf"
for mode in --sim --set=job.speed=1000; do
	# shellcheck disable=SC2086
	expect_status 74 "$WMRUN" "$mode" $events "$scratch/full.conf"
	expect_line 'could not write to "/dev/full" \(sink "out"\)' "$scratch/err"
done
