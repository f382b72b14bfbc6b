/*
 * part_commit.c
 *	Parts appended to their outputs' files when a checkpoint completes,
 *	and commits cut short repaired at recovery (part_commit.h).
 */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/clock.h"
#include "lib/snap.h"
#include "runtime/checkpoint/checkpoint_fail.h"
#include "runtime/checkpoint/part_commit.h"
#include "runtime/io/outfile.h"

#define COMMIT_SNAP_TAG WM_SNAP_TAG('P', 'C', 'M', 'T')
/* 2: the run id of the parts listed follows the checkpoint's id; 1 had
 * none (parts named without one, run 0), and is still read. */
#define COMMIT_SNAP_VERSION 2

/* A sealed part, not yet deleted. */
struct part {
	uint32_t writer;
	uint64_t epoch;
	uint64_t bytes;
};

/* The parts of one output: a growing array. */
struct parts {
	struct part *v;
	size_t n, cap;
};

struct output {
	char *path;
	int fd;
	char *dir; /* DIR/parts/NAME */
	uint32_t writers;
	/* The file's length when the committer was made (its header), and
	 * with every commit done so far. */
	uint64_t initial;
	uint64_t committed;
	/* Sealed, not in a checkpoint prepared yet; and those of the
	 * checkpoint prepared, with the length before them. */
	struct parts sealed;
	struct parts prepared;
	uint64_t prepared_before;
};

struct wm_part_commit {
	char *dir;
	struct output *outputs;
	uint32_t n_outputs;
	int (*step)(void *ctx, const char *what);
	void *ctx;
	uint64_t run; /* this run's id: its parts' names */
	/* The run whose parts the prepared lists name: this one's, or after
	 * a recovery's read_blob() the checkpoint's. */
	uint64_t prepared_run;
	uint64_t prepared_id; /* 0: none prepared */
	/* The last checkpoint whose commit began, or recovered to: its parts
	 * are needed until its commit ends (discard). */
	uint64_t last_id;
};

/* The test's hook (part_commit.h): nonzero stops here, as a crash. */
static int
step(const struct wm_part_commit *pc, const char *what, char *err,
     size_t errlen)
{
	if (pc->step == NULL || pc->step(pc->ctx, what) == 0)
		return 0;
	return wm_checkpoint_fail(err, errlen, EINTR,
				  "commit stopped before \"%s\"", what);
}

const char *
wm_part_commit_output_name(uint32_t stage, int late, char *buf, size_t len)
{
	snprintf(buf, len, "stage-%" PRIu32 "%s", stage,
		 late == 0   ? ""
		 : late == 1 ? "-late"
			     : "-late-right");
	return buf;
}

const char *
wm_part_commit_part_path(const char *dir, const char *name, uint64_t run,
			 uint32_t writer, uint64_t epoch, char *buf, size_t len)
{
	if (run == 0)
		snprintf(buf, len, "%s/parts/%s/s%" PRIu32 "-e%" PRIu64, dir,
			 name, writer, epoch);
	else
		snprintf(buf, len,
			 "%s/parts/%s/%016" PRIx64 "-s%" PRIu32 "-e%" PRIu64,
			 dir, name, run, writer, epoch);
	return buf;
}

bool
wm_part_commit_parse_part_name(const char *name, uint64_t *run,
			       uint32_t *writer, uint64_t *epoch)
{
	const char *p = name;
	char tail;

	*run = 0;
	/* 16 hex digits and '-', or nothing (run 0). */
	if (strspn(name, "0123456789abcdef") == 16 && name[16] == '-') {
		if (sscanf(name, "%16" SCNx64, run) != 1 || *run == 0)
			return false;
		p = name + 17;
	}
	return sscanf(p, "s%" SCNu32 "-e%" SCNu64 "%c", writer, epoch, &tail) ==
		       2 &&
	       p[1] >= '0' && p[1] <= '9';
}

uint64_t
wm_part_commit_new_run(void)
{
	uint64_t run = 0;

	/* getrandom() may be short or fail only before the pool is ready
	 * at boot: then the clock and the pid, unique enough among the
	 * jobs of one directory. */
	if (getrandom(&run, sizeof(run), 0) != (ssize_t)sizeof(run))
		run = (uint64_t)wm_monotonic_ns() * 0x9e3779b97f4a7c15u ^
		      (uint64_t)getpid();
	return run != 0 ? run : 1;
}

uint64_t
wm_part_commit_run(const struct wm_part_commit *pc)
{
	return pc->run;
}

/* The path of part `p` of output x in run `run`, in buf. */
static const char *
part_path(const struct wm_part_commit *pc, const struct output *x, uint64_t run,
	  const struct part *p, char *buf, size_t len)
{
	return wm_part_commit_part_path(pc->dir, strrchr(x->dir, '/') + 1, run,
					p->writer, p->epoch, buf, len);
}

static int
parts_push(struct parts *p, const struct part *x)
{
	if (p->n == p->cap) {
		size_t cap = p->cap ? 2 * p->cap : 16;
		struct part *v = realloc(p->v, cap * sizeof(*v));

		if (v == NULL)
			return -ENOMEM;
		p->v = v;
		p->cap = cap;
	}
	p->v[p->n++] = *x;
	return 0;
}

/* Directory `path`, made if missing, its name durable in its parent. */
static int
make_dir(const char *path, char *err, size_t errlen)
{
	char parent[PATH_MAX];

	if (mkdir(path, 0777) != 0) {
		if (errno == EEXIST)
			return 0;
		return wm_checkpoint_fail(
			err, errlen, errno,
			"could not create directory \"%s\": %s", path,
			strerror(errno));
	}
	return wm_outfile_sync_dir(
		wm_outfile_dir_of(path, parent, sizeof(parent)), err, errlen);
}

void
wm_part_commit_free(struct wm_part_commit *pc)
{
	if (pc == NULL)
		return;
	for (uint32_t o = 0; pc->outputs != NULL && o < pc->n_outputs; o++) {
		free(pc->outputs[o].path);
		free(pc->outputs[o].dir);
		free(pc->outputs[o].sealed.v);
		free(pc->outputs[o].prepared.v);
	}
	free(pc->outputs);
	free(pc->dir);
	free(pc);
}

int
wm_part_commit_new(struct wm_part_commit **out,
		   const struct wm_part_commit_config *config, char *err,
		   size_t errlen)
{
	struct wm_part_commit *pc = calloc(1, sizeof(*pc));
	char parts[PATH_MAX];
	int r;

	*out = NULL;
	if (pc == NULL || (pc->dir = strdup(config->dir)) == NULL ||
	    (pc->outputs = calloc(config->n_outputs ? config->n_outputs : 1,
				  sizeof(*pc->outputs))) == NULL) {
		wm_part_commit_free(pc);
		return wm_checkpoint_fail(err, errlen, ENOMEM, "out of memory");
	}
	pc->n_outputs = config->n_outputs;
	pc->run = pc->prepared_run = config->run;
	pc->step = config->step;
	pc->ctx = config->ctx;
	snprintf(parts, sizeof(parts), "%s/parts", config->dir);
	r = make_dir(config->dir, err, errlen);
	if (r == 0)
		r = make_dir(parts, err, errlen);
	for (uint32_t o = 0; r == 0 && o < pc->n_outputs; o++) {
		const struct wm_part_commit_output *c = &config->outputs[o];
		struct output *x = &pc->outputs[o];
		struct stat st;

		x->fd = c->fd;
		x->writers = c->writers;
		x->path = strdup(c->path);
		if (x->path == NULL ||
		    asprintf(&x->dir, "%s/%s", parts, c->name) < 0) {
			x->dir = NULL;
			r = wm_checkpoint_fail(err, errlen, ENOMEM,
					       "out of memory");
			break;
		}
		if (fstat(c->fd, &st) != 0 || !S_ISREG(st.st_mode)) {
			r = wm_checkpoint_fail(
				err, errlen, errno ? errno : EINVAL,
				"cannot commit parts to \"%s\": not a "
				"regular file",
				c->path);
			break;
		}
		x->initial = x->committed = (uint64_t)st.st_size;
		r = make_dir(x->dir, err, errlen);
	}
	if (r != 0) {
		wm_part_commit_free(pc);
		return r;
	}
	*out = pc;
	return 0;
}

int
wm_part_commit_sealed(struct wm_part_commit *pc, uint32_t output,
		      uint32_t writer, uint64_t epoch, uint64_t bytes)
{
	const struct part p = {
		.writer = writer, .epoch = epoch, .bytes = bytes};

	if (output >= pc->n_outputs || writer >= pc->outputs[output].writers)
		return -EINVAL;
	return parts_push(&pc->outputs[output].sealed, &p);
}

/* The order in which parts are appended: by epoch, then by writer, so that
 * each writer's lines stay in the order it wrote them. */
static int
part_order(const void *a, const void *b)
{
	const struct part *x = a, *y = b;

	if (x->epoch != y->epoch)
		return x->epoch < y->epoch ? -1 : 1;
	return (x->writer > y->writer) - (x->writer < y->writer);
}

int
wm_part_commit_prepare(struct wm_part_commit *pc, uint64_t id, void **blob,
		       size_t *len)
{
	struct wm_snap_writer w;
	int r = 0;

	*blob = NULL;
	*len = 0;
	wm_snap_writer_init(&w);
	wm_snap_begin(&w, COMMIT_SNAP_TAG, COMMIT_SNAP_VERSION);
	wm_snap_put_u64(&w, id);
	wm_snap_put_u64(&w, pc->run);
	pc->prepared_run = pc->run;
	wm_snap_put_u32(&w, pc->n_outputs);
	for (uint32_t o = 0; o < pc->n_outputs; o++) {
		struct output *x = &pc->outputs[o];
		size_t keep = 0;

		/* Those of epochs up to id move to the prepared list: every
		 * writer sealed at id, so none of them is still written. */
		x->prepared.n = 0;
		for (size_t i = 0; i < x->sealed.n; i++) {
			if (x->sealed.v[i].epoch > id)
				x->sealed.v[keep++] = x->sealed.v[i];
			else if (r == 0)
				r = parts_push(&x->prepared, &x->sealed.v[i]);
		}
		x->sealed.n = keep;
		qsort(x->prepared.v, x->prepared.n, sizeof(*x->prepared.v),
		      part_order);
		x->prepared_before = x->committed;
		wm_snap_put_u64(&w, x->committed);
		wm_snap_put_u64(&w, x->prepared.n);
		for (size_t i = 0; i < x->prepared.n; i++) {
			wm_snap_put_u32(&w, x->prepared.v[i].writer);
			wm_snap_put_u64(&w, x->prepared.v[i].epoch);
			wm_snap_put_u64(&w, x->prepared.v[i].bytes);
		}
	}
	wm_snap_end(&w);
	if (r == 0)
		r = wm_snap_writer_error(&w);
	if (r == 0) {
		*len = wm_snap_writer_len(&w);
		*blob = malloc(*len ? *len : 1);
		if (*blob == NULL)
			r = -ENOMEM;
		else
			memcpy(*blob, wm_snap_writer_bytes(&w), *len);
	}
	wm_snap_writer_release(&w);
	pc->prepared_id = r == 0 ? id : 0;
	return r;
}

/* Output x's file cut to `length`, which must not be beyond its end: a
 * file shorter than what the checkpoint says was committed contradicts
 * it (-EBADMSG), whichever of them is wrong. */
static int
truncate_to(const struct wm_part_commit *pc, const struct output *x,
	    uint64_t length, char *err, size_t errlen)
{
	struct stat st;
	int r;

	if (fstat(x->fd, &st) != 0)
		return wm_checkpoint_fail(err, errlen, errno,
					  "could not read \"%s\": %s", x->path,
					  strerror(errno));
	if ((uint64_t)st.st_size < length)
		return wm_checkpoint_fail(
			err, errlen, EBADMSG,
			"cannot recover \"%s\": it is %jd bytes, shorter "
			"than the %" PRIu64 " committed",
			x->path, (intmax_t)st.st_size, length);
	if ((uint64_t)st.st_size == length)
		return 0;
	if ((r = step(pc, "truncate", err, errlen)) != 0)
		return r;
	if (ftruncate(x->fd, (off_t)length) != 0)
		return wm_checkpoint_fail(err, errlen, errno,
					  "could not truncate \"%s\": %s",
					  x->path, strerror(errno));
	return 0;
}

/* Append part `p` of output x to its file (opened with O_APPEND, so each
 * write lands at the end). */
static int
append_part(const struct wm_part_commit *pc, const struct output *x,
	    uint64_t run, const struct part *p, char *err, size_t errlen)
{
	char path[PATH_MAX], buf[65536];
	uint64_t copied = 0;
	int fd, r = 0;

	part_path(pc, x, run, p, path, sizeof(path));
	if ((r = step(pc, "append", err, errlen)) != 0)
		return r;
	fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return wm_checkpoint_fail(err, errlen, errno,
					  "could not open part \"%s\": %s",
					  path, strerror(errno));
	while (r == 0 && copied < p->bytes) {
		size_t want = p->bytes - copied < sizeof(buf)
				      ? (size_t)(p->bytes - copied)
				      : sizeof(buf);
		ssize_t got = read(fd, buf, want);

		if (got < 0 && errno == EINTR)
			continue;
		if (got <= 0) {
			r = wm_checkpoint_fail(
				err, errlen, got < 0 ? errno : EIO,
				"could not read part \"%s\": %s", path,
				got < 0 ? strerror(errno)
					: "shorter than sealed");
			break;
		}
		for (ssize_t done = 0; done < got;) {
			ssize_t w =
				write(x->fd, buf + done, (size_t)(got - done));

			if (w < 0 && errno == EINTR)
				continue;
			if (w <= 0) {
				r = wm_checkpoint_fail(
					err, errlen, w < 0 ? errno : ENOSPC,
					"could not append part \"%s\" to "
					"\"%s\": %s",
					path, x->path,
					strerror(w < 0 ? errno : ENOSPC));
				break;
			}
			done += w;
		}
		copied += (uint64_t)got;
	}
	close(fd);
	return r;
}

static int
delete_part(const struct wm_part_commit *pc, const char *name, char *err,
	    size_t errlen)
{
	int r = step(pc, "delete", err, errlen);

	if (r != 0)
		return r;
	if (unlink(name) != 0 && errno != ENOENT)
		return wm_checkpoint_fail(err, errlen, errno,
					  "could not delete part \"%s\": %s",
					  name, strerror(errno));
	return 0;
}

/* Commit `parts` of output x, of run `run`, after its committed length
 * `before`: truncate, append in order, fsync, delete (part_commit.h,
 * step 3). */
static int
commit_output(struct wm_part_commit *pc, struct output *x, uint64_t run,
	      uint64_t before, const struct parts *parts, char *err,
	      size_t errlen)
{
	char path[PATH_MAX];
	uint64_t after = before;
	int r = truncate_to(pc, x, before, err, errlen);

	for (size_t i = 0; r == 0 && i < parts->n; i++) {
		r = append_part(pc, x, run, &parts->v[i], err, errlen);
		after += parts->v[i].bytes;
	}
	if (r == 0 && parts->n > 0 &&
	    (r = step(pc, "sync", err, errlen)) == 0 && fsync(x->fd) != 0 &&
	    errno != EINVAL)
		r = wm_checkpoint_fail(err, errlen, errno,
				       "could not sync \"%s\": %s", x->path,
				       strerror(errno));
	/* Durable with every part: only now may a part go, since recovery
	 * takes a missing part for a finished commit. */
	for (size_t i = 0; r == 0 && i < parts->n; i++)
		r = delete_part(
			pc,
			part_path(pc, x, run, &parts->v[i], path, sizeof(path)),
			err, errlen);
	if (r == 0)
		x->committed = after;
	return r;
}

int
wm_part_commit_commit(struct wm_part_commit *pc, uint64_t id, char *err,
		      size_t errlen)
{
	int r = 0;

	if (pc->prepared_id != id)
		return wm_checkpoint_fail(err, errlen, EINVAL,
					  "cannot commit checkpoint %" PRIu64
					  ": it was not prepared",
					  id);
	pc->last_id = id;
	for (uint32_t o = 0; r == 0 && o < pc->n_outputs; o++) {
		struct output *x = &pc->outputs[o];

		r = commit_output(pc, x, pc->prepared_run, x->prepared_before,
				  &x->prepared, err, errlen);
		if (r == 0)
			x->prepared.n = 0;
	}
	if (r == 0)
		pc->prepared_id = 0;
	return r;
}

int
wm_part_commit_finish(struct wm_part_commit *pc, char *err, size_t errlen)
{
	int r = 0;

	for (uint32_t o = 0; r == 0 && o < pc->n_outputs; o++) {
		struct output *x = &pc->outputs[o];

		qsort(x->sealed.v, x->sealed.n, sizeof(*x->sealed.v),
		      part_order);
		r = commit_output(pc, x, pc->run, x->committed, &x->sealed, err,
				  errlen);
		if (r == 0)
			x->sealed.n = 0;
	}
	return r;
}

/*
 * Delete run `run`'s parts in output x's directory with an epoch above
 * `above` (0: every one). Names that are not parts, and other runs'
 * parts, are left alone.
 */
static int
delete_parts_above(const struct wm_part_commit *pc, const struct output *x,
		   uint64_t run, uint64_t above, char *err, size_t errlen)
{
	DIR *d = opendir(x->dir);
	struct dirent *e;
	int r = 0;

	if (d == NULL)
		return errno == ENOENT
			       ? 0
			       : wm_checkpoint_fail(err, errlen, errno,
						    "could not read directory "
						    "\"%s\": %s",
						    x->dir, strerror(errno));
	while (r == 0 && (e = readdir(d)) != NULL) {
		char path[PATH_MAX];
		uint32_t writer;
		uint64_t epoch, of;

		if (!wm_part_commit_parse_part_name(e->d_name, &of, &writer,
						    &epoch) ||
		    of != run || (above != 0 && epoch <= above))
			continue;
		snprintf(path, sizeof(path), "%s/%s", x->dir, e->d_name);
		r = delete_part(pc, path, err, errlen);
	}
	closedir(d);
	return r;
}

/* Whether every part of `parts` is in x's directory with its size: 1, 0
 * (one is missing), -EBADMSG (one of another size: it contradicts the
 * checkpoint) or another negative errno. */
static int
all_present(const struct wm_part_commit *pc, const struct output *x,
	    const struct parts *parts, char *err, size_t errlen)
{
	for (size_t i = 0; i < parts->n; i++) {
		char path[PATH_MAX];
		struct stat st;

		part_path(pc, x, pc->prepared_run, &parts->v[i], path,
			  sizeof(path));
		if (lstat(path, &st) != 0) {
			if (errno == ENOENT)
				return 0;
			return wm_checkpoint_fail(
				err, errlen, errno,
				"could not read part \"%s\": %s", path,
				strerror(errno));
		}
		if (!S_ISREG(st.st_mode) ||
		    (uint64_t)st.st_size != parts->v[i].bytes)
			return wm_checkpoint_fail(
				err, errlen, EBADMSG,
				"cannot recover \"%s\": part \"%s\" is "
				"%jd bytes, sealed with %" PRIu64,
				x->path, path, (intmax_t)st.st_size,
				parts->v[i].bytes);
	}
	return 1;
}

/* Read the committer's blob of checkpoint `id` into each output's
 * prepared list and length before. What its prepare() cannot have
 * written is refused (-EBADMSG) before any file is touched: another
 * checkpoint's id, run 0, parts out of order or of an epoch after `id`,
 * lengths whose sum overflows. A blob whose checksums were forged over
 * plausible values is not caught: no checksum tells them apart. */
static int
read_blob(struct wm_part_commit *pc, const void *blob, size_t len, uint64_t id)
{
	struct wm_snap_reader rd;
	uint64_t of;

	wm_snap_reader_init(&rd, blob, len);
	if (wm_snap_enter(&rd, COMMIT_SNAP_TAG, COMMIT_SNAP_VERSION) == 0) {
		of = wm_snap_get_u64(&rd);
		pc->prepared_run = wm_snap_get_u64(&rd);
		if (pc->prepared_run == 0)
			return wm_snap_reader_fail(&rd, -EBADMSG);
	} else {
		/* Version 1: parts named without a run. */
		wm_snap_reader_init(&rd, blob, len);
		if (wm_snap_enter(&rd, COMMIT_SNAP_TAG, 1) != 0)
			return wm_snap_reader_error(&rd);
		of = wm_snap_get_u64(&rd);
		pc->prepared_run = 0;
	}
	if (of != id || wm_snap_get_u32(&rd) != pc->n_outputs)
		return wm_snap_reader_fail(&rd, -EBADMSG);
	for (uint32_t o = 0; o < pc->n_outputs; o++) {
		struct output *x = &pc->outputs[o];
		uint64_t n, total;

		x->prepared_before = total = wm_snap_get_u64(&rd);
		n = wm_snap_get_count(&rd, 20);
		x->prepared.n = 0;
		for (uint64_t i = 0; i < n && wm_snap_reader_error(&rd) == 0;
		     i++) {
			struct part p;

			p.writer = wm_snap_get_u32(&rd);
			p.epoch = wm_snap_get_u64(&rd);
			p.bytes = wm_snap_get_u64(&rd);
			/* prepare() sorted them (part_order()); a writer
			 * seals one part an epoch. */
			if (p.writer >= x->writers || p.epoch == 0 ||
			    p.epoch > id ||
			    (i > 0 &&
			     part_order(&x->prepared.v[i - 1], &p) >= 0) ||
			    __builtin_add_overflow(total, p.bytes, &total))
				return wm_snap_reader_fail(&rd, -EBADMSG);
			if (parts_push(&x->prepared, &p) != 0)
				return wm_snap_reader_fail(&rd, -ENOMEM);
		}
	}
	return wm_snap_leave(&rd);
}

/* Recover output x to the parts in its prepared list after its length
 * before (part_commit.h: recovery). */
static int
recover_output(struct wm_part_commit *pc, struct output *x, char *err,
	       size_t errlen)
{
	int r = all_present(pc, x, &x->prepared, err, errlen);

	if (r == 1)
		return commit_output(pc, x, pc->prepared_run,
				     x->prepared_before, &x->prepared, err,
				     errlen);
	if (r == 0) {
		/* The commit finished appending (its deletes began after the
		 * fsync): its length is the file's; the rest of its parts
		 * go with the others. */
		uint64_t after = x->prepared_before;

		for (size_t i = 0; i < x->prepared.n; i++)
			after += x->prepared.v[i].bytes;
		r = truncate_to(pc, x, after, err, errlen);
		if (r == 0)
			x->committed = after;
	}
	return r;
}

int
wm_part_commit_recover(struct wm_part_commit *pc, uint64_t id, const void *blob,
		       size_t len, char *err, size_t errlen)
{
	int r = 0;

	pc->prepared_id = 0;
	pc->prepared_run = pc->run;
	for (uint32_t o = 0; o < pc->n_outputs; o++)
		pc->outputs[o].sealed.n = pc->outputs[o].prepared.n = 0;
	if (blob != NULL) {
		r = read_blob(pc, blob, len, id);
		/* Whatever the reader refused (a cut, a foreign tag or
		 * version, a value above) is bad data: -EBADMSG. */
		if (r == -ENOMEM)
			return wm_checkpoint_fail(err, errlen, ENOMEM,
						  "out of memory");
		if (r != 0)
			return wm_checkpoint_fail(
				err, errlen, EBADMSG,
				"the file committer's blob is unreadable: "
				"it is not one this job wrote for "
				"checkpoint %" PRIu64,
				id);
	} else {
		/* No checkpoint: back to each file's length when the
		 * committer was made, with no part. */
		id = 0;
		for (uint32_t o = 0; o < pc->n_outputs; o++)
			pc->outputs[o].prepared_before = pc->outputs[o].initial;
	}
	pc->last_id = id;
	for (uint32_t o = 0; r == 0 && o < pc->n_outputs; o++) {
		struct output *x = &pc->outputs[o];

		/* This run's parts and the recovered run's: never those of
		 * another job that may yet resume. */
		r = recover_output(pc, x, err, errlen);
		if (r == 0)
			r = delete_parts_above(pc, x, pc->run, 0, err, errlen);
		if (r == 0 && pc->prepared_run != pc->run)
			r = delete_parts_above(pc, x, pc->prepared_run, 0, err,
					       errlen);
		x->prepared.n = 0;
	}
	return r;
}

int
wm_part_commit_discard(struct wm_part_commit *pc, char *err, size_t errlen)
{
	int first = 0;

	for (uint32_t o = 0; o < pc->n_outputs; o++) {
		char why[PATH_MAX + 128];
		int r;

		/* above 0 would mean every part: none committed yet is
		 * needed then either. */
		r = delete_parts_above(pc, &pc->outputs[o], pc->run,
				       pc->last_id, why, sizeof(why));
		if (r != 0 && first == 0) {
			first = r;
			snprintf(err, errlen, "%s", why);
		}
	}
	return first;
}
