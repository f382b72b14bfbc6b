/*
 * flink_peer.c
 *	Building flink/peer/ and talking to its JVM (flink_peer.h).
 *
 * The conversation, one line each way per run:
 *
 *	JVM:	ready records=N				(the trace is read)
 *	wmbench: P default | P reuse
 *	JVM:	bench=pipeline impl=flink variant=pP[-reuse] metric=run
 *		records=N results=W first_to_last_ns=T execute_ns=E
 *
 * The JVM checks each run before it answers and exits 70 instead when it
 * is wrong; wmbench checks the answer's counts again, so that a peer that
 * skipped its check cannot give a figure either.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <sysexits.h>
#include <unistd.h>

#include "bench/flink_peer.h"
#include "base/log.h"

#define PEER_POM WM_FLINK_PEER_SRCDIR "/pom.xml"
#define PEER_SOURCE                                                            \
	WM_FLINK_PEER_SRCDIR "/src/main/java/wmrun/peer/PipelinePeer.java"
#define PEER_JAR WM_FLINK_PEER_BUILDDIR "/wmrun-flink-peer.jar"
#define PEER_CLASSPATH WM_FLINK_PEER_BUILDDIR "/classpath.txt"
#define PEER_LOG WM_FLINK_PEER_BUILDDIR "/mvn.log"
#define PEER_CLASS "wmrun.peer.PipelinePeer"
/* execvp()'s status when it could not run the program */
#define EXEC_FAILED 127

struct wm_flink_peer {
	pid_t pid; /* -1 once reaped */
	FILE *in;  /* the socket: answers read here, requests sent on it */
	uint64_t records, results;
};

static bool
on_path(const char *name)
{
	const char *path = getenv("PATH");
	char file[PATH_MAX];

	while (path != NULL && *path != '\0') {
		const char *end = strchr(path, ':');
		size_t len = end ? (size_t)(end - path) : strlen(path);

		if (len > 0 &&
		    snprintf(file, sizeof(file), "%.*s/%s", (int)len, path,
			     name) < (int)sizeof(file) &&
		    access(file, X_OK) == 0)
			return true;
		path = end ? end + 1 : NULL;
	}
	return false;
}

/* A's modification time is after B's. */
static bool
newer(const struct stat *a, const struct stat *b)
{
	return a->st_mtim.tv_sec > b->st_mtim.tv_sec ||
	       (a->st_mtim.tv_sec == b->st_mtim.tv_sec &&
		a->st_mtim.tv_nsec > b->st_mtim.tv_nsec);
}

/* The jar or its class path is missing, or older than a source. */
static bool
needs_build(void)
{
	struct stat jar, cp, pom, source;

	if (stat(PEER_JAR, &jar) != 0 || stat(PEER_CLASSPATH, &cp) != 0)
		return true;
	if (stat(PEER_POM, &pom) != 0 || stat(PEER_SOURCE, &source) != 0)
		return false; /* no sources to build from: use the jar */
	return newer(&pom, &jar) || newer(&source, &jar);
}

/* execvp() of string constants: it takes char *const[] for C's old
 * programs and writes into none of them (POSIX says so). */
static void
exec_argv(const char *const argv[])
{
	union {
		const char *const *in;
		char *const *out;
	} args = {.in = argv};

	execvp(argv[0], args.out);
}

/* Run argv with standard input /dev/null and its output into log_fd;
 * its exit status, or -1 if it could not be started or was killed. */
static int
run_logged(const char *const argv[], int log_fd)
{
	int st;
	pid_t pid = fork();

	if (pid < 0)
		return -1;
	if (pid == 0) {
		int null = open("/dev/null", O_RDONLY);

		if (null < 0 || dup2(null, 0) < 0 || dup2(log_fd, 1) < 0 ||
		    dup2(log_fd, 2) < 0)
			_exit(EXEC_FAILED);
		exec_argv(argv);
		_exit(EXEC_FAILED);
	}
	while (waitpid(pid, &st, 0) < 0)
		if (errno != EINTR)
			return -1;
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

/* mvn package of flink/peer/ into the build tree: offline from the cache
 * first, from Maven Central if that fails. 0 or an exit status. */
static int
build(void)
{
	/* offline first; then without its last word, -o. Batch mode and no
	 * colour, as wherever the project calls Maven: its log is read as
	 * text. */
	const char *argv[] = {"mvn",
			      "-B",
			      "-q",
			      "-Dstyle.color=never",
			      "-f",
			      PEER_POM,
			      "-Dpeer.build=" WM_FLINK_PEER_BUILDDIR,
			      "package",
			      "-o",
			      NULL};
	int log_fd, r;

	if (!on_path("mvn")) {
		wm_log("wmbench: --peer flink needs mvn to build "
		       "the Flink peer (apt-get install maven)");
		return EX_UNAVAILABLE;
	}
	if ((mkdir(WM_FLINK_PEER_BUILDDIR, 0777) != 0 && errno != EEXIST) ||
	    (log_fd = open(PEER_LOG, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC,
			   0666)) < 0) {
		wm_log("wmbench: could not create \"%s\": %s", PEER_LOG,
		       strerror(errno));
		return EX_CANTCREAT;
	}
	wm_log("wmbench: building the Flink peer into %s (once; Maven's "
	       "output in %s)",
	       WM_FLINK_PEER_BUILDDIR, PEER_LOG);
	r = run_logged(argv, log_fd);
	if (r != 0) {
		argv[sizeof(argv) / sizeof(*argv) - 2] = NULL; /* the -o */
		r = run_logged(argv, log_fd);
	}
	close(log_fd);
	if (r != 0) {
		wm_log("wmbench: the Flink peer did not build (Maven "
		       "Central unreachable and Flink 2.3.0 not in ~/.m2?): "
		       "see %s",
		       PEER_LOG);
		return EX_UNAVAILABLE;
	}
	/* The jar plugin leaves a jar whose classes did not change as it
	 * was: mark it built now, or a changed pom would rebuild every
	 * run. */
	if (utimensat(AT_FDCWD, PEER_JAR, NULL, 0) != 0) {
		wm_log("wmbench: Maven made no \"%s\": %s", PEER_JAR,
		       strerror(errno));
		return EX_UNAVAILABLE;
	}
	return 0;
}

char *
wm_flink_peer_class_path(void)
{
	FILE *f = fopen(PEER_CLASSPATH, "r");
	size_t cap = 4096, len, jar = strlen(PEER_JAR);
	char *cp = malloc(cap);

	if (f == NULL || cp == NULL) {
		wm_log("wmbench: could not read \"%s\": %s", PEER_CLASSPATH,
		       strerror(errno));
		if (f != NULL)
			fclose(f);
		free(cp);
		return NULL;
	}
	memcpy(cp, PEER_JAR ":", jar + 1);
	len = jar + 1;
	for (;;) {
		size_t n = fread(cp + len, 1, cap - len - 1, f);

		len += n;
		if (len < cap - 1)
			break;
		char *bigger = realloc(cp, cap * 2);

		if (bigger == NULL) {
			free(cp);
			fclose(f);
			return NULL;
		}
		cp = bigger;
		cap *= 2;
	}
	fclose(f);
	while (len > 0 && (cp[len - 1] == '\n' || cp[len - 1] == '\r'))
		len--;
	cp[len] = '\0';
	return cp;
}

/* The JVM ended (its input or output did): reap it and say how; the exit
 * status for wmbench. Its own message, if any, is on our standard error
 * already. */
static int
peer_ended(struct wm_flink_peer *peer, const char *when)
{
	int st = 0;
	pid_t r;

	while ((r = waitpid(peer->pid, &st, 0)) < 0 && errno == EINTR)
		;
	peer->pid = -1;
	if (r < 0)
		wm_log("wmbench: the Flink peer ended %s", when);
	else if (WIFSIGNALED(st))
		wm_log("wmbench: the Flink peer was terminated by signal %d "
		       "%s",
		       WTERMSIG(st), when);
	else
		wm_log("wmbench: the Flink peer exited with status %d %s",
		       WEXITSTATUS(st), when);
	if (r >= 0 && WIFEXITED(st) && WEXITSTATUS(st) == EXEC_FAILED)
		return EX_UNAVAILABLE;
	return EX_SOFTWARE;
}

static void
peer_free(struct wm_flink_peer *peer)
{
	if (peer->in != NULL)
		fclose(peer->in);
	if (peer->pid > 0)
		while (waitpid(peer->pid, NULL, 0) < 0 && errno == EINTR)
			;
	free(peer);
}

int
wm_flink_peer_build(void)
{
	if (!on_path("java")) {
		wm_log("wmbench: --peer flink needs java (apt-get "
		       "install default-jdk-headless)");
		return EX_UNAVAILABLE;
	}
	return needs_build() ? build() : 0;
}

struct wm_flink_peer *
wm_flink_peer_start(const char *trace, uint64_t records, uint64_t results,
		    int64_t window_ms, int *status)
{
	struct wm_flink_peer *peer = NULL;
	char n[24], w[24], ms[24], line[128];
	char *cp = NULL;
	int sv[2] = {-1, -1};

	*status = EX_OSERR;
	if ((cp = wm_flink_peer_class_path()) == NULL ||
	    (peer = calloc(1, sizeof(*peer))) == NULL ||
	    socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) != 0) {
		wm_log("wmbench: could not start the Flink peer: %s",
		       strerror(errno));
		goto fail;
	}
	snprintf(n, sizeof(n), "%" PRIu64, records);
	snprintf(w, sizeof(w), "%" PRIu64, results);
	snprintf(ms, sizeof(ms), "%" PRId64, window_ms);
	peer->records = records;
	peer->results = results;
	peer->pid = fork();
	if (peer->pid == 0) {
		const char *const argv[] = {
			"java", "-cp", cp, PEER_CLASS, trace, n, w, ms, NULL};

		/* dup2() leaves the copies open across exec */
		if (dup2(sv[1], 0) < 0 || dup2(sv[1], 1) < 0)
			_exit(EXEC_FAILED);
		exec_argv(argv);
		wm_log("wmbench: could not run java: %s", strerror(errno));
		_exit(EXEC_FAILED);
	}
	if (peer->pid < 0) {
		wm_log("wmbench: could not start the Flink peer: %s",
		       strerror(errno));
		goto fail;
	}
	close(sv[1]);
	sv[1] = -1;
	peer->in = fdopen(sv[0], "r");
	if (peer->in == NULL) {
		wm_log("wmbench: could not start the Flink peer: %s",
		       strerror(errno));
		goto fail;
	}
	sv[0] = -1;
	free(cp);
	if (fgets(line, sizeof(line), peer->in) == NULL) {
		*status = peer_ended(peer, "before it read the trace");
		peer_free(peer);
		return NULL;
	}
	if (strncmp(line, "ready ", 6) != 0) {
		wm_log("wmbench: the Flink peer began with \"%.*s\"",
		       (int)strcspn(line, "\n"), line);
		*status = EX_SOFTWARE;
		wm_flink_peer_stop(peer);
		return NULL;
	}
	*status = 0;
	return peer;
fail:
	for (int i = 0; i < 2; i++)
		if (sv[i] >= 0)
			close(sv[i]);
	free(cp);
	if (peer != NULL) {
		if (peer->pid > 0)
			kill(peer->pid, SIGKILL);
		peer_free(peer);
	}
	return NULL;
}

int
wm_flink_peer_run(struct wm_flink_peer *peer, uint32_t parallelism, bool reuse,
		  struct wm_flink_peer_run *out)
{
	char request[32], line[512], variant[32], want[32];
	uint64_t records, results;
	int len = snprintf(request, sizeof(request), "%" PRIu32 " %s\n",
			   parallelism, reuse ? "reuse" : "default");

	snprintf(want, sizeof(want), "p%" PRIu32 "%s", parallelism,
		 reuse ? "-reuse" : "");
	if (send(fileno(peer->in), request, (size_t)len, MSG_NOSIGNAL) != len ||
	    fgets(line, sizeof(line), peer->in) == NULL) {
		char when[64];

		snprintf(when, sizeof(when), "in its %s run", want);
		return peer_ended(peer, when);
	}
	if (sscanf(line,
		   "bench=pipeline impl=flink variant=%31s metric=run "
		   "records=%" SCNu64 " results=%" SCNu64
		   " first_to_last_ns=%" SCNu64 " execute_ns=%" SCNu64,
		   variant, &records, &results, &out->first_to_last_ns,
		   &out->execute_ns) != 5 ||
	    strcmp(variant, want) != 0 || out->first_to_last_ns == 0 ||
	    out->execute_ns == 0) {
		wm_log("wmbench: the Flink peer answered \"%.*s\" to a %s "
		       "run",
		       (int)strcspn(line, "\n"), line, want);
		return EX_SOFTWARE;
	}
	if (records != peer->records || results != peer->results) {
		wm_log("wmbench: Flink %s counted %" PRIu64
		       " records in %" PRIu64 " results, expected %" PRIu64
		       " in %" PRIu64 "",
		       want, records, results, peer->records, peer->results);
		return EX_SOFTWARE;
	}
	return 0;
}

int
wm_flink_peer_stop(struct wm_flink_peer *peer)
{
	int st, rc = 0;

	if (peer == NULL)
		return 0;
	/* The end of its input ends it. */
	fclose(peer->in);
	peer->in = NULL;
	if (peer->pid > 0) {
		while (waitpid(peer->pid, &st, 0) < 0)
			if (errno != EINTR) {
				st = 0; /* reaped by someone else */
				break;
			}
		peer->pid = -1;
		if (!WIFEXITED(st) || WEXITSTATUS(st) != 0) {
			wm_log("wmbench: the Flink peer ended with status "
			       "%d at the end of its input",
			       WIFEXITED(st) ? WEXITSTATUS(st)
					     : 128 + WTERMSIG(st));
			rc = EX_SOFTWARE;
		}
	}
	free(peer);
	return rc;
}
