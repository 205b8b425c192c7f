// SPDX-License-Identifier: GPL-2.0-only
#include <pthread.h>
#include <linux/capability.h>
#include <stdlib.h>
#include <string.h>
#include "sink.h"
#include "util.h"
#include "thread_caps.h"
#include "thread_sched.h"
#include "writer.h"

/* Slots cycle free -> claimed (sampler) -> queued -> written (writer) -> free. */
struct writer {
	struct sink *sink;
	pthread_t thread;
	pthread_mutex_t lock;
	pthread_cond_t wake;
	struct pass *slots;
	size_t depth;
	size_t head;		/* next slot the sampler claims */
	size_t queued;		/* slots submitted and not yet written */
	size_t tail;		/* next slot the writer writes */
	int stopping;
	int failing;
	struct writer_stats stats;
};

static void note_result(struct writer *w, const struct pass *p, int err)
{
	if (err) {
		if (!w->failing)
			tract_warn("pass %llu could not be stored; recording goes on",
				   (unsigned long long)p->seq);
		w->failing = 1;
		w->stats.failed++;
		return;
	}
	if (w->failing)
		tract_warn("storing again; %llu passes were lost",
			   (unsigned long long)(w->stats.failed + w->stats.overflowed));
	w->failing = 0;
	w->stats.stored++;
}

static void *writer_main(void *arg)
{
	struct writer *w = arg;
	int dropped;

	/* the sampler's higher priority and short slice are its own: back to the weight tract was started at */
	thread_sched_reset();
	/*
	 * It writes the store, which belongs to the recorder's user, and ships
	 * it: only a way through directories that user may not search (root's
	 * home), for it and the shipper it starts.
	 */
	dropped = thread_caps_keep((const int[]){ CAP_DAC_READ_SEARCH }, 1);
	if (dropped)
		tract_debug("the writer thread cannot drop its capabilities: %s", strerror(-dropped));

	pthread_mutex_lock(&w->lock);
	for (;;) {
		struct pass *p;
		int err;

		while (!w->queued && !w->stopping)
			pthread_cond_wait(&w->wake, &w->lock);
		if (!w->queued)
			break;
		p = &w->slots[w->tail];
		pthread_mutex_unlock(&w->lock);
		err = sink__write_pass(w->sink, p);
		pthread_mutex_lock(&w->lock);
		note_result(w, p, err);
		w->tail = (w->tail + 1) % w->depth;
		w->queued--;
	}
	pthread_mutex_unlock(&w->lock);
	return NULL;
}

struct writer *writer__start(struct sink *sink, size_t depth)
{
	struct writer *w = xcalloc(1, sizeof(*w));

	w->sink = sink;
	w->depth = depth;
	w->slots = xcalloc(depth, sizeof(*w->slots));
	pthread_mutex_init(&w->lock, NULL);
	pthread_cond_init(&w->wake, NULL);
	if (pthread_create(&w->thread, NULL, writer_main, w)) {
		tract_err("cannot start the writer thread");
		abort();
	}
	return w;
}

struct pass *writer__claim(struct writer *w)
{
	struct pass *p = NULL;

	pthread_mutex_lock(&w->lock);
	if (w->queued < w->depth) {
		p = &w->slots[w->head];
		pass__reset(p);
	} else {
		w->stats.overflowed++;
	}
	pthread_mutex_unlock(&w->lock);
	return p;
}

void writer__submit(struct writer *w, struct pass *p)
{
	(void)p;
	pthread_mutex_lock(&w->lock);
	w->head = (w->head + 1) % w->depth;
	w->queued++;
	pthread_mutex_unlock(&w->lock);
	/* after unlocking: a writer woken under the lock would only block on it again */
	pthread_cond_signal(&w->wake);
}

void writer__stop(struct writer *w, struct writer_stats *stats)
{
	pthread_mutex_lock(&w->lock);
	w->stopping = 1;
	pthread_cond_signal(&w->wake);
	pthread_mutex_unlock(&w->lock);
	pthread_join(w->thread, NULL);
	if (stats)
		*stats = w->stats;
	for (size_t i = 0; i < w->depth; i++)
		pass__free_rows(&w->slots[i]);
	free(w->slots);
	pthread_mutex_destroy(&w->lock);
	pthread_cond_destroy(&w->wake);
	free(w);
}
