/*
 * check_advice.c
 *	Unit tests of the diagnosis and advice at the end of a run: gap
 *	figures from constructed histograms, round durations, and the lines
 *	from reports collected off constructed metrics blocks.
 */
#include "config.h"

#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "runtime/report/advice.h"
#include "runtime/report/report.h"
#include "tests/unit/check_main.h"
#include "tests/unit/job_blocks.h"

#define MS 1000000LL
#define HOUR_MS 3600000LL

/* The bucket of a gap of `ms` in a partition's histogram of gaps. */
static unsigned
gap_bucket(int64_t ms)
{
	return wm_histogram_shape_bucket(WM_HISTOGRAM_GAPS, ms);
}

/* `n` gaps of `ms` in a partition's histogram of gaps. */
static void
set_gaps(struct wm_gap_histogram *h, int64_t ms, uint32_t n)
{
	unsigned b = gap_bucket(ms);

	if (b < WM_METRICS_GAPS_WIDE)
		WM_METRIC_SET(h->wide[b], n);
	else
		WM_METRIC_SET(h->narrow[b - WM_METRICS_GAPS_WIDE], n);
}

/* ---- gap figures and rounding ---- */

/* A partition's histogram of gaps counts gaps under 64 ms, of which it
 * can have as many as records, past 2^32; a longer gap's bucket, which
 * needs 8.7 years to get there, stays at 2^32 - 1. */
START_TEST(test_gap_counts_beyond_32_bits)
{
	struct wm_gap_histogram h;

	memset((void *)&h, 0, sizeof(h));
	ck_assert_uint_eq(gap_bucket(63), WM_METRICS_GAPS_WIDE - 1);
	ck_assert_uint_eq(gap_bucket(64), WM_METRICS_GAPS_WIDE);
	set_gaps(&h, 63, UINT32_MAX);
	wm_gaps_add(&h, gap_bucket(63), 1);
	ck_assert_uint_eq(wm_gaps_get(&h, gap_bucket(63)), 1ull << 32);
	set_gaps(&h, 64, UINT32_MAX - 1);
	wm_gaps_add(&h, gap_bucket(64), 1);
	wm_gaps_add(&h, gap_bucket(64), 1);
	ck_assert_uint_eq(wm_gaps_get(&h, gap_bucket(64)), UINT32_MAX);
	wm_gaps_add(&h, gap_bucket(5 * HOUR_MS), 1); /* the last bucket */
	ck_assert_uint_eq(wm_gaps_get(&h, WM_HISTOGRAM_GAPS_BUCKETS - 1), 1);
	ck_assert_uint_eq(wm_gaps_get(&h, 0), 0);
}
END_TEST

START_TEST(test_regular_gaps_and_one_silence_have_no_period)
{
	uint64_t c[WM_HISTOGRAM_GAPS_BUCKETS] = {0};
	struct wm_gap_figures g;

	c[gap_bucket(10000)] = 720;
	c[gap_bucket(2 * HOUR_MS)] = 1;
	wm_advice_gap_figures(c, 2 * HOUR_MS, &g);
	ck_assert_uint_eq(g.n, 721);
	/* 10 s falls in [9216, 10240): the p99 is the bucket's lower end,
	 * its upper end what the advice must clear. */
	ck_assert_int_eq(g.p99_ms, 9216);
	ck_assert_int_eq(g.p99_upper_ms, 10240);
	ck_assert_int_eq(g.p50_ms, 9216);
	ck_assert_int_eq(g.period_ms, -1);
	ck_assert_int_eq(g.max_ms, 2 * HOUR_MS);
}
END_TEST

START_TEST(test_bursts_give_their_period)
{
	uint64_t c[WM_HISTOGRAM_GAPS_BUCKETS] = {0};
	struct wm_gap_figures g;

	/* 50 bursts of 101 records 10 ms apart, one a minute: 1% of the
	 * gaps are between bursts, so the p99 is inside a burst. */
	c[gap_bucket(10)] = 5000;
	c[gap_bucket(60000)] = 50;
	wm_advice_gap_figures(c, 60000, &g);
	ck_assert_int_eq(g.p99_ms, 10);
	/* 60 s falls in [57344, 61440). */
	ck_assert_int_eq(g.period_ms, 61440);
	ck_assert_int_eq(wm_advice_round(g.period_ms), 120000);
}
END_TEST

START_TEST(test_pauses_and_random_silences_are_no_period)
{
	uint64_t c[WM_HISTOGRAM_GAPS_BUCKETS] = {0};
	struct wm_gap_figures g;
	const int64_t spread[] = {20000,  31000,  47000,  70000,
				  110000, 170000, 260000, 400000};

	/* A record a second, paused 2 min nine times in two hours: the
	 * pauses are 15% of the time, silences for idleness to catch. */
	c[gap_bucket(1000)] = 7000;
	c[gap_bucket(120000)] = 9;
	wm_advice_gap_figures(c, 120000, &g);
	ck_assert_int_eq(g.period_ms, -1);
	/* Silences of random lengths, a few of each. */
	memset(c, 0, sizeof(c));
	c[gap_bucket(100)] = 20000;
	for (size_t i = 0; i < sizeof(spread) / sizeof(spread[0]); i++)
		c[gap_bucket(spread[i])] += 2;
	wm_advice_gap_figures(c, 400000, &g);
	ck_assert_int_eq(g.period_ms, -1);
}
END_TEST

/* Gaps beyond the histogram's range (silences of hours) share its last
 * bucket: the p99 there is bounded by the exact longest gap, not by the
 * end of time. */
START_TEST(test_gaps_beyond_the_range_end_at_the_longest)
{
	uint64_t c[WM_HISTOGRAM_GAPS_BUCKETS] = {0};
	struct wm_gap_figures g;

	c[gap_bucket(1000)] = 50;
	c[gap_bucket(3 * HOUR_MS)] += 40;
	c[gap_bucket(5 * HOUR_MS)] += 10; /* the same bucket */
	wm_advice_gap_figures(c, 5 * HOUR_MS, &g);
	ck_assert_uint_eq(g.n, 100);
	ck_assert_int_eq(g.p99_upper_ms, 5 * HOUR_MS + 1);
	ck_assert_int_eq(wm_advice_round(g.p99_upper_ms), 6 * HOUR_MS);
}
END_TEST

START_TEST(test_no_gaps)
{
	uint64_t c[WM_HISTOGRAM_GAPS_BUCKETS] = {0};
	struct wm_gap_figures g;

	wm_advice_gap_figures(c, 5000, &g);
	ck_assert_uint_eq(g.n, 0);
	ck_assert_int_eq(g.p99_ms, -1);
	ck_assert_int_eq(g.period_ms, -1);
	ck_assert_int_eq(g.max_ms, 5000);
}
END_TEST

START_TEST(test_round_durations)
{
	ck_assert_int_eq(wm_advice_round(1), 1);
	ck_assert_int_eq(wm_advice_round(7000), 10000);
	ck_assert_int_eq(wm_advice_round(10000), 10000);
	ck_assert_int_eq(wm_advice_round(10240), 15000);
	ck_assert_int_eq(wm_advice_round(180001), 300000);
	ck_assert_int_eq(wm_advice_round(2 * HOUR_MS + 1), 3 * HOUR_MS);
	ck_assert_int_eq(wm_advice_round(8 * 86400000LL), 14 * 86400000LL);
}
END_TEST

/* ---- lines from reports ---- */

/* A source of four partitions read by one subtask (plan id 0) into one
 * window subtask (plan id 1), over two hours; `extra` is more [job] or
 * [source s] text. */
static const char *const two_hours =
	"[job]\nevent_time = 2 h\n%s\n[source s]\nparallelism = 1\n"
	"partitions = 4\nrate = 1/s\nout_of_orderness = 1 s\n%s\n"
	"[window w]\ninput = s\nparallelism = 1\nsize = 1 min\n"
	"aggregates = count\n";

struct job {
	struct wm_topology *topo;
	struct wm_plan *plan;
	char *blocks;
	struct wm_job_report rep;
	struct wm_advice advice;
};

static void
job_open(struct job *j, const char *job_keys, const char *source_keys)
{
	char text[1024];
	struct wm_partition_metrics *parts;

	snprintf(text, sizeof(text), two_hours, job_keys, source_keys);
	job_blocks_open(text, &j->topo, &j->plan, &j->blocks);
	wm_plan_block(j->plan, j->blocks, 0)->n_partitions = 4;
	parts = wm_plan_partitions(j->plan, j->blocks, 0);
	for (uint32_t p = 0; p < 4; p++) {
		/* A record every second, more than the advice needs. */
		parts[p].partition = p;
		parts[p].records = 7200;
		set_gaps(&parts[p].gaps, 1000, 7199);
		parts[p].gap_max_ms = 1000;
	}
}

/* Partition 3 ticks every 10 s and was silent 2 h once; what held the
 * window's longest stall, that long, was that partition. */
static void
silence_holds_the_window(struct job *j)
{
	struct wm_subtask_metrics *src = wm_plan_block(j->plan, j->blocks, 0);
	struct wm_subtask_metrics *win = wm_plan_block(j->plan, j->blocks, 1);
	struct wm_partition_metrics *p3 =
		&wm_plan_partitions(j->plan, j->blocks, 0)[3];

	memset((void *)&p3->gaps, 0, sizeof(p3->gaps));
	p3->records = 722;
	set_gaps(&p3->gaps, 10000, 720);
	set_gaps(&p3->gaps, 2 * HOUR_MS, 1);
	p3->gap_max_ms = 2 * HOUR_MS;
	src->output.longest_cause = 3;
	src->output.longest_stall_ns = 2 * HOUR_MS * MS;
	src->output.stalled_ns = 2 * HOUR_MS * MS;
	src->output.stalls = 1;
	win->output.longest_cause = 0; /* its one input channel */
	win->output.longest_stall_ns = 2 * HOUR_MS * MS;
	win->output.stalled_ns = 2 * HOUR_MS * MS;
	win->output.stalls = 1;
}

static void
job_advise(struct job *j)
{
	ck_assert_int_eq(wm_report_collect(&j->rep, j->topo, j->plan, j->blocks,
					   4 * HOUR_MS * MS, 0, true),
			 0);
	ck_assert_int_eq(wm_advice_build(j->topo, &j->rep, &j->advice), 0);
}

static void
job_close(struct job *j)
{
	wm_advice_free(&j->advice);
	wm_report_free(&j->rep);
	job_blocks_close(j->topo, j->plan, j->blocks);
}

/* Partition 3 is sparse: a record every 50 s, 144 of them; the window
 * waited on it 144 times, 2 h in all. */
static void
sparse_partition_holds_the_window(struct job *j)
{
	struct wm_subtask_metrics *src = wm_plan_block(j->plan, j->blocks, 0);
	struct wm_subtask_metrics *win = wm_plan_block(j->plan, j->blocks, 1);
	struct wm_partition_metrics *p3 =
		&wm_plan_partitions(j->plan, j->blocks, 0)[3];

	memset((void *)&p3->gaps, 0, sizeof(p3->gaps));
	p3->records = 144;
	set_gaps(&p3->gaps, 50000, 143);
	p3->gap_max_ms = 50000;
	src->output.longest_cause = 3;
	src->output.longest_stall_ns = 50000 * MS;
	win->output.longest_cause = 0;
	win->output.longest_stall_ns = 50000 * MS;
	win->output.stalled_ns = 2 * HOUR_MS * MS;
	win->output.stalls = 144;
}

/* A job whose partition 3 held the window (silence_holds_the_window()),
 * advised. */
static void
silence_job(struct job *j, const char *job_keys, const char *source_keys)
{
	job_open(j, job_keys, source_keys);
	silence_holds_the_window(j);
	job_advise(j);
}

/* The line of `kind`, which there must be exactly one of. */
static const struct wm_advice_line *
line_of(const struct job *j, enum wm_advice_kind kind)
{
	const struct wm_advice_line *found = NULL;

	for (uint32_t i = 0; i < j->advice.n; i++)
		if (j->advice.lines[i].kind == kind) {
			ck_assert_msg(found == NULL, "two lines of kind %d",
				      kind);
			found = &j->advice.lines[i];
		}
	ck_assert_msg(found != NULL, "no line of kind %d", kind);
	return found;
}

/* There is no line of `kind`. */
static void
no_line_of(const struct job *j, enum wm_advice_kind kind)
{
	for (uint32_t i = 0; i < j->advice.n; i++)
		ck_assert_int_ne(j->advice.lines[i].kind, kind);
}

START_TEST(test_healthy_job_gets_nothing)
{
	struct job j;

	job_open(&j, "", "");
	job_advise(&j);
	ck_assert_uint_eq(j.advice.n, 0);
	job_close(&j);
}
END_TEST

START_TEST(test_silent_partition_is_named)
{
	const struct wm_advice_line *l;
	struct job j;

	silence_job(&j, "", "");
	l = line_of(&j, WM_ADVICE_HELD);
	ck_assert_str_eq(l->text, "window w/0 waited 2 h 0 min on s/0, "
				  "partition s-3: silent 2 h 0 min, no "
				  "idle_timeout set");
	job_close(&j);
}
END_TEST

/* The idle_timeout advised for the job of silence_job() with the source's
 * keys, the figure it clears and the line. */
static const struct idle_row {
	const char *source_keys;
	int64_t value_ms, from_ms;
	const char *text;
} idle_rows[] = {
	/* Three times the 10 s gaps (whose bucket ends at 10.24 s): 30.72
	 * s, rounded up. */
	{"", 60000, 30720,
	 "1 min (partition s-3: 3 times its p99 gap 9.2 s, longest 2 h 0 "
	 "min; none set)"},
	/* Below the gaps: raised. */
	{"idle_timeout = 5 s", 60000, 30720,
	 "1 min (partition s-3: 3 times its p99 gap 9.2 s, longest 2 h 0 "
	 "min; 5 s set, below the gaps: it flaps)"},
	/* Watermarks every 20 s: idleness is judged that seldom, so the
	 * timeout is at least five intervals, and says so. */
	{"watermark_interval = 20 s", 120000, 100000,
	 "2 min (5 watermark intervals of 20.0 s, at each of which idleness "
	 "is judged; partition s-3: 3 times its p99 gap 9.2 s, longest 2 h "
	 "0 min; none set)"},
	/* Above the gaps but within the intervals: raised, and not said to
	 * flap. */
	{"watermark_interval = 20 s\nidle_timeout = 40 s", 120000, 100000,
	 "2 min (5 watermark intervals of 20.0 s, at each of which idleness "
	 "is judged; partition s-3: 3 times its p99 gap 9.2 s, longest 2 h "
	 "0 min; 40 s set, within 5 watermark intervals)"},
};

START_TEST(test_idle_timeout_advised)
{
	const struct idle_row *row = &idle_rows[_i];
	const struct wm_advice_line *l;
	struct job j;

	silence_job(&j, "", row->source_keys);
	l = line_of(&j, WM_ADVICE_IDLE_TIMEOUT);
	ck_assert_int_eq(l->value_ms, row->value_ms);
	ck_assert_int_eq(l->from_ms, row->from_ms);
	ck_assert_str_eq(l->text, row->text);
	job_close(&j);
}
END_TEST

START_TEST(test_sparse_partition_is_named_and_left_idle)
{
	const struct wm_advice_line *l;
	struct job j;

	job_open(&j, "", "");
	sparse_partition_holds_the_window(&j);
	job_advise(&j);
	l = line_of(&j, WM_ADVICE_HELD);
	ck_assert_str_eq(l->text, "window w/0 waited 2 h 0 min in 144 stalls, "
				  "the longest 50.0 s, on s/0, partition s-3: "
				  "sparse, a record every 49.2 s or so "
				  "(longest gap 50.0 s), no idle_timeout set");
	/* The busy partitions bound it (1 s gaps end at 1.024 s, three
	 * times that 3.072 s), not the sparse one, which idleness is for. */
	l = line_of(&j, WM_ADVICE_IDLE_TIMEOUT);
	ck_assert_int_eq(l->value_ms, 5000);
	ck_assert_str_eq(l->text,
			 "5 s (partition s-0: 3 times its p99 gap 960 ms; "
			 "partition s-3 sparse, a record every 49.2 s: "
			 "idle between its records, which may then "
			 "come late; none set)");
	job_close(&j);
}
END_TEST

START_TEST(test_short_stalls_that_add_up_to_little_say_nothing)
{
	struct wm_subtask_metrics *win;
	struct job j;

	job_open(&j, "", "");
	sparse_partition_holds_the_window(&j);
	win = wm_plan_block(j.plan, j.blocks, 1);
	/* 5% of the 4 h run: not long. */
	win->output.stalled_ns = 12 * 60000 * MS;
	job_advise(&j);
	ck_assert_uint_eq(j.advice.n, 0);
	job_close(&j);
}
END_TEST

START_TEST(test_idle_timeout_that_fits_is_left_alone)
{
	struct job j;

	silence_job(&j, "", "idle_timeout = 1 min");
	no_line_of(&j, WM_ADVICE_IDLE_TIMEOUT);
	job_close(&j);
}
END_TEST

/* The job of silence_job() with the source's keys, its partition 3
 * having gone idle `spells` times, advised. */
static void
flapping_job(struct job *j, const char *source_keys, uint64_t spells)
{
	job_open(j, "", source_keys);
	silence_holds_the_window(j);
	wm_plan_partitions(j->plan, j->blocks, 0)[3].progress.to_idle = spells;
	job_advise(j);
}

/* Every 10 s gap of partition 3 an idle spell under a 5 s timeout: the
 * flapping is said with its count and rate, and the timeout raised;
 * below WM_ADVICE_MIN_GAPS spells, or with a timeout that fits, nothing
 * flaps. */
START_TEST(test_flapping_is_diagnosed)
{
	const struct wm_advice_line *l;
	struct job j;

	flapping_job(&j, "idle_timeout = 5 s", 720);
	l = line_of(&j, WM_ADVICE_FLAPPING);
	ck_assert_uint_eq(l->idle_spells, 720);
	ck_assert_str_eq(l->text,
			 "source s: its partitions went idle 720 times in 4 h "
			 "0 min (180 an hour): idle_timeout 5 s is below "
			 "their gaps (partition s-3: p99 gap 9.2 s), so each "
			 "gap is an idle spell, and the record after it is "
			 "late if its window fired meanwhile");
	/* Diagnoses come before settings. */
	ck_assert(wm_advice_is_diagnosis(j.advice.lines[0].kind));
	ck_assert_int_eq(line_of(&j, WM_ADVICE_IDLE_TIMEOUT)->value_ms, 60000);
	job_close(&j);

	flapping_job(&j, "idle_timeout = 5 s", WM_ADVICE_MIN_GAPS - 1);
	no_line_of(&j, WM_ADVICE_FLAPPING);
	job_close(&j);
	flapping_job(&j, "idle_timeout = 1 min", 720);
	no_line_of(&j, WM_ADVICE_FLAPPING);
	job_close(&j);
}
END_TEST

START_TEST(test_max_delay_below_the_gaps_fits_nothing)
{
	const struct wm_advice_line *l;
	struct job j;

	silence_job(&j, "max_delay = 8 s", "");
	l = line_of(&j, WM_ADVICE_NO_IDLE_TIMEOUT);
	ck_assert_int_eq(l->value_ms, -1);
	ck_assert_str_eq(l->text, "no idle_timeout fits source s: partition "
				  "s-3's gaps need 1 min or more (3 times its "
				  "p99 gap 9.2 s), max_delay is 8 s");
	job_close(&j);
}
END_TEST

/* The out_of_orderness advised for a source whose records were `n_low`
 * times `low_ms` and `n_high` times `high_ms` out of order (the latter
 * the largest, in partition 2), which must be `want_ms`, said `text`. */
static void
check_disorder(uint64_t n_low, int64_t low_ms, uint64_t n_high, int64_t high_ms,
	       int64_t want_ms, const char *text)
{
	const struct wm_advice_line *l;
	struct wm_subtask_metrics *src;
	struct job j;

	job_open(&j, "", "");
	src = wm_plan_block(j.plan, j.blocks, 0);
	src->disorder[wm_histogram_bucket(low_ms)] = n_low;
	src->disorder[wm_histogram_bucket(high_ms)] = n_high;
	wm_plan_partitions(j.plan, j.blocks, 0)[1].disorder_max_ms = low_ms;
	wm_plan_partitions(j.plan, j.blocks, 0)[2].disorder_max_ms = high_ms;
	job_advise(&j);
	l = line_of(&j, WM_ADVICE_OUT_OF_ORDERNESS);
	ck_assert_int_eq(l->value_ms, want_ms);
	ck_assert_int_eq(l->from_ms, high_ms);
	ck_assert_str_eq(l->text, text);
	job_close(&j);
}

START_TEST(test_disorder_beyond_the_bound_raises_it)
{
	/* The p99 within the 1 s bound, the maximum beyond. */
	check_disorder(990, 500, 10, 7000, 10000,
		       "10 s (source s: records up to 7.0 s out of order, p99 "
		       "480 ms; 1 s set)");
}
END_TEST

START_TEST(test_p99_disorder_says_what_it_would_cost)
{
	check_disorder(995, 1500, 5, 40000, 60000,
		       "1 min (source s: records up to 40.0 s out of order, "
		       "p99 1.4 s; 2 s would leave at least 5 records more "
		       "out of order, each late if its window fired before it "
		       "came; 1 s set)");
}
END_TEST

START_TEST(test_late_records_raise_allowed_lateness)
{
	const struct wm_advice_line *l;
	struct wm_subtask_metrics *win;
	struct job j;

	job_open(&j, "", "");
	win = wm_plan_block(j.plan, j.blocks, 1);
	win->late_dropped = 12;
	win->lateness[wm_histogram_bucket(180000)] = 12;
	win->lateness_max_ms = 180000;
	job_advise(&j);
	l = line_of(&j, WM_ADVICE_ALLOWED_LATENESS);
	/* Strictly above: a record exactly 3 min behind is late at 3 min. */
	ck_assert_int_eq(l->value_ms, 300000);
	ck_assert_str_eq(l->text, "5 min (window w: 12 late records, the "
				  "latest 3 min 0 s behind the watermark; 0 "
				  "set)");
	job_close(&j);
}
END_TEST

int
main(void)
{
	Suite *s = suite_create("advice");
	TCase *gaps = tcase_create("gaps");
	TCase *lines = tcase_create("lines");

	tcase_add_test(gaps, test_gap_counts_beyond_32_bits);
	tcase_add_test(gaps, test_regular_gaps_and_one_silence_have_no_period);
	tcase_add_test(gaps, test_bursts_give_their_period);
	tcase_add_test(gaps, test_pauses_and_random_silences_are_no_period);
	tcase_add_test(gaps, test_no_gaps);
	tcase_add_test(gaps, test_gaps_beyond_the_range_end_at_the_longest);
	tcase_add_test(gaps, test_round_durations);
	tcase_add_test(lines, test_healthy_job_gets_nothing);
	tcase_add_test(lines, test_silent_partition_is_named);
	tcase_add_test(lines, test_sparse_partition_is_named_and_left_idle);
	tcase_add_test(lines,
		       test_short_stalls_that_add_up_to_little_say_nothing);
	tcase_add_test(lines, test_idle_timeout_that_fits_is_left_alone);
	tcase_add_loop_test(lines, test_idle_timeout_advised, 0,
			    (int)(sizeof(idle_rows) / sizeof(idle_rows[0])));
	tcase_add_test(lines, test_flapping_is_diagnosed);
	tcase_add_test(lines, test_max_delay_below_the_gaps_fits_nothing);
	tcase_add_test(lines, test_disorder_beyond_the_bound_raises_it);
	tcase_add_test(lines, test_p99_disorder_says_what_it_would_cost);
	tcase_add_test(lines, test_late_records_raise_allowed_lateness);
	suite_add_tcase(s, gaps);
	suite_add_tcase(s, lines);
	return wm_check_main(s);
}
