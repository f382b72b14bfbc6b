#!/bin/sh
# --metrics FILE writes every sample of a real run as JSON lines, one per
# subtask and one per partition of a source subtask, under Flink's metric
# names: the silent partition's watermark stands still while it is
# silent, the window's heldBy names it, and the figures per second are
# there once two samples were taken; a join's two inputs each have their
# watermark, and the silent one holds it. A metrics file that cannot be made
# fails the job before it runs; --sim takes none.
. "$srcdir/tests/lib/lib.sh"

quiet_partition_job 2000 "$scratch/out.csv" >"$scratch/job.conf"
expect_status 0 "$WMRUN" --quiet --metrics "$scratch/m.jsonl" \
	"$scratch/job.conf"
m="$scratch/m.jsonl"
lines=$(wc -l <"$m")
[ "$lines" -gt 20 ] || fail "only $lines lines in the timeline"
# Every line one object (no line cut, whatever the sampling moment).
bad=$(grep -cv '^{"t_ms":[0-9]*,.*}$' "$m")
[ "$bad" -eq 0 ] || fail "$bad lines of the timeline are not whole objects"
# Flink's names, at the scope Flink gives them.
for name in currentOutputWatermark currentInputWatermark numRecordsIn \
	numRecordsOut numRecordsInPerSecond numRecordsOutPerSecond \
	numLateRecordsDropped idleTimeMsPerSecond busyTimeMsPerSecond \
	backPressuredTimeMsPerSecond watermarkLag; do
	grep -q "\"$name\":-\{0,1\}[0-9]" "$m" || fail "no $name with a value"
done
for name in currentWatermark activeTimeMsPerSecond pausedTimeMsPerSecond \
	idleTimeMsPerSecond accumulatedActiveTimeMs accumulatedPausedTimeMs \
	accumulatedIdleTimeMs; do
	grep '"subtask_index":[0-9]*,"split":"events-' "$m" | grep -q "\"$name\":[0-9]" ||
		fail "no split metric $name with a value"
done
# Within the silence (1 h 10 min to 2 h 50 min of processing time): the
# window is held by partition events-3, for silence, and that partition's
# watermark and record count stand still.
in_silence() {
	awk -F'"processing_time_ms":' '{ split($2, a, ","); t = a[1] + 0 }
		t >= 4200000 && t <= 10200000' "$m"
}
in_silence | grep '"task_name":"counts","subtask_index":0,' |
	grep -q '"heldBy":{"subtask":"events/[01]","split":"events-3","cause":"silence"' ||
	fail "no sample of the silence has the window held by events-3 for silence"
# Every sample of it names events-3 (as starved or behind at a moment its
# subtask waited for a CPU or did not run, on a loaded machine).
in_silence | grep '"task_name":"counts","subtask_index":0,' |
	grep -v '"split":"events-3","cause":"\(silence\|starved\|behind\)"' |
	grep -q . && fail "a sample of the silence does not hold the window by events-3"
n=$(in_silence | grep '"subtask_index":[0-9]*,"split":"events-3",' |
	sed -E 's/.*"currentWatermark":(-?[0-9]+).*"records":([0-9]+).*/\1 \2/' |
	sort -u | wc -l)
[ "$n" -eq 1 ] || fail "partition events-3 moved during its silence ($n states)"
# After it: nothing holds the window for silence any more.
awk -F'"processing_time_ms":' '{ split($2, a, ","); if (a[1] + 0 >= 11400000) print }' "$m" |
	grep '"task_name":"counts"' | grep -q '"split":"events-3","cause":"silence"' &&
	fail "the window still held by the silence of events-3 after it returned"

# A metrics file that cannot be made: an output error before any worker.
expect_status 74 "$WMRUN" --quiet --metrics "$scratch/no/such/dir/m.jsonl" \
	"$scratch/job.conf"
expect_line 'could not open metrics file' "$scratch/err"
# A join has a watermark per input (Flink's currentInput1Watermark and
# currentInput2Watermark): while its right input's only partition is
# silent (30 min to 90 min), the left input's moves on, the right's
# stands at the silence's start, and heldBy names that partition.
quiet_join_job 2000 >"$scratch/join.conf"
# (On event time from 0, to name the silence's start as a number.)
expect_status 0 "$WMRUN" --set job.event_time_origin=0 --quiet --metrics "$scratch/j.jsonl" "$scratch/join.conf"
awk -F'"processing_time_ms":' '{ split($2, a, ","); t = a[1] + 0 }
	t >= 2400000 && t <= 5100000' "$scratch/j.jsonl" |
	grep '"task_name":"pairs","subtask_index":0,' |
	sed -E 's/.*"currentInput1Watermark":(-?[0-9]+),"currentInput2Watermark":(-?[0-9]+).*"heldBy":\{"subtask":"([^"]*)","split":"([^"]*)","cause":"([a-z]*)".*/\1 \2 \3 \4 \5/' \
	>"$scratch/join.samples"
[ "$(wc -l <"$scratch/join.samples")" -ge 2 ] || {
	grep '"task_name":"pairs"' "$scratch/j.jsonl" | head -3 >&2
	fail "too few samples of the join during the silence"
}
awk '{ if ($2 != 1799499 || $3 != "right/0" || $4 != "right-0") bad = 1
	if (NR > 1 && $1 <= last) bad = 1; last = $1 }
	END { exit bad }' "$scratch/join.samples" || {
	cat "$scratch/join.samples" >&2
	fail "the join's inputs' watermarks or its heldBy are not the silence's"
}

# Not a file the job writes, and not under --sim.
expect_status 64 "$WMRUN" --metrics "$scratch/out.csv" "$scratch/job.conf"
expect_line 'give the metrics their own file' "$scratch/err"
expect_status 64 "$WMRUN" --sim --metrics "$scratch/m2.jsonl" "$scratch/job.conf"
expect_line 'sim takes no samples' "$scratch/err"
echo ok
