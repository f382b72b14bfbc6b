/*
 * plugins.c
 *	[job] plugin = PATH, a source's watermark = plugin:NAME(ARGS) and a
 *	window's aggregates = plugin:NAME(ARGS): the shared library of a
 *	user's watermark generators and aggregate functions
 *	(wmrun/plugin.h), loaded and checked where the topology names it,
 *	so that every failure is an error at its file:line:col.
 *
 * A plugin is code that runs in the job's processes, so the file is
 * refused unless only its owner can change it: a regular file owned by
 * the user or root, writable by neither group nor others, named by a
 * path (a bare name would send dlopen() through the system's library
 * paths), or `wmrun:NAME` for a plugin shipped with wmrun: plugins/ in
 * the build tree of the running wmrun, else where `make install` put
 * them (WM_PLUGIN_DIR). It is opened with RTLD_NOW (every symbol resolved now, not at
 * a first call in a worker) and RTLD_LOCAL, once per topology, and stays
 * loaded while the topology lives: the workers, forked from the process
 * that loaded it, call into the same mapping.
 */
#include "config.h"

#include <dlfcn.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "runtime/conf/loader.h"
#include "runtime/conf/topology.h"
#include "wmrun/plugin.h"

#ifndef WM_PLUGIN_DIR /* a build that did not say (the fuzzers') */
#define WM_PLUGIN_DIR "/usr/local/lib/wmrun/plugins"
#endif

/*
 * The path of wmrun's own plugin `name` (e's value after "wmrun:") into
 * path: plugins/libNAME.so beside the running wmrun (a build tree's),
 * else in WM_PLUGIN_DIR. 0, or the error at e.
 */
static int
shipped_plugin(struct loader *l, struct wm_ini_entry *e, const char *name,
	       char *path, size_t len)
{
	char exe[4096];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	char *slash;

	if (name[0] == '\0' || strspn(name, "abcdefghijklmnopqrstuvwxyz"
					    "0123456789_") != strlen(name))
		return wm_conf_bad_value_at(l, e, strlen("wmrun:"),
					    "a plugin shipped with wmrun is "
					    "named by letters, digits and '_'");
	if (n > 0) {
		exe[n] = '\0';
		slash = strrchr(exe, '/');
		if (slash != NULL) {
			*slash = '\0';
			snprintf(path, len, "%s/plugins/lib%s.so", exe, name);
			if (access(path, F_OK) == 0)
				return 0;
		}
	}
	snprintf(path, len, "%s/lib%s.so", WM_PLUGIN_DIR, name);
	return 0;
}

/* The library at e's path, checked and opened into job->plugin. */
static int
open_plugin(struct loader *l, struct wm_ini_entry *e, struct wm_job_conf *job)
{
	const struct wmrun_plugin *(*entry)(void);
	const struct wmrun_plugin *p;
	const char *file = e->value;
	char shipped[4200];
	struct stat st;
	char why[4400];
	int r;

	if (strncmp(file, "wmrun:", 6) == 0) {
		if ((r = shipped_plugin(l, e, file + 6, shipped,
					sizeof(shipped))) != 0)
			return r;
		file = shipped;
	} else if (strchr(file, '/') == NULL) {
		return wm_conf_bad_value(l, e,
					 "give the plugin's path (./NAME.so), "
					 "not a name the system's library "
					 "paths would find (wmrun:NAME for one "
					 "shipped with wmrun)");
	}
	if (stat(file, &st) != 0) {
		snprintf(why, sizeof(why), "cannot read the plugin %s: %s",
			 file, strerror(errno));
		return wm_conf_bad_value(l, e, why);
	}
	if (!S_ISREG(st.st_mode))
		return wm_conf_bad_value(l, e, "the plugin is no regular file");
	if ((st.st_uid != getuid() && st.st_uid != 0) ||
	    (st.st_mode & (S_IWGRP | S_IWOTH)) != 0)
		return wm_conf_bad_value(
			l, e,
			"the plugin can be changed by another user (it must "
			"be yours or root's, and writable by neither group "
			"nor others): its code would run in this job");
	job->plugin_handle = dlopen(file, RTLD_NOW | RTLD_LOCAL);
	if (job->plugin_handle == NULL) {
		snprintf(why, sizeof(why), "cannot load the plugin: %s",
			 dlerror());
		return wm_conf_bad_value(l, e, why);
	}
	*(void **)&entry = dlsym(job->plugin_handle, "wmrun_plugin");
	if (entry == NULL)
		return wm_conf_bad_value(l, e,
					 "the library exports no "
					 "wmrun_plugin() (wmrun/plugin.h)");
	p = entry();
	if (p == NULL)
		return wm_conf_bad_value(l, e,
					 "its wmrun_plugin() gave nothing");
	if (p->abi != WMRUN_PLUGIN_ABI) {
		snprintf(why, sizeof(why),
			 "the plugin was built for plugin ABI %u, this wmrun "
			 "has %u: build it again against this wmrun's "
			 "wmrun/plugin.h",
			 p->abi, WMRUN_PLUGIN_ABI);
		return wm_conf_bad_value(l, e, why);
	}
	for (uint32_t i = 0; i < p->n_generators; i++) {
		const struct wmrun_watermark_generator *g = &p->generators[i];

		if (g->name == NULL || g->create == NULL ||
		    g->on_event == NULL || g->on_periodic_emit == NULL) {
			snprintf(why, sizeof(why),
				 "the plugin's watermark generator %u lacks "
				 "its name, create, on_event or "
				 "on_periodic_emit",
				 i + 1);
			return wm_conf_bad_value(l, e, why);
		}
	}
	for (uint32_t i = 0; i < p->n_aggregates; i++) {
		const struct wmrun_aggregate_function *a = &p->aggregates[i];

		if (a->name == NULL || a->name[0] == '\0' ||
		    strlen(a->name) > WM_PLUGIN_NAME_MAX ||
		    strspn(a->name, "abcdefghijklmnopqrstuvwxyz"
				    "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_") !=
			    strlen(a->name)) {
			snprintf(why, sizeof(why),
				 "the plugin's aggregate function %u is not "
				 "named by 1 to %d letters, digits and '_' "
				 "(its name heads a column of results)",
				 i + 1, WM_PLUGIN_NAME_MAX);
			return wm_conf_bad_value(l, e, why);
		}
		if (a->create == NULL || a->create_accumulator == NULL ||
		    a->add == NULL || a->merge == NULL || a->result == NULL ||
		    a->snapshot == NULL || a->restore == NULL ||
		    a->result_type > WMRUN_RESULT_DOUBLE) {
			snprintf(why, sizeof(why),
				 "the plugin's aggregate function %u lacks "
				 "its name, create, create_accumulator, add, "
				 "merge, result, snapshot or restore, or has "
				 "a result type wmrun does not know",
				 i + 1);
			return wm_conf_bad_value(l, e, why);
		}
	}
	job->plugin = p;
	return 0;
}

int
wm_conf_load_plugin(struct loader *l, struct wm_ini_section *sec,
		    struct wm_job_conf *job)
{
	struct wm_ini_entry *e = wm_conf_lookup(l, sec, "plugin");

	return e != NULL ? open_plugin(l, e, job) : 0;
}

/*
 * NAME and ARGS of `plugin:NAME` or `plugin:NAME(ARGS)` (text, the value
 * of e from column `at`): *name and *name_len, *args a copy of ARGS
 * ("" without them) to free, *args_at its column. 0, -ENOMEM, or the
 * error at e.
 */
static int
split_call(struct loader *l, struct wm_ini_entry *e, size_t at,
	   const char *text, const char **name, size_t *name_len, char **args,
	   size_t *args_at)
{
	const char *open;

	if (l->t->job.plugin == NULL)
		return wm_conf_bad_value_at(l, e, at,
					    "no plugin is loaded: name its "
					    "library in [job] plugin = PATH");
	*name = text + strlen("plugin:");
	*name_len = strcspn(*name, "(");
	open = *name + *name_len;
	*args_at = at + (size_t)(open - text);
	if (*open == '(' &&
	    (open[strlen(open) - 1] != ')' || strchr(open + 1, '(') != NULL))
		return wm_conf_bad_value_at(l, e, *args_at,
					    "expected plugin:NAME(ARGS), the "
					    "arguments closed at the end");
	*args = *open == '(' ? strndup(open + 1, strlen(open) - 2) : strdup("");
	return *args == NULL ? -ENOMEM : 0;
}

/*
 * `watermark = plugin:NAME` or `plugin:NAME(ARGS)` (e, whose value starts
 * with "plugin:"): NAME one of the plugin's generators, ARGS what it is
 * created with, which it must take (one is made and destroyed here).
 */
int
wm_conf_load_plugin_watermark(struct loader *l, struct wm_ini_entry *e,
			      struct wm_watermark_strategy *s)
{
	const struct wmrun_plugin *p;
	const char *name;
	size_t len, args_at;
	char why[600];
	char *args;
	void *probe;
	int r;

	if ((r = split_call(l, e, 0, e->value, &name, &len, &args, &args_at)) !=
	    0)
		return r;
	p = l->t->job.plugin;
	for (uint32_t i = 0; i < p->n_generators; i++) {
		const struct wmrun_watermark_generator *g = &p->generators[i];

		if (strlen(g->name) != len || strncmp(g->name, name, len) != 0)
			continue;
		free((char *)s->plugin_args);
		s->plugin_args = args;
		probe = g->create(s->plugin_args);
		if (probe == NULL) {
			snprintf(why, sizeof(why),
				 "the plugin's generator %s refuses the "
				 "arguments \"%.200s\"",
				 g->name, s->plugin_args);
			return wm_conf_bad_value_at(l, e, args_at, why);
		}
		if (g->destroy != NULL)
			g->destroy(probe);
		s->kind = WM_WATERMARK_PLUGIN;
		s->plugin = g;
		return 0;
	}
	free(args);
	snprintf(why, sizeof(why), "the plugin has no watermark generator %.*s",
		 (int)(len < 100 ? len : 100), name);
	return wm_conf_bad_value_at(l, e, strlen("plugin:"), why);
}

int
wm_conf_load_plugin_aggregate(struct loader *l, struct wm_ini_entry *e,
			      size_t at, const char *text,
			      struct wm_window_config *w)
{
	const struct wmrun_plugin *p;
	const char *name;
	size_t len, args_at;
	char why[600];
	char *args;
	void *probe;
	int r;

	if ((r = split_call(l, e, at, text, &name, &len, &args, &args_at)) != 0)
		return r;
	p = l->t->job.plugin;
	if (w->n_plugin_aggregates == WM_WINDOW_PLUGIN_AGGREGATES) {
		free(args);
		snprintf(why, sizeof(why),
			 "a window has at most %u plugin aggregates",
			 WM_WINDOW_PLUGIN_AGGREGATES);
		return wm_conf_bad_value_at(l, e, at, why);
	}
	for (uint32_t i = 0; i < p->n_aggregates; i++) {
		const struct wmrun_aggregate_function *a = &p->aggregates[i];
		struct wm_window_plugin_aggregate *to;

		if (strlen(a->name) != len || strncmp(a->name, name, len) != 0)
			continue;
		probe = a->create(args);
		if (probe == NULL) {
			snprintf(why, sizeof(why),
				 "the plugin's aggregate function %s refuses "
				 "the arguments \"%.200s\"",
				 a->name, args);
			free(args);
			return wm_conf_bad_value_at(l, e, args_at, why);
		}
		if (a->destroy != NULL)
			a->destroy(probe);
		to = &w->plugin_aggregates[w->n_plugin_aggregates++];
		to->fn = a;
		to->args = args;
		return 0;
	}
	free(args);
	snprintf(why, sizeof(why), "the plugin has no aggregate function %.*s",
		 (int)(len < 100 ? len : 100), name);
	return wm_conf_bad_value_at(l, e, at + strlen("plugin:"), why);
}

void
wm_conf_close_plugin(struct wm_job_conf *job)
{
	if (job->plugin_handle != NULL)
		dlclose(job->plugin_handle);
	job->plugin_handle = NULL;
	job->plugin = NULL;
}
