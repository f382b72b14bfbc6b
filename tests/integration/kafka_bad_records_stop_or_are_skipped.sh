#!/bin/sh
# A Kafka record that cannot be read as the source says (a JSON value
# whose timestamp is not a number) follows on_bad_record, as a replayed
# trace's bad line does: by default the job stops with 65 naming topic,
# partition and offset; with skip it is reported, counted and skipped, and
# every other record is read. Fields nested in the value are read at
# their paths (kafka.value_fields = timestamp = $.payload.ts), the rest of
# the value passed, and a fraction there is a bad record like the others.
# Skipped (77) as kafka_lib.sh's kafka_require says.
. "$srcdir/tests/lib/lib.sh"
. "$srcdir/tests/lib/kafka_lib.sh"
kafka_require
kafka_broker

topic=$(kafka_topic bad)
kafka_create_topic "$topic" 2
# Values are JSON with the event time inside; the fourth record of
# partition 1 (offset 3) has a timestamp that is not a number.
awk 'BEGIN {
	for (i = 0; i < 10; i++)
		for (p = 0; p < 2; p++) {
			ts = p == 1 && i == 3 ? "\"soon\"" : 1000 + i * 1000
			printf "%d,%d,k%d,{\"timestamp\":%s,\"value\":%d}\n", p, 5, i % 3, ts, i
		}
}' | kafka_produce "$topic"

# job [LINES...] (FIELDS and TOPIC may be set)
job() {
	{
		printf '[job]\nname = kafka-bad\n'
		printf '[source s]\nparallelism = 1\n'
		printf 'kafka.bootstrap_servers = %s\nkafka.topic = %s\n' "$KAFKA" "${TOPIC:-$topic}"
		printf 'kafka.starting_offsets = earliest\nkafka.stopping_offsets = latest\n'
		printf 'kafka.value_format = json\nkafka.value_fields = %s\n' "${FIELDS:-timestamp, value}"
		printf 'kafka.timestamp = value\n'
		for l in "$@"; do echo "$l"; done
		printf '[window w]\ninput = s\nparallelism = 1\nsize = 1 min\naggregates = count, sum\n'
		printf '[sink o]\ninput = w\npath = %s/out.csv\n' "$scratch"
	} >"$scratch/job.conf"
}

job
expect_status 65 "$WMRUN" "$scratch/job.conf"
expect_line "kafka: topic \"$topic\" partition 1 offset 3: .*soon" "$scratch/err"

job "on_bad_record = skip"
expect_status 0 "$WMRUN" "$scratch/job.conf"
expect_line "kafka: topic \"$topic\" partition 1 offset 3: .*soon" "$scratch/err"
expect_line '^  records read  *19$' "$scratch/err"
expect_line '^  every record accounted  yes$' "$scratch/err"
# Three keys' counts in one window: 19 records, the bad one's value (3)
# missing from the sum of 2 x (0 + ... + 9).
[ "$(tail -n +2 "$scratch/out.csv" | awk -F, '{ n += $4; s += $5 } END { print n, s }')" = "19 87" ] ||
	fail "the windows hold $(tail -n +2 "$scratch/out.csv" | awk -F, '{ n += $4; s += $5 } END { print n, s }'), expected 19 records summing to 87"

# The same records nested in values that carry more; the fourth record of
# partition 1 has a timestamp with a fraction.
nested=$(kafka_topic nested)
kafka_create_topic "$nested" 2
awk 'BEGIN {
	for (i = 0; i < 10; i++)
		for (p = 0; p < 2; p++) {
			ts = 1000 + i * 1000 (p == 1 && i == 3 ? ".5" : "")
			printf "%d,%d,k%d,{\"meta\":{\"rate\":1.5,\"tags\":[\"a\"]},\"payload\":{\"ts\":%s,\"v\":%d},\"ok\":true}\n", p, 5, i % 3, ts, i
		}
}' | kafka_produce "$nested"
TOPIC=$nested
FIELDS="timestamp = \$.payload.ts, value = \$['payload'].v"
job "on_bad_record = skip"
expect_status 0 "$WMRUN" "$scratch/job.conf"
expect_line "kafka: topic \"$nested\" partition 1 offset 3: .*invalid timestamp \"4000.5\" \(a fraction: expected an integer\)" "$scratch/err"
expect_line '^  records read  *19$' "$scratch/err"
[ "$(tail -n +2 "$scratch/out.csv" | awk -F, '{ n += $4; s += $5 } END { print n, s }')" = "19 87" ] ||
	fail "the windows of nested values hold $(tail -n +2 "$scratch/out.csv" | awk -F, '{ n += $4; s += $5 } END { print n, s }'), expected 19 records summing to 87"
