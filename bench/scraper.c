/*
 * scraper.c
 *	The benchmark's Prometheus scraper process (scraper.h).
 */
#include "config.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "bench/scraper.h"

static struct sockaddr_in
loopback(uint16_t port)
{
	struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons(port)};

	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	return a;
}

uint16_t
wm_scraper_free_port(void)
{
	struct sockaddr_in a = loopback(0);
	socklen_t len = sizeof(a);
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	uint16_t port = 0;

	if (fd < 0)
		return 0;
	if (bind(fd, (struct sockaddr *)&a, sizeof(a)) == 0 &&
	    getsockname(fd, (struct sockaddr *)&a, &len) == 0)
		port = ntohs(a.sin_port);
	close(fd);
	return port;
}

/* One GET of /metrics, read to the end; true if a response came. */
static bool
scrape(uint16_t port)
{
	static const char request[] = "GET /metrics HTTP/1.0\r\n"
				      "Host: 127.0.0.1\r\n\r\n";
	struct sockaddr_in a = loopback(port);
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	char buf[65536];
	size_t got = 0;
	bool http = false;
	ssize_t n;

	if (fd < 0)
		return false;
	if (connect(fd, (struct sockaddr *)&a, sizeof(a)) != 0 ||
	    write(fd, request, sizeof(request) - 1) !=
		    (ssize_t)(sizeof(request) - 1)) {
		close(fd);
		return false;
	}
	while ((n = read(fd, buf, sizeof(buf))) > 0) {
		if (got == 0)
			http = n >= 7 && strncmp(buf, "HTTP/1.", 7) == 0;
		got += (size_t)n;
	}
	close(fd);
	return http;
}

int
wm_scraper_start(struct wm_scraper *s, uint16_t port, int64_t every_ns)
{
	void *m = mmap(NULL, sizeof(*s->scrapes), PROT_READ | PROT_WRITE,
		       MAP_SHARED | MAP_ANONYMOUS, -1, 0);

	if (m == MAP_FAILED)
		return -errno;
	s->scrapes = m;
	s->pid = fork();
	if (s->pid < 0) {
		int e = errno;

		munmap(m, sizeof(*s->scrapes));
		return -e;
	}
	if (s->pid > 0)
		return 0;
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	signal(SIGTERM, SIG_DFL);
	for (;;) {
		struct timespec t = {every_ns / 1000000000,
				     every_ns % 1000000000};

		/* Relaxed: the parent reads it after reaping this process. */
		if (scrape(port))
			atomic_fetch_add_explicit(s->scrapes, 1,
						  memory_order_relaxed);
		nanosleep(&t, NULL);
	}
}

uint64_t
wm_scraper_stop(struct wm_scraper *s)
{
	uint64_t n;

	kill(s->pid, SIGTERM);
	while (waitpid(s->pid, NULL, 0) < 0 && errno == EINTR)
		;
	n = atomic_load_explicit(s->scrapes, memory_order_relaxed);
	munmap(s->scrapes, sizeof(*s->scrapes));
	return n;
}
