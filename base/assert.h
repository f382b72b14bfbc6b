/*
 * assert.h
 *	WM_ASSERT(): this process's own invariants, checked in the debug and
 *	sanitizer builds, compiled out otherwise.
 *
 * Checked (configure --enable-debug or --enable-sanitizers, which CI
 * builds: WM_ASSERT_ENABLED in config.h), a false expression prints one
 * line on stderr, in one write so that it never mixes with another
 * process's,
 *
 *   wmrun: runtime/engine/progress.c:LINE: assertion "still >= 0" failed
 *
 * (the source named from the top of the tree, where the compiler can map
 * it so) and calls abort(): a core to read, and for a worker the
 * supervisor's "terminated by signal 6" naming it. Compiled out, the
 * expression is still compiled (it cannot rot, and what only it uses is
 * not unused) but never evaluated, so it may cost what it likes.
 *
 * Only for what this process made true itself: never for bytes another
 * process wrote (a ring's cells, the segment's tables) nor for anything
 * read from outside. Those are checked in every build and fail with a
 * message and an exit status (base/exit.h): the receiving side
 * re-checks what it is given, and asserts only what it owns.
 *
 * Include config.h first, as every source does: without it the checks
 * would be off in a build that asked for them, without a word.
 */
#ifndef WM_BASE_ASSERT_H
#define WM_BASE_ASSERT_H

#ifndef PACKAGE_NAME
#error "include config.h before base/assert.h"
#endif

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

/* The report and the abort; cold, so kept out of the checking code's way. */
__attribute__((cold, noreturn)) static inline void
wm_assert_failed(const char *file, int line, const char *expr)
{
	char msg[1024];
	int n;

	n = snprintf(msg, sizeof(msg), "%s: %s:%d: assertion \"%s\" failed\n",
		     program_invocation_short_name, file, line, expr);
	if (n < 0)
		n = 0;
	if ((size_t)n >= sizeof(msg)) {
		n = (int)sizeof(msg) - 1;
		msg[n - 1] = '\n'; /* a cut line still ends */
	}
	if (write(STDERR_FILENO, msg, (size_t)n) < 0) {
		/* nowhere left to say it: the abort still tells */
	}
	abort();
}

#ifdef WM_ASSERT_ENABLED
#define WM_ASSERT(expr)                                                        \
	((expr) ? (void)0 : wm_assert_failed(__FILE__, __LINE__, #expr))
#else
#define WM_ASSERT(expr) ((void)sizeof(!(expr)))
#endif

#endif /* WM_BASE_ASSERT_H */
