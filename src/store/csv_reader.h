/* SPDX-License-Identifier: GPL-2.0-only */
/* The CSV store read back: an hour of CSV files as an SQLite database of the store's schema. */
#ifndef TRACT_CSV_READER_H
#define TRACT_CSV_READER_H

#include <stdint.h>
#include <sqlite3.h>

/* Loads the CSV files of the hour into a new in-memory database; 0, or -errno after a message. */
int store_csv__load_hour(const char *dir, uint64_t hour_us, sqlite3 **db);

#endif
