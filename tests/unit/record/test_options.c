// SPDX-License-Identifier: GPL-2.0-only
/* Option values: numbers, durations, pid lists and tract record's parser. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include "parse.h"
#include "record.h"
#include "reader.h"
#include "syscalls.h"

static void u64_values(void **state)
{
	uint64_t v = 42;

	(void)state;
	assert_int_equal(parse_u64("17", 0, 100, &v), 0);
	assert_int_equal(v, 17);
	v = 42;
	const char *bad[] = { "", "-1", " 5", "5x", "101", "99999999999999999999999", "0x10", NULL };
	for (int i = 0; bad[i]; i++) {
		assert_int_not_equal(parse_u64(bad[i], 0, 100, &v), 0);
		assert_int_equal(v, 42); /* untouched on failure */
	}
	assert_int_not_equal(parse_u64(NULL, 0, 100, &v), 0);
}

static void seconds_and_hz(void **state)
{
	uint64_t ns = 0;
	double hz = 0;

	(void)state;
	assert_int_equal(parse_seconds("2.5", &ns), 0);
	assert_int_equal(ns, 2500000000ull);
	assert_int_not_equal(parse_seconds("0", &ns), 0);
	assert_int_not_equal(parse_seconds("-3", &ns), 0);
	assert_int_not_equal(parse_seconds("nan", &ns), 0);
	assert_int_not_equal(parse_seconds("1e99", &ns), 0);
	assert_int_equal(parse_hz("100", 1000, &hz), 0);
	assert_true(hz == 100.0);
	assert_int_equal(parse_hz("0.5", 1000, &hz), 0);
	assert_int_not_equal(parse_hz("0", 1000, &hz), 0);
	assert_int_not_equal(parse_hz("1001", 1000, &hz), 0);
	assert_int_not_equal(parse_hz("10Hz", 1000, &hz), 0);
}

static void pid_lists(void **state)
{
	uint32_t pids[4] = { 0 };
	size_t nr = 99;

	(void)state;
	assert_int_equal(parse_pid_list("1,22,333", pids, 4, &nr), 0);
	assert_int_equal(nr, 3);
	assert_int_equal(pids[2], 333);
	nr = 99;
	const char *bad[] = { "", ",", "1,,2", "1,", ",1", "0", "a", "1,2,3,4,5", "-4", NULL };
	for (int i = 0; bad[i]; i++) {
		assert_int_not_equal(parse_pid_list(bad[i], pids, 4, &nr), 0);
		assert_int_equal(nr, 99);
	}
}

static void durations_and_sizes(void **state)
{
	uint64_t v = 99;

	(void)state;
	assert_int_equal(parse_duration("90s", &v), 0);
	assert_int_equal(v, 90000000ull);
	assert_int_equal(parse_duration("1.5h", &v), 0);
	assert_int_equal(v, 5400000000ull);
	assert_int_equal(parse_duration("7d", &v), 0);
	assert_int_equal(v, 7 * 86400000000ull);
	assert_int_equal(parse_size("2G", &v), 0);
	assert_int_equal(v, 2ull << 30);
	assert_int_equal(parse_size("500MiB", &v), 0);
	assert_int_equal(v, 500ull << 20);
	assert_int_equal(parse_size("4096", &v), 0);
	assert_int_equal(v, 4096);
	v = 99;
	const char *bad_d[] = { "", "5", "-5m", "5x", "m", "0s", "1e400h", "5 m", NULL };
	for (int i = 0; bad_d[i]; i++)
		assert_int_not_equal(parse_duration(bad_d[i], &v), 0);
	const char *bad_s[] = { "", "G", "-1G", "1Q", "0", "1.5.5M", NULL };
	for (int i = 0; bad_s[i]; i++)
		assert_int_not_equal(parse_size(bad_s[i], &v), 0);
	assert_int_equal(v, 99);
}

/* The options point into argv, so the words live until the next call. */
static int parse(struct record_opts *o, const char *line)
{
	static char *copy;
	char *argv[32], *save = NULL;
	int argc = 0;

	free(copy);
	copy = strdup(line);

	for (char *t = strtok_r(copy, " ", &save); t && argc < 31; t = strtok_r(NULL, " ", &save))
		argv[argc++] = t;
	argv[argc] = NULL;
	return record_parse_args(argc, argv, o);
}

static void record_defaults_print_to_the_terminal(void **state)
{
	struct record_opts o;

	(void)state;
	unsetenv("TRACT_DATA");
	assert_int_equal(parse(&o, "record"), 0);
	assert_true(o.hz == 1.0);
	assert_null(o.store);
	assert_null(o.dir);
	assert_int_equal(o.duration_ns, 0);
	assert_int_equal(o.sampler.all_threads, 0);
	assert_int_equal(o.sampler.idle_grace_ns, 10000000);
	/* futex is an idle wait by default, read is not */
	assert_true(o.sampler.idle_syscalls[syscall_number("futex") / 64] & (1ull << (syscall_number("futex") % 64)));
	assert_false(o.sampler.idle_syscalls[0] & 1ull);
}

static int has(const uint64_t *set, const char *name)
{
	int nr = syscall_number(name);

	return !!(set[nr / 64] & (1ull << (nr % 64)));
}

/* sys_exit leaves at once only an untimed syscall that never waits: a waiting one a user leaves untimed still takes the window's check */
static void untimed_syscalls_that_never_wait(void **state)
{
	uint64_t never[TRACT_SYSCALLS_MAX / 64];
	struct record_opts o;

	(void)state;
	assert_int_equal(parse(&o, "record"), 0);
	syscall_set__never_waiting(o.sampler.untimed_syscalls, never);
	assert_true(has(never, "getppid"));
	assert_true(has(never, "clock_gettime"));
	assert_false(has(never, "read"));
	assert_int_equal(parse(&o, "record --untimed-syscalls getppid,futex"), 0);
	syscall_set__never_waiting(o.sampler.untimed_syscalls, never);
	assert_true(has(o.sampler.untimed_syscalls, "futex"));
	assert_true(has(never, "getppid"));
	assert_false(has(never, "futex"));
	assert_false(has(never, "getpid"));
	/* getppid timed: not left at once */
	assert_int_equal(parse(&o, "record --untimed-syscalls futex"), 0);
	syscall_set__never_waiting(o.sampler.untimed_syscalls, never);
	assert_false(has(never, "getppid"));
	assert_false(has(never, "futex"));
}

static void record_options_are_applied(void **state)
{
	struct record_opts o;

	(void)state;
	assert_int_equal(parse(&o, "record -F 100 -d 3 -o /x --format csv -p 7,8 --all --idle-grace 0 --idle-syscalls read"), 0);
	assert_true(o.hz == 100.0);
	assert_int_equal(o.duration_ns, 3000000000ull);
	assert_string_equal(o.dir, "/x");
	assert_ptr_equal(o.store, store_kind_named("csv"));
	assert_int_equal(o.sampler.nr_pids, 2);
	assert_int_equal(o.sampler.pids[1], 8);
	assert_int_equal(o.sampler.all_threads, 1);
	assert_int_equal(o.sampler.idle_grace_ns, 0);
	assert_true(o.sampler.idle_syscalls[0] & 1ull);
	assert_int_equal(parse(&o, "record -o /x --keep 7d --max-size 2G"), 0);
	assert_int_equal(o.keep_us, 7 * 86400000000ull);
	assert_int_equal(o.max_bytes, 2ull << 30);
	assert_int_equal(o.source, SOURCE_AUTO);
	assert_int_equal(parse(&o, "record --source proc"), 0);
	assert_int_equal(o.source, SOURCE_PROC);
	assert_true(o.sampler.profile_hz == 49.0);
	assert_int_equal(parse(&o, "record --profile-hz 0"), 0);
	assert_true(o.sampler.profile_hz == 0.0);
	assert_int_equal(parse(&o, "record --profile-hz 1000"), 0);
	assert_true(o.sampler.profile_hz == 1000.0);
	assert_int_equal(o.ship_every_us, 2000000);
	assert_int_equal(parse(&o, "record --clickhouse http://h:8123 --ship-every 30s --spool-max 5M"), 0);
	assert_int_equal(o.ship_every_us, 30000000);
	assert_int_equal(o.spool_max, 5ull << 20);
}

static void format_alone_uses_the_data_directory(void **state)
{
	struct record_opts o;

	(void)state;
	setenv("TRACT_DATA", "/srv/tract", 1);
	assert_int_equal(parse(&o, "record --format sqlite"), 0);
	assert_string_equal(o.dir, "/srv/tract");
	assert_ptr_equal(o.store, store_kind_named("sqlite"));
	unsetenv("TRACT_DATA");
	assert_int_equal(parse(&o, "record --format sqlite"), 0);
	assert_string_equal(o.dir, DEFAULT_DATA_DIR);
}

static void record_rejects_bad_input(void **state)
{
	struct record_opts o;
	const char *bad[] = {
		"record -F 0", "record -F abc", "record -F 5000", "record -d -1", "record -d",
		"record --format json", "record -p x", "record --idle-syscalls nosuchcall",
		"record --bogus", "record stray", "record --idle-grace -5", "record --keep 10m",
		"record --keep 5", "record --max-size 10K", "record --max-size lots", "record --source ebpf",
		"record --profile-hz 5000", "record --profile-hz -1", "record --profile-hz abc", "record --profile-hz",
		"record --clickhouse http://h:8123 --ship-every 500ms", "record --clickhouse http://h:8123 --ship-every 11m",
		"record --clickhouse http://h:8123 --ship-every 5", "record --ship-every 30s", "record --spool-max 5M",
		NULL,
	};

	(void)state;
	for (int i = 0; bad[i]; i++)
		assert_int_equal(parse(&o, bad[i]), -22);
	assert_int_equal(parse(&o, "record --help"), 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(u64_values),
		cmocka_unit_test(seconds_and_hz),
		cmocka_unit_test(pid_lists),
		cmocka_unit_test(durations_and_sizes),
		cmocka_unit_test(record_defaults_print_to_the_terminal),
		cmocka_unit_test(record_options_are_applied),
		cmocka_unit_test(untimed_syscalls_that_never_wait),
		cmocka_unit_test(format_alone_uses_the_data_directory),
		cmocka_unit_test(record_rejects_bad_input),
	};
	return cmocka_run_group_tests_name("options", tests, NULL, NULL);
}
