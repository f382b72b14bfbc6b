/*
 * flink_files.h
 *	The files of the project's flink/ folder that an exported Flink job
 *	needs (its pom.xml and the Java support classes), compiled into wmrun
 *	so that an export needs no source tree: build-aux/embed_files.sh makes
 *	flink_files.c from them at build time (Makefile.am, FLINK_FILES).
 */
#ifndef WM_RUNTIME_EXPORT_FLINK_FILES_H
#define WM_RUNTIME_EXPORT_FLINK_FILES_H

#include <stddef.h>

struct wm_export_file {
	const char *path; /* below flink/: "src/main/java/wmrun/flink/X.java" */
	const char *text; /* the whole file */
};

extern const struct wm_export_file wm_export_flink_files[];
extern const size_t wm_export_flink_n_files;

#endif /* WM_RUNTIME_EXPORT_FLINK_FILES_H */
