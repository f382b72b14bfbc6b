#!/bin/sh
# --export-flink writes every user string (stage names, the job's name,
# paths) into Job.java so that none of it can become Java code: in string
# literals and comments every backslash is doubled, so javac, which turns
# an eligible \uXXXX into its character before it reads the source (JLS
# 3.3), finds no escape of the user's, and quotes are escaped; identifiers
# and the traces' file names are generated (source0, data/source0.csv),
# never taken from names, so two names that filter alike never collide.
# A stage name holding the six characters \u000a used to end the //
# comment above its block, making the rest of the name a statement of
# main(): `mvn exec:exec` of the export ran an injected Runtime.exec.
# Characters beyond ASCII are \uXXXX escapes of the export's own, so that
# Job.java is ASCII and javac reads it alike in any locale (JDK 17's reads
# a source in the locale's encoding: a raw "ö" under LANG=C is an error).
# Where Flink can run, the job compiles under LC_ALL=C and runs, and its
# results hold the trace's odd string keys (quotes, a comma, backslashes,
# "*/", the six characters \u0022, other scripts) as wmrun's do.
. "$srcdir/tests/lib/lib.sh"

# Each name or value tries another way out: a line end by unicode escape,
# one after an escaped backslash (three backslashes: the third is
# eligible), the end of a block comment, a quote.
trace="$scratch/tr\\u000aRuntime.getRuntime().halt(5);.csv"
cat >"$trace" <<'TRACE'
0,1000,"q""uo,te",1,0
0,1100,"back\slash\\u0022",2,0
0,1200,"end*/ of a comment",3,0
0,1300,"\u000aRuntime.getRuntime().halt(7);",4,0
0,1400,"窓 fenêtre ключ 😀",5,0
0,3000,"q""uo,te",6,0
TRACE
src="\"s\\\\u000aRuntime.getRuntime().exec(\\\"touch\\\\u0020$scratch/PWNED\\\");//ö\""
win='"w*/\\u000aRuntime.getRuntime().exit(3);/*窓😀"'
cat >"$scratch/job.conf" <<CONF
[job]
name = "j\\\\u000aRuntime.getRuntime().halt(4);//"
[source $src]
partitions = 1
replay = "$(printf '%s' "$trace" | sed 's/\\/\\\\/g')"
pacing = arrival
[window $win]
input = $src
size = 1 s
[sink "k\\\\\\\\\\\\u000aRuntime.getRuntime().halt(6);//\\""]
input = $win
path = "out\\\\u000a\\".csv"
CONF
expect_status 0 "$WMRUN" --export-flink "$scratch/x" "$scratch/job.conf"
job="$scratch/x/src/main/java/wmrun/flink/Job.java"
# The names reached the file (else this test shows nothing).
[ "$(grep -c 'getRuntime()' "$job")" -ge 8 ] || {
	cat "$job" >&2
	fail "the names are not in Job.java"
}

# No unicode escape of an ASCII character that javac would translate: a
# backslash preceded by an even number of backslashes and followed by u
# (one or more) and 00 to 7f. Those beyond ASCII are the export's own.
! grep -nE '(^|[^\\])(\\\\)*\\u+00[0-7][0-9a-fA-F]' "$job" ||
	fail "Job.java holds a unicode escape that javac translates to ASCII"
! LC_ALL=C grep -n '[^ -~]' "$job" || fail "Job.java is not printable ASCII"
grep -q 'w\*/\\\\u000aRuntime.getRuntime().exit(3);/\*\\u7a93\\ud83d\\ude00' "$job" ||
	fail "the window's name beyond ASCII is not escaped to UTF-16 units"

# What javac reads as code, comments and literals removed: no name's text.
awk '
{
	line = $0
	n = length(line)
	for (i = 1; i <= n; i++) {
		c = substr(line, i, 1)
		two = substr(line, i, 2)
		if (state == "block") {
			if (two == "*/") { state = ""; i++ }
			continue
		}
		if (state == "str" || state == "chr") {
			if (c == "\\") { i++; continue }
			if ((state == "str" && c == "\"") || (state == "chr" && c == "'\''"))
				state = ""
			continue
		}
		if (two == "//")
			break
		if (two == "/*") { state = "block"; i++; continue }
		if (c == "\"") { state = "str"; continue }
		if (c == "'\''") { state = "chr"; continue }
		printf "%s", c
	}
	if (state == "str" || state == "chr")
		state = "open"
	print ""
}' "$job" >"$scratch/code"
! grep -n 'getRuntime()' "$scratch/code" || {
	cat "$job" >&2
	fail "a stage name became Java code"
}
# Every literal closed on its line.
awk '/open$/ { exit 1 }' "$scratch/code" || fail "a string literal runs past its line"

# Identifiers and file names are generated, by kind and stage index,
# never taken from a name.
ls "$scratch/x/data" >"$scratch/files"
[ "$(cat "$scratch/files")" = source0.csv ] ||
	fail "the trace is not data/source0.csv: $(cat "$scratch/files")"
grep -nE '^ *(DataStream<TraceRecord>|SingleOutputStreamOperator<String>) ' "$job" |
	grep -vE '(DataStream<TraceRecord> source0|SingleOutputStreamOperator<String> window1) = ' &&
	fail "a stage variable is not named by kind and index"

# Names that filter to one identifier ("a_b_2", then "a-b" and "a.b",
# which used to become source_a_b, then source_a_b_2 again) are three
# variables and three traces.
cat >"$scratch/same.conf" <<CONF
[source a_b_2]
partitions = 1
replay = $scratch/t.csv
[source a-b]
partitions = 1
replay = $scratch/t.csv
[source a.b]
partitions = 1
replay = $scratch/t.csv
[window v]
input = a_b_2
size = 1 s
[window w]
input = a-b, a.b
size = 1 s
[sink k]
input = v
path = v.csv
[sink l]
input = w
path = w.csv
CONF
printf '0,1000,1,1,0\n' >"$scratch/t.csv"
expect_status 0 "$WMRUN" --export-flink "$scratch/same" "$scratch/same.conf"
job="$scratch/same/src/main/java/wmrun/flink/Job.java"
[ "$(ls "$scratch/same/data" | tr '\n' ' ')" = "source0.csv source1.csv source2.csv " ] ||
	fail "three sources whose names filter alike have not three traces: $(ls "$scratch/same/data")"
vars=$(sed -n 's/^ *DataStream<TraceRecord> \([^ ]*\) =.*/\1/p' "$job" | tr '\n' ' ')
[ "$vars" = "source0 source1 source2 " ] || {
	cat "$job" >&2
	fail "three sources whose names filter alike are the variables $vars"
}
expect_line 'source1\.union\(source2\)' "$job"
for n in a_b_2 a-b a.b; do
	grep -qF "\"$n\"" "$job" || fail "source \"$n\" is not named in Job.java"
done
job="$scratch/x/src/main/java/wmrun/flink/Job.java"

# Where Flink can run (flink_lib.sh): javac compiles the export and the job
# runs on the MiniCluster, writing its results under the sink's odd name,
# and nothing of the names ran.
status=0
(
	. "$srcdir/tests/lib/flink_lib.sh"
	flink_require
	flink_classpath
	LC_ALL=C flink_run "$scratch/x" "$scratch/flink.log"
) || status=$?
case $status in
0)
	[ -s "$scratch/x/out\\u000a\".csv" ] || fail "the Flink job wrote no results"
	mkdir "$scratch/sim"
	(cd "$scratch/sim" && "$WMRUN" --sim --quiet "$scratch/job.conf") ||
		fail "wmrun --sim cannot run the topology"
	# Each line without its last three columns (fire_time, watermark,
	# late_firing): a quoted key may hold a comma.
	for run in sim x; do
		sed 's/,[^,]*,[^,]*,[^,]*$//' "$scratch/$run/out\\u000a\".csv" |
			LC_ALL=C sort >"$scratch/$run.keys"
	done
	[ "$(wc -l <"$scratch/sim.keys")" -eq 7 ] ||
		fail "wmrun's results are not the six windows and the header: $(cat "$scratch/sim.keys")"
	grep -q '^窓 fenêtre ключ 😀,1000,2000,1$' "$scratch/sim.keys" &&
		grep -q '^"q""uo,te",1000,2000,1$' "$scratch/sim.keys" ||
		fail "wmrun's results lack the odd keys: $(cat "$scratch/sim.keys")"
	diff -u "$scratch/sim.keys" "$scratch/x.keys" ||
		fail "the Flink job's keys are not wmrun's"
	;;
77) echo "note: no Flink here; the export was checked as text only" ;;
*) fail "the export does not compile or run on Flink" ;;
esac
[ ! -e "$scratch/PWNED" ] || fail "a stage name ran as code"
exit 0
