#!/bin/sh
# --export-flink of every example: either it exports, and writes exactly
# the Job.java of tests/golden/export_flink/EXAMPLE/ (the version as
# @VERSION@), traces whose record count, checksum and first records are
# those of EXAMPLE/sourceN.csv.summary (a generated source's recording under
# --sim can be megabytes; a Kafka source has none), and the support classes and pom of flink/ byte
# for byte; or it is refused with exit 78 and exactly the message of
# EXAMPLE/refused, which names the file, line and column. Two exports of
# one example are byte for byte the same: every file is held to a golden
# one or to flink/'s, a recording by its checksum. After a deliberate
# change: make update-golden.
. "$srcdir/tests/lib/lib.sh"

golden="$srcdir/tests/golden/export_flink"
update=${WM_UPDATE_GOLDEN:-}

# summary FILE: a trace's record count, checksum and first records.
summary() {
	echo "records $(($(wc -l <"$1") - 1))"
	echo "sha256 $(sha256sum <"$1" | cut -d' ' -f1)"
	head -n 4 "$1"
}

# export EXAMPLE DIR: its export into DIR, the exit status in $status and
# its messages in $scratch/err. The examples' traces are relative to the
# top of the source tree.
export_example() {
	status=0
	(cd "$srcdir" && "$WMRUN" --export-flink "$2" "examples/$1.conf") \
		>"$scratch/out" 2>"$scratch/err" || status=$?
}

# check NAME GOT: GOT against the golden file NAME of the example (or the
# golden file replaced by it under make update-golden).
check() {
	if [ "$update" = 1 ]; then
		cp "$2" "$want/$1"
		return
	fi
	[ -f "$want/$1" ] || fail "$example: no golden file $1"
	diff -u "$want/$1" "$2" || fail "$example: $1 differs from the golden file"
}

n_java=$(ls "$srcdir"/flink/src/main/java/wmrun/flink/*.java | wc -l)
for conf in "$srcdir"/examples/*.conf; do
	example=$(basename "$conf" .conf)
	out="$scratch/$example"
	want="$golden/$example"
	export_example "$example" "$out"
	if [ "$update" = 1 ]; then
		rm -rf "$want"
		mkdir -p "$want"
	fi
	if [ "$status" -ne 0 ]; then
		[ "$status" -eq 78 ] || { cat "$scratch/err" >&2; fail "$example: exit $status"; }
		[ ! -e "$out" ] || fail "$example: a refused export left files behind"
		# The last line says why; warnings may come before it.
		tail -n 1 "$scratch/err" >"$scratch/got"
		check refused "$scratch/got"
		grep -Eq "^wmrun: examples/$example.conf:[0-9]+:[0-9]+: cannot export " \
			"$scratch/got" || fail "$example: refused without file:line:col"
		continue
	fi
	[ "$update" = 1 ] || [ ! -f "$want/refused" ] ||
		fail "$example: exported, but the golden files say it is refused"
	sed "s/wmrun $WM_VERSION --export-flink/wmrun @VERSION@ --export-flink/" \
		"$out/src/main/java/wmrun/flink/Job.java" >"$scratch/got"
	check Job.java "$scratch/got"
	n_data=0
	for f in "$out"/data/*.csv; do
		[ -e "$f" ] || continue # a Kafka source has no trace
		summary "$f" >"$scratch/got"
		check "${f##*/}.summary" "$scratch/got"
		n_data=$((n_data + 1))
	done
	# A trace per source but Kafka's, which read their topics.
	n_traced=$(($(grep -c '^\[source' "$conf") - $(grep -c '^kafka\.topic *=' "$conf")))
	[ "$n_data" -eq "$n_traced" ] ||
		fail "$example: $n_data traces for $n_traced sources with traces"
	# Generated sources are said to be recorded, with their counts; a
	# heartbeat is a line of the recording too.
	for f in $(sed -n 's/.* under --sim: \([0-9]*\) records\( and \([0-9]*\) heartbeats\)\{0,1\} of [0-9]* partitions into "\(.*\)"$/\1:x\3:\4/p' \
		"$scratch/err"); do
		said=${f%%:*} beats=${f#*:x} path=${f#*:x*:}
		beats=${beats%%:*}
		[ "$((said + ${beats:-0}))" -eq "$(($(wc -l <"$path") - 1))" ] ||
			fail "$example: $path holds another count than said"
	done
	(cd "$out" && find . -type f | sort) >"$scratch/files"
	# Job.java, the support classes, the data, and flink/'s pom,
	# README.md, .mvn/maven.config and .mvn/jvm.config.
	[ "$(grep -c . "$scratch/files")" -eq $((n_java + 5 + n_data)) ] ||
		fail "$example: unexpected files: $(cat "$scratch/files")"
	for f in pom.xml README.md .mvn/maven.config .mvn/jvm.config; do
		cmp "$srcdir/flink/$f" "$out/$f" || fail "$f differs from flink/"
	done
	for j in "$srcdir"/flink/src/main/java/wmrun/flink/*.java; do
		cmp "$j" "$out/src/main/java/wmrun/flink/${j##*/}" ||
			fail "${j##*/} differs from flink/"
	done
	rm -rf "$out"
done

# A generated source's trace is the recording --record-trace --sim makes,
# byte for byte.
export_example late_data "$scratch/late"
[ "$status" -eq 0 ] || fail "exporting late_data failed"
examples=$(cd "$srcdir/examples" && pwd)
(cd "$scratch" && "$WMRUN" --sim --quiet --record-trace rec.csv \
	"$examples/late_data.conf" >/dev/null) ||
	fail "recording late_data failed"
cmp "$scratch/rec.csv" "$scratch/late/data/source0.csv" ||
	fail "the export's recording differs from --record-trace --sim's"

# --export-speed: the Flink job's speed alone; the recording, every
# duration in the job's own time and the rest of Job.java are the same.
expect_status 0 "$WMRUN" --export-speed 150 --export-flink "$scratch/fast" \
	"$srcdir/examples/late_data.conf"
grep -q 'static final double SPEED = 150;$' "$scratch/fast/src/main/java/wmrun/flink/Job.java" ||
	fail "--export-speed 150 does not run the job at 150"
cmp "$scratch/late/data/source0.csv" "$scratch/fast/data/source0.csv" ||
	fail "--export-speed changed the recording"
# (The first line names the topology's path as given.)
tail -n +2 "$scratch/late/src/main/java/wmrun/flink/Job.java" >"$scratch/slow.java"
tail -n +2 "$scratch/fast/src/main/java/wmrun/flink/Job.java" >"$scratch/fast.java"
diff "$scratch/slow.java" "$scratch/fast.java" >"$scratch/speed.diff"
[ "$(grep -c '^[<>]' "$scratch/speed.diff")" -eq 2 ] ||
	{ cat "$scratch/speed.diff" >&2; fail "--export-speed changed more than the speed"; }
# Capped as the topology's speed is, with the warning.
expect_status 0 "$WMRUN" --export-speed 5000 --export-flink "$scratch/capped" \
	"$srcdir/examples/late_data.conf"
expect_line 'late_data.conf:[0-9]+:1: warning: the exported job runs at speed 200, not 5000' "$scratch/err"
expect_status 64 "$WMRUN" --export-speed 0 --export-flink "$scratch/none" "$srcdir/examples/late_data.conf"
expect_line 'invalid --export-speed "0"' "$scratch/err"
expect_status 64 "$WMRUN" --export-speed 10 --sim "$srcdir/examples/late_data.conf"
expect_line 'export-speed sets the speed of an --export-flink' "$scratch/err"
[ ! -e "$scratch/none" ] || fail "a refused export left files behind"

# What no example shows: a generated source without a run length, whose
# recording would never end.
cat >"$scratch/endless.conf" <<CONF
[source s]
partitions = 1
rate = 1/s
[window w]
input = s
size = 1 s
[sink out]
input = w
path = -
CONF
expect_status 78 "$WMRUN" --export-flink "$scratch/gen" "$scratch/endless.conf"
expect_line 'endless.conf:3:1: cannot export generated source "s" without a run length' "$scratch/err"
[ ! -e "$scratch/gen" ] || fail "a refused export left files behind"
# A recording never overwrites a file the job uses (here its output).
{ printf '[job]\nevent_time = 1 min\n'; sed "s|^path = -|path = $scratch/into/data/source0.csv|" \
	"$scratch/endless.conf"; } >"$scratch/into.conf"
expect_status 64 "$WMRUN" --export-flink "$scratch/into" "$scratch/into.conf"
expect_line "could not record the generated sources: \"$scratch/into/data/source0.csv\" is the output of sink \"out\"" "$scratch/err"
expect_status 64 "$WMRUN" --sim --export-flink "$scratch/x" "$srcdir/examples/replay_trace.conf"
exit 0
