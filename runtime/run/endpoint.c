/*
 * endpoint.c
 *	The libmicrohttpd daemon of --prometheus (endpoint.h).
 */
#include "config.h"

#include <arpa/inet.h>
#include <errno.h>
#include <limits.h>
#include <microhttpd.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "runtime/run/endpoint.h"

/* The content type of the text exposition format, version 0.0.4. */
#define EXPOSITION_TYPE "text/plain; version=0.0.4; charset=utf-8"

struct wm_endpoint {
	struct MHD_Daemon *daemon;
	int fd; /* the listening socket, ours until the daemon has it */
	wm_endpoint_render_fn render;
	void *arg;
};

/* A port: 0 to 65535, digits only. */
static bool
parse_port(const char *s, uint16_t *port)
{
	char *end;
	long v;

	if (*s < '0' || *s > '9')
		return false;
	errno = 0;
	v = strtol(s, &end, 10);
	if (errno != 0 || *end != '\0' || v > 65535)
		return false;
	*port = (uint16_t)v;
	return true;
}

int
wm_listen_parse(const char *arg, struct wm_listen *out, char *err,
		size_t errlen)
{
	const char *whole = arg;
	const char *colon = strrchr(arg, ':');
	const char *port = colon != NULL ? colon + 1 : arg;
	unsigned char bytes[sizeof(struct in6_addr)];
	size_t alen = colon != NULL ? (size_t)(colon - arg) : 0;

	*out = (struct wm_listen){.on = true};
	strcpy(out->addr, "127.0.0.1");
	if (!parse_port(port, &out->port)) {
		snprintf(err, errlen,
			 "invalid --prometheus \"%s\": the port must be a "
			 "number from 0 to 65535",
			 whole);
		return -EINVAL;
	}
	if (colon == NULL)
		return 0;
	if (alen >= 2 && arg[0] == '[' && arg[alen - 1] == ']') {
		out->v6 = true;
		arg++;
		alen -= 2;
	}
	if (alen == 0 || alen >= sizeof(out->addr)) {
		snprintf(err, errlen,
			 "invalid --prometheus \"%s\": the address must be "
			 "a numeric IPv4 address or an IPv6 one in brackets",
			 whole);
		return -EINVAL;
	}
	memcpy(out->addr, arg, alen);
	out->addr[alen] = '\0';
	if (inet_pton(out->v6 ? AF_INET6 : AF_INET, out->addr, bytes) != 1) {
		snprintf(err, errlen,
			 "invalid --prometheus address \"%s\": not a numeric "
			 "%s address",
			 out->addr, out->v6 ? "IPv6" : "IPv4");
		return -EINVAL;
	}
	return 0;
}

/* A bound, listening socket for `l`, or -1 with err set. */
static int
listen_on(const struct wm_listen *l, uint16_t *port, char *err, size_t errlen)
{
	struct sockaddr_storage ss = {0};
	socklen_t len;
	int one = 1;
	int fd = socket(l->v6 ? AF_INET6 : AF_INET, SOCK_STREAM | SOCK_CLOEXEC,
			0);

	if (l->v6) {
		struct sockaddr_in6 *a = (struct sockaddr_in6 *)&ss;

		a->sin6_family = AF_INET6;
		a->sin6_port = htons(l->port);
		inet_pton(AF_INET6, l->addr, &a->sin6_addr);
		len = sizeof(*a);
	} else {
		struct sockaddr_in *a = (struct sockaddr_in *)&ss;

		a->sin_family = AF_INET;
		a->sin_port = htons(l->port);
		inet_pton(AF_INET, l->addr, &a->sin_addr);
		len = sizeof(*a);
	}
	/* A port left in TIME_WAIT by the run before is ours to take. */
	if (fd < 0 ||
	    setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) != 0 ||
	    bind(fd, (struct sockaddr *)&ss, len) != 0 || listen(fd, 16) != 0 ||
	    getsockname(fd, (struct sockaddr *)&ss, &len) != 0) {
		int e = errno;

		snprintf(err, errlen, "could not listen on %s%s%s:%u: %s",
			 l->v6 ? "[" : "", l->addr, l->v6 ? "]" : "",
			 (unsigned)l->port, strerror(e));
		if (fd >= 0)
			close(fd);
		return -1;
	}
	*port = ntohs(l->v6 ? ((struct sockaddr_in6 *)&ss)->sin6_port
			    : ((struct sockaddr_in *)&ss)->sin_port);
	return fd;
}

static enum MHD_Result
answer(struct MHD_Connection *c, unsigned code, char *body, size_t len)
{
	struct MHD_Response *r = MHD_create_response_from_buffer(
		len, body, MHD_RESPMEM_MUST_FREE);
	enum MHD_Result ok;

	if (r == NULL) {
		free(body);
		return MHD_NO;
	}
	MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE,
				code == MHD_HTTP_OK ? EXPOSITION_TYPE
						    : "text/plain");
	ok = MHD_queue_response(c, code, r);
	MHD_destroy_response(r);
	return ok;
}

/* A short answer of our own (404, 405, 500). */
static enum MHD_Result
answer_text(struct MHD_Connection *c, unsigned code, const char *text)
{
	char *body = strdup(text);

	return body != NULL ? answer(c, code, body, strlen(body)) : MHD_NO;
}

static enum MHD_Result
serve(void *cls, struct MHD_Connection *c, const char *url, const char *method,
      const char *version, const char *upload, size_t *upload_size,
      void **state)
{
	struct wm_endpoint *e = cls;
	char *text = NULL;
	size_t len = 0;
	FILE *m;
	bool ok;

	(void)version;
	(void)upload;
	(void)upload_size;
	(void)state;
	if (strcmp(method, MHD_HTTP_METHOD_GET) != 0 &&
	    strcmp(method, MHD_HTTP_METHOD_HEAD) != 0)
		return answer_text(c, MHD_HTTP_METHOD_NOT_ALLOWED,
				   "only GET /metrics\n");
	if (strcmp(url, "/metrics") != 0)
		return answer_text(c, MHD_HTTP_NOT_FOUND,
				   "the metrics are at /metrics\n");
	m = open_memstream(&text, &len);
	if (m == NULL)
		return answer_text(c, MHD_HTTP_INTERNAL_SERVER_ERROR,
				   "out of memory\n");
	ok = e->render(e->arg, m);
	if (fclose(m) != 0 || !ok) {
		free(text);
		return answer_text(c, MHD_HTTP_INTERNAL_SERVER_ERROR,
				   "could not render the metrics\n");
	}
	return answer(c, MHD_HTTP_OK, text, len);
}

struct wm_endpoint *
wm_endpoint_start(const struct wm_listen *l, wm_endpoint_render_fn render,
		  void *arg, uint16_t *port, char *err, size_t errlen)
{
	struct wm_endpoint *e = calloc(1, sizeof(*e));
	/* ITC: the daemon can be quiesced (wm_endpoint_stop()). */
	unsigned flags =
		MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_AUTO | MHD_USE_ITC;

	if (e == NULL) {
		snprintf(err, errlen, "could not start the endpoint: %s",
			 strerror(ENOMEM));
		return NULL;
	}
	e->render = render;
	e->arg = arg;
	e->fd = listen_on(l, port, err, errlen);
	if (e->fd < 0) {
		free(e);
		return NULL;
	}
	if (l->v6)
		flags |= MHD_USE_IPv6;
	e->daemon = MHD_start_daemon(
		flags, 0, NULL, NULL, serve, e, MHD_OPTION_LISTEN_SOCKET, e->fd,
		MHD_OPTION_CONNECTION_TIMEOUT, (unsigned)10, MHD_OPTION_END);
	if (e->daemon == NULL) {
		snprintf(err, errlen,
			 "could not start the HTTP server on %s%s%s:%u",
			 l->v6 ? "[" : "", l->addr, l->v6 ? "]" : "",
			 (unsigned)*port);
		close(e->fd);
		free(e);
		return NULL;
	}
	return e;
}

void
wm_endpoint_stop(struct wm_endpoint *e)
{
	if (e == NULL)
		return;
	/* Quiesced, the daemon hands the socket back and never closes it,
	 * whoever made it; else it closes it when it stops. */
	MHD_socket fd = MHD_quiesce_daemon(e->daemon);

	MHD_stop_daemon(e->daemon);
	if (fd != MHD_INVALID_SOCKET)
		close(fd);
	free(e);
}
