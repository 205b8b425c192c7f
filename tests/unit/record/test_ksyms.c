// SPDX-License-Identifier: GPL-2.0-only
/* Kernel symbols from a kallsyms file, and lines longer than the reader's buffer. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "ksyms.h"

static struct ksyms *load(const char *text, char *path)
{
	int fd = mkstemp(path);
	FILE *f;
	struct ksyms *ks;

	assert_true(fd >= 0);
	f = fdopen(fd, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
	ks = ksyms__load(path);
	unlink(path);
	assert_non_null(ks);
	return ks;
}

static void functions_and_their_offsets(void **state)
{
	char path[] = "/tmp/tract-test-ksyms-XXXXXX";
	struct ksyms *ks;
	uint64_t off = 0;

	(void)state;
	ks = load("ffffffff81000000 T _text\n"
		  "ffffffff81000100 t do_one\n"
		  "ffffffff81002000 D some_data\n"
		  "ffffffff81e00000 T _etext\n"
		  "ffffffffc0001000 t ext4_sync_fs\t[ext4]\n", path);
	assert_string_equal(ksyms__lookup(ks, 0xffffffff81000104ull, &off), "do_one");
	assert_int_equal(off, 4);
	/* data is not code: the function before it goes on */
	assert_string_equal(ksyms__lookup(ks, 0xffffffff81002008ull, NULL), "do_one");
	assert_null(ksyms__lookup(ks, 0xffffffff81f00000ull, NULL));
	assert_string_equal(ksyms__lookup(ks, 0xffffffffc0001010ull, NULL), "ext4_sync_fs");
	ksyms__free(ks);
}

/* fgets() cut a long name: the rest of its line must not read as a symbol of its own */
static void the_tail_of_a_long_line_is_no_symbol(void **state)
{
	char path[] = "/tmp/tract-test-ksyms-XXXXXX", text[2048];
	struct ksyms *ks;
	int n;

	(void)state;
	n = snprintf(text, sizeof(text), "ffffffff81000000 T ");
	memset(text + n, 'a', 492);
	snprintf(text + n + 492, sizeof(text) - n - 492,
		 "ffffffffc0000000 t forged\nffffffff81000100 T after\nffffffff81e00000 T _etext\n");
	ks = load(text, path);
	assert_null(ksyms__lookup(ks, 0xffffffffc0000000ull, NULL));
	assert_string_equal(ksyms__lookup(ks, 0xffffffff81000104ull, NULL), "after");
	ksyms__free(ks);
}

/* a code symbol's address by its name, in the table read once */
static void addresses_by_name(void **state)
{
	char path[] = "/tmp/tract-test-ksyms-XXXXXX";
	struct ksyms *ks;

	(void)state;
	ks = load("ffffffff81000000 T _text\n"
		  "ffffffff81000100 t timerfd_tmrproc\n"
		  "ffffffff81002000 D some_data\n"
		  "not a line at all\n"
		  "ffffffff8100zz00 t broken_address\n"
		  "ffffffff81003000 tt two_letters\n"
		  "ffffffff81e00000 T _etext\n"
		  "ffffffffc0001000 t ext4_sync_fs\t[ext4]\n", path);
	assert_int_equal(ksyms__address(ks, "timerfd_tmrproc"), 0xffffffff81000100ull);
	assert_int_equal(ksyms__address(ks, "ext4_sync_fs"), 0xffffffffc0001000ull);
	/* data, lines that are no symbol, a name it does not have, no table */
	assert_int_equal(ksyms__address(ks, "some_data"), 0);
	assert_int_equal(ksyms__address(ks, "broken_address"), 0);
	assert_int_equal(ksyms__address(ks, "two_letters"), 0);
	assert_int_equal(ksyms__address(ks, "ext4"), 0);
	assert_int_equal(ksyms__address(NULL, "timerfd_tmrproc"), 0);
	ksyms__free(ks);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(functions_and_their_offsets),
		cmocka_unit_test(addresses_by_name),
		cmocka_unit_test(the_tail_of_a_long_line_is_no_symbol),
	};
	return cmocka_run_group_tests_name("ksyms", tests, NULL, NULL);
}
