/*
 * cpulist.h
 *	CPU lists as Linux writes them ("0-3,8,10-11"): the syntax of
 *	[job] cpus, checked when the topology is read and used again when
 *	the job is placed (runtime/plan/affinity.h). Pure: no machine involved.
 */
#ifndef WM_RUNTIME_CONF_CPULIST_H
#define WM_RUNTIME_CONF_CPULIST_H

#include <stddef.h>
#include <stdint.h>

/*
 * Walk `list`: with cpus NULL only check it and count the CPUs it names
 * (a range counts each of its CPUs, a CPU named twice counts twice), else
 * also store them in order (cpus has room for the count). 0, or -EINVAL
 * with a message naming the character at fault in err.
 */
int wm_cpulist_parse(const char *list, unsigned *cpus, uint64_t *count,
		     char *err, size_t errlen);

#endif /* WM_RUNTIME_CONF_CPULIST_H */
