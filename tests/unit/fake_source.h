/*
 * fake_source.h
 *	A record source fed from outside, for tests: records handed over by
 *	any thread, partitions added while it runs, a wake function called
 *	on every hand-over, and a health the test sets. What a Kafka source
 *	does behind the record source interface (operators/source_gen.h),
 *	without Kafka.
 *
 * Records handed over are due at once: next() returns them in the order
 * they came (their partition must be listed by then); with none waiting
 * next_due_ns() is INT64_MAX, as for a consumer with nothing fetched.
 * The source finishes once the test said it ends and every record it
 * handed over was read; then every partition counts finished.
 */
#ifndef WM_TESTS_UNIT_FAKE_SOURCE_H
#define WM_TESTS_UNIT_FAKE_SOURCE_H

#include <stdbool.h>
#include <stdint.h>

#include "operators/source_gen.h"

struct fake_source;

/* A source listing partitions parts[0..n) at the start; NULL: ENOMEM. */
struct fake_source *fake_source_new(const uint32_t *parts, uint32_t n);
struct wm_record_source *fake_source_base(struct fake_source *f);

/* Any thread. A partition listed from now on, after the others. */
void fake_source_add_partition(struct fake_source *f, uint32_t partition);
/* Any thread: a record to read, then the wake, if one was set. */
void fake_source_hand(struct fake_source *f, const struct wm_record *r);
/* Any thread: no more records after those handed over (and the wake). */
void fake_source_end(struct fake_source *f);
/* Any thread: what health() says from now on (and the wake). */
void fake_source_set_health(struct fake_source *f,
			    const struct wm_source_health *h);

/* Called first when the source is freed (the driver's thread joined
 * there, which may still be calling in). */
void fake_source_on_free(struct fake_source *f, void (*fn)(void *arg),
			 void *arg);

/* Records next() returned so far. */
uint64_t fake_source_read(struct fake_source *f);

#endif /* WM_TESTS_UNIT_FAKE_SOURCE_H */
