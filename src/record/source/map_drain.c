// SPDX-License-Identifier: GPL-2.0-only
#include <errno.h>
#include <stdlib.h>
#include <bpf/bpf.h>
#include "map_drain.h"
#include "util.h"

#define BATCH 512

int map_drain(int fd, size_t key_size, size_t value_size, struct map_news *news, map_take_fn take, void *ctx)
{
	unsigned char *keys, *values;
	LIBBPF_OPTS(bpf_map_batch_opts, opts);
	__u32 batch = 0;	/* a hash map's cursor: the next bucket */
	__u64 added;
	int first = 1, err;

	/* read before the walk: a key made after this read moves the counter past it */
	if (!map_news__any(news, &added))
		return 0;
	/* the kernel packs them: keys key_size apart, values value_size apart */
	keys = xcalloc(BATCH, key_size);
	values = xcalloc(BATCH, value_size);
	do {
		__u32 n = BATCH;

		err = bpf_map_lookup_and_delete_batch(fd, first ? NULL : &batch, &batch, keys, values, &n, &opts);
		if (err && errno != ENOENT)
			n = 0;
		first = 0;
		for (__u32 i = 0; i < n; i++)
			take(ctx, keys + i * key_size, values + i * value_size);
	} while (!err);
	err = errno == ENOENT ? 0 : -errno;
	/* a walk that failed leaves entries behind: the next pass walks again */
	if (!err)
		map_news__taken(news, added);
	free(keys);
	free(values);
	return err;
}
