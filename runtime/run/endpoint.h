/*
 * endpoint.h
 *	The HTTP endpoint of a running job (wmrun --prometheus): a
 *	libmicrohttpd daemon that answers GET /metrics with what its render
 *	function writes.
 *
 * Only the observer process starts one (observer.h): the daemon runs a
 * thread of its own, and the process that forks workers must have none.
 * The render function runs on that thread, one request at a time (MHD's
 * internal polling thread serves every connection), and must not block:
 * the observer's reads the current snapshot under urcu-bp's read lock,
 * the flavour for threads that we do not create.
 *
 * The listening socket is made here, not by MHD, so that a port that
 * cannot be had fails with the reason the system gave.
 */
#ifndef WM_RUNTIME_RUN_ENDPOINT_H
#define WM_RUNTIME_RUN_ENDPOINT_H

#include <netinet/in.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

/* Where to listen: --prometheus [ADDR:]PORT. */
struct wm_listen {
	bool on;
	bool v6;		     /* ADDR was "[...]" */
	char addr[INET6_ADDRSTRLEN]; /* numeric; 127.0.0.1 by default */
	uint16_t port;		     /* 0: any free one */
};

/*
 * `arg` ("9249", "0.0.0.0:9249", "[::1]:0") into *out. 0, or -EINVAL with
 * err saying what is wrong (the caller's exit status is EX_USAGE).
 */
int wm_listen_parse(const char *arg, struct wm_listen *out, char *err,
		    size_t errlen);

/* Writes the answer to GET /metrics; false: answer 500. */
typedef bool (*wm_endpoint_render_fn)(void *arg, FILE *out);

struct wm_endpoint;

/*
 * Listen where `l` says and serve. Returns the endpoint, with *port the
 * port it listens on (the one picked if l->port was 0), or NULL with err
 * naming the address and the reason ("could not listen on
 * 127.0.0.1:9249: Address already in use").
 */
struct wm_endpoint *wm_endpoint_start(const struct wm_listen *l,
				      wm_endpoint_render_fn render, void *arg,
				      uint16_t *port, char *err, size_t errlen);

/* Stop serving; returns once the daemon's thread has ended. */
void wm_endpoint_stop(struct wm_endpoint *e);

#endif /* WM_RUNTIME_RUN_ENDPOINT_H */
