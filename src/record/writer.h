/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The writer thread: passes go through a bounded queue to the sink, so a
 * slow disk (a WAL checkpoint behind an fsync storm, a full disk) never makes
 * the sampler miss its schedule.  When the queue is full the pass is counted
 * as not stored instead of blocking the sampler.
 */
#ifndef TRACT_WRITER_H
#define TRACT_WRITER_H

#include <stddef.h>
#include <stdint.h>
#include "sample.h"
#include "sink.h"

struct sink;
struct writer;

struct writer_stats {
	uint64_t stored;
	uint64_t failed;	/* the sink refused them (I/O error, full disk) */
	uint64_t overflowed;	/* the queue was full */
};

struct writer *writer__start(struct sink *sink, size_t depth);
/* An empty pass to fill, or NULL when the queue is full (counted). */
struct pass *writer__claim(struct writer *w);
void writer__submit(struct writer *w, struct pass *p);
/* Write what is queued, stop the thread, free everything. */
void writer__stop(struct writer *w, struct writer_stats *stats);

/* A sink that prints every pass to f as a table (tract record without -o). */
struct sink *sink_term__new(FILE *f);

#endif
