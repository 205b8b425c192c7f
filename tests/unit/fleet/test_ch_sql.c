// SPDX-License-Identifier: GPL-2.0-only
/*
 * The one function that builds ClickHouse literals, against inputs made to
 * break out of one.  With --print-literals it prints "HEX<tab>LITERAL" for
 * each (HEX "-" for the empty one), so that the integration test can ask a real server what the
 * literal holds.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "ch_sql.h"

static const struct {
	const char *s;
	size_t len;
} hostile[] = {
#define H(lit) { lit, sizeof(lit) - 1 }
	H("plain"),
	H("it's"),
	H("'; DROP TABLE tract.samples; --"),
	H("back\\slash"),
	H("\\'"),
	H("ends in a backslash\\"),
	H("new\nline\ttab\rcr"),
	H("nul\0byte"),
	H("\xff\xfe not UTF-8 \xc3"),
	H("\xe2\x80\xae right-to-left \xf0\x9f\x94\xa5"),
	H("\x7f del"),
	H("\\x41 not an escape"),
	H(""),
#undef H
};

static char *quote(const char *s, size_t len)
{
	struct strbuf b = { 0 };

	ch_quote(&b, s, len);
	return strbuf_take(&b);
}

static void literals_are_plain_ascii_with_every_quote_escaped(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(hostile) / sizeof(hostile[0]); i++) {
		char *q = quote(hostile[i].s, hostile[i].len);
		size_t n = strlen(q);

		assert_true(n >= 2 && q[0] == '\'' && q[n - 1] == '\'');
		for (size_t j = 1; j + 1 < n; j++) {
			unsigned char c = (unsigned char)q[j];

			assert_true(c >= 0x20 && c < 0x7f);
			/* a quote or backslash inside is always the escaped one */
			if (c == '\\') {
				assert_true(q[j + 1] == '\\' || q[j + 1] == '\'' || q[j + 1] == 'x');
				j++;
			} else {
				assert_true(c != '\'');
			}
		}
		free(q);
	}
}

static void known_forms(void **state)
{
	static const struct {
		const char *in, *out;
	} cases[] = {
		{ "it's", "'it\\'s'" },
		{ "a\\b", "'a\\\\b'" },
		{ "\n", "'\\x0a'" },
		{ "\xff", "'\\xff'" },
		{ "", "''" },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char *q = quote(cases[i].in, strlen(cases[i].in));

		assert_string_equal(q, cases[i].out);
		free(q);
	}
}

static void identifiers(void **state)
{
	(void)state;
	assert_true(ch_identifier_ok("tract"));
	assert_true(ch_identifier_ok("fleet_2"));
	assert_true(ch_identifier_ok("_x"));
	assert_false(ch_identifier_ok(""));
	assert_false(ch_identifier_ok(NULL));
	assert_false(ch_identifier_ok("2fleet"));
	assert_false(ch_identifier_ok("a b"));
	assert_false(ch_identifier_ok("x; DROP TABLE y"));
	assert_false(ch_identifier_ok("tract.samples"));
	assert_false(ch_identifier_ok("`x`"));
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(literals_are_plain_ascii_with_every_quote_escaped),
		cmocka_unit_test(known_forms),
		cmocka_unit_test(identifiers),
	};

	if (argc > 1 && !strcmp(argv[1], "--print-literals")) {
		for (size_t i = 0; i < sizeof(hostile) / sizeof(hostile[0]); i++) {
			char *q = quote(hostile[i].s, hostile[i].len);

			/* "-" for none: a shell's read drops an empty first field */
			if (!hostile[i].len)
				fputs("-", stdout);
			for (size_t j = 0; j < hostile[i].len; j++)
				printf("%02X", (unsigned char)hostile[i].s[j]);
			printf("\t%s\n", q);
			free(q);
		}
		return 0;
	}
	return cmocka_run_group_tests(tests, NULL, NULL);
}
