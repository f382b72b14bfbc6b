/*
 * restart_keys.c
 *	The restart keys of [job]: Flink's restart strategy
 *	(runtime/restart/restart_strategy.h) and its parameters, e.g.
 *
 *	    restart_strategy = fixed-delay       # restart-strategy.type
 *	    restart_attempts = 3                 # fixed-delay.attempts
 *	    restart_delay = 10 s                 # fixed-delay.delay
 *
 * restart_strategy is none, fixed-delay or exponential-delay; without it
 * the job runs Flink's default with checkpointing enabled,
 * exponential-delay with Flink's defaults. Each parameter belongs to
 * strategies of its own, and one given to another strategy is refused at
 * its key, naming both: a key that did nothing would be a lie. A restart
 * restores a checkpoint, so every key needs checkpoints (checkpoint_interval
 * and checkpoint_dir), as fail_at does.
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>

#include "runtime/conf/loader.h"

/* The strategies a parameter belongs to, as bits of enum wm_restart_kind. */
#define FIXED (1u << WM_RESTART_FIXED_DELAY)
#define EXPONENTIAL (1u << WM_RESTART_EXPONENTIAL_DELAY)

/* Flink's names, by enum wm_restart_kind (the header's: this library
 * links none of runtime/restart/). */
static const char *const kind_names[] = WM_RESTART_KIND_NAMES;

static const struct restart_key {
	const char *key;
	unsigned kinds;
} restart_keys[] = {
	{"restart_attempts", FIXED | EXPONENTIAL},
	{"restart_delay", FIXED},
	{"restart_initial_delay", EXPONENTIAL},
	{"restart_max_delay", EXPONENTIAL},
	{"restart_multiplier", EXPONENTIAL},
	{"restart_reset_threshold", EXPONENTIAL},
	{"restart_jitter", EXPONENTIAL},
};

/* The strategies of `kinds` as "fixed-delay or exponential-delay". */
static void
kinds_text(unsigned kinds, char *buf, size_t len)
{
	const char *sep = "";
	size_t n = 0;

	buf[0] = '\0';
	for (unsigned k = WM_RESTART_NONE; k <= WM_RESTART_EXPONENTIAL_DELAY;
	     k++)
		if (kinds & (1u << k) && n < len) {
			n += (size_t)snprintf(buf + n, len - n, "%s%s", sep,
					      kind_names[k]);
			sep = " or ";
		}
}

/* Every parameter given belongs to `kind`; the first that does not is
 * refused at its key. */
static int
refuse_foreign(struct loader *l, struct wm_ini_section *sec,
	       enum wm_restart_kind kind, bool kind_given)
{
	char owners[64], label[WM_INI_QUOTE_MAX];

	for (size_t i = 0; i < N_ELEMS(restart_keys); i++) {
		struct wm_ini_entry *e =
			wm_conf_lookup(l, sec, restart_keys[i].key);

		if (e == NULL || restart_keys[i].kinds & (1u << kind))
			continue;
		kinds_text(restart_keys[i].kinds, owners, sizeof(owners));
		wm_ini_error_at(
			l->err, l->file, e, e->key_col,
			"key \"%s\" in %s belongs to restart_strategy = %s, "
			"not to %s%s",
			e->key, wm_ini_section_label(label, sizeof(label), sec),
			owners, kind_names[kind],
			kind_given ? "" : " (the default with checkpoints)");
		return -EINVAL;
	}
	return 0;
}

/* The first restart key given, in the file's order; NULL: none. */
static struct wm_ini_entry *
first_restart_key(struct loader *l, struct wm_ini_section *sec)
{
	struct wm_ini_entry *first = wm_conf_lookup(l, sec, "restart_strategy");

	for (size_t i = 0; i < N_ELEMS(restart_keys); i++) {
		struct wm_ini_entry *e =
			wm_conf_lookup(l, sec, restart_keys[i].key);

		if (e != NULL && (first == NULL || e->line < first->line))
			first = e;
	}
	return first;
}

/* The exponential-delay parameters, each where it stands; then
 * initial <= max at the later of the two given. */
static int
load_exponential(struct loader *l, struct wm_ini_section *sec,
		 struct wm_restart_config *c)
{
	struct wm_ini_entry *initial, *max, *e;
	int r;

	if ((r = wm_conf_get_duration(l, sec, "restart_initial_delay", true,
				      &c->initial_delay_ms)) != 0 ||
	    (r = wm_conf_get_duration(l, sec, "restart_max_delay", true,
				      &c->max_delay_ms)) != 0 ||
	    (r = wm_conf_get_duration(l, sec, "restart_reset_threshold", true,
				      &c->reset_threshold_ms)) != 0 ||
	    (r = wm_conf_get_number(l, sec, "restart_jitter", 0, 1,
				    &c->jitter)) != 0 ||
	    (r = wm_conf_get_number(l, sec, "restart_multiplier", 1, 1e9,
				    &c->multiplier)) != 0)
		return r;
	e = wm_conf_lookup(l, sec, "restart_multiplier");
	if (e != NULL && !(c->multiplier > 1))
		return wm_conf_bad_value(l, e, "must be greater than 1");
	if (c->initial_delay_ms <= c->max_delay_ms)
		return 0;
	initial = wm_conf_lookup(l, sec, "restart_initial_delay");
	max = wm_conf_lookup(l, sec, "restart_max_delay");
	e = max == NULL || (initial != NULL && initial->line > max->line)
		    ? initial
		    : max;
	return wm_conf_bad_value(l, e,
				 "restart_initial_delay cannot be longer "
				 "than restart_max_delay");
}

int
wm_conf_load_restart(struct loader *l, struct wm_ini_section *sec,
		     struct wm_job_conf *job)
{
	struct wm_restart_config *c = &job->restart;
	struct wm_ini_entry *first = first_restart_key(l, sec);
	size_t idx = WM_RESTART_EXPONENTIAL_DELAY;
	uint64_t attempts;
	int r;

	/* Flink's default with checkpointing enabled; without, none. */
	*c = wm_restart_config_default(job->checkpoint_interval_ms != INT64_MAX
					       ? WM_RESTART_EXPONENTIAL_DELAY
					       : WM_RESTART_NONE);
	if (first == NULL)
		return 0;
	if (job->checkpoint_interval_ms == INT64_MAX)
		return wm_conf_bad_value(
			l, first,
			"a restart needs checkpoints: checkpoint_interval "
			"and checkpoint_dir in [job]");
	if ((r = wm_conf_get_enum(l, sec, "restart_strategy", kind_names,
				  N_ELEMS(kind_names), &idx)) != 0)
		return r;
	*c = wm_restart_config_default((enum wm_restart_kind)idx);
	r = refuse_foreign(l, sec, c->kind,
			   wm_conf_lookup(l, sec, "restart_strategy") != NULL);
	if (r != 0 || c->kind == WM_RESTART_NONE)
		return r;
	attempts = c->attempts;
	if ((r = wm_conf_get_count(
		     l, sec, "restart_attempts",
		     c->kind == WM_RESTART_EXPONENTIAL_DELAY ? 1 : 0,
		     WM_RESTART_ATTEMPTS_UNLIMITED, &attempts)) != 0)
		return r;
	c->attempts = (uint32_t)attempts;
	if (c->kind == WM_RESTART_FIXED_DELAY)
		return wm_conf_get_duration(l, sec, "restart_delay", false,
					    &c->delay_ms);
	return load_exponential(l, sec, c);
}
