/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The tables of a pass besides its samples (pass_tables.def), expanded once:
 * each column's name, how a row holds it and how SQLite keeps it, and the
 * SQL and headers every store and the fleet make of them.
 */
#ifndef TRACT_PASS_TABLES_H
#define TRACT_PASS_TABLES_H

#include <stddef.h>
#include "columns.h"
#include "sample.h"

struct strbuf;

/* How SQLite keeps a column (pass_tables.def: store). */
enum pass_store {
	S_SELF_KIND, S_PROCESS_KIND, S_THREAD_KIND, S_SYSCALL_KIND, S_STACK_KIND, S_ENDER_KIND, S_BEFORE_PASS_KIND
};
/* Which of a process's, thread's or ender's values a column is. */
enum pass_part { PART_NONE, PART_TID, PART_TGID, PART_NAME, PART_COMM, PART_PCOMM, PART_CLASS };

/*
 * What rows that merge (a command's processes folded into one, rows held
 * over takes) make of a column: its total (pass_tables.def: P_SUM), a total
 * that a graph of the rows weighs them by (P_WEIGHT); the others are the
 * merged rows' key, or the first row's.
 */
enum pass_total { TOTAL_NONE, TOTAL_SUM, TOTAL_WEIGHT };

struct pass_column {
	const char *name;
	enum pass_store store;
	const char *ref;		/* the SQLite column it is kept in (S_SELF: name) */
	const char *alias;		/* S_PROCESS, S_ENDER: the dimension row's alias in a view */
	enum pass_part part;
	const char *sqlite_type, *ch_type, *doc;
	void (*value)(const struct pass *p, const void *row, struct column_value *v);
	/* Sets it in row from its text (a NULL sets nothing); 0 or -errno; NULL: not read back. */
	int (*set)(void *row, const struct csv_value *in, const struct column_reader *cr);
	enum pass_total total;
	/* TOTAL_SUM, TOTAL_WEIGHT: row's added to into's; TOTAL_NONE: does nothing */
	void (*add)(void *into, const void *row);
};

struct pass_table {
	const char *name;
	const char *facts;		/* the SQLite table of its rows: name, or the facts a view of name joins */
	const char *doc;
	int itself;			/* the passes: one row, the pass */
	const struct pass_column *columns;
	size_t ncolumns;
	size_t (*nrows)(const struct pass *p);
	const void *(*row)(const struct pass *p, size_t i);
	void *(*add)(struct pass *p);	/* a new row of the pass, zeroed */
};

enum pass_table_id {
#define PASS_TABLE(name, ...) PT_##name,
#define PASS_COLUMN(...)
#include "pass_tables.def"
#undef PASS_TABLE
#undef PASS_COLUMN
	NR_PASS_TABLES
};

/* Read-only once main() runs: a constructor counts their columns. */
extern struct pass_table pass_tables[NR_PASS_TABLES];

/* SQLite: CREATE TABLE of its rows, with a comment on every column (and the view of its names). */
void pass_table_sqlite_create(struct strbuf *b, const struct pass_table *t);
void pass_table_sqlite_view(struct strbuf *b, const struct pass_table *t);
/* The SQLite columns its rows are kept in, in order, after pass (the passes: after id). */
size_t pass_table_stored(const struct pass_table *t, const struct pass_column **first_of, size_t max);
/* INSERT INTO facts(pass, stored...) VALUES (?...): pass binds first (the passes: no id). */
char *pass_table_sqlite_insert(const struct pass_table *t);
/*
 * SELECT of the rows of passes with ts_us in [?1, ?2) from an SQLite hour,
 * by the order they were stored: the pass's time, then the columns in their
 * order as ClickHouse takes them (a NULL where it takes none: its default),
 * then the pass's id.
 */
char *pass_table_sqlite_select(const struct pass_table *t);
/* The value of column c in SQL over its facts as h, with the joins of the view: into buf. */
const char *pass_column_sql(const struct pass_column *c, char *buf, size_t len);
/* The CSV header: ts_us (but for the passes, which have it), then the columns. */
void pass_table_csv_header(struct strbuf *b, const struct pass_table *t);
/* ClickHouse: "name type, ..." of the columns, and their names for an insert. */
void pass_table_ch_columns(struct strbuf *b, const struct pass_table *t, int with_types);
/* Row's totals added to into's, rows of t merging: the other columns as into has them. */
void pass_rows_merge(const struct pass_table *t, void *into, const void *row);
/* The column a graph of t's rows weighs them by (P_WEIGHT), or NULL. */
const struct pass_column *pass_table_weight(const struct pass_table *t);
/* Whether a ClickHouse type holds NULL. */
int ch_type_nullable(const char *type);

#endif
