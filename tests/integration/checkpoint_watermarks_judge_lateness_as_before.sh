#!/bin/sh
# [job] checkpoint_watermarks (beyond Flink): a job restored with its
# watermarks judges lateness as the job that failed. examples/late_data.conf
# (5% of the records late, many of them for the side output) with a
# checkpoint every minute and a crash at 15 min 200 ms, one periodic tick
# after the checkpoint of 15 min: in Flink's mode every input restarts at
# MIN and a record late before the crash is accepted after it; with
# checkpoint_watermarks the results and the late side output are those of
# the run without the crash.
#
# The late side output is a file, exactly-once: compared line for line
# (sorted: parts are committed in their own order). The results go to
# standard output, at-least-once: what was written between the checkpoint
# and the crash comes again, so they are compared after removing lines
# that repeat one written before (the fault-free outputs have no repeated
# line: checked), and without their processing-time columns (fire time, 6,
# and the watermark at the firing, 7): a window the tick after the
# checkpoint fired fires again at the first tick after the restore.
. "$srcdir/tests/lib/lib.sh"

example="$srcdir/examples/late_data.conf"

# conf NAME [KEY = VALUE...]: the example with checkpoints, its late side
# output in $scratch/NAME.late, and the [job] keys given.
conf() {
	name=$1
	shift
	sed -e "s|^late_output = .*|late_output = $scratch/$name.late|" \
		-e "s|^\[job\]|[job]\ncheckpoint_interval = 1 min\ncheckpoint_dir = $scratch/$name.chk|" \
		"$example" >"$scratch/$name.conf"
	for kv in "$@"; do
		sed -i "s|^\[job\]|[job]\n$kv|" "$scratch/$name.conf"
	done
}

# run NAME: --sim of NAME.conf; results (columns 1-5 and 8) in NAME.res,
# the summary in NAME.json.
run() {
	expect_status 0 "$WMRUN" --sim --summary "$scratch/$1.json" "$scratch/$1.conf"
	expect_line '"all_records_accounted":true' "$scratch/$1.json"
	cut -d, -f1-5,8 "$scratch/out" >"$scratch/$1.res"
}

json() {
	sed -n "s/.*\"$2\":\(-\{0,1\}[0-9]*\).*/\1/p" "$scratch/$1.json"
}

# figures NAME: what the summary counts of lateness and firings, every
# stage's and subtask's, in order. The counts come back with the
# snapshot, so they are those of the run as it survived: a record written
# to the side output before the crash and accepted after it is in the
# file (and de-duplicated away) but not in these counts.
figures() {
	grep -o '"\(late_records_[a-z_]*\|windows_fired[a-z_]*\|results_written\)":[0-9]*' \
		"$scratch/$1.json"
}

dedup() {
	awk '!seen[$0]++' "$1"
}

conf nofail
run nofail
late=$(wc -l <"$scratch/nofail.late")
[ "$late" -gt 1000 ] || fail "only $late records for the side output"
[ "$(dedup "$scratch/nofail.res" | wc -l)" -eq "$(wc -l <"$scratch/nofail.res")" ] &&
	[ "$(dedup "$scratch/nofail.late" | wc -l)" -eq "$late" ] ||
	fail "the fault-free outputs repeat lines: the comparison below would hide a difference"

# The restore at the crash's instant: with a restart delay the records due
# meanwhile come as a backlog, judged against the checkpoint's watermark
# as it moves (doc/semantics.md section 12.5), not as the job that failed
# judged them.
restore_at_once="restart_strategy = fixed-delay\nrestart_delay = 0 s"
for mode in flink watermarks; do
	if [ $mode = flink ]; then
		conf $mode "fail_at = 900200 ms" "$restore_at_once"
	else
		conf $mode "fail_at = 900200 ms" "$restore_at_once" \
			"checkpoint_watermarks = true"
	fi
	run $mode
	[ "$(json $mode checkpoint_ms)" = 900000 ] ||
		fail "$mode: restored from the checkpoint of $(json $mode checkpoint_ms) ms"
	[ "$(json $mode records_replayed)" -gt 0 ] || fail "$mode: nothing replayed"
	# Files are exactly-once (doc/architecture.md section 9.5): every
	# line once, in the order their parts were committed, which after
	# the restore's backlog need not be the fault-free run's.
	dedup "$scratch/$mode.res" | sort >"$scratch/$mode.res1"
	sort "$scratch/$mode.late" >"$scratch/$mode.late1"
done
sort "$scratch/nofail.late" >"$scratch/nofail.late.sorted"
sort "$scratch/nofail.res" >"$scratch/nofail.res.sorted"


# Flink's mode: the restored windows judge against MIN, so some record the
# fault-free run sent to the side output is accepted, and its window
# fires again.
if cmp -s "$scratch/flink.late1" "$scratch/nofail.late.sorted"; then
	fail "Flink's mode: the late side output is the fault-free run's"
fi
[ "$(wc -l <"$scratch/flink.late1")" -lt "$late" ] ||
	fail "Flink's mode: no late record accepted after the restore"
cmp -s "$scratch/flink.res1" "$scratch/nofail.res.sorted" &&
	fail "Flink's mode: the results are the fault-free run's"
[ "$(figures flink)" != "$(figures nofail)" ] ||
	fail "Flink's mode: the summary counts the fault-free run's lateness"

# checkpoint_watermarks: exactly the fault-free run's.
cmp "$scratch/watermarks.late1" "$scratch/nofail.late.sorted" ||
	fail "checkpoint_watermarks: the late side output differs from the fault-free run's"
cmp "$scratch/watermarks.res1" "$scratch/nofail.res.sorted" ||
	fail "checkpoint_watermarks: the results differ from the fault-free run's"
[ "$(($(wc -l <"$scratch/watermarks.res") - $(json watermarks results_again)))" -eq \
	"$(wc -l <"$scratch/nofail.res")" ] || fail "checkpoint_watermarks: results not at-least-once"

# The snapshots are larger by the watermark sections, and that is all.
[ "$(json watermarks last_bytes)" -gt "$(json flink last_bytes)" ] ||
	fail "no watermark section in the snapshots"
exit 0
