/*
 * pipeline_keys.c
 *	wmbench pipeline's --keys (and --peer's) traces: the same records
 *	keyed by longs and by strings, written before any timing, and their
 *	reading timed alone, as the supervisor reads a trace before a job.
 *
 * The traces are what the keyed jobs of pipeline_bench.c replay and what
 * Flink's peer reads; their distinct keys and (key, window) results are
 * counted as they are written, so that every run can be checked against
 * them.
 */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sysexits.h>
#include <unistd.h>

#include "base/log.h"
#include "bench/pipeline_internal.h"
#include "bench/rng.h"
#include "bench/stats.h"
#include "runtime/io/keys.h"
#include "runtime/source/replay.h"

const char *const wm_pipeline_keys_name[KEYS_TYPES] = {"long-keys",
						       "string-keys"};
static const enum wm_key_type keys_type[KEYS_TYPES] = {WM_KEY_TYPE_LONG,
						       WM_KEY_TYPE_STRING};

/* The order of the key types in repetition r: alternating, so that
 * neither always runs on a machine (and a page cache) the other warmed. */
enum keys_type
wm_pipeline_keys_nth(uint64_t r, int i)
{
	return (enum keys_type)(r % 2 == 0 ? i : KEYS_TYPES - 1 - i);
}

/*
 * Write the traces: the same records but for the key's type. Record i is
 * in partition i % PIPELINE_PARTITIONS at timestamp i / PIPELINE_PARTITIONS
 * ms, so every partition is in order and a one-minute window holds 60000
 * records of each (one result per 469 records, near the generated job's
 * one per 400 at 7 Mrec/s); its key is a uniform draw N below
 * PIPELINE_KEYS, written as N in one trace and as "user<N>" in the other.
 * Only the wanted traces are written. Timestamps never fall, so a key's
 * windows come in order: a key whose window changed starts a result.
 * 0, or an exit status after a message.
 */
int
wm_pipeline_keys_write(struct keys_bench *kb, uint64_t records)
{
	const char *dir = getenv("TMPDIR");
	bool used[PIPELINE_KEYS] = {false};
	uint64_t window_of[PIPELINE_KEYS]; /* a key's last, UINT64_MAX: none */
	FILE *f[KEYS_TYPES] = {NULL};
	struct wm_rng rng;
	int rc = 0;

	if (dir == NULL || dir[0] == '\0')
		dir = "/tmp";
	for (int k = 0; k < KEYS_TYPES && rc == 0; k++) {
		int fd;

		if (!kb->wanted[k])
			continue;
		snprintf(kb->path[k], sizeof(kb->path[k]),
			 "%s/wmbench-%s-XXXXXX", dir, wm_pipeline_keys_name[k]);
		fd = mkstemp(kb->path[k]);
		if (fd < 0 || (f[k] = fdopen(fd, "w")) == NULL) {
			wm_log("wmbench: could not create trace \"%s\": %s",
			       kb->path[k], strerror(errno));
			if (fd < 0)
				kb->path[k][0] = '\0';
			else
				close(fd);
			rc = EX_CANTCREAT;
		}
	}
	wm_rng_seed(&rng, 14);
	memset(window_of, 0xff, sizeof(window_of));
	for (uint64_t i = 0; i < records && rc == 0; i++) {
		uint32_t key = wm_rng_below(&rng, PIPELINE_KEYS);
		uint64_t p = i % PIPELINE_PARTITIONS;
		uint64_t ts = i / PIPELINE_PARTITIONS;

		used[key] = true;
		if (window_of[key] != ts / PIPELINE_WINDOW_MS) {
			window_of[key] = ts / PIPELINE_WINDOW_MS;
			kb->results++;
		}
		if (f[KEYS_LONG] != NULL)
			fprintf(f[KEYS_LONG],
				"%" PRIu64 ",%" PRIu64 ",%" PRIu32 ",1\n", p,
				ts, key);
		if (f[KEYS_STRING] != NULL)
			fprintf(f[KEYS_STRING],
				"%" PRIu64 ",%" PRIu64 ",user%" PRIu32 ",1\n",
				p, ts, key);
	}
	for (int k = 0; k < KEYS_TYPES; k++) {
		if (f[k] != NULL && (ferror(f[k]) | fclose(f[k])) != 0 &&
		    rc == 0) {
			wm_log("wmbench: could not write trace \"%s\": %s",
			       kb->path[k], strerror(errno));
			rc = EX_IOERR;
		}
	}
	for (uint32_t key = 0; key < PIPELINE_KEYS; key++)
		kb->distinct += used[key];
	return rc;
}

/*
 * Repetition r of the reading alone, each trace as the supervisor reads
 * it before a job (the interning of string keys included): ns per record
 * into kb->read_ns. The string trace must have interned exactly the keys
 * it holds. 0, or an exit status after a message.
 */
int
wm_pipeline_keys_read_rep(struct keys_bench *kb, uint64_t records, uint64_t r)
{
	for (int i = 0; i < KEYS_TYPES; i++) {
		enum keys_type k = wm_pipeline_keys_nth(r, i);
		char err[512];
		uint64_t start = wm_stats_now_ns(), end;
		struct wm_replay_trace *tr = wm_replay_read(
			kb->path[k], PIPELINE_PARTITIONS, WM_REPLAY_FAST,
			keys_type[k], NULL, false, err, sizeof(err));
		const struct wm_keys *keys;
		size_t interned, want = k == KEYS_STRING ? kb->distinct : 0;

		end = wm_stats_now_ns();
		if (tr == NULL) {
			wm_log("wmbench: pipeline: %s", err);
			return errno == ENOMEM ? EX_OSERR : EX_SOFTWARE;
		}
		keys = wm_replay_keys(tr);
		interned = keys != NULL ? wm_keys_count(keys) : 0;
		wm_replay_free(tr);
		if (interned != want) {
			wm_log("wmbench: pipeline: trace \"%s\" interned %zu "
			       "keys, expected %zu",
			       kb->path[k], interned, want);
			return EX_SOFTWARE;
		}
		kb->read_ns[k][r] = (double)(end - start) / (double)records;
	}
	return 0;
}
