// SPDX-License-Identifier: GPL-2.0-only
/* Socket names from /proc/net lines, as a sample's file column shows them. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(tcp4_connection),
		cmocka_unit_test(listening_and_unconnected),
		cmocka_unit_test(tcp6_connection),
		cmocka_unit_test(headers_and_garbage_are_refused),
	};
	return cmocka_run_group_tests_name("files", tests, NULL, NULL);
}
