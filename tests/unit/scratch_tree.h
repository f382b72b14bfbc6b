/*
 * scratch_tree.h
 *	A unit test's scratch directory removed with everything in it, links
 *	removed, never followed.
 */
#ifndef WM_TESTS_UNIT_SCRATCH_TREE_H
#define WM_TESTS_UNIT_SCRATCH_TREE_H

#include <ftw.h>
#include <stdio.h>
#include <sys/stat.h>

static inline int
wm_scratch_remove_one(const char *path, const struct stat *st, int flag,
		      struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	return remove(path);
}

/* Remove `root` and its tree, files first (best effort). */
static inline void
wm_scratch_remove_tree(const char *root)
{
	nftw(root, wm_scratch_remove_one, 16, FTW_DEPTH | FTW_PHYS);
}

#endif /* WM_TESTS_UNIT_SCRATCH_TREE_H */
