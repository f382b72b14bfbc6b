# kafka_lib.sh -- a real Apache Kafka broker for a test (sourced after lib.sh).
#
# kafka_require skips (77) a test that needs a real broker where it cannot
# or should not run: the sanitizer build and `make distcheck` leave it to
# the plain build (as flink_require does: CI runs the suite more than
# once), and a machine without java, mvn or kcat has no broker to start.
#
# kafka_broker sets $KAFKA, the bootstrap address of a broker: the one
# `sh quickstart.sh test` started for the whole suite (WM_KAFKA_BOOTSTRAP),
# else one of the test's own in its scratch directory, started with
# tests/kafka/broker.sh (5-10 s on a loaded 2-core machine) and stopped
# when the test ends. Tests run in parallel against a shared broker: each
# works on topics of its own, named by kafka_topic, and changes nothing
# else of the broker's.
#
# kafka_tool (tests/tools/kafka_tool.c) creates topics, adds
# partitions, produces records to chosen partitions with chosen
# timestamps and reads end offsets; kafka_read reads a topic back with
# kcat, a client that is neither wmrun nor ours.

: "${KAFKA_TOOL:=./tests/tools/kafka_tool}"

kafka_require() {
	require_real "the real Kafka broker" "default-jdk-headless maven kcat" \
		java mvn kcat
	[ -x "$KAFKA_TOOL" ] || fail "no $KAFKA_TOOL (make check builds it)"
}

# kafka_broker: $KAFKA, a broker that answers.
kafka_broker() {
	if [ -n "${WM_KAFKA_BOOTSTRAP:-}" ]; then
		KAFKA=$WM_KAFKA_BOOTSTRAP
		timeout 30 kcat -L -b "$KAFKA" -m 20 >"$scratch/kafka-metadata" 2>&1 || {
			cat "$scratch/kafka-metadata" >&2
			fail "the suite's Kafka broker at $KAFKA (WM_KAFKA_BOOTSTRAP) does not answer"
		}
		return 0
	fi
	kafka_own_broker "$scratch/kafka"
	cat "$scratch/kafka-start"
}

# kafka_own_broker DIR: $KAFKA, a broker of the test's own in DIR
# (kafka_dir), started with tests/kafka/broker.sh and stopped when the
# test ends; a machine that cannot have one skips the test (77).
kafka_own_broker() {
	kafka_dir=$1
	# The broker's class path is resolved once per build directory
	# (the working directory of make check).
	KAFKA=$(KAFKA_CLASSPATH_CACHE="$PWD/kafka-broker.classpath" \
		sh "$srcdir/tests/kafka/broker.sh" start "$kafka_dir" $$ 2>"$scratch/kafka-start")
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
	trap 'sh "$srcdir/tests/kafka/broker.sh" stop "$kafka_dir"; rm -rf "$scratch"' EXIT
}

# kafka_topic WHAT: a topic name no other test and no other run uses
# (letters, digits, '-' and '_' only: Kafka takes '.' and '_' for the same
# in metric names).
kafka_topic() {
	echo "wm-$(basename "$0" .sh)-$1-$$-$(date +%s%N)"
}

# kafka_tool COMMAND TOPIC [ARG]: kafka_tool.c's COMMAND on $KAFKA.
kafka_tool() {
	cmd=$1
	shift
	"$KAFKA_TOOL" "$cmd" "$KAFKA" "$@"
}

kafka_create_topic() {
	kafka_tool create-topic "$1" "$2" || fail "cannot create topic $1"
}

kafka_add_partitions() {
	kafka_tool add-partitions "$1" "$2" || fail "cannot grow topic $1 to $2 partitions"
}

# kafka_produce TOPIC <LINES: the lines "partition,timestamp_ms,key,value"
# as records of TOPIC, each acknowledged.
kafka_produce() {
	kafka_tool produce "$1" || fail "cannot produce to topic $1"
}

# kafka_end_offsets TOPIC: "partition,low,high" per partition.
kafka_end_offsets() {
	kafka_tool end-offsets "$1" || fail "no end offsets of topic $1"
}

# kafka_read TOPIC: every record of TOPIC read with kcat, as
# "partition,timestamp_ms,key,value", partition by partition in the
# order of each (kcat interleaves partitions; the sort is stable).
kafka_read() {
	timeout 120 kcat -C -b "$KAFKA" -t "$1" -o beginning -e -q \
		-f '%p,%T,%k,%s\n' >"$scratch/kcat.out" 2>"$scratch/kcat.err" || {
		cat "$scratch/kcat.err" >&2
		fail "kcat cannot read topic $1"
	}
	sort -s -t, -k1,1n "$scratch/kcat.out"
}

# kafka_partitions TOPIC: the number of partitions kcat's metadata shows.
kafka_partitions() {
	timeout 30 kcat -L -b "$KAFKA" -t "$1" -m 20 >"$scratch/kcat.meta" 2>&1 || {
		cat "$scratch/kcat.meta" >&2
		fail "kcat has no metadata of topic $1"
	}
	sed -n 's/^ *topic "'"$1"'" with \([0-9]*\) partitions:$/\1/p' "$scratch/kcat.meta"
}
