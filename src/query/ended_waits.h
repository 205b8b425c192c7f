/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The class of what ended the wait a sample is in (enum tract_wait_class),
 * from the store file's wait_ends: a sample's wait is its thread's that
 * began last at or before the pass (a thread's waits never overlap), if it
 * had not ended by then.  The waits are read once a connection, on first
 * use, into a sorted array searched in memory: a join that SQLite would
 * run through an index for each of a million samples costs half their
 * scan again.
 */
#ifndef TRACT_ENDED_WAITS_H
#define TRACT_ENDED_WAITS_H

#include <stdint.h>
#include <sqlite3.h>

struct ended_waits;

/* One connection's, held by its SQL functions: NULL when out of memory. */
struct ended_waits *ended_waits__new(void);
void ended_waits__hold(struct ended_waits *e);
/* Frees it when its last holder lets go; NULL is fine. */
void ended_waits__release(void *e);
/* Of thread (threads.id) at ts_us: the wait's class, TRACT_WAIT_UNKNOWN while it is open or in none. */
int ended_waits__class(struct ended_waits *e, sqlite3 *db, int64_t thread, int64_t ts_us);

/*
 * Registers ended_wait_class(thread, ts_us) on db, holding e: "blocked",
 * "sleeping", "input", or NULL as above.  0 or a negative errno.
 */
int ended_waits_register(sqlite3 *db, struct ended_waits *e);

#endif
