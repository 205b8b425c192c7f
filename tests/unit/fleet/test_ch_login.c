// SPDX-License-Identifier: GPL-2.0-only
/*
 * The ClickHouse password file, as ssh and libpq read theirs: root's or the
 * running user's, no one else's to read, a regular file (a FIFO does not
 * block), no symbolic link, and small; and a password sent in the clear
 * is said so.
 */
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <cmocka.h>
#include "ch_login.h"

static char dir[] = "/tmp/tract-login-XXXXXX";

/* dir/name holding text, of mode mode; its path. */
static const char *file(const char *name, const char *text, mode_t mode)
{
	static char path[256];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
	assert_int_equal(chmod(path, mode), 0);
	return path;
}

static int setup(void **state)
{
	(void)state;
	return !mkdtemp(dir);
}

static int teardown(void **state)
{
	char cmd[64];

	(void)state;
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	return system(cmd);
}

static void the_first_line_is_the_password(void **state)
{
	char pw[64];

	(void)state;
	assert_int_equal(ch_read_password(file("pw", "s3cret\r\nnext", 0600), pw, sizeof(pw)), 0);
	assert_string_equal(pw, "s3cret");
	assert_int_equal(ch_read_password(file("ro", "only", 0400), pw, sizeof(pw)), 0);
	assert_string_equal(pw, "only");
	assert_int_equal(ch_read_password(file("empty", "", 0600), pw, sizeof(pw)), 0);
	assert_string_equal(pw, "");
}

static void others_may_not_read_it(void **state)
{
	char pw[64];

	(void)state;
	assert_int_equal(ch_read_password(file("group", "x", 0640), pw, sizeof(pw)), -EPERM);
	assert_int_equal(ch_read_password(file("world", "x", 0604), pw, sizeof(pw)), -EPERM);
}

/* A file another user owns, they could rewrite or open to all: refused, as root too. */
static void nor_own_it(void **state)
{
	const char *path = file("theirs", "x", 0600);
	char pw[64];

	(void)state;
	if (geteuid() != 0)
		skip();
	assert_int_equal(chown(path, 65534, 65534), 0);
	assert_int_equal(ch_read_password(path, pw, sizeof(pw)), -EPERM);
	assert_int_equal(chown(path, 0, 65534), 0);
	assert_int_equal(ch_read_password(path, pw, sizeof(pw)), 0);
}

/* A FIFO with no writer would block the open and the read: refused at once. */
static void only_a_regular_file(void **state)
{
	char path[256], pw[64];

	(void)state;
	snprintf(path, sizeof(path), "%s/fifo", dir);
	assert_int_equal(mkfifo(path, 0600), 0);
	alarm(10);
	assert_int_equal(ch_read_password(path, pw, sizeof(pw)), -EINVAL);
	alarm(0);
	assert_int_equal(ch_read_password(dir, pw, sizeof(pw)), -EINVAL);
	assert_true(ch_read_password("/dev/null", pw, sizeof(pw)) < 0);
}

static void no_symbolic_link(void **state)
{
	char link[256], pw[64];

	(void)state;
	snprintf(link, sizeof(link), "%s/link", dir);
	assert_int_equal(symlink(file("target", "x", 0600), link), 0);
	assert_int_equal(ch_read_password(link, pw, sizeof(pw)), -ELOOP);
}

static void nothing_too_long(void **state)
{
	static char big[CH_PASSWORD_FILE_MAX + 2];
	char pw[8];

	(void)state;
	memset(big, 'a', sizeof(big) - 1);
	assert_int_equal(ch_read_password(file("big", big, 0600), pw, sizeof(pw)), -EFBIG);
	assert_int_equal(ch_read_password(file("long", "12345678\n", 0600), pw, sizeof(pw)), -EFBIG);
	assert_int_equal(ch_read_password(file("fits", "1234567\n", 0600), pw, sizeof(pw)), 0);
	assert_string_equal(pw, "1234567");
}

static void plain_http_beyond_this_host_is_in_the_clear(void **state)
{
	(void)state;
	assert_true(ch_url_in_the_clear("http://ch:8123"));
	assert_true(ch_url_in_the_clear("http://10.0.0.1:8123/"));
	assert_true(ch_url_in_the_clear("http://[2001:db8::1]:8123"));
	assert_true(ch_url_in_the_clear("http://127.0.0.1.example.com"));
	assert_true(ch_url_in_the_clear("http://localhost.example.com:8123"));
	assert_true(ch_url_in_the_clear("http://a.localhost:8123"));
	assert_false(ch_url_in_the_clear("http://127.0.0.1:8123"));
	assert_false(ch_url_in_the_clear("http://127.1.2.3"));
	assert_false(ch_url_in_the_clear("http://localhost/"));
	assert_false(ch_url_in_the_clear("http://LOCALHOST:8123"));
	assert_false(ch_url_in_the_clear("http://[::1]:8123"));
	assert_false(ch_url_in_the_clear("http://[::ffff:127.0.0.1]:8123"));
	assert_false(ch_url_in_the_clear("https://ch:8443"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(the_first_line_is_the_password),
		cmocka_unit_test(others_may_not_read_it),
		cmocka_unit_test(nor_own_it),
		cmocka_unit_test(only_a_regular_file),
		cmocka_unit_test(no_symbolic_link),
		cmocka_unit_test(nothing_too_long),
		cmocka_unit_test(plain_http_beyond_this_host_is_in_the_clear),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
