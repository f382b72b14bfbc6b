/*
 * check_keys.c
 *	Unit tests for runtime/io/keys.[ch]: interning string keys, their
 *	Java hash in the word, their strings given back, the keys that are
 *	refused, capacity, and processes interning into one dictionary at
 *	once, one of them killed.
 *
 * White box: keys.c is compiled in here, so that a test can kill a
 * process holding the writers' lock at an exact step (nothing else in
 * the file uses its insides).
 */
#include "config.h"

#include <check.h>
#include <errno.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "operators/keygroup.h"
#include "runtime/io/keys.c" /* white box (see above) */
#include "tests/unit/check_main.h"

static int64_t
intern(struct wm_keys *k, const char *s)
{
	int64_t w = 0;
	size_t at;

	ck_assert_int_eq(wm_keys_intern(k, s, strlen(s), &w, &at), 0);
	return w;
}

static void
assert_string(const struct wm_keys *k, int64_t w, const char *want)
{
	size_t len = 0;
	const char *s = wm_keys_string(k, w, &len);

	ck_assert_ptr_nonnull(s);
	ck_assert_uint_eq(len, strlen(want));
	ck_assert(memcmp(s, want, len) == 0);
}

/* ------------------------------------------------------------------ */
/* tcase intern */

START_TEST(test_keys_equal_strings_get_equal_words)
{
	struct wm_keys *k = wm_keys_new();
	int64_t a = intern(k, "user48"), b = intern(k, "user7");

	ck_assert_int_ne(a, b);
	ck_assert_int_eq(intern(k, "user48"), a);
	ck_assert_int_eq(intern(k, "user7"), b);
	ck_assert_uint_eq(wm_keys_count(k), 2);
	assert_string(k, a, "user48");
	assert_string(k, b, "user7");
	wm_keys_free(k);
}
END_TEST

/* The word carries Java's String.hashCode (jshell, OpenJDK 17), over
 * UTF-16 units: "zürich", one character outside the BMP, the empty key. */
START_TEST(test_keys_word_carries_java_hash)
{
	struct wm_keys *k = wm_keys_new();
	int64_t z = intern(k, "z\xc3\xbcrich");
	int64_t e = intern(k, "a\xf0\x9f\x98\x80"
			      "b");
	int64_t empty = intern(k, "");

	ck_assert_int_eq(wm_keygroup_string_key_hash(intern(k, "user48")),
			 -836031601);
	ck_assert_int_eq(wm_keygroup_string_key_hash(z), -565983330);
	ck_assert_int_eq(wm_keygroup_string_key_hash(e), 57849694);
	ck_assert_int_eq(wm_keygroup_string_key_hash(empty), 0);
	/* ...and so the subtask Flink gives them: 2 subtasks, maxP 128. */
	ck_assert_uint_eq(
		wm_keygroup_subtask(wm_keygroup_string_key_hash(z), 128, 2), 0);
	ck_assert_uint_eq(
		wm_keygroup_subtask(wm_keygroup_string_key_hash(e), 128, 2), 1);
	assert_string(k, z, "z\xc3\xbcrich");
	assert_string(k, e,
		      "a\xf0\x9f\x98\x80"
		      "b");
	assert_string(k, empty, "");
	wm_keys_free(k);
}
END_TEST

/* "Aa" and "BB" have one Java hash (2112): still two keys, both routed
 * alike, as in Flink. */
START_TEST(test_keys_java_hash_collision_keeps_keys_apart)
{
	struct wm_keys *k = wm_keys_new();
	int64_t a = intern(k, "Aa"), b = intern(k, "BB");

	ck_assert_int_ne(a, b);
	ck_assert_int_eq(wm_keygroup_string_key_hash(a), 2112);
	ck_assert_int_eq(wm_keygroup_string_key_hash(b), 2112);
	assert_string(k, a, "Aa");
	assert_string(k, b, "BB");
	wm_keys_free(k);
}
END_TEST

/* Many keys: the table and the arena grow, and every earlier word still
 * names its string. */
START_TEST(test_keys_survive_growth)
{
	struct wm_keys *k = wm_keys_new();
	static int64_t words[20000];
	char s[32];

	for (int i = 0; i < 20000; i++) {
		snprintf(s, sizeof(s), "device-%d", i);
		words[i] = intern(k, s);
	}
	ck_assert_uint_eq(wm_keys_count(k), 20000);
	for (int i = 0; i < 20000; i++) {
		snprintf(s, sizeof(s), "device-%d", i);
		ck_assert_int_eq(intern(k, s), words[i]);
		assert_string(k, words[i], s);
	}
	wm_keys_free(k);
}
END_TEST

/* ------------------------------------------------------------------ */
/* tcase refuse */

START_TEST(test_keys_refuse_what_cannot_be_printed_back)
{
	struct wm_keys *k = wm_keys_new();
	char big[WM_KEYS_MAX_BYTES + 2];
	int64_t w = 0;
	size_t at = 99;

	/* A stray continuation byte, an encoded surrogate, a truncated
	 * sequence: Java would make U+FFFD of each, merging keys. */
	ck_assert_int_eq(wm_keys_intern(k, "ab\x80", 3, &w, &at), -EILSEQ);
	ck_assert_int_eq(wm_keys_intern(k, "\xed\xa0\x80", 3, &w, &at),
			 -EILSEQ);
	ck_assert_int_eq(wm_keys_intern(k, "z\xc3", 2, &w, &at), -EILSEQ);
	ck_assert_int_eq(wm_keys_intern(k, "a\tb", 3, &w, &at), -EINVAL);
	ck_assert_uint_eq(at, 1);
	ck_assert_int_eq(wm_keys_intern(k, "ab\x7f", 3, &w, &at), -EINVAL);
	ck_assert_uint_eq(at, 2);
	ck_assert_int_eq(wm_keys_intern(k, "a\0b", 3, &w, &at), -EINVAL);
	memset(big, 'x', sizeof(big));
	ck_assert_int_eq(wm_keys_intern(k, big, WM_KEYS_MAX_BYTES, &w, &at), 0);
	ck_assert_int_eq(wm_keys_intern(k, big, WM_KEYS_MAX_BYTES + 1, &w, &at),
			 -ENAMETOOLONG);
	/* Nothing refused was interned. */
	ck_assert_uint_eq(wm_keys_count(k), 1);
	wm_keys_free(k);
}
END_TEST

/* A word that is not this dictionary's is no string: an id beyond it, or
 * a hash that is not its string's. */
START_TEST(test_keys_unknown_words_have_no_string)
{
	struct wm_keys *k = wm_keys_new();
	int64_t w = intern(k, "user48");
	size_t len;

	ck_assert_ptr_null(
		wm_keys_string(k, wm_keygroup_string_key(0, 1), &len));
	ck_assert_ptr_null(wm_keys_string(
		k,
		wm_keygroup_string_key(wm_keygroup_string_key_hash(w) + 1,
				       wm_keygroup_string_key_id(w)),
		&len));
	wm_keys_free(k);
}
END_TEST

/* ------------------------------------------------------------------ */
/* tcase capacity */

/* Room for 3 keys: a fourth is -ENOSPC, nothing interned, and the three
 * are still found. */
START_TEST(test_keys_out_of_keys_is_enospc)
{
	struct wm_keys *k = wm_keys_new_sized(3, 1000);
	int64_t a = intern(k, "a"), w = 0;
	size_t at;

	intern(k, "b");
	intern(k, "c");
	ck_assert_int_eq(wm_keys_intern(k, "d", 1, &w, &at), -ENOSPC);
	ck_assert_uint_eq(wm_keys_count(k), 3);
	ck_assert_int_eq(intern(k, "a"), a);
	wm_keys_free(k);
}
END_TEST

/* Room for 10 bytes of strings: 6 + 4 fit, 6 + 5 do not; the empty key
 * needs none. */
START_TEST(test_keys_out_of_bytes_is_enospc)
{
	struct wm_keys *k = wm_keys_new_sized(100, 10);
	int64_t w = 0;
	size_t at;

	intern(k, "abcdef");
	ck_assert_int_eq(wm_keys_intern(k, "ghijk", 5, &w, &at), -ENOSPC);
	assert_string(k, intern(k, "ghij"), "ghij");
	assert_string(k, intern(k, ""), "");
	ck_assert_int_eq(wm_keys_intern(k, "x", 1, &w, &at), -ENOSPC);
	ck_assert_uint_eq(wm_keys_count(k), 3);
	wm_keys_free(k);
}
END_TEST

/* A few keys cost a few pages of the 1.75 GiB reserved: 1000 keys are
 * 8 KiB of strings, 16 KiB of entries and 4 generations of slots (30
 * KiB), about 15 pages with the header. */
START_TEST(test_keys_few_keys_touch_few_pages)
{
	struct wm_keys *k = wm_keys_new();
	size_t pages, resident = 0;
	unsigned char *in;

	for (int i = 0; i < 1000; i++) {
		char s[32];

		snprintf(s, sizeof(s), "device-%d", i);
		intern(k, s);
	}
	pages = (k->size + PAGE - 1) / PAGE;
	in = malloc(pages);
	ck_assert_ptr_nonnull(in);
	ck_assert_int_eq(mincore(k, k->size, in), 0);
	for (size_t i = 0; i < pages; i++)
		resident += in[i] & 1;
	ck_assert_uint_ge(resident, 4);
	ck_assert_uint_le(resident, 32);
	free(in);
	wm_keys_free(k);
}
END_TEST

START_TEST(test_keys_capacity_out_of_range_is_refused)
{
	errno = 0;
	ck_assert_ptr_null(wm_keys_new_sized(0, 10));
	ck_assert_int_eq(errno, EINVAL);
	ck_assert_ptr_null(wm_keys_new_sized(WM_KEYS_MOST + 1, 10));
	ck_assert_ptr_null(wm_keys_new_sized(10, ((uint64_t)1 << 40) + 1));
}
END_TEST

/* ------------------------------------------------------------------ */
/* tcase processes */

#define PROCS 4
#define SHARED_KEYS 6000

/* What the interning processes share besides the dictionary. */
struct board {
	_Atomic int go;
	int64_t words[PROCS][SHARED_KEYS];
};

static void *
shared_map(size_t size)
{
	void *p = mmap(NULL, size, PROT_READ | PROT_WRITE,
		       MAP_SHARED | MAP_ANONYMOUS, -1, 0);

	ck_assert_ptr_ne(p, MAP_FAILED);
	return p;
}

static void
key_text(char *s, size_t size, int i)
{
	snprintf(s, size, "k-%d", i);
}

/* Process p interns every key but one in PROCS (i % PROCS != p), in an
 * order of its own, and reads each word back at once, while the others
 * intern: exit 0, or 1 on any failure. */
static int
intern_share(struct wm_keys *k, struct board *b, int p)
{
	static const int stride[PROCS] = {7919, 7937, 7949, 7951};

	while (!atomic_load(&b->go))
		sched_yield();
	for (int j = 0; j < SHARED_KEYS; j++) {
		int i = (int)(((long)j * stride[p] + p * 1500) % SHARED_KEYS);
		char s[32];
		const char *back;
		size_t at, len = 0;

		if (i % PROCS == p)
			continue;
		key_text(s, sizeof(s), i);
		if (wm_keys_intern(k, s, strlen(s), &b->words[p][i], &at) != 0)
			return 1;
		back = wm_keys_string(k, b->words[p][i], &len);
		if (back == NULL || len != strlen(s) || memcmp(back, s, len))
			return 1;
	}
	return 0;
}

static void
wait_exit(pid_t pid, int want_signal)
{
	int status;

	ck_assert_int_eq(waitpid(pid, &status, 0), pid);
	if (want_signal) {
		ck_assert(WIFSIGNALED(status));
		ck_assert_int_eq(WTERMSIG(status), want_signal);
	} else {
		ck_assert(WIFEXITED(status));
		ck_assert_int_eq(WEXITSTATUS(status), 0);
	}
}

/* PROCS forked processes intern overlapping keys at once (the table grows
 * under them): each string got one word in every process, different
 * strings different ids, and every word gives its string back. */
START_TEST(test_keys_processes_get_equal_ids_for_equal_strings)
{
	struct wm_keys *k = wm_keys_new();
	struct board *b = shared_map(sizeof(*b));
	static bool seen[SHARED_KEYS];
	pid_t pid[PROCS];

	for (int p = 0; p < PROCS; p++) {
		pid[p] = fork();
		ck_assert_int_ge(pid[p], 0);
		if (pid[p] == 0)
			_exit(intern_share(k, b, p));
	}
	atomic_store(&b->go, 1);
	for (int p = 0; p < PROCS; p++)
		wait_exit(pid[p], 0);
	ck_assert_uint_eq(wm_keys_count(k), SHARED_KEYS);
	memset(seen, 0, sizeof(seen));
	for (int i = 0; i < SHARED_KEYS; i++) {
		int64_t w = b->words[(i + 1) % PROCS][i];
		uint32_t id = wm_keygroup_string_key_id(w);
		char s[32];

		for (int p = 0; p < PROCS; p++)
			if (i % PROCS != p)
				ck_assert_int_eq(b->words[p][i], w);
		ck_assert_uint_lt(id, SHARED_KEYS);
		ck_assert(!seen[id]);
		seen[id] = true;
		key_text(s, sizeof(s), i);
		assert_string(k, w, s);
		ck_assert_int_eq(intern(k, s), w);
	}
	munmap(b, sizeof(*b));
	wm_keys_free(k);
}
END_TEST

/* Every id below the count is found by its string, under that id: no
 * entry without its slot, no string twice. */
static void
assert_whole(struct wm_keys *k)
{
	size_t n = wm_keys_count(k);

	for (size_t id = 0; id < n; id++) {
		const struct entry *e = &entries(k)[id];
		int64_t w = 0;
		size_t at;

		ck_assert_int_eq(wm_keys_intern(k, arena(k) + e->offset, e->len,
						&w, &at),
				 0);
		ck_assert_uint_eq(wm_keygroup_string_key_id(w), id);
	}
	ck_assert_uint_eq(wm_keys_count(k), n);
}

/* A process killed holding the writers' lock: the others intern on. */
START_TEST(test_keys_writer_killed_holding_the_lock_blocks_nobody)
{
	struct wm_keys *k = wm_keys_new();
	int64_t a = intern(k, "a");

	for (int round = 0; round < 2; round++) {
		pid_t pid = fork();

		ck_assert_int_ge(pid, 0);
		if (pid == 0) {
			pthread_mutex_lock(&k->lock);
			raise(SIGKILL);
		}
		wait_exit(pid, SIGKILL);
		ck_assert_int_eq(intern(k, "a"), a);
		assert_string(k, intern(k, round ? "c" : "b"),
			      round ? "c" : "b");
	}
	ck_assert_uint_eq(wm_keys_count(k), 3);
	wm_keys_free(k);
}
END_TEST

/* Killed at the worst step: the id of "c" published (step 2 in keys.c),
 * its slot not (step 3). The next writer gives it its slot: "c" keeps
 * that id instead of getting a second one. */
START_TEST(test_keys_writer_killed_between_id_and_slot_is_repaired)
{
	struct wm_keys *k = wm_keys_new();
	int64_t w;
	pid_t pid;

	intern(k, "a");
	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		int32_t java;

		pthread_mutex_lock(&k->lock);
		wm_keygroup_hash_string_strict("c", 1, &java);
		memcpy(arena(k) + 1, "c", 1);
		entries(k)[1] = (struct entry){1, 1, java};
		atomic_store_explicit(&k->n, 2, memory_order_release);
		raise(SIGKILL);
	}
	wait_exit(pid, SIGKILL);
	ck_assert_uint_eq(wm_keys_count(k), 2);
	w = intern(k, "d");
	ck_assert_uint_eq(wm_keygroup_string_key_id(w), 2);
	ck_assert_uint_eq(wm_keygroup_string_key_id(intern(k, "c")), 1);
	assert_string(k, intern(k, "c"), "c");
	ck_assert_uint_eq(wm_keys_count(k), 3);
	assert_whole(k);
	wm_keys_free(k);
}
END_TEST

/* Writers SIGKILLed wherever they are (inside the lock or not), one after
 * another, while interning new keys: the dictionary stays whole and the
 * next writer goes on. Each is killed once it has made progress, however
 * slow the machine. */
START_TEST(test_keys_writers_killed_anywhere_leave_it_whole)
{
	struct wm_keys *k = wm_keys_new();

	for (int round = 0; round < 8; round++) {
		size_t before = wm_keys_count(k);
		pid_t pid = fork();

		ck_assert_int_ge(pid, 0);
		if (pid == 0) {
			for (long i = 0;; i++) {
				char s[48];
				int64_t w;
				size_t at;

				snprintf(s, sizeof(s), "victim-%d-%ld", round,
					 i);
				if (wm_keys_intern(k, s, strlen(s), &w, &at))
					_exit(1);
			}
		}
		while (wm_keys_count(k) < before + 1000 + 997 * round)
			usleep(200);
		kill(pid, SIGKILL);
		wait_exit(pid, SIGKILL);
		assert_whole(k);
		intern(k, "after");
	}
	wm_keys_free(k);
}
END_TEST

/* ------------------------------------------------------------------ */
/* tcase checkpoint */

static const char *const saved_keys[] = {"user48", "", "z\xc3\xbcrich", "Aa",
					 "BB"};
#define N_SAVED (sizeof(saved_keys) / sizeof(saved_keys[0]))

static struct wm_keys *
saved_dictionary(char **bytes, size_t *len)
{
	struct wm_keys *k = wm_keys_new();

	for (size_t i = 0; i < N_SAVED; i++)
		intern(k, saved_keys[i]);
	ck_assert_int_eq(wm_keys_save(k, bytes, len), 0);
	return k;
}

/* Saved, then loaded into a fresh dictionary or one that read the first
 * keys again in order: every string has its word again. */
START_TEST(test_keys_saved_and_loaded_keep_their_ids)
{
	char *bytes, err[256] = "";
	size_t len;
	struct wm_keys *k = saved_dictionary(&bytes, &len);

	for (size_t before = 0; before <= 2; before++) {
		struct wm_keys *again = wm_keys_new();

		for (size_t i = 0; i < before; i++)
			intern(again, saved_keys[i]);
		ck_assert_int_eq(
			wm_keys_load(again, bytes, len, err, sizeof(err)), 0);
		ck_assert_uint_eq(wm_keys_count(again), N_SAVED);
		for (size_t i = 0; i < N_SAVED; i++) {
			ck_assert_int_eq(intern(again, saved_keys[i]),
					 intern(k, saved_keys[i]));
			assert_string(again, intern(k, saved_keys[i]),
				      saved_keys[i]);
		}
		wm_keys_free(again);
	}
	free(bytes);
	wm_keys_free(k);
}
END_TEST

/* A dictionary whose first keys are others (a trace changed), a line cut
 * short, a line that is no key: refused, saying which. */
START_TEST(test_keys_load_refuses_other_ids_and_bad_lines)
{
	char *bytes, err[256] = "";
	size_t len;
	struct wm_keys *k = saved_dictionary(&bytes, &len);
	struct wm_keys *other = wm_keys_new();

	intern(other, "z\xc3\xbcrich");
	ck_assert_int_eq(wm_keys_load(other, bytes, len, err, sizeof(err)),
			 -EBADMSG);
	ck_assert_str_eq(err, "key 0 \"user48\" has id 1 in this job: its "
			      "string keys are not the checkpoint's (a trace "
			      "changed?)");
	wm_keys_free(other);
	other = wm_keys_new();
	ck_assert_int_eq(wm_keys_load(other, bytes, len - 1, err, sizeof(err)),
			 -EBADMSG);
	ck_assert_str_eq(err, "key 4 has no end");
	wm_keys_free(other);
	other = wm_keys_new();
	ck_assert_int_eq(wm_keys_load(other, "a\n\x80\n", 4, err, sizeof(err)),
			 -EBADMSG);
	ck_assert_int_eq(strncmp(err, "key 1: ", 7), 0);
	wm_keys_free(other);
	free(bytes);
	wm_keys_free(k);
}
END_TEST

static Suite *
keys_suite(void)
{
	Suite *s = suite_create("keys");
	TCase *tc;

	tc = tcase_create("intern");
	tcase_add_test(tc, test_keys_equal_strings_get_equal_words);
	tcase_add_test(tc, test_keys_word_carries_java_hash);
	tcase_add_test(tc, test_keys_java_hash_collision_keeps_keys_apart);
	tcase_add_test(tc, test_keys_survive_growth);
	suite_add_tcase(s, tc);

	tc = tcase_create("refuse");
	tcase_add_test(tc, test_keys_refuse_what_cannot_be_printed_back);
	tcase_add_test(tc, test_keys_unknown_words_have_no_string);
	suite_add_tcase(s, tc);

	tc = tcase_create("capacity");
	tcase_add_test(tc, test_keys_out_of_keys_is_enospc);
	tcase_add_test(tc, test_keys_out_of_bytes_is_enospc);
	tcase_add_test(tc, test_keys_capacity_out_of_range_is_refused);
	tcase_add_test(tc, test_keys_few_keys_touch_few_pages);
	suite_add_tcase(s, tc);

	tc = tcase_create("checkpoint");
	tcase_add_test(tc, test_keys_saved_and_loaded_keep_their_ids);
	tcase_add_test(tc, test_keys_load_refuses_other_ids_and_bad_lines);
	suite_add_tcase(s, tc);

	/* Forked processes: slow on a loaded machine, never timed. */
	tc = tcase_create("processes");
	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, test_keys_processes_get_equal_ids_for_equal_strings);
	tcase_add_test(tc,
		       test_keys_writer_killed_holding_the_lock_blocks_nobody);
	tcase_add_test(tc,
		       test_keys_writer_killed_between_id_and_slot_is_repaired);
	tcase_add_test(tc, test_keys_writers_killed_anywhere_leave_it_whole);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	return wm_check_main(keys_suite());
}
