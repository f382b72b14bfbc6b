#!/bin/sh
# --record-trace FILE writes every record the sources emit, with its
# arrival, and FILE.conf, the topology that replays it: replaying that
# under --sim gives the recorded job's window results byte for byte, the
# same late side output and the same late counts, for jobs with silences,
# idleness, disorder and late records. A real run's recording replays to
# the real run's windows. A recording that cannot be written stops the job
# (exit 74, naming the file), as a sink does; options that would make the
# recording overwrite another file, or many runs share it, are refused.
. "$srcdir/tests/lib/lib.sh"

# late_counts JSON -- the summary's late counts, one line.
late_counts() {
	grep -o '"late_records_[a-z_]*":[0-9]*' "$1" | tr '\n' ' '
}

# replays NAME CONF [MODE] -- record CONF (MODE: --sim or real), then
# replay the recording under --sim in a directory of its own; the results
# (stdout), the late side output and the late counts must match. A real
# run that fell behind its schedule by idle_timeout (5 s) or more is not
# compared (exact=false): a source worker starved that long leaves a gap
# in its partitions' arrivals, which the replay takes for a silence.
replays() {
	name=$1
	conf=$2
	mode=${3:---sim}
	[ "$mode" = real ] && mode=
	rec="$scratch/$name/rec"
	play="$scratch/$name/play"
	mkdir -p "$rec" "$play"
	# shellcheck disable=SC2086
	(cd "$rec" && timeout 300 "$WMRUN" $mode --quiet --summary s.json \
		--record-trace trace.csv "$conf" >out 2>err) ||
		{ cat "$rec/err" >&2; fail "$name: the recorded run failed"; }
	[ -s "$rec/trace.csv.conf" ] || fail "$name: no replay topology"
	head -n 1 "$rec/trace.csv" | grep -qx 'partition,timestamp,key,value,arrival' ||
		fail "$name: the recording has no header"
	read_n=$(grep -o '"records_read":[0-9]*' "$rec/s.json" | cut -d: -f2)
	[ "$(($(wc -l <"$rec/trace.csv") - 1))" -eq "$read_n" ] ||
		fail "$name: $read_n records read, $(wc -l <"$rec/trace.csv") lines recorded"
	sed 's|^replay = "trace.csv"|replay = "../rec/trace.csv"|' \
		"$rec/trace.csv.conf" >"$play/replay.conf"
	(cd "$play" && timeout 300 "$WMRUN" --sim --quiet --summary s.json \
		replay.conf >out 2>err) ||
		{ cat "$play/err" >&2; fail "$name: the replay failed"; }
	exact=true
	noise=$(sed -n 's/.*"scheduling_noise_ms":\([0-9]*\).*/\1/p' "$rec/s.json")
	if [ "${noise:-0}" -ge 5000 ]; then
		exact=false
		echo "NOTE: $name: the run fell behind its schedule by $noise ms, past idle_timeout: its replay is not compared"
		return
	fi
	[ "$(late_counts "$rec/s.json")" = "$(late_counts "$play/s.json")" ] ||
		fail "$name: late counts $(late_counts "$rec/s.json") recorded, $(late_counts "$play/s.json") replayed"
}

# Under --sim: byte for byte.
for ex in quiet_partitions late_data; do
	replays "$ex" "$(cd "$EXAMPLES" && pwd)/$ex.conf"
	cmp "$scratch/$ex/rec/out" "$scratch/$ex/play/out" ||
		fail "$ex: the replay's window results differ from the run's"
	[ "$(wc -l <"$scratch/$ex/rec/out")" -gt 100 ] ||
		fail "$ex: too few results to compare"
done
cmp "$scratch/late_data/rec/late-records.csv" \
	"$scratch/late_data/play/late-records.csv" ||
	fail "late_data: the replay's late side output differs"
expect_line '^replay_end = 1800000 ms$' "$scratch/late_data/rec/trace.csv.conf"
expect_line '^# rate = 20/s' "$scratch/late_data/rec/trace.csv.conf"

# A real run: the recording is what the workers emitted, when they emitted
# it, so its replay puts the same records in the same windows (no record
# is late here: lateness would depend on the real run's timing). At speed
# 12 the idle timeout is 417 ms of real time: a source worker starved
# shorter than that on a loaded machine leaves a gap in its partitions'
# arrivals that the replay does not take for idleness; one starved longer
# leaves the run uncompared (replays), and says so.
cat >"$scratch/real.conf" <<CONF
[job]
event_time = 1 min
speed = 12
seed = 3
[source s]
parallelism = 2
partitions = 4
rate = 50/s
out_of_orderness = 1 s
keys = 10
idle_timeout = 5 s
silence = 3 from 20 s to 40 s
[window w]
input = s
parallelism = 2
size = 10 s
aggregates = count, sum
[sink out]
input = w
parallelism = 2
path = -
CONF
replays real "$scratch/real.conf" real
cut -d, -f1-5 "$scratch/real/rec/out" | sort >"$scratch/a"
cut -d, -f1-5 "$scratch/real/play/out" | sort >"$scratch/b"
[ "$(wc -l <"$scratch/a")" -gt 20 ] || fail "real: too few results"
! $exact || cmp "$scratch/a" "$scratch/b" ||
	fail "real: the replay put records in other windows than the run"
# Two source subtasks wrote one file: every partition in its own order.
for p in 0 1 2 3; do
	awk -F, -v p="$p" 'NR > 1 && $1 == p { if ($5 < last) exit 1; last = $5 }' \
		"$scratch/real/rec/trace.csv" ||
		fail "real: partition $p's arrivals go backwards"
done

# Several sources: a trace each, named after them.
cat >"$scratch/two.conf" <<CONF
[job]
records = 10
[source a]
partitions = 1
rate = unlimited
[source b]
partitions = 1
rate = unlimited
[window w]
input = a, b
size = 1 s
[sink out]
input = w
path = $scratch/two.csv
CONF
expect_status 0 "$WMRUN" --sim --record-trace "$scratch/two.trace.csv" "$scratch/two.conf"
[ "$(wc -l <"$scratch/two.trace.a.csv")" -eq 11 ] || fail "no trace of source a"
[ "$(wc -l <"$scratch/two.trace.b.csv")" -eq 11 ] || fail "no trace of source b"
expect_line 'replay = ".*two.trace.a.csv"' "$scratch/two.trace.csv.conf"
expect_status 0 "$WMRUN" --sim --quiet "$scratch/two.trace.csv.conf"

# A failed write stops the job, naming the recording: under --sim a file
# size limit (EFBIG; wmrun ignores SIGXFSZ), in a real run a reader that
# goes away (EPIPE; a size limit would refuse the shared memory first).
sed 's|^path = .*|path = /dev/null|' "$scratch/real.conf" >"$scratch/big.conf"
expect_status 74 sh -c "ulimit -f 64; exec timeout 300 \"$WMRUN\" --sim \
	--record-trace \"$scratch/big.csv\" \"$scratch/big.conf\""
expect_line "could not write to \"$scratch/big.csv\" \(recording of source \"s\"\): File too large" "$scratch/err"
[ "$(tail -c 1 "$scratch/big.csv" | od -An -c | tr -d ' ')" = '\n' ] ||
	fail "the recording ends in the middle of a line"
mkfifo "$scratch/pipe"
head -c 100 "$scratch/pipe" >/dev/null &
expect_status 74 timeout 300 "$WMRUN" --record-trace "$scratch/pipe" "$scratch/big.conf"
wait
expect_line "could not write to \"$scratch/pipe\" \(recording of source \"s\"\): Broken pipe" "$scratch/err"

# Refused: a file the job or another option writes, a sweep, stdout.
sed "s|^path = .*|path = $scratch/sink.csv|" "$scratch/real.conf" >"$scratch/sink.conf"
expect_status 64 "$WMRUN" --sim --record-trace "$scratch/sink.csv" "$scratch/sink.conf"
expect_line 'is the output of sink "out"' "$scratch/err"
expect_status 64 "$WMRUN" --sim --summary "$scratch/s.csv" --record-trace "$scratch/s.csv" "$scratch/real.conf"
expect_line 'is the --summary file' "$scratch/err"
expect_status 64 "$WMRUN" --sim --record-trace "$scratch/two" "$scratch/two.conf"
expect_line 'replay topology into ".*two.conf", which is the topology' "$scratch/err"
expect_status 64 "$WMRUN" --sim --sweep s.keys=1,2 --record-trace "$scratch/t.csv" "$scratch/real.conf"
expect_line 'takes no --check or --sweep' "$scratch/err"
expect_status 64 "$WMRUN" --sim --record-trace - "$scratch/real.conf"
exit 0
