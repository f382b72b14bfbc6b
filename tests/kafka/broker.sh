#!/bin/sh
# broker.sh -- a real Apache Kafka broker on loopback, for tests.
#
#   sh broker.sh start DIR [OWNER_PID]   start one, print its bootstrap address
#   sh broker.sh stop DIR                stop it and remove its data
#
# start makes DIR (it must not hold a broker already), resolves the
# broker's jars with Maven (tests/kafka/pom.xml: from ~/.m2 when they are
# there, else from Maven Central), writes a configuration for a single
# KRaft node that is broker and controller at once, formats its storage
# and starts kafka.Kafka in the background with a fixed small heap. It
# returns once the broker answers a metadata request (kcat -L), having
# written DIR/bootstrap (host:port) and DIR/pid; the broker's log is
# DIR/server.log. With OWNER_PID, the broker is killed when that process
# is gone, so that a test or a suite killed without its clean-up leaves no
# JVM behind.
#
# Exit status: 0; 64 usage; 69 no broker can be had (no java, mvn or kcat,
# or Maven Central unreachable with a cache that lacks the jars: the
# caller skips); 70 the broker did not start (the tail of its log says why).
#
# KAFKA_CLASSPATH_CACHE names a file that keeps the resolved class path
# between starts (one Maven run per build directory instead of one per
# broker); it is used while every jar it names exists.
set -u

here=$(cd "$(dirname "$0")" && pwd)
# A loaded 2-core machine starts the JVM slowly; a broker that has not
# answered in this many seconds is taken to be broken.
START_TIMEOUT=${KAFKA_START_TIMEOUT:-120}
# The JIT's first tier only: a start takes half the time on a loaded
# 2-core machine (7-9 s against 15-16 s at load 11), and a test's few
# thousand records do not need the second. One collector thread.
# (bench/kafka_read.sh sets BROKER_JAVA_OPTS for the full JIT.)
BROKER_JAVA_OPTS=${BROKER_JAVA_OPTS:-"-XX:TieredStopAtLevel=1 -XX:+UseSerialGC -Djava.awt.headless=true"}

die() {
	code=$1
	shift
	echo "broker.sh: $*" >&2
	exit "$code"
}

usage() {
	echo "usage: sh broker.sh start DIR [OWNER_PID] | stop DIR" >&2
	exit 64
}

. "$here/../lib/java_service.sh"

# configure DIR PORT CONTROLLER_PORT: DIR/server.properties and
# DIR/log4j2.properties.
configure() {
	cat >"$1/server.properties" <<EOF
# A single KRaft node on loopback, written by tests/kafka/broker.sh.
process.roles=broker,controller
node.id=1
controller.quorum.voters=1@127.0.0.1:$3
listeners=PLAINTEXT://127.0.0.1:$2,CONTROLLER://127.0.0.1:$3
advertised.listeners=PLAINTEXT://127.0.0.1:$2
controller.listener.names=CONTROLLER
inter.broker.listener.name=PLAINTEXT
listener.security.protocol.map=PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT
log.dirs=$1/data
# A topic a test did not create is an error, not an empty topic.
auto.create.topics.enable=false
num.partitions=1
default.replication.factor=1
offsets.topic.replication.factor=1
offsets.topic.num.partitions=4
transaction.state.log.replication.factor=1
transaction.state.log.min.isr=1
transaction.state.log.num.partitions=4
share.coordinator.state.topic.replication.factor=1
share.coordinator.state.topic.min.isr=1
group.initial.rebalance.delay.ms=0
num.network.threads=2
num.io.threads=4
num.recovery.threads.per.data.dir=1
# Tests give records timestamps of their own, far in the past or in the
# future: none is refused for being far from the broker's clock, and none
# is deleted by time-based retention (which goes by record timestamps).
log.message.timestamp.before.max.ms=9223372036854775807
log.message.timestamp.after.max.ms=9223372036854775807
log.retention.ms=-1
log.retention.bytes=-1
EOF
	cat >"$1/log4j2.properties" <<EOF
status = warn
appender.file.type = File
appender.file.name = file
appender.file.fileName = $1/server.log
appender.file.layout.type = PatternLayout
appender.file.layout.pattern = [%d] %p %m (%c)%n
rootLogger.level = info
rootLogger.appenderRef.file.ref = file
EOF
}

# answers BOOTSTRAP: the broker answers a metadata request.
answers() {
	timeout 10 kcat -L -b "$1" -m 5 >/dev/null 2>&1
}

# launch DIR CP: format DIR/data and start the broker; 0 once it answers,
# 1 when it failed to bind a port (try other ports), else exit 70.
launch() {
	dir=$1 cp=$2
	rm -rf "$dir/data" "$dir/server.log"
	# A cluster id is 16 random bytes in URL-safe base64 without padding;
	# one that starts with '-' (one in 64) the tool's parser would take
	# for an option, so the first byte is drawn again until it does not.
	cluster=-
	while [ "${cluster#-}" != "$cluster" ]; do
		cluster=$(head -c 16 /dev/urandom | base64 | tr '+/' '-_' | cut -c 1-22)
	done
	java $BROKER_JAVA_OPTS -cp "$cp" -Dlog4j2.configurationFile="$dir/log4j2.properties" \
		kafka.tools.StorageTool format -t "$cluster" \
		-c "$dir/server.properties" >"$dir/format.log" 2>&1 || {
		cat "$dir/format.log" >&2
		die 70 "kafka.tools.StorageTool could not format $dir/data"
	}
	# A background command of a script starts with SIGINT ignored, and
	# the JVM keeps it so; with SIGINT at its default, Ctrl-C on the
	# test run stops the broker too.
	env --default-signal=INT java $BROKER_JAVA_OPTS -Xms384m -Xmx384m \
		-Dlog4j2.configurationFile="$dir/log4j2.properties" \
		-cp "$cp" kafka.Kafka "$dir/server.properties" \
		>"$dir/java.out" 2>&1 </dev/null &
	pid=$!
	echo "$pid" >"$dir/pid"
	deadline=$(($(date +%s) + START_TIMEOUT))
	while :; do
		if ! kill -0 "$pid" 2>/dev/null; then
			grep -q 'Address already in use' "$dir/server.log" "$dir/java.out" 2>/dev/null &&
				return 1
			tail -30 "$dir/server.log" "$dir/java.out" >&2 2>/dev/null
			die 70 "the Kafka broker ended during its start ($dir/server.log)"
		fi
		if grep -q 'Kafka Server started' "$dir/server.log" 2>/dev/null &&
			answers "127.0.0.1:$port"; then
			return 0
		fi
		[ "$(date +%s)" -lt "$deadline" ] || {
			kill -9 "$pid" 2>/dev/null
			tail -30 "$dir/server.log" "$dir/java.out" >&2 2>/dev/null
			die 70 "the Kafka broker did not answer within $START_TIMEOUT s ($dir/server.log)"
		}
		sleep 0.2
	done
}

start() {
	dir=$1
	mkdir -p "$dir" || die 70 "cannot make $dir"
	dir=$(cd "$dir" && pwd)
	[ -e "$dir/pid" ] && kill -0 "$(cat "$dir/pid")" 2>/dev/null &&
		die 70 "$dir already holds a running broker (pid $(cat "$dir/pid"))"
	command -v kcat >/dev/null 2>&1 || die 69 "no kcat (apt-get install kcat)"
	cp=$(maven_classpath "$here/pom.xml" "$dir" "${KAFKA_CLASSPATH_CACHE:-}" \
		"the Kafka broker") || exit $?
	began=$(date +%s%N)
	for attempt in 1 2 3; do
		port=$(free_port 0)
		controller=$(free_port "$port")
		configure "$dir" "$port" "$controller"
		launch "$dir" "$cp" && break
		[ "$attempt" -lt 3 ] || die 70 "no free port for the broker after three tries"
	done
	echo "127.0.0.1:$port" >"$dir/bootstrap"
	[ -z "${2:-}" ] || watch "$2" "$(cat "$dir/pid")"
	ms=$((($(date +%s%N) - began) / 1000000))
	echo "broker.sh: Kafka broker at 127.0.0.1:$port (pid $(cat "$dir/pid")) answered $ms ms after its start" >&2
	echo "127.0.0.1:$port"
}

stop() {
	dir=$1
	[ -f "$dir/pid" ] || die 70 "$dir holds no broker (no $dir/pid)"
	pid=$(cat "$dir/pid")
	# The data goes with the broker, so nothing needs an orderly
	# shutdown (which takes a TERM 2-3 s).
	kill -9 "$pid" 2>/dev/null
	while kill -0 "$pid" 2>/dev/null; do
		sleep 0.1
	done
	rm -rf "$dir/data" "$dir/maven"
	rm -f "$dir/pid" "$dir/bootstrap"
}

[ $# -ge 2 ] || usage
case "$1" in
start)
	[ $# -le 3 ] || usage
	start "$2" "${3:-}"
	;;
stop)
	[ $# -eq 2 ] || usage
	stop "$2"
	;;
*)
	usage
	;;
esac
