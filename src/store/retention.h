/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Retention: the recorder deletes the oldest hours of its store when they
 * are older than --keep or the store is larger than --max-size.  An hour
 * goes whole (all its files), and never the hour being written.  A reader
 * that has an hour open keeps reading it: unlinked files stay readable.
 */
#ifndef TRACT_RETENTION_H
#define TRACT_RETENTION_H

#include <stdint.h>

/* Hours deleted; keep_us or max_bytes 0 means no such limit. */
int store_retention(const char *dir, uint64_t now_us, uint64_t keep_us, uint64_t max_bytes);

#endif
