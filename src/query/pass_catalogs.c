// SPDX-License-Identifier: GPL-2.0-only
/*
 * The catalogs of the pass's tables (pass_catalogs.def), made at start
 * from the tables' definition (pass_tables.def): each one's inputs, joins,
 * columns, measure and sum, as a local store has them.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "catalog.h"
#include "derived.h"
#include "pass_tables.h"
#include "util.h"

/* The pass catalogs' own columns, and the ones they share (pass_catalogs.def). */
struct column_def {
	const char *catalog, *name, *value;
	const char *inputs[DERIVED_MAX_INPUTS];
	const char *doc;
};

#define IN(...) { __VA_ARGS__ }
#define PASS_CATALOG(...)
#define SHARED_COLUMN(...)
#define CATALOG_COLUMN(cat, name, value, inputs, doc) { #cat, #name, value, inputs, doc },
static const struct column_def own_columns[] = {
#include "pass_catalogs.def"
};
#undef CATALOG_COLUMN
#undef SHARED_COLUMN
#define CATALOG_COLUMN(...)
#define SHARED_COLUMN(name, value, inputs, doc) { NULL, #name, value, inputs, doc },
static const struct column_def shared_columns[] = {
#include "pass_catalogs.def"
};
#undef SHARED_COLUMN
#undef PASS_CATALOG
#undef IN
#define SHARED_COLUMN(...)
#define PASS_CATALOG(name_, table_, group, how) \
	struct catalog catalog_##name_ = { .name = #name_, .table = #table_, .default_group = group, .how_recorded = how };
#include "pass_catalogs.def"
#undef PASS_CATALOG
#define PASS_CATALOG(name, ...) &catalog_##name,
static struct catalog *const pass_catalogs[] = {
#include "pass_catalogs.def"
};
#undef PASS_CATALOG
#undef SHARED_COLUMN
#undef CATALOG_COLUMN

/* A stack's frames as an input: the column of the stack's id, and the alias of the stacks joined for it. */
static const struct {
	const char *input, *column, *alias;
} frames_inputs[] = {
	{ "kframes", "kstack_id", "ks" },
	{ "uframes", "ustack_id", "us" },
};

static const struct pass_column *column_named(const struct pass_table *t, const char *name)
{
	for (size_t i = 0; i < t->ncolumns; i++)
		if (!strcmp(t->columns[i].name, name))
			return &t->columns[i];
	return NULL;
}

/* The joins a catalog's SQL may need, grown as its inputs are made: the bit of join. */
static uint32_t join_bit(const char **joins, size_t *n, const char *join)
{
	size_t i;

	if (!*join)
		return 0;
	for (i = 0; i < *n && strcmp(joins[i], join); i++)
		;
	if (i == *n) {
		if (i == 32)
			abort();	/* more joins than bits: pass_tables.def outgrew this */
		joins[(*n)++] = xstrdup(join);
	}
	return 1u << i;
}

/*
 * The input name of pass table t as a local store has it, over its rows as
 * h (the table, or its view with the names its ids stand for) and the pass
 * as p: its SQL into sql, the JOIN it needs into join ("": none).  0, or
 * -1 when t has no such input.
 */
static int pass_input(const struct pass_table *t, const char *name, char *sql, size_t size, char *join,
		      size_t join_size, const char **type)
{
	int view = strcmp(t->facts, t->name) != 0;
	const struct pass_column *c;

	*join = '\0';
	if (!strcmp(name, "ts_us")) {
		snprintf(sql, size, "p.ts_us");
		*type = "INTEGER";
		return 0;
	}
	for (size_t i = 0; i < ARRAY_SIZE(frames_inputs); i++) {
		if (strcmp(name, frames_inputs[i].input))
			continue;
		c = column_named(t, frames_inputs[i].column);
		if (!c || c->store != S_STACK_KIND || view)
			return -1;
		snprintf(sql, size, "%s.frames", frames_inputs[i].alias);
		snprintf(join, join_size, " LEFT JOIN stacks %s ON %s.id = h.%s", frames_inputs[i].alias,
			 frames_inputs[i].alias, c->ref);
		*type = NULL;
		return 0;
	}
	c = column_named(t, name);
	if (!c)
		return -1;
	*type = !strncmp(c->sqlite_type, "INTEGER", 7) ? "INTEGER" : "TEXT";
	if (view) {
		snprintf(sql, size, "h.%s", c->name);
		return 0;
	}
	/* the table itself: a thread's parts are the threads' */
	if (c->store == S_THREAD_KIND)
		snprintf(join, join_size, " JOIN threads %s ON %s.id = h.%s", c->alias, c->alias, c->ref);
	else if (c->store != S_SELF_KIND && c->store != S_STACK_KIND && c->store != S_BEFORE_PASS_KIND)
		return -1;	/* kept by an id only a view joins back */
	pass_column_sql(c, sql, size);
	return 0;
}

/* A column of def in catalog cat: 0, or -1 when its table lacks an input. */
static int add_column(struct catalog *cat, struct catalog_column *cols, const struct column_def *def)
{
	struct catalog_column *c = &cols[cat->ncolumns];
	char *sql;

	*c = (struct catalog_column){ .name = def->name, .doc = def->doc, .value = def->value };
	memcpy(c->inputs, def->inputs, sizeof(c->inputs));
	if (catalog__column_sql(cat, c, &sql))
		return -1;
	c->sql = sql;
	cat->ncolumns++;
	return 0;
}

/* Each pass catalog from its table: its inputs, joins, columns, measure and sum (held for the process's life). */
__attribute__((constructor)) static void make_pass_catalogs(void)
{
	for (size_t k = 0; k < ARRAY_SIZE(pass_catalogs); k++) {
		struct catalog *cat = pass_catalogs[k];
		const struct pass_table *t = NULL;
		struct catalog_input *inputs;
		struct catalog_column *cols;
		const char **joins = xcalloc(32, sizeof(*joins));
		size_t njoins = 0;
		char *from;

		for (size_t i = 0; i < NR_PASS_TABLES; i++)
			if (!strcmp(pass_tables[i].name, cat->table))
				t = &pass_tables[i];
		if (!t)
			abort();	/* pass_catalogs.def names a table pass_tables.def has not */
		if (asprintf(&from, "%s h JOIN passes p ON p.id = h.pass", t->name) < 0)
			abort();
		cat->from = from;
		/* the inputs: the table's columns, the pass time, and the frames of its stacks */
		inputs = xcalloc(t->ncolumns + 1 + ARRAY_SIZE(frames_inputs), sizeof(*inputs));
		for (size_t i = 0; i < t->ncolumns + 1 + ARRAY_SIZE(frames_inputs); i++) {
			const char *name = i < t->ncolumns ? t->columns[i].name : i == t->ncolumns ? "ts_us" :
					   frames_inputs[i - t->ncolumns - 1].input;
			char sql[128], join[128];
			const char *type;

			if (pass_input(t, name, sql, sizeof(sql), join, sizeof(join), &type))
				continue;
			inputs[cat->ninputs++] = (struct catalog_input){
				name, { xstrdup(sql), join_bit(joins, &njoins, join), NULL, type },
			};
		}
		cat->inputs = inputs;
		cat->joins = joins;
		/* what a group counts and the total its mean divides: the table's totals */
		for (size_t i = 0; i < t->ncolumns; i++) {
			const char **total = !cat->measure ? &cat->measure : &cat->sum;

			if (t->columns[i].total == TOTAL_SUM && !*total)
				*total = t->columns[i].name;
		}
		cols = xcalloc(ARRAY_SIZE(own_columns) + ARRAY_SIZE(shared_columns), sizeof(*cols));
		cat->columns = cols;
		for (size_t i = 0; i < ARRAY_SIZE(own_columns); i++)
			if (!strcmp(own_columns[i].catalog, cat->name) && add_column(cat, cols, &own_columns[i]))
				abort();	/* an input its table has not: pass_catalogs.def is wrong */
		for (size_t i = 0; i < ARRAY_SIZE(shared_columns); i++)
			add_column(cat, cols, &shared_columns[i]);
	}
}
