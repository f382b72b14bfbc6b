/*
 * units.h
 *	Parse the values of topology.conf: durations, rates, sizes, counts,
 *	booleans and names from a fixed list.
 *
 * Each parser takes a NUL-terminated string (blanks around it are
 * ignored), stores the result and returns 0, or returns -EINVAL, leaves the
 * result alone and writes into err (errlen bytes, may be NULL) a message
 * naming the value and what is wrong with it:
 *
 * invalid duration "5 parsecs": unknown unit "parsecs" (use ms, s, min, h or d)
 *
 * which the caller prefixes with FILE:LINE:COL. WM_UNITS_WHY_MAX bytes hold
 * any message (values are shown cut after 40 bytes). Nothing is accepted
 * half-way: trailing garbage, signs, hexadecimal, exponents and overflow are
 * all errors. Whether 0 is allowed is for the caller to decide.
 *
 * Durations (wm_units_duration_ms), as Flink's TimeUtils.parseDuration():
 *   digits, optional blanks, optional unit; no unit means milliseconds.
 *   Units, in any letter case:
 *	ns  nano nanos nanosecond nanoseconds
 *	µs  micro micros microsecond microseconds   (µ is U+00B5, as in Flink)
 *	ms  milli millis millisecond milliseconds
 *	s   sec secs second seconds
 *	min m minute minutes
 *	h   hour hours
 *	d   day days
 *   wmrun counts time in milliseconds, so a value in ns or µs must be a
 *   whole number of milliseconds ("2000 µs" yes, "1500 µs" no) rather than
 *   being rounded silently. No fractions ("1.5 s": write "1500 ms"), as in
 *   Flink. The result must fit an int64 of milliseconds: "9223372036854775807
 *   ms" is the largest, "106751991168 d" is out of range.
 *
 * Rates (wm_units_rate), records per second as a double:
 *   NUMBER [k|K|M|G] / UNIT, blanks allowed between the parts, e.g.
 *   "1000/s", "2.5k/s", "50 / ms", "1M/min"; NUMBER is digits with an
 *   optional decimal part, the suffix multiplies by 1e3, 1e6 or 1e9, UNIT
 *   is any duration unit above. "unlimited" means as fast as possible and
 *   gives +INFINITY (test with isinf()). A bare number is refused: a bare
 *   duration means milliseconds, so "1000" as a rate would be ambiguous.
 *   At most 1e15 per second.
 *
 * Sizes (wm_units_size), bytes, as Flink's MemorySize plus IEC symbols:
 *   digits, optional blanks, optional unit; no unit means bytes. Units, in
 *   any letter case, ALL 1024-based as in Flink (so "64kb" and "64KiB" are
 *   both 65536; there is no 1000-based size):
 *	b bytes | k kb kib kibibytes | m mb mib mebibytes |
 *	g gb gib gibibytes | t tb tib tebibytes
 *   No fractions. At most INT64_MAX bytes (Flink's long; fits off_t).
 *
 * Counts (wm_units_count): digits with an optional decimal part and an
 *   optional suffix k or K (1e3), M (1e6), G (1e9), blanks allowed before
 *   it: "16", "10k", "2.5M". The result must be a whole number ("1.5"
 *   and "1.2345k" are refused) and fit a uint64.
 *
 * Numbers (wm_units_number): digits with an optional decimal part, as a
 *   double: "2000", "0.5". No sign, exponent or hexadecimal, as above.
 *
 * Booleans (wm_units_bool): true yes on 1 / false no off 0, any case.
 *
 * Names (wm_units_enum): exactly one of the caller's names (case matters).
 *
 * Instants (wm_units_instant_ms), milliseconds since the epoch (UTC): a
 *   count of milliseconds ("0", "1796601600000"), a date "2026-12-07"
 *   (its midnight), or a date and a time of day in UTC, ISO 8601 with its
 *   'T' or a blank and a final 'Z': "2026-12-07T13:45:00Z",
 *   "2026-12-07 13:45:00.250Z" (seconds and milliseconds optional). No
 *   other zone: an instant without its 'Z' would be read in some zone
 *   the reader cannot see. From 1970-01-01 to 9999-12-31T23:59:59.999Z.
 */
#ifndef WM_LIB_UNITS_H
#define WM_LIB_UNITS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define WM_UNITS_WHY_MAX 256
/* 9999-12-31T23:59:59.999Z, the last instant wm_units_instant_ms() takes. */
#define WM_UNITS_INSTANT_MAX_MS INT64_C(253402300799999)

int wm_units_duration_ms(const char *s, int64_t *ms, char *err, size_t errlen);

int wm_units_rate(const char *s, double *per_second, char *err, size_t errlen);

int wm_units_size(const char *s, uint64_t *bytes, char *err, size_t errlen);

int wm_units_count(const char *s, uint64_t *count, char *err, size_t errlen);

int wm_units_number(const char *s, double *value, char *err, size_t errlen);

int wm_units_bool(const char *s, bool *value, char *err, size_t errlen);

int wm_units_instant_ms(const char *s, int64_t *ms, char *err, size_t errlen);

/* Store in *index the position of s in names[0..n). `what` names the
 * setting in the message ("invalid watermark strategy ..."); NULL gives
 * "value". The message lists the names (cut if they do not fit). */
int wm_units_enum(const char *s, const char *what, const char *const *names,
		  size_t n, size_t *index, char *err, size_t errlen);

/*
 * The signed 64-bit decimal integer s[0..len), as trace files write them:
 * an optional '-' and digits, nothing else (no blanks, '+', hexadecimal,
 * fraction or exponent, which strtoll() or a float parse would let through
 * or round). Not this file's convention, for readers that quote the whole
 * field themselves: returns NULL and stores *v, or leaves *v alone and
 * returns what to add after the quoted field, "" when it is no integer at
 * all, " (beyond 64 bits)" when it does not fit.
 */
const char *wm_units_int64(const char *s, size_t len, int64_t *v);

/*
 * The other way, for people (the summary, the live view): a duration of
 * `ns` as "850 ms", "4.2 s", "3 min 12 s" or "7 h 59 min", cut to the two
 * units that matter; an event time of `ms` since the epoch (UTC) as
 * "02:10:00" within the first day, "2026-12-01 02:10:00" after it, with
 * ".250" when not whole seconds, "-" before any watermark (INT64_MIN)
 * and "end" for INT64_MAX. Both return buf. A duration of `ms` the same
 * way, for figures kept in milliseconds that may not fit in ns (a fire
 * delay of up to 2^62 ms).
 */
const char *wm_units_format_duration(int64_t ns, char *buf, size_t len);
const char *wm_units_format_duration_ms(int64_t ms, char *buf, size_t len);
const char *wm_units_format_event_time(int64_t ms, char *buf, size_t len);

#endif /* WM_LIB_UNITS_H */
