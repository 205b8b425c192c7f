/* SPDX-License-Identifier: GPL-2.0-only */
/* The store's schema, shared by the SQLite store, the CSV store and `tract schema`. */
#ifndef TRACT_SCHEMA_H
#define TRACT_SCHEMA_H

#define TRACT_SCHEMA_VERSION 5

/* SQL that creates an hourly SQLite file, with a comment on every column. */
extern const char tract_schema_sql[];
/* Names of enum tract_state values, as stored. */
const char *state_name(int state);
/* The columns of the samples view, in order, as CSV headers use them too. */
extern const char *const sample_columns[];

#endif
