/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * fact_activity(state, call, sc_us, state_us, file, wait_class_id, thread,
 * ts_us): the activity column (activity.h) of a local store's fact, from
 * its own ids rather than from the names its dimensions give, and its
 * times in µs as the samples view reads them (the sample's at the pass).
 * A file's states, calls (what each says of a wait: activity_call_of()),
 * terminals and ended waits are read once a connection, on first use,
 * into memory; a query that joined them by name for every sample spent
 * more on the joins and the names' comparisons than on the samples.
 */
#ifndef TRACT_FACT_ACTIVITY_H
#define TRACT_FACT_ACTIVITY_H

#include <sqlite3.h>
#include "ended_waits.h"

/* Registers fact_activity on db, holding e for the wait a sample is in: 0 or a negative errno. */
int fact_activity_register(sqlite3 *db, struct ended_waits *e);

#endif
