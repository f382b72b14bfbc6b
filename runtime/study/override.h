/*
 * override.h
 *	A topology's text with some of its keys set to other values: what
 *	--sweep runs once per combination.
 *
 * An override names a section as the user writes it on the command line:
 * "job" for [job], "global" for [global], or a stage's name ("events" for
 * [source events]); a key that section's kind takes; and a value. It
 * replaces the line of that key in the section, or, if the section has no
 * such key, adds one right after the section's header (after the end of
 * the text, with the header, for a [job] or [global] the text lacks). The
 * value "none" removes the key instead, so that its default applies (no
 * idle_timeout: no idleness); the removed line is left as a comment.
 * The result is text, read by the same loader as any topology, so that an
 * override is held to every rule a file is; the line map gives the
 * original line of each line, so that its errors point into the user's
 * file.
 *
 * Refused (-EINVAL, with *bad the index of the override and a message): a
 * section the text does not have, a key its kind does not take, and a key
 * given more than once in the section (a repeatable shape key: which one
 * to replace is not clear). When two overrides set the same key of the
 * same section, the later one wins. Pure: no I/O.
 */
#ifndef WM_RUNTIME_STUDY_OVERRIDE_H
#define WM_RUNTIME_STUDY_OVERRIDE_H

#include <stdbool.h>
#include <stddef.h>

struct wm_override {
	const char *section; /* "job", "global" or a stage's name */
	const char *key;
	const char *value; /* "none": remove the key, unless literal */
	bool literal;	   /* the value as it is, "none" too (--set) */
};

/* The edited text and, for each of its lines, the original line (0 for a
 * line the overrides added). */
struct wm_override_text {
	char *text;
	size_t len;
	int *orig_line; /* [n_lines + 1]; index 0 unused */
	int n_lines;
};

/*
 * Apply `n` overrides to the `len` bytes at `text` (a topology, named
 * `name` in messages) into *out (free with wm_override_text_free()).
 * 0; -EINVAL with *bad the index of the offending override (or n when the
 * text itself does not parse) and a message in err; or -ENOMEM.
 */
int wm_override_apply(const char *text, size_t len, const char *name,
		      const struct wm_override *ov, size_t n,
		      struct wm_override_text *out, size_t *bad, char *err,
		      size_t errlen);
void wm_override_text_free(struct wm_override_text *t);

/* The line of the original text that line `line` of the edited one came
 * from; 0 for an added line or a line out of range. */
int wm_override_orig_line(const struct wm_override_text *t, int line);

#endif /* WM_RUNTIME_STUDY_OVERRIDE_H */
