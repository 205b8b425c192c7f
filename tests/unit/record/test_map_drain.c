// SPDX-License-Identifier: GPL-2.0-only
/*
 * Emptying a kernel hash map each pass, and leaving alone one the BPF side
 * added nothing to since (struct map_news), on a real BPF map.
 */
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>
#include <bpf/bpf.h>
#include "map_drain.h"

struct taken {
	int n;
	__u64 sum;
};

static void take(void *ctx, const void *key, const void *value)
{
	struct taken *t = ctx;
	__u64 v;

	(void)key;
	memcpy(&v, value, sizeof(v));
	t->n++;
	t->sum += v;
}

static int map_fd = -1;

static int open_map(void **state)
{
	(void)state;
	map_fd = bpf_map_create(BPF_MAP_TYPE_HASH, "drain_test", sizeof(__u32), sizeof(__u64), 4096, NULL);
	return 0;
}

static int close_map(void **state)
{
	(void)state;
	if (map_fd >= 0)
		close(map_fd);
	return 0;
}

static void put(__u32 key, __u64 value)
{
	assert_int_equal(bpf_map_update_elem(map_fd, &key, &value, BPF_ANY), 0);
}

static int entries(void)
{
	__u32 key, n = 0;
	void *prev = NULL;

	while (!bpf_map_get_next_key(map_fd, prev, &key)) {
		n++;
		prev = &key;
	}
	return (int)n;
}

static void skip_without_bpf(void)
{
	if (map_fd < 0) {
		printf("# skipped: no BPF map could be made (%s); run as root\n", strerror(errno));
		skip();
	}
}

static void drains_every_entry_without_news(void **state)
{
	struct taken t = { 0 };

	(void)state;
	skip_without_bpf();
	for (__u32 k = 1; k <= 1000; k++)
		put(k, k);
	assert_int_equal(map_drain(map_fd, sizeof(__u32), sizeof(__u64), NULL, take, &t), 0);
	assert_int_equal(t.n, 1000);
	assert_int_equal(t.sum, 1000 * 1001 / 2);
	assert_int_equal(entries(), 0);
}

static void leaves_a_map_alone_until_its_counter_moves(void **state)
{
	volatile __u64 added = 0;
	struct map_news news = { .added = &added };
	struct taken t = { 0 };

	(void)state;
	skip_without_bpf();
	/* nothing counted: the walk is skipped, even if a key were there */
	put(7, 70);
	assert_int_equal(map_drain(map_fd, sizeof(__u32), sizeof(__u64), &news, take, &t), 0);
	assert_int_equal(t.n, 0);
	assert_int_equal(entries(), 1);
	/* the BPF side made keys: all are taken, and the counter's value is kept */
	put(8, 80);
	added = 2;
	assert_int_equal(map_drain(map_fd, sizeof(__u32), sizeof(__u64), &news, take, &t), 0);
	assert_int_equal(t.n, 2);
	assert_int_equal(t.sum, 150);
	assert_int_equal(news.seen, 2);
	assert_int_equal(entries(), 0);
	/* quiet again: skipped; a key made after the last walk moves the counter and is taken */
	assert_int_equal(map_drain(map_fd, sizeof(__u32), sizeof(__u64), &news, take, &t), 0);
	assert_int_equal(t.n, 2);
	put(9, 90);
	added = 3;
	assert_int_equal(map_drain(map_fd, sizeof(__u32), sizeof(__u64), &news, take, &t), 0);
	assert_int_equal(t.n, 3);
	assert_int_equal(t.sum, 240);
	assert_int_equal(entries(), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(drains_every_entry_without_news),
		cmocka_unit_test(leaves_a_map_alone_until_its_counter_moves),
	};

	return cmocka_run_group_tests(tests, open_map, close_map);
}
