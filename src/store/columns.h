/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The column table of a sample (sample_columns.def), expanded once: what
 * each column is called, where the store keeps it, the SQL that reads it
 * back, and how its value is read from a struct sample.
 */
#ifndef TRACT_COLUMNS_H
#define TRACT_COLUMNS_H

#include <stddef.h>
#include <stdint.h>
#include "csv.h"
#include "sample.h"

/* The joins from sample_facts f to the tables its ids refer to; bit i is join_sql[i]. */
enum sample_join {
	JOIN_THREAD = 1 << 0, JOIN_STATE = 1 << 1, JOIN_CALL = 1 << 2, JOIN_SYSCALL = 1 << 3,
	JOIN_CGROUP = 1 << 4, JOIN_FILE = 1 << 5, JOIN_WAKER = 1 << 6, JOIN_IO = 1 << 7,
	JOIN_KSTACK = 1 << 8, JOIN_USTACK = 1 << 9, JOIN_TRACE = 1 << 10, JOIN_BLOCKER = 1 << 11,
	/* the ended wait a sample is in (after JOIN_THREAD, whose tid it matches) */
	JOIN_WAIT_END = 1 << 12,
};
extern const char *const sample_join_sql[];
/* SQL a store file runs before a query uses join bit i, or NULL; as many as sample_join_sql. */
extern const char *const sample_join_prepare[];

enum column_where { PASS, FACT, IO, TRACE, DIM, BLOCKER };

enum value_kind { VAL_NULL, VAL_INT, VAL_UINT, VAL_TEXT };

struct column_value {
	enum value_kind kind;
	int64_t i;
	uint64_t u;
	const char *s;			/* VAL_TEXT: not NUL-terminated; len bytes */
	size_t len;
	char buf[40];			/* for a value made on the way (a syscall's number, a trace id's hex) */
	const struct kstack *stack;	/* a stack's: the stack whose hash u is */
};

/* What setting a sample's columns from text needs from the reader. */
struct column_reader {
	/* The stack with this hash, from the hour's stacks; NULL if it has none. */
	const struct kstack *(*stack)(void *arg, uint64_t hash);
	/* A copy of len bytes of s, NUL-terminated, that lasts as long as the rows read. */
	const char *(*keep)(void *arg, const char *s, size_t len);
	void *arg;
};

struct sample_column {
	const char *name;
	enum column_where where;
	const char *type;		/* SQL type where it is stored */
	const char *sql;		/* its value over sample_facts f and the joins */
	uint32_t joins;			/* enum sample_join bits */
	const char *base;		/* see catalog.h */
	const char *doc;
	void (*value)(const struct pass *p, const struct sample *r, struct column_value *v);
	/* The reverse: sets the column in r from its text (a NULL sets nothing); 0 or -errno. */
	int (*set)(struct sample *r, const struct csv_value *in, const struct column_reader *cr);
};

enum sample_column_index {
#define COLUMN(name, ...) COL_##name,
#include "sample_columns.def"
#undef COLUMN
	NR_SAMPLE_COLUMNS
};

extern const struct sample_column sample_columns[NR_SAMPLE_COLUMNS];

/* Values into v: u where valid, else NULL; s (at most max bytes with max, NUL-ended without), or NULL. */
void column_uint(struct column_value *v, int valid, uint64_t u);
void column_text(struct column_value *v, const char *s, size_t max);
/* Text into an unsigned number, or a name into a char array of cap bytes (no NUL needed): 0 or -EINVAL. */
int column_parse_u64(const struct csv_value *in, uint64_t *u);
int column_parse_name(const struct csv_value *in, char *name, size_t cap);
/* The column's name where it is stored: "cpu" of "f.cpu". */
const char *column_stored_name(const struct sample_column *c);
/*
 * h mixed with every value of r but its pass's, and of the times so far
 * (COARSE_US) only whether each is known: equal for two samples that
 * differ in nothing else (repeats.h).
 */
uint64_t column_mix_sample(const struct sample *r, uint64_t h);
/* Whether SQLite keeps the column as a coarse time (COARSE_US in sample_columns.def). */
int column_coarse_us(const struct sample_column *c);
/* A time in µs as SQLite keeps a coarse one: as it is below 8389000 (2^23 rounded up to a ms), else -(ms). */
int64_t coarse_us_stored(uint64_t us);
/* A coarse time as SQLite keeps it, back in µs (what COARSE_US reads in SQL). */
int64_t coarse_us_read(int64_t stored);

#endif
