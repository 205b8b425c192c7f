// SPDX-License-Identifier: GPL-2.0-only
/*
 * Cost of a wakeup: two threads bounce a byte over two pipes N times; print
 * the mean ns per round trip (two writes, two reads, two wakeups, and the
 * context switches between).
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

static int to_pong[2], to_ping[2];
static long rounds;

static void *pong(void *arg)
{
	char c;

	(void)arg;
	for (long i = 0; i < rounds; i++)
		if (read(to_pong[0], &c, 1) != 1 || write(to_ping[1], &c, 1) != 1)
			exit(1);
	return NULL;
}

int main(int argc, char **argv)
{
	struct timespec a, b;
	pthread_t t;
	char c = 'x';

	rounds = argc > 1 ? atol(argv[1]) : 200000;
	if (rounds <= 0 || pipe(to_pong) || pipe(to_ping))
		return 2;
	pthread_create(&t, NULL, pong, NULL);
	clock_gettime(CLOCK_MONOTONIC, &a);
	for (long i = 0; i < rounds; i++)
		if (write(to_pong[1], &c, 1) != 1 || read(to_ping[0], &c, 1) != 1)
			return 1;
	clock_gettime(CLOCK_MONOTONIC, &b);
	pthread_join(t, NULL);
	printf("%.1f\n", ((b.tv_sec - a.tv_sec) * 1e9 + (b.tv_nsec - a.tv_nsec)) / rounds);
	return 0;
}
