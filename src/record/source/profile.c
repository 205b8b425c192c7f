// SPDX-License-Identifier: GPL-2.0-only
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <linux/perf_event.h>
#include <sys/syscall.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "dict.h"
#include "map_drain.h"
#include "profile.h"
#include "stackdict.h"
#include "tract/abi.h"
#include "util.h"

/* What a tick from the ring is counted by. */
struct tick_key {
	uint32_t tid, tgid;
	const struct kstack *kstack, *ustack;
};

struct profile {
	struct bpf_link **links;
	int *events;
	int ncpus;
	int stacks_fd, counts_fd;
	volatile uint32_t *gen;		/* the BPF side's profile_gen */
	struct map_news news;		/* the ticks since the tables were last emptied */
	struct stackdict *sd;
	struct ring_buffer *ring;	/* NULL: every tick is in counts */
	/* this pass's ring ticks: counted by tick_key, and each one's user stack by serial */
	struct dict *counted;
	struct profile_rows pending;
	struct dict *by_serial;
	/* this pass's stack ids, symbolized once each: [id][user] */
	const struct kstack *cache[TRACT_PROFILE_STACKS][2];
	uint8_t cached[TRACT_PROFILE_STACKS][2];
};

static int open_event(int cpu, double hz)
{
	struct perf_event_attr attr = {
		.type = PERF_TYPE_SOFTWARE,
		.config = PERF_COUNT_SW_CPU_CLOCK,
		.size = sizeof(attr),
		.freq = 1,
		.sample_freq = (uint64_t)(hz + 0.5) ? (uint64_t)(hz + 0.5) : 1,
	};

	return (int)syscall(SYS_perf_event_open, &attr, -1, cpu, -1, PERF_FLAG_FD_CLOEXEC);
}

static int take_tick(void *ctx, void *data, size_t size);

struct profile *profile__open(struct bpf_program *prog, const struct profile_maps *maps,
			      struct stackdict *sd, double hz)
{
	struct profile *pr = xcalloc(1, sizeof(*pr));
	int ncpus = libbpf_num_possible_cpus(), err = 0;

	pr->gen = maps->gen;
	pr->news.added = maps->added;
	pr->stacks_fd = maps->stacks_fd;
	pr->counts_fd = maps->counts_fd;
	pr->sd = sd;
	pr->counted = dict__new();
	pr->by_serial = dict__new();
	if (maps->ring_fd >= 0) {
		pr->ring = ring_buffer__new(maps->ring_fd, take_tick, pr, NULL);
		if (!pr->ring)
			err = -errno;
	}
	pr->ncpus = ncpus > 0 ? ncpus : 1;
	pr->links = xcalloc((size_t)pr->ncpus, sizeof(*pr->links));
	pr->events = xcalloc((size_t)pr->ncpus, sizeof(*pr->events));
	for (int cpu = 0; cpu < pr->ncpus && !err; cpu++) {
		pr->events[cpu] = open_event(cpu, hz);
		/* a possible CPU that is offline has no event: it runs nothing to profile */
		if (pr->events[cpu] < 0 && errno == ENODEV)
			continue;
		if (pr->events[cpu] < 0) {
			err = -errno;
			break;
		}
		pr->links[cpu] = bpf_program__attach_perf_event(prog, pr->events[cpu]);
		if (!pr->links[cpu])
			err = -errno;
	}
	if (err) {
		tract_warn("cannot start the on-CPU profile (%s); recording without it", strerror(-err));
		profile__free(pr);
		return NULL;
	}
	return pr;
}

void profile__free(struct profile *pr)
{
	if (!pr)
		return;
	for (int cpu = 0; cpu < pr->ncpus; cpu++) {
		bpf_link__destroy(pr->links[cpu]);
		if (pr->events[cpu] > 0)
			close(pr->events[cpu]);
	}
	free(pr->links);
	free(pr->events);
	ring_buffer__free(pr->ring);
	dict__free(pr->counted);
	dict__free(pr->by_serial);
	free(pr->pending.rows);
	free(pr);
}

const struct kstack *profile__stack(struct profile *pr, struct stackdict *sd, int32_t id, uint32_t tgid, int user)
{
	uint64_t ip[TRACT_KSTACK_MAX] = { 0 };
	const struct kstack *k = NULL;
	uint32_t key = (uint32_t)id, n = 0;

	if (!pr || id < 0 || id >= TRACT_PROFILE_STACKS)
		return NULL;
	if (pr->cached[id][user])
		return pr->cache[id][user];
	if (!bpf_map_lookup_elem(pr->stacks_fd, &key, ip)) {
		while (n < TRACT_KSTACK_MAX && ip[n])
			n++;
		/* the dictionary's key: the frames, and for a user stack its process */
		if (n) {
			uint64_t raw = hash_bytes(ip, n * sizeof(ip[0]), user ? 0x75736572ull ^ tgid : 0x6b65726eull) &
				       ~TRACT_COPY_ID;

			/* the kernel's walk says nothing of where it stopped: the frames tell */
			k = user ? stackdict__add_user(sd, raw, tgid, ip, n, -1) : stackdict__add(sd, raw, ip, n);
		}
	}
	pr->cache[id][user] = k;
	pr->cached[id][user] = 1;
	return k;
}

/* Ticks of a thread and its stacks, added to their row of the ticks not yet taken. */
static void count_ticks(struct profile *pr, const struct tick_key *key, const char *comm, const char *pcomm,
			uint64_t ticks)
{
	int added;
	uint32_t id = dict__intern(pr->counted, key, sizeof(*key), &added);

	if (added) {
		struct profile_row *r = profile_rows__add(&pr->pending);

		*r = (struct profile_row){ .tid = key->tid, .tgid = key->tgid, .kstack = key->kstack,
					   .ustack = key->ustack };
		memcpy(r->comm, comm, sizeof(r->comm));
		memcpy(r->pcomm, pcomm, sizeof(r->pcomm));
		r->comm[TRACT_COMM_LEN - 1] = r->pcomm[TRACT_COMM_LEN - 1] = '\0';
		*dict__value(pr->counted, id) = pr->pending.nr - 1;
	}
	pr->pending.rows[*dict__value(pr->counted, id)].ticks += ticks;
}

/*
 * One tick from the ring: its user stack unwound from the bytes, counted
 * with the others of the same thread and stacks.  Its kernel stack id holds
 * only in the generation it was taken in: one taken as the tables were
 * being emptied keeps no kernel stack.
 */
static int take_tick(void *ctx, void *data, size_t size)
{
	struct profile *pr = ctx;
	struct tract_tick t;
	struct tick_key key = { 0 };
	uint32_t id;
	int added;

	if (size < sizeof(t))
		return 0;
	memcpy(&t, data, sizeof(t));
	if (t.ustack.len > size - sizeof(t))
		return 0;
	key.tid = t.tid;
	key.tgid = t.tgid;
	key.ustack = stackdict__add_user_copy(pr->sd, &t.ustack, (const char *)data + sizeof(t));
	if (t.gen == *pr->gen)
		key.kstack = profile__stack(pr, pr->sd, t.kstack, t.tgid, 0);
	id = dict__intern(pr->by_serial, &t.serial, sizeof(t.serial), &added);
	*dict__value(pr->by_serial, id) = (uintptr_t)key.ustack;
	count_ticks(pr, &key, t.comm, t.pcomm, 1);
	return 0;
}

const struct kstack *profile__tick_ustack(struct profile *pr, uint64_t serial)
{
	uint32_t id;

	if (!pr || !pr->ring || !serial)
		return NULL;
	id = dict__find(pr->by_serial, &serial, sizeof(serial));
	if (!id) {
		/* a tick since the ring was last read */
		ring_buffer__consume(pr->ring);
		id = dict__find(pr->by_serial, &serial, sizeof(serial));
	}
	return id ? (const struct kstack *)(uintptr_t)*dict__value(pr->by_serial, id) : NULL;
}

static void add_count(void *ctx, const void *k, const void *v)
{
	const struct tract_profile_key *key = k;
	const struct tract_profile_val *val = v;
	struct profile *pr = ctx;
	struct tick_key tk = { .tid = key->tid, .tgid = key->tgid };

	tk.kstack = profile__stack(pr, pr->sd, key->kstack, key->tgid, 0);
	tk.ustack = profile__stack(pr, pr->sd, key->ustack, key->tgid, 1);
	count_ticks(pr, &tk, val->comm, val->pcomm, val->ticks);
}

void profile__drain(struct profile *pr)
{
	__u64 added;
	uint32_t id;

	if (!pr)
		return;
	if (pr->ring) {
		ring_buffer__consume(pr->ring);
		dict__clear(pr->by_serial);
	}
	/* no tick since the tables were last emptied: they are empty */
	if (!map_news__any(&pr->news, &added))
		return;
	/* the counts, in batches of hundreds */
	map_drain(pr->counts_fd, sizeof(struct tract_profile_key), sizeof(struct tract_profile_val), NULL, add_count,
		  pr);
	/*
	 * The stacks too, so that the table never fills: the next pass's ticks
	 * bring theirs.  A thread's latest tick from before the generation moves
	 * on names ids that may be gone or reused by then: the sampler ignores it.
	 */
	while (!bpf_map_get_next_key(pr->stacks_fd, NULL, &id))
		if (bpf_map_delete_elem(pr->stacks_fd, &id))
			break;
	(*pr->gen)++;
	memset(pr->cached, 0, sizeof(pr->cached));
	map_news__taken(&pr->news, added);
}

void profile__take(struct profile *pr, struct pass *p)
{
	if (!pr)
		return;
	for (size_t i = 0; i < pr->pending.nr; i++)
		*profile_rows__add(&p->profile) = pr->pending.rows[i];
	pr->pending.nr = 0;
	dict__clear(pr->counted);
}
