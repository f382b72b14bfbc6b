/*
 * event.h
 *	The vocabulary every layer shares: event time, records, watermark
 *	status, and the output through which pure operators speak.
 *
 * Time is Java's: signed 64-bit milliseconds. WM_TS_MIN doubles as Flink's
 * "no timestamp" and "no watermark yet"; WM_TS_MAX is the end-of-time
 * watermark that a finished bounded source sends. Flink computes on these
 * values with Java's wrapping arithmetic in a few places (window starts,
 * cleanup times); wm_ts_add() and wm_ts_sub() reproduce that without
 * relying on undefined signed overflow in C.
 *
 * Nothing here allocates or performs I/O.
 */
#ifndef WM_OPERATORS_EVENT_H
#define WM_OPERATORS_EVENT_H

#include <stddef.h>
#include <stdint.h>

typedef int64_t wm_ts_t;

#define WM_TS_MIN INT64_MIN
#define WM_TS_MAX INT64_MAX

/*
 * Processing time is int64 nanoseconds from 0 (the job's start); durations
 * are configured in milliseconds. Both conversions saturate at INT64_MAX,
 * which every user reads as "never": a duration beyond about 292 years
 * does not wrap into the past. Arguments are >= 0.
 */
static inline int64_t
wm_ms_to_ns(int64_t ms)
{
	return ms > INT64_MAX / 1000000 ? INT64_MAX : ms * 1000000;
}

/* now_ns plus ms milliseconds. */
static inline int64_t
wm_ns_after_ms(int64_t now_ns, int64_t ms)
{
	return ms > (INT64_MAX - now_ns) / 1000000 ? INT64_MAX
						   : now_ns + ms * 1000000;
}

/*
 * A fixed-delay schedule run on time is next_ns, then one period after each
 * run: next_ns + k x period. The first of its times at or after at_ns
 * (next_ns itself if at_ns <= next_ns); INT64_MAX once past the end of
 * time, where wm_ns_after_ms() saturates too. next_ns >= 0, period_ms > 0
 * unless next_ns is INT64_MAX.
 */
static inline int64_t
wm_ns_schedule_at_or_after(int64_t next_ns, int64_t period_ms, int64_t at_ns)
{
	int64_t period_ns, k;

	if (at_ns <= next_ns)
		return next_ns;
	period_ns = wm_ms_to_ns(period_ms);
	k = (at_ns - next_ns - 1) / period_ns + 1;
	return k > (INT64_MAX - next_ns) / period_ns ? INT64_MAX
						     : next_ns + k * period_ns;
}

/* Java long addition and subtraction: two's complement wrap-around. */
static inline wm_ts_t
wm_ts_add(wm_ts_t a, int64_t b)
{
	return (wm_ts_t)((uint64_t)a + (uint64_t)b);
}

static inline wm_ts_t
wm_ts_sub(wm_ts_t a, int64_t b)
{
	return (wm_ts_t)((uint64_t)a - (uint64_t)b);
}

/*
 * Watermark status of a stream (Flink's WatermarkStatus). Values are part
 * of the frame format; do not renumber.
 */
enum wm_status {
	WM_STATUS_ACTIVE = 0,
	WM_STATUS_IDLE = 1,
};

/* Record flags. */
enum wm_record_flag {
	/* A punctuated generator emits a watermark at this record's time. */
	WM_RECORD_PUNCTUATE = 1u << 0,
};

/*
 * One record: 32 bytes, two to a cache line. Between subtasks flags and
 * partition travel as 16 bits each (ipc/frame.h); configuration keeps
 * partition numbers below 65536.
 */
struct wm_record {
	wm_ts_t ts;	    /* event time; WM_TS_MIN = none */
	int64_t key;	    /* key (strings travel as dictionary ids) */
	int64_t value;	    /* the aggregated value */
	uint32_t flags;	    /* enum wm_record_flag */
	uint32_t partition; /* source partition that produced it */
};

_Static_assert(sizeof(struct wm_record) == 32, "records are 32 bytes");

/*
 * Where an operator sends watermarks and statuses. Callers embed it in their
 * own struct and recover that with wm_container_of(). Both callbacks must be
 * set. Calls happen synchronously, in emission order, on the caller's thread.
 */
struct wm_output {
	void (*watermark)(struct wm_output *out, wm_ts_t watermark);
	void (*status)(struct wm_output *out, enum wm_status status);
};

static inline void
wm_output_watermark(struct wm_output *out, wm_ts_t watermark)
{
	out->watermark(out, watermark);
}

static inline void
wm_output_status(struct wm_output *out, enum wm_status status)
{
	out->status(out, status);
}

#define wm_container_of(ptr, type, member)                                     \
	((type *)(void *)((char *)(ptr)-offsetof(type, member)))

#endif /* WM_OPERATORS_EVENT_H */
