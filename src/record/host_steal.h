/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The host's steal: on a virtual machine, the time the hypervisor ran
 * something else on a CPU this machine thought its own.  A thread on such a
 * CPU reads RUN however little it ran, so each pass records, per CPU, the
 * time taken from it since the previous pass (/proc/stat's steal, the same
 * for both sources), and each RUN sample its CPU's.
 */
#ifndef TRACT_HOST_STEAL_H
#define TRACT_HOST_STEAL_H

#include <stddef.h>
#include <stdint.h>
#include "sample.h"

struct host_steal {
	int fd;				/* /proc/stat; -1: steal is not read */
	long hz;			/* its unit: USER_HZ ticks a second */
	uint64_t *ticks;		/* each CPU's steal at the last read */
	uint64_t *now;			/* and at this one */
	size_t ncpus;
	char *buf;
	size_t cap;
};

/* Opens /proc/stat and reads where each CPU's steal starts; 0, or -errno (steal off, said once). */
int host_steal__open(struct host_steal *hs);
/* The steal since the last read into the pass: its steal rows and sums, and each RUN sample's. */
void host_steal__take(struct host_steal *hs, struct pass *p);
void host_steal__close(struct host_steal *hs);

/*
 * Each "cpuN" line's steal (the 8th value) of /proc/stat's text into
 * ticks[N], for N < max; how many CPUs (the highest N + 1), or -1 when the
 * text has no such line.
 */
int host_steal__parse(const char *text, uint64_t *ticks, size_t max);
/*
 * The pass's steal: each CPU's ticks (n CPUs, hz a second) from was to
 * now, at most the pass's weight_us.
 */
void host_steal__apply(struct pass *p, const uint64_t *was, const uint64_t *now, size_t n, long hz);

#endif
