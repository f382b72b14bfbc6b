#!/bin/sh
# A replayed trace reads the same whether its lines end in LF, CRLF or a
# lone CR (old Mac editors, some exporters): same records, same results,
# and a bad line is named by its own number. A CR-only trace used to be
# one long line taken for the header: 0 records read and exit 0.
. "$srcdir/tests/lib/lib.sh"

conf() { # conf TRACE RESULTS -- a job replaying TRACE into RESULTS
	cat <<CONF
[job]
name = line-ends
[source t]
parallelism = 2
partitions = 2
replay = $1
pacing = event
out_of_orderness = 50 ms
[window w]
input = t
size = 100 ms
aggregates = count, sum
[sink out]
input = w
path = $2
CONF
}

# runs NAME -- $scratch/NAME replayed under --sim into $scratch/NAME.out
runs() {
	conf "$scratch/$1" "$scratch/$1.out" >"$scratch/$1.conf"
	expect_status 0 "$WMRUN" --sim "$scratch/$1.conf"
	expect_line '^  records read +6$' "$scratch/err"
}

{
	echo '# two partitions, six clicks'
	echo 'partition,timestamp,key,value'
	echo '0,1000,1,1'
	echo '1,1050,2,2'
	echo '0,1100,1,3'
	echo '1,1250,2,4'
	echo ''
	echo '0,1420,1,5'
	echo '1,1430,2,6'
} >"$scratch/lf"
tr '\n' '\r' <"$scratch/lf" >"$scratch/cr"
sed 's/$/\r/' "$scratch/lf" >"$scratch/crlf"
[ "$(wc -l <"$scratch/cr")" -eq 0 ] || fail "the CR trace has a line feed"

runs lf
[ "$(wc -l <"$scratch/lf.out")" -eq 7 ] ||
	fail "expected a header and 6 windows from the LF trace"
for kind in cr crlf; do
	runs $kind
	cmp "$scratch/lf.out" "$scratch/$kind.out" ||
		fail "the $kind trace gives other results than the LF one"
done

# JSON lines end the same way.
printf '{"partition":0,"timestamp":1000,"key":1,"value":1}\r{"partition":1,"timestamp":1200,"key":2,"value":2}\r' \
	>"$scratch/json"
conf "$scratch/json" "$scratch/json.out" >"$scratch/json.conf"
expect_status 0 "$WMRUN" --sim "$scratch/json.conf"
expect_line '^  records read +2$' "$scratch/err"

# Line numbers count every kind of line end: the bad line is line 5.
printf 'partition,timestamp,key,value\r0,1000,1,1\r\r\n1,1050,2,2\r\n0,1x,1,1\r' \
	>"$scratch/bad"
conf "$scratch/bad" "$scratch/bad.out" >"$scratch/bad.conf"
expect_status 65 "$WMRUN" --sim "$scratch/bad.conf"
expect_line "^wmrun: $scratch/bad:5: invalid timestamp \"1x\"\$" "$scratch/err"
echo ok
