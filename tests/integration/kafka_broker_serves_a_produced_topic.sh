#!/bin/sh
# The harness of the Kafka source's tests, checked with a client that is
# neither wmrun nor ours: records that kafka_tool produced to chosen
# partitions of a real broker, with chosen timestamps and keys, null keys
# and partitions left empty, are read back by kcat exactly, partition by
# partition in order; the end offsets agree; a topic grown from 8 to 12
# partitions shows 12 in kcat's metadata. Skipped (77) as kafka_lib.sh's
# kafka_require says.
. "$srcdir/tests/lib/lib.sh"
. "$srcdir/tests/lib/kafka_lib.sh"
kafka_require
kafka_broker

# 16 partitions; partitions 5, 6 and 11 get no record. In the others, a
# partition-dependent number of records whose timestamps go up with gaps
# (a silence of an hour in partition 3) and, in partition 9, come back
# down (Kafka keeps a partition's order, not its timestamps' order);
# every seventh key is null, and a value holds commas.
topic=$(kafka_topic produced)
kafka_create_topic "$topic" 16
awk 'BEGIN {
	for (p = 0; p < 16; p++) {
		if (p == 5 || p == 6 || p == 11)
			continue
		t = 1000 + p * 100000
		for (i = 0; i < 3 + p * 5; i++) {
			t += p == 3 && i == 10 ? 3600000 : 10 + (i * 7 + p) % 50
			ts = p == 9 && i % 4 == 3 ? t - 5000 : t
			key = (i + p) % 7 == 0 ? "" : "k" (i * 13 + p) % 11
			print p "," ts "," key ",v" i "," p "," ts
		}
	}
}' >"$scratch/produced"
# Interleave the partitions, as a real stream comes: every partition's
# first record, then every second one, ...
awk -F, '{ print n[$1]++ "\t" $0 }' "$scratch/produced" | sort -s -k1,1n |
	cut -f2- | kafka_produce "$topic"

kafka_read "$topic" >"$scratch/read"
[ -s "$scratch/read" ] || fail "kcat read nothing"
diff -u "$scratch/produced" "$scratch/read" ||
	fail "kcat did not read back what was produced"

# Each partition's end offset is its number of records; empty ones 0,0.
awk -F, '{ n[$1]++ } END { for (p = 0; p < 16; p++) print p ",0," n[p] + 0 }' \
	"$scratch/produced" >"$scratch/offsets.want"
kafka_end_offsets "$topic" >"$scratch/offsets"
diff -u "$scratch/offsets.want" "$scratch/offsets" || fail "end offsets differ"

# Partitions added to a topic are seen by another client.
grown=$(kafka_topic grown)
kafka_create_topic "$grown" 8
[ "$(kafka_partitions "$grown")" = 8 ] || fail "kcat does not see 8 partitions"
kafka_add_partitions "$grown" 12
[ "$(kafka_partitions "$grown")" = 12 ] ||
	fail "kcat sees $(kafka_partitions "$grown") partitions of $grown, not 12"
echo 0,5,after,growth | kafka_produce "$grown"
printf '11,7,new,partition\n' | kafka_produce "$grown"
[ "$(kafka_read "$grown")" = "$(printf '0,5,after,growth\n11,7,new,partition')" ] ||
	fail "records in old and added partitions were not read back"

# Bad input is refused with the line named, and a topic that does not
# exist is an error (the broker creates none by itself).
echo 16,5,k,v >"$scratch/bad"
expect_status 65 "$KAFKA_TOOL" produce "$KAFKA" "$grown" <"$scratch/bad"
expect_line '^stdin:1:1: partition "16"' "$scratch/err"
expect_status 66 "$KAFKA_TOOL" produce "$KAFKA" "$(kafka_topic missing)" <"$scratch/bad"
echo "kcat read back $(wc -l <"$scratch/read") records of 13 of 16 partitions exactly"
