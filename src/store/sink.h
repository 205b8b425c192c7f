/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Where passes go: the terminal, or a store (SQLite or CSV files, one set per
 * UTC hour).  The recorder does not care which.
 */
#ifndef TRACT_SINK_H
#define TRACT_SINK_H

#include <stdint.h>
#include <stdio.h>
#include "sample.h"
#include "store_dir.h"

struct sink;

struct sink_ops {
	/* Store the pass whole, or not at all: negative errno then. */
	int (*write_pass)(struct sink *s, const struct pass *p);
	void (*close)(struct sink *s);
};

struct sink {
	const struct sink_ops *ops;
};

static inline int sink__write_pass(struct sink *s, const struct pass *p)
{
	return s->ops->write_pass(s, p);
}

static inline void sink__close(struct sink *s)
{
	if (s)
		s->ops->close(s);
}

/* Both sinks, each pass to first then second; the first's result is the pass's.  Takes both. */
struct sink *sink_tee__new(struct sink *first, struct sink *second);

/* What every store file records about the run that wrote it. */
struct store_config {
	const char *dir;
	double frequency_hz;
	const char *source;	/* "bpf" */
	uint64_t keep_us;	/* --keep: delete hours older than this (0: keep all) */
	uint64_t max_bytes;	/* --max-size: delete the oldest hours beyond this (0: no limit) */
	long gid;		/* --group: the group that may read the store; -1: none */
};

int store_sqlite__open(const struct store_config *cfg, struct sink **out);
int store_csv__open(const struct store_config *cfg, struct sink **out);

/* The stores a recorder can write, by the name --format takes: the one place a new store is added. */
struct store_kind {
	const char *name;
	int (*open)(const struct store_config *cfg, struct sink **out);
};
extern const struct store_kind store_kinds[];	/* NULL-terminated */
/* The store kind of that name, or NULL. */
const struct store_kind *store_kind_named(const char *name);
/*
 * An SQLite store in memory, one database whatever the hours of its passes:
 * closing the sink hands it to *db (the caller closes it).  name is for
 * messages.
 */
struct sqlite3;
int store_sqlite__open_memory(const char *name, struct sink **out, struct sqlite3 **db);

/* The dimension rows (threads, calls, stacks...) an SQLite sink remembers now, each held in memory. */
size_t store_sqlite__remembered(const struct sink *sqlite_sink);

/* key/value pairs every file's meta table holds; NULL-terminated pairs */
void store_meta(const struct store_config *cfg, const char *kv[][2], size_t max);

#endif
