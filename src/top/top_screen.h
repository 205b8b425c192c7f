/* SPDX-License-Identifier: GPL-2.0-only */
/* tract top's interactive screen. */
#ifndef TRACT_TOP_SCREEN_H
#define TRACT_TOP_SCREEN_H

#include "top.h"

/* Shows t until q or a signal, refreshing every interval_ms; restores the terminal. */
int top_screen_run(struct top *t, unsigned int interval_ms, int utf8);

#endif
