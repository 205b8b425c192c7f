// SPDX-License-Identifier: GPL-2.0-only
/*
 * Perf maps as runtimes write them: addresses with and without "0x",
 * names with spaces, a file that grows line by line (a last line half
 * written), one rewritten whole (jcmd Compiler.perfmap) or cut, bad and
 * overlong lines, and a file that may not be read (a symlink, another
 * user's).
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "perfmap.h"

#define BIG (1u << 20)

static void expect_name(struct perfmap *pm, uint64_t addr, const char *want, uint64_t want_off)
{
	uint64_t off = ~0ull;
	const char *name = perfmap__lookup(pm, addr, &off);

	if (!want) {
		assert_null(name);
		return;
	}
	assert_non_null(name);
	assert_string_equal(name, want);
	assert_int_equal(off, want_off);
}

static void both_address_forms(void **state)
{
	static const char text[] =
		"7f0000001000 100 Interpreter\n"
		"0x00007f0000002000 0x0000000000000080 int Load.compute(int)\n"
		"0X7F0000003000 0X10 Lfoo;::bar\r\n";
	struct perfmap *pm = perfmap__new();
	struct perfmap_stats st;

	(void)state;
	assert_int_equal(perfmap__parse(pm, text, strlen(text), BIG), strlen(text));
	expect_name(pm, 0x7f0000001000, "Interpreter", 0);
	expect_name(pm, 0x7f00000010ff, "Interpreter", 0xff);
	expect_name(pm, 0x7f0000001100, NULL, 0);
	expect_name(pm, 0x7f0000002010, "int Load.compute(int)", 0x10);
	/* a folded stack's separator is no part of a name */
	expect_name(pm, 0x7f0000003000, "Lfoo:::bar", 0);
	expect_name(pm, 0x7f0000000fff, NULL, 0);
	perfmap__stats(pm, &st);
	assert_int_equal(st.lines, 3);
	assert_int_equal(st.bad, 0);
	perfmap__free(pm);
}

static void bad_lines_are_skipped(void **state)
{
	char text[PERFMAP_MAX_LINE + 256];
	struct perfmap *pm = perfmap__new();
	struct perfmap_stats st;
	int n = 0;

	(void)state;
	n += sprintf(text + n, "%s", "zz 10 notHex\n");		/* not hex */
	n += sprintf(text + n, "%s", "1000 10\n");		/* no name */
	n += sprintf(text + n, "%s", "1000 0 empty\n");		/* no size */
	n += sprintf(text + n, "%s", "1000\n");
	n += sprintf(text + n, "%s", "\n");
	n += sprintf(text + n, "%s", "11112222333344445 10 tooWide\n");
	n += sprintf(text + n, "%s", "ffffffffffffff00 1000 wraps\n");
	n += sprintf(text + n, "%s", "1000 100000000 tooBig\n");
	n += sprintf(text + n, "%s", "0x 10 noDigits\n");
	n += sprintf(text + n, "%s", "2000 10 \x1b[31mred\n");	/* kept, made printable */
	n += sprintf(text + n, "%s", "3000 10 ");
	memset(text + n, 'x', PERFMAP_MAX_LINE);		/* overlong */
	n += PERFMAP_MAX_LINE;
	n += sprintf(text + n, "%s", "\n4000 10 after\n");
	assert_int_equal(perfmap__parse(pm, text, (size_t)n, BIG), (size_t)n);
	perfmap__stats(pm, &st);
	assert_int_equal(st.lines, 2);
	assert_int_equal(st.bad, 10);
	expect_name(pm, 0x1000, NULL, 0);
	expect_name(pm, 0x2000, "?[31mred", 0);
	expect_name(pm, 0x3000, NULL, 0);
	expect_name(pm, 0x4004, "after", 4);
	perfmap__free(pm);
}

static void later_lines_win_and_memory_is_bounded(void **state)
{
	static const char text[] =
		"1000 100 old\n"
		"1000 80 new\n"
		"1040 10 inner\n";
	struct perfmap *pm = perfmap__new();
	struct perfmap_stats st;
	char line[64];

	(void)state;
	perfmap__parse(pm, text, strlen(text), BIG);
	expect_name(pm, 0x1000, "new", 0);
	expect_name(pm, 0x1044, "inner", 4);
	/* past the newer, shorter line: still in the older one */
	expect_name(pm, 0x10f0, "old", 0xf0);
	perfmap__free(pm);

	pm = perfmap__new();
	for (int i = 0; i < 100000; i++) {
		int n = snprintf(line, sizeof(line), "%x 10 f%d\n", 0x10000 + 16 * i, i);

		perfmap__parse(pm, line, (size_t)n, 64 << 10);
	}
	assert_true(perfmap__bytes(pm) <= 64 << 10);
	perfmap__stats(pm, &st);
	assert_true(st.lines > 1000);
	assert_int_equal(st.lines + st.dropped, 100000);
	expect_name(pm, 0x10000, "f0", 0);
	perfmap__free(pm);
}

static char path[64];

static int write_file(const char *text, const char *mode)
{
	FILE *f = fopen(path, mode);

	assert_non_null(f);
	fputs(text, f);
	fclose(f);
	return open(path, O_RDONLY | O_CLOEXEC);
}

static void growth_is_read_on_and_a_rewrite_afresh(void **state)
{
	struct perfmap *pm = perfmap__new();
	struct perfmap_stats st;
	int fd;

	(void)state;
	snprintf(path, sizeof(path), "/tmp/tract-perfmap-test-%d", (int)getpid());
	fd = write_file("1000 10 first\n2000 10 sec", "w");
	assert_int_equal(perfmap__update(pm, fd, BIG), 0);
	expect_name(pm, 0x1000, "first", 0);
	/* a line still being written waits for its newline */
	expect_name(pm, 0x2000, NULL, 0);
	close(fd);

	fd = write_file("ond\n3000 10 third\n", "a");
	assert_int_equal(perfmap__update(pm, fd, BIG), 0);
	expect_name(pm, 0x2000, "second", 0);
	expect_name(pm, 0x3000, "third", 0);
	perfmap__stats(pm, &st);
	/* only the new lines were parsed */
	assert_int_equal(st.lines, 3);
	assert_int_equal(st.rereads, 0);
	/* nothing new: nothing read */
	assert_int_equal(perfmap__update(pm, fd, BIG), 0);
	perfmap__stats(pm, &st);
	assert_int_equal(st.lines, 3);
	close(fd);

	/* rewritten in place, longer: the old lines go */
	fd = write_file("5000 10 fifth\n6000 10 sixth\n7000 10 seventh\n8000 10 eighth\n", "w");
	assert_int_equal(perfmap__update(pm, fd, BIG), 0);
	expect_name(pm, 0x1000, NULL, 0);
	expect_name(pm, 0x8000, "eighth", 0);
	perfmap__stats(pm, &st);
	assert_int_equal(st.rereads, 1);
	assert_int_equal(st.lines, 7);
	close(fd);

	/* rewritten smaller */
	fd = write_file("9000 10 ninth\n", "w");
	assert_int_equal(perfmap__update(pm, fd, BIG), 0);
	expect_name(pm, 0x5000, NULL, 0);
	expect_name(pm, 0x9000, "ninth", 0);
	perfmap__stats(pm, &st);
	assert_int_equal(st.rereads, 2);
	close(fd);

	/* replaced by another file (a new inode) */
	unlink(path);
	fd = write_file("a000 10 tenth\n", "w");
	assert_int_equal(perfmap__update(pm, fd, BIG), 0);
	expect_name(pm, 0x9000, NULL, 0);
	expect_name(pm, 0xa000, "tenth", 0);
	close(fd);
	unlink(path);
	perfmap__free(pm);
}

static void a_line_longer_than_a_read_is_dropped(void **state)
{
	struct perfmap *pm = perfmap__new();
	struct perfmap_stats st;
	size_t big = 200 << 10;
	char *text = malloc(big + 64);
	int fd;

	(void)state;
	memcpy(text, "1000 10 ", 8);
	memset(text + 8, 'y', big);
	strcpy(text + 8 + big, "\n2000 10 next\n");
	fd = write_file(text, "w");
	assert_int_equal(perfmap__update(pm, fd, BIG), 0);
	expect_name(pm, 0x1000, NULL, 0);
	expect_name(pm, 0x2000, "next", 0);
	perfmap__stats(pm, &st);
	assert_int_equal(st.bad, 1);
	assert_int_equal(st.lines, 1);
	close(fd);
	unlink(path);
	free(text);
	perfmap__free(pm);
}

/* perfmap_open() on this very process: its /tmp/perf-PID.map, and what it refuses. */
static void only_the_process_own_regular_file_is_opened(void **state)
{
	char map[64];
	int fd;

	(void)state;
	snprintf(map, sizeof(map), "/tmp/perf-%d.map", (int)getpid());
	unlink(map);
	assert_int_equal(perfmap_open("/proc", getpid()), -ENOENT);

	snprintf(path, sizeof(path), "/tmp/tract-perfmap-target-%d", (int)getpid());
	close(write_file("1000 10 secret\n", "w"));
	assert_int_equal(symlink(path, map), 0);
	assert_int_equal(perfmap_open("/proc", getpid()), -EPERM);
	unlink(map);
	unlink(path);

	assert_int_equal(mkfifo(map, 0600), 0);
	assert_int_equal(perfmap_open("/proc", getpid()), -EPERM);
	unlink(map);

	strcpy(path, map);
	close(write_file("1000 10 mine\n", "w"));
	fd = perfmap_open("/proc", getpid());
	assert_true(fd >= 0);
	close(fd);
	/* another user's file is not this process's map (only root can make one here) */
	if (geteuid() == 0 && chown(map, 12345, 12345) == 0)
		assert_int_equal(perfmap_open("/proc", getpid()), -EPERM);
	unlink(map);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(both_address_forms),
		cmocka_unit_test(bad_lines_are_skipped),
		cmocka_unit_test(later_lines_win_and_memory_is_bounded),
		cmocka_unit_test(growth_is_read_on_and_a_rewrite_afresh),
		cmocka_unit_test(a_line_longer_than_a_read_is_dropped),
		cmocka_unit_test(only_the_process_own_regular_file_is_opened),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
