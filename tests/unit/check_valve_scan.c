/*
 * check_valve_scan.c
 *	Unit tests for bench/valve_scan.[ch], the linear-scan reference
 *	valve, and a differential test of it against the heap valve
 *	(operators/valve.c).
 *
 * The scan valve is only worth measuring against if it is right, so it
 * must pass the same conformance cases (doc/semantics.md section 10.5,
 * V-1..V-17) as the heap valve, under every setting of the two valve flags;
 * the cases are run against both implementations through one table. The
 * differential test then feeds both valves identical random input and
 * requires identical output and identical per-channel state after every
 * step.
 */
#include "config.h"

#include <check.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/valve_scan.h"
#include "operators/behaviour.h"
#include "operators/valve.h"
#include "tests/unit/check_main.h"

#define N_ELEMS(a) (sizeof(a) / sizeof((a)[0]))

/* ------------------------------------------------------------------ */
/* Recording output */

#define RECORD_MAX 16

struct record_event {
	int is_status;
	wm_ts_t watermark;
	enum wm_status status;
};

struct recorder {
	struct wm_output out;
	size_t n;
	struct record_event ev[RECORD_MAX];
};

static void
record_watermark(struct wm_output *out, wm_ts_t watermark)
{
	struct recorder *r = wm_container_of(out, struct recorder, out);

	if (r->n == RECORD_MAX)
		ck_abort_msg("more than %d emissions from one input",
			     RECORD_MAX);
	r->ev[r->n++] = (struct record_event){.watermark = watermark};
}

static void
record_status(struct wm_output *out, enum wm_status status)
{
	struct recorder *r = wm_container_of(out, struct recorder, out);

	if (r->n == RECORD_MAX)
		ck_abort_msg("more than %d emissions from one input",
			     RECORD_MAX);
	r->ev[r->n++] = (struct record_event){.is_status = 1, .status = status};
}

static void
recorder_init(struct recorder *r)
{
	r->out.watermark = record_watermark;
	r->out.status = record_status;
	r->n = 0;
}

/* "W10,IDLE" style rendering, the notation of the case tables below. */
static const char *
recorder_render(const struct recorder *r, char *buf, size_t size)
{
	size_t used = 0;

	buf[0] = '\0';
	for (size_t i = 0; i < r->n && used < size; i++) {
		const struct record_event *e = &r->ev[i];
		const char *sep = i > 0 ? "," : "";
		int n;

		if (e->is_status)
			n = snprintf(buf + used, size - used, "%s%s", sep,
				     e->status == WM_STATUS_IDLE ? "IDLE"
								 : "ACTIVE");
		else
			n = snprintf(buf + used, size - used, "%sW%" PRId64,
				     sep, e->watermark);
		used += (size_t)n;
	}
	return buf;
}

/* ------------------------------------------------------------------ */
/* Both valves behind one set of function pointers */

struct impl {
	const char *name;
	void *(*create)(uint32_t channels, unsigned behaviour);
	void (*destroy)(void *valve);
	void (*watermark)(void *valve, uint32_t channel, wm_ts_t watermark,
			  struct wm_output *out);
	void (*status)(void *valve, uint32_t channel, enum wm_status status,
		       struct wm_output *out);
};

static void *
heap_create(uint32_t channels, unsigned behaviour)
{
	return wm_valve_new(channels, behaviour);
}

static void
heap_destroy(void *valve)
{
	wm_valve_free(valve);
}

static void
heap_watermark(void *valve, uint32_t channel, wm_ts_t watermark,
	       struct wm_output *out)
{
	wm_valve_input_watermark(valve, channel, watermark, out);
}

static void
heap_status(void *valve, uint32_t channel, enum wm_status status,
	    struct wm_output *out)
{
	wm_valve_input_status(valve, channel, status, out);
}

static void *
scan_create(uint32_t channels, unsigned behaviour)
{
	return wm_valve_scan_new(channels, behaviour);
}

static void
scan_destroy(void *valve)
{
	wm_valve_scan_free(valve);
}

static void
scan_watermark(void *valve, uint32_t channel, wm_ts_t watermark,
	       struct wm_output *out)
{
	wm_valve_scan_input_watermark(valve, channel, watermark, out);
}

static void
scan_status(void *valve, uint32_t channel, enum wm_status status,
	    struct wm_output *out)
{
	wm_valve_scan_input_status(valve, channel, status, out);
}

static const struct impl impls[] = {
	{"scan", scan_create, scan_destroy, scan_watermark, scan_status},
	{"heap", heap_create, heap_destroy, heap_watermark, heap_status},
};

/* The four settings of the two valve flags, as a combination index:
 * bit 0 = VALVE_FLUSH_UNCONDITIONAL, bit 1 = VALVE_REDERIVE_ON_ACTIVE. */
#define FLUSH 1u
#define REDERIVE 2u
#define ALL_COMBOS 0xfu /* a case whose result no flag changes */

static unsigned
combo_behaviour(unsigned combo)
{
	unsigned b = WM_BEHAVIOUR_RELEASED;

	if (combo & FLUSH)
		b |= WM_VALVE_FLUSH_UNCONDITIONAL;
	if (combo & REDERIVE)
		b |= WM_VALVE_REDERIVE_ON_ACTIVE;
	return b;
}

/* ------------------------------------------------------------------ */
/* V-1..V-17 */

enum op { END = 0, WM, IDLE, ACTIVE };

struct step {
	enum op op;
	uint32_t channel;
	wm_ts_t watermark; /* WM only */
	const char *expect;
};

struct valve_case {
	const char *name;
	uint32_t channels;
	unsigned combos; /* bit k set: case holds for combination k */
	struct step steps[24];
};

#define W(c, t, e)                                                             \
	{                                                                      \
		WM, (c), (t), (e)                                              \
	}
#define I(c, e)                                                                \
	{                                                                      \
		IDLE, (c), 0, (e)                                              \
	}
#define A(c, e)                                                                \
	{                                                                      \
		ACTIVE, (c), 0, (e)                                            \
	}

/* combination masks */
#define WITH(f) ((f) == FLUSH ? 0xau : 0xcu)	/* combos having flag f */
#define WITHOUT(f) ((f) == FLUSH ? 0x5u : 0x3u) /* combos lacking it */

static const struct valve_case cases[] = {
	{"V-1", 1, ALL_COMBOS, {W(0, 0, "W0"), W(0, 25, "W25")}},
	{"V-2",
	 1,
	 ALL_COMBOS,
	 {W(0, 25, "W25"), W(0, 18, ""), W(0, 42, "W42")}},
	{"V-3",
	 1,
	 ALL_COMBOS,
	 {A(0, ""), I(0, "IDLE"), I(0, ""), A(0, "ACTIVE")}},
	{"V-4",
	 1,
	 ALL_COMBOS,
	 {W(0, 25, "W25"), I(0, "IDLE"), W(0, 50, ""), A(0, "ACTIVE"),
	  W(0, 50, "W50")}},
	{"V-5", 3, ALL_COMBOS, {W(0, 0, ""), W(1, 0, ""), W(2, 0, "W0")}},
	{"V-6",
	 3,
	 ALL_COMBOS,
	 {W(0, 0, ""), W(1, 0, ""), W(2, 0, "W0"), W(0, 12, ""), W(2, 8, ""),
	  W(2, 10, ""), W(1, 15, "W10"), W(2, 17, "W12"), W(0, 20, "W15")}},
	{"V-7",
	 3,
	 ALL_COMBOS,
	 {W(0, 25, ""), W(1, 10, ""), W(2, 17, "W10"), W(0, 12, ""),
	  W(1, 8, ""), W(2, 15, "")}},
	{"V-8",
	 2,
	 ALL_COMBOS,
	 {A(0, ""), A(1, ""), I(1, ""), I(0, "IDLE"), I(0, ""), I(1, ""),
	  A(1, "ACTIVE"), A(0, "")}},
	{"V-9",
	 3,
	 ALL_COMBOS,
	 {W(0, 15, ""), W(1, 10, ""), I(2, "W10"), W(1, 18, "W15"),
	  W(0, 20, "W18")}},
	{"V-10",
	 3,
	 ALL_COMBOS,
	 {W(0, 25, ""), W(1, 10, ""), W(2, 17, "W10"), I(1, "W17"),
	  I(2, "W25")}},
	{"V-11",
	 3,
	 ALL_COMBOS,
	 {W(0, 10, ""), W(1, 5, ""), W(2, 3, "W3"), I(0, ""), I(1, ""),
	  I(2, "W10,IDLE")}},
	{"V-12",
	 3,
	 ALL_COMBOS,
	 {W(0, 10, ""), W(1, 7, ""), W(2, 3, "W3"), I(2, "W7"), A(2, ""),
	  W(2, 5, ""), W(2, 9, ""), W(1, 12, "W9")}},
	{"V-13",
	 3,
	 ALL_COMBOS,
	 {W(0, 10, ""), W(1, 7, ""), I(2, "W7"), A(2, ""), I(0, ""), I(1, "")}},
	{"V-14",
	 2,
	 ALL_COMBOS,
	 {W(0, 7, ""), W(1, 10, "W7"), I(0, "W10"), A(0, ""), W(0, 9, ""),
	  I(0, "")}},
	/* V-15: only the flush flag matters. */
	{"V-15 flush on",
	 3,
	 WITH(FLUSH),
	 {W(0, 100, ""), W(1, 50, ""), W(2, 70, "W50"), I(1, "W70"), A(1, ""),
	  W(1, 60, ""), I(0, ""), I(2, ""), I(1, "W100,IDLE")}},
	{"V-15 flush off",
	 3,
	 WITHOUT(FLUSH),
	 {W(0, 100, ""), W(1, 50, ""), W(2, 70, "W50"), I(1, "W70"), A(1, ""),
	  W(1, 60, ""), I(0, ""), I(2, ""), I(1, "IDLE")}},
	/* V-16: only the re-derive flag matters. */
	{"V-16 rederive on",
	 3,
	 WITH(REDERIVE),
	 {W(0, 10, ""), W(1, 7, ""), I(2, "W7"), A(2, ""), I(0, ""), I(1, ""),
	  A(0, "W10"), I(2, "")}},
	{"V-16 rederive off",
	 3,
	 WITHOUT(REDERIVE),
	 {W(0, 10, ""), W(1, 7, ""), I(2, "W7"), A(2, ""), I(0, ""), I(1, ""),
	  A(0, ""), I(2, "")}},
	/* V-17 is given with both flags on and both off. The mixed settings
	 * follow from doc/semantics.md section 5.3: with re-derive on the
	 * final flush finds 30 already out; with only the flush flag, c2 (30)
	 * is not the held output (20) but the unconditional flush emits the
	 * maximum 30. */
	{"V-17 both on / rederive only",
	 3,
	 (1u << (FLUSH | REDERIVE)) | (1u << REDERIVE),
	 {W(0, 10, ""), W(1, 20, ""), W(2, 30, "W10"), I(2, ""), I(0, "W20"),
	  A(0, ""), I(1, ""), A(2, "W30"), I(0, ""), I(2, "IDLE")}},
	{"V-17 both off",
	 3,
	 1u << 0,
	 {W(0, 10, ""), W(1, 20, ""), W(2, 30, "W10"), I(2, ""), I(0, "W20"),
	  A(0, ""), I(1, ""), A(2, ""), I(0, ""), I(2, "IDLE")}},
	{"V-17 flush only",
	 3,
	 1u << FLUSH,
	 {W(0, 10, ""), W(1, 20, ""), W(2, 30, "W10"), I(2, ""), I(0, "W20"),
	  A(0, ""), I(1, ""), A(2, ""), I(0, ""), I(2, "W30,IDLE")}},
	/* Extremes: MIN is never emitted, MAX is an ordinary watermark. */
	{"extremes",
	 2,
	 ALL_COMBOS,
	 {W(0, WM_TS_MIN, ""), W(1, WM_TS_MIN + 1, ""),
	  W(0, WM_TS_MIN + 1, "W-9223372036854775807"), W(0, WM_TS_MAX, ""),
	  W(1, WM_TS_MAX, "W9223372036854775807"), I(0, ""), I(1, "IDLE")}},
};

static void
run_case(const struct impl *impl, const struct valve_case *vc, unsigned combo)
{
	void *valve = impl->create(vc->channels, combo_behaviour(combo));
	struct recorder rec;
	char got[256];

	ck_assert_ptr_nonnull(valve);
	for (size_t i = 0; vc->steps[i].op != END; i++) {
		const struct step *s = &vc->steps[i];

		recorder_init(&rec);
		if (s->op == WM)
			impl->watermark(valve, s->channel, s->watermark,
					&rec.out);
		else
			impl->status(valve, s->channel,
				     s->op == IDLE ? WM_STATUS_IDLE
						   : WM_STATUS_ACTIVE,
				     &rec.out);
		recorder_render(&rec, got, sizeof(got));
		ck_assert_msg(strcmp(got, s->expect) == 0,
			      "%s valve, %s, flags %s%s: step %zu gave \"%s\", "
			      "expected \"%s\"",
			      impl->name, vc->name,
			      combo & FLUSH ? "+flush" : "-flush",
			      combo & REDERIVE ? "+rederive" : "-rederive",
			      i + 1, got, s->expect);
	}
	impl->destroy(valve);
}

/* _i walks cases x implementations. */
START_TEST(test_valve_scan_conformance_case)
{
	const struct valve_case *vc = &cases[(size_t)_i / N_ELEMS(impls)];
	const struct impl *impl = &impls[(size_t)_i % N_ELEMS(impls)];
	unsigned ran = 0;

	for (unsigned combo = 0; combo < 4; combo++) {
		if (vc->combos & (1u << combo)) {
			run_case(impl, vc, combo);
			ran++;
		}
	}
	ck_assert_uint_gt(ran, 0);
}
END_TEST

/* Every flag combination of every flagged case is covered exactly once. */
START_TEST(test_valve_scan_cases_cover_every_combination)
{
	static const char *const prefixes[] = {"V-15", "V-16", "V-17"};

	for (size_t p = 0; p < N_ELEMS(prefixes); p++) {
		unsigned seen = 0;

		for (size_t i = 0; i < N_ELEMS(cases); i++) {
			if (strncmp(cases[i].name, prefixes[p],
				    strlen(prefixes[p])) != 0)
				continue;
			ck_assert_uint_eq(seen & cases[i].combos, 0);
			seen |= cases[i].combos;
		}
		ck_assert_uint_eq(seen, ALL_COMBOS);
	}
}
END_TEST

START_TEST(test_valve_scan_rejects_zero_channels)
{
	ck_assert_ptr_null(wm_valve_scan_new(0, WM_BEHAVIOUR_RELEASED));
}
END_TEST

START_TEST(test_valve_scan_accessors)
{
	struct wm_valve_scan *v = wm_valve_scan_new(3, WM_BEHAVIOUR_RELEASED);
	struct recorder rec;
	struct wm_channel_status st;

	ck_assert_ptr_nonnull(v);
	recorder_init(&rec);
	ck_assert_uint_eq(wm_valve_scan_channels(v), 3);
	ck_assert(wm_valve_scan_last_watermark(v) == WM_TS_MIN);
	ck_assert_int_eq(wm_valve_scan_last_status(v), WM_STATUS_ACTIVE);
	st = wm_valve_scan_channel(v, 2);
	ck_assert(st.watermark == WM_TS_MIN);
	ck_assert_int_eq(st.status, WM_STATUS_ACTIVE);
	ck_assert(st.aligned);
	wm_valve_scan_input_watermark(v, 0, 5, &rec.out);
	wm_valve_scan_input_watermark(v, 1, 6, &rec.out);
	wm_valve_scan_input_status(v, 2, WM_STATUS_IDLE, &rec.out);
	ck_assert(wm_valve_scan_last_watermark(v) == 5);
	st = wm_valve_scan_channel(v, 2);
	ck_assert_int_eq(st.status, WM_STATUS_IDLE);
	ck_assert(!st.aligned);
	ck_assert(wm_valve_scan_channel(v, 1).watermark == 6);
	wm_valve_scan_free(v);
}
END_TEST

/* ------------------------------------------------------------------ */
/* Differential: heap valve vs scan valve on random input */

static uint64_t
splitmix64(uint64_t *state)
{
	uint64_t z = (*state += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

static uint64_t
rnd_below(uint64_t *state, uint64_t n)
{
	return splitmix64(state) % n;
}

/*
 * A watermark for `channel`, drawn so that every branch of doc/semantics.md
 * sections 5.2 and 5.3 is hit often: rising, repeating and regressing values
 * relative to the channel, values around the valve's output (ties decide
 * flushes and re-alignment), and values next to MIN and MAX. Arithmetic
 * wraps (wm_ts_add), as it would in Java; any value is a legal input.
 */
static wm_ts_t
random_watermark(uint64_t *rng, wm_ts_t channel_wm, wm_ts_t output)
{
	int64_t small = (int64_t)rnd_below(rng, 8);

	uint64_t pick = rnd_below(rng, 100);

	if (pick < 30)
		return wm_ts_add(channel_wm, small + 1); /* rising */
	if (pick < 40)
		return channel_wm; /* repeat */
	if (pick < 50)
		return wm_ts_sub(channel_wm, small + 1); /* regression */
	if (pick < 75)
		return wm_ts_add(output, small - 3); /* around the output */
	if (pick < 80)
		return wm_ts_add(WM_TS_MIN, small / 2); /* MIN, MIN+1, ... */
	/* Rare: once the output reaches MAX nothing moves any more. */
	if (pick < 82)
		return wm_ts_sub(WM_TS_MAX, small / 2); /* MAX, MAX-1, ... */
	return (wm_ts_t)rnd_below(rng, 64); /* small shared domain */
}

static void
assert_same_output(const struct recorder *a, const struct recorder *b,
		   uint32_t channels, unsigned combo, size_t step)
{
	char sa[256], sb[256];

	recorder_render(a, sa, sizeof(sa));
	recorder_render(b, sb, sizeof(sb));
	if (strcmp(sa, sb) != 0)
		ck_abort_msg("%u channels, combo %u, step %zu: heap \"%s\", "
			     "scan \"%s\"",
			     channels, combo, step, sa, sb);
}

static void
assert_same_state(const struct wm_valve *heap, const struct wm_valve_scan *scan,
		  uint32_t channels, unsigned combo, size_t step)
{
	/* Plain comparisons, aborting only on a difference: each ck_assert
	 * costs a write to the parent in fork mode, and this runs millions
	 * of times. */
	if (wm_valve_last_watermark(heap) !=
		    wm_valve_scan_last_watermark(scan) ||
	    wm_valve_last_status(heap) != wm_valve_scan_last_status(scan))
		ck_abort_msg("%u channels, combo %u, step %zu: valve state "
			     "differs",
			     channels, combo, step);
	for (uint32_t c = 0; c < channels; c++) {
		struct wm_channel_status h = wm_valve_channel(heap, c);
		struct wm_channel_status s = wm_valve_scan_channel(scan, c);

		if (h.watermark != s.watermark || h.status != s.status ||
		    h.aligned != s.aligned)
			ck_abort_msg("%u channels, combo %u, step %zu: channel "
				     "%u differs (heap %" PRId64 "/%d/%d, scan "
				     "%" PRId64 "/%d/%d)",
				     channels, combo, step, c, h.watermark,
				     h.status, h.aligned, s.watermark, s.status,
				     s.aligned);
	}
}

static const uint32_t diff_channels[] = {1, 2, 3, 8, 64, 257};

/* _i walks channel counts x flag combinations. */
START_TEST(test_valve_scan_matches_heap_valve)
{
	uint32_t channels = diff_channels[(size_t)_i / 4];
	unsigned combo = (unsigned)_i % 4;
	unsigned behaviour = combo_behaviour(combo);
	size_t step = 0;

	/* Many short runs from a fresh pair of valves rather than one long
	 * one: the early transitions get exercised often, and a run that
	 * reached MAX (where nothing moves) ends soon. */
	for (uint64_t seed = 1; seed <= 40; seed++) {
		uint64_t rng = seed * 1000003u + channels * 31u + combo;
		struct wm_valve *heap = wm_valve_new(channels, behaviour);
		struct wm_valve_scan *scan =
			wm_valve_scan_new(channels, behaviour);
		/* How often an input is a watermark, and how often a status
		 * input says IDLE: both change by phase so that runs reach
		 * all-idle, partial idleness, recovery, and long stretches of
		 * status changes with few watermarks (the legacy stall after
		 * re-activation lasts only until the next watermark). */
		uint64_t idle_percent = 50, wm_percent = 70;

		ck_assert_ptr_nonnull(heap);
		ck_assert_ptr_nonnull(scan);
		for (int n = 0; n < 1500; n++, step++) {
			struct recorder rh, rs;
			uint32_t c = (uint32_t)rnd_below(&rng, channels);
			uint64_t kind = rnd_below(&rng, 100);

			recorder_init(&rh);
			recorder_init(&rs);
			if (n % 300 == 0) {
				idle_percent = rnd_below(&rng, 3) * 45 + 5;
				wm_percent = rnd_below(&rng, 3) * 30 + 15;
			}
			if (kind < wm_percent) {
				wm_ts_t w = random_watermark(
					&rng,
					wm_valve_scan_channel(scan, c)
						.watermark,
					wm_valve_scan_last_watermark(scan));

				wm_valve_input_watermark(heap, c, w, &rh.out);
				wm_valve_scan_input_watermark(scan, c, w,
							      &rs.out);
			} else if (kind < 97) {
				enum wm_status st =
					rnd_below(&rng, 100) < idle_percent
						? WM_STATUS_IDLE
						: WM_STATUS_ACTIVE;

				wm_valve_input_status(heap, c, st, &rh.out);
				wm_valve_scan_input_status(scan, c, st,
							   &rs.out);
			} else {
				/* Sweep: every channel to one status, from a
				 * random starting point, outputs compared as
				 * one sequence. */
				enum wm_status st = rnd_below(&rng, 2)
							    ? WM_STATUS_IDLE
							    : WM_STATUS_ACTIVE;

				for (uint32_t k = 0; k < channels; k++) {
					uint32_t ch = (c + k) % channels;

					/* Up to two events per channel could
					 * overflow the recorder: compare and
					 * reset as we go. */
					wm_valve_input_status(heap, ch, st,
							      &rh.out);
					wm_valve_scan_input_status(scan, ch, st,
								   &rs.out);
					assert_same_output(&rh, &rs, channels,
							   combo, step);
					recorder_init(&rh);
					recorder_init(&rs);
				}
			}
			assert_same_output(&rh, &rs, channels, combo, step);
			assert_same_state(heap, scan, channels, combo, step);
		}
		wm_valve_free(heap);
		wm_valve_scan_free(scan);
	}
}
END_TEST

static Suite *
valve_scan_suite(void)
{
	Suite *s = suite_create("valve_scan");
	TCase *tc;

	tc = tcase_create("conformance");
	tcase_add_loop_test(tc, test_valve_scan_conformance_case, 0,
			    (int)(N_ELEMS(cases) * N_ELEMS(impls)));
	tcase_add_test(tc, test_valve_scan_cases_cover_every_combination);
	tcase_add_test(tc, test_valve_scan_rejects_zero_channels);
	tcase_add_test(tc, test_valve_scan_accessors);
	suite_add_tcase(s, tc);

	tc = tcase_create("differential");
	tcase_add_loop_test(tc, test_valve_scan_matches_heap_valve, 0,
			    (int)(N_ELEMS(diff_channels) * 4));
	tcase_set_timeout(tc, 60);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	return wm_check_main(valve_scan_suite());
}
