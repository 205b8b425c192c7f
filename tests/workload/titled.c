// SPDX-License-Identifier: GPL-2.0-only
/*
 * A process that says what it does in its command line, as servers do
 * (PostgreSQL's "postgres: checkpointer"): it writes its title over its
 * arguments' memory, the rest of that area NULs, and ps (and tract) show it.
 *
 * Usage: titled ROLE PADDING...   (PADDING: room for the longest title)
 * The title is "titled: ROLE phase 1"; SIGUSR1 makes it "... phase 2".
 * Each title written is printed on stdout ("ready" after the first).  The
 * process works in bursts (20 ms on a CPU, 10 ms asleep), so that every
 * pass of a sampler finds it active.
 */
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

static volatile sig_atomic_t phase = 1;

static void next_phase(int sig)
{
	(void)sig;
	phase = 2;
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	char role[64], title[128];
	char *area, *end;
	size_t room;
	int shown = 0;
	struct timespec nap = { 0, 10 * 1000 * 1000 };
	volatile unsigned long spin = 0;

	if (argc < 3) {
		fprintf(stderr, "usage: titled ROLE PADDING...\n");
		return 2;
	}
	snprintf(role, sizeof(role), "%s", argv[1]);
	area = argv[0];
	end = argv[argc - 1] + strlen(argv[argc - 1]);
	room = (size_t)(end - area);
	signal(SIGUSR1, next_phase);
	for (;;) {
		double until = now() + 0.02;

		if (shown != phase) {
			int n;

			shown = phase;
			n = snprintf(title, sizeof(title), "titled: %s phase %d", role, shown);
			if ((size_t)n >= room) {
				fprintf(stderr, "no room for the title: give more padding\n");
				return 2;
			}
			memset(area, 0, room);
			memcpy(area, title, (size_t)n);
			printf("%s%s\n", shown == 1 ? "ready " : "", title);
			fflush(stdout);
		}
		while (now() < until)
			spin++;
		nanosleep(&nap, NULL);
	}
}
