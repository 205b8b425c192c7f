/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Taking what a kernel hash map summed over an interval, and emptying it:
 * a batch of entries per system call, not a get_next_key and a delete per
 * key.  An entry the kernel adds meanwhile is taken now or the next time.
 */
#ifndef TRACT_MAP_DRAIN_H
#define TRACT_MAP_DRAIN_H

#include <stddef.h>
#include <linux/types.h>

typedef void (*map_take_fn)(void *ctx, const void *key, const void *value);

/*
 * Emptying a hash map walks all its buckets, some hundreds of microseconds
 * for tables of thousands, whether anything is in them or not.  So the BPF
 * side counts the keys it adds to each map it sums into (a counter in its
 * .bss, added to after the key is made), and a map whose counter has not
 * moved since it was last emptied holds nothing and is left alone.
 */
struct map_news {
	const volatile __u64 *added;	/* the BPF side's counter; NULL: always empty the map */
	__u64 seen;			/* its value when the map was last emptied */
};

/*
 * Whether the map may hold entries: its counter moved since news->seen (a
 * map without a counter always may).  *added is the counter as read, for
 * map_news__taken() once the map is emptied.
 */
static inline int map_news__any(const struct map_news *news, __u64 *added)
{
	*added = news && news->added ? *news->added : 0;
	return !news || !news->added || *added != news->seen;
}

/* The map was emptied after map_news__any() read added. */
static inline void map_news__taken(struct map_news *news, __u64 added)
{
	if (news)
		news->seen = added;
}

/*
 * Calls take(ctx, key, value) for every entry of map fd, when news says
 * there may be any (news may be NULL); 0, or -errno.
 */
int map_drain(int fd, size_t key_size, size_t value_size, struct map_news *news, map_take_fn take, void *ctx);

#endif
