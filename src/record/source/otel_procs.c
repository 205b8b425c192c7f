// SPDX-License-Identifier: GPL-2.0-only
#include <bpf/bpf.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "clock.h"
#include "dict.h"
#include "otel_pctx.h"
#include "otel_procs.h"
#include "otel_tls.h"
#include "tract/abi.h"
#include "util.h"

/* Searches of processes a pass, at most: a host starting a thousand processes spreads them out. */
#define SEARCHES_PER_PASS 32
/* A process that publishes nothing is searched again this long after. */
#define RESEARCH_NS (30 * NSEC_PER_SEC)
/* A process not seen this many passes is taken for gone. */
#define GONE_PASSES 50
/* A key map missing an index a record uses is read again, but not more often than this. */
#define STALE_KEYS_NS NSEC_PER_SEC

struct proc {
	uint32_t tgid;
	uint64_t start_ns;
	char pcomm[TRACT_COMM_LEN];
	uint64_t searched_ns;		/* 0: never */
	uint64_t seen_pass;
	int published;			/* its entry is in the map */
	struct otel_keys *keys;		/* its process context's, when it has one with a key map */
	uint64_t keys_read_ns;		/* when its process context was last looked for */
	int keys_stale;			/* a record used an index past the key map */
	size_t stale_n;			/* ... and the map read for it had this many keys: no use asking again */
};

struct otel_procs {
	int map_fd;
	volatile uint32_t *gen;		/* the sampler's otel_gen: bumped when a still thread's read would change */
	char *proc_root;
	struct dict *by_tgid;		/* tgid -> index + 1 in procs */
	struct proc *procs;
	size_t n, cap;
	uint64_t pass;
	int said_full;
	struct proc *last;		/* the process of the last sample: its threads come together */
};

struct otel_procs *otel_procs__new(int map_fd, volatile uint32_t *gen, const char *proc_root)
{
	struct otel_procs *o = xcalloc(1, sizeof(*o));

	o->map_fd = map_fd;
	o->gen = gen;
	o->proc_root = xstrdup(proc_root ? proc_root : "/proc");
	o->by_tgid = dict__new();
	return o;
}

void otel_procs__free(struct otel_procs *o)
{
	if (!o)
		return;
	for (size_t i = 0; i < o->n; i++)
		free(o->procs[i].keys);
	dict__free(o->by_tgid);
	free(o->procs);
	free(o->proc_root);
	free(o);
}

void otel_procs__seen(struct otel_procs *o, uint32_t tgid, uint64_t start_ns, const char *pcomm)
{
	int added;
	uint32_t id;
	uint64_t *index;
	struct proc *p = o->last;

	if (p && p->tgid == tgid && p->start_ns == start_ns && !strncmp(p->pcomm, pcomm, sizeof(p->pcomm))) {
		p->seen_pass = o->pass;
		return;
	}
	id = dict__intern(o->by_tgid, &tgid, sizeof(tgid), &added);
	index = dict__value(o->by_tgid, id);

	if (added || !*index) {
		ARRAY_GROW(o->procs, o->n, o->cap, 256);
		*index = ++o->n;
		o->procs[*index - 1] = (struct proc){ .tgid = tgid };
	}
	p = &o->procs[*index - 1];
	/* a reused pid, or an exec: another process to search */
	if (p->start_ns != start_ns || strncmp(p->pcomm, pcomm, sizeof(p->pcomm))) {
		if (p->published)
			bpf_map_delete_elem(o->map_fd, &tgid);
		free(p->keys);
		*p = (struct proc){ .tgid = tgid, .start_ns = start_ns };
		snprintf(p->pcomm, sizeof(p->pcomm), "%s", pcomm);
	}
	p->seen_pass = o->pass;
	o->last = p;
}

/*
 * The process context's key map, looked for again: the sampler copies a
 * process's attributes only while they have names.  0, or -1 when the
 * process publishes a thread context of another schema.
 */
static int read_keys(struct otel_procs *o, struct proc *p, uint64_t now_ns)
{
	struct otel_keys *k = xcalloc(1, sizeof(*k));
	int found = otel_pctx_read(o->proc_root, p->tgid, k);

	p->keys_read_ns = now_ns;
	/* read for an index past the map: until the map grows, more of the same do not ask again */
	p->stale_n = p->keys_stale ? (found > 0 ? k->n : 0) : (size_t)-1;
	p->keys_stale = 0;
	/* being written, or unreadable for now: what was read before holds */
	if (found < 0 && p->keys) {
		free(k);
		return 0;
	}
	if (found > 0 && !otel_pctx_schema_ok(k)) {
		tract_debug("pid %u (%s): its thread context is of schema %s, not read", p->tgid, p->pcomm, k->schema);
		free(k);
		free(p->keys);
		p->keys = NULL;
		return -1;
	}
	free(p->keys);
	p->keys = NULL;
	if (found > 0 && k->n)
		p->keys = k;
	else
		free(k);
	return 0;
}

/* The process's entry in the sampler's map: whether to copy attributes follows its key map. */
static int publish(struct otel_procs *o, struct proc *p, struct tract_otel_proc *v)
{
	v->attrs = p->keys != NULL;
	if (bpf_map_update_elem(o->map_fd, &p->tgid, v, BPF_ANY)) {
		if (!o->said_full++)
			tract_warn("more than %d processes publish an OpenTelemetry thread context: "
				   "the others' traces are not read", TRACT_OTEL_PROCS);
		return -1;
	}
	/* its threads read so far as having none, or with other names, are read again */
	(*o->gen)++;
	return 0;
}

/* Whether two key maps name the same keys. */
static int same_keys(const struct otel_keys *a, const struct otel_keys *b)
{
	if (!a || !b)
		return a == b;
	if (a->n != b->n)
		return 0;
	for (size_t i = 0; i < a->n; i++)
		if (strcmp(a->names[i], b->names[i]))
			return 0;
	return 1;
}

/* The key map read again; the sampler told when it now has names or no longer has. */
static void refresh_keys(struct otel_procs *o, struct proc *p, uint64_t now_ns)
{
	struct otel_keys *before = p->keys ? xcalloc(1, sizeof(*before)) : NULL;
	struct tract_otel_proc v;

	if (before)
		*before = *p->keys;
	if (read_keys(o, p, now_ns)) {
		bpf_map_delete_elem(o->map_fd, &p->tgid);
		p->published = 0;
	} else if (!same_keys(before, p->keys) && !bpf_map_lookup_elem(o->map_fd, &p->tgid, &v)) {
		publish(o, p, &v);
	}
	free(before);
}

static void search(struct otel_procs *o, struct proc *p, uint64_t now_ns)
{
	struct otel_tls tls;
	struct tract_otel_proc v = { .start_ns = p->start_ns };
	int found = otel_tls_find(o->proc_root, p->tgid, &tls);

	p->searched_ns = now_ns;
	if (found <= 0 || read_keys(o, p, now_ns))
		return;
	v.offset = tls.offset;
	v.module = tls.module;
	if (publish(o, p, &v))
		return;
	p->published = 1;
	tract_debug("pid %u (%s): thread context by %s TLS, %s offset %" PRId64 " module %" PRIu64 ", %zu attribute names",
		    p->tgid, p->pcomm, tls.model, tls.module ? "dynamic" : "static", tls.offset, tls.module,
		    p->keys ? p->keys->n : 0);
}

/* the entries of processes still kept (a gone one's says 0) */
static int kept(const void *key, size_t len, uint64_t value, void *ctx)
{
	(void)key, (void)len, (void)ctx;
	return value != 0;
}

/* Drops process i (gone), moving the last into its place. */
static void drop(struct otel_procs *o, size_t i)
{
	struct proc *p = &o->procs[i];

	if (p->published)
		bpf_map_delete_elem(o->map_fd, &p->tgid);
	free(p->keys);
	/* the dictionary keeps its key; the entry says no process until one is seen again */
	*dict__value(o->by_tgid, dict__find(o->by_tgid, &p->tgid, sizeof(p->tgid))) = 0;
	if (i + 1 < o->n) {
		*p = o->procs[o->n - 1];
		*dict__value(o->by_tgid, dict__find(o->by_tgid, &p->tgid, sizeof(p->tgid))) = i + 1;
	}
	o->n--;
}

void otel_procs__pass_end(struct otel_procs *o, uint64_t now_ns)
{
	int searches = 0;

	/* drop() moves processes: the last one is looked up again */
	o->last = NULL;
	for (size_t i = o->n; i-- > 0;) {
		struct proc *p = &o->procs[i];

		if (o->pass - p->seen_pass > GONE_PASSES) {
			drop(o, i);
			continue;
		}
		if (searches >= SEARCHES_PER_PASS)
			continue;
		if (p->published) {
			/* the process context may come after the thread contexts, and its key map grows */
			if (now_ns - p->keys_read_ns >= (p->keys_stale ? STALE_KEYS_NS : RESEARCH_NS)) {
				refresh_keys(o, p, now_ns);
				searches++;
			}
			continue;
		}
		if (p->searched_ns && now_ns - p->searched_ns < RESEARCH_NS)
			continue;
		search(o, p, now_ns);
		searches++;
	}
	o->pass++;
	/* the keys of processes gone, once they outnumber the living: a busy host's pids come and go */
	if (dict__size(o->by_tgid) > 2 * o->n + 1024) {
		struct dict *d = dict__filter(o->by_tgid, kept, NULL);

		dict__free(o->by_tgid);
		o->by_tgid = d;
	}
}

static struct proc *find(struct otel_procs *o, uint32_t tgid)
{
	uint32_t id = dict__find(o->by_tgid, &tgid, sizeof(tgid));
	uint64_t index = id ? *dict__value(o->by_tgid, id) : 0;

	return index ? &o->procs[index - 1] : NULL;
}

const struct otel_keys *otel_procs__keys(struct otel_procs *o, uint32_t tgid)
{
	struct proc *p = find(o, tgid);

	return p ? p->keys : NULL;
}

void otel_procs__keys_stale(struct otel_procs *o, uint32_t tgid)
{
	struct proc *p = find(o, tgid);

	if (p && p->stale_n != (p->keys ? p->keys->n : 0))
		p->keys_stale = 1;
}
