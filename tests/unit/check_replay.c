/*
 * check_replay.c
 *	The replayed trace as a record source: pausing one partition for
 *	watermark alignment holds its records back while the others go on,
 *	and resuming releases its backlog first, each partition in file
 *	order, as the generator's pausing does (source_gen.h), a run at a
 *	time as a record at a time; and the reading of the trace where the
 *	reader's blocks end.
 */
#include "config.h"

#include <check.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "runtime/io/keys.h"
#include "runtime/source/replay.h"
#include "tests/unit/check_main.h"
#include "tests/unit/hot_assert.h"

#define MS 1000000

/* Partition p's records arrive at p, 10 + p, 20 + p, 30 + p ms; each
 * record's value is its line among the records (1, 2, ...): line order is
 * arrival order. */
static const char trace_text[] = "partition,timestamp,key,value,arrival\n"
				 "0,1000,1,1,0\n"
				 "1,1000,1,2,1\n"
				 "2,1000,1,3,2\n"
				 "0,2000,1,4,10\n"
				 "1,2000,1,5,11\n"
				 "2,2000,1,6,12\n"
				 "0,3000,1,7,20\n"
				 "1,3000,1,8,21\n"
				 "2,3000,1,9,22\n"
				 "0,4000,1,10,30\n"
				 "1,4000,1,11,31\n"
				 "2,4000,1,12,32\n";

struct fixture {
	char path[64];
	struct wm_replay_trace *trace;
	struct wm_record_source *src;
};

/* The fixture over a trace of `text` (3 partitions, arrival column). */
static void
open_trace_text(struct fixture *fx, const char *text)
{
	static const uint32_t parts[] = {0, 1, 2};
	char err[256];
	FILE *f;
	int fd;

	snprintf(fx->path, sizeof(fx->path), "/tmp/check_replay.XXXXXX");
	fd = mkstemp(fx->path);
	ck_assert_int_ge(fd, 0);
	f = fdopen(fd, "w");
	ck_assert_ptr_nonnull(f);
	ck_assert_int_eq(fputs(text, f) >= 0, 1);
	ck_assert_int_eq(fclose(f), 0);
	fx->trace =
		wm_replay_read(fx->path, 3, WM_REPLAY_ARRIVAL, WM_KEY_TYPE_LONG,
			       NULL, false, err, sizeof(err));
	ck_assert_msg(fx->trace != NULL, "%s", err);
	fx->src = wm_replay_source(fx->trace, parts, 3);
	ck_assert_ptr_nonnull(fx->src);
	ck_assert_ptr_nonnull(fx->src->ops->pause);
}

static void
open_trace(struct fixture *fx)
{
	open_trace_text(fx, trace_text);
}

static void
close_trace(struct fixture *fx)
{
	wm_record_source_free(fx->src);
	wm_replay_free(fx->trace);
	unlink(fx->path);
}

static void
pause_part(struct fixture *fx, uint32_t i, bool paused, int64_t now_ns)
{
	fx->src->ops->pause(fx->src, i, paused, now_ns);
}

/* The values of every record due at now_ns, in release order, into out
 * (a string "1 4 7"); the count. */
static int
drain(struct fixture *fx, int64_t now_ns, char *out, size_t len)
{
	struct wm_record r;
	size_t used = 0;
	int n = 0;

	out[0] = '\0';
	while (wm_record_source_next(fx->src, now_ns, &r) == 1) {
		used += (size_t)snprintf(out + used, len - used, "%s%lld",
					 n > 0 ? " " : "", (long long)r.value);
		ck_assert_uint_lt(used, len);
		n++;
	}
	/* next()'s contract: after 0, nothing is due before later. */
	ck_assert_int_gt(wm_record_source_next_due_ns(fx->src), now_ns);
	return n;
}

START_TEST(test_paused_partition_waits_while_the_others_go_on)
{
	struct fixture fx;
	char got[128];

	open_trace(&fx);
	pause_part(&fx, 1, true, 0);
	drain(&fx, 40 * MS, got, sizeof(got));
	ck_assert_str_eq(got, "1 3 4 6 7 9 10 12");
	/* Its records wait for a resume, not for time: nothing is due,
	 * and the source has not ended. */
	ck_assert_int_eq(wm_record_source_next_due_ns(fx.src), INT64_MAX);
	ck_assert(!wm_record_source_finished(fx.src));
	drain(&fx, 1000 * MS, got, sizeof(got));
	ck_assert_str_eq(got, "");
	pause_part(&fx, 1, false, 1000 * MS);
	ck_assert_int_le(wm_record_source_next_due_ns(fx.src), 1000 * MS);
	drain(&fx, 1000 * MS, got, sizeof(got));
	ck_assert_str_eq(got, "2 5 8 11");
	ck_assert(wm_record_source_finished(fx.src));
	close_trace(&fx);
}
END_TEST

START_TEST(test_backlog_comes_out_before_later_records)
{
	struct fixture fx;
	char got[128];

	open_trace(&fx);
	pause_part(&fx, 1, true, 0);
	drain(&fx, 15 * MS, got, sizeof(got));
	ck_assert_str_eq(got, "1 3 4 6");
	pause_part(&fx, 1, false, 15 * MS);
	drain(&fx, 15 * MS, got, sizeof(got));
	ck_assert_str_eq(got, "2 5");
	/* Resumed, it is released as if it had never been paused. */
	drain(&fx, 40 * MS, got, sizeof(got));
	ck_assert_str_eq(got, "7 8 9 10 11 12");
	ck_assert(wm_record_source_finished(fx.src));
	close_trace(&fx);
}
END_TEST

START_TEST(test_backlogs_merge_in_release_order)
{
	struct fixture fx;
	char got[128];

	open_trace(&fx);
	pause_part(&fx, 2, true, 0);
	pause_part(&fx, 1, true, 0);
	drain(&fx, 25 * MS, got, sizeof(got));
	ck_assert_str_eq(got, "1 4 7");
	/* Resumed in either order, the oldest held record comes first. */
	pause_part(&fx, 2, false, 25 * MS);
	pause_part(&fx, 1, false, 25 * MS);
	drain(&fx, 25 * MS, got, sizeof(got));
	ck_assert_str_eq(got, "2 3 5 6 8 9");
	drain(&fx, 40 * MS, got, sizeof(got));
	ck_assert_str_eq(got, "10 11 12");
	close_trace(&fx);
}
END_TEST

START_TEST(test_paused_again_keeps_the_rest_of_its_backlog)
{
	struct fixture fx;
	struct wm_record r;
	char got[128];

	open_trace(&fx);
	pause_part(&fx, 0, true, 0);
	drain(&fx, 40 * MS, got, sizeof(got));
	ck_assert_str_eq(got, "2 3 5 6 8 9 11 12");
	pause_part(&fx, 0, false, 40 * MS);
	ck_assert_int_eq(wm_record_source_next(fx.src, 40 * MS, &r), 1);
	ck_assert_int_eq(r.value, 1);
	pause_part(&fx, 0, true, 40 * MS);
	drain(&fx, 50 * MS, got, sizeof(got));
	ck_assert_str_eq(got, "");
	ck_assert(!wm_record_source_finished(fx.src));
	/* Resumed twice in a row: its backlog comes out once. */
	pause_part(&fx, 0, false, 50 * MS);
	pause_part(&fx, 0, true, 50 * MS);
	pause_part(&fx, 0, false, 50 * MS);
	drain(&fx, 50 * MS, got, sizeof(got));
	ck_assert_str_eq(got, "4 7 10");
	ck_assert(wm_record_source_finished(fx.src));
	close_trace(&fx);
}
END_TEST

START_TEST(test_pause_without_backlog_changes_nothing)
{
	struct fixture fx;
	char got[128];

	open_trace(&fx);
	drain(&fx, 5 * MS, got, sizeof(got));
	ck_assert_str_eq(got, "1 2 3");
	/* Paused and resumed before any of its records fell due. */
	pause_part(&fx, 2, true, 5 * MS);
	pause_part(&fx, 2, false, 8 * MS);
	ck_assert_int_eq(wm_record_source_next_due_ns(fx.src), 10 * MS);
	drain(&fx, 40 * MS, got, sizeof(got));
	ck_assert_str_eq(got, "4 5 6 7 8 9 10 11 12");
	ck_assert(wm_record_source_finished(fx.src));
	close_trace(&fx);
}
END_TEST

/* Arrivals that fall in file order are released in arrival order, ties
 * in file order, a partition's records never before an earlier one of
 * its own (record 4 waits for record 1): the release order is sorted
 * where the file's is not (where it is, no sort runs). */
START_TEST(test_falling_arrivals_are_released_in_arrival_order)
{
	static const char text[] = "partition,timestamp,key,value,arrival\n"
				   "0,1000,1,1,30\n"
				   "1,1000,1,2,10\n"
				   "2,1000,1,3,20\n"
				   "0,2000,1,4,10\n"
				   "1,2000,1,5,40\n";
	struct fixture fx;
	char got[128];

	open_trace_text(&fx, text);
	ck_assert_int_eq(wm_record_source_next_due_ns(fx.src), 10 * MS);
	drain(&fx, 25 * MS, got, sizeof(got));
	ck_assert_str_eq(got, "2 3");
	drain(&fx, 100 * MS, got, sizeof(got));
	ck_assert_str_eq(got, "1 4 5");
	close_trace(&fx);
}
END_TEST

/* ------------------------------------------------------------------ */
/* tcase reading: lines where the reader's blocks end */

/* A trace of `n` records in partition 0 after a comment line of `shift`
 * bytes, record i at timestamp i, key i % 7, value i + 1, ended by "\n",
 * "\r\n" or "\r" in turn: every place a line can be cut at the end of
 * a block is hit by one of the shifts. Read fast, every record must come
 * back in file order. */
static void
expect_records_across_blocks(int shift, int n)
{
	static const char *const ends[] = {"\n", "\r\n", "\r"};
	static const uint32_t part0 = 0;
	char path[64] = "/tmp/check_replay.XXXXXX", err[256];
	struct wm_replay_trace *tr;
	struct wm_record_source *src;
	struct wm_record r;
	int fd = mkstemp(path), i = 0;
	FILE *f = fd >= 0 ? fdopen(fd, "w") : NULL;

	ck_assert_ptr_nonnull(f);
	fprintf(f, "#%*s\n", shift, "");
	for (int k = 0; k < n; k++)
		fprintf(f, "0,%d,%d,%d%s", k, k % 7, k + 1, ends[k % 3]);
	ck_assert_int_eq(fclose(f), 0);
	tr = wm_replay_read(path, 1, WM_REPLAY_FAST, WM_KEY_TYPE_LONG, NULL,
			    false, err, sizeof(err));
	unlink(path);
	ck_assert_msg(tr != NULL, "shift %d: %s", shift, err);
	src = wm_replay_source(tr, &part0, 1);
	ck_assert_ptr_nonnull(src);
	while (wm_record_source_next(src, 0, &r) == 1) {
		WM_HOT_ASSERT(r.ts == i && r.key == i % 7 && r.value == i + 1,
			      "shift %d: record %d is %lld,%lld,%lld", shift, i,
			      (long long)r.ts, (long long)r.key,
			      (long long)r.value);
		i++;
	}
	ck_assert_int_eq(i, n);
	wm_record_source_free(src);
	wm_replay_free(tr);
}

START_TEST(test_lines_cut_by_a_block_end_are_read_whole)
{
	/* 30000 lines of 10 to 16 bytes: past three blocks. */
	for (int shift = 0; shift < 18; shift++)
		expect_records_across_blocks(shift, 30000);
}
END_TEST

/* The trace "0,<zeros>1,<key>,1" + `end`, after `before` bytes of
 * comments: a line of `len` bytes before its end (leading zeros pad the
 * timestamp), which must be read as timestamp 1, or refused as longer
 * than 65536 bytes, wherever the blocks cut it; a record follows it. */
static struct wm_replay_trace *
read_long_line(size_t before, size_t len, const char *end, bool skip_bad,
	       char *err, size_t errlen)
{
	char path[64] = "/tmp/check_replay.XXXXXX";
	int fd = mkstemp(path);
	FILE *f = fd >= 0 ? fdopen(fd, "w") : NULL;
	struct wm_replay_trace *tr;

	ck_assert_ptr_nonnull(f);
	while (before > 0) {
		size_t c = before > 1000 ? 1000 : before;

		/* A comment of c bytes, its '\n' included. */
		fprintf(f, "#%*s\n", (int)c - 2, "");
		before -= c;
	}
	fputs("0,", f);
	for (size_t i = 0; i < len - 7; i++)
		fputc('0', f);
	fprintf(f, "1,7,1%s0,2,8,2\n", end);
	ck_assert_int_eq(fclose(f), 0);
	tr = wm_replay_read(path, 1, WM_REPLAY_FAST, WM_KEY_TYPE_LONG, NULL,
			    skip_bad, err, errlen);
	unlink(path);
	return tr;
}

START_TEST(test_longest_line_is_read_wherever_a_block_ends)
{
	char err[256];

	/* The first read fills 128 KiB and a line more (196610 bytes):
	 * the line ends there, or its end is cut in two there. */
	for (size_t before = 196610 - 65536 - 3; before <= 196610 - 65536 + 1;
	     before += 2) {
		for (int e = 0; e < 3; e++) {
			static const char *const ends[] = {"\n", "\r\n", "\r"};
			struct wm_replay_trace *tr =
				read_long_line(before, 65536, ends[e], false,
					       err, sizeof(err));

			ck_assert_msg(tr != NULL, "at %zu: %s", before, err);
			ck_assert_uint_eq(wm_replay_skipped(tr), 0);
			wm_replay_free(tr);
			tr = read_long_line(before, 65537, ends[e], false, err,
					    sizeof(err));
			ck_assert_ptr_null(tr);
			/* 132 comment lines before it. */
			ck_assert_msg(strstr(err, ":133: invalid line: longer "
						  "than 65536 bytes") != NULL,
				      "%s", err);
			/* Skipped, the record after it is read. */
			tr = read_long_line(before, 65537, ends[e], true, err,
					    sizeof(err));
			ck_assert_msg(tr != NULL, "at %zu: %s", before, err);
			ck_assert_uint_eq(wm_replay_skipped(tr), 1);
			wm_replay_free(tr);
		}
	}
}
END_TEST

/* One line of a trace and what reading it gives: the record's timestamp,
 * key (its string for string keys) and value, or the message after
 * "path:1". */
struct field_case {
	const char *line;
	enum wm_key_type type;
	int64_t ts, value;
	const char *key; /* a long's digits, or the string */
	const char *err; /* NULL: read */
};

/* Lines read in one pass (plain integers, a bare key) beside lines
 * that are not, to the last byte of what they mean: the limits of 18 and
 * 19 digits, signs, quotes, missing and extra fields. */
static const struct field_case field_cases[] = {
	{"0,-0,1,1", WM_KEY_TYPE_LONG, 0, 1, "1", NULL},
	{"0,000000000000000001,5,-000000000000000002", WM_KEY_TYPE_LONG, 1, -2,
	 "5", NULL},
	{"0,999999999999999999,-999999999999999999,1", WM_KEY_TYPE_LONG,
	 999999999999999999, 1, "-999999999999999999", NULL},
	{"0,9223372036854775807,1,-9223372036854775808", WM_KEY_TYPE_LONG,
	 INT64_MAX, INT64_MIN, "1", NULL},
	{"0,1,-9223372036854775808,0000000000000000000000007", WM_KEY_TYPE_LONG,
	 1, 7, "-9223372036854775808", NULL},
	{"0,1,\"7\",3", WM_KEY_TYPE_LONG, 1, 3, "7", NULL},
	{"0,1,2,3,0", WM_KEY_TYPE_LONG, 1, 3, "2", NULL},
	{"0,1,user\"5,1", WM_KEY_TYPE_STRING, 1, 1, "user\"5", NULL},
	{"0,1,\"a,\"\"b\",1", WM_KEY_TYPE_STRING, 1, 1, "a,\"b", NULL},
	{"0,1,,1", WM_KEY_TYPE_STRING, 1, 1, "", NULL},
	{"0,1,123,1", WM_KEY_TYPE_STRING, 1, 1, "123", NULL},
	{"0,1,-,1", WM_KEY_TYPE_LONG, 0, 0, NULL,
	 ":5: invalid key \"-\" (key_type = long: expected a 64-bit "
	 "integer)"},
	{"0,1,99999999999999999999,1", WM_KEY_TYPE_LONG, 0, 0, NULL,
	 ":5: invalid key \"99999999999999999999\" (beyond 64 bits)"},
	{"0,9223372036854775808,1,1", WM_KEY_TYPE_LONG, 0, 0, NULL,
	 ": invalid timestamp \"9223372036854775808\" (beyond 64 bits)"},
	{"0,1,2", WM_KEY_TYPE_LONG, 0, 0, NULL, ": invalid line: no value"},
	{"0,1,2,3,4,5", WM_KEY_TYPE_LONG, 0, 0, NULL,
	 ": invalid punctuate \"5\" (1: the record carries a watermark at "
	 "its timestamp, 0: it does not)"},
	{"0,1,2,3,4,1,6", WM_KEY_TYPE_LONG, 0, 0, NULL,
	 ": invalid heartbeat \"6\" (1: a heartbeat, 0: a record)"},
	{"0,1,2,3,4,1,0,7,8", WM_KEY_TYPE_LONG, 0, 0, NULL,
	 ": invalid line: extra field \"8\""},
	{"0,1,2,3,4,1,0,-7", WM_KEY_TYPE_LONG, 1, 3, "2", NULL},
	{"0,1,2,3,4,1,0,", WM_KEY_TYPE_LONG, 1, 3, "2", NULL},
	{"0,1,2,3,4,1,0,7x", WM_KEY_TYPE_LONG, 0, 0, NULL,
	 ": invalid watermark \"7x\""},
	{"0,1,2,3,4,1,0, ", WM_KEY_TYPE_LONG, 0, 0, NULL,
	 ": invalid watermark \" \""},
	{"{\"partition\":0,\"timestamp\":1,\"key\":2,\"value\":3,"
	 "\"watermark\":null}",
	 WM_KEY_TYPE_LONG, 1, 3, "2", NULL},
	{"{\"partition\":0,\"timestamp\":1,\"key\":2,\"value\":3,"
	 "\"watermark\":nul}",
	 WM_KEY_TYPE_LONG, 0, 0, NULL,
	 ": invalid JSON: invalid token near 'nul' at column 62"},
	{"{\"partition\":0,\"timestamp\":1,\"key\":2,\"value\":3,"
	 "\"watermark\":null,\"watermark\":4}",
	 WM_KEY_TYPE_LONG, 0, 0, NULL,
	 ": invalid JSON: duplicate object key near '\"watermark\"' at column "
	 "75"},
	{"0,1,2,3,4,1", WM_KEY_TYPE_LONG, 1, 3, "2", NULL},
	{"{\"punctuate\":0,\"partition\":0,\"timestamp\":1,\"key\":2,"
	 "\"value\":3}",
	 WM_KEY_TYPE_LONG, 1, 3, "2", NULL},
	{"{\"punctuate\":-1,\"partition\":0,\"timestamp\":1,\"key\":2,"
	 "\"value\":3}",
	 WM_KEY_TYPE_LONG, 0, 0, NULL,
	 ": invalid punctuate \"-1\" (1: the record carries a watermark at "
	 "its timestamp, 0: it does not)"},
	{"0,1,2,3,", WM_KEY_TYPE_LONG, 0, 0, NULL, ": invalid arrival \"\""},
	{"0,1,2,3,-", WM_KEY_TYPE_LONG, 0, 0, NULL, ": invalid arrival \"-\""},
	{"0,1 ,2,3", WM_KEY_TYPE_LONG, 0, 0, NULL,
	 ": invalid timestamp \"1 \""},
	{"0,+1,2,3", WM_KEY_TYPE_LONG, 0, 0, NULL,
	 ": invalid timestamp \"+1\""},
	{",1,2,3", WM_KEY_TYPE_LONG, 0, 0, NULL, ": invalid partition \"\""},
	{"0,1,2,\"3\"", WM_KEY_TYPE_LONG, 0, 0, NULL,
	 ": invalid value \"\"3\"\""},
	{"0,1,\"2\"x,3", WM_KEY_TYPE_LONG, 0, 0, NULL,
	 ": invalid key \"\"2\"x,3\" (text after the closing quote)"},
	{"0,1,\x01,1", WM_KEY_TYPE_STRING, 0, 0, NULL,
	 ":5: invalid key \"\\x01\" (control character U+0001)"},
	{"1,1,2,3", WM_KEY_TYPE_LONG, 0, 0, NULL,
	 ": invalid partition \"1\" (the source has 1 partitions)"},
};

/* Each case as the trace's first line, and after a record: a line after
 * the first that could be the header is read by the plain lines' loop
 * (take_plain_lines()) when keys are longs, and must be read, or
 * refused, as the first is. */
START_TEST(test_fields_read_in_one_pass_are_read_as_in_full)
{
	const struct field_case *c = &field_cases[_i / 2];
	int after = _i % 2;
	static const uint32_t part0 = 0;
	char path[64] = "/tmp/check_replay.XXXXXX", err[256], want[128];
	int fd = mkstemp(path);
	FILE *f = fd >= 0 ? fdopen(fd, "w") : NULL;
	struct wm_replay_trace *tr;
	struct wm_record_source *src;
	struct wm_record r;

	ck_assert_ptr_nonnull(f);
	if (after)
		fputs("0,0,0,0\n", f);
	fprintf(f, "%s\n", c->line);
	ck_assert_int_eq(fclose(f), 0);
	tr = wm_replay_read(path, 1, WM_REPLAY_FAST, c->type, NULL, false, err,
			    sizeof(err));
	unlink(path);
	if (c->err != NULL) {
		snprintf(want, sizeof(want), "%s:%d%s", path, 1 + after,
			 c->err);
		ck_assert_ptr_null(tr);
		ck_assert_str_eq(err, want);
		return;
	}
	ck_assert_msg(tr != NULL, "%s: %s", c->line, err);
	src = wm_replay_source(tr, &part0, 1);
	ck_assert_ptr_nonnull(src);
	if (after)
		ck_assert_int_eq(wm_record_source_next(src, 0, &r), 1);
	ck_assert_int_eq(wm_record_source_next(src, 0, &r), 1);
	ck_assert_int_eq(r.ts, c->ts);
	ck_assert_int_eq(r.value, c->value);
	if (c->type == WM_KEY_TYPE_STRING) {
		size_t len;
		const char *key =
			wm_keys_string(wm_replay_keys(tr), r.key, &len);

		ck_assert_ptr_nonnull(key);
		ck_assert_uint_eq(len, strlen(c->key));
		ck_assert(memcmp(key, c->key, len) == 0);
	} else {
		ck_assert_int_eq(r.key, strtoll(c->key, NULL, 10));
	}
	wm_record_source_free(src);
	wm_replay_free(tr);
}
END_TEST

/* The trace of `text`, one partition of long keys read fast. */
static struct wm_replay_trace *
read_one_partition(const char *text)
{
	char path[64] = "/tmp/check_replay.XXXXXX", err[256];
	int fd = mkstemp(path);
	FILE *f = fd >= 0 ? fdopen(fd, "w") : NULL;
	struct wm_replay_trace *tr;

	ck_assert_ptr_nonnull(f);
	fputs(text, f);
	ck_assert_int_eq(fclose(f), 0);
	tr = wm_replay_read(path, 1, WM_REPLAY_FAST, WM_KEY_TYPE_LONG, NULL,
			    false, err, sizeof(err));
	unlink(path);
	ck_assert_msg(tr != NULL, "%s", err);
	return tr;
}

/*
 * The watermark column: a record with one carries it (WM_RECORD_
 * WATERMARK, and its source says which until the next call), one with an
 * empty column, a JSON null or none does not; a run ends with a record
 * that carries one, a record at a time and from a backlog alike.
 */
START_TEST(test_watermark_column_carries_watermarks)
{
	static const uint32_t part0 = 0;
	static const char text[] =
		"partition,timestamp,key,value,arrival,punctuate,heartbeat,"
		"watermark\n"
		"0,100,1,1,0,0,0,\n"
		"0,200,1,2,0,0,0,150\n"
		"0,300,1,3,0,1,0,-9223372036854775808\n"
		"{\"partition\":0,\"timestamp\":400,\"key\":1,\"value\":4,"
		"\"watermark\":null}\n"
		"{\"partition\":0,\"timestamp\":500,\"key\":1,\"value\":5,"
		"\"watermark\":9223372036854775807}\n"
		"0,600,1,6,0\n"
		"0,700,1,7,0,0,1,650\n"
		"0,800,1,8,0,0,0,\n";
	static const int64_t carried[] = {0,	     150, INT64_MIN, 0,
					  INT64_MAX, 0,	  650,	     0};
	static const uint32_t runs[] = {2, 1, 2, 2, 1};
	struct wm_replay_trace *tr = read_one_partition(text);
	struct wm_record_source *src;
	struct wm_record r, run[8];
	uint32_t i = 0, k = 0, n;

	ck_assert_uint_eq(wm_replay_carriers(tr), 4);
	src = wm_replay_source(tr, &part0, 1);
	ck_assert_ptr_nonnull(src);
	while (wm_record_source_next(src, 0, &r) == 1) {
		ck_assert_uint_lt(i, 8);
		ck_assert_int_eq(r.value, i + 1);
		ck_assert_uint_eq((r.flags & WM_RECORD_WATERMARK) != 0,
				  i == 1 || i == 2 || i == 4 || i == 6);
		if (r.flags & WM_RECORD_WATERMARK)
			ck_assert_int_eq(
				wm_record_source_carried_watermark(src),
				carried[i]);
		i++;
	}
	ck_assert_uint_eq(i, 8);
	wm_record_source_free(src);

	/* In runs: each ends with the record that carries a watermark. */
	src = wm_replay_source(tr, &part0, 1);
	ck_assert_ptr_nonnull(src);
	i = 0;
	while ((n = wm_record_source_next_run(src, 0, run, NULL, 8)) > 0) {
		ck_assert_uint_lt(k, 5);
		ck_assert_uint_eq(n, runs[k]);
		ck_assert_int_eq(run[n - 1].value, i + n);
		if (run[n - 1].flags & WM_RECORD_WATERMARK)
			ck_assert_int_eq(
				wm_record_source_carried_watermark(src),
				carried[i + n - 1]);
		i += n;
		k++;
	}
	ck_assert_uint_eq(i, 8);

	/* A backlog, released after a pause, ends its runs there too. */
	wm_record_source_free(src);
	src = wm_replay_source(tr, &part0, 1);
	ck_assert_ptr_nonnull(src);
	src->ops->pause(src, 0, true, 0);
	ck_assert_uint_eq(wm_record_source_next_run(src, 0, run, NULL, 8), 0);
	src->ops->pause(src, 0, false, 0);
	ck_assert_uint_eq(wm_record_source_next_run(src, 0, run, NULL, 8), 2);
	ck_assert_int_eq(wm_record_source_carried_watermark(src), 150);
	ck_assert_uint_eq(wm_record_source_next_run(src, 0, run, NULL, 8), 1);
	ck_assert_int_eq(wm_record_source_carried_watermark(src), INT64_MIN);
	wm_record_source_free(src);
	wm_replay_free(tr);
}
END_TEST

/*
 * The punctuate column marks its records, in CSV after an arrival and in
 * JSON with or without one, and nothing else: a record of punctuate = 1
 * carries WM_RECORD_PUNCTUATE, one of 0 or without the column none.
 */
START_TEST(test_punctuate_marks_records)
{
	static const uint32_t part0 = 0;
	static const char text[] =
		"partition,timestamp,key,value,arrival,punctuate\n"
		"0,100,1,1,0,1\n"
		"0,200,1,2,0,0\n"
		"0,300,1,3,0\n"
		"{\"partition\":0,\"timestamp\":400,\"key\":1,\"value\":4,"
		"\"punctuate\":1}\n"
		"{\"partition\":0,\"timestamp\":500,\"key\":1,\"value\":5}\n"
		"0,600,1,6,0,1\n";
	static const bool marked[] = {true, false, false, true, false, true};
	struct wm_replay_trace *tr = read_one_partition(text);
	struct wm_record_source *src;
	struct wm_record r;
	int i = 0;

	src = wm_replay_source(tr, &part0, 1);
	ck_assert_ptr_nonnull(src);
	while (wm_record_source_next(src, 0, &r) == 1) {
		ck_assert_int_lt(i, 6);
		ck_assert_int_eq(r.value, i + 1);
		ck_assert_uint_eq(r.flags, marked[i] ? WM_RECORD_PUNCTUATE : 0);
		i++;
	}
	ck_assert_int_eq(i, 6);
	wm_record_source_free(src);
	wm_replay_free(tr);
}
END_TEST

/*
 * A trace of `n` records in partition 0, long enough for its records'
 * pages to be populated ahead of the reading (600,000 records are 19 MB),
 * its plain lines among lines that are not: a header, comments, blanks,
 * quoted keys, 19-digit timestamps, CRLF ends, an arrival column. Record
 * k is at timestamp 1000 + k, key k % 11 - 5, value k. With `bad_at`
 * >= 0, record bad_at's line names partition 5 instead. Returns the
 * line of that record (1-based).
 */
static long
write_mixed_trace(const char *path, int n, int bad_at)
{
	FILE *f = fopen(path, "w");
	long line = 1, bad_line = 0;

	ck_assert_ptr_nonnull(f);
	fputs("partition,timestamp,key,value\n", f);
	for (int k = 0; k < n; k++) {
		int partition = k == bad_at ? 5 : 0;
		long long ts = 1000 + k;
		int key = k % 11 - 5;

		if (k % 1000 == 1) {
			fputs("# a comment\n\n", f);
			line += 2;
		}
		line++;
		if (k == bad_at)
			bad_line = line;
		if (k % 997 == 3)
			fprintf(f, "%d,%lld,\"%d\",%d\n", partition, ts, key,
				k);
		else if (k % 991 == 4)
			fprintf(f, "%d,%019lld,%d,%d\n", partition, ts, key, k);
		else if (k % 983 == 5)
			fprintf(f, "%d,%lld,%d,%d\r\n", partition, ts, key, k);
		else if (k % 977 == 6)
			fprintf(f, "%d,%lld,%d,%d,%d\n", partition, ts, key, k,
				k);
		else
			fprintf(f, "%d,%lld,%d,%d\n", partition, ts, key, k);
	}
	ck_assert_int_eq(fclose(f), 0);
	return bad_line;
}

START_TEST(test_plain_lines_read_as_the_lines_around_them)
{
	static const uint32_t part0 = 0;
	const int n = 600000;
	char path[64] = "/tmp/check_replay.XXXXXX", err[256];
	int fd = mkstemp(path), k = 0;
	struct wm_replay_trace *tr;
	struct wm_record_source *src;
	struct wm_record r;

	ck_assert_int_ge(fd, 0);
	close(fd);
	write_mixed_trace(path, n, -1);
	tr = wm_replay_read(path, 1, WM_REPLAY_EVENT, WM_KEY_TYPE_LONG, NULL,
			    false, err, sizeof(err));
	unlink(path);
	ck_assert_msg(tr != NULL, "%s", err);
	src = wm_replay_source(tr, &part0, 1);
	ck_assert_ptr_nonnull(src);
	/* Under pacing = event a record is due at its timestamp's distance
	 * from the first's. */
	while (wm_record_source_next_due_ns(src) == (int64_t)k * MS &&
	       wm_record_source_next(src, (int64_t)k * MS, &r) == 1) {
		WM_HOT_ASSERT(r.ts == 1000 + k && r.key == k % 11 - 5 &&
				      r.value == k,
			      "record %d is %lld,%lld,%lld", k, (long long)r.ts,
			      (long long)r.key, (long long)r.value);
		k++;
	}
	ck_assert_int_eq(k, n);
	wm_record_source_free(src);
	wm_replay_free(tr);
}
END_TEST

START_TEST(test_bad_line_far_down_is_named)
{
	char path[64] = "/tmp/check_replay.XXXXXX", err[256], want[128];
	int fd = mkstemp(path);
	long line;
	struct wm_replay_trace *tr;

	ck_assert_int_ge(fd, 0);
	close(fd);
	line = write_mixed_trace(path, 600000, 550000);
	tr = wm_replay_read(path, 1, WM_REPLAY_FAST, WM_KEY_TYPE_LONG, NULL,
			    false, err, sizeof(err));
	unlink(path);
	ck_assert_ptr_null(tr);
	snprintf(want, sizeof(want),
		 "%s:%ld: invalid partition \"5\" (the source has 1 "
		 "partitions)",
		 path, line);
	ck_assert_str_eq(err, want);
}
END_TEST

/*
 * Runs (the next_run op) give what next() gives a call at a time: two
 * sources over one trace, one read a record a call and the other in runs
 * of 1 to 7, with partitions paused and resumed between the instants,
 * give the same records, the same due times before each, and the same
 * verdicts after each instant. The trace has 3 partitions of 60 records,
 * several due at each instant (ties go by file order).
 */
START_TEST(test_runs_give_what_records_one_by_one_give)
{
	static const uint32_t parts[] = {0, 1, 2};
	struct wm_record_source *one, *run;
	struct wm_replay_trace *trace;
	char path[64], err[256];
	uint32_t cap = 1, compared = 0;
	FILE *f;
	int fd;

	snprintf(path, sizeof(path), "/tmp/check_replay.XXXXXX");
	fd = mkstemp(path);
	ck_assert_int_ge(fd, 0);
	f = fdopen(fd, "w");
	ck_assert_ptr_nonnull(f);
	fputs("partition,timestamp,key,value,arrival\n", f);
	for (int k = 0; k < 180; k++)
		fprintf(f, "%d,%d,%d,%d,%d\n", k % 3, 1000 + k, k % 7, k,
			k / 4 * 2);
	ck_assert_int_eq(fclose(f), 0);
	trace = wm_replay_read(path, 3, WM_REPLAY_ARRIVAL, WM_KEY_TYPE_LONG,
			       NULL, false, err, sizeof(err));
	ck_assert_msg(trace != NULL, "%s", err);
	one = wm_replay_source(trace, parts, 3);
	run = wm_replay_source(trace, parts, 3);
	ck_assert(one != NULL && run != NULL);
	/* Every 3 ms: records of two instants fall due at once. */
	for (int64_t ms = 0; ms <= 102; ms += 3) {
		int64_t now = ms * MS;
		uint32_t n;

		/* Partition 1 paused in [9, 39) ms, partition 2 in
		 * [21, 30) and [33, 51). */
		static const struct {
			int64_t ms;
			uint32_t i;
			bool paused;
		} pauses[] = {{9, 1, true},  {21, 2, true},  {30, 2, false},
			      {33, 2, true}, {39, 1, false}, {51, 2, false}};

		for (size_t j = 0; j < sizeof(pauses) / sizeof(pauses[0]); j++)
			if (pauses[j].ms == ms) {
				one->ops->pause(one, pauses[j].i,
						pauses[j].paused, now);
				run->ops->pause(run, pauses[j].i,
						pauses[j].paused, now);
			}
		do {
			struct wm_record got[7], want;
			int64_t due[7];

			n = wm_record_source_next_run(run, now, got, due, cap);
			for (uint32_t k = 0; k < n; k++) {
				int64_t due_one = one->ops->next_due_ns(one);

				ck_assert_int_eq(
					wm_record_source_next(one, now, &want),
					1);
				ck_assert_int_eq(want.value, got[k].value);
				ck_assert_int_eq(due_one, due[k]);
				compared++;
			}
			if (n < cap)
				ck_assert_int_eq(
					wm_record_source_next(one, now, &want),
					0);
			ck_assert_int_eq(one->ops->next_due_ns(one),
					 run->ops->next_due_ns(run));
			ck_assert(wm_record_source_finished(one) ==
				  wm_record_source_finished(run));
			cap = cap % 7 + 1;
		} while (n > 0);
	}
	ck_assert_uint_eq(compared, 180);
	ck_assert(wm_record_source_finished(run));
	wm_record_source_free(one);
	wm_record_source_free(run);
	wm_replay_free(trace);
	unlink(path);
}
END_TEST

static Suite *
replay_suite(void)
{
	Suite *s = suite_create("replay");
	TCase *pause = tcase_create("pause");

	tcase_add_test(pause,
		       test_paused_partition_waits_while_the_others_go_on);
	tcase_add_test(pause, test_backlog_comes_out_before_later_records);
	tcase_add_test(pause, test_backlogs_merge_in_release_order);
	tcase_add_test(pause, test_paused_again_keeps_the_rest_of_its_backlog);
	tcase_add_test(pause, test_pause_without_backlog_changes_nothing);
	tcase_add_test(pause, test_runs_give_what_records_one_by_one_give);
	tcase_add_test(pause,
		       test_falling_arrivals_are_released_in_arrival_order);
	suite_add_tcase(s, pause);
	pause = tcase_create("reading");
	tcase_add_test(pause, test_lines_cut_by_a_block_end_are_read_whole);
	tcase_add_test(pause, test_longest_line_is_read_wherever_a_block_ends);
	tcase_add_loop_test(
		pause, test_fields_read_in_one_pass_are_read_as_in_full, 0,
		2 * (int)(sizeof(field_cases) / sizeof(*field_cases)));
	tcase_add_test(pause, test_plain_lines_read_as_the_lines_around_them);
	tcase_add_test(pause, test_bad_line_far_down_is_named);
	tcase_add_test(pause, test_punctuate_marks_records);
	tcase_add_test(pause, test_watermark_column_carries_watermarks);
	suite_add_tcase(s, pause);
	return s;
}

int
main(void)
{
	return wm_check_main(replay_suite());
}
