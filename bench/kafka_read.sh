#!/bin/sh
# kafka_read.sh -- how fast a topic of a real Kafka broker can be read:
# the yardstick for wmrun's Kafka source.
#
#   sh bench/kafka_read.sh [BUILD_DIR]      (default: ./_build)
#
# Produces RECORDS (default 2,000,000) small records, spread evenly over
# the 16 partitions of a new topic, with BUILD_DIR's kafka_tool (`make
# check`, or `make tests/tools/kafka_tool`, builds it), then times
# kcat reading them all from the beginning to the end of every partition
# (one client, librdkafka's consumer, its default fetch settings) and
# prints records per second, each figure the best of ROUNDS reads
# (default 3); then the same for wmrun reading the topic as a bounded
# Kafka source at parallelism 1 and 2, in rounds alternating with
# kcat's, and its rate as a multiple of kcat's (with librdkafka's
# default fetch size and with wmrun's, 10 MiB a partition). The broker is
# WM_KAFKA_BOOTSTRAP's, else one started for the run with
# tests/kafka/broker.sh (a JDK, Maven and the broker's jars
# from Maven Central or ~/.m2) and stopped at the end. That one runs with
# the JVM's full JIT, unlike the tests' brokers (which start faster with
# the first tier only): kcat read 2 M records in 1.4-2.8 s from it
# against 2.5-3.9 s from a first-tier broker, alternated on one machine.
#
# A record: key "k" and 0 to 63, value of 24 bytes, CreateTime going up by
# 1 ms a record within its partition. The figure is the reader's whole
# cost, broker included, on this machine: the broker, kcat and the
# producer share its cores, so compare only figures of one run.
set -eu
build=${1:-./_build}
records=${RECORDS:-2000000}
rounds=${ROUNDS:-3}
here=$(cd "$(dirname "$0")" && pwd)
tool=$build/tests/tools/kafka_tool

[ -x "$tool" ] || {
	echo "kafka_read: no $tool (make -C $build tests/tools/kafka_tool)" >&2
	exit 66
}
command -v kcat >/dev/null 2>&1 || {
	echo "kafka_read: no kcat (apt-get install kcat)" >&2
	exit 69
}
work=$(mktemp -d "${TMPDIR:-/tmp}/kafka_read.XXXXXX")
broker=${WM_KAFKA_BOOTSTRAP:-}
if [ -z "$broker" ]; then
	broker=$(KAFKA_CLASSPATH_CACHE="$build/kafka-broker.classpath" \
		BROKER_JAVA_OPTS="-XX:+UseSerialGC -Djava.awt.headless=true" \
		sh "$here/../tests/kafka/broker.sh" start "$work/broker" $$)
	trap 'sh "$here/../tests/kafka/broker.sh" stop "$work/broker"; rm -rf "$work"' EXIT
else
	trap 'rm -rf "$work"' EXIT
fi

now_ms() {
	echo $(($(date +%s%N) / 1000000))
}

topic=wm-bench-read-$$-$(date +%s%N)
"$tool" create-topic "$broker" "$topic" 16
began=$(now_ms)
awk -v n="$records" 'BEGIN {
	for (i = 0; i < n; i++)
		printf "%d,%d,k%d,%024d\n", i % 16, 1000 + int(i / 16), i % 64, i
}' | "$tool" produce "$broker" "$topic"
produce_ms=$(($(now_ms) - began))
high=$("$tool" end-offsets "$broker" "$topic" | awk -F, '{ n += $3 - $2 } END { print n }')
[ "$high" -eq "$records" ] || {
	echo "kafka_read: the topic holds $high records, not $records" >&2
	exit 70
}

# wmrun's read: the topic as a bounded Kafka source of PARALLELISM
# subtasks (one consumer each) into a count per key and minute, results
# discarded: the whole command timed, as kcat's is, start-up, probe and
# connections included.
cat >"$work/job.conf" <<EOF
[job]
name = kafka-read
[source s]
parallelism = PARALLELISM
kafka.bootstrap_servers = $broker
kafka.topic = $topic
kafka.starting_offsets = earliest
kafka.stopping_offsets = latest
[window w]
input = s
parallelism = 1
size = 1 min
[sink o]
input = w
path = /dev/null
EOF
wmrun_read() {
	sed "s/PARALLELISM/$1/" "$work/job.conf" >"$work/p$1.conf"
	"$build/wmrun" --quiet "$work/p$1.conf" 2>"$work/wmrun.err" || {
		cat "$work/wmrun.err" >&2
		echo "kafka_read: wmrun failed" >&2
		exit 70
	}
	got=$(sed -n 's/^  records read  *\([0-9]*\)$/\1/p' "$work/wmrun.err")
	[ "$got" = "$records" ] || {
		echo "kafka_read: wmrun read $got records, not $records" >&2
		exit 70
	}
}

# Rounds alternate the readers, so that the machine's moods fall on each.
best=0 best_big=0 best1=0 best2=0
for round in $(seq "$rounds"); do
	began=$(now_ms)
	read=$(kcat -C -b "$broker" -t "$topic" -o beginning -e -q | wc -l)
	ms=$(($(now_ms) - began))
	[ "$read" -eq "$records" ] || {
		echo "kafka_read: kcat read $read records, not $records" >&2
		exit 70
	}
	echo "kafka_read: round $round: kcat read $read records in $ms ms" >&2
	[ "$best" -ne 0 ] && [ "$ms" -ge "$best" ] || best=$ms
	# kcat again with wmrun's fetch size (kafka_source.c's default).
	began=$(now_ms)
	read=$(kcat -C -b "$broker" -t "$topic" -o beginning -e -q \
		-X max.partition.fetch.bytes=10485760 | wc -l)
	ms=$(($(now_ms) - began))
	[ "$read" -eq "$records" ] || {
		echo "kafka_read: kcat read $read records, not $records" >&2
		exit 70
	}
	echo "kafka_read: round $round: kcat (10 MiB fetches) read $read records in $ms ms" >&2
	[ "$best_big" -ne 0 ] && [ "$ms" -ge "$best_big" ] || best_big=$ms
	for p in 1 2; do
		began=$(now_ms)
		wmrun_read $p
		ms=$(($(now_ms) - began))
		echo "kafka_read: round $round: wmrun (parallelism $p) read $records records in $ms ms" >&2
		eval "b=\$best$p"
		[ "$b" -ne 0 ] && [ "$ms" -ge "$b" ] || eval "best$p=$ms"
	done
done
[ "$best" -gt 0 ] || best=1
[ "$produce_ms" -gt 0 ] || produce_ms=1
echo "kafka_read kcat records=$records partitions=16" \
	"records_per_s=$((records * 1000 / best)) best_ms=$best" \
	"produce_records_per_s=$((records * 1000 / produce_ms))"
[ "$best_big" -gt 0 ] || best_big=1
echo "kafka_read kcat max.partition.fetch.bytes=10485760 records=$records" \
	"records_per_s=$((records * 1000 / best_big)) best_ms=$best_big"
for p in 1 2; do
	eval "b=\$best$p"
	[ "$b" -gt 0 ] || b=1
	echo "kafka_read wmrun parallelism=$p records=$records" \
		"records_per_s=$((records * 1000 / b)) best_ms=$b" \
		"of_kcat=$(awk -v k="$best" -v w="$b" 'BEGIN { printf "%.2f", k / w }')" \
		"of_kcat_10MiB=$(awk -v k="$best_big" -v w="$b" 'BEGIN { printf "%.2f", k / w }')"
done
