/*
 * checkpoint_tool.c
 *	The checkpoint store from the command line, for the integration
 *	tests of what it does on a real file system:
 *
 *	checkpoint_tool write DIR ID SUBTASKS BYTES
 *		write checkpoint ID of SUBTASKS blobs of BYTES bytes each
 *		(retaining one); on a failure print the error, abort the
 *		checkpoint and exit 74
 *	checkpoint_tool latest DIR SUBTASKS
 *		print "latest ID" of the newest complete checkpoint ("none"
 *		if there is none, exit 1) after checking every blob's bytes
 *		are the ones write put there (exit 70 if not)
 *
 *	A blob's bytes follow from its checkpoint and subtask, so latest can
 *	tell them apart without keeping a copy.
 */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sysexits.h>

#include "runtime/checkpoint/checkpoint_store.h"

/* The job's fingerprint: both commands are of one job. */
#define FINGERPRINT UINT64_C(0xc0ffee)

static unsigned char
byte_of(uint64_t id, uint32_t subtask, size_t i)
{
	return (unsigned char)(id * 131 + subtask * 17 + i * 7 + i / 251);
}

static int
usage(void)
{
	fprintf(stderr, "usage: checkpoint_tool write DIR ID SUBTASKS BYTES\n"
			"       checkpoint_tool latest DIR SUBTASKS\n");
	return EX_USAGE;
}

static int
write_checkpoint(struct wm_checkpoint_store *s, uint64_t id, uint32_t subtasks,
		 size_t bytes)
{
	unsigned char *blob = malloc(bytes > 0 ? bytes : 1);
	char err[1024], ignored[1024];
	struct wm_checkpoint_figures fig;
	int r;

	if (blob == NULL)
		return EX_OSERR;
	r = wm_checkpoint_store_begin(s, id, 0, err, sizeof(err));
	for (uint32_t t = 0; r == 0 && t < subtasks; t++) {
		for (size_t i = 0; i < bytes; i++)
			blob[i] = byte_of(id, t, i);
		r = wm_checkpoint_store_put(s, t, blob, bytes, err,
					    sizeof(err));
	}
	if (r == 0)
		r = wm_checkpoint_store_commit(s, &fig, err, sizeof(err));
	else
		wm_checkpoint_store_abort(s, id, ignored, sizeof(ignored));
	free(blob);
	if (r != 0) {
		fprintf(stderr, "checkpoint_tool: %s\n", err);
		return EX_IOERR;
	}
	printf("checkpoint %" PRIu64 ": %" PRIu64
	       " bytes written, %u removed\n",
	       fig.id, fig.bytes_written, fig.removed);
	return 0;
}

static int
check_latest(struct wm_checkpoint_store *s, uint32_t subtasks)
{
	struct wm_checkpoint_info info;
	char err[1024];
	int r = wm_checkpoint_store_latest_complete(s, &info, err, sizeof(err));

	if (r < 0) {
		fprintf(stderr, "checkpoint_tool: %s\n", err);
		return EX_IOERR;
	}
	if (r == 0) {
		printf("none\n");
		return 1;
	}
	for (uint32_t t = 0; t < subtasks; t++) {
		unsigned char *blob;
		size_t len;
		void *got;

		if (wm_checkpoint_store_get(s, info.id, t, &got, &len, err,
					    sizeof(err)) != 0) {
			fprintf(stderr, "checkpoint_tool: %s\n", err);
			return EX_IOERR;
		}
		blob = got;
		for (size_t i = 0; i < len; i++)
			if (blob[i] != byte_of(info.id, t, i)) {
				fprintf(stderr,
					"checkpoint_tool: checkpoint %" PRIu64
					" subtask %" PRIu32
					": byte %zu is not the one written\n",
					info.id, t, i);
				free(got);
				return EX_SOFTWARE;
			}
		free(got);
	}
	printf("latest %" PRIu64 "\n", info.id);
	return 0;
}

int
main(int argc, char **argv)
{
	struct wm_checkpoint_store_config config = {.retained = 1};
	struct wm_checkpoint_store *s;
	bool write;
	char err[1024];
	int r;

	if (argc < 4)
		return usage();
	write = strcmp(argv[1], "write") == 0;
	if (write ? argc != 6 : strcmp(argv[1], "latest") != 0 || argc != 4)
		return usage();
	config.dir = argv[2];
	config.fingerprint = FINGERPRINT;
	config.subtasks = (uint32_t)strtoul(argv[write ? 4 : 3], NULL, 10);
	if (wm_checkpoint_store_new(&s, &config, err, sizeof(err)) != 0) {
		fprintf(stderr, "checkpoint_tool: %s\n", err);
		return EX_USAGE;
	}
	if (write)
		r = write_checkpoint(s, strtoull(argv[3], NULL, 10),
				     config.subtasks,
				     (size_t)strtoull(argv[5], NULL, 10));
	else
		r = check_latest(s, config.subtasks);
	wm_checkpoint_store_free(s);
	return r;
}
