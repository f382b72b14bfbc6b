# java_service.sh -- what the scripts that start a real Java service for
# the tests share (tests/kafka/broker.sh, tests/flink/cluster.sh): free
# loopback ports, a class path resolved once with Maven, and a watcher that
# kills the service when its owner is gone. Sourced; the caller defines
# die CODE MESSAGE... before it.

# listening PORT: something listens on TCP PORT (IPv4 or IPv6).
listening() {
	hex=$(printf '%04X' "$1")
	cat /proc/net/tcp /proc/net/tcp6 2>/dev/null |
		awk -v p=":$hex" '$4 == "0A" && substr($2, length($2) - 4) == p { found = 1 }
			END { exit !found }'
}

# free_port NOT...: a TCP port nothing listens on, none of NOT, drawn from
# 20000-32767 (below Linux's ephemeral range, so that no outgoing
# connection holds it). Another process may take it before the service
# binds it: the caller then tries again with new ports.
free_port() {
	while :; do
		p=$((20000 + $(od -An -N2 -tu2 /dev/urandom) % 12768))
		case " $* " in
		*" $p "*) continue ;;
		esac
		listening "$p" || break
	done
	echo "$p"
}

# valid_classpath CP: every jar of CP exists.
valid_classpath() {
	echo "$1" | tr ':' '\n' | while read -r jar; do
		[ -f "$jar" ] || exit 1
	done
}

# maven_classpath POM DIR CACHE WHAT: the runtime class path of the
# dependencies of POM on stdout, from CACHE (a file, or empty for none)
# while every jar it names exists, else resolved by Maven in DIR/maven
# (from ~/.m2 when the jars are there, else from Maven Central) and kept
# in CACHE. WHAT names the service in messages. Exits 69 where there is
# no java or mvn, or Maven Central cannot be reached and ~/.m2 lacks the
# jars (the caller skips), 70 where Maven fails otherwise.
maven_classpath() {
	pom=$1 dir=$2 cache=$3 what=$4
	if [ -n "$cache" ] && [ -s "$cache" ] && valid_classpath "$(cat "$cache")"; then
		cat "$cache"
		return 0
	fi
	command -v java >/dev/null 2>&1 || die 69 "no java (apt-get install default-jdk-headless)"
	command -v mvn >/dev/null 2>&1 || die 69 "no mvn (apt-get install maven)"
	# Maven runs on a copy of the pom: the source tree may be read-only
	# (make distcheck).
	mkdir -p "$dir/maven"
	cp "$pom" "$dir/maven/pom.xml"
	for offline in -o ""; do
		# shellcheck disable=SC2086
		(cd "$dir/maven" && timeout 900 mvn -B -q -Dstyle.color=never $offline \
			dependency:build-classpath -Dmdep.includeScope=runtime \
			-Dmdep.outputFile="$dir/maven/classpath" \
			>"$dir/maven/mvn.log" 2>&1) && break
	done
	[ -s "$dir/maven/classpath" ] || {
		tail -5 "$dir/maven/mvn.log" >&2
		if grep -Eq 'Could not (transfer|resolve)|UnknownHost|Network is unreachable|Connection (refused|timed out)' \
			"$dir/maven/mvn.log"; then
			die 69 "Maven Central cannot be reached and ~/.m2 lacks $what"
		fi
		die 70 "Maven cannot give $what's class path ($dir/maven/mvn.log)"
	}
	if [ -n "$cache" ]; then
		cp "$dir/maven/classpath" "$cache.$$" && mv "$cache.$$" "$cache"
	fi
	cat "$dir/maven/classpath"
}

# watch OWNER PID...: kill the processes PID... when the process OWNER is
# gone, so that a test or a suite killed without its clean-up leaves no
# JVM behind; the watcher ends when they have all ended.
watch() {
	owner=$1
	shift
	(
		while kill -0 "$owner" 2>/dev/null; do
			alive=""
			for p in "$@"; do
				kill -0 "$p" 2>/dev/null && alive=1
			done
			[ -n "$alive" ] || exit 0
			sleep 1
		done
		kill -9 "$@" 2>/dev/null
	) >/dev/null 2>&1 </dev/null &
}
