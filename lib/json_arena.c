/*
 * json_arena.c
 *	jansson's allocations while a line is read or written, from a bump
 *	arena of the thread (json_arena.h).
 */
#include "config.h"

#include <pthread.h>
#include <stdalign.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include <jansson.h>

#include "lib/json_arena.h"

/* A flat line of a few members takes about 1 KiB of jansson's objects, a
 * nested value of a few hundred bytes a few KiB; what a bigger line needs
 * beyond this goes to malloc. Static thread-local storage: every thread
 * of the process has one, used or not, so it stays small. */
#define ARENA_BYTES (32 * 1024)

/* Every block aligned as malloc's would be. */
#define ARENA_ALIGN alignof(max_align_t)

struct arena {
	bool open;   /* between wm_json_arena_open() and _close() */
	size_t used; /* bytes handed out since the open */
	alignas(ARENA_ALIGN) unsigned char bytes[ARENA_BYTES];
};

/* Written and read only by its own thread. */
static _Thread_local struct arena arena;

static pthread_once_t installed = PTHREAD_ONCE_INIT;

static void *
arena_malloc(size_t size)
{
	size_t rounded = (size + ARENA_ALIGN - 1) & ~(ARENA_ALIGN - 1);
	void *p;

	if (!arena.open || rounded < size || rounded > ARENA_BYTES - arena.used)
		return malloc(size);
	p = arena.bytes + arena.used;
	arena.used += rounded;
	return p;
}

/* A block of this thread's arena is freed by the close; any other, made
 * outside an arena or beyond it, is malloc's. A block of another thread's
 * arena never comes here: no json_t outlives its line (json_arena.h). */
static void
arena_free(void *p)
{
	uintptr_t at = (uintptr_t)p, start = (uintptr_t)arena.bytes;

	if (at - start < ARENA_BYTES)
		return;
	free(p);
}

static void
install(void)
{
	json_set_alloc_funcs(arena_malloc, arena_free);
}

void
wm_json_arena_open(void)
{
	pthread_once(&installed, install);
	arena.open = true;
	arena.used = 0;
}

void
wm_json_arena_close(void)
{
	arena.open = false;
	arena.used = 0;
}
