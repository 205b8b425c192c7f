/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * One table of a batch into ClickHouse, exactly once.  Plain MergeTree does
 * not deduplicate, so a table that may have been sent before (the caller
 * says so: counted) is counted in the server first: all there, done; none,
 * send; some, delete them and send once the deletion (a mutation, which
 * 18.16 runs in the background) is done.  Every INSERT runs under an id of
 * its batch and table, and a count waits until no query of that id runs:
 * an INSERT whose client gave up may still be running in the server.  The
 * recorder's shipping thread and tract ship both send this way.
 */
#ifndef TRACT_CH_SEND_H
#define TRACT_CH_SEND_H

#include "ch_http.h"
#include "ch_spool.h"

enum ch_sent {
	CH_SENT,		/* the table's rows are in the server */
	CH_SEND_LATER,		/* not now: the server is away, slow, busy with it, or refuses the user */
	CH_SEND_NEVER,		/* the server read the rows and refused them */
};

struct ch_send {
	struct ch_http *http;
	const char *database;
	/*
	 * What a batch's rows of a table are known by in the server, as SQL
	 * (the batch's id; or its host and passes' times): a WHERE of the
	 * count and the deletion.  Made by the caller from its own numbers.
	 */
	const char *ident;
};

/* Sends table t of b; *out and *answer (malloc'd, or NULL) say what the server said last. */
enum ch_sent ch_send__table(const struct ch_send *s, const struct ch_batch *b, int t, int counted,
			    enum ch_outcome *out, char **answer);

#endif
