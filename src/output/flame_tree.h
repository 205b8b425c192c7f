/* SPDX-License-Identifier: GPL-2.0-only */
/* The flame graph's tree, for its writers (flame.c, flame_svg.c) only. */
#ifndef TRACT_FLAME_TREE_H
#define TRACT_FLAME_TREE_H

#include "flame.h"

#define FLAME_NONE UINT32_MAX

struct flame_node {
	uint32_t parent, first_child, next_sibling;	/* FLAME_NONE: none */
	uint32_t depth;			/* the root is 0 */
	enum flame_kind kind;
	const char *name;		/* NUL-terminated, the tree's own copy */
	uint64_t total;			/* its weight and its children's */
	uint64_t self;			/* the weight of paths that end here */
};

struct flame {
	struct flame_node *nodes;	/* [0] is the root */
	size_t n, cap;
	struct dict *children;		/* (parent, kind, name) -> index + 1 */
	struct dict *names;		/* one copy of each name */
	uint32_t max_depth;
};

/* The child of parent with that kind and name, or FLAME_NONE. */
uint32_t flame__find_child(const struct flame *f, uint32_t parent, enum flame_kind kind, const char *name);

/* A node's children, by name: *out gets a malloc'd array; returns how many. */
size_t flame__children(const struct flame *f, uint32_t node, uint32_t **out);

#endif
