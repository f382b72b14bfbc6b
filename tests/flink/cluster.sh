#!/bin/sh
# cluster.sh -- a real Apache Flink standalone session cluster on loopback,
# for tests: one JobManager and two TaskManagers with one slot each, three
# JVMs of their own.
#
#   sh cluster.sh start DIR [OWNER_PID]   start one, print its REST address
#   sh cluster.sh run DIR JAR [ARG...]    `flink run JAR ARG...` against it
#   sh cluster.sh stop DIR                stop it and remove its files
#
# start makes DIR (it must not hold a cluster already), resolves Flink's
# jars with Maven (tests/flink/pom.xml: from ~/.m2 when they are there,
# else from Maven Central), writes DIR/conf/config.yaml and starts the
# processes as a distribution's jobmanager.sh and taskmanager.sh do:
# StandaloneSessionClusterEntrypoint and TaskManagerRunner with the heap
# and memory settings Flink's BashJavaUtils derives from the configuration,
# and the --add-opens a distribution's configuration gives every process.
# It returns once the JobManager's REST endpoint reports both
# TaskManagers, having written DIR/rest (host:port) and DIR/pids; each
# process logs to DIR/log/. With OWNER_PID, the processes are killed when
# that process is gone.
#
# run is Flink's own client, CliFrontend (what bin/flink runs), with
# DIR/conf as FLINK_CONF_DIR: it runs JAR's main() here, and submits the
# job graph and the jar to the cluster through its REST endpoint. It
# waits for the job to end, as `flink run` does, and exits with the
# client's status.
#
# Exit status: 0; 64 usage; 69 no cluster can be had (no java, mvn or
# curl, or Maven Central unreachable with a cache that lacks the jars: the
# caller skips); 70 the cluster did not start (the tail of its logs says
# why).
#
# FLINK_CLUSTER_CLASSPATH_CACHE names a file that keeps the resolved class
# path between starts; it is used while every jar it names exists.
set -u

here=$(cd "$(dirname "$0")" && pwd)
# A loaded 2-core machine starts three JVMs slowly.
START_TIMEOUT=${FLINK_CLUSTER_START_TIMEOUT:-180}
# The JIT's first tier only and one collector thread, as for the Kafka
# broker: the processes start in about half the time on a loaded 2-core
# machine, and a test's jobs are small.
CLUSTER_JAVA_OPTS=${CLUSTER_JAVA_OPTS:-"-XX:TieredStopAtLevel=1 -XX:+UseSerialGC -Djava.awt.headless=true"}
# What a Flink distribution's configuration opens to every process (its
# env.java.default-opts.all): the client's DataStream translators and
# Kryo reach into these packages by reflection.
OPENS=""
for package in java.lang java.lang.reflect java.io java.net java.nio sun.nio.ch \
	java.text java.time java.util java.util.concurrent \
	java.util.concurrent.atomic java.util.concurrent.locks; do
	OPENS="$OPENS --add-opens=java.base/$package=ALL-UNNAMED"
done

die() {
	code=$1
	shift
	echo "cluster.sh: $*" >&2
	exit "$code"
}

usage() {
	echo "usage: sh cluster.sh start DIR [OWNER_PID] | run DIR JAR [ARG...] | stop DIR" >&2
	exit 64
}

. "$here/../lib/java_service.sh"

# configure DIR RPC_PORT REST_PORT: DIR/conf/config.yaml and
# DIR/conf/log4j.properties.
configure() {
	mkdir -p "$1/conf" "$1/log" "$1/tmp" "$1/plugins"
	cat >"$1/conf/config.yaml" <<EOF
# A standalone session cluster on loopback, written by tests/flink/cluster.sh.
jobmanager.rpc.address: 127.0.0.1
jobmanager.rpc.port: $2
jobmanager.bind-host: 127.0.0.1
jobmanager.memory.process.size: 768m
taskmanager.host: 127.0.0.1
taskmanager.bind-host: 127.0.0.1
taskmanager.numberOfTaskSlots: 1
taskmanager.memory.process.size: 1280m
# Windows keep their state on the heap: little managed memory.
taskmanager.memory.managed.fraction: 0.1
rest.address: 127.0.0.1
rest.bind-address: 127.0.0.1
rest.port: $3
io.tmp.dirs: $1/tmp
web.tmpdir: $1/tmp
blob.storage.directory: $1/tmp
EOF
	cat >"$1/conf/log4j.properties" <<EOF
status = warn
appender.file.type = File
appender.file.name = file
appender.file.fileName = \${sys:log.file}
appender.file.layout.type = PatternLayout
appender.file.layout.pattern = %d %-5p %c - %m%n
rootLogger.level = info
rootLogger.appenderRef.file.ref = file
EOF
}

# java_in DIR LOG ...: exec java with the cluster's options, class path
# and logging to DIR/log/LOG. Flink loads plugins from FLINK_PLUGINS_DIR,
# ./plugins when unset (a build directory has one, of wmrun's): DIR's
# own, empty, instead. A background command of a script starts with
# SIGINT ignored, and the JVM would keep it so; with SIGINT at its
# default, Ctrl-C on the test run stops the cluster too.
java_in() {
	d=$1 log=$2
	shift 2
	# shellcheck disable=SC2086
	exec env --default-signal=INT FLINK_PLUGINS_DIR="$d/plugins" \
		java $CLUSTER_JAVA_OPTS $OPENS -cp "$(cat "$d/classpath")" \
		-Dlog4j2.configurationFile="$d/conf/log4j.properties" \
		-Dlog.file="$d/log/$log.log" "$@"
}

# memory DIR WHAT: the JVM options (line 1) and dynamic properties (line
# 2) that Flink's BashJavaUtils gives a WHAT (JM or TM) of this
# configuration, as a distribution's scripts ask it.
memory() {
	java_in "$1" "bash-java-utils-$2" org.apache.flink.runtime.util.bash.BashJavaUtils \
		"GET_$2_RESOURCE_PARAMS" --configDir "$1/conf" 2>&1 |
		sed -n 's/^BASH_JAVA_UTILS_EXEC_RESULT://p'
}

# overview DIR: the JobManager's /overview, or nothing.
overview() {
	curl -s -m 5 "http://$(cat "$1/rest")/overview" 2>/dev/null
}

# launch DIR: start the three processes; 0 once the JobManager reports
# both TaskManagers, 1 when the JobManager failed to bind a port (try
# other ports), else exit 70.
launch() {
	d=$1
	memory "$d" JM >"$d/jm.memory" &
	memory "$d" TM >"$d/tm.memory"
	wait
	[ "$(wc -l <"$d/jm.memory")" -eq 2 ] && [ "$(wc -l <"$d/tm.memory")" -eq 2 ] ||
		die 70 "BashJavaUtils gave no memory settings ($d/log/bash-java-utils-*.log)"
	# shellcheck disable=SC2046
	(cd "$d" && java_in "$d" jobmanager $(sed -n 1p "$d/jm.memory") \
		org.apache.flink.runtime.entrypoint.StandaloneSessionClusterEntrypoint \
		--configDir "$d/conf" $(sed -n 2p "$d/jm.memory")) \
		>"$d/log/jobmanager.out" 2>&1 </dev/null &
	pids=$!
	for tm in 1 2; do
		# shellcheck disable=SC2046
		(cd "$d" && java_in "$d" "taskmanager-$tm" $(sed -n 1p "$d/tm.memory") \
			org.apache.flink.runtime.taskexecutor.TaskManagerRunner \
			--configDir "$d/conf" $(sed -n 2p "$d/tm.memory") \
			-D "taskmanager.resource-id=tm$tm") \
			>"$d/log/taskmanager-$tm.out" 2>&1 </dev/null &
		pids="$pids $!"
	done
	echo "$pids" >"$d/pids"
	deadline=$(($(date +%s) + START_TIMEOUT))
	while :; do
		for p in $pids; do
			kill -0 "$p" 2>/dev/null && continue
			kill -9 $pids 2>/dev/null
			grep -q 'Address already in use' "$d"/log/*.log "$d"/log/*.out 2>/dev/null &&
				return 1
			tail -30 "$d"/log/*.log "$d"/log/*.out >&2 2>/dev/null
			die 70 "a process of the Flink cluster ended during its start ($d/log/)"
		done
		overview "$d" | grep -q '"taskmanagers":2,' && return 0
		[ "$(date +%s)" -lt "$deadline" ] || {
			kill -9 $pids 2>/dev/null
			tail -30 "$d"/log/*.log >&2 2>/dev/null
			die 70 "the Flink cluster did not report two TaskManagers within $START_TIMEOUT s ($d/log/)"
		}
		sleep 0.25
	done
}

start() {
	d=$1
	mkdir -p "$d" || die 70 "cannot make $d"
	d=$(cd "$d" && pwd)
	if [ -f "$d/pids" ]; then
		for p in $(cat "$d/pids"); do
			kill -0 "$p" 2>/dev/null && die 70 "$d already holds a running cluster (pid $p)"
		done
	fi
	command -v curl >/dev/null 2>&1 || die 69 "no curl (apt-get install curl)"
	maven_classpath "$here/pom.xml" "$d" "${FLINK_CLUSTER_CLASSPATH_CACHE:-}" \
		"the Flink cluster" >"$d/classpath" || exit $?
	began=$(date +%s%N)
	for attempt in 1 2 3; do
		rpc=$(free_port)
		rest=$(free_port "$rpc")
		configure "$d" "$rpc" "$rest"
		echo "127.0.0.1:$rest" >"$d/rest"
		launch "$d" && break
		[ "$attempt" -lt 3 ] || die 70 "no free ports for the Flink cluster after three tries"
	done
	# shellcheck disable=SC2046
	[ -z "${2:-}" ] || watch "$2" $(cat "$d/pids")
	ms=$((($(date +%s%N) - began) / 1000000))
	echo "cluster.sh: Flink cluster at $(cat "$d/rest") (pids $(cat "$d/pids")) had both TaskManagers $ms ms after its start" >&2
	cat "$d/rest"
}

run() {
	d=$(cd "$1" && pwd) || die 64 "no cluster directory $1"
	shift
	[ -f "$d/rest" ] || die 70 "$d holds no cluster (no $d/rest)"
	n=$(find "$d/log" -name 'client-*.log' | wc -l)
	FLINK_CONF_DIR=$d/conf
	export FLINK_CONF_DIR
	java_in "$d" "client-$((n + 1))" \
		org.apache.flink.client.cli.CliFrontend run "$@"
}

stop() {
	d=$1
	[ -f "$d/pids" ] || die 70 "$d holds no cluster (no $d/pids)"
	pids=$(cat "$d/pids")
	# Nothing outlives the cluster, so nothing needs an orderly shutdown.
	# shellcheck disable=SC2086
	kill -9 $pids 2>/dev/null
	for p in $pids; do
		while kill -0 "$p" 2>/dev/null; do
			sleep 0.1
		done
	done
	rm -rf "$d/tmp" "$d/maven" "$d/plugins"
	rm -f "$d/pids" "$d/rest"
}

[ $# -ge 2 ] || usage
case "$1" in
start)
	[ $# -le 3 ] || usage
	start "$2" "${3:-}"
	;;
run)
	[ $# -ge 3 ] || usage
	dir=$2
	shift 2
	run "$dir" "$@"
	;;
stop)
	[ $# -eq 2 ] || usage
	stop "$2"
	;;
*)
	usage
	;;
esac
