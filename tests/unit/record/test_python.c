// SPDX-License-Identifier: GPL-2.0-only
/*
 * CPython's own frames: 3.11's location table (co_linetable) decoded as
 * the interpreter does, checked against what Python 3.11 itself says of
 * the same code (co_lines()), tables that lie, and Python frames merged
 * into a native stack in place of the eval calls that run them.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>
#include "python.h"

/*
 * def f(n):                        # line 2
 *     total = 0
 *     for i in range(n):
 *
 *         if i % 3 == 0:
 *             total += i * 2
 *         else:
 *             total -= 1
 *     try:
 *         x = [j for j in range(3)]
 *     except ValueError:
 *         pass
 *     return (total +
 *             len(x))
 *
 * f.__code__.co_linetable from Debian's python3.11, and the line of each
 * code unit from co_lines() (-1: none).
 */
static const uint8_t table[] = { 0x80, 0x00, 0xd8, 0x0c, 0x0d, 0x80, 0x45, 0xdd, 0x0d, 0x12, 0x90, 0x31, 0x89, 0x58, 0x8c, 0x58, 0xf0, 0x00, 0x05, 0x05, 0x17, 0xf0, 0x00, 0x05, 0x05, 0x17, 0x88, 0x01, 0xe0, 0x0b, 0x0c, 0x88, 0x71, 0x89, 0x35, 0x90, 0x41, 0x8a, 0x3a, 0x88, 0x3a, 0xd8, 0x0c, 0x11, 0x90, 0x51, 0x98, 0x11, 0x91, 0x55, 0x89, 0x4e, 0x88, 0x45, 0x88, 0x45, 0xe0, 0x0c, 0x11, 0x90, 0x51, 0x89, 0x4a, 0x88, 0x45, 0x88, 0x45, 0xf0, 0x02, 0x03, 0x05, 0x0d, 0xd8, 0x0c, 0x21, 0xd0, 0x0c, 0x21, 0x9d, 0x05, 0x98, 0x61, 0x99, 0x08, 0x9c, 0x08, 0xd0, 0x0c, 0x21, 0xd1, 0x0c, 0x21, 0xd4, 0x0c, 0x21, 0x88, 0x01, 0x88, 0x01, 0xf8, 0xdd, 0x0b, 0x15, 0xf0, 0x00, 0x01, 0x05, 0x0d, 0xf0, 0x00, 0x01, 0x05, 0x0d, 0xf0, 0x00, 0x01, 0x05, 0x0d, 0xd8, 0x08, 0x0c, 0x88, 0x04, 0xf0, 0x03, 0x01, 0x05, 0x0d, 0xf8, 0xf8, 0xf8, 0xe0, 0x0c, 0x11, 0xdd, 0x0c, 0x0f, 0x90, 0x01, 0x89, 0x46, 0x8c, 0x46, 0xf1, 0x03, 0x01, 0x0d, 0x13, 0xf0, 0x00, 0x01, 0x05, 0x14 };
static const int lines[] = { 2, 3, 3, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 6, 6, 6, 6, 6, 6, 6, 6, 6, 7, 7, 7, 7, 7, 7, 7, 7, 7, 9, 9, 9, 9, 9, 9, 10, 11, 11, 11, 11, 11, 11, 11, 11, 11, 11, 11, 11, 11, 11, 11, 11, 11, 11, 11, 11, 11, 11, 11, 11, 11, 11, -1, 12, 12, 12, 12, 12, 12, 12, 12, 12, 13, 13, 12, -1, -1, -1, 14, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 14, 14, 14 };

static void lines_as_python_says(void **state)
{
	(void)state;
	for (size_t u = 0; u < sizeof(lines) / sizeof(lines[0]); u++)
		assert_int_equal(python__line(table, sizeof(table), 2, (int64_t)u), lines[u]);
	/* past the end, and before the start (a frame not begun) */
	assert_int_equal(python__line(table, sizeof(table), 2, 100000), -1);
	assert_int_equal(python__line(table, sizeof(table), 2, -1), -1);
}

static void tables_that_lie(void **state)
{
	/* an entry's first byte has bit 7 set; a varint that never ends; an entry cut short */
	static const uint8_t unsynced[] = { 0x05, 0x80 };
	static const uint8_t endless[] = { 0xe8, 0x7f, 0x7f, 0x7f, 0x7f, 0x7f, 0x7f, 0x7f, 0x7f };
	static const uint8_t cut[] = { 0xf0, 0x00 };
	uint8_t noise[4096];

	(void)state;
	assert_int_equal(python__line(unsynced, sizeof(unsynced), 1, 0), -1);
	assert_int_equal(python__line(endless, sizeof(endless), 1, 5), -1);
	assert_int_equal(python__line(cut, sizeof(cut), 1, 0), -1);
	assert_int_equal(python__line(table, 0, 7, 0), -1);
	/* whatever bytes: an answer, never a read past the end */
	srand(1);
	for (int round = 0; round < 200; round++) {
		size_t n = (size_t)rand() % sizeof(noise);
		uint8_t *copy;

		for (size_t i = 0; i < n; i++)
			noise[i] = (uint8_t)(rand() | 0x80);
		copy = malloc(n ? n : 1);
		memcpy(copy, noise, n);
		(void)python__line(copy, n, 1, rand() % 5000);
		free(copy);
	}
}

static char *merged(const char *folded, int cut, size_t nr, ...)
{
	struct python_stack ps = { .nr = nr };
	va_list ap;
	char *out;

	va_start(ap, nr);
	for (size_t i = 0; i < nr; i++)
		ps.seg[i] = va_arg(ap, char *);
	va_end(ap);
	out = python__merge(folded, &ps, cut);
	return out;
}

static void merge_in_place_of_eval_calls(void **state)
{
	static const char native[] =
		"_start;__libc_start_main;Py_BytesMain;_PyEval_EvalFrameDefault;_PyFunction_Vectorcall;"
		"sorted;_PyEval_EvalFrameDefault;time_sleep;clock_nanosleep";
	char *out;

	(void)state;
	/* innermost call first: the one that runs key() */
	out = merged(native, 0, 2, "key (/app.py:3)", "<module> (/app.py:9);main (/app.py:6)");
	assert_string_equal(out, "_start;__libc_start_main;Py_BytesMain;<module> (/app.py:9);main (/app.py:6);"
				 "_PyFunction_Vectorcall;sorted;key (/app.py:3);time_sleep;clock_nanosleep");
	free(out);
	/* a count that disagrees is a chain read as it changed: native frames as they are */
	assert_null(merged(native, 0, 1, "key (/app.py:3)"));
	assert_null(merged(native, 0, 3, "a (/a.py:1)", "b (/a.py:2)", "c (/a.py:3)"));
	/* ... unless the native walk was cut: its outermost calls are the missing ones */
	out = merged("_PyEval_EvalFrameDefault;spin", 1, 3, "inner (/a.py:1)", "mid (/a.py:2)", "out (/a.py:3)");
	assert_string_equal(out, "inner (/a.py:1);spin");
	free(out);
	/* an eval call that runs no frame yet keeps its own name; a cold part is the same call */
	out = merged("main;_PyEval_EvalFrameDefault.cold;_PyEval_EvalFrameDefault", 0, 2, "", "f (/a.py:1)");
	assert_string_equal(out, "main;f (/a.py:1);_PyEval_EvalFrameDefault");
	free(out);
	/* no interpreter in the stack, or no Python frames */
	assert_null(merged("main;compute", 0, 1, "f (/a.py:1)"));
	assert_null(merged(native, 0, 0));
	assert_null(python__merge(native, NULL, 0));
	/* a frame that only begins like the eval function is not it */
	assert_null(merged("_PyEval_EvalFrameDefaultX;f", 0, 1, "g (/a.py:1)"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(lines_as_python_says),
		cmocka_unit_test(tables_that_lie),
		cmocka_unit_test(merge_in_place_of_eval_calls),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
