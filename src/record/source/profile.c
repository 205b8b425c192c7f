// SPDX-License-Identifier: GPL-2.0-only
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <linux/perf_event.h>
#include <sys/syscall.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "profile.h"
#include "stackdict.h"
#include "tract/abi.h"
#include "util.h"

struct profile {
	struct bpf_link **links;
	int *events;
	int ncpus;
	int stacks_fd, counts_fd;
	volatile uint32_t *gen;		/* the BPF side's profile_gen */
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

struct profile *profile__open(struct bpf_program *prog, int stacks_fd, int counts_fd, uint32_t *gen, double hz)
{
	struct profile *pr = xcalloc(1, sizeof(*pr));
	int ncpus = libbpf_num_possible_cpus(), err = 0;

	pr->gen = gen;
	pr->stacks_fd = stacks_fd;
	pr->counts_fd = counts_fd;
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
			uint64_t raw = hash_bytes(ip, n * sizeof(ip[0]), user ? 0x75736572ull ^ tgid : 0x6b65726eull);

			/* the kernel's walk says nothing of where it stopped */
			k = user ? stackdict__add_user(sd, raw, tgid, ip, n, 0) : stackdict__add(sd, raw, ip, n);
		}
	}
	pr->cache[id][user] = k;
	pr->cached[id][user] = 1;
	return k;
}

void profile__drain(struct profile *pr, struct stackdict *sd, struct pass *p)
{
	struct tract_profile_key key;
	struct tract_profile_val val;
	uint32_t id;

	if (!pr)
		return;
	/*
	 * Each count is taken and deleted at once, from the first key again
	 * each time (a deleted key would end a walk): a tick in between lands
	 * in a new entry, taken here or in the next pass.
	 */
	while (!bpf_map_get_next_key(pr->counts_fd, NULL, &key)) {
		struct profile_row *r;

		if (bpf_map_lookup_and_delete_elem(pr->counts_fd, &key, &val)) {
			bpf_map_delete_elem(pr->counts_fd, &key);
			continue;
		}
		r = profile_rows__add(&p->profile);
		*r = (struct profile_row){ .tid = key.tid, .tgid = key.tgid, .ticks = val.ticks };
		memcpy(r->comm, val.comm, sizeof(r->comm));
		memcpy(r->pcomm, val.pcomm, sizeof(r->pcomm));
		r->comm[TRACT_COMM_LEN - 1] = r->pcomm[TRACT_COMM_LEN - 1] = '\0';
		r->kstack = profile__stack(pr, sd, key.kstack, key.tgid, 0);
		r->ustack = profile__stack(pr, sd, key.ustack, key.tgid, 1);
	}
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
}
