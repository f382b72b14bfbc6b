/*
 * json_path.c
 *	Parsing the JSONPath subset that names one member (json_path.h).
 */
#include "config.h"

#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "lib/json_path.h"

/* A byte of a .name: ASCII letters, digits, '_', '-', and any byte of a
 * character beyond ASCII (its UTF-8 is checked where records are read). */
static bool
name_byte(unsigned char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	       (c >= '0' && c <= '9') || c == '_' || c == '-' || c >= 0x80;
}

static int
refuse(size_t *at, const char **why, size_t where, const char *what)
{
	*at = where;
	*why = what;
	return -EINVAL;
}

/* The quoted name of a bracket segment, its opening quote at text[i],
 * copied into out[*o...] with its '\0'. The offset past the closing
 * quote, or 0 with *at and *why. */
static size_t
quoted_name(const char *text, size_t len, size_t i, char *out, size_t *o,
	    size_t *at, const char **why)
{
	char quote = text[i++];

	for (; i < len && text[i] != quote; i++) {
		if (text[i] == '\\') {
			if (i + 1 == len ||
			    (text[i + 1] != quote && text[i + 1] != '\\')) {
				refuse(at, why, i,
				       "only \\' and \\\\ (or \\\" inside "
				       "double "
				       "quotes) are escapes in a name");
				return 0;
			}
			i++;
		}
		out[(*o)++] = text[i];
	}
	if (i == len) {
		refuse(at, why, i, "expected a quote closing the name");
		return 0;
	}
	out[(*o)++] = '\0';
	return i + 1;
}

int
wm_json_path_parse(const char *text, size_t len, struct wm_json_path *path,
		   size_t *used, size_t *at, const char **why)
{
	char *names;
	size_t i = 1, o = 0;
	uint32_t n = 0;

	*path = (struct wm_json_path){0};
	if (len == 0 || text[0] != '$')
		return refuse(at, why, 0, "a path starts with $");
	/* The names are never longer than their text. */
	names = malloc(len + 1);
	if (names == NULL)
		return -ENOMEM;
	for (;;) {
		size_t start = o;

		if (i + 1 < len && text[i] == '.' && text[i + 1] == '.') {
			free(names);
			return refuse(at, why, i,
				      "recursive descent (..) is not read: "
				      "name every member on the way");
		}
		if (i < len && text[i] == '.') {
			for (i++; i < len && name_byte((unsigned char)text[i]);
			     i++)
				names[o++] = text[i];
			if (o == start) {
				free(names);
				return refuse(at, why, i,
					      "expected a name after '.' "
					      "(letters, digits, '_' or '-'; "
					      "['name'] for any other)");
			}
			names[o++] = '\0';
		} else if (i < len && text[i] == '[') {
			if (i + 1 == len ||
			    (text[i + 1] != '\'' && text[i + 1] != '"')) {
				free(names);
				return refuse(
					at, why, i + 1,
					"expected a quoted name after '[' "
					"(indexes, wildcards and filters "
					"are not read)");
			}
			i = quoted_name(text, len, i + 1, names, &o, at, why);
			if (i == 0) {
				free(names);
				return -EINVAL;
			}
			if (i == len || text[i] != ']') {
				free(names);
				return refuse(at, why, i,
					      "expected ']' after the name");
			}
			i++;
		} else {
			break;
		}
		n++;
	}
	if (n == 0 || (i < len && text[i] == '*')) {
		free(names);
		return refuse(at, why, i,
			      "expected .name or ['name'] (a path names one "
			      "member; wildcards are not read)");
	}
	path->text = strndup(text, i);
	if (path->text == NULL) {
		free(names);
		return -ENOMEM;
	}
	path->names = names;
	path->n = n;
	*used = i;
	return 0;
}

void
wm_json_path_free(struct wm_json_path *path)
{
	free(path->names);
	free(path->text);
	*path = (struct wm_json_path){0};
}
