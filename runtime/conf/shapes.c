/*
 * shapes.c
 *	The load-shape language of a synthetic source: skew, silence, burst,
 *	outage and silence_random entries, their partitions and their
 *	schedules; punctuate, which of its records carry a watermark; and
 *	heartbeat, which of its partitions send heartbeats.
 */
#include "config.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "runtime/conf/loader.h"
#include "runtime/conf/topology.h"
#include "lib/units.h"

/* ------------------------------------------------------------------ */
/* Stages */

/*
 * The values of skew, silence and burst ("shapes" of a synthetic source):
 * blank-separated words
 *
 *	PARTITIONS [xF] [every D] [for D] [from D] [to D]
 *
 * PARTITIONS	FIRST or FIRST-LAST (digits), partitions of the source, or
 *		"all" of them (so that a --sweep over the source's
 *		partitions keeps the shape on every one)
 * xF		a rate multiplier, F > 0 and finite: skew and burst need one,
 *		silence takes none
 * every D	periodic: a window starts every D from `from` on...
 * for D	... and lasts D (shorter than every D; needed with every);
 *		without every: the one window lasts D from `from` (instead
 *		of "to")
 * from D	the first window starts here (default 0: the job start)
 * to D		no window reaches past here (default: for ever)
 *
 * in processing time since the job start; D is a duration, possibly of
 * several words ("10 min"). The schedule words come in any order, each at
 * most once; skew takes none (it holds for the whole job). A part that is
 * wrong by itself is reported at its column, a wrong combination at the
 * value's.
 */
enum shape_kind {
	SHAPE_SKEW,
	SHAPE_SILENCE,
	SHAPE_BURST,
	SHAPE_OUTAGE,
	SHAPE_RANDOM_SILENCE,
	SHAPE_PUNCTUATE,
	SHAPE_HEARTBEAT
};

struct shape_key {
	enum shape_kind kind;
	const char *key;
	bool multiplier; /* needs xF */
	bool schedule;	 /* takes every, for, from, to */
	const char *usage;
};

static const struct shape_key shape_keys[] = {
	{SHAPE_SKEW, "skew", true, false, "FIRST[-LAST] xFACTOR"},
	{SHAPE_SILENCE, "silence", false, true,
	 "FIRST[-LAST] [every DURATION] [for DURATION] [from DURATION] "
	 "[to DURATION]"},
	{SHAPE_BURST, "burst", true, true,
	 "FIRST[-LAST] xFACTOR [every DURATION] [for DURATION] "
	 "[from DURATION] [to DURATION]"},
	{SHAPE_OUTAGE, "outage", false, true,
	 "FIRST[-LAST] [every DURATION] [for DURATION] [from DURATION] "
	 "[to DURATION]"},
	/* Parsed by parse_random_silence(): words of its own. */
	{SHAPE_RANDOM_SILENCE, "silence_random", false, false,
	 "FIRST[-LAST] fraction NUMBER mean DURATION"},
	/* Parsed by parse_punctuation(): which records carry a watermark. */
	{SHAPE_PUNCTUATE, "punctuate", false, false,
	 "FIRST[-LAST] every COUNT records | every DURATION"},
	/* Parsed by parse_heartbeat(): which partitions send heartbeats. */
	{SHAPE_HEARTBEAT, "heartbeat", false, false,
	 "FIRST[-LAST] every DURATION"},
};

enum { SHAPE_EVERY, SHAPE_FOR, SHAPE_FROM, SHAPE_TO, SHAPE_N_WORDS };

static const char *const shape_words[SHAPE_N_WORDS] = {"every", "for", "from",
						       "to"};

struct word {
	size_t off, len; /* in the entry's value */
};

#define SHAPE_MAX_WORDS 16

static int
shape_word(const char *value, const struct word *w)
{
	for (int k = 0; k < SHAPE_N_WORDS; k++)
		if (strlen(shape_words[k]) == w->len &&
		    strncmp(value + w->off, shape_words[k], w->len) == 0)
			return k;
	return -1;
}

static int
shape_usage(struct loader *l, const struct wm_ini_entry *e,
	    const struct shape_key *sk)
{
	char why[200];

	snprintf(why, sizeof(why), "expected \"%s\"", sk->usage);
	return wm_conf_bad_value(l, e, why);
}

/* The LAST of "all": the source's last partition, known only to
 * check_partitions(); no number in digits reaches it. */
#define ALL_PARTITIONS UINT64_MAX

/* PARTITIONS: FIRST or FIRST-LAST, in digits, or "all". */
static int
parse_partitions(struct loader *l, const struct wm_ini_entry *e,
		 const struct shape_key *sk, const struct word *w,
		 uint64_t bound[2])
{
	const char *p = e->value + w->off, *end = p + w->len;
	int n = 0;

	bound[0] = bound[1] = 0;
	if (w->len == 3 && strncmp(p, "all", 3) == 0) {
		bound[1] = ALL_PARTITIONS;
		return 0;
	}
	while (n < 2) {
		const char *digits = p;

		while (p < end && isdigit((unsigned char)*p) &&
		       bound[n] <= UINT32_MAX)
			bound[n] = bound[n] * 10 + (uint64_t)(*p++ - '0');
		if (p == digits || (p < end && isdigit((unsigned char)*p)))
			return shape_usage(l, e, sk);
		n++;
		if (p == end)
			break;
		if (*p++ != '-' || n == 2)
			return shape_usage(l, e, sk);
	}
	if (n == 1)
		bound[1] = bound[0];
	return 0;
}

/* FIRST <= LAST < partitions, for the partitions in word w. */
static int
check_partitions(struct loader *l, const struct wm_ini_entry *e,
		 const struct word *w, const uint64_t bound[2],
		 uint32_t partitions, struct wm_source_gen_burst *sh)
{
	int len = (int)(w->len < 40 ? w->len : 40);
	uint64_t last = bound[1] == ALL_PARTITIONS ? partitions - 1 : bound[1];
	char why[160];

	if (bound[0] > last) {
		snprintf(why, sizeof(why),
			 "expected FIRST <= LAST, not \"%.*s\"", len,
			 e->value + w->off);
		return wm_conf_bad_value_at(l, e, w->off, why);
	}
	if (last >= partitions) {
		snprintf(why, sizeof(why),
			 "expected partitions from 0 to %u (the source has "
			 "%u), not \"%.*s\"",
			 partitions - 1, partitions, len, e->value + w->off);
		return wm_conf_bad_value_at(l, e, w->off, why);
	}
	sh->first_partition = (uint32_t)bound[0];
	sh->last_partition = (uint32_t)last;
	return 0;
}

/* xF: F a plain decimal number above 0. */
static int
parse_multiplier(struct loader *l, const struct wm_ini_entry *e,
		 const struct word *w, struct wm_source_gen_burst *sh)
{
	const char *p = e->value + w->off;
	char text[64], *end;
	char why[200];
	double f = 0;

	if (w->len < sizeof(text) && p[0] == 'x' &&
	    (isdigit((unsigned char)p[1]) || p[1] == '.')) {
		memcpy(text, p + 1, w->len - 1);
		text[w->len - 1] = '\0';
		errno = 0;
		f = strtod(text, &end);
		/* Decimal only: strtod() would take "0x10" and "inf". */
		if (*end != '\0' || errno != 0 ||
		    strspn(text, "0123456789.eE+-") != w->len - 1)
			f = 0;
	}
	if (!(f > 0) || !isfinite(f)) {
		snprintf(why, sizeof(why),
			 "invalid multiplier \"%.*s\" (expected x and a number "
			 "above 0, as in x10 or x0.01)",
			 (int)(w->len < 40 ? w->len : 40), p);
		return wm_conf_bad_value_at(l, e, w->off, why);
	}
	sh->factor = f;
	return 0;
}

/* words[from..to) and the blanks between them into text[cap] as a string:
 * its length, or a "too long" error. */
static int
words_text(struct loader *l, const struct wm_ini_entry *e,
	   const struct word *words, size_t from, size_t to, char *text,
	   size_t cap)
{
	size_t len = words[to - 1].off + words[to - 1].len - words[from].off;

	if (len >= cap)
		return wm_conf_bad_value_at(l, e, words[from].off, "too long");
	memcpy(text, e->value + words[from].off, len);
	text[len] = '\0';
	return (int)len;
}

/* The schedule words from words[i] on into dur[] (-1: not given). */
static int
parse_schedule(struct loader *l, const struct wm_ini_entry *e,
	       const struct shape_key *sk, const struct word *words, size_t i,
	       size_t n, int64_t dur[SHAPE_N_WORDS])
{
	char text[256], why[WM_UNITS_WHY_MAX + 64];

	while (i < n) {
		int k = sk->schedule ? shape_word(e->value, &words[i]) : -1;
		const struct word *w = &words[i];
		size_t j = i + 1;

		if (k < 0) {
			snprintf(why, sizeof(why), "unexpected \"%.*s\" %s",
				 (int)(w->len < 40 ? w->len : 40),
				 e->value + w->off,
				 sk->schedule
					 ? "(expected every, for, from or to)"
					 : "(a skew holds for the whole job; "
					   "a burst holds for a while)");
			return wm_conf_bad_value_at(l, e, w->off, why);
		}
		if (dur[k] >= 0) {
			snprintf(why, sizeof(why), "\"%s\" given twice",
				 shape_words[k]);
			return wm_conf_bad_value_at(l, e, w->off, why);
		}
		while (j < n && shape_word(e->value, &words[j]) < 0)
			j++;
		if (j == i + 1) {
			snprintf(why, sizeof(why), "\"%s\" needs a duration",
				 shape_words[k]);
			return wm_conf_bad_value_at(l, e, w->off, why);
		}
		/* The duration: its words and the blanks between them. */
		if (words_text(l, e, words, i + 1, j, text, sizeof(text)) < 0)
			return -EINVAL;
		if (wm_units_duration_ms(text, &dur[k], why, sizeof(why)) != 0)
			return wm_conf_bad_value_at(l, e, words[i + 1].off,
						    why);
		if ((k == SHAPE_EVERY || k == SHAPE_FOR) && dur[k] == 0) {
			snprintf(why, sizeof(why), "\"%s\" must be positive",
				 shape_words[k]);
			return wm_conf_bad_value_at(l, e, words[i + 1].off,
						    why);
		}
		i = j;
	}
	return 0;
}

/* The windows of a shape from its schedule words: checks that need more
 * than one word. */
static int
shape_windows(struct loader *l, const struct wm_ini_entry *e,
	      const int64_t dur[SHAPE_N_WORDS], struct wm_source_gen_burst *sh)
{
	sh->from_ms = dur[SHAPE_FROM] < 0 ? 0 : dur[SHAPE_FROM];
	sh->to_ms = dur[SHAPE_TO] < 0 ? INT64_MAX : dur[SHAPE_TO];
	sh->period_ms = 0;
	sh->length_ms = 0;
	if (dur[SHAPE_EVERY] >= 0) {
		if (dur[SHAPE_FOR] < 0)
			return wm_conf_bad_value(
				l, e,
				"\"every\" needs \"for\": how long "
				"each period's window lasts");
		if (dur[SHAPE_FOR] >= dur[SHAPE_EVERY])
			return wm_conf_bad_value(l, e,
						 "\"for\" must be shorter than "
						 "\"every\"");
		sh->period_ms = dur[SHAPE_EVERY];
		sh->length_ms = dur[SHAPE_FOR];
	} else if (dur[SHAPE_FOR] >= 0) {
		if (dur[SHAPE_TO] >= 0)
			return wm_conf_bad_value(
				l, e,
				"give \"for\" or \"to\", not both "
				"(without \"every\", both end the "
				"window)");
		if (__builtin_add_overflow(sh->from_ms, dur[SHAPE_FOR],
					   &sh->to_ms))
			return wm_conf_bad_value(
				l, e,
				"\"from\" plus \"for\" is out of "
				"range");
	}
	if (sh->to_ms <= sh->from_ms)
		return wm_conf_bad_value(l, e,
					 "\"to\" must come after \"from\"");
	return 0;
}

/* The blank-separated words of e's value into words[], *n of them (at
 * least one, at most SHAPE_MAX_WORDS), and the first word's partitions
 * into bound[]. */
static int
split_words(struct loader *l, const struct wm_ini_entry *e,
	    const struct shape_key *sk, struct word words[SHAPE_MAX_WORDS],
	    size_t *n, uint64_t bound[2])
{
	size_t off = 0;

	*n = 0;
	for (;;) {
		off += strspn(e->value + off, " \t");
		if (e->value[off] == '\0')
			break;
		if (*n == SHAPE_MAX_WORDS)
			return wm_conf_bad_value_at(l, e, off,
						    "too many words");
		words[*n].off = off;
		words[*n].len = strcspn(e->value + off, " \t");
		off += words[(*n)++].len;
	}
	if (*n == 0)
		return shape_usage(l, e, sk);
	return parse_partitions(l, e, sk, &words[0], bound);
}

/* One skew, silence or burst value (see above) into *sh; its factor is 1
 * if the key takes none, its windows the whole job if it takes none. */
static int
parse_shape(struct loader *l, const struct wm_ini_entry *e,
	    const struct shape_key *sk, uint32_t partitions,
	    struct wm_source_gen_burst *sh)
{
	struct word words[SHAPE_MAX_WORDS];
	int64_t dur[SHAPE_N_WORDS] = {-1, -1, -1, -1};
	uint64_t bound[2];
	size_t n, i = 1;
	int r;

	if ((r = split_words(l, e, sk, words, &n, bound)) != 0)
		return r;
	sh->factor = 1;
	if (sk->multiplier) {
		if (n < 2)
			return wm_conf_bad_value_at(
				l, e, e->value_len,
				"expected a multiplier after the "
				"partitions, as in x10");
		if ((r = parse_multiplier(l, e, &words[1], sh)) != 0)
			return r;
		i = 2;
	}
	if ((r = parse_schedule(l, e, sk, words, i, n, dur)) != 0 ||
	    (r = shape_windows(l, e, dur, sh)) != 0)
		return r;
	return check_partitions(l, e, &words[0], bound, partitions, sh);
}

/*
 * The value of a random silence's "fraction" (a plain decimal number
 * above 0 and below 1) or "mean" (a duration above 0) into *rs: `text`,
 * `len` bytes, is the value's words, at column `off` of the entry's value.
 * 0, or the error of wm_conf_bad_value_at() at the value.
 */
static int
random_silence_value(struct loader *l, const struct wm_ini_entry *e,
		     bool fraction, const char *text, size_t len, size_t off,
		     struct wm_source_gen_random_silence *rs)
{
	char *end, why[WM_UNITS_WHY_MAX + 64];

	if (fraction) {
		errno = 0;
		rs->fraction = strtod(text, &end);
		/* Decimal only: strtod() would take "0x.1" and "nan". */
		if (*end != '\0' || errno != 0 ||
		    strspn(text, "0123456789.eE+-") != len ||
		    !(rs->fraction > 0 && rs->fraction < 1)) {
			snprintf(why, sizeof(why),
				 "invalid fraction \"%.*s\" (expected a number "
				 "above 0 and below 1, as in 0.2)",
				 (int)(len < 40 ? len : 40), text);
			return wm_conf_bad_value_at(l, e, off, why);
		}
		return 0;
	}
	if (wm_units_duration_ms(text, &rs->mean_ms, why, sizeof(why)) != 0)
		return wm_conf_bad_value_at(l, e, off, why);
	if (rs->mean_ms <= 0 || rs->mean_ms > WM_SOURCE_GEN_MAX_DELAY_MS)
		return wm_conf_bad_value_at(
			l, e, off,
			rs->mean_ms <= 0 ? "\"mean\" must be positive"
					 : "\"mean\" is out of range");
	return 0;
}

/*
 * A random silence (operators/source_gen.h, "Random silences"):
 *
 *	PARTITIONS fraction F mean D
 *
 * each of PARTITIONS silent a fraction F of the time (0 < F < 1, a plain
 * decimal number), in silent periods of mean D (a duration above 0, of one
 * or more words), independently. The two words in either order, each once.
 */
static int
parse_random_silence(struct loader *l, const struct wm_ini_entry *e,
		     const struct shape_key *sk, uint32_t partitions,
		     struct wm_source_gen_random_silence *rs)
{
	struct word words[SHAPE_MAX_WORDS];
	struct wm_source_gen_burst range = {0};
	char text[256], why[WM_UNITS_WHY_MAX + 64];
	bool have_fraction = false, have_mean = false;
	uint64_t bound[2];
	size_t n, i = 1;
	int r;

	if ((r = split_words(l, e, sk, words, &n, bound)) != 0)
		return r;
	while (i < n) {
		const struct word *w = &words[i];
		bool fraction = w->len == 8 &&
				strncmp(e->value + w->off, "fraction", 8) == 0;
		bool mean = w->len == 4 &&
			    strncmp(e->value + w->off, "mean", 4) == 0;
		size_t j = i + 1, len;

		if (!fraction && !mean)
			return shape_usage(l, e, sk);
		if (fraction ? have_fraction : have_mean) {
			snprintf(why, sizeof(why), "\"%s\" given twice",
				 fraction ? "fraction" : "mean");
			return wm_conf_bad_value_at(l, e, w->off, why);
		}
		/* Its value: the words up to the other keyword. */
		while (j < n &&
		       !(words[j].len == 8 && strncmp(e->value + words[j].off,
						      "fraction", 8) == 0) &&
		       !(words[j].len == 4 &&
			 strncmp(e->value + words[j].off, "mean", 4) == 0))
			j++;
		if (j == i + 1) {
			snprintf(why, sizeof(why), "\"%s\" needs %s",
				 fraction ? "fraction" : "mean",
				 fraction ? "a number" : "a duration");
			return wm_conf_bad_value_at(l, e, w->off, why);
		}
		if ((r = words_text(l, e, words, i + 1, j, text,
				    sizeof(text))) < 0)
			return r;
		len = (size_t)r;
		if ((r = random_silence_value(l, e, fraction, text, len,
					      words[i + 1].off, rs)) != 0)
			return r;
		if (fraction)
			have_fraction = true;
		else
			have_mean = true;
		i = j;
	}
	if (!have_fraction || !have_mean)
		return wm_conf_bad_value(
			l, e,
			have_fraction ? "expected \"mean\" and a duration"
				      : "expected \"fraction\" and a number");
	if ((r = check_partitions(l, e, &words[0], bound, partitions,
				  &range)) != 0)
		return r;
	rs->first_partition = range.first_partition;
	rs->last_partition = range.last_partition;
	return 0;
}

/*
 * A key a partition is under once at most (punctuate, heartbeat): 0 if
 * `range`, the partitions at column `off` of e's value, and an earlier
 * entry's first..last of that key do not meet, else the error naming the
 * first partition they share, and `rule`.
 */
static int
refuse_overlap(struct loader *l, const struct wm_ini_entry *e, size_t off,
	       const struct wm_source_gen_burst *range, uint32_t first,
	       uint32_t last, const char *key, const char *rule)
{
	char why[200];

	if (range->first_partition > last || first > range->last_partition)
		return 0;
	snprintf(why, sizeof(why),
		 "partition %u is under an earlier %s already (%s)",
		 range->first_partition > first ? range->first_partition
						: first,
		 key, rule);
	return wm_conf_bad_value_at(l, e, off, why);
}

/* A punctuation's COUNT, the word `w` of e's value: a whole number from 1
 * to 2^32 - 1, in digits (a count beyond any run's records is a
 * mistake). */
static int
parse_mark_count(struct loader *l, const struct wm_ini_entry *e,
		 const struct word *w, uint64_t *every)
{
	const char *count = e->value + w->off;
	char why[200];

	*every = 0;
	/* The loop stops before it could overflow. */
	for (size_t i = 0; i < w->len && *every <= UINT32_MAX; i++) {
		if (!isdigit((unsigned char)count[i])) {
			*every = 0;
			break;
		}
		*every = *every * 10 + (uint64_t)(count[i] - '0');
	}
	if (*every != 0 && *every <= UINT32_MAX)
		return 0;
	snprintf(why, sizeof(why),
		 "invalid count \"%.*s\" (expected a whole number from 1 to "
		 "%u)",
		 (int)(w->len < 40 ? w->len : 40), count, UINT32_MAX);
	return wm_conf_bad_value_at(l, e, w->off, why);
}

/* A punctuation's D, words[from..n) of e's value: a duration above 0 and
 * at most a year. */
static int
parse_mark_period(struct loader *l, const struct wm_ini_entry *e,
		  const struct word *words, size_t from, size_t n,
		  int64_t *every_ms)
{
	char text[256], why[WM_UNITS_WHY_MAX + 64];
	int r;

	if ((r = words_text(l, e, words, from, n, text, sizeof(text))) < 0)
		return r;
	if (wm_units_duration_ms(text, every_ms, why, sizeof(why)) != 0)
		return wm_conf_bad_value_at(l, e, words[from].off, why);
	if (*every_ms <= 0 || *every_ms > WM_SOURCE_GEN_MAX_PUNCTUATE_MS)
		return wm_conf_bad_value_at(
			l, e, words[from].off,
			*every_ms <= 0
				? "a punctuation's period must be positive"
				: "a punctuation's period is at most a year");
	return 0;
}

/* Whether word w of e's value is "records" or "record". */
static bool
word_is_records(const struct wm_ini_entry *e, const struct word *w)
{
	const char *t = e->value + w->off;

	return (w->len == 7 && strncmp(t, "records", 7) == 0) ||
	       (w->len == 6 && strncmp(t, "record", 6) == 0);
}

/*
 * A punctuation (operators/source_gen.h):
 *
 *	PARTITIONS every COUNT records
 *	PARTITIONS every D
 *
 * every COUNT-th record of each of PARTITIONS, or one record per D of
 * event time, carries a watermark for watermark = punctuated. A
 * partition is under one punctuation at most: one that another covered
 * already is refused.
 */
static int
parse_punctuation(struct loader *l, const struct wm_ini_entry *e,
		  const struct shape_key *sk, const struct wm_source_conf *src,
		  struct wm_source_gen_punctuation *pu)
{
	struct word words[SHAPE_MAX_WORDS];
	struct wm_source_gen_burst range = {0};
	uint64_t bound[2], every = 0;
	int64_t every_ms = 0;
	size_t n;
	int r;

	if ((r = split_words(l, e, sk, words, &n, bound)) != 0)
		return r;
	if (n < 3 || words[1].len != 5 ||
	    strncmp(e->value + words[1].off, "every", 5) != 0)
		return shape_usage(l, e, sk);
	r = n == 4 && word_is_records(e, &words[3])
		    ? parse_mark_count(l, e, &words[2], &every)
		    : parse_mark_period(l, e, words, 2, n, &every_ms);
	if (r != 0)
		return r;
	if ((r = check_partitions(l, e, &words[0], bound, src->partitions,
				  &range)) != 0)
		return r;
	for (uint32_t i = 0; i < src->n_punctuations; i++)
		if ((r = refuse_overlap(l, e, words[0].off, &range,
					src->punctuations[i].first_partition,
					src->punctuations[i].last_partition,
					"punctuate",
					"a partition marks its records by one "
					"rule")) != 0)
			return r;
	*pu = (struct wm_source_gen_punctuation){
		.first_partition = range.first_partition,
		.last_partition = range.last_partition,
		.every_records = every,
		.every_ms = every_ms,
	};
	return 0;
}

/*
 * A heartbeat (operators/heartbeats.h):
 *
 *	PARTITIONS every D
 *
 * each of PARTITIONS sends a heartbeat every D of processing time (a
 * duration above 0 and at most a year, of one or more words), silent or
 * not. A partition is under one heartbeat at most.
 */
static int
parse_heartbeat(struct loader *l, const struct wm_ini_entry *e,
		const struct shape_key *sk, const struct wm_source_conf *src,
		struct wm_heartbeat *hb)
{
	struct word words[SHAPE_MAX_WORDS];
	struct wm_source_gen_burst range = {0};
	char text[256], why[WM_UNITS_WHY_MAX + 64];
	uint64_t bound[2];
	int64_t every;
	size_t n;
	int r;

	if ((r = split_words(l, e, sk, words, &n, bound)) != 0)
		return r;
	if (n < 3 || words[1].len != 5 ||
	    strncmp(e->value + words[1].off, "every", 5) != 0)
		return shape_usage(l, e, sk);
	if ((r = words_text(l, e, words, 2, n, text, sizeof(text))) < 0)
		return r;
	if (wm_units_duration_ms(text, &every, why, sizeof(why)) != 0)
		return wm_conf_bad_value_at(l, e, words[2].off, why);
	if (every <= 0 || every > WM_HEARTBEAT_MAX_EVERY_MS)
		return wm_conf_bad_value_at(
			l, e, words[2].off,
			every <= 0 ? "a heartbeat's period must be positive"
				   : "a heartbeat's period is at most a year");
	if ((r = check_partitions(l, e, &words[0], bound, src->partitions,
				  &range)) != 0)
		return r;
	for (uint32_t i = 0; i < src->n_heartbeats; i++)
		if ((r = refuse_overlap(l, e, words[0].off, &range,
					src->heartbeats[i].first_partition,
					src->heartbeats[i].last_partition,
					"heartbeat",
					"a partition sends them at one "
					"period")) != 0)
			return r;
	*hb = (struct wm_heartbeat){
		.first_partition = range.first_partition,
		.last_partition = range.last_partition,
		.every_ms = every,
	};
	return 0;
}

static int
add_heartbeat(struct wm_source_conf *src, const struct wm_heartbeat *hb)
{
	void *grown = realloc(src->heartbeats, (src->n_heartbeats +
						1) * sizeof(*src->heartbeats));

	if (grown == NULL)
		return -ENOMEM;
	src->heartbeats = grown;
	src->heartbeats[src->n_heartbeats++] = *hb;
	return 0;
}

static int
add_punctuation(struct wm_source_conf *src,
		const struct wm_source_gen_punctuation *pu)
{
	void *grown =
		realloc(src->punctuations,
			(src->n_punctuations + 1) * sizeof(*src->punctuations));

	if (grown == NULL)
		return -ENOMEM;
	src->punctuations = grown;
	src->punctuations[src->n_punctuations++] = *pu;
	return 0;
}

static int
add_random_silence(struct wm_source_conf *src,
		   const struct wm_source_gen_random_silence *rs)
{
	void *grown = realloc(src->random_silences,
			      (src->n_random_silences + 1) *
				      sizeof(*src->random_silences));

	if (grown == NULL)
		return -ENOMEM;
	src->random_silences = grown;
	src->random_silences[src->n_random_silences++] = *rs;
	return 0;
}

/* A silence or an outage: the partitions and windows of a shape. */
static int
add_window(struct wm_source_gen_silence **windows, uint32_t *n,
	   const struct wm_source_gen_burst *sh)
{
	void *grown = realloc(*windows, (*n + 1) * sizeof(**windows));

	if (grown == NULL)
		return -ENOMEM;
	*windows = grown;
	(*windows)[(*n)++] = (struct wm_source_gen_silence){
		.first_partition = sh->first_partition,
		.last_partition = sh->last_partition,
		.from_ms = sh->from_ms,
		.to_ms = sh->to_ms,
		.period_ms = sh->period_ms,
		.length_ms = sh->length_ms,
	};
	return 0;
}

/* Apply one parsed shape of the given kind to the source (a shape is
 * parsed as a burst: partitions, windows and a factor). */
static int
add_shape(struct wm_source_conf *src, enum shape_kind kind,
	  const struct wm_source_gen_burst *sh)
{
	void *grown;

	switch (kind) {
	case SHAPE_SKEW: /* later entries override earlier ones */
		if (src->skew == NULL) {
			src->skew = malloc(src->partitions * sizeof(double));
			if (src->skew == NULL)
				return -ENOMEM;
			src->n_skew = src->partitions;
			for (uint32_t p = 0; p < src->partitions; p++)
				src->skew[p] = 1.0;
		}
		for (uint32_t p = sh->first_partition; p <= sh->last_partition;
		     p++)
			src->skew[p] = sh->factor;
		return 0;
	case SHAPE_SILENCE:
		return add_window(&src->silences, &src->n_silences, sh);
	case SHAPE_OUTAGE:
		return add_window(&src->outages, &src->n_outages, sh);
	case SHAPE_RANDOM_SILENCE: /* not parsed as a shape */
	case SHAPE_PUNCTUATE:
	case SHAPE_HEARTBEAT:
		return -EINVAL;
	case SHAPE_BURST:
		grown = realloc(src->bursts,
				(src->n_bursts + 1) * sizeof(*src->bursts));
		if (grown == NULL)
			return -ENOMEM;
		src->bursts = grown;
		src->bursts[src->n_bursts++] = *sh;
		return 0;
	}
	return -EINVAL;
}

/*
 * Whether every partition's rate stays finite and positive under all the
 * bursts at once, as the generator requires (source_gen.h). Bursts are
 * counted whatever partitions and times they cover: an upper bound, and
 * only factors near 1e300 can reach it.
 */
static bool
burst_rates_finite(const struct wm_source_conf *src)
{
	double base = isinf(src->rate) ? 1.0 : src->rate;
	double highest = base, lowest = base;

	for (uint32_t p = 0; p < src->n_skew; p++) {
		if (src->skew[p] * base > highest)
			highest = src->skew[p] * base;
		if (src->skew[p] * base < lowest)
			lowest = src->skew[p] * base;
	}
	for (uint32_t i = 0; i < src->n_bursts; i++) {
		if (src->bursts[i].factor > 1)
			highest *= src->bursts[i].factor;
		else
			lowest *= src->bursts[i].factor;
	}
	return isfinite(highest) && lowest > 0;
}

/* Every skew, silence, burst and outage of source section `sec`, in the
 * order of their kinds, each kind's entries in file order. */
int
wm_conf_load_shapes(struct loader *l, struct wm_ini_section *sec,
		    struct wm_source_conf *src)
{
	struct wm_ini_entry *e;
	int r;

	for (size_t k = 0; k < N_ELEMS(shape_keys); k++)
		for (e = wm_conf_lookup(l, sec, shape_keys[k].key); e != NULL;
		     e = wm_ini_get_next((struct wm_ini_section *)e->section,
					 e)) {
			struct wm_source_gen_burst sh = {0};
			struct wm_source_gen_random_silence rs = {0};
			struct wm_source_gen_punctuation pu = {0};
			struct wm_heartbeat hb = {0};

			if (shape_keys[k].kind == SHAPE_HEARTBEAT) {
				if ((r = parse_heartbeat(l, e, &shape_keys[k],
							 src, &hb)) != 0 ||
				    (r = add_heartbeat(src, &hb)) != 0)
					return r;
				continue;
			}
			if (shape_keys[k].kind == SHAPE_PUNCTUATE) {
				if ((r = parse_punctuation(l, e, &shape_keys[k],
							   src, &pu)) != 0 ||
				    (r = add_punctuation(src, &pu)) != 0)
					return r;
				continue;
			}
			if (shape_keys[k].kind == SHAPE_RANDOM_SILENCE) {
				if ((r = parse_random_silence(
					     l, e, &shape_keys[k],
					     src->partitions, &rs)) != 0 ||
				    (r = add_random_silence(src, &rs)) != 0)
					return r;
				continue;
			}
			if ((r = parse_shape(l, e, &shape_keys[k],
					     src->partitions, &sh)) != 0 ||
			    (r = add_shape(src, shape_keys[k].kind, &sh)) != 0)
				return r;
		}
	if (!burst_rates_finite(src)) {
		struct wm_ini_entry *last = NULL;

		for (e = wm_conf_lookup(l, sec, "burst"); e != NULL;
		     e = wm_ini_get_next((struct wm_ini_section *)e->section,
					 e))
			last = e;
		if (last != NULL) /* else skews alone, which parse_shape
				   * bounds */
			return wm_conf_bad_value(
				l, last,
				"with the other bursts and skews, "
				"this takes a partition's rate past "
				"what a double holds, or to 0");
	}
	return 0;
}

/* Whether `key` names a shape (those are the keys that may repeat). */
bool
wm_conf_is_shape_key(const char *key)
{
	for (size_t k = 0; k < N_ELEMS(shape_keys); k++)
		if (strcmp(key, shape_keys[k].key) == 0)
			return true;
	return false;
}
