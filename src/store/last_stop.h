/* SPDX-License-Identifier: GPL-2.0-only */
/* How the last recording into a store ended (last_stop.c). */
#ifndef TRACT_LAST_STOP_H
#define TRACT_LAST_STOP_H

#include <stdint.h>

struct last_stop {
	uint64_t ts_us;		/* its last pass */
	char stop[32];		/* why it stopped, as passes.stop says; "" where it did not say */
};

/* 1 with *ls when the store's newest hour is an SQLite file with passes that can say why; else 0. */
int store_last_stop(const char *dir, struct last_stop *ls);

#endif
