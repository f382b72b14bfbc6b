/*
 * behaviour.h
 *	Which Flink version's event-time rules to follow.
 *
 * Flink changed several watermark rules recently (doc/semantics.md
 * section 1). Two baselines name the rules of Flink's release lines:
 * WM_BEHAVIOUR_FLINK_2_1 those of 1.17 to 2.1, which the conformance
 * traces record (wmconform's default), and WM_BEHAVIOUR_FLINK_2_3 those of
 * 2.2 and 2.3, which add the all-idle flush to the maximum (FLINK-38454;
 * flink/src/test/java/wmrun/flink/FlinkReleaseRulesTest.java shows it on
 * Flink 2.3.0's classes). WM_BEHAVIOUR_RELEASED, the newest release's, is
 * wmrun's default and what --export-flink's Flink runs. Each rule of
 * Flink's main branch can be switched on alone, or all at once with
 * WM_BEHAVIOUR_MASTER. Operators receive the flag set at initialisation
 * and never change it afterwards.
 */
#ifndef WM_OPERATORS_BEHAVIOUR_H
#define WM_OPERATORS_BEHAVIOUR_H

#include <stdbool.h>
#include <stddef.h>

enum wm_behaviour_flag {
	/* Idleness wrapper sends markIdle only on the active->idle edge
	 * (FLINK-28975); off, it repeats markIdle on every idle probe. */
	WM_IDLE_MARK_ONCE = 1u << 0,
	/* All inputs of a multiplexer or two-input combiner idle: advance to
	 * the maximum over all inputs before IDLE (FLINK-38454, in Flink 2.2
	 * and later). */
	WM_MUX_ALLIDLE_FLUSH_MAX = 1u << 1,
	/* Valve all-idle flush whatever the last idle channel's watermark
	 * (FLINK-40475); off, only when it equals the last output. */
	WM_VALVE_FLUSH_UNCONDITIONAL = 1u << 2,
	/* Valve re-derives the aligned minimum after idle->active
	 * (FLINK-40475). */
	WM_VALVE_REDERIVE_ON_ACTIVE = 1u << 3,
	/* A multiplexer whose splits were all removed reports IDLE
	 * (FLINK-39586). */
	WM_MUX_EMPTY_IS_IDLE = 1u << 4,
	/* A resumed idle split re-announces ACTIVE even when the watermark
	 * does not advance (FLINK-40504). */
	WM_MUX_REACTIVATE = 1u << 5,
	/* At end of input an idle source sends ACTIVE before the final MAX
	 * watermark instead of losing it (FLINK-40499). */
	WM_DRAIN_ACTIVE_BEFORE_MAX = 1u << 6,

	/*
	 * Study rules, not Flink's ([job] all_idle, doc/semantics.md section
	 * 9.6): what a valve, a multiplexer or a two-input combination does
	 * when its last input goes idle. Neither set is Flink's rule, as the
	 * flags above choose it; set, they replace MUX_ALLIDLE_FLUSH_MAX and
	 * VALVE_FLUSH_UNCONDITIONAL. At most one is set. They lie outside
	 * WM_BEHAVIOUR_ALL, so "released", "master" and the flag names never
	 * touch them.
	 */
	/* Jump to MAX, then IDLE: every window fires, all later data is late. */
	WM_ALL_IDLE_MAX = 1u << 16,
	/* Flush nothing: only IDLE, the watermark stays where it was. */
	WM_ALL_IDLE_HOLD = 1u << 17,
};

#define WM_BEHAVIOUR_ALL ((1u << 7) - 1)
/* Flink 1.17 to 2.1: what the conformance traces record. */
#define WM_BEHAVIOUR_FLINK_2_1 ((unsigned)WM_IDLE_MARK_ONCE)
/* Flink 2.2 and 2.3: 2.1's rules and the all-idle flush to the maximum. */
#define WM_BEHAVIOUR_FLINK_2_3                                                 \
	(WM_BEHAVIOUR_FLINK_2_1 | (unsigned)WM_MUX_ALLIDLE_FLUSH_MAX)
/* The newest release, the export's Flink: wmrun's default. */
#define WM_BEHAVIOUR_RELEASED WM_BEHAVIOUR_FLINK_2_3
#define WM_BEHAVIOUR_MASTER WM_BEHAVIOUR_ALL
#define WM_ALL_IDLE_POLICY ((unsigned)(WM_ALL_IDLE_MAX | WM_ALL_IDLE_HOLD))

static inline bool
wm_behaviour_has(unsigned flags, enum wm_behaviour_flag flag)
{
	return (flags & (unsigned)flag) != 0;
}

/* Flag name as doc/semantics.md section 1 writes it
 * ("VALVE_FLUSH_UNCONDITIONAL"), or NULL for a value that is not exactly one
 * flag. */
const char *wm_behaviour_name(enum wm_behaviour_flag flag);

/*
 * Parse a behaviour setting: a comma-separated list, applied left to right
 * starting from *flags, of baselines ("flink-2.1", "flink-2.3", "released"
 * = "flink-2.3", "master"), which replace every Flink flag, and flag names,
 * each optionally prefixed with '-' to switch it off and '+' (or nothing)
 * to switch it on. The all-idle policy bits of *flags are kept whatever it
 * says. Names are case-insensitive. Returns 0, or -EINVAL with *bad
 * pointing at the first unrecognized word (length in *bad_len).
 */
int wm_behaviour_parse(const char *text, unsigned *flags, const char **bad,
		       int *bad_len);

/*
 * The Flink flags on which `flags` and `base` differ, as a setting that
 * turns `base` into `flags` ("-MUX_ALLIDLE_FLUSH_MAX,+MUX_REACTIVATE"),
 * in buf (truncated to len); "" when they agree. Returns buf.
 */
char *wm_behaviour_difference(unsigned flags, unsigned base, char *buf,
			      size_t len);

#endif /* WM_OPERATORS_BEHAVIOUR_H */
