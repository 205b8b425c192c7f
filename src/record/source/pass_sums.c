// SPDX-License-Identifier: GPL-2.0-only
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "blockdev.h"
#include "dict.h"
#include "exits.h"
#include "hist_fold.h"
#include "irqs.h"
#include "map_drain.h"
#include "pass_tables.h"
#include "pass_sums.h"
#include "procinfo.h"
#include "running_totals.h"
#include "syscalls.h"
#include "tract/abi.h"
#include "util.h"

struct pass_sums {
	struct pass_sums_maps maps;
	struct resolvers res;
	struct map_news io_news, sc_news, runq_news, edges_news;
	struct running_totals *sc_totals, *edge_totals;	/* NULL: not kept */
	struct dict *rows;	/* this pass's rows, by key: the totals and the hash of a key add up */
	struct pass *p;		/* the pass being filled */
	/*
	 * A take's rows as the kernel's tables have them, before they are
	 * folded: the pass gets the folded ones, so that the writer's queue
	 * of passes does not grow to the size of the largest take it met.
	 */
	struct hist_rows sc, runq;
	struct wakeup_rows edges;
	struct exits *exits;	/* NULL: the kernel side tells no ends */
	struct dict *short_lived;	/* tgids whose rows go under their command's at this take */
	struct hist_hold sc_held;	/* the commands' folded syscall rows, held over takes */
	uint64_t last_take_ns;	/* CLOCK_BOOTTIME of the previous take (0: none yet) */
};

/*
 * Rows a take keeps of their own processes at most (more go under their
 * commands): a day of takes stays under a few hundred MB whatever the host
 * starts, and a host's few hundred busy processes keep their own.
 */
#define SC_ROWS_BUDGET 4096
#define RUNQ_ROWS_BUDGET 1024
#define EDGE_ROWS_BUDGET 2048

/* The name of a process neither read nor seen before it ended (its end record lost too). */
#define GONE_NAME "[gone]"

/* The row of a key of a kind in this pass: *added says whether it is new. */
static uint64_t *row_of(struct pass_sums *ps, uint64_t kind, uint64_t key, uint64_t bucket, int *added)
{
	uint64_t k[3] = { kind, key, bucket };

	return dict__value(ps->rows, dict__intern(ps->rows, k, sizeof(k), added));
}

enum { KEY_IO = 1, KEY_SYSCALL, KEY_RUNQ, KEY_EDGE };

/* A histogram bucket's row, new or this pass's; its counts summed in ns until pass_sums__take() ends. */
static struct hist_row *hist_row(struct pass_sums *ps, struct hist_rows *rows, uint64_t what, uint64_t key,
				 unsigned int bucket, int *added)
{
	uint64_t *row = row_of(ps, what, key, bucket, added);

	if (*added) {
		*row = rows->nr;
		hist_rows__add(rows)->le_us = 1ull << bucket;
	}
	return &rows->rows[*row];
}

static void add_syscall(struct pass_sums *ps, uint32_t tgid, uint32_t nr, unsigned int bucket, uint64_t count,
			uint64_t sum_ns)
{
	int added;
	struct hist_row *h = hist_row(ps, &ps->sc, KEY_SYSCALL, (uint64_t)tgid << 32 | nr, bucket, &added);

	if (added) {
		h->tgid = tgid;
		h->name = procinfo__name(ps->res.procs, tgid);
		h->what = syscall_name((int)nr);
	}
	h->count += count;
	h->sum_us += sum_ns;
}

static void take_io(void *ctx, const void *key, const void *value)
{
	struct pass_sums *ps = ctx;
	const struct tract_io_hist_key *k = key;
	struct tract_hist_val v;
	int added;
	struct hist_row *h = hist_row(ps, &ps->p->io_hist, KEY_IO, (uint64_t)k->dev << 8 | k->op, k->bucket, &added);

	memcpy(&v, value, sizeof(v));
	if (added) {
		h->name = blockdevs__name(ps->res.blockdevs, k->dev);
		h->what = block_op_name(k->op);
	}
	h->count += v.count;
	h->sum_us += v.sum_ns;
}

static void take_syscall(void *ctx, const void *key, const void *value)
{
	const struct tract_sc_hist_key *k = key;
	struct tract_hist_val v;

	memcpy(&v, value, sizeof(v));
	add_syscall(ctx, k->tgid, k->nr, k->bucket, v.count, v.sum_ns);
}

static void take_sc_total(void *ctx, uint64_t key, const uint64_t *grown, const void *entry)
{
	(void)entry;
	/* each bucket's count, then its summed latency: a sum read ahead of its count is still taken */
	for (unsigned int b = 0; b < TRACT_SC_BUCKETS; b++)
		if (grown[2 * b] || grown[2 * b + 1])
			add_syscall(ctx, (uint32_t)(key >> 32), (uint32_t)key, b, grown[2 * b], grown[2 * b + 1]);
}

static void take_runq(void *ctx, const void *key, const void *value)
{
	struct pass_sums *ps = ctx;
	const struct tract_runq_hist_key *k = key;
	struct tract_hist_val v;
	int added;
	struct hist_row *h = hist_row(ps, &ps->runq, KEY_RUNQ, k->tgid, k->bucket, &added);

	memcpy(&v, value, sizeof(v));
	if (added) {
		h->tgid = k->tgid;
		h->name = procinfo__name(ps->res.procs, k->tgid);
	}
	h->count += v.count;
	h->sum_us += v.sum_ns;
}

static void add_edge(struct pass_sums *ps, uint32_t waker_tgid, uint32_t wakee_tgid, const char *wakee_comm,
		     uint64_t count, uint64_t runq_ns, uint64_t blocked_ns)
{
	char comm[TRACT_COMM_LEN + 1];
	uint64_t *row;
	struct wakeup_row *w;
	int added;

	row = row_of(ps, KEY_EDGE, (uint64_t)waker_tgid << 32 | wakee_tgid, 0, &added);
	if (added) {
		*row = ps->edges.nr;
		w = wakeup_rows__add(&ps->edges);
		w->waker = irqs__waker_name(ps->res.irqs, waker_tgid);
		if (!w->waker) {
			w->waker_tgid = waker_tgid;
			w->waker = procinfo__name(ps->res.procs, waker_tgid);
		}
		w->wakee_tgid = wakee_tgid;
		/* its name now, where it lives: an entry keeps the name it had when it was taken */
		w->wakee = procinfo__name(ps->res.procs, wakee_tgid);
		if (!w->wakee) {
			memcpy(comm, wakee_comm, TRACT_COMM_LEN);
			comm[TRACT_COMM_LEN] = '\0';
			w->wakee = procinfo__intern(ps->res.procs, comm);
		}
	}
	w = &ps->edges.rows[*row];
	w->count += count;
	w->runq_us += runq_ns;
	w->blocked_us += blocked_ns;
}

static void take_edge(void *ctx, const void *key, const void *value)
{
	const struct tract_wakeup_key *k = key;
	struct tract_wakeup_val v;

	memcpy(&v, value, sizeof(v));
	add_edge(ctx, k->waker_tgid, k->wakee_tgid, v.wakee_comm, v.count, v.runq_ns, v.blocked_ns);
}

static void take_edge_total(void *ctx, uint64_t key, const uint64_t *grown, const void *entry)
{
	const struct tract_edge_total *e = entry;

	add_edge(ctx, (uint32_t)(key >> 32), (uint32_t)key, e->wakee_comm, grown[0], grown[1], grown[2]);
}

struct pass_sums *pass_sums__open(const struct pass_sums_maps *maps, const struct resolvers *res)
{
	struct pass_sums *ps = xcalloc(1, sizeof(*ps));

	ps->maps = *maps;
	ps->res = *res;
	ps->io_news.added = maps->io_added;
	ps->sc_news.added = maps->sc_added;
	ps->runq_news.added = maps->runq_added;
	ps->edges_news.added = maps->edges_added;
	ps->rows = dict__new();
	ps->short_lived = dict__new();
	if (maps->exits >= 0 && !(ps->exits = exits__open(maps->exits)))
		goto fail;
	if (maps->sc_totals >= 0) {
		ps->sc_totals = running_totals__open(maps->sc_totals, maps->cpus * TRACT_SC_WAYS,
						     sizeof(struct tract_sc_total),
						     offsetof(struct tract_sc_total, bucket) / sizeof(uint64_t),
						     2 * TRACT_SC_BUCKETS, "syscall latency totals");
		if (!ps->sc_totals)
			goto fail;
	}
	if (maps->edge_totals >= 0) {
		ps->edge_totals = running_totals__open(maps->edge_totals, maps->cpus * TRACT_EDGE_WAYS,
						       sizeof(struct tract_edge_total),
						       offsetof(struct tract_edge_total, count) / sizeof(uint64_t), 3,
						       "wakeup edge totals");
		if (!ps->edge_totals)
			goto fail;
	}
	return ps;
fail:
	pass_sums__free(ps);
	return NULL;
}

void pass_sums__free(struct pass_sums *ps)
{
	if (!ps)
		return;
	running_totals__free(ps->sc_totals);
	running_totals__free(ps->edge_totals);
	exits__free(ps->exits);
	free(ps->sc.rows);
	free(ps->runq.rows);
	free(ps->edges.rows);
	dict__free(ps->short_lived);
	dict__free(ps->rows);
	hist_hold__free(&ps->sc_held);
	free(ps);
}

static void drain(struct pass_sums *ps, int fd, size_t key_size, size_t value_size, struct map_news *news,
		  map_take_fn take)
{
	if (fd >= 0)
		map_drain(fd, key_size, value_size, news, take, ps);
}

/* The times were summed in ns, and are kept in µs. */
static void hist_to_us(struct hist_rows *rows)
{
	for (size_t i = 0; i < rows->nr; i++)
		rows->rows[i].sum_us /= 1000;
}

static uint64_t boot_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_BOOTTIME, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/*
 * What ended since the last take: its name for its rows, and whether it
 * lived within this take (its rows then go under its command's).
 */
static void take_ends(struct pass_sums *ps)
{
	const struct tract_exit *e;
	uint64_t last_take = ps->last_take_ns;
	size_t n;
	int added;

	dict__clear(ps->short_lived);
	ps->last_take_ns = boot_ns();
	if (!ps->exits)
		return;
	exits__clear(ps->exits);
	exits__drain(ps->exits);
	e = exits__list(ps->exits, &n);
	for (size_t i = 0; i < n; i++) {
		procinfo__saw(ps->res.procs, e[i].tgid, e[i].comm);
		/* its whole life in this take: no rows of its own in an earlier one to split from */
		if (e[i].start_ns >= last_take)
			dict__intern(ps->short_lived, &e[i].tgid, sizeof(e[i].tgid), &added);
	}
}

/* A name for every row's process: the one it had when it ended, or GONE_NAME. */
static const char *name_of(struct pass_sums *ps, uint32_t tgid)
{
	const char *name = procinfo__name(ps->res.procs, tgid);

	return name ? name : procinfo__intern(ps->res.procs, GONE_NAME);
}

static void name_rows(struct pass_sums *ps)
{
	for (size_t i = 0; i < ps->sc.nr; i++)
		if (!ps->sc.rows[i].name)
			ps->sc.rows[i].name = name_of(ps, ps->sc.rows[i].tgid);
	for (size_t i = 0; i < ps->runq.nr; i++)
		if (!ps->runq.rows[i].name)
			ps->runq.rows[i].name = name_of(ps, ps->runq.rows[i].tgid);
	for (size_t i = 0; i < ps->edges.nr; i++) {
		struct wakeup_row *w = &ps->edges.rows[i];

		if (!w->waker)
			w->waker = name_of(ps, w->waker_tgid);
		if (!w->wakee)
			w->wakee = name_of(ps, w->wakee_tgid);
	}
}

/* The folded rows, into the pass. */
static void hand_over(struct pass_sums *ps, struct pass *p)
{
	for (size_t i = 0; i < ps->sc.nr; i++)
		*hist_rows__add(&p->sc_hist) = ps->sc.rows[i];
	for (size_t i = 0; i < ps->runq.nr; i++)
		*hist_rows__add(&p->runq_hist) = ps->runq.rows[i];
	for (size_t i = 0; i < ps->edges.nr; i++)
		*wakeup_rows__add(&p->wakeups) = ps->edges.rows[i];
}

const struct tract_exit *pass_sums__ended(const struct pass_sums *ps, size_t *n)
{
	if (!ps->exits) {
		*n = 0;
		return NULL;
	}
	return exits__list(ps->exits, n);
}

static const char *keep_in_pass(void *pass, const char *s)
{
	return pass__keep_str(pass, s);
}

void pass_sums__take(struct pass_sums *ps, struct pass *p)
{
	ps->p = p;
	ps->sc.nr = ps->runq.nr = ps->edges.nr = 0;
	dict__clear(ps->rows);
	drain(ps, ps->maps.io_hist, sizeof(struct tract_io_hist_key), sizeof(struct tract_hist_val), &ps->io_news,
	      take_io);
	if (ps->sc_totals)
		running_totals__read(ps->sc_totals, take_sc_total, ps);
	drain(ps, ps->maps.sc_hist, sizeof(struct tract_sc_hist_key), sizeof(struct tract_hist_val), &ps->sc_news,
	      take_syscall);
	drain(ps, ps->maps.runq_hist, sizeof(struct tract_runq_hist_key), sizeof(struct tract_hist_val),
	      &ps->runq_news, take_runq);
	if (ps->edge_totals)
		running_totals__read(ps->edge_totals, take_edge_total, ps);
	drain(ps, ps->maps.edges, sizeof(struct tract_wakeup_key), sizeof(struct tract_wakeup_val), &ps->edges_news,
	      take_edge);
	/* after the maps: a process whose rows were read has ended, if at all, before this */
	take_ends(ps);
	name_rows(ps);
	hist_rows__fold(&ps->sc, &pass_tables[PT_syscall_latency], ps->short_lived, SC_ROWS_BUDGET);
	/* the commands' rows stored every HIST_HOLD_NS, and with the last pass: what they hold is not lost */
	hist_hold__take(&ps->sc_held, &pass_tables[PT_syscall_latency], &ps->sc, ps->last_take_ns);
	if (p->stop || hist_hold__due(&ps->sc_held, ps->last_take_ns))
		hist_hold__release(&ps->sc_held, &ps->sc, keep_in_pass, p);
	hist_rows__fold(&ps->runq, &pass_tables[PT_runq_latency], ps->short_lived, RUNQ_ROWS_BUDGET);
	wakeup_rows__fold(&ps->edges, ps->short_lived, EDGE_ROWS_BUDGET);
	hand_over(ps, p);
	hist_to_us(&p->io_hist);
	hist_to_us(&p->sc_hist);
	hist_to_us(&p->runq_hist);
	for (size_t i = 0; i < p->wakeups.nr; i++) {
		p->wakeups.rows[i].runq_us /= 1000;
		p->wakeups.rows[i].blocked_us /= 1000;
	}
	ps->p = NULL;
}
