#!/bin/sh
# Bad input gets a clear error naming file, line and column, and the
# sysexits code for it.
. "$srcdir/tests/lib/lib.sh"

printf '[source s]\nidle_timout = 30 s\n' >"$scratch/typo.conf"
expect_status 78 "$WMRUN" --check "$scratch/typo.conf"
expect_line "typo.conf:2:1: unrecognized key \"idle_timout\" in \[source s\] \(did you mean \"idle_timeout\"\?\)" "$scratch/err"

printf '[source s]\nidle_timeout = 0\n' >"$scratch/zero.conf"
expect_status 78 "$WMRUN" --sim "$scratch/zero.conf"
expect_line 'zero.conf:2:16: invalid value for "idle_timeout"' "$scratch/err"

printf '[source s]\n[window w]\ninput = nope\nsize = 1 min\n' >"$scratch/input.conf"
expect_status 78 "$WMRUN" --check "$scratch/input.conf"
expect_line 'input.conf:3:9: .*no stage named "nope"' "$scratch/err"

# A Nexmark source's field that its kind's events do not have, and a
# generator key that does nothing there.
printf '[source bids]\ngenerator = nexmark\nnexmark.key = seller\n' >"$scratch/field.conf"
expect_status 78 "$WMRUN" --sim "$scratch/field.conf"
expect_line 'field\.conf:3:15: invalid value for "nexmark\.key" in \[source bids\]: a bid has no number of that name; its numbers are 1, auction, bidder, price, dateTime$' "$scratch/err"
printf '[source bids]\ngenerator = nexmark\nzipf_exponent = 2\n' >"$scratch/zipf.conf"
expect_status 78 "$WMRUN" --check "$scratch/zipf.conf"
expect_line 'zipf\.conf:3:1: "zipf_exponent" has no effect in \[source bids\]: the source makes a Nexmark stream' "$scratch/err"

expect_status 66 "$WMRUN" --check "$scratch/missing.conf"
expect_line 'could not' "$scratch/err"
# A bad command line: what is wrong in one line, then a pointer to
# --help, not the help itself; the word as the user typed it, escaped.
for bad in --no-such-option --summary --help=x -S "$(printf -- '--x\033[31m')"; do
	expect_status 64 "$WMRUN" $bad
	[ "$(wc -l <"$scratch/err")" -eq 2 ] && [ ! -s "$scratch/out" ] ||
		fail "a bad command line ($bad) printed more than two lines: $(cat "$scratch/out" "$scratch/err")"
	expect_line "^Try 'wmrun --help' for more information\.\$" "$scratch/err"
done
expect_line '^wmrun: unknown option "--x\\x1b\[31m"$' "$scratch/err"
expect_status 64 "$WMRUN" --summary
expect_line '^wmrun: option --summary needs a value$' "$scratch/err"
expect_status 64 "$WMRUN" -S
expect_line '^wmrun: unknown option "-S"$' "$scratch/err"
expect_status 64 "$WMRUN" a.conf b.conf
# --check looks at the outputs as the run would open them: a sink or late
# output in a directory that is not there fails it (74, the run's status)
# naming the stage; nothing is made. A window whose results nothing reads
# is run, with a warning at its section.
printf '[source s]\nrate = 1/s\n[window w]\ninput = s\nsize = 1 min\n[sink o]\ninput = w\npath = %s\n[window lost]\ninput = s\nsize = 1 min\nlate_output = %s\n' \
	"$scratch/no/dir/o.csv" "$scratch/none/l.csv" >"$scratch/outputs.conf"
expect_status 74 "$WMRUN" --check "$scratch/outputs.conf"
expect_line "outputs\.conf:6:1: sink o: could not open output file \"$scratch/no/dir/o\.csv\"" "$scratch/err"
expect_line "outputs\.conf:9:1: late_output of lost: could not open late output file" "$scratch/err"
expect_line 'outputs\.conf:9:1: warning: window lost has no sink: its results go nowhere' "$scratch/err"
[ ! -e "$scratch/no" ] && [ ! -e "$scratch/none" ] || fail "--check made an output's directory"
mkdir -p "$scratch/no/dir" "$scratch/none"
expect_status 0 "$WMRUN" --check "$scratch/outputs.conf"
[ -z "$(find "$scratch/no" "$scratch/none" -type f)" ] || fail "--check made an output file"
! grep -q 'warning: window w ' "$scratch/err" || fail "a window with a sink was warned of"
# Standard output holding JSON lines and CSV: each CSV output there is
# warned of, at its section; CSV alone is not.
printf '[source s]\nrate = 1/s\n[window w]\ninput = s\nsize = 1 min\nlate_output = -\n[sink j]\ninput = w\nformat = jsonl\npath = -\n[sink c]\ninput = w\npath = -\n' \
	>"$scratch/mixed.conf"
expect_status 0 "$WMRUN" --check "$scratch/mixed.conf"
expect_line 'mixed\.conf:3:1: warning: the late records of window w go to standard output as CSV, where sink j writes JSON lines' "$scratch/err"
expect_line 'mixed\.conf:11:1: warning: sink c writes CSV to standard output, where sink j writes JSON lines' "$scratch/err"
sed -i 's/^format = jsonl$/format = csv/' "$scratch/mixed.conf"
expect_status 0 "$WMRUN" --check "$scratch/mixed.conf"
! grep -q 'warning' "$scratch/err" || fail "CSV alone on standard output was warned of: $(cat "$scratch/err")"
# A relative trace path is read from the topology's directory, whatever
# the current one; a trace that cannot be read is named with the line and
# column of its replay key, before anything runs (--check too: 66).
mkdir -p "$scratch/dir/sub"
printf 'partition,timestamp,key,value\n0,1000,1,1\n0,2000,1,1\n' >"$scratch/dir/sub/t.csv"
printf '[source s]\npartitions = 1\nreplay = sub/t.csv\n[window w]\ninput = s\nsize = 1 min\n[sink o]\ninput = w\npath = -\n' \
	>"$scratch/dir/rel.conf"
(cd / && "$WMRUN" --sim --quiet "$scratch/dir/rel.conf") >"$scratch/rel.out" 2>"$scratch/rel.err" ||
	fail "a trace beside its topology is not found from another directory: $(cat "$scratch/rel.err")"
grep -q '^1,0,60000,2,' "$scratch/rel.out" || fail "the trace's two records are not in one window: $(cat "$scratch/rel.out")"
rm "$scratch/dir/sub/t.csv"
expect_status 66 "$WMRUN" --check "$scratch/dir/rel.conf"
expect_line "rel\.conf:3:10: source s: could not read trace \"$scratch/dir/sub/t\.csv\": No such file or directory$" "$scratch/err"
# A topology error stops a real run before any process starts.
expect_status 78 "$WMRUN" "$scratch/typo.conf"
# --check prints the plan.
expect_status 0 "$WMRUN" --check "$EXAMPLES/quiet_partitions.conf"
expect_line '^  window  counts +parallelism 2, max parallelism 128, input hash from "events"' "$scratch/out"
expect_line '^events/3 ' "$scratch/out"

# An explicit placement names one CPU per subtask, in plan order.
printf '[job]\ncpus = 0\n[source s]\nparallelism = 2\nrate = 1/s\n[window w]\ninput = s\nsize = 1 min\n' >"$scratch/cpus.conf"
expect_status 78 "$WMRUN" --check "$scratch/cpus.conf"
expect_line 'cpus.conf:2:8: invalid value for "cpus" in \[job\]: names 1 CPUs for 3 subtasks' "$scratch/err"
expect_status 78 "$WMRUN" "$scratch/cpus.conf"
expect_line 'cpus.conf:2:8: invalid value for "cpus" in \[job\]: names 1 CPUs for 3 subtasks' "$scratch/err"
sed -i 's/^cpus = 0$/cpus = 0,0,0/' "$scratch/cpus.conf"
expect_status 0 "$WMRUN" --check "$scratch/cpus.conf"
expect_line 'from the CPU list' "$scratch/out"
expect_line '^s/1 +0 ' "$scratch/out"
# --sim refuses a job that would never end, naming where its endless
# source is; a real run is a stream job.
expect_status 78 "$WMRUN" --sim "$scratch/cpus.conf"
expect_line 'cpus.conf:3:1: source "s" never ends: give \[job\] a run length' "$scratch/err"
# So does one whose run length some partition can never reach: silent for
# ever, or held back for ever by watermark alignment behind one that is
# (--sim used to tick its watermarks for ever).
printf '[job]\nrecords = 10\n[source s]\npartitions = 2\nrate = 1/s\nsilence = 0\n[window w]\ninput = s\nsize = 1 s\n' >"$scratch/silent.conf"
expect_status 78 timeout 30 "$WMRUN" --sim "$scratch/silent.conf"
expect_line 'silent.conf:3:1: source "s" never ends: a partition silent for ever, or held back for ever by watermark alignment, never reaches \[job\] records = 10; give \[job\] event_time or processing_time' "$scratch/err"
printf '[job]\nrecords = 100\n[source a]\nrate = 10/s\nsilence = 0 from 1 s\nwatermark_alignment_group = g\nwatermark_alignment_max_drift = 1 s\n[source b]\nrate = 10/s\nwatermark_alignment_group = g\nwatermark_alignment_max_drift = 1 s\n[window w]\ninput = a, b\nsize = 1 s\n' >"$scratch/held.conf"
expect_status 78 timeout 30 "$WMRUN" --sim "$scratch/held.conf"
expect_line 'held.conf:3:1: source "a" never ends' "$scratch/err"
# With an event_time, a silent partition ends with it.
sed -i 's/^records = 10$/event_time = 1 min/' "$scratch/silent.conf"
expect_status 0 timeout 30 "$WMRUN" --sim "$scratch/silent.conf"
# The CPUs of the list must exist; the error points at the list.
printf '[job]\ncpus = 0,4097,4096\n[source s]\nparallelism = 2\nrate = 1/s\n[window w]\ninput = s\nsize = 1 min\n' >"$scratch/nocpu.conf"
expect_status 78 "$WMRUN" --check "$scratch/nocpu.conf"
expect_line 'nocpu.conf:2:8: invalid value for "cpus" in \[job\]: CPU 4097 .*does not exist' "$scratch/err"

# Keys another stage kind has are still unknown here.
printf '[source s]\ninput = x\nmax_parallelism = 7\n[window w]\ninput = s\nsize = 1 min\n' >"$scratch/foreign.conf"
expect_status 78 "$WMRUN" --check "$scratch/foreign.conf"
expect_line 'foreign.conf:2:1: unrecognized key "input" in \[source s\]' "$scratch/err"
sed -i '/^input = x$/d' "$scratch/foreign.conf"
expect_status 78 "$WMRUN" --check "$scratch/foreign.conf"
expect_line 'foreign.conf:2:1: unrecognized key "max_parallelism" in \[source s\]' "$scratch/err"

# An input named twice would count every record twice.
printf '[source s]\n[window w]\ninput = s, s\nsize = 1 min\n' >"$scratch/twice.conf"
expect_status 78 "$WMRUN" --check "$scratch/twice.conf"
expect_line 'twice.conf:3:9: .*names "s" twice' "$scratch/err"

# A window's results go on as records to a window or keyby reading it
# (window_reads_a_window.sh), declared before it or not; a window whose
# aggregates hold no long (avg) has no value to send, and only a sink
# can read it.
printf '[job]\nevent_time = 1 min\n[window late]\ninput = w\nsize = 1 min\n[source s]\nrate = 10/s\n[window w]\ninput = s\nsize = 1 s\n' >"$scratch/cascade.conf"
expect_status 0 "$WMRUN" --sim "$scratch/cascade.conf"
expect_line '^  every record accounted +yes$' "$scratch/err"
printf 'aggregates = avg\n' >>"$scratch/cascade.conf"
expect_status 78 "$WMRUN" --sim "$scratch/cascade.conf"
expect_line 'cascade.conf:4:9: invalid value for "input" in \[window late\]: "w" is a window with no count, sum, min or max to send as a record.s value, so only a sink can write its results' "$scratch/err"
printf '[source s]\n[window w]\ninput = s\nsize = 1 s\naggregates = avg\n[keyby k]\ninput = w\n' >"$scratch/cascade.conf"
expect_status 78 "$WMRUN" --check "$scratch/cascade.conf"
expect_line 'cascade.conf:7:9: invalid value for "input" in \[keyby k\]: "w" is a window' "$scratch/err"

# A name no input list could spell.
printf '[source "my source"]\n[window w]\ninput = my source\nsize = 1 min\n' >"$scratch/blank.conf"
expect_status 78 "$WMRUN" --check "$scratch/blank.conf"
expect_line 'blank.conf:1:1: stage name "my source" contains a blank or a comma' "$scratch/err"

# Plain decimal numbers only.
printf '[job]\nspeed = 0x10\n[source s]\n[window w]\ninput = s\nsize = 1 min\n' >"$scratch/speed.conf"
expect_status 78 "$WMRUN" --check "$scratch/speed.conf"
expect_line 'speed.conf:2:9: invalid value for "speed" in \[job\]: invalid number "0x10"' "$scratch/err"

# Jobs that cannot fit one machine are refused before anything is made,
# at the stage that crosses the line.
printf '[source s]\nparallelism = 2049\n[window w]\ninput = s\nsize = 1 min\nparallelism = 2048\n' >"$scratch/huge.conf"
expect_status 78 "$WMRUN" "$scratch/huge.conf"
expect_line 'huge.conf:6:15: .*4097 subtasks by here; at most 4096' "$scratch/err"
printf '[source s]\nparallelism = 300\n[window w]\ninput = s\nsize = 1 min\nparallelism = 300\n' >"$scratch/rings.conf"
expect_status 78 "$WMRUN" --check "$scratch/rings.conf"
expect_line 'rings.conf:6:15: .*90000 rings by here.*at most 65536' "$scratch/err"
awk 'BEGIN { print "[source s0]"; for (i = 1; i <= 1100; i++) printf "[keyby s%d]\ninput = s%d\n", i, i - 1 }' >"$scratch/stages.conf"
expect_status 78 "$WMRUN" --check "$scratch/stages.conf"
expect_line 'too many stages: at most 1024' "$scratch/err"

# The generator's limits are named at their lines, not found at setup.
printf '[job]\nevent_time = 1 min\n[source s]\nout_of_orderness = 20000000 d\n[window w]\ninput = s\nsize = 1 min\n' >"$scratch/delay.conf"
expect_status 78 "$WMRUN" --sim "$scratch/delay.conf"
expect_line 'delay.conf:4:20: invalid value for "out_of_orderness".*at most' "$scratch/err"
printf '[job]\nevent_time = 1 min\n[source s]\nburst = 0 x1e200\nburst = 0 x1e200\n[window w]\ninput = s\nsize = 1 min\n' >"$scratch/burst.conf"
expect_status 78 "$WMRUN" --sim "$scratch/burst.conf"
expect_line 'burst.conf:5:9: invalid value for "burst".*past what a double holds' "$scratch/err"

# Keys that the stage's other keys make meaningless.
printf 'partition,timestamp,key,value\n0,1000,1,1\n' >"$scratch/t.csv"
printf '[source s]\nreplay = %s\nrate = 1/s\n[window w]\ninput = s\nsize = 1 min\n' "$scratch/t.csv" >"$scratch/noeffect.conf"
expect_status 78 "$WMRUN" --check "$scratch/noeffect.conf"
expect_line 'noeffect.conf:3:1: "rate" has no effect in \[source s\]: the source replays a trace' "$scratch/err"
printf '[source s]\npacing = event\n[window w]\ninput = s\nsize = 1 min\n' >"$scratch/pacing.conf"
expect_status 78 "$WMRUN" --check "$scratch/pacing.conf"
expect_line 'pacing.conf:2:1: "pacing" has no effect' "$scratch/err"
printf '[source s]\n[window w]\ninput = s\nsize = 1 min\nslide = 10 s\n' >"$scratch/slide.conf"
expect_status 78 "$WMRUN" --check "$scratch/slide.conf"
expect_line 'slide.conf:5:1: "slide" has no effect in \[window w\]: a tumbling window' "$scratch/err"
# ... but [global] defaults serve whichever stages use them.
printf '[global]\nslide = 10 s\nsize = 1 min\n[source s]\nrate = 1/s\n[window w]\ninput = s\n[window v]\ninput = s\ntype = sliding\n' >"$scratch/global.conf"
expect_status 0 "$WMRUN" --check "$scratch/global.conf"

# One writer per output file.
printf '[source s]\n[window w]\ninput = s\nsize = 1 min\nlate_output = %s/o.csv\n[sink o]\ninput = w\npath = %s/o.csv\n' "$scratch" "$scratch" >"$scratch/outputs.conf"
expect_status 78 "$WMRUN" --check "$scratch/outputs.conf"
expect_line 'outputs.conf:8:8: invalid value for "path" in \[sink o\]: ".*o.csv" is also the late_output of window "w" \(line 5\)' "$scratch/err"
# No output is a trace the job replays: opening it would erase the
# recording before it is read (and the job would run on nothing). By
# path, or by file when spelled otherwise.
printf '0,1000,1,1\n' >"$scratch/t.csv"
printf '[job]\nname = erase\n[source s]\nreplay = %s/t.csv\n[window w]\ninput = s\nsize = 1 s\n[sink o]\ninput = w\npath = %s/t.csv\n' "$scratch" "$scratch" >"$scratch/erase.conf"
expect_status 78 "$WMRUN" --sim "$scratch/erase.conf"
expect_line 'erase.conf:10:8: invalid value for "path" in \[sink o\]: ".*/t.csv" is the trace that source "s" replays \(line 4\): writing it would erase it' "$scratch/err"
sed -i 's|^path = .*|path = '"$scratch"'/./t.csv|' "$scratch/erase.conf"
expect_status 78 "$WMRUN" "$scratch/erase.conf"
expect_line 'erase.conf:10:8: .* is the trace that source "s" replays' "$scratch/err"
[ "$(cat "$scratch/t.csv")" = '0,1000,1,1' ] || fail "the trace was overwritten"
# Nor is --summary (exit 64): the topology, a trace or an output.
sed -i 's|^path = .*|path = '"$scratch"'/out.csv|' "$scratch/erase.conf"
cp "$scratch/erase.conf" "$scratch/erase.orig"
expect_status 64 "$WMRUN" --sim --summary "$scratch/erase.conf" "$scratch/erase.conf"
expect_line '^wmrun: --summary ".*/erase.conf" is the topology: give the summary its own file$' "$scratch/err"
cmp -s "$scratch/erase.conf" "$scratch/erase.orig" || fail "the topology was overwritten"
expect_status 64 "$WMRUN" --sim --summary "$scratch/./t.csv" "$scratch/erase.conf"
expect_line 'is the trace that source "s" replays: give the summary its own file$' "$scratch/err"
[ "$(cat "$scratch/t.csv")" = '0,1000,1,1' ] || fail "the trace was overwritten"
expect_status 64 "$WMRUN" --sim --summary "$scratch/out.csv" "$scratch/erase.conf"
expect_line 'is the output of sink "o": give the summary its own file$' "$scratch/err"
expect_status 0 "$WMRUN" --sim --summary "$scratch/s.json" "$scratch/erase.conf"

# Outputs that cannot be written: exit 74 with the reason, the same with
# --sim as in a real run.
mkdir -p "$scratch/adir"
for path in "$scratch/adir" "$scratch/no/such/dir.csv"; do
	printf '[job]\nevent_time = 10 s\n[source s]\nrate = unlimited\n[window w]\ninput = s\nsize = 1 s\n[sink o]\ninput = w\npath = %s\n' "$path" >"$scratch/out.conf"
	expect_status 74 "$WMRUN" --sim "$scratch/out.conf"
	expect_line "could not open output file \".*\": (Is a directory|No such file)" "$scratch/err"
	expect_status 74 "$WMRUN" "$scratch/out.conf"
	expect_line "could not open output file \".*\": (Is a directory|No such file)" "$scratch/err"
done
if [ -w /dev/full ]; then
	sed -i "s#^path = .*#path = /dev/full#" "$scratch/out.conf"
	expect_status 74 "$WMRUN" "$scratch/out.conf"
	expect_line 'could not write to "/dev/full" \(sink "o"\): No space left on device' "$scratch/err"
fi

# Options that would be ignored, and names that name nothing.
expect_status 64 "$WMRUN" --check --sim
expect_line 'check runs nothing' "$scratch/err"
expect_status 64 "$WMRUN" --check --summary "$scratch/s.json"
expect_status 64 "$WMRUN" ""
expect_line 'the topology file name is empty' "$scratch/err"
# An unwritable summary is found before the job runs, and a failed job
# leaves no summary behind.
expect_status 74 "$WMRUN" --sim --summary "$scratch/no/such/s.json"
expect_line 'could not open summary file' "$scratch/err"
[ ! -s "$scratch/out" ] || fail "the job ran although its summary could not be written"
# A job that fails before it runs writes no summary (and one it could not
# write leaves nothing at its path, neither empty nor half written).
sed -i "s#^path = .*#path = $scratch/adir#" "$scratch/out.conf"
rm -f "$scratch/s.json"
expect_status 74 "$WMRUN" --sim --summary "$scratch/s.json" "$scratch/out.conf"
[ ! -e "$scratch/s.json" ] || fail "a failed job left a summary file"
[ -z "$(ls -A "$scratch" | grep '^\.s\.json')" ] ||
	fail "a failed job left a temporary summary file"
