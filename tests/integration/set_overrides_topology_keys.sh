#!/bin/sh
# --set SECTION.KEY=VALUE sets a key of the topology for one run, as if the
# file said so: the run is the run of the edited file, byte for byte; a
# key the section lacks is added, the last setting of a key wins, and the
# file's lines keep their numbers in every message. What is wrong with a
# setting is said naming the option: a bad value (exit 78, as in a file),
# a key the section does not take or a stage the topology lacks (exit 64,
# a bad command line), a malformed option, and a key that --sweep also
# sweeps. Sweeps, --record-trace's replay topology and the Flink export
# take the settings too.
. "$srcdir/tests/lib/lib.sh"

ex=$EXAMPLES/quiet_partitions.conf
cp "$ex" "$scratch/file.conf"

# same WHAT FILE OPTIONS...: the run of FILE under --sim equals the run
# of $scratch/file.conf with OPTIONS, results and summary alike.
same() {
	what=$1 edited=$2
	shift 2
	expect_status 0 "$WMRUN" --sim "$edited"
	mv "$scratch/out" "$scratch/want.out"
	comparable_summary "$scratch/err" >"$scratch/want.err"
	expect_status 0 "$WMRUN" --sim "$@" "$scratch/file.conf"
	comparable_summary "$scratch/err" >"$scratch/got.err"
	cmp -s "$scratch/want.out" "$scratch/out" ||
		fail "$what: the results differ from the edited file's"
	diff -u "$scratch/want.err" "$scratch/got.err" ||
		fail "$what: the summary differs from the edited file's"
	[ -s "$scratch/out" ] || fail "$what: no results"
}

# A key the section has: replaced.
sed 's/^idle_timeout = 30 s.*/idle_timeout = 5 s/' "$ex" >"$scratch/idle.conf"
grep -q '^idle_timeout = 5 s$' "$scratch/idle.conf" || fail "the example has no idle_timeout = 30 s"
same "a replaced key" "$scratch/idle.conf" --set events.idle_timeout=5s
# The last setting of a key wins.
same "two settings of a key" "$scratch/idle.conf" \
	--set events.idle_timeout=1min --set "events.idle_timeout=5 s"
# A key the section lacks: added.
! grep -q '^allowed_lateness' "$ex" || fail "the example has allowed_lateness already"
sed 's/^\[window counts\]$/&\nallowed_lateness = 20 min/' "$ex" >"$scratch/late.conf"
same "an added key" "$scratch/late.conf" --set counts.allowed_lateness=20min
# The built-in topology takes settings too.
expect_status 0 "$WMRUN" --sim --quiet --set job.event_time=1h
n=$(grep -c ',' "$scratch/out")
[ "$n" -gt 1 ] && [ "$n" -lt 100 ] || fail "the built-in topology cut to 1 h wrote $n lines"

# What is wrong, said naming the option.
expect_status 78 "$WMRUN" --check --set events.idle_timeout=0 "$ex"
expect_line '^wmrun: --set events\.idle_timeout=0: invalid value for "idle_timeout" in \[source events\]' "$scratch/err"
expect_status 64 "$WMRUN" --check --set events.idle_timout=5s "$ex"
expect_line '^wmrun: --set events\.idle_timout=5s: unrecognized key "idle_timout" for source events \(did you mean "idle_timeout"\?\)$' "$scratch/err"
expect_status 64 "$WMRUN" --check --set nightly.size=1min "$ex"
expect_line '^wmrun: --set nightly\.size=1min: the topology has no stage named "nightly"' "$scratch/err"
expect_status 64 "$WMRUN" --check --set events.idle_timeout "$ex"
expect_line '^wmrun: invalid --set "events\.idle_timeout": expected SECTION\.KEY=VALUE$' "$scratch/err"
expect_status 64 "$WMRUN" --sim --sweep events.idle_timeout=1s,2s --set events.idle_timeout=5s "$ex"
expect_line '^wmrun: --set events\.idle_timeout=5s: --sweep events\.idle_timeout=\.\.\. sweeps that key$' "$scratch/err"
# A key given twice in a section (a repeatable one) cannot be set.
printf '[source s]\nrate = 1/s\nsilence = 0 from 1 min to 2 min\nsilence = 0 from 3 min to 4 min\n[window w]\ninput = s\nsize = 1 min\n' \
	>"$scratch/twice.conf"
expect_status 64 "$WMRUN" --check --set "s.silence=0 from 1 min to 5 min" "$scratch/twice.conf"
expect_line 'key "silence" is given more than once in s' "$scratch/err"

# The file's lines keep their numbers: a key added to the first section
# leaves the error on line 9 where it is.
printf '[source s]\nrate = 1/s\npartitions = 2\n\n\n\n[window w]\ninput = s\nsize = 1 lightyear\n' \
	>"$scratch/bad.conf"
expect_status 78 "$WMRUN" --check --set s.out_of_orderness=2s --set job.seed=7 "$scratch/bad.conf"
expect_line 'bad\.conf:9:8: invalid value for "size"' "$scratch/err"

# A sweep runs every combination with the settings: its table is the
# table of the edited file's sweep.
sed 's/^event_time = .*/event_time = 2 h/' "$ex" >"$scratch/short.conf"
expect_status 0 "$WMRUN" --sim --sweep events.idle_timeout=10s,1min "$scratch/short.conf"
mv "$scratch/out" "$scratch/want.table"
expect_status 0 "$WMRUN" --sim --sweep events.idle_timeout=10s,1min --set job.event_time=2h "$ex"
cmp -s "$scratch/want.table" "$scratch/out" || {
	diff -u "$scratch/want.table" "$scratch/out" >&2
	fail "the sweep with --set differs from the edited file's sweep"
}

# --record-trace's replay topology holds the settings: replaying it gives
# the recorded run's results.
expect_status 0 "$WMRUN" --sim --quiet --record-trace "$scratch/rec.csv" \
	--set job.event_time=2h --set counts.size=5min "$ex"
mv "$scratch/out" "$scratch/recorded.out"
grep -q '^size = 5min$' "$scratch/rec.csv.conf" || fail "the replay topology lacks the --set size"
expect_status 0 "$WMRUN" --sim --quiet "$scratch/rec.csv.conf"
cmp -s "$scratch/recorded.out" "$scratch/out" || fail "the replay of the recording differs from the recorded run"

# The export checks the settings as the file's keys, and names the option.
expect_status 78 "$WMRUN" --export-flink "$scratch/x" --set job.all_idle=hold "$ex"
expect_line '^wmrun: --set job\.all_idle=hold: cannot export all_idle = hold' "$scratch/err"
exit 0
