// SPDX-License-Identifier: GPL-2.0-only
/* Two sinks as one: the local store and ClickHouse, each pass to both. */
#include <stdlib.h>
#include "sink.h"
#include "util.h"

struct tee {
	struct sink base;
	struct sink *first, *second;
};

/* The first's result stands for the pass: the second keeps its own account. */
static int tee_write_pass(struct sink *s, const struct pass *p)
{
	struct tee *t = (struct tee *)s;
	int err = sink__write_pass(t->first, p);

	sink__write_pass(t->second, p);
	return err;
}

static void tee_close(struct sink *s)
{
	struct tee *t = (struct tee *)s;

	sink__close(t->first);
	sink__close(t->second);
	free(t);
}

static const struct sink_ops tee_ops = { .write_pass = tee_write_pass, .close = tee_close };

struct sink *sink_tee__new(struct sink *first, struct sink *second)
{
	struct tee *t = xcalloc(1, sizeof(*t));

	t->base.ops = &tee_ops;
	t->first = first;
	t->second = second;
	return &t->base;
}
