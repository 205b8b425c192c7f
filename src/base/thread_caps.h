/* SPDX-License-Identifier: GPL-2.0-only */
/* The calling thread's capabilities (they are per thread in Linux). */
#ifndef TRACT_THREAD_CAPS_H
#define TRACT_THREAD_CAPS_H

#include <stddef.h>

/*
 * Keeps, of the calling thread's capabilities, only those of caps[] it
 * holds, effective and permitted; every other one goes from its permitted
 * set too, so that it and the threads it starts can never raise it again.
 * Other threads keep theirs.  0, or negative errno.
 */
int thread_caps_keep(const int *caps, size_t n);
/* Keeps none. */
int thread_caps_clear(void);

#endif
