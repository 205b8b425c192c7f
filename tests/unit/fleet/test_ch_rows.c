// SPDX-License-Identifier: GPL-2.0-only
/*
 * A pass's line of passes_local has a field for every column the DDL
 * gives the table, in its order: bpf_us last, \N when not measured (the
 * column is Nullable) and the value when measured.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include "ch_rows.h"
#include "ch_schema.h"

/* The columns of passes_local as the DDL makes it, comma-separated ("host String, ...") */
static char *passes_columns(void)
{
	char *ddl = NULL, *start, *end, *cols;
	size_t len = 0;
	FILE *f = open_memstream(&ddl, &len);

	assert_non_null(f);
	assert_int_equal(ch_schema_write(f, &(struct ch_schema_opts){ .database = "tract" }), 0);
	fclose(f);
	start = strstr(ddl, "tract.passes_local (");
	assert_non_null(start);
	start += strlen("tract.passes_local (");
	end = strstr(start, ") ENGINE");
	assert_non_null(end);
	cols = strndup(start, (size_t)(end - start));
	free(ddl);
	return cols;
}

static size_t count_of(const char *s, char c)
{
	size_t n = 0;

	for (; *s; s++)
		n += *s == c;
	return n;
}

static void line_of(const struct pass *p, char *out, size_t cap)
{
	struct strbuf b = { 0 };

	ch_rows__pass_table(&b, PT_passes, "host", 7, p, NULL, NULL);
	snprintf(out, cap, "%s", strbuf_str(&b));
	strbuf_free(&b);
}

/* Field i (0 the first) of a line of tab-separated fields, into out. */
static void field_of(const char *line, size_t i, char *out, size_t cap)
{
	const char *f = line, *end;

	for (; i && f; i--)
		f = strchr(f, '\t') ? strchr(f, '\t') + 1 : NULL;
	assert_non_null(f);
	end = f + strcspn(f, "\t\n");
	snprintf(out, cap, "%.*s", (int)(end - f), f);
}

static void a_field_for_every_column_bpf_us_null_or_not(void **state)
{
	struct pass p = { .ts_us = 1796040005000000ull, .weight_us = 100000, .visited = 3, .cpu_us = 900,
			  .moment_read = 1, .steal_us = 1500 };
	char *cols = passes_columns(), line[512], *at, got[32];
	size_t ncols = count_of(cols, ',') + 1, bpf;

	(void)state;
	/* host and batch_id come first in the line, then the columns in the table's order */
	at = strstr(cols, ", bpf_us Nullable(UInt64)");
	assert_non_null(at);
	*at = '\0';
	bpf = count_of(cols, ',') + 1;
	line_of(&p, line, sizeof(line));
	assert_int_equal(count_of(line, '\t') + 1, ncols);
	assert_int_equal(count_of(line, '\n'), 1);
	assert_non_null(strstr(line, "\t900\t"));
	assert_non_null(strstr(line, "\t1500\t"));
	/* not measured: NULL, never 0 */
	field_of(line, bpf, got, sizeof(got));
	assert_string_equal(got, "\\N");
	p.has_bpf_us = 1;
	line_of(&p, line, sizeof(line));
	field_of(line, bpf, got, sizeof(got));
	assert_string_equal(got, "0");
	p.bpf_us = 250;
	line_of(&p, line, sizeof(line));
	field_of(line, bpf, got, sizeof(got));
	assert_string_equal(got, "250");
	free(cols);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(a_field_for_every_column_bpf_us_null_or_not),
	};

	return cmocka_run_group_tests_name("ch_rows", tests, NULL, NULL);
}
