#!/bin/sh
# String keys end to end: a trace keyed by strings, through keyBy at
# parallelism 2, gives the windows of the same trace with its keys renamed
# to integers, each printed with its string as it came in (quoted where
# CSV needs it), under --sim and in a real run; a JSON-lines trace of the
# same records, its keys escaped, gives the same; late records keep their
# string; and a window that would group string and long keys is refused.
. "$srcdir/tests/lib/lib.sh"

# Keys as a CSV field, with "Aa" and "BB" of one Java hash, a non-ASCII
# key, one outside the BMP, and two that CSV must quote.
cat >"$scratch/keys" <<'KEYS'
user48
zürich
a😀b
"a,b"
"q""x"
device-7
Aa
BB
KEYS
# The same as JSON strings, escaped where JSON allows.
cat >"$scratch/jkeys" <<'KEYS'
"user48"
"z\u00fcrich"
"a\ud83d\ude00b"
"a,b"
"q\"x"
"device\u002d7"
"Aa"
"BB"
KEYS

# trace KEYFILE FORMAT -- 400 records over two partitions, each partition
# in event-time order (nothing late), keys taken in turn from KEYFILE (by
# its line number minus one when KEYFILE is "int").
trace() {
	awk -v fmt="$2" -v keyfile="$1" '
	BEGIN {
		n = 0
		if (keyfile != "int")
			while ((getline k <keyfile) > 0)
				key[n++] = k
		else
			n = 8
		for (i = 0; i < 400; i++) {
			p = i % 2
			ts = 1000 + int(i / 2) * 53 + p * 7
			k = keyfile == "int" ? (i * 3) % n : key[(i * 3) % n]
			if (fmt == "json")
				printf "{\"partition\":%d,\"timestamp\":%d,\"key\":%s,\"value\":%d}\n", p, ts, k, i
			else
				printf "%d,%d,%s,%d\n", p, ts, k, i
		}
	}'
}

conf() { # conf TRACE RESULTS -- the keyed job at parallelism 2
	cat <<CONF
[job]
name = string-keys
speed = 50
[source s]
partitions = 2
replay = $1
pacing = fast
out_of_orderness = 0 ms
[keyby k]
input = s
parallelism = 2
[window w]
input = k
parallelism = 2
size = 1 s
aggregates = count, sum
late_output = $scratch/late.csv
[sink out]
input = w
path = $2
CONF
}

# Results without fire_time, watermark and late_firing (which differ
# between runs of a real job), sorted.
windows() {
	sed -n '2,$s/,[^,]*,[^,]*,[^,]*$//p' "$1" | LC_ALL=C sort
}

trace "$scratch/keys" csv >"$scratch/str.csv"
trace "$scratch/jkeys" json >"$scratch/str.json"
trace int csv >"$scratch/int.csv"

conf "$scratch/int.csv" "$scratch/int.out" >"$scratch/int.conf"
expect_status 0 timeout 60 "$WMRUN" --sim "$scratch/int.conf"
# The integer results with each key renamed to its string, as printed.
windows "$scratch/int.out" | awk -F, -v OFS=, -v keyfile="$scratch/keys" '
	BEGIN { while ((getline k <keyfile) > 0) key[n++] = k }
	{ k = $1; $1 = ""; print key[k] $0 }' | LC_ALL=C sort >"$scratch/want"
[ "$(wc -l <"$scratch/want")" -gt 8 ] || fail "too few windows to compare"

conf "$scratch/str.csv" "$scratch/str.out" >"$scratch/str.conf"
expect_status 0 timeout 60 "$WMRUN" --sim "$scratch/str.conf"
expect_line '^  records read +400$' "$scratch/err"
windows "$scratch/str.out" >"$scratch/got"
diff "$scratch/want" "$scratch/got" >&2 ||
	fail "string keys gave other windows than integer keys (--sim)"
expect_line '^"a,b",' "$scratch/str.out"
expect_line '^"q""x",' "$scratch/str.out"
expect_line '^zürich,' "$scratch/str.out"
expect_line '^a😀b,' "$scratch/str.out"

# JSON lines, escapes decoded: byte for byte the CSV trace's results.
conf "$scratch/str.json" "$scratch/json.out" >"$scratch/json.conf"
expect_status 0 timeout 60 "$WMRUN" --sim "$scratch/json.conf"
cmp "$scratch/str.out" "$scratch/json.out" >&2 ||
	fail "a JSON trace gave other results than the same CSV trace"

# A real run: every subtask its own process, the dictionary inherited.
expect_status 0 timeout 120 "$WMRUN" "$scratch/str.conf"
windows "$scratch/str.out" >"$scratch/got"
diff "$scratch/want" "$scratch/got" >&2 ||
	fail "string keys gave other windows than integer keys (real run)"

# A JSON-lines sink prints the key as a JSON string.
sed 's/^path = .*/&\nformat = jsonl/' "$scratch/str.conf" >"$scratch/jsonl.conf"
expect_status 0 timeout 60 "$WMRUN" --sim "$scratch/jsonl.conf"
expect_line '^\{"key":"q\\"x","window_start":' "$scratch/str.out"
expect_line '^\{"key":"zürich","window_start":' "$scratch/str.out"

# A late record keeps its string, quoted as CSV needs: it arrives a
# second after the others, when the watermark has passed its window.
{ awk '{ print $0 "," NR }' "$scratch/str.csv"
  printf '0,1000,"a,b",7,1400\n1,1001,zürich,8,1400\n'; } >"$scratch/late_trace.csv"
conf "$scratch/late_trace.csv" "$scratch/str.out" |
	sed 's/^pacing = fast$/pacing = arrival/' >"$scratch/late.conf"
expect_status 0 timeout 60 "$WMRUN" --sim "$scratch/late.conf"
expect_line '^0,1000,"a,b",7$' "$scratch/late.csv"
expect_line '^1,1001,zürich,8$' "$scratch/late.csv"

# A union of the string-keyed source with a generator's long keys.
cat >"$scratch/mixed.conf" <<CONF
[job]
name = mixed-keys
records = 100
[source s]
partitions = 2
replay = $scratch/str.csv
[source g]
partitions = 1
rate = unlimited
[window w]
input = s, g
size = 1 s
aggregates = count
[sink out]
input = w
path = $scratch/mixed.out
CONF
expect_status 65 timeout 60 "$WMRUN" --sim "$scratch/mixed.conf"
expect_line '^wmrun: window "w" reads string keys from source "s" and long keys from source "g" \(the keys of a window are of one type\)$' "$scratch/err"
[ ! -e "$scratch/mixed.out" ] || fail "a refused job left its output"
echo ok
