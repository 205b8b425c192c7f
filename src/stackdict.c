// SPDX-License-Identifier: GPL-2.0-only
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "dict.h"
#include "ksyms.h"
#include "stackdict.h"
#include "util.h"

struct stackdict {
	const struct ksyms *ks;
	struct dict *by_raw;		/* raw hash -> its struct kstack */
};

struct stackdict *stackdict__new(const struct ksyms *ks)
{
	struct stackdict *sd = xcalloc(1, sizeof(*sd));

	sd->ks = ks;
	sd->by_raw = dict__new();
	return sd;
}

void stackdict__free(struct stackdict *sd)
{
	if (!sd)
		return;
	for (uint32_t id = 1; id <= dict__size(sd->by_raw); id++) {
		struct kstack *s = (struct kstack *)(uintptr_t)*dict__value(sd->by_raw, id);

		free(s->frames);
		free(s);
	}
	dict__free(sd->by_raw);
	free(sd);
}

const struct kstack *stackdict__get(const struct stackdict *sd, uint64_t raw_hash)
{
	uint32_t id = dict__find(sd->by_raw, &raw_hash, sizeof(raw_hash));

	return id ? (const struct kstack *)(uintptr_t)*dict__value(sd->by_raw, id) : NULL;
}

/* Frames are named without offsets so that equal call paths group together. */
static char *symbolize(const struct ksyms *ks, const uint64_t *ip, size_t nr)
{
	size_t cap = 64 * (nr + 1), len = 0;
	char *out = xcalloc(1, cap);

	for (size_t i = nr; i-- > 0;) {
		char unknown[32];
		const char *name = ksyms__lookup(ks, ip[i], NULL);
		size_t n;

		if (!name) {
			snprintf(unknown, sizeof(unknown), "0x%" PRIx64, ip[i]);
			name = unknown;
		}
		n = strlen(name);
		if (len + n + 2 > cap) {
			cap = (len + n + 2) * 2;
			out = xrealloc(out, cap);
		}
		if (len)
			out[len++] = ';';
		memcpy(out + len, name, n);
		len += n;
		out[len] = '\0';
	}
	return out;
}

const struct kstack *stackdict__add(struct stackdict *sd, uint64_t raw_hash,
				    const uint64_t *ip, size_t nr)
{
	struct kstack *s;
	char *last;
	int added;
	uint32_t id = dict__intern(sd->by_raw, &raw_hash, sizeof(raw_hash), &added);

	if (!added)
		return (const struct kstack *)(uintptr_t)*dict__value(sd->by_raw, id);
	s = xcalloc(1, sizeof(*s));
	s->kind = "kernel";
	s->frames = symbolize(sd->ks, ip, nr);
	s->hash = hash_bytes(s->frames, strlen(s->frames), 0) >> 1; /* fits SQLite's signed 64 bits */
	last = strrchr(s->frames, ';');
	s->wait = last ? last + 1 : s->frames;
	*dict__value(sd->by_raw, id) = (uintptr_t)s;
	return s;
}
