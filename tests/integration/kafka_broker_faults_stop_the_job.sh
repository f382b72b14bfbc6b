#!/bin/sh
# What a Kafka source's outside world does to a job, on a real broker:
#   - brokers that do not answer stop the job before anything starts, with
#     EX_UNAVAILABLE (69) naming them, after kafka.broker_timeout (those
#     that refuse the connection are asked again until then); --check
#     says the topic could not be checked and checks the rest;
#   - a topic that does not exist, or a login the broker refuses, stops
#     it with EX_CONFIG (78);
#   - a broker that goes away while the job reads stops it after
#     kafka.broker_timeout with 69, the summary saying why and accounting
#     for every record read until then; so does a broker frozen (SIGSTOP)
#     with its connections open, which fails no connection;
#   - a topic deleted while the job reads it stops the job with
#     EX_NOINPUT (66) naming it, every record read accounted for, although
#     librdkafka's consumer says nothing and its destroy never returns.
# (That the source resumes when brokers come back, nothing read twice,
# is tested against librdkafka's mock cluster: check_kafka_source.)
# Skipped (77) as kafka_lib.sh's kafka_require says.
. "$srcdir/tests/lib/lib.sh"
. "$srcdir/tests/lib/kafka_lib.sh"
kafka_require

# job BROKERS TOPIC [LINES...]: a job reading TOPIC from BROKERS.
job() {
	brokers=$1 topic=$2
	shift 2
	{
		printf '[job]\nname = kafka-faults\n'
		printf '[source s]\nparallelism = 2\n'
		printf 'kafka.bootstrap_servers = %s\nkafka.topic = %s\n' "$brokers" "$topic"
		printf 'kafka.broker_timeout = 3 s\n'
		for l in "$@"; do echo "$l"; done
		printf '[window w]\ninput = s\nparallelism = 1\nsize = 1 min\n'
		printf '[sink o]\ninput = w\npath = %s/out.csv\n' "$scratch"
	} >"$scratch/job.conf"
}

# Nothing listens on port 1 of loopback.
job 127.0.0.1:1 nothing
expect_status 69 "$WMRUN" "$scratch/job.conf"
expect_line '^wmrun: source "s": kafka: no broker of 127\.0\.0\.1:1 reachable' "$scratch/err"
# --check checks what it can: the brokers it cannot reach in 3 s leave
# the topic unchecked, said in one line naming librdkafka's last error,
# and the rest of the topology is checked (exit 0).
expect_status 0 "$WMRUN" --check "$scratch/job.conf"
expect_line '^wmrun: --check: source "s": kafka: no broker of 127\.0\.0\.1:1 reachable in 3 s \(.*; last: .*Connection refused.*\): topic "nothing", its partitions and their subtasks not checked$' "$scratch/err"
! grep -q 'FAIL' "$scratch/err" || fail "librdkafka's own lines reached --check's output"
expect_line '^job "kafka-faults": ' "$scratch/out"

# This test's own broker, which it kills.
kafka_own_broker "$scratch/own-broker"
dir=$kafka_dir

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

# ended PID: the job PID is over (gone, or a zombie not waited for yet).
ended() {
	! kill -0 "$1" 2>/dev/null ||
		[ "$(awk '{ print $3 }' "/proc/$1/stat" 2>/dev/null)" = Z ]
}

# reading TOPIC: a job reading TOPIC's 400 records in the background, $run,
# once it has written results.
reading() {
	kafka_create_topic "$1" 4
	awk 'BEGIN { for (i = 0; i < 400; i++) printf "%d,%d,k%d,1\n", i % 4, 1000 + i * 1000, i % 3 }' |
		kafka_produce "$1"
	job "$KAFKA" "$1" "kafka.starting_offsets = earliest" "out_of_orderness = 1 s"
	rm -f "$scratch/out.csv"
	"$WMRUN" "$scratch/job.conf" >"$scratch/out" 2>"$scratch/err" &
	run=$!
	trap 'kill -KILL $run 2>/dev/null; kill -CONT $(cat "$dir/pid") 2>/dev/null
		sh "$srcdir/tests/kafka/broker.sh" stop "$dir"; rm -rf "$scratch"' EXIT
	await "results" has_results "$scratch/out.csv"
}

# stopped_with STATUS WHAT: the job $run ended with STATUS, its summary
# accounting for all 400 records.
stopped_with() {
	status=0
	wait $run || status=$?
	[ "$status" -eq "$1" ] || {
		cat "$scratch/err" >&2
		fail "exit status $status after $2, expected $1"
	}
	expect_line '^  records read  *400$' "$scratch/err"
	expect_line '^  every record accounted  yes$' "$scratch/err"
}

topic=$(kafka_topic deleted)
reading "$topic"
kafka_tool delete-topic "$topic" || fail "cannot delete topic $topic"
await "the job's end after its topic was deleted" ended $run
stopped_with 66 "the topic was deleted"
expect_line "kafka: topic \"$topic\" was deleted while the job read it" "$scratch/err"

# Frozen: every connection stays open, nothing answers. The job must end
# without the broker's help; it is thawed after.
reading "$(kafka_topic frozen)"
kill -STOP "$(cat "$dir/pid")"
await "the job's end while the broker is frozen" ended $run
kill -CONT "$(cat "$dir/pid")"
stopped_with 69 "the broker froze"
expect_line 'kafka: no broker of .* answered for 3 s' "$scratch/err"

reading "$(kafka_topic lost)"
sh "$srcdir/tests/kafka/broker.sh" stop "$dir"
trap 'kill -KILL $run 2>/dev/null; rm -rf "$scratch"' EXIT
stopped_with 69 "the broker went away"
expect_line 'kafka: no broker of .* reachable for 3 s' "$scratch/err"
