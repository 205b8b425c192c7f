// SPDX-License-Identifier: GPL-2.0-only
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include "activity.h"
#include "catalog.h"
#include "columns.h"
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
int catalog__column_sql(const struct catalog *cat, struct catalog_column *c, char **sql)
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

	if (catalog__column_sql(cat, c, &made))
		return -1;
	if ((size_t)snprintf(sql, size, "%s", made) >= size) {
		free(made);
		return -1;
	}
	free(made);
	c->sql = sql;
	return 0;
}

int catalog_is_stack(const struct catalog_column *c)
{
	/* a stack's frames as they are: its one input, kframes or uframes */
	return (!c->value || !strcmp(c->value, "$1")) && c->inputs[0] &&
	       (!strcmp(c->inputs[0], "kframes") || !strcmp(c->inputs[0], "uframes"));
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
