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

# conf OUT: the topology, its results in OUT.
conf() {
	cat <<CONF
[job]
name = kafka-json-paths
[source events]
parallelism = 1
key_type = long
kafka.bootstrap_servers = $KAFKA
kafka.topic = $topic
kafka.starting_offsets = earliest
kafka.stopping_offsets = latest
kafka.value_format = json
kafka.value_fields = timestamp = \$.payload.ts, key, value = \$['payload'].v
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

conf flink.out >"$scratch/flink.conf"
expect_status 0 "$WMRUN" --export-flink "$scratch/project" "$scratch/flink.conf"
job="$scratch/project/src/main/java/wmrun/flink/Job.java"
grep -q 'new String\[\]\[\] {{"payload", "ts"}, null, {"payload", "v"}}' "$job" ||
	fail "the exported job does not pass the fields' paths"
flink_classpath
flink_run_jobs "$scratch/flink.log" "$scratch/project"
results "$scratch/project/flink.out" >"$scratch/flink.windows"
diff -u "$scratch/wmrun.windows" "$scratch/flink.windows" ||
	fail "Flink's windows over the JSON topic differ from wmrun's"
echo "Flink agrees over 300 JSON values at paths, 50 bad ones skipped: $(wc -l <"$scratch/flink.windows") windows"
exit 0
