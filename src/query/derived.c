// SPDX-License-Identifier: GPL-2.0-only
#include <stdio.h>
#include <string.h>
#include "columns.h"
#include "derived.h"
#include "strbuf.h"
#include "util.h"

#define IN(...) { __VA_ARGS__ }
const struct derived_column derived_columns[NR_DERIVED] = {
#define DERIVED(name, value, inputs, doc) [DERIVED_##name] = { #name, value, inputs, doc },
#include "derived_columns.def"
#undef DERIVED
};
#undef IN

/* The columns of the ended wait a sample is in (the wait_ends table's), as inputs. */
static const struct {
	const char *name, *sql, *type;
} wait_end_inputs[] = {
	{ "wait_ends.ender", "we.ender", "TEXT" },
	{ "wait_ends.ender_tid", "we.ender_tid", "INTEGER" },
	{ "wait_ends.ender_tgid", "we.ender_tgid", "INTEGER" },
};

int derived_input(const char *name, struct derived_input *out)
{
	if (!strcmp(name, "kframes")) {
		*out = (struct derived_input){ "ks.frames", JOIN_KSTACK, "f.kstack", NULL };
		return 0;
	}
	if (!strcmp(name, "uframes")) {
		*out = (struct derived_input){ "us.frames", JOIN_USTACK, "f.ustack", NULL };
		return 0;
	}
	/* the class alone, which activity needs of every sample, from memory, not through the join */
	if (!strcmp(name, "wait_ends.wait_class")) {
		*out = (struct derived_input){ "ended_wait_class(f.thread, p.ts_us)", 0, NULL, "TEXT" };
		return 0;
	}
	for (size_t i = 0; i < ARRAY_SIZE(wait_end_inputs); i++)
		if (!strcmp(name, wait_end_inputs[i].name)) {
			*out = (struct derived_input){ wait_end_inputs[i].sql, JOIN_THREAD | JOIN_WAIT_END, NULL,
							  wait_end_inputs[i].type };
			return 0;
		}
	for (size_t i = 0; i < NR_SAMPLE_COLUMNS; i++)
		if (!strcmp(sample_columns[i].name, name)) {
			*out = (struct derived_input){ sample_columns[i].sql, sample_columns[i].joins, sample_columns[i].base,
							  sample_columns[i].type };
			return 0;
		}
	return -1;
}

const char *derived_type(const struct derived_column *d)
{
	struct derived_input in;

	return !strcmp(d->value, "$1") && !derived_input(d->inputs[0], &in) ? in.type : NULL;
}

/*
 * Where a local store's facts give a column more cheaply than its inputs'
 * values do, the SQL of it over them: activity from the ids a fact holds,
 * with a file's dimensions in memory (fact_activity.h), not from names
 * joined in for every sample.  @name is a sample column's SQL (a time as
 * the sample stands at the pass, a repeat's gone on with the clock).
 */
static const struct {
	const char *name, *sql;
} local_forms[] = {
	{ "activity", "fact_activity(f.state, f.call, @sc_us, @state_us, f.file, f.wait_class_id, f.thread, p.ts_us)" },
};

/* A local form with each @name replaced by that sample column's SQL. */
static char *expand_local(const char *s)
{
	struct strbuf b = { 0 };

	while (*s) {
		size_t n = *s == '@' ? strspn(s + 1, "abcdefghijklmnopqrstuvwxyz_") : 0;
		size_t i = 0;

		while (n && i < NR_SAMPLE_COLUMNS &&
		       (strlen(sample_columns[i].name) != n || strncmp(sample_columns[i].name, s + 1, n)))
			i++;
		if (n && i < NR_SAMPLE_COLUMNS) {
			strbuf_add(&b, sample_columns[i].sql);
			s += 1 + n;
		} else {
			strbuf_addn(&b, s++, 1);
		}
	}
	return strbuf_take(&b);
}

char *derived_apply(const char *value, const char *const *args, size_t n)
{
	struct strbuf b = { 0 };
	const char *s = value ? value : "$1";

	while (*s) {
		unsigned int k;
		int len;

		if (*s == '$' && sscanf(s + 1, "%u%n", &k, &len) == 1 && k >= 1 && k <= n) {
			strbuf_add(&b, args[k - 1]);
			s += 1 + len;
		} else {
			strbuf_addn(&b, s++, 1);
		}
	}
	return strbuf_take(&b);
}

int derived_local(const struct derived_column *d, char **sql, uint32_t *joins, const char **base)
{
	const char *args[DERIVED_MAX_INPUTS];
	size_t n;
	int same_base = 1;

	*joins = 0;
	*base = NULL;
	for (size_t i = 0; i < ARRAY_SIZE(local_forms); i++)
		if (!strcmp(local_forms[i].name, d->name)) {
			*sql = expand_local(local_forms[i].sql);
			return 0;
		}
	for (n = 0; n < DERIVED_MAX_INPUTS && d->inputs[n]; n++) {
		struct derived_input in;

		if (derived_input(d->inputs[n], &in))
			return -1;
		*joins |= in.joins;
		if (!n)
			*base = in.base;
		same_base &= in.base && *base && !strcmp(in.base, *base);
		args[n] = in.sql;
	}
	if (!same_base)
		*base = NULL;
	*sql = derived_apply(d->value, args, n);
	return 0;
}
