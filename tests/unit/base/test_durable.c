// SPDX-License-Identifier: GPL-2.0-only
/* A file replaced whole or not at all, and no temporary file left behind either way. */
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>
#include "durable.h"

struct dir {
	char path[64];
	char file[96];
	char tmp[104];
};

static int make_dir(void **state)
{
	struct dir *d = calloc(1, sizeof(*d));

	if (!d)
		return -1;
	strcpy(d->path, "/tmp/tract-durable-XXXXXX");
	if (!mkdtemp(d->path)) {
		free(d);
		return -1;
	}
	snprintf(d->file, sizeof(d->file), "%s/mark", d->path);
	snprintf(d->tmp, sizeof(d->tmp), "%s.tmp", d->file);
	*state = d;
	return 0;
}

static int remove_dir(void **state)
{
	struct dir *d = *state;

	unlink(d->tmp);
	unlink(d->file);
	rmdir(d->file);
	rmdir(d->path);
	free(d);
	return 0;
}

/* The file's whole content, NUL-terminated, or NULL when there is none. */
static char *slurp(const char *path)
{
	FILE *f = fopen(path, "r");
	char *buf = NULL;
	size_t len = 0;

	if (!f)
		return NULL;
	buf = calloc(1, 4096);
	if (buf)
		len = fread(buf, 1, 4095, f);
	fclose(f);
	if (buf)
		buf[len] = '\0';
	return buf;
}

static void a_longer_file_is_replaced_whole(void **state)
{
	struct dir *d = *state;
	const char *longer = "an old mark, longer than the new one\n";
	char *got;

	assert_int_equal(durable_replace(d->file, longer, strlen(longer)), 0);
	assert_int_equal(durable_replace(d->file, "42\n", 3), 0);
	got = slurp(d->file);
	assert_non_null(got);
	assert_string_equal(got, "42\n");
	free(got);
	assert_int_equal(access(d->tmp, F_OK), -1);
}

static void a_failed_rename_leaves_the_old_and_no_temporary(void **state)
{
	struct dir *d = *state;
	char inside[128];

	/* a directory that is not empty cannot be renamed over */
	assert_int_equal(mkdir(d->file, 0700), 0);
	snprintf(inside, sizeof(inside), "%s/x", d->file);
	assert_int_equal(mkdir(inside, 0700), 0);
	assert_true(durable_replace(d->file, "42\n", 3) < 0);
	assert_int_equal(access(d->tmp, F_OK), -1);
	assert_int_equal(errno, ENOENT);
	assert_int_equal(access(inside, F_OK), 0);
	rmdir(inside);
}

static void a_missing_directory_is_an_error(void **state)
{
	char path[128];

	snprintf(path, sizeof(path), "%s/no/such/mark", ((struct dir *)*state)->path);
	assert_int_equal(durable_replace(path, "42\n", 3), -ENOENT);
	assert_int_equal(durable_rename(path, path), -ENOENT);
}

static void a_stream_is_flushed_and_closed(void **state)
{
	struct dir *d = *state;
	FILE *f = fopen(d->tmp, "w");
	char *got;

	assert_non_null(f);
	/* left in the stream's buffer until durable_fclose */
	fputs("a,b\n1,2\n", f);
	assert_int_equal(durable_fclose(f), 0);
	assert_int_equal(durable_rename(d->tmp, d->file), 0);
	got = slurp(d->file);
	assert_non_null(got);
	assert_string_equal(got, "a,b\n1,2\n");
	free(got);
	assert_int_equal(access(d->tmp, F_OK), -1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(a_longer_file_is_replaced_whole, make_dir, remove_dir),
		cmocka_unit_test_setup_teardown(a_failed_rename_leaves_the_old_and_no_temporary, make_dir, remove_dir),
		cmocka_unit_test_setup_teardown(a_missing_directory_is_an_error, make_dir, remove_dir),
		cmocka_unit_test_setup_teardown(a_stream_is_flushed_and_closed, make_dir, remove_dir),
	};
	return cmocka_run_group_tests_name("durable", tests, NULL, NULL);
}
