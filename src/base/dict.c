// SPDX-License-Identifier: GPL-2.0-only
#include <stdlib.h>
#include <string.h>
#include "dict.h"
#include "util.h"

struct dict_entry {
	uint64_t hash;
	uint32_t id;		/* 0: empty slot */
	uint32_t len;
	unsigned char *key;
	/*
	 * The key's first bytes, here: most keys are a tid or a hash, and
	 * comparing them needs no trip to a key elsewhere in memory.
	 */
	uint64_t head;		/* zero-padded */
};

static uint64_t head_of(const void *key, size_t len)
{
	uint64_t h = 0;

	memcpy(&h, key, len < 8 ? len : 8);
	return h;
}

/*
 * The table's own hash, never stored: eight bytes a step, where hash_bytes()
 * (whose values go into stores and must not change) takes one.  The store's
 * keys (a thread's names, title and executable) are a hundred bytes and
 * more, hashed for every row written.
 */
static uint64_t key_hash(const void *key, size_t len)
{
	return hash_words(key, len, 0);
}

struct dict_by_id {
	unsigned char *key;
	size_t len;
	uint64_t value;
};

struct dict {
	struct dict_entry *slots;
	size_t cap;		/* power of two */
	size_t nr;
	struct dict_by_id *by_id;	/* [id - 1] */
	size_t cap_by_id;
};

struct dict *dict__new(void)
{
	struct dict *d = xcalloc(1, sizeof(*d));

	d->cap = 64;
	d->slots = xcalloc(d->cap, sizeof(*d->slots));
	return d;
}

void dict__clear(struct dict *d)
{
	/* an empty table is left alone: some are cleared every pass, mostly empty */
	if (!d || !d->nr)
		return;
	for (size_t i = 0; i < d->cap; i++)
		free(d->slots[i].key);
	memset(d->slots, 0, d->cap * sizeof(*d->slots));
	d->nr = 0;
}

void dict__free(struct dict *d)
{
	if (!d)
		return;
	dict__clear(d);
	free(d->slots);
	free(d->by_id);
	free(d);
}

size_t dict__size(const struct dict *d)
{
	return d->nr;
}

static struct dict_entry *slot_for(const struct dict *d, uint64_t hash, const void *key, size_t len)
{
	size_t mask = d->cap - 1;
	uint64_t head = head_of(key, len);

	for (size_t i = hash & mask;; i = (i + 1) & mask) {
		struct dict_entry *e = &d->slots[i];

		if (!e->id)
			return e;
		if (e->hash == hash && e->len == len && e->head == head &&
		    (len <= 8 || !memcmp(e->key + 8, (const unsigned char *)key + 8, len - 8)))
			return e;
	}
}

static void grow(struct dict *d)
{
	struct dict_entry *old = d->slots;
	size_t old_cap = d->cap;

	d->cap *= 2;
	d->slots = xcalloc(d->cap, sizeof(*d->slots));
	for (size_t i = 0; i < old_cap; i++)
		if (old[i].id)
			*slot_for(d, old[i].hash, old[i].key, old[i].len) = old[i];
	free(old);
}

uint32_t dict__find(const struct dict *d, const void *key, size_t len)
{
	return slot_for(d, key_hash(key, len), key, len)->id;
}

uint32_t dict__intern(struct dict *d, const void *key, size_t len, int *added)
{
	uint64_t hash = key_hash(key, len);
	struct dict_entry *e = slot_for(d, hash, key, len);

	*added = 0;
	if (e->id)
		return e->id;
	if ((d->nr + 1) * 4 > d->cap * 3) {
		grow(d);
		e = slot_for(d, hash, key, len);
	}
	e->hash = hash;
	e->len = len;
	e->key = xcalloc(1, len);
	memcpy(e->key, key, len);
	e->head = head_of(key, len);
	e->id = ++d->nr;
	ARRAY_GROW(d->by_id, e->id - 1, d->cap_by_id, 64);
	d->by_id[e->id - 1] = (struct dict_by_id){ .key = e->key, .len = e->len };
	*added = 1;
	return e->id;
}

struct dict *dict__filter(const struct dict *d, int (*keep)(const void *key, size_t len, uint64_t value, void *ctx),
			  void *ctx)
{
	struct dict *out = dict__new();
	int added;

	for (size_t i = 0; i < d->nr; i++) {
		const struct dict_by_id *e = &d->by_id[i];

		if (keep(e->key, e->len, e->value, ctx))
			*dict__value(out, dict__intern(out, e->key, e->len, &added)) = e->value;
	}
	return out;
}

const void *dict__key(const struct dict *d, uint32_t id)
{
	return d->by_id[id - 1].key;
}

size_t dict__key_len(const struct dict *d, uint32_t id)
{
	return d->by_id[id - 1].len;
}

uint64_t *dict__value(struct dict *d, uint32_t id)
{
	return &d->by_id[id - 1].value;
}

const char *dict__intern_str(struct dict *d, const char *s)
{
	int added;

	return dict__key(d, dict__intern(d, s, strlen(s) + 1, &added));
}
