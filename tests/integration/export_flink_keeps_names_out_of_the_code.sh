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
. "$srcdir/tests/lib/lib.sh"

# Each name or value tries another way out: a line end by unicode escape,
# one after an escaped backslash (three backslashes: the third is
# eligible), the end of a block comment, a quote.
trace="$scratch/tr\\u000aRuntime.getRuntime().halt(5);.csv"
printf '0,1000,1,1,0\n0,3000,1,1,0\n' >"$trace"
src="\"s\\\\u000aRuntime.getRuntime().exec(\\\"touch\\\\u0020$scratch/PWNED\\\");//\""
win='"w*/\\u000aRuntime.getRuntime().exit(3);/*"'
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

# No unicode escape that javac would translate: a backslash preceded by an
# even number of backslashes and followed by u.
! grep -nE '(^|[^\\])(\\\\)*\\u' "$job" ||
	fail "Job.java holds a unicode escape that javac translates"

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
	flink_run "$scratch/x" "$scratch/flink.log"
) || status=$?
case $status in
0)
	[ -s "$scratch/x/out\\u000a\".csv" ] || fail "the Flink job wrote no results"
	;;
77) echo "note: no Flink here; the export was checked as text only" ;;
*) fail "the export does not compile or run on Flink" ;;
esac
[ ! -e "$scratch/PWNED" ] || fail "a stage name ran as code"
exit 0
