/*
 * alloc_limit.h
 *	Make large allocations of the code under test fail, to test what it
 *	does when memory runs out.
 *
 * A test program links with -Wl,--wrap=malloc,--wrap=calloc,
 * --wrap=realloc,--wrap=aligned_alloc (Makefile.am): the objects linked
 * into it (our libraries) then call the wrappers here, which fail with
 * ENOMEM any request above wm_alloc_limit bytes and pass the rest on.
 * Libraries linked as shared objects (Check, the sanitizers) allocate as
 * ever.
 */
#ifndef WM_TESTS_UNIT_ALLOC_LIMIT_H
#define WM_TESTS_UNIT_ALLOC_LIMIT_H

#include <stddef.h>
#include <stdint.h>

/* Requests above this many bytes fail; SIZE_MAX (the start): none. */
extern size_t wm_alloc_limit;

#endif /* WM_TESTS_UNIT_ALLOC_LIMIT_H */
