// SPDX-License-Identifier: GPL-2.0-only
/*
 * A process that publishes thread contexts a reader must refuse, never
 * crash on and never take a wrong id from: thread "unmapped" points at
 * memory that is not mapped, "invalid" at a record with valid = 2, "zero"
 * at a valid record with an all-zero trace id, and "churn" swaps its
 * pointer between two records without pause, on CPU, so a reader that
 * does not check what it read may take the pointer of one and the bytes
 * of another.  "good" publishes one id properly.
 *   prints "ready pid=PID", then runs until killed.
 */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <unistd.h>
#include "tract/otel_thread_ctx.h"

__attribute__((visibility("default"))) __thread struct otel_thread_ctx_record *otel_thread_ctx_v1;
static __thread struct otel_thread_ctx_record rec, other;
static pthread_barrier_t published;
static int block[2];

static void ids(struct otel_thread_ctx_record *r, uint8_t t, uint8_t s)
{
	memset(r->trace_id, t, sizeof(r->trace_id));
	memset(r->span_id, s, sizeof(r->span_id));
}

static void *worker(void *arg)
{
	const char *name = arg;

	prctl(PR_SET_NAME, name);
	if (!strcmp(name, "unmapped")) {
		void *p = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

		munmap(p, 4096);
		otel_thread_ctx_v1 = p;
	} else if (!strcmp(name, "invalid")) {
		ids(&rec, 0x22, 0x22);
		rec.valid = 2;
		otel_thread_ctx_v1 = &rec;
	} else if (!strcmp(name, "zero")) {
		ids(&rec, 0, 0x33);
		rec.valid = 1;
		otel_thread_ctx_v1 = &rec;
	} else if (!strcmp(name, "good")) {
		ids(&rec, 0x44, 0x45);
		rec.valid = 1;
		otel_thread_ctx_v1 = &rec;
	} else {
		ids(&rec, 0x55, 0x55);
		ids(&other, 0x66, 0x66);
		rec.valid = other.valid = 1;
		otel_thread_ctx_v1 = &rec;
	}
	pthread_barrier_wait(&published);
	if (!strcmp(name, "churn")) {
		/* each record whole and still; only which one is published changes */
		for (;;) {
			otel_thread_ctx_v1 = otel_thread_ctx_v1 == &rec ? &other : &rec;
			__atomic_signal_fence(__ATOMIC_SEQ_CST);
		}
	}
	/* blocked in a read: a sampled thread */
	for (char c;;)
		if (read(block[0], &c, 1) <= 0)
			pause();
	return NULL;
}

int main(void)
{
	static const char *const names[] = { "unmapped", "invalid", "zero", "good", "churn" };
	pthread_t t;

	if (pipe(block))
		return 1;
	pthread_barrier_init(&published, NULL, sizeof(names) / sizeof(names[0]) + 1);
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		pthread_create(&t, NULL, worker, (void *)names[i]);
	pthread_barrier_wait(&published);
	printf("ready pid=%d\n", getpid());
	fflush(stdout);
	for (;;)
		pause();
}
