#!/bin/sh
# A window reads a window (Nexmark q5's shape): bids counted per key in
# sliding windows of 10 s every 2 s, each count going on as a record of
# its key, its window's end - 1 and the count (emit = count), into a
# tumbling window of 2 s and one of 6 s that take the count, sum and max
# of those counts. Under --sim and in a real run, the second windows are
# what an awk reading the recorded source computes, and the two runs
# agree; a keyBy between the windows changes nothing; session and
# processing-time windows send their results on too; string keys stay
# whole across a restart; every record is accounted for. A window with no long to send, emit = avg or an
# aggregate the window lacks are refused at their line and column (78),
# and so is --export-flink of a window read by a window.
. "$srcdir/tests/lib/lib.sh"

# A window of SIZE over INPUT with PARALLELISM, its AGGREGATES written
# to PATH by a sink.
reader() { # reader NAME INPUT PARALLELISM SIZE AGGREGATES PATH
	printf '[window %s]\ninput = %s\nparallelism = %s\nsize = %s\n' \
		"$1" "$2" "$3" "$4"
	printf 'aggregates = %s\n[sink %s_out]\ninput = %s\npath = %s\n' \
		"$5" "$1" "$1" "$6"
}

conf() { # conf NAME: the job, its sinks' files named NAME.*
	cat <<CONF
[job]
event_time = 2 min
speed = 200
seed = 5
[source bids]
parallelism = 2
partitions = 4
rate = 20/s
keys = 7
out_of_orderness = 1 s
[window counts]
input = bids
parallelism = 2
type = sliding
size = 10 s
slide = 2 s
emit = count
CONF
	reader top counts 3 '2 s' 'count, sum, max' "$scratch/$1.top"
	reader wide counts 1 '6 s' 'count, sum, max' "$scratch/$1.wide"
}

# The second windows of SIZE ms from a recorded trace, by brute force:
# each record counted (or its value summed, with VALUES) in each sliding
# window holding it (starts every 2 s, fewer than 10 s before it), each
# count at its window's end - 1 in the tumbling window of SIZE holding
# that; key, start, end, then the count, sum and max of its counts.
oracle() { # oracle TRACE SIZE [VALUES]
	awk -F, -v size="$2" -v values="${3:-}" '
	function down(x, m,    r) { r = x % m; return r < 0 ? x - r - m : x - r }
	NR > 1 {
		for (s = down($2, 2000); s > $2 - 10000; s -= 2000)
			n[$3 "," s] += values ? $4 : 1
	}
	END {
		for (ks in n) {
			split(ks, p, ",")
			w = p[1] "," down(p[2] + 9999, size)
			c[w]++
			sum[w] += n[ks]
			if (!(w in max) || n[ks] > max[w])
				max[w] = n[ks]
		}
		for (w in c) {
			split(w, p, ",")
			print p[1] "," p[2] "," p[2] + size "," c[w] "," sum[w] "," max[w]
		}
	}' "$1" | LC_ALL=C sort
}

check() { # check RUN: its second windows are the oracle's of its trace
	for w in top:2000 wide:6000; do
		name=${w%:*}
		[ "$(head -n 1 "$scratch/$1.$name")" = \
			"key,window_start,window_end,count,sum,max,fire_time,watermark,late_firing" ] ||
			fail "$1: the header of $name is $(head -n 1 "$scratch/$1.$name")"
		oracle "$scratch/$1.trace" "${w#*:}" >"$scratch/$1.$name.want"
		tail -n +2 "$scratch/$1.$name" | cut -d, -f1-6 | LC_ALL=C sort \
			>"$scratch/$1.$name.got"
		[ "$(wc -l <"$scratch/$1.$name.want")" -gt 150 ] ||
			fail "$1: only $(wc -l <"$scratch/$1.$name.want") $name windows"
		diff -u "$scratch/$1.$name.want" "$scratch/$1.$name.got" \
			>"$scratch/$1.$name.diff" || {
			head -20 "$scratch/$1.$name.diff"
			fail "$1: window $name differs from counting the counts"
		}
	done
	# 455 counts (7 keys, 65 windows of 2 min and the 4 before), each
	# read by both second windows; nothing late, nothing lost.
	expect_line '^  records read +9600$' "$scratch/err"
	expect_line '^  into windows +10510$' "$scratch/err"
	# Written: the second windows' results; the counts go on unwritten.
	expect_line '^  windows fired +1071 \(0 late firings\)$' "$scratch/err"
	expect_line '^  results written +616$' "$scratch/err"
	expect_line '^  late, dropped +0$' "$scratch/err"
	expect_line '^    window +counts +in 9600 +out 455 ' "$scratch/err"
	expect_line '^    window +top +in 455 +out 455 ' "$scratch/err"
	expect_line '^    window +wide +in 455 +out 161 ' "$scratch/err"
	expect_line '^  every record accounted +yes$' "$scratch/err"
}

conf sim >"$scratch/sim.conf"
expect_status 0 "$WMRUN" --sim --record-trace "$scratch/sim.trace" \
	"$scratch/sim.conf"
check sim
# A real run on --sim's event-time origin: the same records, the same
# windows.
conf real >"$scratch/real.conf"
expect_status 0 timeout 120 "$WMRUN" --set job.event_time_origin=0 \
	--record-trace "$scratch/real.trace" "$scratch/real.conf"
check real
for name in top wide; do
	cmp -s "$scratch/sim.$name.got" "$scratch/real.$name.got" ||
		fail "a real run's window $name differs from --sim's"
done

# A keyBy between the windows: the counts rehashed by their key, the
# same second windows.
conf keyby | sed -e 's/^input = counts$/input = k/' \
	-e 's/^\[window top\]$/[keyby k]\ninput = counts\nparallelism = 3\n&/' \
	>"$scratch/keyby.conf"
expect_status 0 "$WMRUN" --sim "$scratch/keyby.conf"
expect_line '^  every record accounted +yes$' "$scratch/err"
for name in top wide; do
	tail -n +2 "$scratch/keyby.$name" | cut -d, -f1-6 | LC_ALL=C sort |
		cmp -s "$scratch/sim.$name.got" - ||
		fail "a keyBy between the windows changed window $name"
done

# Sessions (gap 2 s) of sparse records, and processing-time windows,
# each read by a window of the whole job: each key's sessions are as
# many as its gaps of 2 s or more, plus one, and hold all its records;
# each record is in one processing-time window.
{
	printf '[job]\nevent_time = 10 min\nseed = 9\n'
	printf '[source s]\npartitions = 2\nrate = 1/s\nkeys = 3\n'
	printf 'out_of_orderness = 1 s\n'
	printf '[window sessions]\ninput = s\ntype = session\ngap = 2 s\n'
	reader by_session sessions 1 '1 h' 'count, sum' "$scratch/by_session.csv"
	printf '[window clock]\ninput = s\ntime = processing\nsize = 5 s\n'
	reader by_clock clock 1 '1 h' sum "$scratch/by_clock.csv"
} >"$scratch/merge.conf"
expect_status 0 "$WMRUN" --sim --record-trace "$scratch/merge.trace" \
	"$scratch/merge.conf"
expect_line '^  late, dropped +0$' "$scratch/err"
expect_line '^  every record accounted +yes$' "$scratch/err"
tail -n +2 "$scratch/merge.trace" | LC_ALL=C sort -t, -k3,3n -k2,2n |
	awk -F, 'NR == 1 || $3 != key { if (NR > 1) print key "," n "," c
		key = $3; n = 1; c = 0; end = $2 + 2000 }
	$2 >= end { n++ }
	{ c++; if ($2 + 2000 > end) end = $2 + 2000 }
	END { print key "," n "," c }' >"$scratch/sessions.want"
[ "$(awk -F, '{ s += $2 } END { print s }' "$scratch/sessions.want")" -gt 30 ] ||
	fail "too few sessions: $(cat "$scratch/sessions.want")"
awk -F, 'NR > 1 { n[$1] += $4; c[$1] += $5 }
	END { for (k in n) print k "," n[k] "," c[k] }' "$scratch/by_session.csv" |
	LC_ALL=C sort -n | cmp -s "$scratch/sessions.want" - ||
	fail "the sessions as records are not the trace's sessions"
awk -F, 'NR > 1 { c[$3]++ } END { for (k in c) print k "," c[k] }' \
	"$scratch/merge.trace" | LC_ALL=C sort -n >"$scratch/clock.want"
awk -F, 'NR > 1 { c[$1] += $4 } END { for (k in c) print k "," c[k] }' \
	"$scratch/by_clock.csv" | LC_ALL=C sort -n |
	cmp -s "$scratch/clock.want" - ||
	fail "the processing-time windows' counts do not add up to the records"

# Across a restart, string keys: "zed" is read in the first 10 s alone,
# on the other subtask of the stage in the middle than "alice" (sliding
# windows, or a window join of the trace with itself, whose pairs go on
# alike); the job fails at 15.5 s and restores the checkpoint of 14 s,
# whose open windows of zed then fire with no record of it arriving
# again. Their results still go on as string keys, to the subtask of top
# that holds zed's earlier ones: the same lines as a run without the
# failure, zed's whole on one subtask.
awk 'BEGIN { print "partition,timestamp,key,value"
	for (i = 0; i < 160; i++) {
		printf "%d,%d,alice,%d\n", i % 2, i * 250, i
		if (i < 40)
			printf "%d,%d,zed,%d\n", i % 2, i * 250, i
	} }' >"$scratch/zed.trace"
zed_source() { # zed_source NAME
	printf '[source %s]\npartitions = 2\nreplay = %s\n' "$1" "$scratch/zed.trace"
	printf 'pacing = event\nout_of_orderness = 0 ms\n'
}
restarted() { # restarted NAME window|join [FAIL_AT]: checkpoints with it
	printf '[job]\n'
	[ $# -lt 3 ] || printf 'checkpoint_interval = 7 s\ncheckpoint_dir = %s\nfail_at = %s\n' \
		"$scratch/$1.chk" "$3"
	zed_source s
	if [ "$2" = window ]; then
		printf '[window middle]\ninput = s\ntype = sliding\n'
	else
		zed_source t
		printf '[join middle]\nleft = s\nright = t\nwindow = sliding\n'
	fi
	printf 'parallelism = 2\nsize = 10 s\nslide = 5 s\n'
	reader top middle 4 '1 h' 'count, sum' "$scratch/$1.csv"
	printf 'subtask_column = true\n'
}
# zed's 3 windows of 40, 20 and 20 records: counted, 3 results of sum
# 80; paired with themselves, 40 * 40 + 2 * 20 * 20 = 2400 pairs.
for middle in window:3,80 join:2400,46800; do
	name=${middle%:*}
	restarted "$name.whole" "$name" >"$scratch/$name.whole.conf"
	restarted "$name.crash" "$name" '15500 ms' >"$scratch/$name.crash.conf"
	expect_status 0 "$WMRUN" --sim "$scratch/$name.whole.conf"
	expect_status 0 "$WMRUN" --sim "$scratch/$name.crash.conf"
	expect_line '^  restart +at 15.5 s, from chk-2 \(taken at 14.0 s\)$' "$scratch/err"
	expect_line '^  every record accounted +yes$' "$scratch/err"
	[ "$(grep -c "^zed,0,3600000,${middle#*:}," "$scratch/$name.whole.csv")" = 1 ] ||
		fail "$name: zed is not ${middle#*:}: $(cat "$scratch/$name.whole.csv")"
	cut -d, -f1-6,9 "$scratch/$name.whole.csv" | LC_ALL=C sort \
		>"$scratch/$name.whole.got"
	cut -d, -f1-6,9 "$scratch/$name.crash.csv" | LC_ALL=C sort |
		cmp -s "$scratch/$name.whole.got" - ||
		fail "$name: after the restart: $(cat "$scratch/$name.crash.csv")"
done

# Refused at their line and column, exit 78.
bad() { # bad NAME SED-SCRIPT EXPECTED-LINE
	sed "$2" "$scratch/sim.conf" >"$scratch/$1.conf"
	expect_status 78 "$WMRUN" --check "$scratch/$1.conf"
	expect_line "$3" "$scratch/err"
}
bad avg 's/^emit = count$/emit = avg/' \
	'avg.conf:17:8: invalid value for "emit" in \[window counts\]: avg is a double and a record.s value a long'
bad plugin 's/^emit = count$/emit = plugin:quantile(0.5)/' \
	'plugin.conf:17:8: invalid value for "emit" in \[window counts\]: a plugin.s aggregate is no long'
bad absent 's/^emit = count$/emit = max/' \
	'absent.conf:17:8: invalid value for "emit" in \[window counts\]: max is not among the window.s aggregates'
bad no-long 's/^emit = count$/aggregates = avg/' \
	'no-long.conf:19:9: invalid value for "input" in \[window top\]: "counts" is a window with no count, sum, min or max to send as a record.s value'
# A window of avg alone is still read by a sink. Without emit, the
# first long aggregate goes on: here the sum of the bids' values.
sed -e 's/^emit = count$/aggregates = avg/' -e '/^\[window top\]$/,$d' \
	"$scratch/sim.conf" >"$scratch/avg_sink.conf"
printf '[sink avgs]\ninput = counts\npath = /dev/null\n' >>"$scratch/avg_sink.conf"
expect_status 0 "$WMRUN" --check "$scratch/avg_sink.conf"
conf default | sed 's/^emit = count$/aggregates = max, sum/' \
	>"$scratch/default.conf"
expect_status 0 "$WMRUN" --sim "$scratch/default.conf"
expect_line '^  every record accounted +yes$' "$scratch/err"
oracle "$scratch/sim.trace" 2000 values >"$scratch/default.want"
tail -n +2 "$scratch/default.top" | cut -d, -f1-6 | LC_ALL=C sort |
	cmp -s "$scratch/default.want" - ||
	fail "without emit, the sums of the values did not go on"
# A join may read a window too.
printf '[join j]\nleft = counts\nright = bids\nbetween = -1 s, 1 s\n[sink pairs]\ninput = j\npath = /dev/null\n' \
	>>"$scratch/default.conf"
expect_status 0 "$WMRUN" --check "$scratch/default.conf"
# The export refuses a window read by a window, at the reader's input.
expect_status 78 "$WMRUN" --export-flink "$scratch/export" "$scratch/sim.conf"
expect_line 'sim.conf:19:1: cannot export a window read by another stage yet' "$scratch/err"
[ ! -e "$scratch/export" ] || fail "a refused export wrote $scratch/export"
echo "$(wc -l <"$scratch/sim.top.want") and $(wc -l <"$scratch/sim.wide.want") second windows in --sim and a real run; sessions and processing-time windows as records"
