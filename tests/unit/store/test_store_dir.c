// SPDX-License-Identifier: GPL-2.0-only
/*
 * The store directory and its files, against what another user could plant:
 * a directory every user may write, one of another user's on the way, a
 * symlink of another user's, a symlink or FIFO where a store file goes, and
 * a directory of root's that is not a store's (never handed over).  Run as
 * root, as the recorder is; another user's is faked with chown.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>
#include "store_dir.h"

#define OTHER_UID 4242	/* a user that is neither root nor the store's */
#define STORE_UID 4343	/* the user the store is handed to */

static char top[64];

static char *at(const char *name)
{
	static char path[4][256];
	static int next;
	char *p = path[next++ % 4];

	snprintf(p, sizeof(path[0]), "%s/%s", top, name);
	return p;
}

static int setup(void **state)
{
	(void)state;
	if (geteuid() != 0)
		return 0;
	snprintf(top, sizeof(top), "/tmp/tract-store-dir.XXXXXX");
	return mkdtemp(top) ? 0 : -1;
}

static int teardown(void **state)
{
	char cmd[128];

	(void)state;
	if (*top) {
		snprintf(cmd, sizeof(cmd), "rm -rf '%s'", top);
		return system(cmd) ? -1 : 0;
	}
	return 0;
}

#define NEED_ROOT()                                              \
	do {                                                     \
		if (geteuid() != 0)                              \
			skip();                                  \
	} while (0)

static void a_new_store_is_made_and_handed_over(void **state)
{
	struct stat st;
	int fd;

	(void)state;
	NEED_ROOT();
	fd = store_dir_open(at("new/store"), -1, STORE_UID);
	assert_true(fd >= 0);
	close(fd);
	assert_int_equal(stat(at("new/store"), &st), 0);
	assert_int_equal(st.st_uid, STORE_UID);
	assert_int_equal(st.st_mode & 07777, 0750);
	/* the parents stay root's */
	assert_int_equal(stat(at("new"), &st), 0);
	assert_int_equal(st.st_uid, 0);
	/* and the next run finds it the store user's, as it left it */
	fd = store_dir_open(at("new/store"), -1, STORE_UID);
	assert_true(fd >= 0);
	close(fd);
}

static void a_directory_others_may_write_is_refused(void **state)
{
	(void)state;
	NEED_ROOT();
	assert_int_equal(mkdir(at("open"), 0777), 0);
	assert_int_equal(chmod(at("open"), 0777), 0);
	assert_int_equal(store_dir_open(at("open"), -1, STORE_UID), -EPERM);
	assert_int_equal(chmod(at("open"), 0775), 0);
	assert_int_equal(store_dir_open(at("open"), -1, STORE_UID), -EPERM);
	/* sticky, as /tmp: on the way, yes; as the store, no */
	assert_int_equal(chmod(at("open"), 01777), 0);
	assert_int_equal(store_dir_open(at("open"), -1, STORE_UID), -EPERM);
	int fd = store_dir_open(at("open/store"), -1, (uid_t)-1);

	assert_true(fd >= 0);
	close(fd);
}

static void another_users_directory_is_refused_store_or_way(void **state)
{
	(void)state;
	NEED_ROOT();
	assert_int_equal(mkdir(at("theirs"), 0755), 0);
	assert_int_equal(chown(at("theirs"), OTHER_UID, OTHER_UID), 0);
	assert_int_equal(store_dir_open(at("theirs"), -1, STORE_UID), -EPERM);
	assert_int_equal(store_dir_open(at("theirs/store"), -1, STORE_UID), -EPERM);
	/* nothing made in it */
	assert_int_equal(access(at("theirs/store"), F_OK), -1);
	/* the store's own user owns it: the store, not a directory on the way */
	assert_int_equal(chown(at("theirs"), STORE_UID, STORE_UID), 0);
	int fd = store_dir_open(at("theirs"), -1, STORE_UID);

	assert_true(fd >= 0);
	close(fd);
	assert_int_equal(store_dir_open(at("theirs/store"), -1, STORE_UID), -EPERM);
}

static void only_roots_symlinks_are_followed(void **state)
{
	struct stat st;
	int fd;

	(void)state;
	NEED_ROOT();
	assert_int_equal(mkdir(at("target"), 0755), 0);
	assert_int_equal(symlink(at("target"), at("link")), 0);
	fd = store_dir_open(at("link"), -1, (uid_t)-1);
	assert_true(fd >= 0);
	close(fd);
	/* another user's (or the store user's) symlink: refused, and what it points at is left alone */
	assert_int_equal(lchown(at("link"), STORE_UID, STORE_UID), 0);
	assert_int_equal(store_dir_open(at("link"), 0, STORE_UID), -EPERM);
	assert_int_equal(store_dir_open(at("link/store"), -1, STORE_UID), -EPERM);
	assert_int_equal(stat(at("target"), &st), 0);
	assert_int_equal(st.st_uid, 0);
	assert_int_equal(st.st_gid, 0);
	assert_int_equal(st.st_mode & 07777, 0755);
}

static void a_root_directory_that_is_no_store_is_not_handed_over(void **state)
{
	struct stat st;
	int fd;

	(void)state;
	NEED_ROOT();
	assert_int_equal(mkdir(at("etc"), 0755), 0);
	fd = open(at("etc/passwd"), O_WRONLY | O_CREAT, 0644);
	assert_true(fd >= 0);
	close(fd);
	assert_int_equal(store_dir_open(at("etc"), -1, STORE_UID), -EEXIST);
	assert_int_equal(stat(at("etc"), &st), 0);
	assert_int_equal(st.st_uid, 0);
	/* a store an older tract left as root's: its files go with it, but never through a symlink */
	assert_int_equal(mkdir(at("old"), 0750), 0);
	fd = open(at("old/tract-20261201-00.db"), O_WRONLY | O_CREAT, 0640);
	assert_true(fd >= 0);
	close(fd);
	assert_int_equal(symlink(at("etc/passwd"), at("old/tract.lock")), 0);
	fd = store_dir_open(at("old"), -1, STORE_UID);
	assert_true(fd >= 0);
	close(fd);
	assert_int_equal(stat(at("old/tract-20261201-00.db"), &st), 0);
	assert_int_equal(st.st_uid, STORE_UID);
	assert_int_equal(stat(at("etc/passwd"), &st), 0);
	assert_int_equal(st.st_uid, 0);
}

static void store_files_are_never_opened_through_a_symlink_or_a_fifo(void **state)
{
	char buf[16] = "";
	FILE *f;
	int fd;

	(void)state;
	NEED_ROOT();
	assert_int_equal(mkdir(at("s"), 0750), 0);
	fd = open(at("victim"), O_WRONLY | O_CREAT, 0600);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, "precious", 8), 8);
	close(fd);
	assert_int_equal(symlink(at("victim"), at("s/tract.lock")), 0);
	assert_true(store_lock(at("s")) < 0);
	assert_int_equal(symlink(at("victim"), at("s/tract-20261201-00.samples.csv")), 0);
	assert_int_equal(store_create_file(at("s/tract-20261201-00.samples.csv")), -EPERM);
	errno = 0;
	assert_null(store_fopen(at("s/tract-20261201-00.samples.csv"), "a"));
	fd = open(at("victim"), O_RDONLY);
	assert_int_equal(read(fd, buf, sizeof(buf) - 1), 8);
	close(fd);
	assert_string_equal(buf, "precious");
	/* a FIFO neither blocks the recorder nor takes its rows */
	assert_int_equal(mkfifo(at("s/tract-20261201-01.passes.csv"), 0600), 0);
	assert_true(store_create_file(at("s/tract-20261201-01.passes.csv")) < 0);
	/* a file of its own opens, and appends */
	f = store_fopen(at("s/tract-20261201-02.passes.csv"), "a");
	assert_non_null(f);
	fputs("x\n", f);
	assert_int_equal(fclose(f), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(a_new_store_is_made_and_handed_over),
		cmocka_unit_test(a_directory_others_may_write_is_refused),
		cmocka_unit_test(another_users_directory_is_refused_store_or_way),
		cmocka_unit_test(only_roots_symlinks_are_followed),
		cmocka_unit_test(a_root_directory_that_is_no_store_is_not_handed_over),
		cmocka_unit_test(store_files_are_never_opened_through_a_symlink_or_a_fifo),
	};
	return cmocka_run_group_tests_name("store directory", tests, setup, teardown);
}
