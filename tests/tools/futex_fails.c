/*
 * futex_fails.c
 *	futex_fails timed|all COMMAND [ARG...]: run COMMAND with the futex
 *	waits of its doorbells failing (tests/unit/futex_faults.h), for the
 *	integration tests of what wmrun does when it cannot wait.
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sysexits.h>
#include <unistd.h>

#include "tests/unit/futex_faults.h"

int
main(int argc, char **argv)
{
	enum wm_futex_fault which;

	if (argc < 3 ||
	    (strcmp(argv[1], "timed") != 0 && strcmp(argv[1], "all") != 0)) {
		fprintf(stderr,
			"usage: futex_fails timed|all COMMAND [ARG...]\n");
		return EX_USAGE;
	}
	which = strcmp(argv[1], "timed") == 0 ? WM_FUTEX_FAIL_TIMED
					      : WM_FUTEX_FAIL_ALL;
	if (wm_futex_faults_install(which) != 0) {
		fprintf(stderr,
			"futex_fails: could not install the filter: %s\n",
			strerror(errno));
		return EX_OSERR;
	}
	execvp(argv[2], argv + 2);
	fprintf(stderr, "futex_fails: could not run \"%s\": %s\n", argv[2],
		strerror(errno));
	return EX_UNAVAILABLE;
}
