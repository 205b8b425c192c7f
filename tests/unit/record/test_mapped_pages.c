// SPDX-License-Identifier: GPL-2.0-only
/* The pages read of a mapped file given back, and nothing else touched: heap memory, a written mapping. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include "mapped_pages.h"

#define FILE_BYTES (8u << 20)

/* This process's RSS of files (RssFile in /proc/self/status), in KiB. */
static long rss_file_kb(void)
{
	FILE *f = fopen("/proc/self/status", "re");
	char line[256];
	long kb = -1;

	assert_non_null(f);
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "RssFile: %ld", &kb) == 1)
			break;
	fclose(f);
	return kb;
}

static unsigned long sum(const unsigned char *p, size_t n)
{
	unsigned long s = 0;

	for (size_t i = 0; i < n; i += 512)
		s += p[i];
	return s;
}

/* a file of FILE_BYTES whose every 512th byte is known, mapped as libelf maps one: read-only, private */
static unsigned char *map_file(int writable, char *path)
{
	unsigned char *buf = malloc(FILE_BYTES), *p;
	int fd = mkstemp(path);

	assert_true(fd >= 0);
	for (size_t i = 0; i < FILE_BYTES; i++)
		buf[i] = (unsigned char)(i / 512 * 7);
	assert_int_equal(write(fd, buf, FILE_BYTES), FILE_BYTES);
	free(buf);
	p = mmap(NULL, FILE_BYTES, writable ? PROT_READ | PROT_WRITE : PROT_READ, MAP_PRIVATE, fd, 0);
	assert_true(p != MAP_FAILED);
	close(fd);
	return p;
}

static void the_pages_of_a_file_read_go_and_come_back_the_same(void **state)
{
	char path[] = "/var/tmp/tract-test-mapped-XXXXXX";
	unsigned char *p = map_file(0, path);
	unsigned long before_sum = sum(p, FILE_BYTES);
	long before = rss_file_kb(), after;
	struct mapped_range r = { (uintptr_t)p + 100, (uintptr_t)p + FILE_BYTES };

	(void)state;
	assert_int_equal(mapped_pages__give_back(&r, 1, NULL), FILE_BYTES);
	after = rss_file_kb();
	/* most of its 8 MiB left the process's pages */
	assert_true(before - after >= (long)(FILE_BYTES / 1024 / 2));
	assert_int_equal(sum(p, FILE_BYTES), before_sum);
	munmap(p, FILE_BYTES);
	unlink(path);
}

static void heap_memory_and_a_written_mapping_are_left_alone(void **state)
{
	char path[] = "/var/tmp/tract-test-mapped-XXXXXX";
	unsigned char *w = map_file(1, path), *heap = malloc(FILE_BYTES);
	struct mapped_range r[2] = { { (uintptr_t)w, (uintptr_t)w + FILE_BYTES },
				     { (uintptr_t)heap, (uintptr_t)heap + FILE_BYTES } };

	(void)state;
	memset(heap, 0x5a, FILE_BYTES);
	w[4096] = 0xee;
	assert_int_equal(mapped_pages__give_back(r, 2, NULL), 0);
	assert_int_equal(heap[FILE_BYTES / 2], 0x5a);
	assert_int_equal(w[4096], 0xee);
	free(heap);
	munmap(w, FILE_BYTES);
	unlink(path);
}

static void a_range_past_its_mapping_is_left_alone(void **state)
{
	char path[] = "/var/tmp/tract-test-mapped-XXXXXX";
	unsigned char *p = map_file(0, path);
	struct mapped_range r = { (uintptr_t)p, (uintptr_t)p + FILE_BYTES + 4096 };

	(void)state;
	assert_int_equal(mapped_pages__give_back(&r, 1, NULL), 0);
	munmap(p, FILE_BYTES);
	unlink(path);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(the_pages_of_a_file_read_go_and_come_back_the_same),
		cmocka_unit_test(heap_memory_and_a_written_mapping_are_left_alone),
		cmocka_unit_test(a_range_past_its_mapping_is_left_alone),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
