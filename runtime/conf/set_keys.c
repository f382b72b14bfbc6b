/*
 * set_keys.c
 *	Keys of a topology set on the command line (set_keys.h).
 */
#include "config.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "runtime/conf/set_keys.h"
#include "runtime/conf/topology.h"

int
wm_key_setting_parse(const char *arg, struct wm_key_setting *s, char *err,
		     size_t errlen)
{
	const char *dot = strchr(arg, '.');
	const char *eq = strchr(arg, '=');
	char q[WM_INI_QUOTE_MAX];

	*s = (struct wm_key_setting){0};
	if (dot == NULL || eq == NULL || dot > eq || dot == arg ||
	    dot + 1 == eq) {
		snprintf(err, errlen,
			 "invalid --set %s: expected SECTION.KEY=VALUE",
			 wm_ini_quote(q, sizeof(q), arg));
		return -EINVAL;
	}
	if (asprintf(&s->option, "--set %s", arg) < 0)
		s->option = NULL;
	s->section = strndup(arg, (size_t)(dot - arg));
	s->key = strndup(dot + 1, (size_t)(eq - dot - 1));
	s->value = strdup(eq + 1);
	if (s->option == NULL || s->section == NULL || s->key == NULL ||
	    s->value == NULL) {
		wm_key_setting_free(s);
		return -ENOMEM;
	}
	return 0;
}

void
wm_key_setting_free(struct wm_key_setting *s)
{
	free(s->option);
	free(s->section);
	free(s->key);
	free(s->value);
	*s = (struct wm_key_setting){0};
}

/* One setting into doc: 0, or -EINVAL/-ENOMEM with err filled. */
static int
apply(struct wm_ini_doc *doc, const struct wm_key_setting *s,
      struct wm_ini_error *err)
{
	const struct wm_ini_section *sec =
		wm_topology_section_named(doc, s->section);
	const char *kind = sec != NULL ? sec->kind : s->section;
	const char *suggest;
	char q[WM_INI_QUOTE_MAX];
	int r;

	if (sec == NULL && !wm_topology_section_word(s->section)) {
		wm_ini_error_set(err, s->option, 0, 0,
				 "the topology has no stage named %s (SECTION "
				 "is job, global or a stage's name)",
				 wm_ini_quote(q, sizeof(q), s->section));
		return -EINVAL;
	}
	if (!wm_topology_key_known(kind, s->key, &suggest)) {
		wm_ini_error_set(err, s->option, 0, 0,
				 "unrecognized key %s for %s %s%s%s%s",
				 wm_ini_quote(q, sizeof(q), s->key), kind,
				 s->section, suggest ? " (did you mean \"" : "",
				 suggest ? suggest : "", suggest ? "\"?)" : "");
		return -EINVAL;
	}
	r = wm_ini_set(doc, kind, sec != NULL ? sec->name : NULL, s->key,
		       s->value, s->option);
	if (r == -EEXIST)
		wm_ini_error_set(err, s->option, 0, 0,
				 "key %s is given more than once in %s: only "
				 "a key given at most once can be set",
				 wm_ini_quote(q, sizeof(q), s->key),
				 s->section);
	else if (r == -ENOMEM)
		wm_ini_error_set(err, s->option, 0, 0, "out of memory");
	return r == -EEXIST ? -EINVAL : r;
}

int
wm_key_settings_apply(struct wm_ini_doc *doc, const struct wm_key_setting *s,
		      size_t n, struct wm_ini_error *err)
{
	for (size_t i = 0; i < n; i++) {
		int r = apply(doc, &s[i], err);

		if (r != 0)
			return r;
	}
	return 0;
}
