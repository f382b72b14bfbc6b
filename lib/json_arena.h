/*
 * json_arena.h
 *	Where jansson allocates while a line of JSON is read or written: a
 *	bump arena of the thread, emptied when the line is done.
 *
 * jansson builds a whole object for a line (the object, its hash table,
 * each member's name, value and string) and frees it piece by piece;
 * malloc and free took a quarter of a flat line's time, and from the
 * arena a line takes 10-15 % fewer instructions (doc/performance.md
 * section 9.35: a record read by runtime/source/record_fields.c; section
 * 9.36: a --metrics line, runtime/observe/timeline.c, 11 %). Between wm_json_arena_open() and wm_json_arena_close()
 * on one thread, jansson's allocations on that thread come from the
 * thread's arena, one addition each, and freeing one is nothing; what
 * does not fit the arena, and every allocation outside an open arena or
 * on another thread, is malloc's, freed by free.
 *
 * Invariants, which every caller keeps:
 * - no json_t (nor anything jansson allocated) made while the arena is
 *   open outlives wm_json_arena_close(): the next line reuses the arena.
 *   Copy out what is needed (record_fields.c copies the key, and dumps a
 *   value for a message into a buffer of its own; timeline.c writes the
 *   line and frees its object before the close);
 * - an arena is opened and closed on the same thread, never nested;
 * - the allocation functions are jansson's for the whole process
 *   (json_set_alloc_funcs() is process-wide), installed by the first
 *   wm_json_arena_open(), before any json_t exists. Every jansson user of
 *   the process gets them, and must be fine with them: outside an open
 *   arena they are malloc and free, and a json_t made outside one may be
 *   freed inside one (only the arena's own blocks are not freed), but a
 *   json_t made inside one is gone at its close.
 */
#ifndef WM_LIB_JSON_ARENA_H
#define WM_LIB_JSON_ARENA_H

/* Jansson's allocations on this thread from its arena, until the close.
 * Installs the allocation functions on first use. */
void wm_json_arena_open(void);

/* Back to malloc, the arena emptied. Decref every json_t made since the
 * open before: what did not fit the arena was malloc's, and only the
 * decref frees it. */
void wm_json_arena_close(void);

#endif /* WM_LIB_JSON_ARENA_H */
