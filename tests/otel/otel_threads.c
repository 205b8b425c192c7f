// SPDX-License-Identifier: GPL-2.0-only
/*
 * Threads that publish OpenTelemetry thread contexts of known ids and then
 * block, for tract's reader to be held to: thread ctxK publishes trace
 * 4bf92f3577b34da6a3ce929d0e0e47KK and span 00f067aa0ba902KK (KK = K in
 * hex), "detached" publishes and detaches (valid = 0), "plain" never
 * publishes.  The writer is linked in (any TLS model, as the build made it)
 * or, with --dlopen LIB, loaded after the threads exist.  With --attrs the
 * process publishes a process context naming three attribute keys
 * (http.route, user.id, odd=key), each ctxK thread sets /api/K, "u K" and v
 * and one more past the key map (left out), and a thread "spin" publishes
 * trace 4bf9...47ff with http.route /spin and stays on its CPU.
 *   usage: otel_threads [--dlopen LIB] [--attrs] [N]
 * prints "ready pid=PID" when every thread has published, then sleeps.
 */
#include <dlfcn.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <unistd.h>
#include "tract/otel_thread_ctx.h"

static int (*attach_hex)(const char *, const char *, uint8_t);
static void (*detach)(void);
static int (*set_attr)(uint8_t, const char *, size_t);
static int with_attrs;
static pthread_barrier_t published, go;
static int block[2];

#ifndef DLOPEN_ONLY
/* the linked writer */
static void use_linked(void)
{
	static const char *const keys[] = { "http.route", "user.id", "odd=key" };

	attach_hex = otel_thread_ctx_attach_hex;
	detach = otel_thread_ctx_detach;
	set_attr = otel_thread_ctx_set_attr;
	if (with_attrs && otel_thread_ctx_publish_process("otel_threads", keys, 3))
		exit(1);
}
#endif

struct job {
	char name[16];
	int k;
};

static void *worker(void *arg)
{
	struct job *j = arg;
	char trace[33], span[17], c;

	prctl(PR_SET_NAME, j->name);
	/* with --dlopen the library comes after the threads */
	pthread_barrier_wait(&go);
	if (j->k >= 0) {
		snprintf(trace, sizeof(trace), "4bf92f3577b34da6a3ce929d0e0e47%02x", j->k & 0xff);
		snprintf(span, sizeof(span), "00f067aa0ba902%02x", j->k & 0xff);
		attach_hex(trace, span, 1);
		if (with_attrs) {
			char route[16], user[16];

			snprintf(route, sizeof(route), "/api/%d", j->k);
			snprintf(user, sizeof(user), "u %d", j->k);
			set_attr(9, "past the map", 12);
			set_attr(1, "nobody", 6);	/* given again below: the last counts */
			set_attr(0, route, strlen(route));
			set_attr(1, user, strlen(user));
			set_attr(2, "v", 1);
		}
	} else if (j->k == -3) {
		volatile unsigned long n = 0;

		attach_hex("4bf92f3577b34da6a3ce929d0e0e47ff", "00f067aa0ba902ff", 1);
		set_attr(0, "/spin", 5);
		pthread_barrier_wait(&published);
		for (;;)
			n++;
	} else if (j->k == -1) {
		attach_hex("0af7651916cd43dd8448eb211c80319c", "b7ad6b7169203331", 1);
		detach();
	}
	pthread_barrier_wait(&published);
	for (;;)
		if (read(block[0], &c, 1) <= 0)
			pause();
	return NULL;
}

int main(int argc, char **argv)
{
	const char *lib = NULL;
	int n = 4, i = 1;
	pthread_t t;

	for (; i < argc && argv[i][0] == '-'; i++) {
		if (!strcmp(argv[i], "--dlopen") && i + 1 < argc)
			lib = argv[++i];
		else if (!strcmp(argv[i], "--attrs"))
			with_attrs = 1;
	}
	if (i < argc)
		n = atoi(argv[i]);
	if (pipe(block))
		return 1;
	pthread_barrier_init(&go, NULL, (unsigned int)(n + 3 + with_attrs));
	pthread_barrier_init(&published, NULL, (unsigned int)(n + 3 + with_attrs));
	for (int k = with_attrs ? -3 : -2; k < n; k++) {
		struct job *j = calloc(1, sizeof(*j));

		j->k = k;
		if (k >= 0)
			snprintf(j->name, sizeof(j->name), "ctx%d", k);
		else
			snprintf(j->name, sizeof(j->name), "%s", k == -1 ? "detached" : k == -2 ? "plain" : "spin");
		pthread_create(&t, NULL, worker, j);
	}
	if (lib) {
		void *h = dlopen(lib, RTLD_NOW);

		if (!h) {
			fprintf(stderr, "%s\n", dlerror());
			return 1;
		}
		attach_hex = (int (*)(const char *, const char *, uint8_t))dlsym(h, "otel_thread_ctx_attach_hex");
		detach = (void (*)(void))dlsym(h, "otel_thread_ctx_detach");
		set_attr = (int (*)(uint8_t, const char *, size_t))dlsym(h, "otel_thread_ctx_set_attr");
	} else {
#ifndef DLOPEN_ONLY
		use_linked();
#endif
	}
	pthread_barrier_wait(&go);
	pthread_barrier_wait(&published);
	printf("ready pid=%d\n", getpid());
	fflush(stdout);
	for (;;)
		pause();
}
