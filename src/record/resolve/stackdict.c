// SPDX-License-Identifier: GPL-2.0-only
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "dict.h"
#include "ksyms.h"
#include "clock.h"
#include "stackdict.h"
#include "usyms.h"
#include "util.h"

struct stackdict {
	const struct ksyms *ks;
	struct usyms *us;
	struct dict *by_raw;		/* raw hash -> its struct kstack */
};

struct stackdict *stackdict__new(const struct ksyms *ks, struct usyms *us)
{
	struct stackdict *sd = xcalloc(1, sizeof(*sd));

	sd->ks = ks;
	sd->us = us;
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

/* Appends one frame to a folded stack ("outer;...;inner"). */
static void append_frame(char **out, size_t *len, size_t *cap, const char *name, size_t n)
{
	if (*len + n + 2 > *cap) {
		*cap = (*len + n + 2) * 2;
		*out = xrealloc(*out, *cap);
	}
	if (*len)
		(*out)[(*len)++] = ';';
	memcpy(*out + *len, name, n);
	*len += n;
	(*out)[*len] = '\0';
}

/* Frames are named without offsets so that equal call paths group together. */
static char *symbolize_kernel(const struct ksyms *ks, const uint64_t *ip, size_t nr)
{
	size_t cap = 64 * (nr + 1), len = 0;
	char *out = xcalloc(1, cap);

	for (size_t i = nr; i-- > 0;) {
		char unknown[32];
		const char *name = ksyms__lookup(ks, ip[i], NULL);

		if (!name) {
			snprintf(unknown, sizeof(unknown), "0x%" PRIx64, ip[i]);
			name = unknown;
		}
		append_frame(&out, &len, &cap, name, strlen(name));
	}
	return out;
}

/*
 * The symbolizer's lines ("fsync+0x2b (libc.so.6)", innermost first) as a
 * folded stack of function names; a frame with no symbol keeps its module
 * and address ("libc.so.6+0x10f3a2").
 */
static char *fold_user(const char *lines)
{
	size_t nr = 1, len = 0, cap;
	const char *line, **starts;
	char *out;

	for (const char *c = lines; *c; c++)
		nr += *c == '\n';
	starts = xcalloc(nr, sizeof(*starts));
	nr = 0;
	for (line = lines; line; line = strchr(line, '\n'), line = line ? line + 1 : NULL)
		if (*line && *line != '\n')
			starts[nr++] = line;
	cap = strlen(lines) + 16;
	out = xcalloc(1, cap);
	while (nr-- > 0) {
		const char *l = starts[nr], *end = l + strcspn(l, "\n"), *mod = memchr(l, '(', end - l);
		const char *plus = memchr(l, '+', end - l), *space = memchr(l, ' ', end - l);
		char frame[512];
		int n;

		if (!strncmp(l, "0x", 2) && mod && space) {
			const char *mod_end = memchr(mod, ')', end - mod);

			n = snprintf(frame, sizeof(frame), "%.*s+%.*s", (int)((mod_end ? mod_end : end) - mod - 1),
				     mod + 1, (int)(space - l), l);
		} else {
			/* "fsync+0x2b", and versioned names as "clock_nanosleep@@GLIBC_2.17" */
			const char *at = memchr(l, '@', end - l);
			const char *name_end = plus && plus < end ? plus : space ? space : end;

			if (at && at < name_end)
				name_end = at;

			n = snprintf(frame, sizeof(frame), "%.*s", (int)(name_end - l), l);
		}
		append_frame(&out, &len, &cap, frame, n < (int)sizeof(frame) ? (size_t)n : sizeof(frame) - 1);
	}
	free(starts);
	return out;
}

/* The new entry for raw_hash, or the one already there (*added = 0). */
static struct kstack *new_stack(struct stackdict *sd, uint64_t raw_hash, int *added)
{
	uint32_t id = dict__intern(sd->by_raw, &raw_hash, sizeof(raw_hash), added);
	struct kstack *s;

	if (!*added)
		return (struct kstack *)(uintptr_t)*dict__value(sd->by_raw, id);
	s = xcalloc(1, sizeof(*s));
	*dict__value(sd->by_raw, id) = (uintptr_t)s;
	return s;
}

/* The hash of the text: the same stack hashes alike in every file. */
static void finish_stack(struct kstack *s)
{
	char *last;

	s->hash = hash_bytes(s->frames, strlen(s->frames), 0) >> 1; /* fits SQLite's signed 64 bits */
	last = strrchr(s->frames, ';');
	s->wait = last ? last + 1 : s->frames;
}

const struct kstack *stackdict__add(struct stackdict *sd, uint64_t raw_hash,
				    const uint64_t *ip, size_t nr)
{
	int added;
	struct kstack *s = new_stack(sd, raw_hash, &added);

	if (added) {
		s->kind = "kernel";
		s->frames = symbolize_kernel(sd->ks, ip, nr);
		finish_stack(s);
	}
	return s;
}

const struct kstack *stackdict__add_user(struct stackdict *sd, uint64_t raw_hash, uint32_t tgid,
					 const uint64_t *ip, size_t nr, int cut)
{
	char *lines = NULL;
	int added;
	struct kstack *s = new_stack(sd, raw_hash, &added);

	if (!added)
		return s;
	s->kind = "user";
	if (sd->us && !usyms__symbolize(sd->us, (int)tgid, 0, ip, nr, &lines)) {
		s->frames = fold_user(lines);
		free(lines);
	} else {
		/* gone already: its addresses still tell how deep it was */
		s->frames = xstrdup("[gone]");
	}
	if (cut) {
		char *marked = xcalloc(1, strlen(s->frames) + sizeof("[cut];"));

		sprintf(marked, "[cut];%s", s->frames);
		free(s->frames);
		s->frames = marked;
	}
	finish_stack(s);
	return s;
}

const struct kstack *stackdict__add_folded(struct stackdict *sd, const char *kind, const char *folded)
{
	int added;
	/* the text's own hash, kept apart from the kernel side's hashes of addresses */
	struct kstack *s = new_stack(sd, hash_bytes(folded, strlen(folded), 0x9e3779b97f4a7c15ull), &added);

	if (added) {
		s->kind = kind;
		s->frames = xstrdup(folded);
		finish_stack(s);
	}
	return s;
}

void stackdict__end_pass(struct stackdict *sd)
{
	if (sd->us)
		usyms__end_pass(sd->us, mono_ns());
}
