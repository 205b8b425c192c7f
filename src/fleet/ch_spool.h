/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The spool: batches of rows on their way to ClickHouse, as files in a
 * directory, so that an unreachable server, a restart or a crash loses
 * nothing.  A batch is its tables' TabSeparated files and a manifest
 * written last (so only whole batches are seen), named by a sequence
 * number that orders them.  Bounded: beyond max bytes the oldest batches
 * go, and are counted.
 */
#ifndef TRACT_CH_SPOOL_H
#define TRACT_CH_SPOOL_H

#include <pthread.h>
#include <stdint.h>
#include "pass_tables.h"
#include "strbuf.h"

/* The tables of a batch: the samples, the stacks, and the pass's own tables (pass_tables.def). */
enum { CH_SAMPLES, CH_STACKS, CH_PASS_TABLE, CH_TABLES = CH_PASS_TABLE + NR_PASS_TABLES };
#define CH_PASSES (CH_PASS_TABLE + PT_passes)
/* Table t's name on the servers: samples_local, stacks_local, passes_local, ... */
const char *ch_table_name(int t);

struct ch_batch {
	uint64_t seq, id;		/* order, and the batch_id its rows carry */
	uint64_t rows[CH_TABLES];
	unsigned int done;		/* bit per table: in the server */
	unsigned int tried;		/* bit per table: sent once without an answer, so count before sending */
	char *data[CH_TABLES];		/* the rows, read back (NULL before ch_spool__load) */
	size_t len[CH_TABLES];
};

struct ch_spool {
	char *dir;
	uint64_t max_bytes, bytes, next_seq;
	uint64_t dropped_batches, dropped_rows;	/* gone to the bound */
	pthread_mutex_t lock;
};

/* Opens (creating) dir and learns what batches it holds; 0 or -errno after a message. */
int ch_spool__open(struct ch_spool *s, const char *dir, uint64_t max_bytes);
void ch_spool__close(struct ch_spool *s);
/* Spools a batch whole; 0 or -errno. */
int ch_spool__put(struct ch_spool *s, uint64_t id, struct strbuf tables[CH_TABLES], const uint64_t rows[CH_TABLES]);
/* The oldest batch with its rows; 0, or -ENOENT when the spool is empty. */
int ch_spool__oldest(struct ch_spool *s, struct ch_batch *b);
/* Writes b's done and tried bits; a batch all done leaves the spool. */
int ch_spool__update(struct ch_spool *s, struct ch_batch *b);
/* Moves b aside into dir/quarantine, for a person to look at. */
void ch_spool__quarantine(struct ch_spool *s, struct ch_batch *b);
void ch_batch__free(struct ch_batch *b);
/* Batches and bytes spooled now. */
void ch_spool__size(struct ch_spool *s, uint64_t *batches, uint64_t *bytes);

#endif
