/*
 * page_ahead.c
 *	Pages populated ahead of a writer (page_ahead.h).
 */
#include "config.h"

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#include "lib/page_ahead.h"

/* Bytes populated by one call: enough that the call's own cost is small
 * beside its pages', few enough that the writer's news is heard soon. */
#define CHUNK ((size_t)1 << 20)

struct wm_page_ahead {
	pthread_t thread;
	char *base;
	size_t len, lead, page;
	/* Under lock: what the writer said, and whether to stop. The
	 * thread waits on `moved` for either to change. */
	pthread_mutex_t lock;
	pthread_cond_t moved;
	size_t written;
	bool stop;
};

static void *
populate(void *arg)
{
	struct wm_page_ahead *pa = arg;
	size_t done = 0;

	pthread_mutex_lock(&pa->lock);
	while (!pa->stop && done < pa->len) {
		/* In whole pages, as madvise() takes them (len is). */
		size_t want = (pa->written + pa->lead + pa->page - 1) &
			      ~(pa->page - 1),
		       chunk;

		want = want < pa->len ? want : pa->len;
		/* Behind the writer: its pages are in already. */
		if (done < pa->written)
			done = pa->written & ~(pa->page - 1);
		if (done >= want) {
			pthread_cond_wait(&pa->moved, &pa->lock);
			continue;
		}
		pthread_mutex_unlock(&pa->lock);
		chunk = want - done < CHUNK ? want - done : CHUNK;
		/* A refusal (an older kernel: EINVAL) ends the thread; the
		 * writer faults the rest in itself. */
		if (madvise(pa->base + done, chunk, MADV_POPULATE_WRITE) != 0) {
			pthread_mutex_lock(&pa->lock);
			break;
		}
		done += chunk;
		pthread_mutex_lock(&pa->lock);
	}
	pthread_mutex_unlock(&pa->lock);
	return NULL;
}

struct wm_page_ahead *
wm_page_ahead_start(void *base, size_t len, size_t lead)
{
	struct wm_page_ahead *pa = malloc(sizeof(*pa));
	long page = sysconf(_SC_PAGESIZE);

	if (pa == NULL)
		return NULL;
	*pa = (struct wm_page_ahead){
		.base = base,
		.len = len,
		.lead = lead,
		.page = page > 0 ? (size_t)page : 4096,
	};
	if (pthread_mutex_init(&pa->lock, NULL) != 0) {
		free(pa);
		return NULL;
	}
	if (pthread_cond_init(&pa->moved, NULL) != 0) {
		pthread_mutex_destroy(&pa->lock);
		free(pa);
		return NULL;
	}
	if (pthread_create(&pa->thread, NULL, populate, pa) != 0) {
		pthread_cond_destroy(&pa->moved);
		pthread_mutex_destroy(&pa->lock);
		free(pa);
		return NULL;
	}
	return pa;
}

void
wm_page_ahead_at(struct wm_page_ahead *pa, size_t written)
{
	if (pa == NULL)
		return;
	pthread_mutex_lock(&pa->lock);
	pa->written = written;
	pthread_cond_signal(&pa->moved);
	pthread_mutex_unlock(&pa->lock);
}

void
wm_page_ahead_stop(struct wm_page_ahead *pa)
{
	if (pa == NULL)
		return;
	pthread_mutex_lock(&pa->lock);
	pa->stop = true;
	pthread_cond_signal(&pa->moved);
	pthread_mutex_unlock(&pa->lock);
	pthread_join(pa->thread, NULL);
	pthread_cond_destroy(&pa->moved);
	pthread_mutex_destroy(&pa->lock);
	free(pa);
}
