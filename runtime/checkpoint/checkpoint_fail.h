/*
 * checkpoint_fail.h
 *	How the checkpoint store and the file committer fail: a message in
 *	the caller's err, the errno returned negated. For checkpoint_store.c
 *	and part_commit.c only.
 */
#ifndef WM_RUNTIME_CHECKPOINT_CHECKPOINT_FAIL_H
#define WM_RUNTIME_CHECKPOINT_CHECKPOINT_FAIL_H

#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>

/* The message `fmt` in err (errlen bytes, cut there), returned as -e. */
static inline int __attribute__((format(printf, 4, 5)))
wm_checkpoint_fail(char *err, size_t errlen, int e, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
	return -e;
}

#endif /* WM_RUNTIME_CHECKPOINT_CHECKPOINT_FAIL_H */
