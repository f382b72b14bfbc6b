/*
 * override.c
 *	Set keys of a topology's text to other values (override.h).
 *
 * The text is parsed only to find sections and the lines of their keys;
 * it is then copied line by line, each line either kept, replaced by the
 * override's "key = value" (its line ending kept, so numbering holds) or
 * followed by the added keys of the section it heads.
 */
#include "config.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "runtime/conf/ini.h"
#include "runtime/conf/topology.h"
#include "runtime/study/override.h"

/* What happens to override i: it replaces `line`, or is added after
 * `line` (0: at the end, with its section's header), or nothing. */
struct action {
	enum { ACT_NONE, ACT_REPLACE, ACT_ADD } kind;
	int line;
};

/* The reader is asked only for positions: the loader decides later which
 * keys may repeat. */
static bool
any_may_repeat(const char *kind, const char *key, void *arg)
{
	(void)kind, (void)key, (void)arg;
	return true;
}

/* "key = value", the value quoted where the reader would otherwise cut
 * or trim it. */
static void
put_entry(FILE *f, const struct wm_override *o)
{
	const char *v = o->value;
	size_t len = strlen(v);
	bool quote = len == 0 || v[0] == ' ' || v[0] == '\t' ||
		     v[len - 1] == ' ' || v[len - 1] == '\t' ||
		     strpbrk(v, "#;\"\\") != NULL;

	fprintf(f, "%s = ", o->key);
	if (!quote) {
		fputs(v, f);
		return;
	}
	fputc('"', f);
	for (const char *c = v; *c; c++) {
		if (*c == '"' || *c == '\\')
			fputc('\\', f);
		fputc(*c, f);
	}
	fputc('"', f);
}

/* Where each override goes, into act[]: 0, or -EINVAL after a message
 * with *bad set. */
static int
plan_actions(const struct wm_ini_doc *doc, const struct wm_override *ov,
	     size_t n, struct action *act, size_t *bad, char *err,
	     size_t errlen)
{
	for (size_t i = 0; i < n; i++) {
		const struct wm_override *o = &ov[i];
		struct wm_ini_section *sec =
			wm_topology_section_named(doc, o->section);
		const struct wm_ini_entry *found = NULL;
		const char *suggest;
		unsigned times = 0;
		bool later = false;

		act[i] = (struct action){ACT_NONE, 0};
		if (sec == NULL && !wm_topology_section_word(o->section)) {
			*bad = i;
			snprintf(err, errlen,
				 "the topology has no stage named \"%s\"",
				 o->section);
			return -EINVAL;
		}
		if (!wm_topology_key_known(sec != NULL ? sec->kind : o->section,
					   o->key, &suggest)) {
			*bad = i;
			snprintf(err, errlen,
				 "unrecognized key \"%s\" for %s \"%s\"%s%s%s",
				 o->key, sec != NULL ? sec->kind : "section",
				 o->section, suggest ? " (did you mean \"" : "",
				 suggest ? suggest : "", suggest ? "\")" : "");
			return -EINVAL;
		}
		for (size_t j = i + 1; j < n; j++)
			if (strcmp(ov[j].section, o->section) == 0 &&
			    strcmp(ov[j].key, o->key) == 0)
				later = true;
		for (size_t e = 0; sec != NULL && e < sec->n_entries; e++)
			if (strcmp(sec->entries[e].key, o->key) == 0) {
				found = &sec->entries[e];
				times++;
			}
		if (times > 1) {
			*bad = i;
			snprintf(err, errlen,
				 "key \"%s\" is given %u times in \"%s\": only "
				 "a key given at most once can be set",
				 o->key, times, o->section);
			return -EINVAL;
		}
		if (later)
			continue; /* the later override wins */
		if (found != NULL)
			act[i] = (struct action){ACT_REPLACE, found->line};
		else if (o->literal || strcmp(o->value, "none") != 0)
			act[i] = (struct action){ACT_ADD,
						 sec != NULL ? sec->line : 0};
	}
	return 0;
}

/* Record that the output's next line came from original line `orig`. */
static int
map_line(struct wm_override_text *out, size_t *cap, int orig)
{
	if ((size_t)out->n_lines + 2 > *cap) {
		size_t nc = *cap ? *cap * 2 : 64;
		int *m = realloc(out->orig_line, nc * sizeof(*m));

		if (m == NULL)
			return -ENOMEM;
		out->orig_line = m;
		*cap = nc;
	}
	out->orig_line[++out->n_lines] = orig;
	return 0;
}

/* The added keys of the sections headed at `line` (0: the sections the
 * text lacks, with their headers), one line each. */
static int
put_added(FILE *f, struct wm_override_text *out, size_t *cap,
	  const struct wm_override *ov, size_t n, const struct action *act,
	  int line)
{
	const char *header = NULL;

	for (size_t i = 0; i < n; i++) {
		if (act[i].kind != ACT_ADD || act[i].line != line)
			continue;
		if (line == 0 &&
		    (header == NULL || strcmp(header, ov[i].section) != 0)) {
			header = ov[i].section;
			fprintf(f, "[%s]\n", header);
			if (map_line(out, cap, 0) != 0)
				return -ENOMEM;
		}
		put_entry(f, &ov[i]);
		fputc('\n', f);
		if (map_line(out, cap, 0) != 0)
			return -ENOMEM;
	}
	return 0;
}

static int
copy_lines(FILE *f, const char *text, size_t len, const struct wm_override *ov,
	   size_t n, const struct action *act, struct wm_override_text *out)
{
	size_t cap = 0;
	size_t pos = 0;
	int line = 0;

	out->n_lines = 0;
	while (pos < len) {
		const char *nl = memchr(text + pos, '\n', len - pos);
		size_t end = nl != NULL ? (size_t)(nl - text) : len;
		size_t body = end;
		size_t i;

		line++;
		if (body > pos && text[body - 1] == '\r')
			body--;
		for (i = 0; i < n; i++)
			if (act[i].kind == ACT_REPLACE && act[i].line == line)
				break;
		if (i == n) {
			fwrite(text + pos, 1, body - pos, f);
		} else if (!ov[i].literal && strcmp(ov[i].value, "none") == 0) {
			fprintf(f, "# %s removed on the command line",
				ov[i].key);
		} else {
			put_entry(f, &ov[i]);
		}
		/* The line's own ending, or one if it had none and more
		 * follows. */
		fwrite(text + body, 1, end - body, f);
		fputc('\n', f);
		if (map_line(out, &cap, line) != 0 ||
		    put_added(f, out, &cap, ov, n, act, line) != 0)
			return -ENOMEM;
		pos = end + 1;
	}
	return put_added(f, out, &cap, ov, n, act, 0);
}

int
wm_override_apply(const char *text, size_t len, const char *name,
		  const struct wm_override *ov, size_t n,
		  struct wm_override_text *out, size_t *bad, char *err,
		  size_t errlen)
{
	const struct wm_ini_options opts = {.may_repeat = any_may_repeat};
	struct wm_ini_doc *doc = NULL;
	struct wm_ini_error ierr;
	struct action *act;
	FILE *f;
	int r;

	*out = (struct wm_override_text){0};
	*bad = n;
	r = wm_ini_parse_buffer(text, len, name, &opts, &doc, &ierr);
	if (r != 0) {
		wm_ini_error_format(&ierr, err, errlen);
		return r;
	}
	act = calloc(n ? n : 1, sizeof(*act));
	if (act == NULL) {
		wm_ini_free(doc);
		return -ENOMEM;
	}
	r = plan_actions(doc, ov, n, act, bad, err, errlen);
	wm_ini_free(doc);
	if (r != 0) {
		free(act);
		return r;
	}
	f = open_memstream(&out->text, &out->len);
	if (f == NULL) {
		free(act);
		return -ENOMEM;
	}
	r = copy_lines(f, text, len, ov, n, act, out);
	free(act);
	if (fclose(f) != 0 && r == 0)
		r = -ENOMEM;
	if (r != 0) {
		wm_override_text_free(out);
		snprintf(err, errlen, "out of memory");
	}
	return r;
}

void
wm_override_text_free(struct wm_override_text *t)
{
	free(t->text);
	free(t->orig_line);
	*t = (struct wm_override_text){0};
}

int
wm_override_orig_line(const struct wm_override_text *t, int line)
{
	if (line < 1 || line > t->n_lines)
		return 0;
	return t->orig_line[line];
}
