#!/bin/sh
# build.sh -- build the libFuzzer harnesses of tests/fuzz with clang, ASan
# and UBSan: fuzz_ini, fuzz_topology, fuzz_replay, fuzz_trace.
#
#   sh tests/fuzz/build.sh [BUILDDIR [OUTDIR]]
#
# BUILDDIR is a configured build directory (for config.h; default: the
# current directory), OUTDIR where the harnesses go (default:
# BUILDDIR/tests/fuzz). `make fuzz` in a build directory runs this. The
# product sources are compiled again, instrumented, into OUTDIR/obj; the
# normal build is left alone. CC (default clang) must support
# -fsanitize=fuzzer: Debian's clang does (libclang-rt-*-dev on some).
set -eu

src=$(cd "$(dirname "$0")/../.." && pwd)
build=$(cd "${1:-.}" && pwd)
out=${2:-$build/tests/fuzz}
cc=${CC:-clang}
[ -f "$build/config.h" ] || {
	echo "build.sh: no config.h in $build: configure there first" >&2
	exit 1
}
mkdir -p "$out/obj"

san="-fsanitize=address,undefined -fno-sanitize-recover=undefined"
cflags="-std=gnu11 -g -O1 -fno-omit-frame-pointer $san -I$src -I$build"
cflags="$cflags $(pkg-config --cflags hwloc numa)"
libs="$(pkg-config --libs hwloc numa) -lm"

# fresh OBJECT SOURCE -- OBJECT is newer than SOURCE and every header (a
# header changed under an object would leave it with an old layout).
fresh() {
	[ -f "$1" ] && [ ! "$2" -nt "$1" ] && [ ! "$build/config.h" -nt "$1" ] &&
		[ -z "$(find "$src/ipc" "$src/operators" "$src/runtime" \
			-name '*.h' -newer "$1" | head -n 1)" ]
}

# compile FILE... -- instrumented objects, echoing their paths.
compile() {
	for f in "$@"; do
		o="$out/obj/$(echo "$f" | tr / _ | sed 's/\.c$/.o/')"
		if ! fresh "$o" "$src/$f"; then
			$cc $cflags -fsanitize=fuzzer-no-link -c "$src/$f" \
				-o "$o"
		fi
		echo "$o"
	done
}

operators=$(cd "$src" && ls operators/*.c)
parse="runtime/conf/ini.c runtime/conf/units.c"
topology="$parse runtime/conf/topology.c runtime/plan/plan.c runtime/plan/placement.c
	runtime/plan/affinity.c runtime/conf/cpulist.c $operators"

# harness NAME SOURCES... -- link tests/fuzz/NAME.c with SOURCES.
harness() {
	name=$1
	shift
	objs=$(compile "$@")
	# shellcheck disable=SC2086 # word splitting intended
	$cc $cflags -fsanitize=fuzzer "$src/tests/fuzz/$name.c" $objs $libs \
		-o "$out/$name"
	echo "built $out/$name"
}

harness fuzz_ini $parse
harness fuzz_topology $topology
harness fuzz_sim $topology runtime/run/sim.c runtime/engine/task.c runtime/engine/task_source.c \
	runtime/io/replay.c runtime/io/lines.c runtime/io/sink.c runtime/report/report.c \
	runtime/engine/progress.c ipc/frame.c
harness fuzz_replay runtime/io/replay.c runtime/io/lines.c runtime/conf/units.c \
	$operators
harness fuzz_trace tools/wmconform/trace.c runtime/io/lines.c runtime/conf/units.c $operators
