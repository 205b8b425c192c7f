// SPDX-License-Identifier: GPL-2.0-only
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "dict.h"
#include "ksyms.h"
#include "clock.h"
#include "stackdict.h"
#include "unwind.h"
#include "usyms.h"
#include "util.h"

/* copied stacks remembered: this many, then as many again in the older generation */
#define COPIES_PER_GENERATION 65536
/* the lookaside of stacks asked for lately (a power of two): a still thread's copied user stack has an id of its own, so as many as threads */
#define RECENT_BITS 14
/*
 * An ended process's user stacks are freed this many passes after it ended:
 * more than the writer's queue holds (32), so no queued pass points at them.
 */
#define GRACE_PASSES 64
/* ended processes past their grace before the dictionary is walked to free their stacks */
#define COLLECT_AT 256
#define RECENT (1u << RECENT_BITS)

struct stackdict {
	struct ksyms *ks;
	struct usyms *us;
	struct dict *by_raw;		/* raw hash -> its struct kstack */
	/*
	 * A copied stack's id -> the stack it unwound to.  Each copy has an id
	 * of its own and the sampler repeats it while the thread has not run,
	 * so only recent ids are asked for: two generations, the older dropped
	 * when the newer fills.
	 */
	struct dict *copies, *old_copies;
	struct unwind_stats unwound;
	/* ended processes whose user stacks are still kept: tgid -> the pass it ended in */
	struct dict *ended;
	uint64_t passes;
	/*
	 * The stacks asked for lately, by raw hash: every pass asks again for
	 * the stacks of all the threads that stay asleep, mostly a few stacks
	 * many times.  A raw hash always names the same stack, and stacks are
	 * never freed before the dictionary, so an entry never goes stale.
	 */
	struct {
		uint64_t raw;
		const struct kstack *stack;
	} recent[RECENT];
	/*
	 * The stacks the previous pass asked for, in its order, and this
	 * pass's so far: threads come in the same order every pass, so a still
	 * thread's stacks are the next ones of the last pass's, read in
	 * sequence rather than from the lookaside's scattered lines.
	 */
	struct asked {
		uint64_t raw;
		const struct kstack *stack;
	} *asked[2];
	size_t nr_asked[2], cap_asked[2];
	size_t now, next;
};

struct stackdict *stackdict__new(struct ksyms *ks, struct usyms *us)
{
	struct stackdict *sd = xcalloc(1, sizeof(*sd));

	sd->ks = ks;
	sd->us = us;
	sd->by_raw = dict__new();
	sd->copies = dict__new();
	sd->old_copies = dict__new();
	sd->ended = dict__new();
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
	free(sd->asked[0]);
	free(sd->asked[1]);
	dict__free(sd->copies);
	dict__free(sd->old_copies);
	dict__free(sd->ended);
	free(sd);
}

static void remember_copy(struct stackdict *sd, uint64_t copy_id, const struct kstack *s)
{
	int added;
	uint32_t id;

	if (dict__size(sd->copies) >= COPIES_PER_GENERATION) {
		struct dict *older = sd->old_copies;

		sd->old_copies = sd->copies;
		sd->copies = older;
		dict__clear(sd->copies);
	}
	id = dict__intern(sd->copies, &copy_id, sizeof(copy_id), &added);
	*dict__value(sd->copies, id) = (uintptr_t)s;
}

static const struct kstack *lookup(struct stackdict *sd, uint64_t raw_hash)
{
	uint32_t id;

	if (raw_hash & TRACT_COPY_ID) {
		const struct kstack *s;

		id = dict__find(sd->copies, &raw_hash, sizeof(raw_hash));
		if (id)
			return (const struct kstack *)(uintptr_t)*dict__value(sd->copies, id);
		id = dict__find(sd->old_copies, &raw_hash, sizeof(raw_hash));
		if (!id)
			return NULL;
		s = (const struct kstack *)(uintptr_t)*dict__value(sd->old_copies, id);
		remember_copy(sd, raw_hash, s);
		return s;
	}
	id = dict__find(sd->by_raw, &raw_hash, sizeof(raw_hash));
	return id ? (const struct kstack *)(uintptr_t)*dict__value(sd->by_raw, id) : NULL;
}

static const struct kstack *lookaside(struct stackdict *sd, uint64_t raw_hash)
{
	size_t i = (size_t)((raw_hash * 0x9e3779b97f4a7c15ull) >> (64 - RECENT_BITS));
	const struct kstack *s;

	if (sd->recent[i].raw == raw_hash && sd->recent[i].stack)
		return sd->recent[i].stack;
	s = lookup(sd, raw_hash);
	if (s) {
		sd->recent[i].raw = raw_hash;
		sd->recent[i].stack = s;
	}
	return s;
}

const struct kstack *stackdict__get(struct stackdict *sd, uint64_t raw_hash)
{
	const struct asked *last = sd->asked[!sd->now];
	const struct kstack *s;
	struct asked *a;

	/* a raw hash always names the same stack, and stacks live as long as the dictionary */
	if (sd->next < sd->nr_asked[!sd->now] && last[sd->next].raw == raw_hash && last[sd->next].stack)
		s = last[sd->next].stack;
	else
		s = lookaside(sd, raw_hash);
	/* every question takes its place, answered or not, so the next pass's line up */
	sd->next++;
	if (sd->nr_asked[sd->now] == sd->cap_asked[sd->now]) {
		sd->cap_asked[sd->now] = sd->cap_asked[sd->now] ? 2 * sd->cap_asked[sd->now] : 1024;
		sd->asked[sd->now] = xrealloc(sd->asked[sd->now], sd->cap_asked[sd->now] * sizeof(*a));
	}
	a = &sd->asked[sd->now][sd->nr_asked[sd->now]++];
	a->raw = raw_hash;
	a->stack = s;
	return s;
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
static char *symbolize_kernel(struct ksyms *ks, const uint64_t *ip, size_t nr)
{
	size_t cap = 64 * (nr + 1), len = 0;
	char *out = xcalloc(1, cap);

	for (size_t i = nr; i-- > 0;) {
		char unknown[32];
		const char *name = ksyms__name(ks, ip[i]);

		if (!name) {
			snprintf(unknown, sizeof(unknown), "0x%" PRIx64, ip[i]);
			name = unknown;
		}
		append_frame(&out, &len, &cap, name, strlen(name));
	}
	return out;
}

/* The last occurrence of what in [s, end), or NULL. */
static const char *last_of(const char *s, const char *end, const char *what)
{
	size_t n = strlen(what), len = (size_t)(end - s);

	for (size_t i = len >= n ? len - n + 1 : 0; i-- > 0;)
		if (!memcmp(s + i, what, n))
			return s + i;
	return NULL;
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
		const char *l = starts[nr], *end = l + strcspn(l, "\n"), *mod = last_of(l, end, " ("), *at;
		const char *name_end = mod ? mod : end, *plus = last_of(l, name_end, "+0x");
		char frame[1024];
		int n;

		/*
		 * From the end: a C++ name holds spaces, parentheses and "+"
		 * ("operator+", "(anonymous namespace)::f").
		 */
		if (!strncmp(l, "0x", 2) && mod) {
			const char *mod_end = memchr(mod, ')', end - mod);

			n = snprintf(frame, sizeof(frame), "%.*s+%.*s", (int)((mod_end ? mod_end : end) - mod - 2),
				     mod + 2, (int)(name_end - l), l);
		} else {
			/* "fsync+0x2b", and versioned names as "clock_nanosleep@@GLIBC_2.17" */
			if (plus)
				name_end = plus;
			at = memchr(l, '@', name_end - l);
			if (at)
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

/* Whether a folded user stack begins where a process or a thread does: no caller was lost. */
static int begins_at_entry(const char *frames)
{
	static const char *const entries[] = {
		"_start", "__libc_start_main", "__libc_start_call_main", "clone", "clone3", "__clone",
		"__clone3", "start_thread", "runtime.goexit", "runtime.goexit.abi0", "runtime.rt0_go",
		"runtime.mstart",
	};
	size_t n = strcspn(frames, ";");

	for (size_t i = 0; i < ARRAY_SIZE(entries); i++)
		if (strlen(entries[i]) == n && !strncmp(frames, entries[i], n))
			return 1;
	return 0;
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
	s->tgid = tgid;
	if (sd->us && !usyms__symbolize(sd->us, (int)tgid, 0, ip, nr, &lines)) {
		s->frames = fold_user(lines);
		free(lines);
	} else {
		/* gone already: its addresses still tell how deep it was */
		s->frames = xstrdup("[gone]");
	}
	if (cut < 0)
		cut = strcmp(s->frames, "[gone]") && !begins_at_entry(s->frames);
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

const struct kstack *stackdict__add_user_copy(struct stackdict *sd, const struct tract_ustack_copy *copy,
					      const void *bytes)
{
	uint64_t ips[TRACT_USTACK_MAX], key[TRACT_USTACK_MAX + 1];
	const struct kstack *s;
	size_t n = 0;
	int cut = 1;

	if (sd->us)
		n = unwind__copy(sd->us, copy, bytes, ips, TRACT_USTACK_MAX - 1, &cut, &sd->unwound);
	if (!n) {
		ips[0] = copy->regs[TRACT_UREG_IP];
		n = 1;
	}
	/* stacks that unwound alike are one stack, whichever copy they came from */
	memcpy(key, ips, n * sizeof(ips[0]));
	key[n] = (uint64_t)copy->tgid << 1 | (cut != 0);
	s = stackdict__add_user(sd, hash_bytes(key, (n + 1) * sizeof(key[0]), 0x637769ull) & ~TRACT_COPY_ID,
				copy->tgid, ips, n, cut);
	remember_copy(sd, copy->hash, s);
	return s;
}

void stackdict__unwind_stats(const struct stackdict *sd, struct unwind_stats *st)
{
	*st = sd->unwound;
}

void stackdict__forget_process(struct stackdict *sd, uint32_t tgid, uint64_t start_ns)
{
	int added;
	uint32_t id = dict__intern(sd->ended, &tgid, sizeof(tgid), &added);

	*dict__value(sd->ended, id) = sd->passes;
	/* its stacks were symbolized as they came: its mappings are of no more use */
	if (sd->us)
		usyms__forget(sd->us, (int)tgid, start_ns);
}

struct collection {
	struct stackdict *sd;
	struct kstack **dead;
	size_t nr, cap;
};

/* a user stack of a process ended before the grace */
static int expired(const struct stackdict *sd, const struct kstack *s)
{
	uint32_t id = s->tgid ? dict__find(sd->ended, &s->tgid, sizeof(s->tgid)) : 0;

	return id && *dict__value(sd->ended, id) + GRACE_PASSES <= sd->passes;
}

static int keep_stack(const void *key, size_t len, uint64_t value, void *ctx)
{
	struct collection *c = ctx;
	struct kstack *s = (struct kstack *)(uintptr_t)value;

	(void)key, (void)len;
	if (!expired(c->sd, s))
		return 1;
	if (c->nr == c->cap) {
		c->cap = c->cap ? 2 * c->cap : 256;
		c->dead = xrealloc(c->dead, c->cap * sizeof(*c->dead));
	}
	c->dead[c->nr++] = s;
	return 0;
}

static int keep_copy(const void *key, size_t len, uint64_t value, void *ctx)
{
	(void)key, (void)len;
	return !expired(ctx, (const struct kstack *)(uintptr_t)value);
}

static int keep_ended(const void *key, size_t len, uint64_t value, void *ctx)
{
	const struct stackdict *sd = ctx;

	(void)key, (void)len;
	return value + GRACE_PASSES > sd->passes;
}

/* A dictionary rebuilt by keep(), the old one freed. */
static void rebuild(struct dict **d, int (*keep)(const void *, size_t, uint64_t, void *), void *ctx)
{
	struct dict *kept = dict__filter(*d, keep, ctx);

	dict__free(*d);
	*d = kept;
}

/*
 * The user stacks of processes ended past their grace, freed: they are
 * looked up by their raw hashes, which carry the process, so no one asks
 * for them again.  The lookaside and the last pass's questions forget every
 * stack, freed or not.
 */
static void collect(struct stackdict *sd)
{
	struct collection c = { .sd = sd };
	size_t due = 0;

	if (dict__size(sd->ended) < COLLECT_AT)
		return;
	/* counted in place: this runs at every pass of a host whose processes come and go */
	for (uint32_t id = 1; id <= dict__size(sd->ended); id++)
		due += *dict__value(sd->ended, id) + GRACE_PASSES <= sd->passes;
	if (due < COLLECT_AT)
		return;
	rebuild(&sd->by_raw, keep_stack, &c);
	rebuild(&sd->copies, keep_copy, sd);
	rebuild(&sd->old_copies, keep_copy, sd);
	for (size_t i = 0; i < c.nr; i++) {
		free(c.dead[i]->frames);
		free(c.dead[i]);
	}
	free(c.dead);
	rebuild(&sd->ended, keep_ended, sd);
	memset(sd->recent, 0, sizeof(sd->recent));
	sd->nr_asked[0] = sd->nr_asked[1] = 0;
	sd->next = 0;
}

size_t stackdict__size(const struct stackdict *sd)
{
	return dict__size(sd->by_raw);
}

void stackdict__end_pass(struct stackdict *sd)
{
	sd->passes++;
	collect(sd);
	sd->now = !sd->now;
	sd->nr_asked[sd->now] = 0;
	sd->next = 0;
	if (sd->us)
		usyms__end_pass(sd->us, mono_ns());
}
