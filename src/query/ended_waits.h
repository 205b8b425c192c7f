/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * ended_wait_class(thread, ts_us): the class of what ended the wait a
 * sample is in ("blocked", "sleeping", "input"), NULL while its wait is
 * open or where it was in none, from the store file's wait_ends.  A
 * sample's wait is its thread's that began last at or before the pass
 * (a thread's waits never overlap), if it had not ended by then.  The
 * waits are read once a connection, into a sorted array searched in
 * memory: a join that SQLite would run through an index for each of a
 * million samples costs half their scan again.
 */
#ifndef TRACT_ENDED_WAITS_H
#define TRACT_ENDED_WAITS_H

#include <sqlite3.h>

/* Registers ended_wait_class on db: 0 or a negative errno. */
int ended_waits_register(sqlite3 *db);

#endif
