// SPDX-License-Identifier: GPL-2.0-only
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "dict.h"
#include "ksyms.h"
#include "python.h"
#include "clock.h"
#include "stackdict.h"
#include "strbuf.h"
#include "unwind.h"
#include "usyms.h"
#include "util.h"

/* copied stacks remembered: this many, then as many again in the older generation */
#define COPIES_PER_GENERATION 65536
/* a generation's slots: twice its entries, so that probes stay short */
#define COPY_SLOTS (2 * COPIES_PER_GENERATION)
/* the lookaside of stacks asked for lately (a power of two): a still thread's copied user stack has an id of its own, so as many as threads */
#define RECENT_BITS 14
/*
 * An ended process's user stacks are freed this many passes after it ended:
 * more than the writer's queue holds (32), so no queued pass points at them.
 */
#define GRACE_PASSES 64
/* ended processes past their grace before the dictionary is walked to free their stacks */
#define COLLECT_AT 256
/* passes between two looks for kernel stacks idle past STACKDICT_KSTACK_IDLE_PASSES */
#define KSTACK_SWEEP_PASSES 512
#define RECENT (1u << RECENT_BITS)

/*
 * A copied stack's id and what it unwound to, in a table of fixed size:
 * the ids are new at every copy, and a dictionary of them held a key of its
 * own per id and grew for as long as its generation filled.  A free slot
 * has id 0 (ids carry TRACT_COPY_ID); a forgotten stack leaves its id and a
 * NULL stack, so that later probes go past it.
 */
struct copy_slot {
	uint64_t id;
	const struct kstack *stack;
};

struct copy_gen {
	struct copy_slot *slots;	/* COPY_SLOTS of them */
	size_t nr;
};

/*
 * Frames text shared by the stacks that read alike: the same code in the
 * same file gives the same frames in every process, while the raw hashes
 * of user stacks carry their process (the addresses are its own).  Kernel
 * stacks share theirs too: addresses within one function fold to one name.
 */
struct shared_text {
	uint32_t refs;
	uint32_t pooled;	/* in the pool under its hash (else a hash's second text, alone) */
	char text[];
};

/* A stack as the dictionary holds it: and the pass that last asked for it. */
struct entry {
	struct kstack k;	/* first: a struct kstack * is its entry's */
	uint64_t asked;
};

struct stackdict {
	struct ksyms *ks;
	struct usyms *us;
	struct python *py;		/* CPython's own frames, where user stacks are symbolized */
	struct dict *by_raw;		/* raw hash -> its struct kstack */
	/*
	 * A copied stack's id -> the stack it unwound to.  Each copy has an id
	 * of its own and the sampler repeats it while the thread has not run,
	 * so only recent ids are asked for: two generations, the older dropped
	 * when the newer fills.
	 */
	struct copy_gen copies, old_copies;
	/* the frames texts: hash of the text -> its struct shared_text */
	struct dict *texts;
	struct unwind_stats unwound;
	/* ended processes whose user stacks are still kept: tgid -> the pass it ended in */
	struct dict *ended;
	uint64_t passes;
	uint64_t swept;			/* the pass of the last look for idle kernel stacks */
	/*
	 * The stacks asked for lately, by raw hash: every pass asks again for
	 * the stacks of all the threads that stay asleep, mostly a few stacks
	 * many times.  A raw hash always names the same stack, and the
	 * collection that frees stacks empties this, so an entry never goes stale.
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

/* s asked for in this pass: a kernel stack stays while passes ask for it */
static void asked_now(struct stackdict *sd, const struct kstack *s)
{
	((struct entry *)(uintptr_t)s)->asked = sd->passes;
}

struct stackdict *stackdict__new(struct ksyms *ks, struct usyms *us)
{
	struct stackdict *sd = xcalloc(1, sizeof(*sd));

	sd->ks = ks;
	sd->us = us;
	sd->py = us ? python__new(NULL) : NULL;
	sd->by_raw = dict__new();
	sd->texts = dict__new();
	/*
	 * Written now: a table of fixed size is as big from the start, so the
	 * recorder's memory does not creep up as the generations fill.
	 */
	sd->copies.slots = xcalloc(COPY_SLOTS, sizeof(struct copy_slot));
	sd->old_copies.slots = xcalloc(COPY_SLOTS, sizeof(struct copy_slot));
	memset(sd->copies.slots, 0, COPY_SLOTS * sizeof(struct copy_slot));
	memset(sd->old_copies.slots, 0, COPY_SLOTS * sizeof(struct copy_slot));
	sd->ended = dict__new();
	return sd;
}

static struct shared_text *text_of(const char *frames)
{
	return (struct shared_text *)(uintptr_t)(frames - offsetof(struct shared_text, text));
}

/* The shared copy of frames (taken: freed here), one per distinct text. */
static char *share_text(struct stackdict *sd, char *frames, uint64_t hash)
{
	size_t len = strlen(frames) + 1;
	uint32_t id = dict__find(sd->texts, &hash, sizeof(hash));
	struct shared_text *t;
	int added;

	if (id) {
		t = (struct shared_text *)(uintptr_t)*dict__value(sd->texts, id);
		if (!strcmp(t->text, frames)) {
			t->refs++;
			free(frames);
			return t->text;
		}
	}
	t = xcalloc(1, sizeof(*t) + len);
	memcpy(t->text, frames, len);
	free(frames);
	t->refs = 1;
	/* two texts of one hash: the second is its stack's alone */
	if (!id) {
		t->pooled = 1;
		*dict__value(sd->texts, dict__intern(sd->texts, &hash, sizeof(hash), &added)) = (uintptr_t)t;
	}
	return t->text;
}

/* A stack's frames given up: a text no stack shares is freed, now or when the pool is next rebuilt. */
static void release_text(const char *frames)
{
	struct shared_text *t = text_of(frames);

	if (!--t->refs && !t->pooled)
		free(t);
}

static void free_stack(struct kstack *s)
{
	if (s->frames)
		release_text(s->frames);
	free(s);
}

void stackdict__free(struct stackdict *sd)
{
	if (!sd)
		return;
	for (uint32_t id = 1; id <= dict__size(sd->by_raw); id++)
		free_stack((struct kstack *)(uintptr_t)*dict__value(sd->by_raw, id));
	dict__free(sd->by_raw);
	for (uint32_t id = 1; id <= dict__size(sd->texts); id++)
		free((void *)(uintptr_t)*dict__value(sd->texts, id));
	dict__free(sd->texts);
	free(sd->asked[0]);
	free(sd->asked[1]);
	free(sd->copies.slots);
	free(sd->old_copies.slots);
	dict__free(sd->ended);
	python__free(sd->py);
	free(sd);
}

/* The slot of copy_id in g, or the free slot where it would go. */
static struct copy_slot *copy_slot(const struct copy_gen *g, uint64_t copy_id)
{
	size_t i = (size_t)((copy_id * 0x9e3779b97f4a7c15ull) >> 32) & (COPY_SLOTS - 1);

	while (g->slots[i].id && g->slots[i].id != copy_id)
		i = (i + 1) & (COPY_SLOTS - 1);
	return &g->slots[i];
}

static void remember_copy(struct stackdict *sd, uint64_t copy_id, const struct kstack *s)
{
	struct copy_slot *slot;

	if (sd->copies.nr >= COPIES_PER_GENERATION) {
		struct copy_gen older = sd->old_copies;

		sd->old_copies = sd->copies;
		sd->copies = older;
		memset(sd->copies.slots, 0, COPY_SLOTS * sizeof(struct copy_slot));
		sd->copies.nr = 0;
	}
	slot = copy_slot(&sd->copies, copy_id);
	if (!slot->id) {
		slot->id = copy_id;
		sd->copies.nr++;
	}
	slot->stack = s;
}

static const struct kstack *lookup(struct stackdict *sd, uint64_t raw_hash)
{
	uint32_t id;

	if (raw_hash & TRACT_COPY_ID) {
		const struct copy_slot *slot = copy_slot(&sd->copies, raw_hash);
		const struct kstack *s;

		if (slot->id)
			return slot->stack;
		slot = copy_slot(&sd->old_copies, raw_hash);
		if (!slot->stack)
			return NULL;
		s = slot->stack;
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

	/* a raw hash always names the same stack, and a collection forgets the last pass's questions */
	if (sd->next < sd->nr_asked[!sd->now] && last[sd->next].raw == raw_hash && last[sd->next].stack)
		s = last[sd->next].stack;
	else
		s = lookaside(sd, raw_hash);
	/* every question takes its place, answered or not, so the next pass's line up */
	sd->next++;
	ARRAY_GROW(sd->asked[sd->now], sd->nr_asked[sd->now], sd->cap_asked[sd->now], 1024);
	a = &sd->asked[sd->now][sd->nr_asked[sd->now]++];
	a->raw = raw_hash;
	a->stack = s;
	if (s)
		asked_now(sd, s);
	return s;
}

/* Appends one frame to a folded stack ("outer;...;inner"). */
static void append_frame(struct strbuf *out, const char *name, size_t n)
{
	if (out->len)
		strbuf_addn(out, ";", 1);
	strbuf_addn(out, name, n);
}

/* Frames are named without offsets so that equal call paths group together. */
static char *symbolize_kernel(struct ksyms *ks, const uint64_t *ip, size_t nr)
{
	struct strbuf out = { 0 };

	strbuf_reserve(&out, 64 * (nr + 1));

	for (size_t i = nr; i-- > 0;) {
		char unknown[32];
		const char *name = ksyms__name(ks, ip[i]);

		if (!name) {
			snprintf(unknown, sizeof(unknown), "0x%" PRIx64, ip[i]);
			name = unknown;
		}
		append_frame(&out, name, strlen(name));
	}
	return strbuf_take(&out);
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
 * and address ("libc.so.6+0x10f3a2"), but for JIT code, which reads "[jit]".
 * A caller's frame in no mapping at all is where a walk by frame pointers
 * went astray (code that keeps none): it and the frames beyond it are left
 * out, and *astray says so.  An innermost one is kept: the thread ran there.
 */
static char *fold_user(const char *lines, int *astray)
{
	size_t nr = 1;
	const char *line, **starts;
	struct strbuf out = { 0 };

	for (const char *c = lines; *c; c++)
		nr += *c == '\n';
	starts = xcalloc(nr, sizeof(*starts));
	nr = 0;
	for (line = lines; line; line = strchr(line, '\n'), line = line ? line + 1 : NULL)
		if (*line && *line != '\n')
			starts[nr++] = line;
	*astray = 0;
	for (size_t i = 1; i < nr; i++)
		if (!strncmp(starts[i], "0x", 2) && !strncmp(starts[i] + strcspn(starts[i], " \n"), " ([unknown])", 12)) {
			nr = i;
			*astray = 1;
			break;
		}
	/* a frame is seldom longer than its line: one allocation, as a rule */
	strbuf_reserve(&out, strlen(lines) + 16);
	while (nr-- > 0) {
		const char *l = starts[nr], *end = l + strcspn(l, "\n"), *mod = last_of(l, end, " ("), *at;
		const char *name_end = mod ? mod : end, *plus = last_of(l, name_end, "+0x");
		char frame[1024];
		int n;

		/*
		 * From the end: a C++ name holds spaces, parentheses and "+"
		 * ("operator+", "(anonymous namespace)::f").
		 */
		if (mod && !strncmp(mod, " ([jit])", 8) && mod + 8 == end) {
			/* JIT code: its perf map's name as it is, else one "[jit]" for all (addresses would split alike stacks) */
			if (!strncmp(l, "0x", 2))
				n = snprintf(frame, sizeof(frame), "[jit]");
			else
				n = snprintf(frame, sizeof(frame), "%.*s", (int)((plus ? plus : name_end) - l), l);
		} else if (!strncmp(l, "0x", 2) && mod) {
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
		append_frame(&out, frame, n < (int)sizeof(frame) ? (size_t)n : sizeof(frame) - 1);
	}
	free(starts);
	return strbuf_take(&out);
}

/* The new entry for raw_hash, or the one already there (*added = 0). */
static struct kstack *new_stack(struct stackdict *sd, uint64_t raw_hash, int *added)
{
	uint32_t id = dict__intern(sd->by_raw, &raw_hash, sizeof(raw_hash), added);
	struct kstack *s;

	if (!*added)
		return (struct kstack *)(uintptr_t)*dict__value(sd->by_raw, id);
	s = &((struct entry *)xcalloc(1, sizeof(struct entry)))->k;
	*dict__value(sd->by_raw, id) = (uintptr_t)s;
	return s;
}

/* The hash of the text: the same stack hashes alike in every file.  Takes s->frames, to share it. */
static void finish_stack(struct stackdict *sd, struct kstack *s)
{
	char *last;

	asked_now(sd, s);
	s->hash = hash_bytes(s->frames, strlen(s->frames), 0) >> 1; /* fits SQLite's signed 64 bits */
	s->frames = share_text(sd, s->frames, s->hash);
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
		finish_stack(sd, s);
	}
	asked_now(sd, s);
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
	uint32_t gen;

	if (!added) {
		/*
		 * JIT frames left unnamed: the runtime may have written its
		 * perf map since (jcmd Compiler.perfmap while tract records),
		 * so once per change of the map they are named again, under a
		 * key of their own
		 */
		if (!sd->us || !strstr(s->frames, "[jit]") || !(gen = usyms__jit_gen(sd->us, (int)tgid)))
			return s;
		raw_hash = ((raw_hash ^ hash_bytes(&gen, sizeof(gen), 0x6a6974ull)) & ~TRACT_COPY_ID) |
			   (raw_hash & TRACT_COPY_ID);
		s = new_stack(sd, raw_hash, &added);
		if (!added)
			return s;
	}
	s->kind = "user";
	s->tgid = tgid;
	if (sd->us && !usyms__symbolize(sd->us, (int)tgid, 0, ip, nr, &lines)) {
		int astray;

		s->frames = fold_user(lines, &astray);
		free(lines);
		if (astray)
			cut = 1;
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
	finish_stack(sd, s);
	return s;
}

/*
 * The native stack s of an interpreter's thread with the Python frames py
 * in place of the eval calls that run them, under raw_hash; s itself where
 * the two disagree.
 */
static const struct kstack *add_python(struct stackdict *sd, uint64_t raw_hash, const struct kstack *s,
				       const struct python_stack *py, int cut)
{
	const char *native = s->frames;
	char *merged;
	struct kstack *m;
	int added;

	if (!strncmp(native, "[cut];", 6))
		native += 6;
	merged = python__merge(native, py, cut);
	if (!merged)
		return s;
	m = new_stack(sd, raw_hash, &added);
	if (!added) {
		free(merged);
		return m;
	}
	m->kind = "user";
	m->tgid = s->tgid;
	if (native != s->frames) {
		m->frames = xcalloc(1, strlen(merged) + sizeof("[cut];"));
		sprintf(m->frames, "[cut];%s", merged);
		free(merged);
	} else {
		m->frames = merged;
	}
	finish_stack(sd, m);
	return m;
}

const struct kstack *stackdict__add_folded(struct stackdict *sd, const char *kind, const char *folded)
{
	int added;
	/* the text's own hash, kept apart from the kernel side's hashes of addresses */
	struct kstack *s = new_stack(sd, hash_bytes(folded, strlen(folded), 0x9e3779b97f4a7c15ull), &added);

	if (added) {
		s->kind = kind;
		s->frames = xstrdup(folded);
		finish_stack(sd, s);
	}
	asked_now(sd, s);
	return s;
}

const struct kstack *stackdict__add_user_copy(struct stackdict *sd, const struct tract_ustack_copy *copy,
					      const void *bytes)
{
	uint64_t ips[TRACT_USTACK_MAX], key[TRACT_USTACK_MAX + 1], raw;
	struct python_stack py = { 0 };
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
	raw = hash_bytes(key, (n + 1) * sizeof(key[0]), 0x637769ull) & ~TRACT_COPY_ID;
	s = stackdict__add_user(sd, raw, copy->tgid, ips, n, cut);
	/*
	 * A stack the interpreter runs in: its Python frames, read now, of
	 * a thread that has not run on since its copy (a sleeping thread's
	 * stay as they are; a running one's are checked against its native
	 * stack too), make a stack of their own.
	 */
	if (sd->py && copy->tid && strstr(s->frames, "_PyEval_EvalFrameDefault") &&
	    python__read(sd->py, copy->tgid, copy->tid, copy->still, &py)) {
		/* the native stack's raw hash carries the process, as every user stack's must */
		for (size_t i = 0; i < py.nr; i++)
			raw = hash_bytes(py.seg[i], strlen(py.seg[i]) + 1, raw);
		s = add_python(sd, raw & ~TRACT_COPY_ID, s, &py, cut);
		python_stack__clear(&py);
	}
	remember_copy(sd, copy->hash, s);
	return s;
}

void stackdict__unwind_stats(const struct stackdict *sd, struct unwind_stats *st)
{
	*st = sd->unwound;
}

void stackdict__python_stats(const struct stackdict *sd, struct python_stats *st)
{
	if (sd->py)
		python__stats(sd->py, st);
	else
		memset(st, 0, sizeof(*st));
}

void stackdict__forget_process(struct stackdict *sd, uint32_t tgid, uint64_t start_ns)
{
	int added;
	uint32_t id = dict__intern(sd->ended, &tgid, sizeof(tgid), &added);

	*dict__value(sd->ended, id) = sd->passes;
	/* its stacks were symbolized as they came: its mappings are of no more use */
	if (sd->us)
		usyms__forget(sd->us, (int)tgid, start_ns);
	python__forget(sd->py, tgid);
}

struct collection {
	struct stackdict *sd;
	struct kstack **dead;
	size_t nr, cap;
};

/* a user stack of a process ended before the grace, or a kernel stack no pass asked for in long */
static int expired(const struct stackdict *sd, const struct kstack *s)
{
	uint32_t id = s->tgid ? dict__find(sd->ended, &s->tgid, sizeof(s->tgid)) : 0;

	if (!s->tgid && !strcmp(s->kind, "kernel"))
		return ((const struct entry *)(uintptr_t)s)->asked + STACKDICT_KSTACK_IDLE_PASSES <= sd->passes;
	return id && *dict__value(sd->ended, id) + GRACE_PASSES <= sd->passes;
}

static int keep_stack(const void *key, size_t len, uint64_t value, void *ctx)
{
	struct collection *c = ctx;
	struct kstack *s = (struct kstack *)(uintptr_t)value;

	(void)key, (void)len;
	if (!expired(c->sd, s))
		return 1;
	ARRAY_GROW(c->dead, c->nr, c->cap, 256);
	c->dead[c->nr++] = s;
	return 0;
}

/* The copies of freed stacks forgotten, their ids left to keep the probes going. */
static void forget_copies(const struct stackdict *sd, struct copy_gen *g)
{
	for (size_t i = 0; i < COPY_SLOTS; i++)
		if (g->slots[i].stack && expired(sd, g->slots[i].stack))
			g->slots[i].stack = NULL;
}

static int text_shared(const void *key, size_t len, uint64_t value, void *ctx)
{
	struct shared_text *t = (struct shared_text *)(uintptr_t)value;

	(void)key, (void)len, (void)ctx;
	if (t->refs)
		return 1;
	free(t);
	return 0;
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

/* Kernel stacks idle past their time, looked for every KSTACK_SWEEP_PASSES: whether there are any. */
static int idle_kstacks(struct stackdict *sd)
{
	if (sd->passes < sd->swept + KSTACK_SWEEP_PASSES)
		return 0;
	sd->swept = sd->passes;
	for (uint32_t id = 1; id <= dict__size(sd->by_raw); id++) {
		const struct kstack *s = (const struct kstack *)(uintptr_t)*dict__value(sd->by_raw, id);

		if (!s->tgid && expired(sd, s))
			return 1;
	}
	return 0;
}

/*
 * The user stacks of processes ended past their grace, freed: they are
 * looked up by their raw hashes, which carry the process, so no one asks
 * for them again.  And the kernel stacks no pass asked for in
 * STACKDICT_KSTACK_IDLE_PASSES: they belong to no process, and the on-CPU
 * profile's (where a tick fell) come new all day.  The lookaside and the
 * last pass's questions forget every stack, freed or not.
 */
static void collect(struct stackdict *sd)
{
	struct collection c = { .sd = sd };
	size_t due = 0;

	/* counted in place: this runs at every pass of a host whose processes come and go */
	for (uint32_t id = 1; dict__size(sd->ended) >= COLLECT_AT && id <= dict__size(sd->ended); id++)
		due += *dict__value(sd->ended, id) + GRACE_PASSES <= sd->passes;
	if (due < COLLECT_AT && !idle_kstacks(sd))
		return;
	rebuild(&sd->by_raw, keep_stack, &c);
	forget_copies(sd, &sd->copies);
	forget_copies(sd, &sd->old_copies);
	for (size_t i = 0; i < c.nr; i++)
		free_stack(c.dead[i]);
	free(c.dead);
	rebuild(&sd->texts, text_shared, NULL);
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
