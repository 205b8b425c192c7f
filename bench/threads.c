// SPDX-License-Identifier: GPL-2.0-only
/*
 * N threads that each wait in read() on a pipe: all of them count as active
 * (a pipe wait is not an idle wait), so every pass must emit N rows.  With
 * "idle" they wait on a condition variable instead, an idle pool that the
 * sampler visits and skips.  With "otel", every other thread publishes an
 * OpenTelemetry thread context (a trace of its own, with a route and a
 * user as attributes the process context names) before it waits.
 * Prints "ready" once all are started, exits on SIGINT/SIGTERM.
 */
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#define OTEL_THREAD_CTX_IMPLEMENTATION
#include "tract/otel_thread_ctx.h"

static int gate[2];
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t never = PTHREAD_COND_INITIALIZER;

static void *idler(void *arg)
{
	(void)arg;
	pthread_mutex_lock(&lock);
	for (;;)
		pthread_cond_wait(&never, &lock);
	return NULL;
}

static void *waiter(void *arg)
{
	long k = (long)arg;
	char c;

	if (k > 0) {
		uint8_t trace[16] = { 1 }, span[8] = { 2 };

		memcpy(trace + 8, &k, sizeof(k));
		memcpy(span, &k, sizeof(k));
		char user[32];

		otel_thread_ctx_attach(trace, span, 1);
		otel_thread_ctx_set_attr(0, "/api/v1/checkout", 16);
		snprintf(user, sizeof(user), "user-%ld", k);
		otel_thread_ctx_set_attr(1, user, strlen(user));
	}
	/* never returns: nobody writes to the pipe */
	while (read(gate[0], &c, 1) < 0)
		;
	return NULL;
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 1000;
	int idle = argc > 2 && argv[2][0] == 'i', otel = argc > 2 && argv[2][0] == 'o';
	pthread_attr_t attr;
	sigset_t set;
	int sig;

	if (n <= 0 || pipe(gate))
		return 2;
	sigemptyset(&set);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGTERM);
	pthread_sigmask(SIG_BLOCK, &set, NULL);
	if (otel) {
		static const char *const keys[] = { "http.route", "user.id" };

		if (otel_thread_ctx_publish_process("bench", keys, 2))
			return 1;
	}
	pthread_attr_init(&attr);
	pthread_attr_setstacksize(&attr, 64 * 1024);
	for (long i = 0; i < n; i++) {
		pthread_t t;

		if (pthread_create(&t, &attr, idle ? idler : waiter, (void *)(otel && i % 2 ? i : 0))) {
			perror("pthread_create");
			return 1;
		}
	}
	printf("ready %d\n", getpid());
	fflush(stdout);
	sigwait(&set, &sig);
	return 0;
}
