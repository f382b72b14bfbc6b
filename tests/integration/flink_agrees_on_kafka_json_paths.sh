#!/bin/sh
# JSON values of a real Kafka topic, read by wmrun and by the exported
# Flink job (KafkaRecords, through Flink's shaded Jackson), give the same
# records: the timestamp and the value nested at paths
# (kafka.value_fields = timestamp = $.payload.ts, key, value =
# $['payload'].v), every other member read past whatever it holds (arrays,
# objects, decimals, escapes, nulls), integral reals (1767225600100.0,
# 3.0e0) read as their integers. Bad records are skipped by both
# (on_bad_record = skip): a fraction, a string where an integer is read, a
# name given twice at the top or nested, an integer beyond 64 bits in a
# member nobody reads, a string key where keys are long, a real beyond
# 2^53, a payload that is no object, a boolean value, text after the
# object. One partition read by one subtask, so the order is the topic's.
# A second topic's string keys: control characters and a key over 256
# bytes are refused by both, a comma, quotes and a non-ASCII letter kept.
#
# 300 records, 50 of them bad (5 of each of 10 kinds): both count 250 in
# 2 s windows with the same sums. The Flink reader of before (a flat
# subset reading names at the top level only) found no $.payload.ts and
# would skip every record; one that accepted a bad kind would count it.
# Skipped (77) as kafka_lib.sh's kafka_require and flink_lib.sh's
# flink_require say.
. "$srcdir/tests/lib/lib.sh"
. "$srcdir/tests/lib/kafka_lib.sh"
. "$srcdir/tests/lib/flink_lib.sh"
kafka_require
flink_require
kafka_broker

t0=1767225600000
topic=$(kafka_topic json)
kafka_create_topic "$topic" 1
# Lines "partition,timestamp,key,value" for kafka_produce: the Kafka
# record's own timestamp and key are not read (kafka.timestamp = value,
# kafka.key = value).
awk -v t0=$t0 'BEGIN {
	for (i = 0; i < 300; i++) {
		t = sprintf("%.0f", t0 + 100 + i * 100)
		k = i % 4
		v = 1 + i % 7
		f = i % 6
		if (f == 0)
			j = sprintf("{\"payload\":{\"ts\":%s,\"v\":%d,\"tags\":[\"a\",{\"x\":1.5}]},\"key\":%d,\"score\":0.25}", t, v, k)
		else if (f == 1)
			j = sprintf("{\"meta\":{\"src\":\"web\",\"ts\":2.5},\"key\":%d,\"payload\":{\"v\":%d,\"ts\":%s.0}}", k, v, t)
		else if (f == 2)
			j = sprintf("{\"key\":%d,\"payload\":{\"ts\":%s,\"v\":%d.0e0},\"big\":1e300,\"small\":-2.5e-300}", k, t, v)
		else if (f == 3)
			j = sprintf("{\"payload\":{\"ts\":%s,\"v\":%d},\"key\":%d,\"note\":\"caf\\u00e9 \\\"q\\\" \\ud83d\\ude00\"}", t, v, k)
		else if (f == 5)
			j = sprintf(" { \"payload\" : { \"ts\" : %s , \"v\" : %d } , \"key\" : %d , \"n\" : null , \"a\" : [ ] , \"o\" : { } } ", t, v, k)
		else {
			b = int(i / 6) % 10
			if (b == 0)
				j = sprintf("{\"payload\":{\"ts\":%s.5,\"v\":%d},\"key\":%d}", t, v, k)
			else if (b == 1)
				j = sprintf("{\"payload\":{\"ts\":\"%s\",\"v\":%d},\"key\":%d}", t, v, k)
			else if (b == 2)
				j = sprintf("{\"payload\":{\"ts\":%s,\"v\":%d},\"key\":%d,\"key\":%d}", t, v, k, k)
			else if (b == 3)
				j = sprintf("{\"payload\":{\"ts\":%s,\"ts\":%s,\"v\":%d},\"key\":%d}", t, t, v, k)
			else if (b == 4)
				j = sprintf("{\"payload\":{\"ts\":%s,\"v\":%d},\"key\":%d,\"id\":123456789012345678901234}", t, v, k)
			else if (b == 5)
				j = sprintf("{\"payload\":{\"ts\":%s,\"v\":%d},\"key\":\"%d\"}", t, v, k)
			else if (b == 6)
				j = sprintf("{\"payload\":{\"ts\":1.0e17,\"v\":%d},\"key\":%d}", v, k)
			else if (b == 7)
				j = sprintf("{\"payload\":[%s,%d],\"key\":%d}", t, v, k)
			else if (b == 8)
				j = sprintf("{\"payload\":{\"ts\":%s,\"v\":true},\"key\":%d}", t, k)
			else
				j = sprintf("{\"payload\":{\"ts\":%s,\"v\":%d},\"key\":%d} x", t, v, k)
		}
		printf "0,%s,0,%s\n", t, j
	}
}' >"$scratch/topic.lines"
kafka_produce "$topic" <"$scratch/topic.lines"

# String keys in the values of a second topic: 60 records over the keys
# "a", "é", "x,\"y\"" (a comma and quotes, which CSV quotes), and 20
# bad ones that wmrun refuses as keys and Flink would take as Strings:
# U+0001, U+001F, U+007F and U+0085 (control characters), and a key of
# 257 bytes (past runtime/io/keys.h's 256).
strings=$(kafka_topic strings)
kafka_create_topic "$strings" 1
awk -v t0=$t0 'BEGIN {
	long = sprintf("%257s", ""); gsub(/ /, "k", long)
	split("a|\\u00e9|x,\\\"y\\\"", good, "|")
	split("p\\u0001q|\\u001f|\\u007f|\\u0085x|" long, bad, "|")
	for (i = 0; i < 80; i++) {
		t = sprintf("%.0f", t0 + 100 + i * 100)
		k = i % 4 == 3 ? bad[1 + int(i / 4) % 5] : good[1 + i % 3]
		printf "0,%s,0,{\"timestamp\":%s,\"key\":\"%s\",\"value\":%d}\n", t, t, k, 1 + i % 7
	}
}' >"$scratch/strings.lines"
kafka_produce "$strings" <"$scratch/strings.lines"

# conf OUT [TOPIC KEY_TYPE FIELDS]: the topology, its results in OUT.
conf() {
	cat <<CONF
[job]
name = kafka-json-paths
[source events]
parallelism = 1
key_type = ${3:-long}
kafka.bootstrap_servers = $KAFKA
kafka.topic = ${2:-$topic}
kafka.starting_offsets = earliest
kafka.stopping_offsets = latest
kafka.value_format = json
kafka.value_fields = ${4:-timestamp = \$.payload.ts, key, value = \$['payload'].v}
kafka.timestamp = value
kafka.key = value
on_bad_record = skip
[window counts]
input = events
parallelism = 1
size = 2 s
aggregates = count, sum
[sink out]
input = counts
path = $1
CONF
}

conf "$scratch/wmrun.out" >"$scratch/wmrun.conf"
expect_status 0 timeout 300 "$WMRUN" "$scratch/wmrun.conf"
expect_line '^  records read  *250$' "$scratch/err"
# Every record in time: the windows count the 250 good ones, and sum
# their values.
want=$(awk -F, '{ i = NR - 1; if (i % 6 != 4) { n++; s += 1 + i % 7 } }
	END { print n, s }' "$scratch/topic.lines")
got=$(tail -n +2 "$scratch/wmrun.out" | awk -F, '{ n += $4; s += $5 } END { print n, s }')
[ "$got" = "$want" ] ||
	fail "wmrun's windows hold $got (count, sum), expected $want"
results "$scratch/wmrun.out" >"$scratch/wmrun.windows"

strconf() { conf "$1" "$strings" string "timestamp, key, value"; }
strconf "$scratch/strings.out" >"$scratch/strings.conf"
expect_status 0 timeout 300 "$WMRUN" "$scratch/strings.conf"
expect_line '^  records read  *60$' "$scratch/err"
expect_line 'partition 0 offset 3: invalid key "p.x01q" \(control character U\+0001\): skipped' "$scratch/err"
results "$scratch/strings.out" >"$scratch/strings.windows"
# The three good keys, each in the results.
for k in '^a,' '^é,' '^"x,""y""",'; do
	grep -q "$k" "$scratch/strings.windows" || fail "no window of the key $k in wmrun's results"
done

conf flink.out >"$scratch/flink.conf"
expect_status 0 "$WMRUN" --export-flink "$scratch/project" "$scratch/flink.conf"
strconf flink.out >"$scratch/strings-flink.conf"
expect_status 0 "$WMRUN" --export-flink "$scratch/strings-project" "$scratch/strings-flink.conf"
job="$scratch/project/src/main/java/wmrun/flink/Job.java"
grep -q 'new String\[\]\[\] {{"payload", "ts"}, null, {"payload", "v"}}' "$job" ||
	fail "the exported job does not pass the fields' paths"
flink_classpath
flink_run_jobs "$scratch/flink.log" "$scratch/project" "$scratch/strings-project"
results "$scratch/project/flink.out" >"$scratch/flink.windows"
diff -u "$scratch/wmrun.windows" "$scratch/flink.windows" ||
	fail "Flink's windows over the JSON topic differ from wmrun's"
# Before KafkaRecords checked string keys as wmrun does, Flink counted
# the 20 bad keys in windows of their own.
results "$scratch/strings-project/flink.out" >"$scratch/strings-flink.windows"
diff -u "$scratch/strings.windows" "$scratch/strings-flink.windows" ||
	fail "Flink's windows over string keys differ from wmrun's"
echo "Flink agrees over 300 JSON values at paths, 50 bad ones skipped: $(wc -l <"$scratch/flink.windows") windows;" \
	"over 80 string keys, 20 refused: $(wc -l <"$scratch/strings-flink.windows") windows"
exit 0
