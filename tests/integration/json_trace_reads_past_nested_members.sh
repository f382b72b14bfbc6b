#!/bin/sh
# A JSON trace whose lines carry more than the record (nested objects,
# arrays, decimals, booleans, strings in members of other names), some
# timestamps written as integral reals: the job reads the fields and
# passes the rest, and gives exactly the windows a batch aggregation of
# the fields gives, in --sim and in a real run. A member whose name is a
# near miss of a field's, or a fraction in a field, stops the job with
# file:line (exit 65).
. "$srcdir/tests/lib/lib.sh"

# 600 records over 2 partitions, 13 keys, values 1..7; every third
# timestamp an integral real (1003.0), every line with members of its own.
awk 'BEGIN {
	for (i = 0; i < 600; i++) {
		ts = 1000 + i * 5 - (i * 7919) % 23
		printf "{\"meta\":{\"src\":\"web\",\"geo\":{\"lat\":48.85,\"lon\":2.35},\"tags\":[\"a\",{\"b\":[1.5e3]}]},"
		printf "\"partition\":%d,\"price\":%d.25,\"ok\":%s,", i % 2, i, i % 2 ? "true" : "false"
		printf "\"timestamp\":%d%s,\"key\":%d,\"note\":\"x\\\"y\\\\z\",\"value\":%d}\n", ts,
			i % 3 ? "" : ".0", (i * 31) % 13, 1 + i % 7
	}
}' >"$scratch/trace.jsonl"

conf() { # conf SINK
	cat <<CONF
[job]
name = nested
speed = 20
[source t]
partitions = 2
replay = $scratch/trace.jsonl
pacing = fast
out_of_orderness = 50 ms
[window w]
input = t
size = 100 ms
aggregates = count, sum
[sink out]
input = w
path = $1
CONF
}

# The batch aggregation of the fields alone, read with sed from the lines.
sed 's/.*"timestamp":\([0-9]*\)[.0]*,"key":\([0-9]*\),.*"value":\([0-9]*\)}$/\1,\2,\3/' \
	"$scratch/trace.jsonl" | awk -F, '{
	ws = $1 - (($1 % 100) + 100) % 100
	c[$2 "," ws] += 1; s[$2 "," ws] += $3
} END { for (k in c) { split(k, a, ","); print a[1] "," a[2] "," a[2] + 100 "," c[k] "," s[k] } }' |
	sort >"$scratch/batch"
[ "$(wc -l <"$scratch/batch")" -gt 100 ] || fail "the batch aggregation is too small"

conf "$scratch/sim.csv" >"$scratch/sim.conf"
expect_status 0 "$WMRUN" --sim "$scratch/sim.conf"
expect_line '^  records read +600$' "$scratch/err"
tail -n +2 "$scratch/sim.csv" | cut -d, -f1-5 | sort >"$scratch/a"
cmp "$scratch/a" "$scratch/batch" || fail "--sim differs from the batch aggregation"

conf "$scratch/real.csv" >"$scratch/real.conf"
expect_status 0 timeout 60 "$WMRUN" "$scratch/real.conf"
expect_line '^  records read +600$' "$scratch/err"
tail -n +2 "$scratch/real.csv" | cut -d, -f1-5 | sort >"$scratch/b"
cmp "$scratch/b" "$scratch/batch" || fail "the real run differs from the batch aggregation"

# A typo of a field's name is no member of its own; a fraction is no
# timestamp.
sed -i '101s/"value":/"valeu":/' "$scratch/trace.jsonl"
expect_status 65 "$WMRUN" --sim "$scratch/sim.conf"
expect_line 'trace.jsonl:101: invalid field "valeu" \(not partition, timestamp, key, value, arrival, punctuate, heartbeat or watermark\)$' "$scratch/err"
sed -i '101s/"valeu":/"value":/; 102s/"timestamp":\([0-9]*\)[.0]*,/"timestamp":\1.5,/' "$scratch/trace.jsonl"
expect_status 65 timeout 60 "$WMRUN" "$scratch/real.conf"
expect_line 'trace.jsonl:102: invalid timestamp "[0-9]*\.5" \(a fraction: expected an integer\)$' "$scratch/err"
