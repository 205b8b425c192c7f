// SPDX-License-Identifier: GPL-2.0-only
/* CSV fields must survive hostile thread names byte for byte (RFC 4180). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include "csv.h"

static char *field(const char *s)
{
	static char out[256];
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	csv_field(f, s);
	fclose(f);
	snprintf(out, sizeof(out), "%s", buf);
	free(buf);
	return out;
}

/* A minimal RFC 4180 reader for one field, to prove the round trip. */
static char *unquote(const char *in)
{
	static char out[256];
	size_t o = 0;

	if (in[0] != '"')
		return strcpy(out, in);
	for (size_t i = 1; in[i]; i++) {
		if (in[i] == '"' && in[i + 1] == '"')
			out[o++] = '"', i++;
		else if (in[i] == '"')
			break;
		else
			out[o++] = in[i];
	}
	out[o] = '\0';
	return out;
}

static void plain_names_are_not_quoted(void **state)
{
	(void)state;
	assert_string_equal(field("kworker/0:1"), "kworker/0:1");
}

static void hostile_names_are_quoted(void **state)
{
	(void)state;
	assert_string_equal(field("a,b"), "\"a,b\"");
	assert_string_equal(field("say \"hi\""), "\"say \"\"hi\"\"\"");
	assert_string_equal(field("two\nlines"), "\"two\nlines\"");
	assert_string_equal(field("cr\rhere"), "\"cr\rhere\"");
	assert_string_equal(field(" lead"), "\" lead\"");
}

static void hostile_names_round_trip(void **state)
{
	const char *names[] = { "a,b", "\"", "\"\"", "x\"y,z\n", "\xff\xfe bad utf8", "123456789012345",
				",\r\n\"" };

	(void)state;
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		assert_string_equal(unquote(field(names[i])), names[i]);
}

static char *text(const char *s, size_t len)
{
	static char out[256];
	char *buf = NULL;
	size_t n = 0;
	FILE *f = open_memstream(&buf, &n);

	csv_text(f, s, len);
	fclose(f);
	snprintf(out, sizeof(out), "%s", buf);
	free(buf);
	return out;
}

#define TEXT(s) text(s, sizeof(s) - 1)

/* What query prints: no control reaches a terminal, C1 ones neither, and each line is a record. */
static void printed_text_has_its_controls_escaped(void **state)
{
	(void)state;
	assert_string_equal(TEXT("x\033]0;owned\007y"), "x\\x1b]0;owned\\x07y");
	assert_string_equal(TEXT("two\nlines\r"), "two\\x0alines\\x0d");
	assert_string_equal(TEXT("tab\there"), "tab\\x09here");
	assert_string_equal(TEXT("a\0b\x7f"), "a\\x00b\\x7f");
	/* C1: bare (CSI 0x9b), and as UTF-8 */
	assert_string_equal(TEXT("a\x9b" "2J"), "a\\x9b2J");
	assert_string_equal(TEXT("a\xc2\x9b" "2J"), "a\\xc2\\x9b2J");
	/* characters whose bytes hold 0x9b are no controls, nor are other bytes */
	assert_string_equal(TEXT("\xc8\x9b" "ara caf\xc3\xa9"), "\xc8\x9b" "ara caf\xc3\xa9");
	assert_string_equal(TEXT("\xff\xfe"), "\xff\xfe");
	/* a backslash stays one, and quoting is as csv_field's */
	assert_string_equal(TEXT("dev-disk-by\\x2duuid"), "dev-disk-by\\x2duuid");
	assert_string_equal(TEXT("a,\"b\""), "\"a,\"\"b\"\"\"");
	assert_string_equal(TEXT(""), "\"\"");
}

/* Text a spreadsheet would run as a formula gets OWASP's ' first; the rest is as it is. */
static void printed_text_is_no_formula(void **state)
{
	(void)state;
	assert_string_equal(TEXT("=cmd|' /C calc'!A0"), "'=cmd|' /C calc'!A0");
	assert_string_equal(TEXT("+1+1"), "'+1+1");
	assert_string_equal(TEXT("-5"), "'-5");
	assert_string_equal(TEXT("@SUM(A1)"), "'@SUM(A1)");
	assert_string_equal(TEXT("=a,b"), "\"'=a,b\"");
	assert_string_equal(TEXT("\tx"), "\\x09x");
	assert_string_equal(TEXT("a=b"), "a=b");
	assert_string_equal(TEXT("kworker/0:1-events"), "kworker/0:1-events");
}

/* The store's writer is not the printer: its fields keep every byte. */
static void store_fields_keep_their_bytes(void **state)
{
	(void)state;
	assert_string_equal(field("=x"), "=x");
	assert_string_equal(field("a\033b"), "a\033b");
}

static void null_is_an_empty_field_and_empty_is_quoted(void **state)
{
	(void)state;
	assert_string_equal(field(NULL), "");
	assert_string_equal(field(""), "\"\"");
}

/* Records written with csv_field and read back with csv_read_record are the same bytes. */
static void records_round_trip_through_the_reader(void **state)
{
	const char *fields[] = { "plain", "a,b", "say \"hi\"", "two\nlines", "cr\r\nlf", "", NULL, " pad ",
				 "\xff\xfe bad utf8", "last" };
	const size_t nr = sizeof(fields) / sizeof(fields[0]);
	struct csv_record r = { 0 };
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	(void)state;
	for (int rec = 0; rec < 2; rec++) {
		for (size_t i = 0; i < nr; i++) {
			if (i)
				csv_sep(f);
			csv_field(f, fields[i]);
		}
		csv_end(f);
	}
	/* a field with a NUL byte, and a last line without its CRLF */
	csv_field_n(f, "a\0b", 3);
	fclose(f);
	f = fmemopen(buf, len, "r");
	for (int rec = 0; rec < 2; rec++) {
		assert_int_equal(csv_read_record(f, &r), 1);
		assert_int_equal(r.nr, nr);
		for (size_t i = 0; i < nr; i++) {
			assert_int_equal(r.fields[i].null, fields[i] == NULL);
			if (fields[i])
				assert_string_equal(r.fields[i].s, fields[i]);
		}
	}
	assert_int_equal(csv_read_record(f, &r), 1);
	assert_int_equal(r.nr, 1);
	assert_int_equal(r.fields[0].len, 3);
	assert_memory_equal(r.fields[0].s, "a\0b", 3);
	assert_int_equal(csv_read_record(f, &r), 0);
	fclose(f);
	free(buf);
	csv_record_free(&r);
}

static void an_open_quote_is_an_error(void **state)
{
	static char text[] = "a,\"never closed\r\n";
	struct csv_record r = { 0 };
	FILE *f = fmemopen(text, strlen(text), "r");

	(void)state;
	assert_int_equal(csv_read_record(f, &r), -1);
	fclose(f);
	csv_record_free(&r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(plain_names_are_not_quoted),
		cmocka_unit_test(hostile_names_are_quoted),
		cmocka_unit_test(hostile_names_round_trip),
		cmocka_unit_test(printed_text_has_its_controls_escaped),
		cmocka_unit_test(printed_text_is_no_formula),
		cmocka_unit_test(store_fields_keep_their_bytes),
		cmocka_unit_test(null_is_an_empty_field_and_empty_is_quoted),
		cmocka_unit_test(records_round_trip_through_the_reader),
		cmocka_unit_test(an_open_quote_is_an_error),
	};
	return cmocka_run_group_tests_name("csv", tests, NULL, NULL);
}
