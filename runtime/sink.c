/*
 * sink.c
 *	CSV and JSON-lines writers for window results and late records.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "runtime/sink.h"

struct wm_sink {
	FILE *f;
	bool own; /* opened here (not stdout) */
	bool jsonl;
	unsigned aggregates;
	uint64_t written;
};

static const char *const agg_names[] = {"count", "sum", "min", "max", "avg"};

static int
open_path(struct wm_sink *s, const char *path, char *err, size_t errlen)
{
	if (strcmp(path, "-") == 0) {
		s->f = stdout;
		return 0;
	}
	s->f = fopen(path, "w");
	if (s->f == NULL) {
		int r = -errno;

		snprintf(err, errlen, "could not open output file \"%s\": %s",
			 path, strerror(errno));
		return r;
	}
	s->own = true;
	/* Appends from several processes never overwrite each other. */
	fcntl(fileno(s->f), F_SETFL, fcntl(fileno(s->f), F_GETFL) | O_APPEND);
	return 0;
}

int
wm_sink_open(struct wm_sink **sinkp, const struct wm_sink_conf *conf,
	     const struct wm_stage *window, char *err, size_t errlen)
{
	struct wm_sink *s = calloc(1, sizeof(*s));
	int r;

	if (s == NULL)
		return -ENOMEM;
	s->jsonl = conf->format == WM_SINK_JSONL;
	s->aggregates = window->u.window.aggregates;
	r = open_path(s, conf->path, err, errlen);
	if (r != 0) {
		free(s);
		return r;
	}
	if (!s->jsonl) {
		fputs("key,window_start,window_end", s->f);
		for (unsigned a = 0; a < 5; a++)
			if (s->aggregates & (1u << a))
				fprintf(s->f, ",%s", agg_names[a]);
		fputs(",fire_time,watermark,late_firing\n", s->f);
	}
	*sinkp = s;
	return 0;
}

int
wm_sink_open_late(struct wm_sink **sinkp, const char *path, char *err,
		  size_t errlen)
{
	struct wm_sink *s = calloc(1, sizeof(*s));
	int r;

	if (s == NULL)
		return -ENOMEM;
	r = open_path(s, path, err, errlen);
	if (r != 0) {
		free(s);
		return r;
	}
	fputs("partition,timestamp,key,value\n", s->f);
	*sinkp = s;
	return 0;
}

void
wm_sink_result(struct wm_sink *s, const struct wm_window_result *r,
	       wm_ts_t watermark, int64_t fire_time_ms)
{
	const char *sep = s->jsonl ? ",\"" : ",";
	const char *eq = s->jsonl ? "\":" : "";

	if (s->jsonl)
		fprintf(s->f,
			"{\"key\":%" PRId64 ",\"window_start\":%" PRId64
			",\"window_end\":%" PRId64,
			r->key, r->window.start, r->window.end);
	else
		fprintf(s->f, "%" PRId64 ",%" PRId64 ",%" PRId64, r->key,
			r->window.start, r->window.end);
	for (unsigned a = 0; a < 5; a++) {
		if (!(s->aggregates & (1u << a)))
			continue;
		fprintf(s->f, "%s%s%s", sep, s->jsonl ? agg_names[a] : "", eq);
		switch (a) {
		case 0:
			fprintf(s->f, "%" PRId64, r->count);
			break;
		case 1:
			fprintf(s->f, "%" PRId64, r->sum);
			break;
		case 2:
			fprintf(s->f, "%" PRId64, r->min);
			break;
		case 3:
			fprintf(s->f, "%" PRId64, r->max);
			break;
		default:
			fprintf(s->f, "%.17g", wm_window_result_avg(r));
			break;
		}
	}
	if (s->jsonl)
		fprintf(s->f,
			",\"fire_time\":%" PRId64 ",\"watermark\":%" PRId64
			",\"late_firing\":%s}\n",
			fire_time_ms, watermark,
			r->late_firing ? "true" : "false");
	else
		fprintf(s->f, ",%" PRId64 ",%" PRId64 ",%s\n", fire_time_ms,
			watermark, r->late_firing ? "true" : "false");
	s->written++;
}

void
wm_sink_late(struct wm_sink *s, const struct wm_record *r)
{
	fprintf(s->f, "%" PRIu32 ",%" PRId64 ",%" PRId64 ",%" PRId64 "\n",
		r->partition, r->ts, r->key, r->value);
	s->written++;
}

void
wm_sink_line_buffered(struct wm_sink *s)
{
	setvbuf(s->f, NULL, _IOLBF, 0);
}

int
wm_sink_flush(struct wm_sink *s)
{
	return fflush(s->f) != 0 || ferror(s->f) ? -EIO : 0;
}

uint64_t
wm_sink_results(const struct wm_sink *s)
{
	return s->written;
}

int
wm_sink_close(struct wm_sink *s)
{
	int r = 0;

	if (s == NULL)
		return 0;
	if (fflush(s->f) != 0 || ferror(s->f))
		r = -EIO;
	if (s->own && fclose(s->f) != 0)
		r = -EIO;
	free(s);
	return r;
}
