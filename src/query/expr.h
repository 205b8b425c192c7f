/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The filter language of `tract query -w` and `tract top` (doc/filter.md),
 * compiled to an SQLite WHERE fragment.  User text never becomes SQL text:
 * values become bound parameters, and a column name is only accepted from the
 * caller's list, which says what SQL stands for it.
 */
#ifndef TRACT_EXPR_H
#define TRACT_EXPR_H

#include <stddef.h>
#include <stdint.h>
#include <sqlite3.h>

/* What values a column compares with: a literal of another kind is an error, not "no match". */
enum expr_type {
	EXPR_TEXT,		/* anything */
	EXPR_INT,		/* numbers only */
	EXPR_DURATION,		/* microseconds: a number, or one with a unit (250us, 10ms, 1.5s, 2m, 1h) */
	EXPR_CHOICE,		/* one of choices, any case */
};

/* A column the user may name, and the SQL expression it stands for (no '?' in it). */
struct expr_column {
	const char *name;
	const char *sql;
	enum expr_type type;
	const char *const *choices;	/* EXPR_CHOICE: the values, NULL-terminated, as stored */
};

enum expr_param_kind { EXPR_PARAM_TEXT, EXPR_PARAM_INT, EXPR_PARAM_REAL };

struct expr_param {
	enum expr_param_kind kind;
	int text_column;	/* compared with a text column, where a number is text (as a stored column's affinity makes it) */
	union {
		char *text;
		long long i;
		double r;
	};
};

/* sql holds one '?' per param, in order. */
struct expr_sql {
	char *sql;
	struct expr_param *params;
	size_t nparams;
	uint64_t used;		/* bit i: the filter names cols[i] (the first 64) */
};

struct expr_error {
	size_t pos;		/* 0-based byte offset into the source */
	char msg[512];		/* "position 6: expected a value after '='" */
};

/*
 * Compile src against the columns (names match case-insensitively).
 * Returns 0, or -EINVAL with *err filled in (err may be NULL) and *out untouched.
 *
 * Every comparison comes out true or false, never NULL: a NULL column fails
 * =, <, ~ and in, passes !=, !~ and not in, and 'not' is the exact complement.
 * '~' becomes REGEXP, so the connection needs sqlfuncs_register().
 */
int expr_compile(const char *src, const struct expr_column *cols, size_t ncols,
		 struct expr_sql *out, struct expr_error *err);
/*
 * The same in another dialect: expr_sqlite (what expr_compile() writes) or
 * expr_clickhouse, where the caller puts each param in place of its '?' as
 * a literal (ClickHouse 18.16 binds no parameters), and regexes are RE2.
 */
struct expr_dialect;
extern const struct expr_dialect expr_sqlite, expr_clickhouse;
int expr_compile_in(const struct expr_dialect *d, const char *src, const struct expr_column *cols, size_t ncols,
		    struct expr_sql *out, struct expr_error *err);
/* Frees what expr_compile() filled in and zeroes it; NULL and repeated calls are fine. */
void expr_sql_free(struct expr_sql *e);
/*
 * Bind the params to parameters first_index, first_index + 1, ...  Returns the
 * next free index, or a negative errno (sqlite3_errmsg() says why).
 */
int expr_bind(sqlite3_stmt *stmt, int first_index, const struct expr_sql *e);

#endif
