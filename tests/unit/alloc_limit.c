/*
 * alloc_limit.c
 *	The allocation wrappers of alloc_limit.h.
 */
#include "config.h"

#include <errno.h>
#include <stdlib.h>

#include "tests/unit/alloc_limit.h"

size_t wm_alloc_limit = SIZE_MAX;

/* The real functions, as the linker's --wrap names them. */
void *__real_malloc(size_t n);
void *__real_calloc(size_t count, size_t n);
void *__real_realloc(void *p, size_t n);
void *__real_aligned_alloc(size_t align, size_t n);
void *__wrap_malloc(size_t n);
void *__wrap_calloc(size_t count, size_t n);
void *__wrap_realloc(void *p, size_t n);
void *__wrap_aligned_alloc(size_t align, size_t n);

static void *
refuse(void)
{
	errno = ENOMEM;
	return NULL;
}

void *
__wrap_malloc(size_t n)
{
	return n > wm_alloc_limit ? refuse() : __real_malloc(n);
}

void *
__wrap_calloc(size_t count, size_t n)
{
	if (n != 0 && count > wm_alloc_limit / n)
		return refuse();
	return __real_calloc(count, n);
}

void *
__wrap_realloc(void *p, size_t n)
{
	return n > wm_alloc_limit ? refuse() : __real_realloc(p, n);
}

void *
__wrap_aligned_alloc(size_t align, size_t n)
{
	return n > wm_alloc_limit ? refuse() : __real_aligned_alloc(align, n);
}
