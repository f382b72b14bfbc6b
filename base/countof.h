/*
 * countof.h
 *	N_ELEMS(a): the number of elements of array `a` (an array, not a
 *	pointer: sizeof of a pointer would give a wrong count silently).
 */
#ifndef WM_BASE_COUNTOF_H
#define WM_BASE_COUNTOF_H

#define N_ELEMS(a) (sizeof(a) / sizeof((a)[0]))

#endif /* WM_BASE_COUNTOF_H */
