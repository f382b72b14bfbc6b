/*
 * nexmark_record.c
 *	A topology's Nexmark stream as JSON lines (nexmark_record.h).
 */
#include "config.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sysexits.h>

#include "runtime/io/nexmark_json.h"
#include "runtime/io/outfile.h"
#include "runtime/source/nexmark_record.h"
#include "runtime/source/sources.h"

/* Lines are gathered into writes of about this many bytes. */
#define WRITE_BYTES (64u * 1024)

/* Which setting of stream b differs from a's, or NULL: those the file
 * gives (the seed and base time are the job's, the same for both). */
static const char *
differs(const struct wm_nexmark_source_conf *a,
	const struct wm_nexmark_source_conf *b)
{
	if (a->events != b->events)
		return "nexmark.events (or the end [job] event_time puts on "
		       "it)";
	if (a->gen.events_per_second != b->gen.events_per_second)
		return "nexmark.rate";
	if (a->partitions != b->partitions)
		return "partitions";
	return NULL;
}

int
wm_nexmark_record_stream(const struct wm_topology *t,
			 struct wm_nexmark_source_conf *out, char *err,
			 size_t errlen)
{
	const struct wm_stage *first = NULL;
	struct wm_nexmark_source_conf conf;
	char a[WM_INI_QUOTE_MAX], b[WM_INI_QUOTE_MAX];
	const char *why;

	for (uint32_t s = 0; s < t->n_stages; s++) {
		const struct wm_stage *st = &t->stages[s];

		if (!wm_stage_source_is(st, WM_SOURCE_NEXMARK))
			continue;
		why = wm_sources_nexmark_conf(t, st, &conf);
		if (why != NULL) {
			snprintf(err, errlen, "%s:%d:%d: source %s: %s",
				 t->file, st->u.source.nexmark_line,
				 st->u.source.nexmark_col,
				 wm_ini_quote(a, sizeof(a), st->name), why);
			return EX_CONFIG;
		}
		if (first == NULL) {
			first = st;
			*out = conf;
			continue;
		}
		why = differs(out, &conf);
		if (why == NULL)
			continue;
		snprintf(err, errlen,
			 "%s:%d:%d: source %s reads another Nexmark stream "
			 "than source %s (line %d, column %d): their %s "
			 "differ, and one recording holds one stream",
			 t->file, st->u.source.nexmark_line,
			 st->u.source.nexmark_col,
			 wm_ini_quote(a, sizeof(a), st->name),
			 wm_ini_quote(b, sizeof(b), first->name),
			 first->u.source.nexmark_line,
			 first->u.source.nexmark_col, why);
		return EX_CONFIG;
	}
	if (first != NULL)
		return EX_OK;
	snprintf(err, errlen,
		 "%s has no Nexmark source (generator = nexmark) to record",
		 t->file);
	return EX_USAGE;
}

int
wm_nexmark_record_write(const struct wm_nexmark_source_conf *conf,
			const char *path, char *err, size_t errlen)
{
	struct wm_nexmark_event ev;
	struct wm_outfile f;
	size_t fill = 0;
	bool opened;
	char *buf;
	int r;

	buf = malloc(WRITE_BYTES + WM_NEXMARK_JSON_MAX);
	if (buf == NULL) {
		snprintf(err, errlen, "out of memory");
		return EX_OSERR;
	}
	r = wm_outfile_open(&f, "Nexmark recording", path, false, err, errlen);
	opened = r == 0;
	for (uint64_t n = 0; r == 0 && n < conf->events; n++) {
		wm_nexmark_gen_event(&conf->gen, n, &ev);
		fill += wm_nexmark_json_line(buf + fill, WM_NEXMARK_JSON_MAX,
					     &ev,
					     (uint32_t)(n % conf->partitions));
		if (fill >= WRITE_BYTES || n + 1 == conf->events) {
			r = wm_outfile_write(&f, buf, fill);
			fill = 0;
		}
	}
	free(buf);
	if (!opened) /* err says why */
		return EX_IOERR;
	/* A failed write is kept in f and said by the close, which removes
	 * the file this open made rather than leave a stream cut short. */
	return wm_outfile_close(&f, r == 0, err, errlen) == 0 ? EX_OK
							      : EX_IOERR;
}
