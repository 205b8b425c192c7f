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

int derived_input(const char *name, struct derived_input *out)
{
	if (!strcmp(name, "kframes")) {
		*out = (struct derived_input){ "ks.frames", JOIN_KSTACK, "f.kstack" };
		return 0;
	}
	if (!strcmp(name, "uframes")) {
		*out = (struct derived_input){ "us.frames", JOIN_USTACK, "f.ustack" };
		return 0;
	}
	for (size_t i = 0; i < NR_SAMPLE_COLUMNS; i++)
		if (!strcmp(sample_columns[i].name, name)) {
			*out = (struct derived_input){ sample_columns[i].sql, sample_columns[i].joins, sample_columns[i].base };
			return 0;
		}
	return -1;
}

int derived_local(const struct derived_column *d, char **sql, uint32_t *joins, const char **base)
{
	struct strbuf b = { 0 };
	const char *s = d->value;
	int same_base = 1;

	*joins = 0;
	*base = NULL;
	for (size_t k = 0; k < DERIVED_MAX_INPUTS && d->inputs[k]; k++) {
		struct derived_input in;

		if (derived_input(d->inputs[k], &in))
			return -1;
		*joins |= in.joins;
		if (!k)
			*base = in.base;
		same_base &= in.base && *base && !strcmp(in.base, *base);
	}
	if (!same_base)
		*base = NULL;
	/* $N: input N's SQL */
	while (*s) {
		struct derived_input in;
		unsigned int n;
		int len;

		if (*s == '$' && sscanf(s + 1, "%u%n", &n, &len) == 1 && n >= 1 && n <= DERIVED_MAX_INPUTS &&
		    d->inputs[n - 1] && !derived_input(d->inputs[n - 1], &in)) {
			strbuf_add(&b, in.sql);
			s += 1 + len;
		} else {
			strbuf_addn(&b, s++, 1);
		}
	}
	*sql = strbuf_take(&b);
	return 0;
}
