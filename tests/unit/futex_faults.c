/*
 * futex_faults.c
 *	The seccomp filter of futex_faults.h.
 */
#include "config.h"

#include <errno.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/futex.h>
#include <linux/seccomp.h>
#include <stddef.h>
#include <sys/prctl.h>
#include <sys/syscall.h>

#include "tests/unit/futex_faults.h"

#if defined(__x86_64__)
#define FILTER_ARCH AUDIT_ARCH_X86_64
#elif defined(__aarch64__)
#define FILTER_ARCH AUDIT_ARCH_AARCH64
#endif

/* The low 32 bits of argument n (little-endian: its first word). */
#define ARG_LOW(n) offsetof(struct seccomp_data, args[n])

int
wm_futex_faults_install(enum wm_futex_fault which)
{
#ifdef FILTER_ARCH
	/* futex(uaddr, op, val, timeout, ...): fail op == FUTEX_WAIT (no
	 * private flag) and, for TIMED, only with a timeout (argument 3
	 * not NULL: its low word, enough for user addresses here, which
	 * are never a multiple of 2^32). */
	struct sock_filter code[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
			 offsetof(struct seccomp_data, arch)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, FILTER_ARCH, 1, 0),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
			 offsetof(struct seccomp_data, nr)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_futex, 1, 0),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, ARG_LOW(1)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, FUTEX_WAIT, 1, 0),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, ARG_LOW(3)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, 0,
			 which == WM_FUTEX_FAIL_TIMED ? 0 : 1, 1),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
		BPF_STMT(BPF_RET | BPF_K,
			 SECCOMP_RET_ERRNO | (ENOSYS & SECCOMP_RET_DATA)),
	};
	struct sock_fprog prog = {
		.len = sizeof(code) / sizeof(code[0]),
		.filter = code,
	};

	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0)
		return -1;
	return prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog, 0, 0);
#else
	(void)which;
	errno = ENOTSUP;
	return -1;
#endif
}
