/*
 * exit.c
 *	errno -> sysexits code, by what the process was doing (exit.h).
 */
#include "config.h"

#include <errno.h>
#include <sysexits.h>

#include "base/exit.h"

/* A file that cannot be opened or read as one: missing, forbidden, a
 * directory, a loop of links, a name too long, a FIFO or device without
 * its other end. Not EIO: a read that fails is an I/O error (74), as a
 * write of the results that fails is. */
static bool
unreadable(int e)
{
	return e == ENOENT || e == EACCES || e == EPERM || e == EISDIR ||
	       e == ENOTDIR || e == ELOOP || e == ENAMETOOLONG || e == ENXIO;
}

int
wm_exit_status(enum wm_exit_cause cause, int err)
{
	int e = err < 0 ? -err : err;

	if (e == 0)
		return EX_OK;
	if (e == ENOMEM)
		return EX_OSERR;
	switch (cause) {
	case WM_EXIT_OUTPUT:
		return EX_IOERR;
	case WM_EXIT_INTERNAL:
		return EX_SOFTWARE;
	case WM_EXIT_INPUT:
	case WM_EXIT_SIM:
		break;
	}
	if (e == EBADMSG)
		return EX_DATAERR;
	/* A checkpoint directory another running job holds
	 * (runtime/checkpoint/dir_lock.h): try again once it ended. */
	if (e == EBUSY)
		return EX_TEMPFAIL;
	if (e == EINVAL || e == EFBIG)
		return EX_CONFIG;
	if (e == EIO)
		return EX_IOERR;
	if (unreadable(e))
		return EX_NOINPUT;
	/* Reading, the rest is the OS's (too many open files...); a --sim
	 * run that returns an errno sim.h does not name has a bug. */
	return cause == WM_EXIT_SIM ? EX_SOFTWARE : EX_OSERR;
}

int
wm_exit_of_worker(int status)
{
	return status >= EX__BASE && status <= EX__MAX ? status : 1;
}
