/*
 * cpulist.c
 *	CPU lists in Linux's cpulist syntax (cpulist.h).
 */
#include "config.h"

#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>

#include "runtime/conf/cpulist.h"

/* Parse a CPU number at *s; false if there is none or it is too big. */
static bool
parse_cpu(const char **s, unsigned long *out)
{
	const char *c = *s;
	unsigned long v = 0;

	if (*c < '0' || *c > '9')
		return false;
	while (*c >= '0' && *c <= '9') {
		v = v * 10 + (unsigned long)(*c - '0');
		if (v > UINT_MAX)
			return false;
		c++;
	}
	*s = c;
	*out = v;
	return true;
}

/*
 * Walk the list "a-b,c,..."; with cpus NULL only check it and count the
 * CPUs, else store them (the caller checked the count). Linux's
 * bitmap_parselist() also has strides ("0-7:2"); they are refused here.
 */
int
wm_cpulist_parse(const char *list, unsigned *cpus, uint64_t *count, char *err,
		 size_t errlen)
{
	const char *s = list;

	*count = 0;
	for (;;) {
		const char *item = s;
		unsigned long lo, hi;

		if (!parse_cpu(&s, &lo)) {
			snprintf(err, errlen,
				 "invalid CPU list \"%s\": expected a "
				 "CPU number at character %zu",
				 list, (size_t)(s - list) + 1);
			return -EINVAL;
		}
		hi = lo;
		if (*s == '-') {
			s++;
			if (!parse_cpu(&s, &hi)) {
				snprintf(err, errlen,
					 "invalid CPU list \"%s\": "
					 "expected a CPU number at "
					 "character %zu",
					 list, (size_t)(s - list) + 1);
				return -EINVAL;
			}
			if (hi < lo) {
				snprintf(err, errlen,
					 "invalid CPU list \"%s\": "
					 "range \"%.*s\" descends",
					 list, (int)(s - item), item);
				return -EINVAL;
			}
		}
		if (cpus != NULL)
			for (; lo <= hi; lo++)
				cpus[(*count)++] = (unsigned)lo;
		else
			*count += hi - lo + 1;
		if (*s == '\0')
			return 0;
		if (*s != ',') {
			snprintf(err, errlen,
				 "invalid CPU list \"%s\": unexpected "
				 "\"%c\" at character %zu",
				 list, *s, (size_t)(s - list) + 1);
			return -EINVAL;
		}
		s++;
	}
}
