/* SPDX-License-Identifier: GPL-2.0-only */
/* The samples' derived columns (derived_columns.def), expanded once for both stores. */
#ifndef TRACT_DERIVED_H
#define TRACT_DERIVED_H

#include <stddef.h>
#include <stdint.h>

#define DERIVED_MAX_INPUTS 9

struct derived_column {
	const char *name;
	const char *value;		/* SQL over $1, $2, ... */
	const char *inputs[DERIVED_MAX_INPUTS];	/* samples columns, or kframes / uframes; NULL-ended */
	const char *doc;
};

enum {
#define DERIVED(name, ...) DERIVED_##name,
#include "derived_columns.def"
#undef DERIVED
	NR_DERIVED
};

extern const struct derived_column derived_columns[NR_DERIVED];

/* An input's SQL over the store's facts f and their joins, the joins it needs and its base (NULL: none). */
struct derived_input {
	const char *sql;
	uint32_t joins;
	const char *base;
	const char *type;		/* its SQL type where it is stored; NULL for a stack's frames */
};
/* 0, or -1 when name is neither a samples column nor a stack's frames. */
int derived_input(const char *name, struct derived_input *out);
/*
 * The column's value over the store's facts: the value with each input's
 * SQL, into *sql (malloc'd); the joins it needs, and its base: the one its
 * inputs share, else NULL.  0, or -1 for an unknown input.
 */
int derived_local(const struct derived_column *d, char **sql, uint32_t *joins, const char **base);

/* A column that is its one input as it is has that input's type; else NULL. */
const char *derived_type(const struct derived_column *d);
/*
 * A value over $1, $2, ... (NULL: "$1") with each $N replaced by args[N - 1],
 * in either store's SQL: malloc'd.  A $N past n stays as it is.
 */
char *derived_apply(const char *value, const char *const *args, size_t n);

#endif
