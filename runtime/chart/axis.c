/*
 * axis.c
 *	Human ticks and labels of time, durations and counts (axis.h).
 */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <time.h>

#include "runtime/chart/axis.h"

#define SECOND 1000.0
#define MINUTE (60 * SECOND)
#define HOUR (60 * MINUTE)
#define DAY (24 * HOUR)
/* From here on a clock value is taken for an epoch time and shown as a
 * date: a job's own processing time never runs for a year. */
#define EPOCH_FROM (365 * DAY)

/* The steps of time people count in, ascending; past the last, whole
 * multiples of it by 1-2-5. */
static const double time_steps[] = {
	1,	     2,		  5,	       10,	20,	    50,
	100,	     200,	  500,	       SECOND,	2 * SECOND, 5 * SECOND,
	10 * SECOND, 15 * SECOND, 30 * SECOND, MINUTE,	2 * MINUTE, 5 * MINUTE,
	10 * MINUTE, 15 * MINUTE, 30 * MINUTE, HOUR,	2 * HOUR,   3 * HOUR,
	6 * HOUR,    12 * HOUR,	  DAY,	       2 * DAY, 7 * DAY,    14 * DAY,
	28 * DAY,
};

/* The i-th step of 1, 2, 5, 10, 20, ... times `base`. */
static double
one_two_five(int i, double base)
{
	static const double m[] = {1, 2, 5};
	int decade = i >= 0 ? i / 3 : (i - 2) / 3;

	return base * m[i - decade * 3] * pow(10.0, decade);
}

/* The smallest step of `kind` that puts at most `most` ticks in `span`. */
static double
pick_step(enum wm_axis_kind kind, double span, unsigned most)
{
	double want = span / (double)(most - 1);

	if (kind == WM_AXIS_CLOCK || kind == WM_AXIS_DURATION) {
		size_t n = sizeof(time_steps) / sizeof(time_steps[0]);

		for (size_t i = 0; i < n; i++)
			if (time_steps[i] >= want)
				return time_steps[i];
		for (int i = 0;; i++)
			if (one_two_five(i, time_steps[n - 1]) >= want)
				return one_two_five(i, time_steps[n - 1]);
	}
	/* Counts and ratios: 1-2-5 from far below 1 (a ratio of 0.1%). */
	for (int i = -12;; i++)
		if (one_two_five(i, 1.0) >= want)
			return one_two_five(i, 1.0);
}

double
wm_axis_step(enum wm_axis_kind kind, double at_least)
{
	return pick_step(kind, at_least, 2);
}

void
wm_axis_ticks(enum wm_axis_kind kind, double lo, double hi, unsigned most,
	      struct wm_axis_ticks *out)
{
	double step, first;

	if (most < 2)
		most = 2;
	if (most > WM_AXIS_MAX_TICKS)
		most = WM_AXIS_MAX_TICKS;
	out->n = 0;
	out->step = 1;
	if (!(hi > lo)) {
		out->at[out->n++] = lo;
		return;
	}
	step = pick_step(kind, hi - lo, most);
	out->step = step;
	first = ceil(lo / step) * step;
	for (double v = first; v <= hi + step * 1e-9 && out->n < most;
	     v = first + step * out->n)
		out->at[out->n++] = v;
}

/* "1.5" from 1.5, "8" from 8.0: one decimal, none if it is 0. */
static void
trim_number(double v, const char *unit, char *buf, size_t len)
{
	double r = round(v * 10.0) / 10.0;

	if (r == floor(r))
		snprintf(buf, len, "%.0f%s%s", r, *unit ? " " : "", unit);
	else
		snprintf(buf, len, "%.1f%s%s", r, *unit ? " " : "", unit);
}

char *
wm_axis_duration(double ms, char *buf, size_t len)
{
	double a = fabs(ms);

	if (a >= DAY)
		trim_number(ms / DAY, "d", buf, len);
	else if (a >= HOUR)
		trim_number(ms / HOUR, "h", buf, len);
	else if (a >= MINUTE)
		trim_number(ms / MINUTE, "min", buf, len);
	else if (a >= SECOND)
		trim_number(ms / SECOND, "s", buf, len);
	else
		trim_number(ms, "ms", buf, len);
	return buf;
}

/* An epoch time in ms as a UTC date, as fine as the step needs. */
static void
date_label(double v, double step, char *buf, size_t len)
{
	time_t secs = (time_t)floor(v / SECOND);
	struct tm tm;
	size_t n = 0;

	if (gmtime_r(&secs, &tm) != NULL) {
		if (step >= DAY)
			n = strftime(buf, len, "%Y-%m-%d", &tm);
		else if (step >= MINUTE)
			n = strftime(buf, len, "%Y-%m-%d %H:%M", &tm);
		else
			n = strftime(buf, len, "%H:%M:%S", &tm);
	}
	if (n == 0)
		snprintf(buf, len, "%.0f", v);
}

/* A moment of a job's time since its start: hours and minutes, seconds
 * when the step needs them, days past the first. */
static void
clock_label(double v, double step, char *buf, size_t len)
{
	const char *sign = v < 0 ? "-" : "";
	double a = fabs(v);
	long long days = (long long)(a / DAY);
	double rest = a - (double)days * DAY;
	long long h = (long long)(rest / HOUR);
	long long m = (long long)((rest - (double)h * HOUR) / MINUTE);
	double s = rest - (double)h * HOUR - (double)m * MINUTE;
	char day[32] = "";

	if (days > 0)
		snprintf(day, sizeof(day), "%lldd ", days);
	if (step >= MINUTE)
		snprintf(buf, len, "%s%s%02lld:%02lld", sign, day, h, m);
	else if (step >= SECOND)
		snprintf(buf, len, "%s%s%02lld:%02lld:%02.0f", sign, day, h, m,
			 floor(s / SECOND));
	else if (a < MINUTE)
		snprintf(buf, len, "%s%.3f s", sign, a / SECOND);
	else
		snprintf(buf, len, "%s%s%02lld:%02lld:%06.3f", sign, day, h, m,
			 s / SECOND);
}

char *
wm_axis_label(enum wm_axis_kind kind, double v, double step, char *buf,
	      size_t len)
{
	switch (kind) {
	case WM_AXIS_CLOCK:
		if (fabs(v) >= EPOCH_FROM)
			date_label(v, step, buf, len);
		else
			clock_label(v, step, buf, len);
		break;
	case WM_AXIS_DURATION:
		wm_axis_duration(v, buf, len);
		break;
	case WM_AXIS_COUNT:
		if (fabs(v) >= 1e4) {
			char n[32];

			trim_number(fabs(v) >= 1e6 ? v / 1e6 : v / 1e3, "", n,
				    sizeof(n));
			snprintf(buf, len, "%s%s", n,
				 fabs(v) >= 1e6 ? "M" : "k");
		} else if (step >= 1 || v == floor(v))
			snprintf(buf, len, "%.0f", v);
		else
			snprintf(buf, len, "%g", v);
		break;
	case WM_AXIS_NONE:
		buf[0] = '\0';
		break;
	case WM_AXIS_RATIO: {
		/* As many decimals as the step needs: 0.02% steps read
		 * 0.02%, 0.04%, not 0.0% twice. */
		int decimals = 0;

		for (double pct = step * 100.0;
		     v != 0 && pct > 0 && pct < 0.999 && decimals < 4;
		     pct *= 10)
			decimals++;
		snprintf(buf, len, "%.*f%%", decimals, v * 100.0);
		break;
	}
	}
	return buf;
}
