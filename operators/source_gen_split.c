/*
 * source_gen_split.c
 *	Which source subtask reads which partition: Flink's KafkaSource
 *	split assignment (KafkaSourceEnumerator.getSplitOwner), for the
 *	generator, the replayed trace and Kafka alike (source_gen.h).
 *
 * Pure arithmetic on the topic's Java hash: the same partition goes to the
 * same subtask in wmrun as in Flink, which the watermarks of a subtask
 * (the minimum over its partitions) depend on.
 */
#include "config.h"

#include <string.h>

#include "operators/keygroup.h"
#include "operators/source_gen.h"

uint32_t
wm_source_gen_split_owner(const char *topic, uint32_t partition,
			  uint32_t parallelism)
{
	uint32_t start = 0;

	if (topic != NULL) {
		/* Java int: hashCode() * 31 wraps, & 0x7FFFFFFF clears the
		 * sign; unsigned arithmetic gives the same bits. */
		uint32_t h =
			(uint32_t)wm_keygroup_hash_string(topic, strlen(topic));

		start = ((h * 31u) & 0x7FFFFFFFu) % parallelism;
	}
	return (uint32_t)(((uint64_t)start + partition) % parallelism);
}

size_t
wm_source_gen_partitions_of(uint32_t subtask, uint32_t parallelism,
			    uint32_t partitions, const char *topic,
			    uint32_t *out, size_t cap)
{
	size_t n = 0;

	for (uint32_t p = 0; p < partitions; p++) {
		if (wm_source_gen_split_owner(topic, p, parallelism) != subtask)
			continue;
		if (n < cap)
			out[n] = p;
		n++;
	}
	return n;
}
