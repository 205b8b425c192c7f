// SPDX-License-Identifier: GPL-2.0-only
/* Socket names from /proc/net lines, as a sample's file column shows them. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>
#include "blockdev.h"
#include "files.h"

static void tcp4_connection(void **state)
{
	char out[256];
	uint64_t ino = 0;

	(void)state;
	assert_int_equal(files__format_inet_line(
		"   3: 0100007F:B9FA 0100007F:EB9F 01 00000000:00000000 00:00000000 00000000     0        0 63112 1 0000000000000000 20 4 30 10 -1\n",
		"tcp", 0, out, sizeof(out), &ino), 0);
	assert_string_equal(out, "tcp 127.0.0.1:47610->127.0.0.1:60319 ESTABLISHED");
	assert_int_equal(ino, 63112);
}

static void listening_and_unconnected(void **state)
{
	char out[256];
	uint64_t ino = 0;

	(void)state;
	assert_int_equal(files__format_inet_line(
		"   0: 00000000:0016 00000000:0000 0A 00000000:00000000 00:00000000 00000000     0        0 1234 1 0000000000000000 100 0 0 10 0\n",
		"tcp", 0, out, sizeof(out), &ino), 0);
	assert_string_equal(out, "tcp 0.0.0.0:22 LISTEN");
	/* udp has no states worth naming */
	assert_int_equal(files__format_inet_line(
		"  12: 3500007F:0035 00000000:0000 07 00000000:00000000 00:00000000 00000000   101        0 999 2 0000000000000000 0\n",
		"udp", 0, out, sizeof(out), &ino), 0);
	assert_string_equal(out, "udp 127.0.0.53:53");
}

static void tcp6_connection(void **state)
{
	char out[256];
	uint64_t ino = 0;

	(void)state;
	assert_int_equal(files__format_inet_line(
		"   1: 00000000000000000000000001000000:1F90 00000000000000000000000001000000:D431 01 00000000:00000000 00:00000000 00000000  1000        0 4242 1 0000000000000000 20 4 31 10 -1\n",
		"tcp", 1, out, sizeof(out), &ino), 0);
	assert_string_equal(out, "tcp [::1]:8080->[::1]:54321 ESTABLISHED");
	assert_int_equal(ino, 4242);
}

static void headers_and_garbage_are_refused(void **state)
{
	char out[256];
	uint64_t ino = 7;

	(void)state;
	assert_int_not_equal(files__format_inet_line(
		"  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode\n",
		"tcp", 0, out, sizeof(out), &ino), 0);
	assert_int_not_equal(files__format_inet_line("   3: 0100007F 0100007F:EB9F 01\n", "tcp", 0, out, sizeof(out), &ino), 0);
	assert_int_not_equal(files__format_inet_line("", "tcp", 0, out, sizeof(out), &ino), 0);
	assert_int_equal(ino, 7);
}

/* A process 42 under a /proc of our own, with fd 3 a socket of inode 1234 in state st (hex). */
static void fake_proc(const char *root, const char *st)
{
	char path[512];
	FILE *f;

	mkdir(root, 0700);
	snprintf(path, sizeof(path), "%s/42", root);
	mkdir(path, 0700);
	snprintf(path, sizeof(path), "%s/42/net", root);
	mkdir(path, 0700);
	snprintf(path, sizeof(path), "%s/42/fd", root);
	mkdir(path, 0700);
	snprintf(path, sizeof(path), "%s/42/fd/3", root);
	unlink(path);
	assert_int_equal(symlink("socket:[1234]", path), 0);
	snprintf(path, sizeof(path), "%s/42/net/tcp", root);
	f = fopen(path, "w");
	assert_non_null(f);
	fprintf(f, "  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode\n"
		   "   0: 0100007F:1F90 0100007F:EB9F %s 00000000:00000000 00:00000000 00000000     0        0 1234 1\n",
		st);
	fclose(f);
}

/*
 * Socket tables are read again in a pass only once the time since the last
 * read is 399 times what that read took: between, the last read's name and
 * state stand.
 */
static void socket_tables_are_read_at_most_a_quarter_percent_of_the_time(void **state)
{
	char root[] = "/tmp/tract-test-files-XXXXXX", cmd[600];
	struct files *fs;

	(void)state;
	assert_non_null(mkdtemp(root));
	rmdir(root);
	fake_proc(root, "01");
	fs = files__new(root);
	files__new_pass(fs, 1000);
	assert_string_equal(files__name(fs, 42, 3, 1234), "tcp 127.0.0.1:8080->127.0.0.1:60319 ESTABLISHED");
	fake_proc(root, "08");
	/* a nanosecond later: too soon, the last read stands */
	files__new_pass(fs, 1001);
	assert_string_equal(files__name(fs, 42, 3, 1234), "tcp 127.0.0.1:8080->127.0.0.1:60319 ESTABLISHED");
	/* ten seconds later: read again */
	files__new_pass(fs, 10000001001ull);
	assert_string_equal(files__name(fs, 42, 3, 1234), "tcp 127.0.0.1:8080->127.0.0.1:60319 CLOSE_WAIT");
	files__free(fs);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
	assert_int_equal(system(cmd), 0);
}

/* Process 42 under a /proc of our own, its fd 3..3+n-1 sockets of inodes inos, net/unix holding text. */
static struct files *fake_unix(char *root, const uint64_t *inos, size_t n, const char *text)
{
	char path[512];
	FILE *f;

	assert_non_null(mkdtemp(root));
	rmdir(root);
	fake_proc(root, "01");
	for (size_t i = 0; i < n; i++) {
		char link[64];

		snprintf(path, sizeof(path), "%s/42/fd/%zu", root, 3 + i);
		snprintf(link, sizeof(link), "socket:[%llu]", (unsigned long long)inos[i]);
		unlink(path);
		assert_int_equal(symlink(link, path), 0);
	}
	snprintf(path, sizeof(path), "%s/42/net/unix", root);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
	return files__new(root);
}

static void fake_unix_free(struct files *fs, const char *root)
{
	char cmd[600];

	files__free(fs);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
	assert_int_equal(system(cmd), 0);
}

#define UNIX_HEADER "Num       RefCount Protocol Flags    Type St Inode Path\n"

static void unix_sockets_by_path(void **state)
{
	static const uint64_t inos[] = { 2001, 2002, 2003 };
	char root[] = "/tmp/tract-test-files-XXXXXX";
	struct files *fs;

	(void)state;
	fs = fake_unix(root, inos, 3,
		       UNIX_HEADER
		       "0000000000000000: 00000002 00000000 00010000 0001 01  2001 /run/dbus/system_bus_socket\n"
		       "0000000000000000: 00000003 00000000 00000000 0001 03  2002\n"
		       "0000000000000000: 00000002 00000000 00010000 0005 01 2003 @/tmp/.X11-unix/X0 with spaces\n");
	files__new_pass(fs, 1000);
	assert_string_equal(files__name(fs, 42, 3, 2001), "unix /run/dbus/system_bus_socket");
	assert_string_equal(files__name(fs, 42, 4, 2002), "unix");
	assert_string_equal(files__name(fs, 42, 5, 2003), "unix @/tmp/.X11-unix/X0 with spaces");
	fake_unix_free(fs, root);
}

/*
 * A user binds a path holding a newline and a line laid out as a record
 * of its own: the kernel prints it as it is, and it claims the inode of
 * another process's socket, under a name of the user's choosing.  Two
 * records then claim that inode: it is named by neither.
 */
static void a_path_with_a_newline_names_no_other_socket(void **state)
{
	static const uint64_t inos[] = { 3001, 3002 };
	char root[] = "/tmp/tract-test-files-XXXXXX";
	struct files *fs;

	(void)state;
	fs = fake_unix(root, inos, 2,
		       UNIX_HEADER
		       "0000000000000000: 00000002 00000000 00010000 0001 01  3002 /tmp/x\n"
		       "0000000000000000: 00000002 00000000 00010000 0001 01  3001 /run/fake\n"
		       "0000000000000000: 00000002 00000000 00010000 0001 01  3001 /run/real\n");
	files__new_pass(fs, 1000);
	assert_string_equal(files__name(fs, 42, 3, 3001), "socket:[3001]");
	assert_string_equal(files__name(fs, 42, 4, 3002), "unix /tmp/x");
	fake_unix_free(fs, root);
}

/* a line out of the kernel's layout goes on the path before it, printable */
static void a_path_with_a_newline_is_one_name(void **state)
{
	static const uint64_t inos[] = { 4001 };
	char root[] = "/tmp/tract-test-files-XXXXXX";
	struct files *fs;

	(void)state;
	fs = fake_unix(root, inos, 1,
		       UNIX_HEADER
		       "0000000000000000: 00000002 00000000 00010000 0001 01  4001 /tmp/a\n"
		       "b 4002 /c\n");
	files__new_pass(fs, 1000);
	assert_string_equal(files__name(fs, 42, 3, 4001), "unix /tmp/a?b 4002 /c");
	fake_unix_free(fs, root);
}

/*
 * A file's device, from the file behind the fd: named as /sys names the
 * block device its filesystem is on; none for a socket, a file on no block
 * device, or an fd that is another file by now (its inode not the sample's).
 */
static void a_file_names_its_filesystems_device(void **state)
{
	char root[] = "/tmp/tract-test-files-XXXXXX", path[512], file[512], cmd[600];
	struct blockdevs *bd;
	struct files *fs;
	struct stat st;
	FILE *f;

	(void)state;
	assert_non_null(mkdtemp(root));
	rmdir(root);
	fake_proc(root, "01");
	snprintf(file, sizeof(file), "%s/wal.dat", root);
	f = fopen(file, "w");
	assert_non_null(f);
	fclose(f);
	assert_int_equal(stat(file, &st), 0);
	for (int fd = 7; fd <= 8; fd++) {
		snprintf(path, sizeof(path), "%s/42/fd/%d", root, fd);
		assert_int_equal(symlink(file, path), 0);
	}
	/* a /sys of our own naming the device the file is on */
	snprintf(cmd, sizeof(cmd), "mkdir -p '%s/sys/dev/block/%u:%u' && echo DEVNAME=fakedisk > '%s/sys/dev/block/%u:%u/uevent'",
		 root, major(st.st_dev), minor(st.st_dev), root, major(st.st_dev), minor(st.st_dev));
	assert_int_equal(system(cmd), 0);
	snprintf(path, sizeof(path), "%s/sys", root);
	bd = blockdevs__new(path);
	fs = files__new(root);
	files__new_pass(fs, 1000);
	if (major(st.st_dev))
		assert_string_equal(files__dev(fs, bd, 42, 7, st.st_ino), "fakedisk");
	else	/* tmpfs: a device of its own, no block device */
		assert_null(files__dev(fs, bd, 42, 7, st.st_ino));
	assert_null(files__dev(fs, bd, 42, 8, st.st_ino + 1));
	assert_null(files__dev(fs, bd, 42, 3, 1234));
	assert_null(files__dev(fs, bd, 42, 99, 5));
	files__free(fs);
	blockdevs__free(bd);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
	assert_int_equal(system(cmd), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(tcp4_connection),
		cmocka_unit_test(listening_and_unconnected),
		cmocka_unit_test(tcp6_connection),
		cmocka_unit_test(headers_and_garbage_are_refused),
		cmocka_unit_test(socket_tables_are_read_at_most_a_quarter_percent_of_the_time),
		cmocka_unit_test(unix_sockets_by_path),
		cmocka_unit_test(a_path_with_a_newline_names_no_other_socket),
		cmocka_unit_test(a_path_with_a_newline_is_one_name),
		cmocka_unit_test(a_file_names_its_filesystems_device),
	};
	return cmocka_run_group_tests_name("files", tests, NULL, NULL);
}
