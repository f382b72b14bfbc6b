/*
 * checkpoint_manifest.h
 *	The text a checkpoint holds besides its blobs: its manifest (one
 *	fact a line, the CRC-32C of the lines before it on the last line)
 *	and the name of its directory, "chk-ID". For checkpoint_store.c
 *	only: the manifest's format is the store's (checkpoint_store.h says
 *	what a checkpoint is).
 *
 * Reading is strict: a manifest is what this store wrote, line for line
 * (numbers without sign or leading zeros, nothing after the checksum),
 * or it is refused with why; never a crash on any bytes.
 */
#ifndef WM_RUNTIME_CHECKPOINT_CHECKPOINT_MANIFEST_H
#define WM_RUNTIME_CHECKPOINT_CHECKPOINT_MANIFEST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* A blob as the manifest lists it. */
struct blob_sum {
	uint64_t size;
	uint32_t crc;
	bool present; /* while writing: put has written it */
};

struct manifest {
	uint64_t fingerprint;
	uint64_t id;
	uint32_t subtasks;
	int64_t trigger_time_ms;
	int64_t event_time_origin_ms; /* the job's (topology.h), >= 0 */
	struct blob_sum *blobs;	      /* subtasks of them */
};

/* A manifest's text in *out (malloc'd), *outlen bytes; 0 or -ENOMEM. */
int wm_checkpoint_manifest_text(const struct manifest *m, char **out,
				size_t *outlen);

/*
 * Parse a manifest's text into *m (its blobs malloc'd). false with `err`
 * ("line 4: ...") if it is not one this store wrote: every line in its
 * place, nothing after the checksum line, and that checksum the CRC-32C
 * of the lines before it.
 */
bool wm_checkpoint_manifest_parse(const char *text, size_t len,
				  struct manifest *m, char *err, size_t errlen);

/* Whether `name` is "chk-" and a decimal id without leading zeros (*id). */
bool wm_checkpoint_manifest_dir_id(const char *name, uint64_t *id);

#endif /* WM_RUNTIME_CHECKPOINT_CHECKPOINT_MANIFEST_H */
