// SPDX-License-Identifier: GPL-2.0-only
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include "activity.h"
#include "catalog.h"
#include "columns.h"
#include "derived.h"
#include "schema.h"
#include "value_names.h"
#include "strbuf.h"
#include "util.h"

#define TIME_FMT(fmt) "strftime('" fmt "', p.ts_us / 1000000, 'unixepoch', 'localtime')"

/* The samples' columns, then their derived ones (derived_columns.def: fill_derived()), then the time buckets. */
static struct catalog_column sample_columns_def[NR_SAMPLE_COLUMNS + NR_DERIVED + 3] = {
#define COLUMN(name, where, type, sql, joins, base, value, doc) { #name, sql, joins, doc, base, 0, type, 0 },
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
	}
}

const struct catalog catalog_samples = {
	.name = "samples",
	/* CROSS JOIN keeps the facts outer: no temporary index on them */
	.from = "sample_facts f CROSS JOIN " FACT_PASSES,
	.measure = "p.weight_us",
	.joins = sample_join_sql,
	.join_prepare = sample_join_prepare,
	.columns = sample_columns_def,
	.ncolumns = ARRAY_SIZE(sample_columns_def),
	.default_group = "state,syscall,pcomm",
};

static const struct catalog_column io_columns_def[] = {
	{ "dev", "h.dev", 0, "block device", NULL, 0, NULL, 0 },
	{ "op", "h.op", 0, "read, write, flush, ...", NULL, 0, NULL, 0 },
	{ "io_dev", "h.dev", 0, "the same as dev, as the samples name it", NULL, 0, NULL, 0 },
	{ "io_op", "h.op", 0, "the same as op, as the samples name it", NULL, 0, NULL, 0 },
	{ "le_us", "h.le_us", 0, "latency bucket: below this many microseconds", NULL, 0, "INTEGER", 0 },
	{ "ts_us", "p.ts_us", 0, "pass time", NULL, 0, "INTEGER", 0 },
	{ "minute", TIME_FMT("%Y-%m-%d %H:%M"), 0, "local minute", NULL, 0, NULL, 0 },
};

const struct catalog catalog_io = {
	.name = "io",
	.from = "io_latency h JOIN passes p ON p.id = h.pass",
	.measure = "h.count",
	.sum = "h.sum_us",
	.columns = io_columns_def,
	.ncolumns = ARRAY_SIZE(io_columns_def),
	.default_group = "dev,op",
};

static const struct catalog_column syscall_columns_def[] = {
	{ "pcomm", "h.pcomm", 0, "process name", NULL, 0, NULL, 0 },
	{ "tgid", "h.tgid", 0, "process id", NULL, 0, "INTEGER", 0 },
	{ "syscall", "h.syscall", 0, "syscall", NULL, 0, NULL, 0 },
	{ "le_us", "h.le_us", 0, "latency bucket: below this many microseconds", NULL, 0, "INTEGER", 0 },
	{ "ts_us", "p.ts_us", 0, "pass time", NULL, 0, "INTEGER", 0 },
	{ "pcomm_folded", "fold_digits(h.pcomm)", 0, "process name, digits as *", NULL, 0, NULL, 0 },
	{ "minute", TIME_FMT("%Y-%m-%d %H:%M"), 0, "local minute", NULL, 0, NULL, 0 },
};

const struct catalog catalog_syscall = {
	.name = "syscall",
	.from = "syscall_latency h JOIN passes p ON p.id = h.pass",
	.measure = "h.count",
	.sum = "h.sum_us",
	.columns = syscall_columns_def,
	.ncolumns = ARRAY_SIZE(syscall_columns_def),
	.default_group = "pcomm,syscall",
	.how_recorded = "'tract record' keeps it unless given --no-syscall-latency",
};

static const struct catalog_column runq_columns_def[] = {
	{ "pcomm", "h.pcomm", 0, "process name", NULL, 0, NULL, 0 },
	{ "tgid", "h.tgid", 0, "process id", NULL, 0, "INTEGER", 0 },
	{ "le_us", "h.le_us", 0, "latency bucket: waited for a CPU below this many microseconds", NULL, 0, "INTEGER", 0 },
	{ "ts_us", "p.ts_us", 0, "pass time", NULL, 0, "INTEGER", 0 },
	{ "pcomm_folded", "fold_digits(h.pcomm)", 0, "process name, digits as *", NULL, 0, NULL, 0 },
	{ "minute", TIME_FMT("%Y-%m-%d %H:%M"), 0, "local minute", NULL, 0, NULL, 0 },
};

const struct catalog catalog_runq = {
	.name = "runq",
	.from = "runq_latency h JOIN passes p ON p.id = h.pass",
	.measure = "h.count",
	.sum = "h.sum_us",
	.columns = runq_columns_def,
	.ncolumns = ARRAY_SIZE(runq_columns_def),
	.default_group = "pcomm,tgid",
	.how_recorded = "record it with 'tract record --runq-latency'",
};

static const struct catalog_column profile_columns_def[] = {
	{ "pcomm", "t.pcomm", 0, "process name", NULL, 0, NULL, 0 },
	{ "comm", "t.comm", 0, "thread name", NULL, 0, NULL, 0 },
	{ "tid", "t.tid", 0, "thread id", NULL, 0, "INTEGER", 0 },
	{ "tgid", "t.tgid", 0, "process id", NULL, 0, "INTEGER", 0 },
	{ "ustack", "us.frames", 0, "user stack at the tick, outermost first", NULL, 0, NULL, 0 },
	{ "kstack", "ks.frames", 0, "kernel stack at the tick, outermost first", NULL, 0, NULL, 0 },
	{ "ts_us", "p.ts_us", 0, "pass time", NULL, 0, "INTEGER", 0 },
	{ "pcomm_folded", "fold_digits(t.pcomm)", 0, "process name, digits as *", NULL, 0, NULL, 0 },
	{ "minute", TIME_FMT("%Y-%m-%d %H:%M"), 0, "local minute", NULL, 0, NULL, 0 },
};

/* The on-CPU profile's ticks (--profile-hz): counts, not thread time. */
const struct catalog catalog_profile = {
	.name = "profile",
	.from = "profile h JOIN passes p ON p.id = h.pass JOIN threads t ON t.id = h.thread"
		" LEFT JOIN stacks us ON us.id = h.ustack LEFT JOIN stacks ks ON ks.id = h.kstack",
	.measure = "h.ticks",
	.columns = profile_columns_def,
	.ncolumns = ARRAY_SIZE(profile_columns_def),
	.default_group = "pcomm,ustack",
	.how_recorded = "'tract record' keeps it unless given --profile-hz 0",
};

static const struct catalog_column wakeup_columns_def[] = {
	{ "waker", "coalesce(h.waker, 'exited')", 0, "the waking process's name, irq or timer", NULL, 0, NULL, 0 },
	{ "waker_tgid", "h.waker_tgid", 0, "its process id (NULL for irq and timer)", NULL, 0, "INTEGER", 0 },
	{ "wakee", "h.wakee", 0, "the woken process's name", NULL, 0, NULL, 0 },
	{ "wakee_tgid", "h.wakee_tgid", 0, "its process id", NULL, 0, "INTEGER", 0 },
	{ "ts_us", "p.ts_us", 0, "pass time", NULL, 0, "INTEGER", 0 },
	{ "minute", TIME_FMT("%Y-%m-%d %H:%M"), 0, "local minute", NULL, 0, NULL, 0 },
};

/* Waker -> wakee edges between processes: wakeups, and their summed run-queue wait. */
const struct catalog catalog_wakeups = {
	.name = "wakeups",
	.from = "wakeups h JOIN passes p ON p.id = h.pass",
	.measure = "h.count",
	.sum = "h.runq_us",
	.columns = wakeup_columns_def,
	.ncolumns = ARRAY_SIZE(wakeup_columns_def),
	.default_group = "waker,wakee",
	.how_recorded = "'tract record' keeps them unless given --no-wakeup-edges",
};

int catalog_is_stack(const struct catalog_column *c)
{
	size_t n = strlen(c->sql);

	return n >= 7 && !strcmp(c->sql + n - 7, ".frames");
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
