// SPDX-License-Identifier: GPL-2.0-only
/*
 * Cost of a syscall: time N getppid() calls, print the mean ns per call.
 * `make bench` runs it with and without BPF programs attached.
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>
#include <sys/syscall.h>

static double now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 2000000;
	double t0;

	if (n <= 0) {
		fprintf(stderr, "usage: syscall_loop [ITERATIONS]\n");
		return 2;
	}
	t0 = now_ns();
	for (long i = 0; i < n; i++)
		syscall(SYS_getppid);
	printf("%.2f\n", (now_ns() - t0) / n);
	return 0;
}
