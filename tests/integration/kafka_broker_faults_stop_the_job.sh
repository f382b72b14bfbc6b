#!/bin/sh
# What a Kafka source's outside world does to a job, on a real broker:
#   - brokers that do not answer stop the job before anything starts, with
#     EX_UNAVAILABLE (69) naming them, within kafka.broker_timeout;
#   - a topic that does not exist, or a login the broker refuses, stops
#     it with EX_CONFIG (78);
#   - a broker that goes away while the job reads stops it after
#     kafka.broker_timeout with 69, the summary saying why and accounting
#     for every record read until then.
# (That the source resumes when brokers come back, nothing read twice,
# is tested against librdkafka's mock cluster: check_kafka_source.)
# Skipped (77) as kafka_lib.sh's kafka_require says.
. "$srcdir/tests/integration/lib.sh"
. "$srcdir/tests/integration/kafka_lib.sh"
kafka_require

# job BROKERS TOPIC [LINES...]: a job reading TOPIC from BROKERS.
job() {
	brokers=$1 topic=$2
	shift 2
	{
		printf '[job]\nname = kafka-faults\n'
		printf '[source s]\nparallelism = 2\n'
		printf 'kafka.bootstrap_servers = %s\nkafka.topic = %s\n' "$brokers" "$topic"
		printf 'kafka.broker_timeout = 2 s\n'
		for l in "$@"; do echo "$l"; done
		printf '[window w]\ninput = s\nparallelism = 1\nsize = 1 min\n'
		printf '[sink o]\ninput = w\npath = %s/out.csv\n' "$scratch"
	} >"$scratch/job.conf"
}

# Nothing listens on port 1 of loopback.
job 127.0.0.1:1 nothing
expect_status 69 "$WMRUN" "$scratch/job.conf"
expect_line '^wmrun: source "s": kafka: no broker of 127\.0\.0\.1:1 reachable' "$scratch/err"
expect_status 69 "$WMRUN" --check "$scratch/job.conf"

# This test's own broker, which it kills.
dir=$scratch/own-broker
KAFKA=$(KAFKA_CLASSPATH_CACHE="$PWD/kafka-broker.classpath" \
	sh "$srcdir/tests/kafka/broker.sh" start "$dir" $$ 2>"$scratch/kafka-start")
case $? in
0) ;;
69)
	cat "$scratch/kafka-start"
	echo "SKIP: no Kafka broker can be had (broker.sh above says why)"
	exit 77
	;;
*)
	cat "$scratch/kafka-start" >&2
	fail "the Kafka broker did not start"
	;;
esac
trap 'sh "$srcdir/tests/kafka/broker.sh" stop "$dir"; rm -rf "$scratch"' EXIT

job "$KAFKA" no-such-topic
expect_status 78 "$WMRUN" "$scratch/job.conf"
expect_line '^wmrun: source "s": kafka: topic "no-such-topic" does not exist on ' "$scratch/err"

# A login the broker cannot take (its listener has no SASL) is final: 78
# at once, not a wait for brokers.
job "$KAFKA" no-such-topic "kafka.security.protocol = SASL_PLAINTEXT" \
	"kafka.sasl.mechanism = PLAIN" "kafka.sasl.username = u" \
	"kafka.sasl.password = p"
expect_status 78 "$WMRUN" "$scratch/job.conf"
expect_line '^wmrun: source "s": kafka: authentication with .* failed: ' "$scratch/err"

topic=$(kafka_topic lost)
kafka_create_topic "$topic" 4
awk 'BEGIN { for (i = 0; i < 400; i++) printf "%d,%d,k%d,1\n", i % 4, 1000 + i * 1000, i % 3 }' |
	kafka_produce "$topic"
job "$KAFKA" "$topic" "kafka.starting_offsets = earliest" "out_of_orderness = 1 s"
"$WMRUN" "$scratch/job.conf" >"$scratch/out" 2>"$scratch/err" &
run=$!
await "results" has_results "$scratch/out.csv"
sh "$srcdir/tests/kafka/broker.sh" stop "$dir"
trap 'rm -rf "$scratch"' EXIT
status=0
wait $run || status=$?
[ "$status" -eq 69 ] || {
	cat "$scratch/err" >&2
	fail "exit status $status after the broker went away, expected 69"
}
expect_line 'kafka: no broker of .* reachable for 2 s' "$scratch/err"
expect_line '^  records read  *400$' "$scratch/err"
expect_line '^  every record accounted  yes$' "$scratch/err"
