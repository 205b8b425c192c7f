// SPDX-License-Identifier: GPL-2.0-only
/*
 * Reading ClickHouse's TabSeparatedWithNamesAndTypes: names and types,
 * escapes undone, NULL told from the text "\N" and from the empty string,
 * and rows that do not fit refused.
 */
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>
#include "ch_tsv.h"
#include "util.h"

static void open_text(struct ch_table *t, const char *text)
{
	assert_int_equal(ch_table__open(t, xstrdup(text), strlen(text)), 0);
}

static void field_is(const struct ch_field *f, const char *want, size_t len)
{
	assert_non_null(f->s);
	assert_int_equal(f->len, len);
	assert_memory_equal(f->s, want, len);
}

static void names_types_and_values(void **state)
{
	struct ch_table t;

	(void)state;
	open_text(&t, "comm\tn\tr\nNullable(String)\tUInt64\tFloat64\nbash\t18446744073709551615\t0.5\n");
	assert_int_equal(t.ncols, 3);
	field_is(&t.names[1], "n", 1);
	assert_int_equal(t.kinds[0], CH_KIND_TEXT);
	assert_int_equal(t.kinds[1], CH_KIND_INT);
	assert_int_equal(t.kinds[2], CH_KIND_REAL);
	assert_int_equal(ch_table__next(&t), 1);
	field_is(&t.row[0], "bash", 4);
	/* UInt64 beyond INT64_MAX keeps its bits */
	assert_int_equal((uint64_t)ch_field_int(&t.row[1]), UINT64_MAX);
	assert_true(ch_field_real(&t.row[2]) == 0.5);
	assert_int_equal(ch_table__next(&t), 0);
	ch_table__free(&t);
}

static void escapes_nulls_and_empties(void **state)
{
	struct ch_table t;

	(void)state;
	/* \N alone is NULL; "\\N" is the text \N; an empty field is ""; escapes of tab, newline, quote, NUL */
	open_text(&t, "a\tb\tc\td\nString\tString\tString\tString\n"
		      "\\N\t\\\\N\t\t\\t\\n\\'\\0\\\\\n");
	assert_int_equal(ch_table__next(&t), 1);
	assert_null(t.row[0].s);
	field_is(&t.row[1], "\\N", 2);
	field_is(&t.row[2], "", 0);
	field_is(&t.row[3], "\t\n'\0\\", 5);
	ch_table__free(&t);
}

static void bad_answers_are_refused(void **state)
{
	struct ch_table t;

	(void)state;
	/* no types line */
	assert_int_equal(ch_table__open(&t, xstrdup("a\tb\n"), 4), -EINVAL);
	ch_table__free(&t);
	/* a row with a field too many, and one too few */
	open_text(&t, "a\tb\nString\tString\nx\ty\tz\n");
	assert_int_equal(ch_table__next(&t), -EINVAL);
	ch_table__free(&t);
	open_text(&t, "a\tb\nString\tString\nx\n");
	assert_int_equal(ch_table__next(&t), -EINVAL);
	ch_table__free(&t);
	/* the last line may lack its newline */
	open_text(&t, "a\nString\nlast");
	assert_int_equal(ch_table__next(&t), 1);
	field_is(&t.row[0], "last", 4);
	assert_int_equal(ch_table__next(&t), 0);
	ch_table__free(&t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(names_types_and_values),
		cmocka_unit_test(escapes_nulls_and_empties),
		cmocka_unit_test(bad_answers_are_refused),
	};
	return cmocka_run_group_tests_name("ch_tsv", tests, NULL, NULL);
}
