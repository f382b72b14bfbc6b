/*
 * container_of.h
 *	The struct that embeds a member, from a pointer to the member: how
 *	callbacks given a struct wm_output (or a task's output) find their
 *	owner.
 */
#ifndef WM_BASE_CONTAINER_OF_H
#define WM_BASE_CONTAINER_OF_H

#include <stddef.h>

#define wm_container_of(ptr, type, member)                                     \
	((type *)(void *)((char *)(ptr)-offsetof(type, member)))

#endif /* WM_BASE_CONTAINER_OF_H */
