#!/bin/sh
# Every example topology is valid, runs to its end under --sim and
# accounts for every record it reads; wmrun --check plans each of them.
# So do the Nexmark queries of examples/nexmark/, on a shorter stream.
# An example that reads Kafka is refused under --sim, saying how to get
# there (record the topic).
. "$srcdir/tests/lib/lib.sh"

examples=$(cd "$EXAMPLES" && pwd)

# runs NAME DIR CONF [ARG...]: --check plans CONF, and --sim (with ARGs,
# from DIR) runs it to its end, every record accounted for.
runs() {
	name=$1 dir=$2 conf=$3
	shift 3
	expect_status 0 "$WMRUN" --check "$conf"
	(cd "$dir" && "$WMRUN" --sim "$@" "$conf" >"$scratch/out" 2>"$scratch/err") ||
		{ cat "$scratch/err" >&2; fail "$name failed under --sim"; }
	expect_line '^  every record accounted  yes$' "$scratch/err"
}

n=0
for conf in "$examples"/*.conf; do
	name=$(basename "$conf")
	# A trace is named relative to its topology, which runs from here.
	sed "s|^replay = \([^/]\)|replay = $examples/\1|" "$conf" >"$scratch/$name"
	if grep -q '^kafka.topic' "$conf"; then
		# Real time only: its real run is kafka_reads_a_real_topic.sh.
		expect_status 64 "$WMRUN" --sim "$scratch/$name"
		expect_line 'reads Kafka topic .* record the topic with --record-trace FILE' "$scratch/err"
		n=$((n + 1))
		continue
	fi
	runs "$name" "$scratch" "$scratch/$name"
	n=$((n + 1))
done
echo "$n examples ran"
[ "$n" -ge 12 ] || fail "only $n examples found"

# The Nexmark queries, on the first 20 000 events of their stream (their
# rows are checked elsewhere: flink_agrees_on_nexmark_queries.sh,
# map_rows_match_the_recording.sh).
q=0
for conf in "$examples"/nexmark/*.conf; do
	runs "nexmark/$(basename "$conf")" "$scratch" "$conf" \
		--set bids.nexmark.events=20000
	q=$((q + 1))
done
echo "$q Nexmark examples ran"
[ "$q" -ge 5 ] || fail "only $q Nexmark examples found"
