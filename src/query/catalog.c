// SPDX-License-Identifier: GPL-2.0-only
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include "activity.h"
#include "catalog.h"
#include "columns.h"
#include "derived.h"
#include "pass_tables.h"
#include "schema.h"
#include "value_names.h"
#include "strbuf.h"
#include "util.h"

#define TIME_FMT(fmt) "strftime('" fmt "', p.ts_us / 1000000, 'unixepoch', 'localtime')"

/* The samples' columns, then their derived ones (derived_columns.def: fill_derived()), then the time buckets. */
static struct catalog_column sample_columns_def[NR_SAMPLE_COLUMNS + NR_DERIVED + 3] = {
#define COLUMN(name, where, type, sql, joins, base, value, doc) \
	{ #name, sql, joins, doc, base, 0, type, 0, NULL, { #name } },
#include "sample_columns.def"
#undef COLUMN
	[NR_SAMPLE_COLUMNS + NR_DERIVED] =
	{ "hour", TIME_FMT("%Y-%m-%d %H:00"), 0, "local hour", "p.ts_us / 3600000000 * 3600000000", 3600000000, NULL, 0 },
	{ "minute", TIME_FMT("%Y-%m-%d %H:%M"), 0, "local minute, for timelines", "p.ts_us / 60000000 * 60000000",
	  60000000, NULL, 0 },
	{ "second", TIME_FMT("%H:%M:%S"), 0, "local second", "p.ts_us / 1000000 * 1000000", 1000000, NULL, 0 },
};

/* Each derived column's SQL over the facts, from its inputs' (held for the process's life). */
__attribute__((constructor)) static void fill_derived(void)
{
	for (size_t i = 0; i < NR_DERIVED; i++) {
		struct catalog_column *c = &sample_columns_def[NR_SAMPLE_COLUMNS + i];
		char *sql;

		if (derived_local(&derived_columns[i], &sql, &c->joins, &c->base))
			abort();	/* an input that is no column: derived_columns.def is wrong */
		c->name = derived_columns[i].name;
		c->sql = sql;
		c->doc = derived_columns[i].doc;
		c->type = derived_type(&derived_columns[i]);
		c->value = derived_columns[i].value;
		memcpy(c->inputs, derived_columns[i].inputs, sizeof(c->inputs));
	}
}

const struct catalog catalog_samples = {
	.name = "samples",
	.table = "samples",
	/* CROSS JOIN keeps the facts outer: no temporary index on them */
	.from = "sample_facts f CROSS JOIN " FACT_PASSES,
	.measure = "weight_us",
	.joins = sample_join_sql,
	.join_prepare = sample_join_prepare,
	.columns = sample_columns_def,
	.ncolumns = ARRAY_SIZE(sample_columns_def),
	.default_group = "state,syscall,pcomm",
};

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

int catalog__input(const struct catalog *cat, const char *name, struct derived_input *out)
{
	if (!cat->inputs)
		return derived_input(name, out);
	for (size_t i = 0; i < cat->ninputs; i++)
		if (!strcmp(cat->inputs[i].name, name)) {
			*out = cat->inputs[i].local;
			return 0;
		}
	return -1;
}

/*
 * Column c's SQL over the catalog's from, from its value and inputs
 * (malloc'd), and its joins, base (the one its inputs share, else NULL) and
 * type (its input's where it is that as it is).  0, or -1 for an input the
 * catalog has not.
 */
static int make_column(const struct catalog *cat, struct catalog_column *c, char **sql)
{
	const char *args[DERIVED_MAX_INPUTS];
	struct derived_input first = { 0 };
	int same_base = 1;
	size_t n;

	c->joins = 0;
	for (n = 0; n < DERIVED_MAX_INPUTS && c->inputs[n]; n++) {
		struct derived_input in;

		if (catalog__input(cat, c->inputs[n], &in))
			return -1;
		if (!n)
			first = in;
		c->joins |= in.joins;
		same_base &= in.base && first.base && !strcmp(in.base, first.base);
		args[n] = in.sql;
	}
	if (!n)
		return -1;
	c->base = same_base ? first.base : NULL;
	c->type = !c->value || !strcmp(c->value, "$1") ? first.type : NULL;
	*sql = derived_apply(c->value, args, n);
	return 0;
}

int catalog__make_column(const struct catalog *cat, struct catalog_column *c, char *sql, size_t size)
{
	char *made;

	if (make_column(cat, c, &made))
		return -1;
	if ((size_t)snprintf(sql, size, "%s", made) >= size) {
		free(made);
		return -1;
	}
	free(made);
	c->sql = sql;
	return 0;
}

/* A column of def in catalog cat: 0, or -1 when its table lacks an input. */
static int add_column(struct catalog *cat, struct catalog_column *cols, const struct column_def *def)
{
	struct catalog_column *c = &cols[cat->ncolumns];
	char *sql;

	*c = (struct catalog_column){ .name = def->name, .doc = def->doc, .value = def->value };
	memcpy(c->inputs, def->inputs, sizeof(c->inputs));
	if (make_column(cat, c, &sql))
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

int catalog_is_stack(const struct catalog_column *c)
{
	for (size_t i = 0; i < ARRAY_SIZE(frames_inputs); i++)
		if ((!c->value || !strcmp(c->value, "$1")) && c->inputs[0] && !strcmp(c->inputs[0], frames_inputs[i].input))
			return 1;
	return 0;
}

const char *catalog_heading(const struct catalog_column *c)
{
	static const char *const headings[][2] = {
		{ "waker", "last woken by" },
		{ "waker_tid", "last woken by tid" },
		{ "blocker_tid", "blocked by" },
		{ "chain_root_tid", "chain root" },
	};

	for (size_t i = 0; i < ARRAY_SIZE(headings); i++)
		if (!strcmp(c->name, headings[i][0]))
			return headings[i][1];
	return c->name;
}

void catalog_time_index(struct catalog_column *c, char *sql, size_t size, uint64_t origin_us, uint64_t bucket_us)
{
	/* numbers, no user text */
	snprintf(sql, size, "((p.ts_us - %llu) / %llu)", (unsigned long long)origin_us, (unsigned long long)bucket_us);
	c->sql = sql;
	c->bucket_us = bucket_us;
	c->bucket_origin_us = origin_us;
}

const struct catalog_column *catalog__find(const struct catalog *c, const char *name)
{
	for (size_t i = 0; i < c->ncolumns; i++)
		if (!strcasecmp(c->columns[i].name, name))
			return &c->columns[i];
	return NULL;
}

/* The states as stored: what state = ... takes, in any case. */
static const char *const *state_choices(void)
{
	static const char *choices[TRACT_STATE__COUNT + 1];

	for (int i = 0; i < TRACT_STATE__COUNT; i++)
		choices[i] = state_name(i);
	return choices;
}

struct expr_column *catalog__expr_columns(const struct catalog *c)
{
	struct expr_column *cols = xcalloc(c->ncolumns, sizeof(*cols));

	for (size_t i = 0; i < c->ncolumns; i++) {
		const struct catalog_column *col = &c->columns[i];
		size_t len = strlen(col->name);

		cols[i].name = col->name;
		cols[i].sql = col->sql;
		/* a number compares with numbers; a time in microseconds with durations too */
		if (col->type && !strncmp(col->type, "INTEGER", 7))
			cols[i].type = len > 3 && !strcmp(col->name + len - 3, "_us") ? EXPR_DURATION : EXPR_INT;
		if (c == &catalog_samples && !strcmp(col->name, "state")) {
			cols[i].type = EXPR_CHOICE;
			cols[i].choices = state_choices();
		}
		if (c == &catalog_samples && !strcmp(col->name, "activity")) {
			cols[i].type = EXPR_CHOICE;
			cols[i].choices = activity_names;
		}
	}
	return cols;
}

void catalog__joins_sql(const struct catalog *c, uint32_t joins, struct strbuf *sql)
{
	for (unsigned int i = 0; c->joins && joins >> i; i++)
		if (joins & (1u << i))
			strbuf_add(sql, c->joins[i]);
}

void catalog__prepare_sql(const struct catalog *c, uint32_t joins, struct strbuf *sql)
{
	for (unsigned int i = 0; c->join_prepare && joins >> i; i++)
		if ((joins & (1u << i)) && c->join_prepare[i])
			strbuf_add(sql, c->join_prepare[i]);
}

uint32_t catalog__joins_of(const struct catalog *c, uint64_t used)
{
	uint32_t joins = 0;

	for (size_t i = 0; i < c->ncolumns && i < 64; i++)
		if (used & (1ull << i))
			joins |= c->columns[i].joins;
	return joins;
}
