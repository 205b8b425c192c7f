/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Passes to ClickHouse (record --clickhouse): the recorder's writer thread
 * turns each pass into rows of a batch; a batch is spooled whole every few
 * seconds or every few thousand rows; a shipping thread of its own sends
 * the spool in order, so sampling never waits for the network and a slow
 * or absent server costs spool space, not passes.  Nothing is lost (the
 * spool outlives the recorder) and nothing is doubled: a batch sent without
 * an answer is counted in the server, by its id, before it is sent again.
 */
#ifndef TRACT_CH_SINK_H
#define TRACT_CH_SINK_H

#include <stdint.h>
#include "sink.h"

struct ch_config {
	const char *url;		/* http[s]://host:port */
	const char *host;		/* the host column of every row */
	const char *user;		/* NULL: the default user */
	const char *password;		/* NULL: none */
	const char *ca_file;
	const char *database;		/* tract */
	const char *spool_dir;
	const char *store_dir;		/* the local store, where a lost batch's passes are found; NULL: none */
	uint64_t spool_max;		/* bytes; 0: no bound */
	uint64_t batch_rows;		/* a batch is spooled at this many samples ... */
	uint64_t batch_us;		/* ... or this old */
};

/*
 * Checks the server (creating tract's tables where they are missing) and
 * starts shipping.  A server that does not answer is not an error: the
 * spool waits for it.  Credentials it refuses are: -EACCES after a message.
 */
int ch_sink__open(const struct ch_config *cfg, struct sink **out);

#endif
