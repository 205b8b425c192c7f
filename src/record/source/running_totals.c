// SPDX-License-Identifier: GPL-2.0-only
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include "clock.h"
#include "running_totals.h"
#include "util.h"

/* How long an entry stays idle before it is freed for another key. */
#define IDLE_NS (10 * NSEC_PER_SEC)

struct running_totals {
	unsigned char *map;
	size_t len, entry_size;
	uint32_t n, first, counters;
	/* per entry: its counters as read last, when it was last seen to grow, and whether we freed it */
	uint64_t *seen, *grown, *active_ns;
	unsigned char *freed;
};

struct running_totals *running_totals__open(int map_fd, uint32_t entries, size_t entry_size, uint32_t first,
					    uint32_t counters, const char *what)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE);
	struct running_totals *rt = xcalloc(1, sizeof(*rt));

	rt->n = entries;
	rt->entry_size = entry_size;
	rt->first = first;
	rt->counters = counters;
	rt->len = ((size_t)entries * entry_size + page - 1) / page * page;
	rt->map = mmap(NULL, rt->len, PROT_READ | PROT_WRITE, MAP_SHARED, map_fd, 0);
	if (rt->map == MAP_FAILED) {
		tract_err("cannot map the %s: %s", what, strerror(errno));
		free(rt);
		return NULL;
	}
	rt->seen = xcalloc((size_t)entries * counters, sizeof(*rt->seen));
	rt->grown = xcalloc(counters, sizeof(*rt->grown));
	rt->active_ns = xcalloc(entries, sizeof(*rt->active_ns));
	rt->freed = xcalloc(entries, 1);
	return rt;
}

void running_totals__free(struct running_totals *rt)
{
	if (!rt)
		return;
	munmap(rt->map, rt->len);
	free(rt->seen);
	free(rt->grown);
	free(rt->active_ns);
	free(rt->freed);
	free(rt);
}

/*
 * An entry freed here may still be added to, by a program that matched its
 * key just before: until the entry is taken again, what it holds is
 * nobody's, and the next key counts from it.  The counters are read before
 * the key: a program takes an entry before it adds to it, so counters that
 * hold a new key's adds come with that key.
 */
static void follow_freed(const struct running_totals *rt, const uint64_t *e, uint64_t *seen)
{
	uint64_t now[rt->counters];

	for (uint32_t c = 0; c < rt->counters; c++)
		now[c] = __atomic_load_n(&e[rt->first + c], __ATOMIC_ACQUIRE);
	if (__atomic_load_n(&e[0], __ATOMIC_ACQUIRE))
		return;
	memcpy(seen, now, sizeof(now));
}

void running_totals__read(struct running_totals *rt, totals_take_fn take, void *ctx)
{
	uint64_t now_ns = mono_ns();

	for (uint32_t i = 0; i < rt->n; i++) {
		uint64_t *e = (uint64_t *)(rt->map + (size_t)i * rt->entry_size), *seen = rt->seen + (size_t)i * rt->counters;
		/* the key first: the kernel writes the rest of a new entry before it */
		uint64_t key = __atomic_load_n(&e[0], __ATOMIC_ACQUIRE), any = 0;

		if (!key) {
			if (rt->freed[i])
				follow_freed(rt, e, seen);
			continue;
		}
		if (rt->freed[i]) {
			rt->freed[i] = 0;
			rt->active_ns[i] = now_ns;
		}
		/*
		 * In order: the kernel adds a completion's sums before its count,
		 * and a count is read before its sums, so they are never behind it.
		 */
		for (uint32_t c = 0; c < rt->counters; c++) {
			uint64_t now = __atomic_load_n(&e[rt->first + c], __ATOMIC_ACQUIRE);

			rt->grown[c] = now - seen[c];
			seen[c] = now;
			any |= rt->grown[c];
		}
		if (any) {
			rt->active_ns[i] = now_ns;
			take(ctx, key, rt->grown, e);
		} else if (!rt->active_ns[i]) {
			rt->active_ns[i] = now_ns;
		} else if (now_ns - rt->active_ns[i] >= IDLE_NS &&
			   __atomic_compare_exchange_n(&e[0], &key, 0, 0, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) {
			rt->freed[i] = 1;
		}
	}
}
