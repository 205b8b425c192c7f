// SPDX-License-Identifier: GPL-2.0-only
/*
 * Cost of a syscall: time N calls, print the mean ns per call.  By default
 * getppid(), the cheapest there is and one that tract leaves untimed; with
 * "read", a one-byte read() of /dev/zero, a syscall the latency histograms
 * time.  `make bench` runs it with and without BPF programs attached.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
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
	int reads = argc > 2 && !strcmp(argv[2], "read");
	int fd = reads ? open("/dev/zero", O_RDONLY) : -1;
	double t0;
	char c;

	if (n <= 0 || (argc > 2 && !reads)) {
		fprintf(stderr, "usage: syscall_loop [ITERATIONS [read]]\n");
		return 2;
	}
	if (reads && fd < 0) {
		perror("syscall_loop: /dev/zero");
		return 1;
	}
	t0 = now_ns();
	if (reads)
		for (long i = 0; i < n; i++)
			syscall(SYS_read, fd, &c, 1);
	else
		for (long i = 0; i < n; i++)
			syscall(SYS_getppid);
	printf("%.2f\n", (now_ns() - t0) / n);
	return 0;
}
