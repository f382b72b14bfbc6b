/*
 * behaviour.c
 *	Names of the Flink behaviour flags and parsing of a flag setting.
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "operators/behaviour.h"

static const struct {
	enum wm_behaviour_flag flag;
	const char *name;
} behaviour_names[] = {
	{WM_IDLE_MARK_ONCE, "IDLE_MARK_ONCE"},
	{WM_MUX_ALLIDLE_FLUSH_MAX, "MUX_ALLIDLE_FLUSH_MAX"},
	{WM_VALVE_FLUSH_UNCONDITIONAL, "VALVE_FLUSH_UNCONDITIONAL"},
	{WM_VALVE_REDERIVE_ON_ACTIVE, "VALVE_REDERIVE_ON_ACTIVE"},
	{WM_MUX_EMPTY_IS_IDLE, "MUX_EMPTY_IS_IDLE"},
	{WM_MUX_REACTIVATE, "MUX_REACTIVATE"},
	{WM_DRAIN_ACTIVE_BEFORE_MAX, "DRAIN_ACTIVE_BEFORE_MAX"},
};

#define N_BEHAVIOUR_NAMES (sizeof(behaviour_names) / sizeof(behaviour_names[0]))

const char *
wm_behaviour_name(enum wm_behaviour_flag flag)
{
	for (size_t i = 0; i < N_BEHAVIOUR_NAMES; i++)
		if (behaviour_names[i].flag == flag)
			return behaviour_names[i].name;
	return NULL;
}

static bool
word_is(const char *word, size_t len, const char *name)
{
	return len == strlen(name) && strncasecmp(word, name, len) == 0;
}

/* The flag one name stands for, or 0 if there is none. */
static unsigned
behaviour_flag(const char *word, size_t len)
{
	for (size_t i = 0; i < N_BEHAVIOUR_NAMES; i++)
		if (word_is(word, len, behaviour_names[i].name))
			return behaviour_names[i].flag;
	return 0;
}

/* The Flink flags a setting chooses among; other bits (the all-idle
 * policy) are not its business. */
#define ALL_FLAGS ((unsigned)WM_BEHAVIOUR_ALL)

static const struct {
	const char *name;
	unsigned flags;
} baselines[] = {
	{"flink-2.1", WM_BEHAVIOUR_FLINK_2_1},
	{"flink-2.3", WM_BEHAVIOUR_FLINK_2_3},
	{"released", WM_BEHAVIOUR_RELEASED},
	{"master", WM_BEHAVIOUR_MASTER},
};

/* The flag set a baseline's name stands for, or 0 if it names none (every
 * baseline has IDLE_MARK_ONCE, so none is 0). */
static unsigned
behaviour_baseline(const char *word, size_t len)
{
	for (size_t i = 0; i < sizeof(baselines) / sizeof(baselines[0]); i++)
		if (word_is(word, len, baselines[i].name))
			return baselines[i].flags;
	return 0;
}

int
wm_behaviour_parse(const char *text, unsigned *flags, const char **bad,
		   int *bad_len)
{
	unsigned result = *flags;
	const char *p = text;

	for (;;) {
		p += strspn(p, " \t");
		const char *word = p + (*p == '-' || *p == '+');
		const char *end = word + strcspn(word, ", \t");
		size_t len = (size_t)(end - word);
		unsigned bit = behaviour_flag(word, len);

		unsigned base = word == p ? behaviour_baseline(word, len) : 0;

		if (base != 0) {
			result = base | (result & ~ALL_FLAGS);
		} else if (bit == 0) {
			*bad = p;
			*bad_len = (int)(end - p);
			return -EINVAL;
		} else if (*p == '-') {
			result &= ~bit;
		} else {
			result |= bit;
		}
		p = end + strspn(end, " \t");
		if (*p == '\0')
			break;
		if (*p == ',')
			p++;
	}
	*flags = result;
	return 0;
}

char *
wm_behaviour_difference(unsigned flags, unsigned base, char *buf, size_t len)
{
	size_t n = 0;

	if (len == 0)
		return buf;
	buf[0] = '\0';
	for (size_t i = 0; i < N_BEHAVIOUR_NAMES; i++) {
		unsigned bit = behaviour_names[i].flag;
		int w;

		if ((flags & bit) == (base & bit))
			continue;
		w = snprintf(buf + n, len - n, "%s%c%s", n > 0 ? "," : "",
			     flags & bit ? '+' : '-', behaviour_names[i].name);
		if (w < 0 || (size_t)w >= len - n) {
			buf[n] = '\0'; /* no part of a flag */
			break;
		}
		n += (size_t)w;
	}
	return buf;
}
