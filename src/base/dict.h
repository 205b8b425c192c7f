/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * An interning dictionary: byte strings in, small dense ids out (1, 2, ...).
 * The store uses one per dimension (threads, syscall arguments, stacks) so
 * that a sample row holds small integers instead of repeated values.
 */
#ifndef TRACT_DICT_H
#define TRACT_DICT_H

#include <stddef.h>
#include <stdint.h>

struct dict;

struct dict *dict__new(void);
void dict__free(struct dict *d);
/* Id of the key, adding it if new; *added tells which. */
uint32_t dict__intern(struct dict *d, const void *key, size_t len, int *added);
/* Id of the key, or 0 if absent. */
uint32_t dict__find(const struct dict *d, const void *key, size_t len);
size_t dict__size(const struct dict *d);
void dict__clear(struct dict *d);
/* The stored copy of an id's key: it stays put until dict__clear() or dict__free(). */
const void *dict__key(const struct dict *d, uint32_t id);
size_t dict__key_len(const struct dict *d, uint32_t id);
/* A value the caller keeps with an id (an index, a pointer); 0 when added. */
uint64_t *dict__value(struct dict *d, uint32_t id);
/*
 * A new dictionary of the entries of d that keep() says to keep, with their
 * values, in their order (so with new ids): how a dictionary whose keys go
 * stale (ended processes) sheds them, rebuilt now and then.
 */
struct dict *dict__filter(const struct dict *d, int (*keep)(const void *key, size_t len, uint64_t value, void *ctx),
			  void *ctx);
/*
 * A string pool: the pool's own copy of s, one per distinct string, valid
 * until the pool is cleared or freed.
 */
const char *dict__intern_str(struct dict *d, const char *s);

#endif
