#!/bin/sh
# The quiet-partition incident on a real Kafka topic: 16 partitions of an
# hour of event time, three of them silent after 10 minutes, read by wmrun
# from a real broker.
#   - Bounded (stopping_offsets = latest), the windows are exactly those
#     of the same records replayed from a file under --sim, and those of
#     the run's own --record-trace recording replayed under --sim; each
#     partition was read by the subtask Flink's KafkaSourceEnumerator gives
#     it (computed here from the topic's Java hashCode), every record once.
#   - Started and stopped by timestamps, it reads exactly the records
#     between them.
#   - Following the topic (unbounded, cut after 6 s), the silent
#     partitions hold every window back until the run is cut; with an
#     idle timeout of 1 s the windows fire while it runs, and the last
#     never does (every partition idle at the cut, as in Flink).
# Skipped (77) as kafka_lib.sh's kafka_require says.
. "$srcdir/tests/lib/lib.sh"
. "$srcdir/tests/lib/kafka_lib.sh"
kafka_require
kafka_broker

topic=$(kafka_topic night)
kafka_create_topic "$topic" 16
# A record every 5 s of event time per partition for an hour from
# 2026-01-01 00:00 UTC (a multiple of the 10 min windows); partitions
# 13-15 fall silent after 10 minutes. Keys u0..u12, values the record's
# index in its partition.
t0=1767225600000
awk -v t0=$t0 'BEGIN {
	for (i = 0; i < 720; i++)
		for (p = 0; p < 16; p++) {
			if (p >= 13 && i >= 120)
				continue
			printf "%d,%.0f,u%d,%d\n", p, t0 + i * 5000 + p,
				(i * 7 + p) % 13, i
		}
}' >"$scratch/produced.csv"
kafka_produce "$topic" <"$scratch/produced.csv"
total=$(wc -l <"$scratch/produced.csv")

# job OUT SOURCE-LINES...: the incident's topology over these source lines.
job() {
	out=$1
	shift
	{
		printf '[job]\nname = kafka-night\n'
		printf '[source events]\nparallelism = 4\nout_of_orderness = 5 s\n'
		for l in "$@"; do echo "$l"; done
		printf '[window counts]\ninput = events\nparallelism = 2\n'
		printf 'size = 10 min\naggregates = count, sum\n'
		printf '[sink out]\ninput = counts\nparallelism = 2\npath = %s\n' "$out"
	}
}
kafka_lines="kafka.bootstrap_servers = $KAFKA
kafka.topic = $topic
kafka.starting_offsets = earliest
kafka.value_format = number"

# windows CSV: the windows' contents, key and bounds first, sorted.
windows() {
	tail -n +2 "$1" | cut -d, -f1-5 | sort
}

# --- bounded: the same windows as a file, and as the recording ---------
# shellcheck disable=SC2086
job "$scratch/kafka.csv" "$kafka_lines" "kafka.stopping_offsets = latest" \
	>"$scratch/kafka.conf"
expect_status 0 "$WMRUN" --record-trace "$scratch/rec.csv" \
	--summary "$scratch/kafka.json" "$scratch/kafka.conf"
expect_line "^  records read  *$total\$" "$scratch/err"
expect_line '^  every record accounted  yes$' "$scratch/err"

job "$scratch/file.csv" "replay = $scratch/produced.csv" "pacing = fast" \
	"partitions = 16" "key_type = string" "topic = $topic" >"$scratch/file.conf"
expect_status 0 "$WMRUN" --sim "$scratch/file.conf"
windows "$scratch/kafka.csv" >"$scratch/kafka.windows"
windows "$scratch/file.csv" >"$scratch/file.windows"
[ "$(wc -l <"$scratch/file.windows")" -eq $((6 * 13)) ] ||
	fail "expected 78 windows from the file, got $(wc -l <"$scratch/file.windows")"
diff -u "$scratch/file.windows" "$scratch/kafka.windows" ||
	fail "the topic's windows differ from the file's"

# The recording replays under --sim to the same windows (its replay
# topology writes to the run's path: point it elsewhere).
sed "s|^path = .*|path = $scratch/replayed.csv|" "$scratch/rec.csv.conf" \
	>"$scratch/replay.conf"
expect_status 0 "$WMRUN" --sim "$scratch/replay.conf"
windows "$scratch/replayed.csv" >"$scratch/replayed.windows"
diff -u "$scratch/kafka.windows" "$scratch/replayed.windows" ||
	fail "the recording's windows differ from the topic's"
[ "$(grep -vc '^partition,' "$scratch/rec.csv")" -eq "$total" ] ||
	fail "the recording holds $(grep -vc '^partition,' "$scratch/rec.csv") records, not $total"

# Each partition on Flink's owner, (start + p) mod 4 with start =
# ((hashCode(topic) * 31) & 0x7FFFFFFF) mod 4, and every record once.
start=$(printf '%s' "$topic" | od -An -v -tu1 | awk '
	{ for (i = 1; i <= NF; i++) h = (h * 31 + $i) % 4294967296 }
	END { h = (h * 31) % 4294967296; print (h % 2147483648) % 4 }')
sed 's/{"partition":/\n&/g' "$scratch/kafka.json" | grep '^{"partition":' |
	sed 's/^{"partition":\([0-9]*\),"subtask":\([0-9]*\),"records":\([0-9]*\),.*/\1 \2 \3/' |
	sort -n >"$scratch/owners"
[ "$(wc -l <"$scratch/owners")" -eq 16 ] ||
	fail "the summary lists $(wc -l <"$scratch/owners") partitions, not 16"
while read -r p subtask records; do
	[ "$subtask" -eq $(((start + p) % 4)) ] ||
		fail "partition $p read by subtask $subtask, Flink's owner is $(((start + p) % 4))"
	want=$(awk -F, -v p="$p" '$1 == p' "$scratch/produced.csv" | wc -l)
	[ "$records" -eq "$want" ] ||
		fail "partition $p: $records records read, $want produced"
done <"$scratch/owners"

# --- by time: from 30 min to 40 min of the night ------------------------
# The first record at or after each time, per partition (Flink's
# OffsetsInitializer.timestamp()): exactly the window [30, 40 min) of the
# partitions that were not silent by then.
job "$scratch/slice.csv" "kafka.bootstrap_servers = $KAFKA" \
	"kafka.topic = $topic" "kafka.value_format = number" \
	"kafka.starting_offsets = timestamp $((t0 + 30 * 60000))" \
	"kafka.stopping_offsets = timestamp $((t0 + 40 * 60000))" \
	>"$scratch/slice.conf"
expect_status 0 "$WMRUN" "$scratch/slice.conf"
windows "$scratch/slice.csv" >"$scratch/slice.windows"
grep ",$((t0 + 30 * 60000)),$((t0 + 40 * 60000))," "$scratch/file.windows" \
	>"$scratch/file.slice"
[ -s "$scratch/file.slice" ] || fail "no window [30, 40 min) from the file"
diff -u "$scratch/file.slice" "$scratch/slice.windows" ||
	fail "reading from 30 to 40 min by timestamp gave other windows"

# --- following the topic: the stall, and idleness ending it ------------
job "$scratch/stuck.csv" "$kafka_lines" >"$scratch/stuck.conf"
sed -i 's/^name = kafka-night$/&\nprocessing_time = 6 s/' "$scratch/stuck.conf"
expect_status 0 "$WMRUN" "$scratch/stuck.conf"
job "$scratch/idle.csv" "$kafka_lines" "idle_timeout = 1 s" >"$scratch/idle.conf"
sed -i 's/^name = kafka-night$/&\nprocessing_time = 6 s/' "$scratch/idle.conf"
expect_status 0 "$WMRUN" "$scratch/idle.conf"

# fired_before CSV MS: results fired before MS of processing time.
fired_before() {
	tail -n +2 "$1" | awk -F, -v ms="$2" '$6 < ms' | wc -l
}
# Without idleness the silent partitions hold every window, the first
# included (their last record is at 9:55), until the run is cut at 6 s.
[ "$(fired_before "$scratch/stuck.csv" 5000)" -eq 0 ] ||
	fail "$(fired_before "$scratch/stuck.csv" 5000) windows fired before the cut without idleness"
# With it, the windows of the first 50 minutes fire about 1 s in.
early=$(tail -n +2 "$scratch/idle.csv" |
	awk -F, -v end=$((t0 + 50 * 60000)) '$3 <= end && $6 < 5000' | wc -l)
[ "$early" -eq $((5 * 13)) ] ||
	fail "with idle_timeout = 1 s, $early of the 65 windows of the first 50 min fired before 5 s"
windows "$scratch/stuck.csv" >"$scratch/stuck.windows"
windows "$scratch/idle.csv" >"$scratch/idle.windows"
diff -u "$scratch/file.windows" "$scratch/stuck.windows" ||
	fail "the stalled run's windows differ from the file's"
# The idle run's last windows never fire: every partition is idle when
# the run is cut, and Flink 2.3 drops the final watermark of an idle
# source (doc/semantics.md: DRAIN_ACTIVE_BEFORE_MAX is not among its
# flags). All the others are the file's.
grep -v ",$((t0 + 60 * 60000))," "$scratch/file.windows" >"$scratch/file.early"
diff -u "$scratch/file.early" "$scratch/idle.windows" ||
	fail "the idle run's windows differ from the file's first 50 minutes"

# --- on the wall clock: lags and fire delays of epoch event time --------
# Records stamped over the last 3 s, read as the run starts: the sources'
# watermarkLag and currentEmitEventTimeLag, and the windows' fire delays,
# are seconds on the wall clock (they read -1.8e12 and 0 when processing
# time counted from 0 against Kafka's epoch timestamps).
now_topic=$(kafka_topic now)
kafka_create_topic "$now_topic" 4
now=$(date +%s%3N)
awk -v now="$now" 'BEGIN {
	for (i = 0; i < 30; i++)
		for (p = 0; p < 4; p++)
			printf "%d,%.0f,u%d,%d\n", p, now - 3000 + i * 100, p, i
}' | kafka_produce "$now_topic"
{
	printf '[job]\nname = kafka-now\nprocessing_time = 4 s\n'
	printf '[source events]\nparallelism = 2\nout_of_orderness = 0 ms\n'
	printf '%s\n' "kafka.bootstrap_servers = $KAFKA" "kafka.topic = $now_topic" \
		"kafka.starting_offsets = earliest" "kafka.value_format = number"
	printf '[window counts]\ninput = events\nsize = 500 ms\n'
	printf '[sink out]\ninput = counts\npath = %s\n' "$scratch/now.csv"
} >"$scratch/now.conf"
expect_status 0 "$WMRUN" --quiet --metrics "$scratch/now.jsonl" \
	--summary "$scratch/now.json" "$scratch/now.conf"
# Seconds: the records are at most 3 s old when the job starts, and the
# job runs 4 s.
lags_within 120000 "$scratch/now.jsonl" "$scratch/now.json"
