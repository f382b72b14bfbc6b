#!/bin/sh
# A Kafka source's position is its partitions' offsets: a real job that
# checkpoints while it reads a topic, loses a worker and restarts from its
# latest checkpoint, seeks every partition back to the checkpoint's
# offsets and reads on from there. Its file sink, exactly-once, then holds
# exactly the windows of the same records replayed from a file, each
# once, and its string keys print as they were (the dictionary's strings
# come back with the checkpoint). Skipped (77) as kafka_lib.sh's
# kafka_require says.
. "$srcdir/tests/lib/lib.sh"
. "$srcdir/tests/lib/kafka_lib.sh"
kafka_require
kafka_broker

topic=$(kafka_topic restart)
kafka_create_topic "$topic" 8
t0=1767225600000
awk -v t0=$t0 'BEGIN {
	for (i = 0; i < 600; i++)
		for (p = 0; p < 8; p++)
			printf "%d,%.0f,user-%d,%d\n", p, t0 + i * 6000 + p, (i * 3 + p) % 11, i
}' >"$scratch/produced.csv"

# job OUT SOURCE-LINES...
job() {
	out=$1
	shift
	{
		printf '[job]\nname = kafka-restart\n'
		printf '[source s]\nparallelism = 2\nout_of_orderness = 5 s\n'
		for l in "$@"; do echo "$l"; done
		printf '[window w]\ninput = s\nparallelism = 2\nsize = 5 min\n'
		printf 'aggregates = count, sum\n'
		printf '[sink o]\ninput = w\nparallelism = 2\npath = %s\n' "$out"
	}
}
# The topic is produced while the job reads it, in ten parts 400 ms
# apart; a worker is killed at 1.5 s, mid-stream, with checkpoints every
# 200 ms: the restart seeks back to the last one's offsets and reads the
# records since again. The source is bounded by explicit offsets, 600 a
# partition, which it reaches once everything is produced.
job "$scratch/kafka.csv" "kafka.bootstrap_servers = $KAFKA" \
	"kafka.topic = $topic" "kafka.starting_offsets = earliest" \
	"kafka.stopping_offsets = offsets 0:600, 1:600, 2:600, 3:600, 4:600, 5:600, 6:600, 7:600" \
	"kafka.value_format = number" >"$scratch/kafka.conf"
sed -i "s|^name = kafka-restart\$|&\ncheckpoint_interval = 200 ms\ncheckpoint_dir = $scratch/chk\nfail_at = 1500 ms\nrestart_strategy = fixed-delay\nrestart_attempts = 1\nrestart_delay = 100 ms|" \
	"$scratch/kafka.conf"
"$WMRUN" "$scratch/kafka.conf" >"$scratch/out" 2>"$scratch/err" &
run=$!
for part in 0 1 2 3 4 5 6 7 8 9; do
	awk -F, -v part=$part 'int(NR / 480.001) == part' "$scratch/produced.csv" |
		kafka_produce "$topic"
	sleep 0.4
done
wait $run || {
	cat "$scratch/err" >&2
	fail "the job failed"
}
expect_line '^  restarts  *1$' "$scratch/err"
expect_line 'restored from chk-[0-9]*' "$scratch/err"
expect_line '^  every record accounted  yes$' "$scratch/err"

job "$scratch/file.csv" "replay = $scratch/produced.csv" "pacing = fast" \
	"partitions = 8" "key_type = string" "topic = $topic" >"$scratch/file.conf"
expect_status 0 "$WMRUN" --sim "$scratch/file.conf"
tail -n +2 "$scratch/file.csv" | cut -d, -f1-5 | sort >"$scratch/file.windows"
tail -n +2 "$scratch/kafka.csv" | cut -d, -f1-5 | sort >"$scratch/kafka.windows"
[ "$(wc -l <"$scratch/file.windows")" -gt 100 ] || fail "too few windows from the file"
diff -u "$scratch/file.windows" "$scratch/kafka.windows" ||
	fail "after the restart the sink's windows differ from the file's"
