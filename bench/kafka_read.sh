#!/bin/sh
# kafka_read.sh -- how fast a topic of a real Kafka broker can be read:
# the yardstick for wmrun's Kafka source.
#
#   sh bench/kafka_read.sh [BUILD_DIR [OLD_WMRUN]]   (default: ./_build)
#
# Produces RECORDS (default 2,000,000) small records, spread evenly over
# the 16 partitions of a new topic, with BUILD_DIR's kafka_tool (`make
# check`, or `make tests/tools/kafka_tool`, builds it), then reads them
# all, from the beginning to the end of every partition, ROUNDS times
# (default 3) with each reader in turn, so that the machine's moods fall
# on each: kcat (one client, librdkafka's consumer) with its default
# fetch settings, with wmrun's 10 MiB a partition, and with wmrun's
# fetch settings all (kafka_client.c: 10 MiB a partition and
# queued.min.messages at its most), which is as fast as librdkafka
# reads here, the ceiling kcat shows; then wmrun reading the topic as a
# bounded Kafka source at parallelism 1 and 2, and OLD_WMRUN (another
# build's binary, kept aside) the same way when given. It prints each
# reader's median in records per second, with the range of its rounds,
# and wmrun's medians as a multiple of kcat's and of OLD_WMRUN's. The
# broker is WM_KAFKA_BOOTSTRAP's, else one started for the run with
# tests/kafka/broker.sh (a JDK, Maven and the broker's jars
# from Maven Central or ~/.m2) and stopped at the end. That one runs with
# the JVM's full JIT, unlike the tests' brokers (which start faster with
# the first tier only): kcat read 2 M records in 1.4-2.8 s from it
# against 2.5-3.9 s from a first-tier broker, alternated on one machine.
#
# A record: key "k" and 0 to 63, value of 24 bytes, CreateTime going up by
# 1 ms a record within its partition. The figure is the reader's whole
# cost, broker included, on this machine: the broker, kcat and the
# producer share its cores, so compare only figures of one run, and say
# the load (printed at the start and the end).
set -eu
build=${1:-./_build}
old=${2:-}
records=${RECORDS:-2000000}
rounds=${ROUNDS:-3}
here=$(cd "$(dirname "$0")" && pwd)
tool=$build/tests/tools/kafka_tool

[ -z "$old" ] || [ -x "$old" ] || {
	echo "kafka_read: no $old to compare with" >&2
	exit 66
}
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
	# The topic is the broker's, not ours to keep.
	trap '[ -z "${topic:-}" ] ||
		"$tool" delete-topic "$broker" "$topic" >/dev/null 2>&1
	rm -rf "$work"' EXIT
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
# wmrun_read BINARY PARALLELISM: the topic read whole by BINARY.
wmrun_read() {
	sed "s/PARALLELISM/$2/" "$work/job.conf" >"$work/p$2.conf"
	"$1" --quiet "$work/p$2.conf" 2>"$work/wmrun.err" || {
		cat "$work/wmrun.err" >&2
		echo "kafka_read: $1 failed" >&2
		exit 70
	}
	got=$(sed -n 's/^  records read  *\([0-9]*\)$/\1/p' "$work/wmrun.err")
	[ "$got" = "$records" ] || {
		echo "kafka_read: $1 read $got records, not $records" >&2
		exit 70
	}
}

# kcat_read [-X PROPERTY=VALUE ...]: the topic read whole by kcat.
kcat_read() {
	read=$(kcat -C -b "$broker" -t "$topic" -o beginning -e -q "$@" | wc -l)
	[ "$read" -eq "$records" ] || {
		echo "kafka_read: kcat read $read records, not $records" >&2
		exit 70
	}
}

# timed LABEL COMMAND...: COMMAND's wall time in ms, appended to
# $work/LABEL.ms and said.
timed() {
	label=$1
	shift
	began=$(now_ms)
	"$@"
	ms=$(($(now_ms) - began))
	[ "$ms" -gt 0 ] || ms=1
	echo "$ms" >>"$work/$label.ms"
	echo "kafka_read: round $round: $label read $records records in $ms ms" >&2
}

# median LABEL: the median of LABEL's rounds, in ms.
median() {
	sort -n "$work/$1.ms" | awk '{ v[NR] = $1 }
		END { print (NR % 2) ? v[(NR + 1) / 2] : int((v[NR / 2] + v[NR / 2 + 1]) / 2) }'
}

# range LABEL: the fastest and slowest of LABEL's rounds, "a-b" ms.
range() {
	sort -n "$work/$1.ms" | awk 'NR == 1 { a = $1 } { b = $1 } END { print a "-" b }'
}

echo "kafka_read: load at the start: $(uptime | sed 's/.*load average: //')" >&2
readers="kcat kcat_10MiB kcat_wmrun_fetch wmrun_p1 wmrun_p2"
[ -z "$old" ] || readers="$readers old_p1 old_p2"
for round in $(seq "$rounds"); do
	timed kcat kcat_read
	timed kcat_10MiB kcat_read -X max.partition.fetch.bytes=10485760
	timed kcat_wmrun_fetch kcat_read -X max.partition.fetch.bytes=10485760 \
		-X queued.min.messages=10000000
	for p in 1 2; do
		timed "wmrun_p$p" wmrun_read "$build/wmrun" "$p"
		[ -z "$old" ] || timed "old_p$p" wmrun_read "$old" "$p"
	done
done
load=$(uptime | sed 's/.*load average: //')
echo "kafka_read: load at the end: $load" >&2
[ "$produce_ms" -gt 0 ] || produce_ms=1
echo "kafka_read records=$records partitions=16 rounds=$rounds" \
	"produce_records_per_s=$((records * 1000 / produce_ms)) load=\"$load\""
kcat_ms=$(median kcat_wmrun_fetch)
for r in $readers; do
	ms=$(median "$r")
	line="kafka_read $r records_per_s=$((records * 1000 / ms)) median_ms=$ms range_ms=$(range "$r")"
	case $r in
	wmrun_p* | old_p*)
		line="$line of_kcat=$(awk -v k="$kcat_ms" -v w="$ms" 'BEGIN { printf "%.2f", k / w }')"
		;;
	esac
	case $r in
	wmrun_p*)
		[ -z "$old" ] ||
			line="$line of_old=$(awk -v o="$(median "old_${r#wmrun_}")" -v w="$ms" 'BEGIN { printf "%.2f", o / w }')"
		;;
	esac
	echo "$line"
done
