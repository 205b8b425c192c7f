// SPDX-License-Identifier: GPL-2.0-only
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <bpf/libbpf.h>
#include "exits.h"
#include "util.h"

struct exits {
	struct ring_buffer *ring;
	struct tract_exit *list;
	size_t n, cap;
};

static int take_exit(void *ctx, void *data, size_t size)
{
	struct exits *ex = ctx;

	if (size < sizeof(struct tract_exit))
		return 0;
	ARRAY_GROW(ex->list, ex->n, ex->cap, 256);
	memcpy(&ex->list[ex->n], data, sizeof(struct tract_exit));
	ex->list[ex->n].comm[TRACT_COMM_LEN - 1] = '\0';
	ex->n++;
	return 0;
}

struct exits *exits__open(int ring_fd)
{
	struct exits *ex = xcalloc(1, sizeof(*ex));

	ex->ring = ring_buffer__new(ring_fd, take_exit, ex, NULL);
	if (!ex->ring) {
		tract_err("cannot read the processes that end: %s", strerror(errno));
		free(ex);
		return NULL;
	}
	return ex;
}

void exits__free(struct exits *ex)
{
	if (!ex)
		return;
	ring_buffer__free(ex->ring);
	free(ex->list);
	free(ex);
}

void exits__drain(struct exits *ex)
{
	ring_buffer__consume(ex->ring);
}

const struct tract_exit *exits__list(const struct exits *ex, size_t *n)
{
	*n = ex->n;
	return ex->list;
}

void exits__clear(struct exits *ex)
{
	ex->n = 0;
	/* a storm of exits once does not keep its list for the rest of the run */
	if (ex->cap > 4096) {
		free(ex->list);
		ex->list = NULL;
		ex->cap = 0;
	}
}
