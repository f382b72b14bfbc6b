/*
 * set_keys.h
 *	Keys of a topology set on the command line: `--set SECTION.KEY=VALUE`,
 *	fio's --key=value and Flink's -Dkey=value for a wmrun job.
 *
 * SECTION is "job", "global" or a stage's name (as --sweep names them;
 * it ends at the first '.', so a stage whose name holds a dot cannot be
 * named), KEY a key that section's kind takes, VALUE anything (commas and
 * '=' included, as the file would have it unquoted). A setting goes into
 * the parsed document (wm_ini_set()): it replaces the key's value where
 * the section has the key, else adds it; a [job] or [global] the file
 * lacks is added. The loader then holds it to every rule a file's value
 * is held to, and a message about it names the option ("--set
 * events.idle_timeout=0: invalid value ..."), not a line; the file's
 * lines keep their numbers. Later settings of the same key win.
 */
#ifndef WM_RUNTIME_CONF_SET_KEYS_H
#define WM_RUNTIME_CONF_SET_KEYS_H

#include <stddef.h>

#include "runtime/conf/ini.h"

struct wm_key_setting {
	char *option; /* "--set ARG", for messages */
	char *section;
	char *key;
	char *value;
};

/* ARG ("SECTION.KEY=VALUE") into *s (free with wm_key_setting_free()):
 * 0; -EINVAL with a message in err for another shape; -ENOMEM. */
int wm_key_setting_parse(const char *arg, struct wm_key_setting *s, char *err,
			 size_t errlen);
void wm_key_setting_free(struct wm_key_setting *s);

/* Apply the `n` settings to `doc`, in order: 0, or -EINVAL with *err
 * about the setting (its file the option, no line: a stage the document
 * lacks, a key the section's kind does not take, a key the section gives
 * more than once), or -ENOMEM. */
int wm_key_settings_apply(struct wm_ini_doc *doc,
			  const struct wm_key_setting *s, size_t n,
			  struct wm_ini_error *err);

#endif /* WM_RUNTIME_CONF_SET_KEYS_H */
