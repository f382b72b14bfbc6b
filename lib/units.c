/*
 * units.c
 *	Parse durations, rates, sizes, counts, booleans and names (grammar in
 *	units.h).
 *
 * Numbers are read digit by digit with explicit overflow checks, never
 * with strtol()/strtod(), which accept signs, blanks, hexadecimal,
 * exponents, "inf" and "nan" and depend on the locale.
 */
#include "config.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "base/countof.h"
#include "lib/units.h"

#define SHOW_BYTES 40 /* bytes of the value shown in a message */
#define RATE_MAX 1e15 /* records per second */

#define DURATION_HINT "(use ms, s, min, h or d)"
#define SIZE_HINT "(use B, KiB, MiB, GiB or TiB)"
#define COUNT_HINT "(use k, M or G)"

#define NS_PER_MS 1000000LL

struct unit {
	const char *label;
	int64_t factor;
};

/* Flink's TimeUtils labels; factor in nanoseconds. */
static const struct unit time_units[] = {
	{"ns", 1},
	{"nano", 1},
	{"nanos", 1},
	{"nanosecond", 1},
	{"nanoseconds", 1},
	{"\xc2\xb5s", 1000},
	{"micro", 1000},
	{"micros", 1000},
	{"microsecond", 1000},
	{"microseconds", 1000},
	{"ms", NS_PER_MS},
	{"milli", NS_PER_MS},
	{"millis", NS_PER_MS},
	{"millisecond", NS_PER_MS},
	{"milliseconds", NS_PER_MS},
	{"s", 1000 * NS_PER_MS},
	{"sec", 1000 * NS_PER_MS},
	{"secs", 1000 * NS_PER_MS},
	{"second", 1000 * NS_PER_MS},
	{"seconds", 1000 * NS_PER_MS},
	{"min", 60000 * NS_PER_MS},
	{"m", 60000 * NS_PER_MS},
	{"minute", 60000 * NS_PER_MS},
	{"minutes", 60000 * NS_PER_MS},
	{"h", 3600000 * NS_PER_MS},
	{"hour", 3600000 * NS_PER_MS},
	{"hours", 3600000 * NS_PER_MS},
	{"d", 86400000 * NS_PER_MS},
	{"day", 86400000 * NS_PER_MS},
	{"days", 86400000 * NS_PER_MS},
};

/* Flink's MemorySize labels plus IEC symbols; factor in bytes. */
static const struct unit size_units[] = {
	{"b", 1},	    {"bytes", 1},
	{"k", 1LL << 10},   {"kb", 1LL << 10},
	{"kib", 1LL << 10}, {"kibibytes", 1LL << 10},
	{"m", 1LL << 20},   {"mb", 1LL << 20},
	{"mib", 1LL << 20}, {"mebibytes", 1LL << 20},
	{"g", 1LL << 30},   {"gb", 1LL << 30},
	{"gib", 1LL << 30}, {"gibibytes", 1LL << 30},
	{"t", 1LL << 40},   {"tb", 1LL << 40},
	{"tib", 1LL << 40}, {"tebibytes", 1LL << 40},
};

/* A kind of number: its name in messages, what a minus sign gets, and
 * the units it may carry with the hint a message gives for them. */
struct quantity {
	const char *what;
	const char *negative;
	const struct unit *units;
	size_t n_units;
	const char *hint;
};

static const struct quantity durations = {
	"duration", "negative durations are not allowed", time_units,
	N_ELEMS(time_units), DURATION_HINT};
static const struct quantity rates = {"rate", "negative rates are not allowed",
				      time_units, N_ELEMS(time_units),
				      DURATION_HINT};
static const struct quantity sizes = {"size", "negative sizes are not allowed",
				      size_units, N_ELEMS(size_units),
				      SIZE_HINT};
static const struct quantity counts = {
	"count", "negative counts are not allowed", NULL, 0, NULL};
static const struct quantity numbers = {
	"number", "negative numbers are not allowed", NULL, 0, NULL};

/* ------------------------------------------------------------------ */
/* Text helpers */

static bool
is_blank(char c)
{
	return c == ' ' || c == '\t';
}

static bool
is_digit(char c)
{
	return c >= '0' && c <= '9';
}

static char
ascii_lower(char c)
{
	return c >= 'A' && c <= 'Z' ? (char)(c - 'A' + 'a') : c;
}

/* The n bytes at s equal `label`, ignoring ASCII letter case. */
static bool
label_eq(const char *s, size_t n, const char *label)
{
	size_t i;

	if (strlen(label) != n)
		return false;
	for (i = 0; i < n; i++)
		if (ascii_lower(s[i]) != label[i])
			return false;
	return true;
}

/* s in double quotes, escaped, cut after SHOW_BYTES bytes (not inside a
 * UTF-8 sequence). out must hold 4 * SHOW_BYTES + 6 bytes. */
static const char *
show(char *out, const char *s, size_t n)
{
	const unsigned char *u = (const unsigned char *)s;
	size_t o = 0, i, lim = n;

	if (lim > SHOW_BYTES) {
		lim = SHOW_BYTES;
		while (lim > 0 && (u[lim] & 0xc0) == 0x80)
			lim--;
	}
	out[o++] = '"';
	for (i = 0; i < lim; i++) {
		if (u[i] == '"' || u[i] == '\\') {
			out[o++] = '\\';
			out[o++] = (char)u[i];
		} else if (u[i] < 0x20 || u[i] == 0x7f) {
			snprintf(out + o, 5, "\\x%02x", u[i]);
			o += 4;
		} else {
			out[o++] = (char)u[i];
		}
	}
	if (lim < n) {
		memcpy(out + o, "...", 3);
		o += 3;
	}
	out[o++] = '"';
	out[o] = '\0';
	return out;
}

#define SHOW_MAX (4 * SHOW_BYTES + 6)

/* Write "invalid WHAT "VALUE": REASON" into err; returns -EINVAL. */
static int fail(char *err, size_t errlen, const char *what, const char *s,
		const char *fmt, ...) __attribute__((format(printf, 5, 6)));

static int
fail(char *err, size_t errlen, const char *what, const char *s, const char *fmt,
     ...)
{
	char shown[SHOW_MAX];
	va_list ap;
	int n;

	if (err == NULL || errlen == 0)
		return -EINVAL;
	n = snprintf(err, errlen, "invalid %s %s: ", what,
		     show(shown, s, strlen(s)));
	if (n >= 0 && (size_t)n < errlen) {
		va_start(ap, fmt);
		vsnprintf(err + n, errlen - (size_t)n, fmt, ap);
		va_end(ap);
	}
	return -EINVAL;
}

/* The value without surrounding blanks: [*b, *e). */
static void
trim(const char *s, size_t *b, size_t *e)
{
	size_t i = 0, n = strlen(s);

	while (i < n && is_blank(s[i]))
		i++;
	while (n > i && is_blank(s[n - 1]))
		n--;
	*b = i;
	*e = n;
}

/*
 * Read the digits at s[*i] into *v (at most max). Returns 1 if there were
 * digits, 0 if none, -ERANGE if the number exceeds max (all its digits are
 * consumed either way).
 */
static int
read_uint(const char *s, size_t *i, size_t e, uint64_t max, uint64_t *v)
{
	uint64_t x = 0;
	size_t start = *i;
	bool over = false;
	unsigned d;

	while (*i < e && is_digit(s[*i])) {
		d = (unsigned)(s[*i] - '0');
		if (x > (max - d) / 10)
			over = true;
		else
			x = x * 10 + d;
		(*i)++;
	}
	if (*i == start)
		return 0;
	if (over)
		return -ERANGE;
	*v = x;
	return 1;
}

/* Common start of every number: refuse signs, require a digit. */
static int
check_start(const char *s, size_t b, size_t e, const struct quantity *q,
	    char *err, size_t errlen)
{
	if (b == e)
		return fail(err, errlen, q->what, s, "no value");
	if (s[b] == '-')
		return fail(err, errlen, q->what, s, "%s", q->negative);
	if (!is_digit(s[b]))
		return fail(err, errlen, q->what, s,
			    "does not start with a number");
	return 0;
}

/* The whole number, at most `max`, that [b, e) starts with: its value in
 * *v and where it ends in *i, or fails with the reason. */
static int
start_uint(const char *s, size_t b, size_t e, const struct quantity *q,
	   uint64_t max, size_t *i, uint64_t *v, char *err, size_t errlen)
{
	int rc = check_start(s, b, e, q, err, errlen);

	if (rc)
		return rc;
	*i = b;
	if (read_uint(s, i, e, max, v) < 0)
		return fail(err, errlen, q->what, s, "out of range");
	return 0;
}

/* The unit of q's that [i, e) names, or fails naming what it is not. */
static int
find_unit(const char *s, size_t i, size_t e, const struct quantity *q,
	  const struct unit **u, char *err, size_t errlen)
{
	char shown[SHOW_MAX];

	for (size_t k = 0; k < q->n_units; k++) {
		if (label_eq(s + i, e - i, q->units[k].label)) {
			*u = &q->units[k];
			return 0;
		}
	}
	return fail(err, errlen, q->what, s, "unknown unit %s %s",
		    show(shown, s + i, e - i), q->hint);
}

/*
 * A whole number, then blanks, then perhaps a unit: what durations and
 * sizes share. Stores the number in *v and the unit in *u (NULL: none),
 * or fails with the reason.
 */
static int
number_then_unit(const char *s, const struct quantity *q, uint64_t *v,
		 const struct unit **u, char *err, size_t errlen)
{
	size_t b, e, i;
	int rc;

	trim(s, &b, &e);
	rc = start_uint(s, b, e, q, INT64_MAX, &i, v, err, errlen);
	if (rc)
		return rc;
	if (i < e && s[i] == '.' && i + 1 < e && is_digit(s[i + 1]))
		return fail(err, errlen, q->what, s,
			    "fractions are not supported (use a smaller unit)");
	while (i < e && is_blank(s[i]))
		i++;
	*u = NULL;
	return i == e ? 0 : find_unit(s, i, e, q, u, err, errlen);
}

/* ------------------------------------------------------------------ */
/* Durations */

int
wm_units_duration_ms(const char *s, int64_t *ms, char *err, size_t errlen)
{
	const char *what = durations.what;
	const struct unit *u;
	uint64_t v = 0;
	int64_t per_ms;
	int rc;

	rc = number_then_unit(s, &durations, &v, &u, err, errlen);
	if (rc)
		return rc;
	if (u == NULL) {
		*ms = (int64_t)v;
		return 0;
	}
	if (u->factor < NS_PER_MS) {
		per_ms = NS_PER_MS / u->factor;
		if (v % (uint64_t)per_ms != 0)
			return fail(err, errlen, what, s,
				    "not a whole number of milliseconds");
		*ms = (int64_t)(v / (uint64_t)per_ms);
		return 0;
	}
	per_ms = u->factor / NS_PER_MS;
	if (v > (uint64_t)(INT64_MAX / per_ms))
		return fail(err, errlen, what, s,
			    "out of range (more than %lld ms)",
			    (long long)INT64_MAX);
	*ms = (int64_t)v * per_ms;
	return 0;
}

/* ------------------------------------------------------------------ */
/* Rates */

/* Read digits with an optional decimal part as a double. Returns 1, 0 if
 * no digits, -EINVAL for "1." */
static int
read_decimal(const char *s, size_t *i, size_t e, double *v)
{
	double x = 0, scale = 0.1;
	size_t start = *i;

	while (*i < e && is_digit(s[*i]))
		x = x * 10 + (s[(*i)++] - '0');
	if (*i == start)
		return 0;
	if (*i < e && s[*i] == '.') {
		(*i)++;
		if (*i == e || !is_digit(s[*i]))
			return -EINVAL;
		while (*i < e && is_digit(s[*i])) {
			x += (s[(*i)++] - '0') * scale;
			scale /= 10;
		}
	}
	*v = x;
	return 1;
}

/* The number with an optional decimal part that [b, e) starts with: its
 * value in *v and where it ends in *i, or fails with the reason. */
static int
start_decimal(const char *s, size_t b, size_t e, const struct quantity *q,
	      size_t *i, double *v, char *err, size_t errlen)
{
	int rc = check_start(s, b, e, q, err, errlen);

	if (rc)
		return rc;
	*i = b;
	if (read_decimal(s, i, e, v) < 0)
		return fail(err, errlen, q->what, s,
			    "a decimal point must be followed by digits");
	return 0;
}

/* k/K, M, G as a multiplier, 0 if c is not one. */
static double
si_suffix(char c)
{
	switch (c) {
	case 'k':
	case 'K':
		return 1e3;
	case 'M':
		return 1e6;
	case 'G':
		return 1e9;
	default:
		return 0;
	}
}

int
wm_units_rate(const char *s, double *per_second, char *err, size_t errlen)
{
	const char *what = rates.what;
	const struct unit *u;
	double v = 0, mult = 1, r;
	size_t b, e, i;
	int rc;

	trim(s, &b, &e);
	if (label_eq(s + b, e - b, "unlimited")) {
		*per_second = INFINITY;
		return 0;
	}
	rc = start_decimal(s, b, e, &rates, &i, &v, err, errlen);
	if (rc)
		return rc;
	while (i < e && is_blank(s[i]))
		i++;
	if (i < e && si_suffix(s[i]) != 0) {
		mult = si_suffix(s[i++]);
		while (i < e && is_blank(s[i]))
			i++;
	}
	if (i == e)
		return fail(err, errlen, what, s,
			    "missing time unit (write e.g. \"1000/s\")");
	if (s[i] != '/')
		return fail(err, errlen, what, s,
			    "expected \"/\" and a time unit after the number "
			    "(write e.g. \"1000/s\")");
	i++;
	while (i < e && is_blank(s[i]))
		i++;
	if (i == e)
		return fail(err, errlen, what, s,
			    "missing time unit after \"/\" " DURATION_HINT);
	rc = find_unit(s, i, e, &rates, &u, err, errlen);
	if (rc)
		return rc;
	r = v * mult * (1e9 / (double)u->factor);
	if (!(r <= RATE_MAX))
		return fail(err, errlen, what, s,
			    "out of range (more than %.0e per second)",
			    RATE_MAX);
	*per_second = r;
	return 0;
}

/* ------------------------------------------------------------------ */
/* Sizes */

int
wm_units_size(const char *s, uint64_t *bytes, char *err, size_t errlen)
{
	const struct unit *u;
	uint64_t v = 0;
	int rc;

	rc = number_then_unit(s, &sizes, &v, &u, err, errlen);
	if (rc)
		return rc;
	if (u == NULL) {
		*bytes = v;
		return 0;
	}
	if (v > (uint64_t)(INT64_MAX / u->factor))
		return fail(err, errlen, sizes.what, s,
			    "out of range (more than %lld bytes)",
			    (long long)INT64_MAX);
	*bytes = v * (uint64_t)u->factor;
	return 0;
}

/* ------------------------------------------------------------------ */
/* Instants */

#define INSTANT_HINT                                                           \
	"(use milliseconds since the epoch, 2026-12-07 or "                    \
	"2026-12-07T13:45:00Z)"

/* Exactly `n` digits at s[*i] into *v; false if not. */
static bool
take_digits(const char *s, size_t e, size_t *i, size_t n, int *v)
{
	*v = 0;
	for (size_t k = 0; k < n; k++, (*i)++) {
		if (*i >= e || !is_digit(s[*i]))
			return false;
		*v = *v * 10 + (s[*i] - '0');
	}
	return true;
}

/* The days from 1970-01-01 to year-month-day in the proleptic Gregorian
 * calendar (the civil-from-days inverse, valid for any year >= 1): no
 * timegm(), whose time_t and zone handling vary. */
static int64_t
days_from_civil(int year, int month, int day)
{
	int64_t y = year - (month <= 2);
	int64_t era = y / 400;
	int64_t yoe = y - era * 400;
	int64_t mp = (month + 9) % 12;
	int64_t doy = (153 * mp + 2) / 5 + day - 1;
	int64_t doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;

	return era * 146097 + doe - 719468;
}

static bool
leap_year(int y)
{
	return (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
}

int
wm_units_instant_ms(const char *s, int64_t *ms, char *err, size_t errlen)
{
	static const int month_days[] = {31, 28, 31, 30, 31, 30,
					 31, 31, 30, 31, 30, 31};
	const char *what = "instant";
	size_t b, e, i;
	int year, month, day, hour = 0, minute = 0, second = 0, milli = 0;
	int64_t v;

	trim(s, &b, &e);
	i = b;
	while (i < e && is_digit(s[i]))
		i++;
	if (i == e && i > b) { /* milliseconds since the epoch */
		if (wm_units_int64(s + b, e - b, &v) != NULL ||
		    v > WM_UNITS_INSTANT_MAX_MS)
			return fail(err, errlen, what, s,
				    "out of range (after 9999-12-31)");
		*ms = v;
		return 0;
	}
	i = b;
	if (!take_digits(s, e, &i, 4, &year) || i >= e || s[i++] != '-' ||
	    !take_digits(s, e, &i, 2, &month) || i >= e || s[i++] != '-' ||
	    !take_digits(s, e, &i, 2, &day))
		return fail(err, errlen, what, s, INSTANT_HINT);
	if (i < e) { /* a time of day: [T ]HH:MM[:SS[.mmm]]Z */
		bool ok = s[i] == 'T' || s[i] == ' ';

		i++;
		ok = ok && take_digits(s, e, &i, 2, &hour) && i < e &&
		     s[i++] == ':' && take_digits(s, e, &i, 2, &minute);
		if (ok && i < e && s[i] == ':') {
			i++;
			ok = take_digits(s, e, &i, 2, &second);
		}
		if (ok && i < e && s[i] == '.') {
			i++;
			ok = take_digits(s, e, &i, 3, &milli);
		}
		if (!ok)
			return fail(err, errlen, what, s, INSTANT_HINT);
		if (i + 1 != e || s[i] != 'Z')
			return fail(err, errlen, what, s,
				    "a time of day must end in Z "
				    "(UTC) " INSTANT_HINT);
	}
	if (year < 1970 || month < 1 || month > 12 || day < 1 ||
	    day > month_days[month - 1] + (month == 2 && leap_year(year)) ||
	    hour > 23 || minute > 59 || second > 59)
		return fail(err, errlen, what, s,
			    "no such date or time of day, or before 1970");
	*ms = (((days_from_civil(year, month, day) * 24 + hour) * 60 + minute) *
		       60 +
	       second) *
		      1000 +
	      milli;
	return 0;
}

/* ------------------------------------------------------------------ */
/* Counts */

int
wm_units_count(const char *s, uint64_t *count, char *err, size_t errlen)
{
	const char *what = counts.what;
	char shown[SHOW_MAX];
	uint64_t v = 0, frac = 0, mult = 1, pow10 = 1, add;
	size_t b, e, i, fd = 0, f0, f1;
	int rc;

	trim(s, &b, &e);
	rc = start_uint(s, b, e, &counts, UINT64_MAX, &i, &v, err, errlen);
	if (rc)
		return rc;
	f0 = f1 = i;
	if (i < e && s[i] == '.') {
		f0 = ++i;
		while (i < e && is_digit(s[i]))
			i++;
		f1 = i;
		if (f1 == f0)
			return fail(err, errlen, what, s,
				    "a decimal point must be followed by "
				    "digits");
		while (f1 > f0 && s[f1 - 1] == '0') /* 2.50k is 2.5k */
			f1--;
	}
	while (i < e && is_blank(s[i]))
		i++;
	if (i < e) {
		mult = (uint64_t)si_suffix(s[i]);
		if (mult == 0 || i + 1 != e)
			return fail(err, errlen, what, s,
				    "unknown suffix %s " COUNT_HINT,
				    show(shown, s + i, e - i));
	}
	/* The fraction times mult must be whole: mult is 10^3k, so at most
	 * that many significant decimals. */
	for (fd = 0; fd < f1 - f0; fd++) {
		if (pow10 >= mult)
			return fail(err, errlen, what, s, "not a whole number");
		pow10 *= 10;
		frac = frac * 10 + (uint64_t)(s[f0 + fd] - '0');
	}
	add = frac * (mult / pow10);
	if (v > (UINT64_MAX - add) / mult)
		return fail(err, errlen, what, s, "out of range");
	*count = v * mult + add;
	return 0;
}

/* ------------------------------------------------------------------ */
/* Plain numbers */

int
wm_units_number(const char *s, double *value, char *err, size_t errlen)
{
	const char *what = numbers.what;
	size_t b, e, i;
	double v;
	int rc;

	trim(s, &b, &e);
	rc = start_decimal(s, b, e, &numbers, &i, &v, err, errlen);
	if (rc)
		return rc;
	if (i != e)
		return fail(err, errlen, what, s,
			    "expected digits with an optional decimal part, "
			    "as in 2000 or 0.5");
	if (!isfinite(v))
		return fail(err, errlen, what, s, "out of range");
	*value = v;
	return 0;
}

/* ------------------------------------------------------------------ */
/* Booleans and names */

int
wm_units_bool(const char *s, bool *value, char *err, size_t errlen)
{
	static const char *const yes[] = {"true", "yes", "on", "1"};
	static const char *const no[] = {"false", "no", "off", "0"};
	size_t b, e, i;

	trim(s, &b, &e);
	for (i = 0; i < N_ELEMS(yes); i++) {
		if (label_eq(s + b, e - b, yes[i])) {
			*value = true;
			return 0;
		}
		if (label_eq(s + b, e - b, no[i])) {
			*value = false;
			return 0;
		}
	}
	return fail(err, errlen, "boolean", s, "use true or false");
}

/* What goes before item i of n in "a, b or c". */
static const char *
list_sep(size_t i, size_t n)
{
	if (i == 0)
		return "";
	return i + 1 == n ? " or " : ", ";
}

int
wm_units_enum(const char *s, const char *what, const char *const *names,
	      size_t n, size_t *index, char *err, size_t errlen)
{
	char shown[SHOW_MAX];
	size_t b, e, i, o;
	int k;

	trim(s, &b, &e);
	for (i = 0; i < n; i++) {
		if (strlen(names[i]) == e - b &&
		    memcmp(names[i], s + b, e - b) == 0) {
			*index = i;
			return 0;
		}
	}
	if (err == NULL || errlen == 0)
		return -EINVAL;
	k = snprintf(err, errlen, "invalid %s %s (use ", what ? what : "value",
		     show(shown, s, strlen(s)));
	for (i = 0; i < n && k >= 0 && (size_t)k < errlen; i++) {
		o = (size_t)k;
		k += snprintf(err + o, errlen - o, "%s%s", list_sep(i, n),
			      show(shown, names[i], strlen(names[i])));
	}
	if (k >= 0 && (size_t)k < errlen)
		snprintf(err + k, errlen - (size_t)k, ")");
	return -EINVAL;
}

const char *
wm_units_int64(const char *s, size_t len, int64_t *v)
{
	bool negative = len > 0 && s[0] == '-';
	size_t digits = len - negative;
	uint64_t x = 0;
	bool overflow = false;

	if (digits == 0)
		return "";
	/* Every field of every trace line passes here. Up to 19 digits, x
	 * cannot wrap (10^19 - 1 < 2^64): one multiply and add a digit, the
	 * range checked once at the end. Longer fields (leading zeros are
	 * allowed) check each step. A non-digit anywhere makes it no
	 * integer, whether or not the digits before it overflowed. */
	if (digits <= 19) {
		for (size_t i = negative; i < len; i++) {
			unsigned d = (unsigned)(unsigned char)s[i] - '0';

			if (d > 9)
				return "";
			x = x * 10 + d;
		}
	} else {
		for (size_t i = negative; i < len; i++) {
			unsigned d = (unsigned)(unsigned char)s[i] - '0';

			if (d > 9)
				return "";
			overflow = overflow ||
				   __builtin_mul_overflow(x, 10, &x) ||
				   __builtin_add_overflow(x, d, &x);
		}
	}
	/* INT64_MIN's magnitude is one more than INT64_MAX's. */
	if (overflow || x > (uint64_t)INT64_MAX + negative)
		return " (beyond 64 bits)";
	*v = !negative ? (int64_t)x : x == 0 ? 0 : -(int64_t)(x - 1) - 1;
	return NULL;
}

const char *
wm_units_format_duration(int64_t ns, char *buf, size_t len)
{
	return wm_units_format_duration_ms(ns / 1000000, buf, len);
}

const char *
wm_units_format_duration_ms(int64_t ms, char *buf, size_t len)
{
	int64_t s = ms / 1000;

	if (ms < 1000)
		snprintf(buf, len, "%lld ms", (long long)ms);
	else if (s < 60)
		snprintf(buf, len, "%.1f s", (double)ms / 1000.0);
	else if (s < 3600)
		snprintf(buf, len, "%lld min %lld s", (long long)(s / 60),
			 (long long)(s % 60));
	else
		snprintf(buf, len, "%lld h %lld min", (long long)(s / 3600),
			 (long long)(s / 60 % 60));
	return buf;
}

const char *
wm_units_format_event_time(int64_t ms, char *buf, size_t len)
{
	/* Floor division: an event time before 1970 is a second earlier
	 * and a positive fraction, as a clock would show it. */
	int64_t secs = ms / 1000 - (ms % 1000 < 0);
	int64_t frac = ms - secs * 1000;
	time_t t = (time_t)secs;
	struct tm tm;
	size_t n;

	if (ms == INT64_MIN || ms == INT64_MAX || gmtime_r(&t, &tm) == NULL) {
		snprintf(buf, len, "%s",
			 ms == INT64_MAX   ? "end"
			 : ms == INT64_MIN ? "-"
					   : "?");
		return buf;
	}
	n = strftime(buf, len,
		     secs >= 0 && secs < 86400 ? "%H:%M:%S"
					       : "%Y-%m-%d %H:%M:%S",
		     &tm);
	if (frac != 0 && n > 0 && n < len)
		snprintf(buf + n, len - n, ".%03lld", (long long)frac);
	return buf;
}
