/*
 * futex_faults.h
 *	Make the futex waits of wmrun's doorbells fail, to test what a
 *	process does when its wait path breaks.
 *
 * A seccomp filter, installed in the calling process and inherited by
 * every child, answers FUTEX_WAIT on a shared futex (the doorbells' op:
 * never the _PRIVATE one that libc and the sanitizers use for their own
 * locks) with ENOSYS instead of sleeping. TIMED fails only the waits
 * that have a timeout (a source waiting for its next record), ALL every
 * such wait (the start line, the gates, back-pressure too).
 */
#ifndef WM_TESTS_UNIT_FUTEX_FAULTS_H
#define WM_TESTS_UNIT_FUTEX_FAULTS_H

enum wm_futex_fault { WM_FUTEX_FAIL_TIMED, WM_FUTEX_FAIL_ALL };

/* 0, or -1 with errno (ENOTSUP on an architecture the filter does not
 * know). */
int wm_futex_faults_install(enum wm_futex_fault which);

#endif /* WM_TESTS_UNIT_FUTEX_FAULTS_H */
