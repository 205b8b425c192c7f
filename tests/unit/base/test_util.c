// SPDX-License-Identifier: GPL-2.0-only
/* The small rules every layer shares: printable names, growing strings, exit statuses. */
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>
#include "strbuf.h"
#include "syscalls.h"
#include "util.h"
#include "width.h"

static void control_bytes_are_not_shown(void **state)
{
	char out[16];

	(void)state;
	assert_int_equal(printable_copy(out, sizeof(out), "a\tb\x1b[2J\x7f", 8), 8);
	assert_string_equal(out, "a?b?[2J?");
	/* stops at a NUL and at the buffer's end, and keeps bytes above DEL (UTF-8) */
	assert_int_equal(printable_copy(out, sizeof(out), "ab\0cd", 5), 2);
	assert_int_equal(printable_copy(out, 4, "\xc3\xa9toile", 7), 3);
	assert_string_equal(out, "\xc3\xa9t");
	assert_int_equal(printable_byte(0x7f), '?');
	assert_int_equal(printable_byte(0x80), (char)0x80);
}

/* What a message quotes from a file reaches the terminal with no control in it, C1 ones neither. */
static void messages_carry_no_controls(void **state)
{
	char got[256] = "";
	FILE *cap = tmpfile();
	int saved = dup(STDERR_FILENO);

	(void)state;
	assert_non_null(cap);
	fflush(stderr);
	dup2(fileno(cap), STDERR_FILENO);
	/* ESC and BEL; CSI as UTF-8 and bare; CJK and a character ending in 0x80 kept */
	tract_warn("'%s'", "\x1b[31mX\x07\xc2\x9b" "2J\x9b\xe6\x95\xb0\xe3\x84\x80");
	fflush(stderr);
	dup2(saved, STDERR_FILENO);
	close(saved);
	rewind(cap);
	assert_non_null(fgets(got, sizeof(got), cap));
	fclose(cap);
	assert_string_equal(got, "tract: warning: ' [31mX ??2J?\xe6\x95\xb0\xe3\x84\x80'\n");
}

static void strings_grow_and_are_never_cut(void **state)
{
	struct strbuf b = { 0 };
	char *s;

	(void)state;
	assert_string_equal(strbuf_str(&b), "");
	for (int i = 0; i < 5000; i++)
		strbuf_addf(&b, "%04d,", i);
	assert_int_equal(b.len, 5000 * 5);
	assert_memory_equal(b.s + 4999 * 5, "4999,", 5);
	s = strbuf_take(&b);
	assert_null(b.s);
	assert_int_equal(strlen(s), 25000);
	free(s);
	s = strbuf_take(&b);
	assert_string_equal(s, "");
	free(s);
}

static void cells_of_text(void **state)
{
	(void)state;
	assert_int_equal(text_cells("abc", 3), 3);
	/* CJK two cells each, a combining accent none, é one */
	assert_int_equal(text_cells("\xe6\x95\xb0\xe6\x8d\xae", 6), 4);
	assert_int_equal(text_cells("e\xcc\x81", 3), 1);
	assert_int_equal(text_cells("caf\xc3\xa9", 5), 4);
	/* an invalid byte is one cell, and so is each byte of a cut character */
	assert_int_equal(text_cells("\xff\xe6\x95", 3), 3);
	/* fitting never splits a character */
	assert_int_equal(text_fit("\xe6\x95\xb0\xe6\x8d\xae", 3), 3);
	assert_int_equal(text_fit("\xe6\x95\xb0\xe6\x8d\xae", 4), 6);
	assert_int_equal(text_fit("abc", 10), 3);
}

static void cut_is_visible(const char *s, size_t cells, int stack, const char *want)
{
	char *got = text_cut(s, cells, stack, 1);

	assert_string_equal(got, want);
	assert_true(text_cells(got, strlen(got)) <= cells);
	free(got);
}

static void cuts_are_marked_and_stacks_keep_their_innermost_frames(void **state)
{
	(void)state;
	cut_is_visible("abcdef", 6, 0, "abcdef");
	cut_is_visible("abcdef", 4, 0, "abc\xe2\x80\xa6");
	/* a wide character is not cut in half */
	cut_is_visible("ab\xe6\x95\xb0\xe6\x8d\xae", 4, 0, "ab\xe2\x80\xa6");
	/* two stacks alike but for their innermost frames stay apart */
	cut_is_visible("main;do_fsync;ext4_sync_file;jbd2_wait", 26, 1, "\xe2\x80\xa6;ext4_sync_file;jbd2_wait");
	cut_is_visible("main;do_fsync;ext4_sync_file;blk_wait", 26, 1, "\xe2\x80\xa6;ext4_sync_file;blk_wait");
	/* on a whole frame when one starts within the room, else mid-frame */
	cut_is_visible("main;a_very_long_innermost_frame", 10, 1, "\xe2\x80\xa6ost_frame");
	cut_is_visible("a;b", 3, 1, "a;b");
	cut_is_visible("abc", 0, 0, "");
	char *plain = text_cut("abcdef", 4, 0, 0);

	assert_string_equal(plain, "abc~");
	free(plain);
}

/* by name, every syscall's number is the lowest of that name, as a scan of the table finds it */
static void syscall_numbers_by_name(void **state)
{
	(void)state;
	for (int nr = 0; nr < syscall_count(); nr++) {
		const char *name = syscall_name(nr);
		int first = 0;

		if (!name)
			continue;
		while (!syscall_name(first) || strcmp(syscall_name(first), name))
			first++;
		assert_int_equal(syscall_number(name), first);
	}
	assert_true(syscall_number("read") >= 0);
	assert_int_equal(syscall_number("no_such_call"), -1);
	assert_int_equal(syscall_number(""), -1);
	assert_int_equal(syscall_number("zzzz"), -1);
}

static void exit_statuses(void **state)
{
	(void)state;
	assert_int_equal(exit_status(0), 0);
	assert_int_equal(exit_status(-EINVAL), EXIT_USAGE);
	assert_int_equal(exit_status(-EIO), EXIT_RUNTIME);
	assert_int_equal(exit_status(-ENOMEM), EXIT_RUNTIME);
}

static void the_last_error_is_the_threads_own(void **state)
{
	(void)state;
	tract_clear_error();
	assert_string_equal(tract_last_error(), "");
	tract_err("cannot open '%s': %s", "x", "No such file");
	assert_string_equal(tract_last_error(), "cannot open 'x': No such file");
	tract_clear_error();
	assert_string_equal(tract_last_error(), "");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(control_bytes_are_not_shown),
		cmocka_unit_test(messages_carry_no_controls),
		cmocka_unit_test(strings_grow_and_are_never_cut),
		cmocka_unit_test(cells_of_text),
		cmocka_unit_test(cuts_are_marked_and_stacks_keep_their_innermost_frames),
		cmocka_unit_test(syscall_numbers_by_name),
		cmocka_unit_test(exit_statuses),
		cmocka_unit_test(the_last_error_is_the_threads_own),
	};
	return cmocka_run_group_tests_name("util", tests, NULL, NULL);
}
