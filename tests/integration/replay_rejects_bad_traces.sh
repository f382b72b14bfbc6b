#!/bin/sh
# A replayed trace that is malformed or out of range stops the job naming
# file, line and what is wrong (exit 65); one that cannot be read names the
# path and why (exit 66); a source subtask that owns no line of the trace
# just has nothing to emit. Each case runs the real wmrun, so that a
# sanitizer build also catches undefined behaviour on the way.
. "$srcdir/tests/lib/lib.sh"

trace="$scratch/trace"

conf() { # conf PACING [PARALLELISM] -- a job replaying $trace
	cat <<CONF
[job]
name = bad-traces
speed = 20
[source t]
parallelism = ${2:-1}
partitions = 2
replay = $trace
pacing = $1
${key_type:+key_type = $key_type}
${watermark:+watermark = $watermark}
out_of_orderness = 50 ms
[window w]
input = t
size = 100 ms
aggregates = count
[sink out]
input = w
path = $scratch/results.csv
CONF
}

# replays STATUS PACING [PARALLELISM] -- $trace replayed under --sim exits
# with STATUS (its stderr in $scratch/err).
replays() {
	conf "$2" "${3:-1}" >"$scratch/job.conf"
	expect_status "$1" "$WMRUN" --sim "$scratch/job.conf"
}

# A subtask owning no line: partition 1 is absent, so one of the two
# subtasks has nothing; and an empty trace, for all of them. A real run
# too, where each subtask is its own process.
printf 'partition,timestamp,key,value\n0,1000,1,1\n0,1200,1,2\n' >"$trace"
replays 0 event 2
expect_line '^  records read +2$' "$scratch/err"
conf event 2 >"$scratch/job.conf"
expect_status 0 timeout 60 "$WMRUN" "$scratch/job.conf"
expect_line '^  records read +2$' "$scratch/err"
[ "$(wc -l <"$scratch/results.csv")" -eq 3 ] ||
	fail "expected a header and 2 windows in results.csv"
: >"$trace"
replays 0 fast 2
expect_line '^  records read +0$' "$scratch/err"

# A directory opens, but reading it fails: that is no empty trace. In a
# real run too, where the worker maps the error to its exit status.
rm -f "$trace"
mkdir "$trace"
replays 66 fast
expect_line "could not read trace \"$trace\": Is a directory" "$scratch/err"
conf fast >"$scratch/job.conf"
expect_status 66 timeout 60 "$WMRUN" "$scratch/job.conf"
expect_line "could not read trace \"$trace\": Is a directory" "$scratch/err"
rmdir "$trace"

# rejects LINE PATTERN [PACING] -- $trace is refused (exit 65) with a
# message matching PATTERN about line LINE.
rejects() {
	replays 65 "${3:-fast}"
	expect_line "^wmrun: $trace:$1: $2\$" "$scratch/err"
}

# Every field is a whole 64-bit integer, quoted when it is not.
printf '0,1000,1,1\n1,1000,1,1\n0,12x,3,3\n' >"$trace"
rejects 3 'invalid timestamp "12x"'
printf '0,1000,1,9223372036854775808\n' >"$trace"
rejects 1 'invalid value "9223372036854775808" \(beyond 64 bits\)'
printf '0,1000,1,+5\n' >"$trace"
rejects 1 'invalid value "\+5"'
printf '0,1000,1,1,4,5\n' >"$trace"
rejects 1 'invalid punctuate "5" \(1: the record carries a watermark at its timestamp, 0: it does not\)'
printf '0,1000,1,1,4,1,6\n' >"$trace"
rejects 1 'invalid heartbeat "6" \(1: a heartbeat, 0: a record\)'
printf '0,1000,1,1,4,1,0,7x\n' >"$trace"
rejects 1 'invalid watermark "7x"'
printf '0,1000,1,1,4,1,0,7,8\n' >"$trace"
rejects 1 'invalid line: extra field "8"'
printf '0,1000,1\n' >"$trace"
rejects 1 'invalid line: no value'
# A line is at most 64 KiB: a trace without line ends (a binary file, a
# device) is refused at its first line, not read whole into memory first.
{ printf '0,1000,1,1\n0,1001,1,1'; head -c 70000 /dev/zero | tr '\0' ' '; echo; } >"$trace"
rejects 2 'invalid line: longer than 65536 bytes'
trace=/dev/zero
conf fast >"$scratch/job.conf"
trace="$scratch/trace"
expect_status 65 timeout 30 "$WMRUN" --sim "$scratch/job.conf"
expect_line '^wmrun: /dev/zero:1: invalid line: longer than 65536 bytes$' "$scratch/err"
# The reader reads past a NUL, which must not end the line early.
printf '0,1000,1,1\000garbage\n' >"$trace"
rejects 1 'invalid line: NUL byte at column 11'

# JSON lines: one object, its fields integers but the key; a fraction
# is named with its text, the messages of jansson (which reads the JSON)
# name the column.
printf '{"partition":0,"timestamp":1.5,"key":1e9,"value":3}\n' >"$trace"
rejects 1 'invalid timestamp "1.5" \(a fraction: expected an integer\)'
printf '{"partition":0,"timestamp":1,"key":1e9,"value":3}\n' >"$trace"
rejects 1 'invalid key "1e\+09" \(not an integer; a string key is quoted in JSON\)'
printf '{"partition":0,"timestamp":1,"key":1,"value":3} trailing junk\n' >"$trace"
rejects 1 "invalid JSON: end of file expected near 'trailing' at column 56"
printf '{"partition":0,"timestamp":1,"key":1,"value":3,"key":2}\n' >"$trace"
rejects 1 "invalid JSON: duplicate object key near '\"key\"' at column 52"
printf '{"partition":0,"timestamp":1,"key":1,"value":3,"arival":2}\n' >"$trace"
rejects 1 'invalid field "arival" \(not partition, timestamp, key, value, arrival, punctuate, heartbeat or watermark\)'
printf '{"partition":0,"timestamp":1,"key":1,"value":3\n' >"$trace"
rejects 1 "invalid JSON: '}' expected near end of file at column 46"
printf '{"partition":0,"timestamp":1,"key":1}\n' >"$trace"
rejects 1 'invalid line: no value'
# Blanks around the tokens, any order, a CRLF line end: all fine.
printf '{ "value" : 3 , "partition":1,"timestamp":1000,\t"key":-7 }  \r\n' >"$trace"
replays 0 fast
expect_line '^  records read +1$' "$scratch/err"

# A due time past the 292 years int64_t nanoseconds count is refused: it
# overflowed, and saturated it would mean "never".
printf '0,1000,1,1,9223372036854775807\n' >"$trace"
rejects 1 'invalid arrival "9223372036854775807" \(beyond 292 years\)' arrival
printf '0,-9223372036854775808,1,1,1\n1,9223372036854775807,1,1,2\n' >"$trace"
rejects 2 'invalid timestamp "9223372036854775807" \(beyond 292 years after the first, -9223372036854775808: pacing = event would never release it\)' event
# Timestamps before the first are due at once, however far before.
printf '0,5000,1,1\n1,-9223372036854775807,1,1\n1,5100,1,1\n' >"$trace"
replays 0 event
expect_line '^  records read +3$' "$scratch/err"

# A byte order mark before the header, or before the first record.
printf '\357\273\277partition,timestamp,key,value\n0,1000,1,1\n' >"$trace"
replays 0 fast
expect_line '^  records read +1$' "$scratch/err"
printf '\357\273\2770,1000,1,1\n1,1000,1,1\n' >"$trace"
replays 0 fast
expect_line '^  records read +2$' "$scratch/err"

# The first line is the header only when it is exactly the columns' names,
# blanks around them allowed; anything else there is data, and refused
# when it is no record (it used to be skipped if it began "partition").
printf 'partition0,1000,1,1\n0,1100,1,1\n' >"$trace"
rejects 1 'invalid partition "partition0"'
printf 'partition,timestamp,key,valeu\n0,1000,1,1\n' >"$trace"
rejects 1 'invalid header "partition,timestamp,key,valeu" \(the columns are partition,timestamp,key,value\[,arrival\[,punctuate\[,heartbeat\[,watermark\]\]\]\], in that order\)'
printf '# recorded\ntimestamp,partition,key,value\n0,1000,1,1\n' >"$trace"
rejects 2 'invalid header "timestamp,partition,key,value" \(.*\)'
printf 'partition,timestamp,key,value,arrival,x\n' >"$trace"
rejects 1 'invalid header "partition,timestamp,key,value,arrival,x" \(.*\)'
printf 'partition , timestamp,key,\tvalue ,arrival\n0,1000,1,1,5\n' >"$trace"
replays 0 fast
expect_line '^  records read +1$' "$scratch/err"
# Keys: one type per trace, the first record's unless key_type says; a bad
# key is named with its column.
printf '0,1000,1,1\n0,1001,user48,1\n' >"$trace"
rejects 2:8 'invalid key "user48" \(not an integer, but the keys above are integers, as on line 1: key_type = string reads every key as a string\)'
printf '0,1000,user48,1\n0,1001,17,1\n' >"$trace"
rejects 2:8 'invalid key "17" \(an integer, but the keys above are strings, as on line 1: key_type = string reads every key as a string\)'
printf '0,1000,,1\n' >"$trace"
rejects 1:8 'invalid key "" \(empty: key_type = string reads it as the empty string\)'
printf '0,1000,a\tb,1\n' >"$trace"
rejects 1:8 'invalid key "a\\x09b" \(control character U\+0009\)'
# Bytes, not characters, in the patterns from here on: the message quotes
# the bad UTF-8 as it is.
LC_ALL=C
export LC_ALL
printf '0,1000,z\303,1\n' >"$trace"
rejects 1:8 'invalid key "z.*" \(not valid UTF-8\)'
{ printf '0,1000,'; head -c 257 /dev/zero | tr '\0' x; printf ',1\n'; } >"$trace"
rejects 1:8 'invalid key "x{40}\.\.\." \(longer than 256 bytes\)'
printf '{"partition":0,"timestamp":1,"key":"\\ud83d","value":1}\n' >"$trace"
rejects 1 "invalid JSON: invalid Unicode '\\\\uD83D' near '\"\\\\ud83d\"' at column 43"
printf '{"partition":0,"timestamp":1,"key":"a\\qb","value":1}\n' >"$trace"
rejects 1 "invalid JSON: invalid escape near '\"a\\\\q' at column 39"
printf '0,1000,"abc,1\n' >"$trace"
rejects 1 'invalid key ""abc,1" \(no closing quote\)'
printf '0,1000,"ab"c,1\n' >"$trace"
rejects 1 'invalid key ""ab"c,1" \(text after the closing quote\)'
# key_type = long says that an integer was expected; key_type = string
# reads integers as strings, and the empty key.
printf '0,1000,user48,1\n' >"$trace"
key_type=long
rejects 1:8 'invalid key "user48" \(key_type = long: expected a 64-bit integer\)'
printf '0,1000,17,1\n0,1001,user48,1\n0,1002,,1\n' >"$trace"
key_type=string
replays 0 fast
expect_line '^  records read +3$' "$scratch/err"
key_type=
# watermark = punctuated over a trace that marks no record would never
# emit a watermark: refused before the job (65); one marked record, or
# one that carries a watermark, is enough.
watermark=punctuated
printf '0,1000,1,1,0,0,0,\n1,1000,1,1,0\n' >"$trace"
replays 65 fast
expect_line "^wmrun: trace \"$trace\" marks no record \(no line has a punctuate column of 1 or a watermark\): source \"t\", whose watermark = punctuated, would never emit a watermark$" "$scratch/err"
printf '0,1000,1,1,0,0\n1,1000,1,1,0,1\n' >"$trace"
replays 0 fast
expect_line '^  every record accounted  yes$' "$scratch/err"
printf '0,1000,1,1,0,0,0,\n1,1000,1,1,0,0,0,900\n' >"$trace"
replays 0 fast
expect_line '^  every record accounted  yes$' "$scratch/err"
echo "ok"
