// SPDX-License-Identifier: GPL-2.0-only
#include <stdlib.h>
#include <string.h>
#include "dict.h"
#include "otel_attrs.h"
#include "util.h"

/* Threads whose texts are kept, at most: past it they are all forgotten, and read again as they run. */
#define THREADS_MAX 65536

static size_t put_escaped(char *out, size_t at, const uint8_t *s, size_t n, int key)
{
	static const char hex[] = "0123456789abcdef";

	for (size_t i = 0; i < n && at < OTEL_ATTRS_TEXT_MAX; i++) {
		uint8_t c = s[i];

		if (c <= ' ' || c == 0x7f || c == '\\' || (key && c == '=')) {
			if (at + 4 > OTEL_ATTRS_TEXT_MAX)
				return OTEL_ATTRS_TEXT_MAX + 1;
			out[at++] = '\\';
			out[at++] = 'x';
			out[at++] = hex[c >> 4];
			out[at++] = hex[c & 15];
		} else {
			out[at++] = (char)c;
		}
	}
	return at;
}

size_t otel_attrs_text(const struct otel_keys *keys, const uint8_t *data, size_t len, int cut, char *out,
		       int *unknown)
{
	struct {
		uint16_t at;
		uint8_t len, set;
	} v[OTEL_KEYS_MAX] = { 0 };
	size_t at = 0, o = 0;

	while (at + 2 <= len && at + 2 + data[at + 1] <= len) {
		v[data[at]].at = (uint16_t)(at + 2);
		v[data[at]].len = data[at + 1];
		v[data[at]].set = 1;
		at += 2 + data[at + 1];
	}
	for (size_t k = 0; k < OTEL_KEYS_MAX; k++) {
		size_t before = o;

		if (!v[k].set)
			continue;
		if (k >= keys->n || !keys->names[k][0]) {
			*unknown = 1;
			continue;
		}
		if (o)
			out[o++] = ' ';
		o = put_escaped(out, o, (const uint8_t *)keys->names[k], strlen(keys->names[k]), 1);
		if (o < OTEL_ATTRS_TEXT_MAX)
			out[o++] = '=';
		o = put_escaped(out, o, data + v[k].at, v[k].len, 0);
		if (o > OTEL_ATTRS_TEXT_MAX - 4) {
			/* what does not fit whole is cut at the entry */
			o = before;
			cut = 1;
			break;
		}
	}
	/* attributes cut, here or before they were copied, say so */
	if (cut) {
		memcpy(out + o, o ? " ..." : "...", o ? 4 : 3);
		o += o ? 4 : 3;
	}
	out[o] = '\0';
	return o;
}

struct otel_attrs {
	struct dict *by_tid;		/* tid -> its text (malloc'd), or 0 */
};

struct otel_attrs *otel_attrs__new(void)
{
	struct otel_attrs *a = xcalloc(1, sizeof(*a));

	a->by_tid = dict__new();
	return a;
}

static void forget_all(struct otel_attrs *a)
{
	for (uint32_t id = 1; id <= dict__size(a->by_tid); id++)
		free((char *)(uintptr_t)*dict__value(a->by_tid, id));
	dict__clear(a->by_tid);
}

void otel_attrs__free(struct otel_attrs *a)
{
	if (!a)
		return;
	forget_all(a);
	dict__free(a->by_tid);
	free(a);
}

void otel_attrs__set(struct otel_attrs *a, uint32_t tid, const char *text)
{
	uint32_t id = text ? dict__intern(a->by_tid, &tid, sizeof(tid), &(int){ 0 }) :
		      dict__find(a->by_tid, &tid, sizeof(tid));
	uint64_t *v;

	if (!id)
		return;
	v = dict__value(a->by_tid, id);
	free((char *)(uintptr_t)*v);
	*v = text ? (uintptr_t)xstrdup(text) : 0;
}

const char *otel_attrs__get(struct otel_attrs *a, uint32_t tid)
{
	uint32_t id = dict__find(a->by_tid, &tid, sizeof(tid));

	return id ? (const char *)(uintptr_t)*dict__value(a->by_tid, id) : NULL;
}

int otel_attrs__pass_end(struct otel_attrs *a)
{
	if (dict__size(a->by_tid) <= THREADS_MAX)
		return 0;
	forget_all(a);
	return 1;
}
