/*
 * json_path.h
 *	Where a member of a JSON object is: the subset of JSONPath that
 *	names one member, $ then segments, each .name or ['name'].
 *
 *	    $.payload.ts          the member "ts" of the member "payload"
 *	    $['a.b'].c            a name with a dot (or a blank, a comma, a
 *	                          quote: \' and \\ inside the quotes)
 *
 * A .name is letters, digits, '_', '-' or bytes of UTF-8 beyond ASCII; a
 * bracket takes any name, single or double quoted. Nothing else is read:
 * wildcards, array indexes, filters and recursive descent (..) are
 * refused, since a record's field is one value, found in one place.
 * Parsed once when a configuration is loaded (runtime/conf/kafka_keys.c)
 * and walked for every record (runtime/source/record_fields.c).
 */
#ifndef WM_LIB_JSON_PATH_H
#define WM_LIB_JSON_PATH_H

#include <stddef.h>
#include <stdint.h>

struct wm_json_path {
	/* The n member names, outermost first, each ended by a '\0', one
	 * after another; NULL when n is 0 (no path: the caller's own name
	 * at the top level). */
	char *names;
	uint32_t n;
	char *text; /* as written, for messages */
};

/*
 * The path at the front of text[0..len): 0 with *path filled (free it
 * with wm_json_path_free()) and *used the bytes it took, which end at the
 * first byte that cannot continue it (the caller says what may follow);
 * -EINVAL with *at the offset of the bad byte and *why what is wrong
 * ("expected .name or ['name'] after $"); -ENOMEM.
 */
int wm_json_path_parse(const char *text, size_t len, struct wm_json_path *path,
		       size_t *used, size_t *at, const char **why);

void wm_json_path_free(struct wm_json_path *path);

#endif /* WM_LIB_JSON_PATH_H */
