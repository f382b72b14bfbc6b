/*
 * flink_project.h
 *	--export-flink: a topology as a self-contained Maven project of a
 *	Flink job, written into a directory.
 *
 *   DIR/pom.xml                          Flink 2.3.0, Java 17 (flink/pom.xml)
 *   DIR/src/main/java/wmrun/flink/      the support classes (flink/)
 *   DIR/src/main/java/wmrun/flink/Job.java  generated (flink_job.h)
 *   DIR/data/sourceN.csv                 each replayed trace, as wmrun
 *                                        reads it: checked, bad lines
 *                                        skipped as on_bad_record says,
 *                                        and paced (see below); each
 *                                        generated source's recording
 *                                        under --sim (flink_record.h)
 *
 * The exported trace has the columns partition,timestamp,key,value,arrival
 * in the order wmrun releases the records, and arrival is the time wmrun
 * would release each (its pacing applied: fast, arrival or event, a
 * partition's record never before the one above it, wall-clock arrivals
 * rebased), so the Java source paces by arrival alone and replays exactly
 * what wmrun replays. A recording is written as --record-trace writes it:
 * each partition's records in the order it emitted them, arrivals already
 * whole milliseconds. The directory is made if missing; files in it are
 * replaced whole (outfile.h; a recording as a sink writes its file),
 * others left alone. The replayed traces are written first, then the
 * generated sources recorded, which turns them into replays in `topo`,
 * then the pom, the support classes and Job.java.
 */
#ifndef WM_RUNTIME_EXPORT_FLINK_PROJECT_H
#define WM_RUNTIME_EXPORT_FLINK_PROJECT_H

#include <stddef.h>

#include "runtime/conf/topology.h"

/*
 * Export `topo`, loaded from `doc` (its positions, for messages: the file
 * with any --set settings; NULL for none) of `path` (NULL: built in),
 * into `dir`; its
 * generated sources become replays of their recordings (flink_record.h),
 * so the caller only frees it after. 0, or the exit status after a
 * message on stderr: EX_CONFIG for what Flink cannot express
 * (file:line:col), EX_DATAERR for a malformed trace, EX_NOINPUT,
 * EX_IOERR, EX_OSERR, 128 + n when signal n stopped the recording.
 * Warnings and what was recorded go to stderr.
 */
int wm_export_flink_project(struct wm_topology *topo,
			    const struct wm_ini_doc *doc, const char *path,
			    const char *dir);

#endif /* WM_RUNTIME_EXPORT_FLINK_PROJECT_H */
