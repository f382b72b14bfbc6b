#!/bin/sh
# quickstart.sh -- set up, build and run wmrun on a Debian machine.
#
#   sh quickstart.sh run     install what is missing, build, run the main job
#   sh quickstart.sh test    install what is missing, build, run every test
#   sh quickstart.sh build   install what is missing, build the programs and
#                            the tests' programs, run nothing (CI builds the
#                            sanitizer build this way while the plain suite
#                            runs: .ci/run)
#
# Missing Debian packages are installed with apt-get (through sudo when not
# root). The build happens out of tree in _build/ (BUILD_DIR overrides), so
# the source tree stays clean; extra configure options can be passed in
# CONFIGURE_FLAGS (e.g. CONFIGURE_FLAGS=--enable-sanitizers).
set -eu

here=$(cd "$(dirname "$0")" && pwd)
build=${BUILD_DIR:-$here/_build}
packages="gcc make autoconf automake autoconf-archive pkg-config check
libsubunit-dev liburcu-dev libhwloc-dev libnuma-dev strace help2man groff-base
clang-format clang libclang-rt-14-dev tmux libmicrohttpd-dev prometheus curl
chromium default-jdk-headless maven librdkafka-dev kcat libjansson-dev
libncurses-dev"

usage() {
	echo "usage: sh quickstart.sh run|test|build" >&2
	exit 64
}

install_missing() {
	missing=""
	for p in $packages; do
		dpkg-query -W -f='${Status}' "$p" 2>/dev/null |
			grep -q "install ok installed" || missing="$missing $p"
	done
	[ -z "$missing" ] && return 0
	echo "quickstart: installing Debian packages:$missing" >&2
	sudo=""
	[ "$(id -u)" -eq 0 ] || sudo=sudo
	export DEBIAN_FRONTEND=noninteractive
	$sudo apt-get update -q >&2
	# shellcheck disable=SC2086
	$sudo apt-get install -y -q --no-install-recommends $missing >&2
}

build() {
	if [ ! -x "$here/configure" ] || [ "$here/configure.ac" -nt "$here/configure" ]; then
		"$here/bootstrap" >&2
	fi
	mkdir -p "$build"
	cd "$build"
	if [ ! -f Makefile ] || [ "$here/configure" -nt Makefile ]; then
		# shellcheck disable=SC2086
		"$here/configure" -q ${CONFIGURE_FLAGS:-} >&2
	fi
	make -s -j"$(nproc)" >&2
}

# One real Kafka broker for the whole test run (tests/kafka/broker.sh):
# the tests that read a real topic use it through WM_KAFKA_BOOTSTRAP
# instead of starting one each (5-10 s apiece). Not in a sanitizer build,
# where those tests skip, nor without java, mvn and kcat; when it cannot
# start, each test starts its own or skips. Its first start fetches the
# broker's jars into ~/.m2.
start_kafka() {
	case " ${CONFIGURE_FLAGS:-} " in
	*" --enable-sanitizers "*) return 0 ;;
	esac
	[ -z "${WM_KAFKA_BOOTSTRAP:-}" ] || return 0
	for tool in java mvn kcat; do
		command -v $tool >/dev/null 2>&1 || {
			echo "quickstart: no $tool: the tests on a real Kafka broker will skip" >&2
			return 0
		}
	done
	kafka_dir=$build/kafka-broker
	if bootstrap=$(KAFKA_CLASSPATH_CACHE="$build/kafka-broker.classpath" \
		sh "$here/tests/kafka/broker.sh" start "$kafka_dir" $$); then
		WM_KAFKA_BOOTSTRAP=$bootstrap
		export WM_KAFKA_BOOTSTRAP
		trap 'sh "$here/tests/kafka/broker.sh" stop "$kafka_dir"' EXIT
		trap 'exit 130' INT
		trap 'exit 143' TERM
	else
		echo "quickstart: no shared Kafka broker: each test on a real broker starts its own or skips" >&2
	fi
}

# Sum up every Check test and every integration script into one line.
summarize() {
	passed=0
	failed=0
	for log in tests/unit/*.log; do
		[ -f "$log" ] || continue
		line=$(grep -E '^[0-9]+%: Checks: ' "$log" | tail -n 1)
		if [ -z "$line" ]; then
			failed=$((failed + 1)) # crashed before Check reported
			continue
		fi
		n=$(echo "$line" | sed -E 's/.*Checks: ([0-9]+).*/\1/')
		bad=$(echo "$line" | sed -E 's/.*Failures: ([0-9]+).*/\1/')
		errors=$(echo "$line" | sed -E 's/.*Errors: ([0-9]+).*/\1/')
		f=$((bad + errors))
		passed=$((passed + n - f))
		failed=$((failed + f))
	done
	skipped=0
	for trs in tests/integration/*.trs; do
		[ -f "$trs" ] || continue
		if grep -q '^:test-result: PASS' "$trs"; then
			passed=$((passed + 1))
		elif grep -q '^:test-result: SKIP' "$trs"; then
			skipped=$((skipped + 1)) # the machine lacks something
		else
			failed=$((failed + 1))
		fi
	done
	echo "$passed passed, $failed failed, $skipped skipped"
}

# The end of each failed test's log, last in the output, where a reader of
# its tail (a CI page) finds it; test-suite.log has them among every
# skipped test's reason.
show_failures() {
	for trs in tests/*/*.trs; do
		grep -Eq '^:test-result: (FAIL|ERROR|XPASS)' "$trs" || continue
		echo "=== ${trs%.trs}.log (its last 60 lines)"
		tail -n 60 "${trs%.trs}.log"
	done
}

[ $# -eq 1 ] || usage
case "$1" in
run)
	install_missing
	build
	# The built-in job: the quiet-partition incident, one pinned process
	# per subtask, about 22 s (results as CSV on stdout, the summary on
	# stderr).
	exec "$build/wmrun"
	;;
build)
	install_missing
	build
	# The tests' programs too (check_PROGRAMS), running no test (the
	# empty suite's banner on standard output is nothing to show).
	make -s -j"$(nproc)" check TESTS= >/dev/null
	;;
test)
	install_missing
	build
	start_kafka
	status=0
	# Every test, as `make check`: the Flink tests in a lane of their
	# own beside the rest (Makefile.am, check-lanes); a sanitizer build
	# skips them (tests/lib/flink_lib.sh), so its tests take both lanes'
	# worth of job slots, as `make -j check` gives them.
	case " ${CONFIGURE_FLAGS:-} " in
	*" --enable-sanitizers "*) tests=check ;;
	*) tests=check-lanes ;;
	esac
	make -s -j"$(nproc)" "$tests" >&2 || status=$?
	[ "$status" -eq 0 ] || show_failures >&2
	summarize
	exit "$status"
	;;
*)
	usage
	;;
esac
