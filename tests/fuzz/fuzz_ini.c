/*
 * fuzz_ini.c
 *	libFuzzer entry point for runtime/conf/ini.[ch] and
 *	lib/units.[ch], for manual runs; built by `make fuzz`, not
 *	by `make` or `make check` (check_ini's randomized tests run in
 *	`make check` instead).
 *
 * Build and run: tests/fuzz/README.md (`make fuzz`).
 *
 * Each input is parsed as a topology file; on success every value goes
 * through every unit parser, and the invariants check_ini.c asserts are
 * checked here with abort(), which libFuzzer reports with the input.
 */
#include "config.h"

#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "runtime/conf/ini.h"
#include "lib/units.h"
#include "tests/fuzz/fuzz.h"

/* Every other key may repeat, to reach both paths. */
static bool
repeat_odd(const char *kind, const char *key, void *arg)
{
	(void)kind;
	(void)arg;
	return strlen(key) % 2 == 1;
}

static void
check_values(const struct wm_ini_doc *doc)
{
	char why[WM_UNITS_WHY_MAX];
	const struct wm_ini_entry *e;
	uint64_t u;
	int64_t ms;
	double r;
	size_t i, j;
	bool b;

	for (i = 0; i < doc->n_sections; i++) {
		for (j = 0; j < doc->sections[i].n_entries; j++) {
			e = &doc->sections[i].entries[j];
			if (strlen(e->value) != e->value_len || e->line < 1 ||
			    e->key_col < 1 || e->value_col <= e->key_col)
				abort();
			if (wm_units_duration_ms(e->value, &ms, why,
						 sizeof(why)) == 0 &&
			    ms < 0)
				abort();
			if (wm_units_rate(e->value, &r, why, sizeof(why)) ==
				    0 &&
			    !(r >= 0))
				abort();
			if (wm_units_size(e->value, &u, why, sizeof(why)) ==
				    0 &&
			    u > INT64_MAX)
				abort();
			(void)wm_units_count(e->value, &u, why, sizeof(why));
			(void)wm_units_bool(e->value, &b, why, sizeof(why));
		}
	}
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct wm_ini_options opts = {.may_repeat = repeat_odd};
	struct wm_ini_doc *doc = NULL;
	struct wm_ini_error err;
	const struct wm_ini_entry *unused;
	char line[WM_INI_MSG_MAX + 64];
	int rc;

	rc = wm_ini_parse_buffer((const char *)data, size, "fuzz",
				 (size & 1) ? &opts : NULL, &doc, &err);
	if (rc != 0) {
		if (rc != -EINVAL || doc != NULL || err.line < 1 ||
		    err.col < 1 || (size_t)err.col > size + 1)
			abort();
		wm_ini_error_format(&err, line, sizeof(line));
		return 0;
	}
	check_values(doc);
	if (doc->n_sections > 0 && doc->sections[0].n_entries > 0)
		wm_ini_get(&doc->sections[0], doc->sections[0].entries[0].key);
	(void)wm_ini_first_unused(doc, &unused);
	wm_ini_free(doc);
	return 0;
}
