// SPDX-License-Identifier: GPL-2.0-only
/* Dictionaries and kernel symbol lookup behind the store's dimensions and stacks. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>
#include "dict.h"
#include "ksyms.h"
#include "stackdict.h"

static void ids_are_dense_and_stable(void **state)
{
	struct dict *d = dict__new();
	int added;
	char key[32];

	(void)state;
	for (int i = 0; i < 10000; i++) {
		snprintf(key, sizeof(key), "key-%d", i);
		assert_int_equal(dict__intern(d, key, strlen(key), &added), i + 1);
		assert_true(added);
	}
	assert_int_equal(dict__intern(d, "key-5", 5, &added), 6);
	assert_false(added);
	assert_int_equal(dict__find(d, "key-9999", 8), 10000);
	assert_int_equal(dict__find(d, "nope", 4), 0);
	dict__clear(d);
	assert_int_equal(dict__size(d), 0);
	assert_int_equal(dict__intern(d, "key-9", 5, &added), 1);
	dict__free(d);
	dict__free(NULL);
}

static void values_and_string_pools(void **state)
{
	struct dict *d = dict__new();
	const char *a, *b;
	int added;
	uint32_t id;

	(void)state;
	id = dict__intern(d, "k", 1, &added);
	assert_int_equal(*dict__value(d, id), 0);
	*dict__value(d, id) = 42;
	/* values and stored keys survive the table growing */
	for (int i = 0; i < 5000; i++) {
		char key[16];

		snprintf(key, sizeof(key), "%d", i);
		dict__intern(d, key, strlen(key), &added);
	}
	assert_int_equal(*dict__value(d, id), 42);
	assert_memory_equal(dict__key(d, id), "k", 1);
	dict__free(d);

	d = dict__new();
	a = dict__intern_str(d, "/usr/bin/bash");
	b = dict__intern_str(d, "/usr/bin/bash");
	assert_ptr_equal(a, b);
	assert_string_equal(a, "/usr/bin/bash");
	assert_ptr_not_equal(dict__intern_str(d, "/usr/bin/ba"), a);
	dict__free(d);
}

static struct ksyms *fake_ksyms(void)
{
	char path[] = "/tmp/tract-ksyms-XXXXXX";
	int fd = mkstemp(path);
	FILE *f = fdopen(fd, "w");
	struct ksyms *ks;

	fputs("ffffffff81000000 T _stext\n"
	      "ffffffff81000100 t schedule\n"
	      "ffffffff81000200 T do_sys_poll\n"
	      "ffffffff81000300 D some_data\n"
	      "ffffffff81000400 T entry_SYSCALL_64\n", f);
	fclose(f);
	ks = ksyms__load(path);
	unlink(path);
	return ks;
}

static void kernel_symbols_resolve_to_their_function(void **state)
{
	struct ksyms *ks = fake_ksyms();
	uint64_t off;

	(void)state;
	assert_non_null(ks);
	assert_string_equal(ksyms__lookup(ks, 0xffffffff81000105, &off), "schedule");
	assert_int_equal(off, 5);
	/* data symbols are not functions */
	assert_string_equal(ksyms__lookup(ks, 0xffffffff81000310, NULL), "do_sys_poll");
	assert_null(ksyms__lookup(ks, 0x1000, NULL));
	ksyms__free(ks);
}

static void stacks_are_folded_outermost_first(void **state)
{
	struct ksyms *ks = fake_ksyms();
	struct stackdict *sd = stackdict__new(ks, NULL);
	const uint64_t ip[] = { 0xffffffff81000110, 0xffffffff81000210, 0xffffffff81000410 };
	const uint64_t ip2[] = { 0xffffffff81000120, 0xffffffff81000220, 0xffffffff81000420 };
	const struct kstack *a, *b;

	(void)state;
	a = stackdict__add(sd, 77, ip, 3);
	assert_string_equal(a->frames, "entry_SYSCALL_64;do_sys_poll;schedule");
	assert_string_equal(a->wait, "schedule");
	assert_ptr_equal(stackdict__get(sd, 77), a);
	assert_null(stackdict__get(sd, 78));
	/* other offsets in the same functions: another raw stack, the same text and hash */
	b = stackdict__add(sd, 78, ip2, 3);
	assert_int_equal(a->hash, b->hash);
	assert_true(a->hash <= INT64_MAX);
	stackdict__free(sd);
	ksyms__free(ks);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(ids_are_dense_and_stable),
		cmocka_unit_test(values_and_string_pools),
		cmocka_unit_test(kernel_symbols_resolve_to_their_function),
		cmocka_unit_test(stacks_are_folded_outermost_first),
	};
	return cmocka_run_group_tests_name("dict", tests, NULL, NULL);
}
