# flink_lib.sh -- real Apache Flink as the oracle (sourced after lib.sh).
#
# flink_require skips (77) a test that needs real Flink where it cannot or
# should not run: the sanitizer build and `make distcheck` leave it to the
# plain build (CI runs the suite more than once and these tests add
# minutes), and a machine without java or mvn, or without Maven Central
# and a cache that holds Flink, has no Flink to ask.
#
# oracle NAME runs $scratch/NAME.*.conf, as the caller's conf() writes it,
# through wmrun (--sim, and a real run unless SIM_ONLY) and through the
# exported job on Flink's MiniCluster, and fails on any difference in the
# window results or the late records.

flink_require() {
	if [ "${WM_SANITIZERS:-no}" = yes ]; then
		echo "SKIP: the sanitizer build leaves the Flink cross-check to the plain build"
		exit 77
	fi
	if [ "${WM_REAL_FLINK_TESTS:-yes}" = no ]; then
		echo "SKIP: configured with --disable-real-flink-tests (make distcheck: the plain build runs it)"
		exit 77
	fi
	for tool in java mvn; do
		command -v $tool >/dev/null 2>&1 || {
			echo "SKIP: no $tool (apt-get install default-jdk-headless maven)"
			exit 77
		}
	done
}

# maven DIR LOG GOAL...: run Maven in DIR, offline when the cache holds
# everything (a second run downloads nothing), else from Maven Central;
# skip when that cannot be reached.
maven() {
	dir=$1 log=$2
	shift 2
	(cd "$dir" && timeout 900 mvn -B -q -o "$@" >"$log" 2>&1) && return 0
	(cd "$dir" && timeout 900 mvn -B -q "$@" >"$log" 2>&1) && return 0
	if grep -Eq 'Could not (transfer|resolve)|UnknownHost|Network is unreachable|Connection (refused|timed out)' \
		"$log"; then
		tail -5 "$log"
		echo "SKIP: Maven Central cannot be reached and ~/.m2 lacks Flink"
		exit 77
	fi
	cat "$log" >&2
	return 1
}

# flink_build DIR: `mvn package` of the Maven project in DIR.
flink_build() {
	maven "$1" "$scratch/mvn.log" package ||
		fail "the Maven project $1 does not build"
}

# results FILE SKIP: a window sink's lines without fire_time and
# watermark (and Flink's subtask column: SKIP 1), sorted.
results() {
	tail -n +2 "$1" | awk -F, -v skip="$2" '{
		n = NF - skip
		line = $1
		for (i = 2; i <= n - 3; i++) line = line "," $i
		print line "," $n
	}' | LC_ALL=C sort
}

# oracle NAME: $scratch/NAME.conf run by wmrun (--sim, and real unless
# SIM_ONLY) and by Flink; the caller's conf() writes sinks to
# $scratch/NAME.RUN.* (MUTATE, a sed script, changes Flink's topology
# only: to see that a difference is caught).
oracle() {
	name=$1
	conf "$name.sim" >"$scratch/$name.sim.conf"
	expect_status 0 "$WMRUN" --sim "$scratch/$name.sim.conf"
	results "$scratch/$name.sim.out" 0 >"$scratch/$name.sim.r"
	[ -s "$scratch/$name.sim.r" ] || fail "$name: wmrun --sim gave no results"
	conf "$name.flink" | sed -e "${MUTATE:-}" >"$scratch/$name.flink.conf"
	expect_status 0 "$WMRUN" --export-flink "$scratch/$name.project" \
		"$scratch/$name.flink.conf"
	flink_build "$scratch/$name.project"
	maven "$scratch/$name.project" "$scratch/$name.flink.log" exec:exec ||
		fail "$name: the Flink job failed"
	results "$scratch/$name.flink.out" 1 >"$scratch/$name.flink.r"
	diff -u "$scratch/$name.sim.r" "$scratch/$name.flink.r" ||
		fail "$name: Flink's window results differ from wmrun's"
	tail -n +2 "$scratch/$name.sim.late" | LC_ALL=C sort >"$scratch/a"
	tail -n +2 "$scratch/$name.flink.late" | LC_ALL=C sort >"$scratch/b"
	diff -u "$scratch/a" "$scratch/b" ||
		fail "$name: Flink's late records differ from wmrun's"
	echo "$name: Flink agrees with --sim on $(wc -l <"$scratch/a") late" \
		"records and $(wc -l <"$scratch/$name.sim.r") results"
	[ -n "${SIM_ONLY:-}" ] && return 0
	conf "$name.real" >"$scratch/$name.real.conf"
	expect_status 0 timeout 300 "$WMRUN" --quiet "$scratch/$name.real.conf"
	results "$scratch/$name.real.out" 0 >"$scratch/$name.real.r"
	diff -u "$scratch/$name.sim.r" "$scratch/$name.real.r" ||
		fail "$name: wmrun's real run differs from Flink's and --sim's"
}

# flink_exclusive: wait until no other test of this build directory that
# called it is running, and hold that until the calling script ends. A
# MiniCluster and its Maven build take the whole of a small machine: two
# at once under `make check -j2` starve wmrun's real runs, whose results
# then depend on timing. Without flock(1), nothing is waited for.
flink_exclusive() {
	command -v flock >/dev/null 2>&1 || return 0
	exec 9>"$PWD/flink-tests.lock"
	flock 9
}
