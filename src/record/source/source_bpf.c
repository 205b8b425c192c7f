// SPDX-License-Identifier: GPL-2.0-only
/*
 * The BPF source: loads the tracking programs and the task iterator, and
 * turns one read of the iterator into one pass.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "blockdev.h"
#include "clock.h"
#include "cgroups.h"
#include "files.h"
#include "observer.h"
#include "procinfo.h"
#include "profile.h"
#include "runq.h"
#include "sampler.h"
#include "stackdict.h"
#include "syscalls.h"
#include "tract.skel.h"
#include "util.h"

struct source_bpf {
	struct sampler base;
	struct tract_bpf *skel;
	struct resolvers res;
	int syscall_latency;
	int wakeup_edges;
	int runq_latency;
	struct profile *profile;	/* NULL: no on-CPU profile */
	unsigned char *buf;
	size_t buf_cap;
	uint64_t kstack_errors_seen;
	int schedstat_fd;	/* the sampling thread's own sched_info, -1 if unreadable */
	uint64_t outside_ns[TRACT_CPUS_MAX];	/* see observer__resolve() */
};

__attribute__((format(printf, 2, 0)))
static int libbpf_print(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	if (level == LIBBPF_DEBUG || !tract_verbose)
		return 0;
	return vfprintf(stderr, fmt, ap);
}

/* Whether the running kernel is older than major.minor (unknown: no). */
static int kernel_before(int want_major, int want_minor)
{
	struct utsname u;
	int major = 0, minor = 0;

	if (uname(&u) || sscanf(u.release, "%d.%d", &major, &minor) != 2)
		return 0;
	return major < want_major || (major == want_major && minor < want_minor);
}

/* One line saying what is missing and what to do, as tract(8) promises. */
static int check_environment(void)
{
	struct utsname u;

	if (geteuid() != 0) {
		tract_err("recording needs root to load BPF programs; run 'sudo tract record'");
		return -EPERM;
	}
	if (access("/sys/kernel/btf/vmlinux", R_OK)) {
		tract_err("this kernel has no BTF (/sys/kernel/btf/vmlinux); use a kernel built with CONFIG_DEBUG_INFO_BTF=y");
		return -ENOTSUP;
	}
	/* tract needs bpf_task_pt_regs() and sleepable task iterators */
	if (kernel_before(5, 15) && !uname(&u)) {
		tract_err("kernel %s is too old; tract needs Linux 5.15 or newer", u.release);
		return -ENOTSUP;
	}
	return 0;
}

/* "irq" or "timer" for a wakeup no thread ran, else NULL */
static const char *waker_label(uint32_t waker)
{
	if (waker == TRACT_WAKER_IRQ)
		return "irq";
	if (waker == TRACT_WAKER_TIMER)
		return "timer";
	return NULL;
}

static void fill_row(struct source_bpf *sb, struct sample *row, const struct tract_sample *s)
{
	row->tid = s->tid;
	row->tgid = s->tgid;
	row->uid = s->uid;
	row->cpu = s->cpu;
	row->state = s->state < TRACT_STATE__COUNT ? s->state : TRACT_STATE_SLEEP;
	row->flags = s->flags;
	row->syscall_nr = (s->flags & TRACT_SF_IN_SYSCALL) ? s->syscall_nr : -1;
	row->waker_tid = s->waker_tid;
	if (s->flags & TRACT_SF_WAKER) {
		row->waker = waker_label(s->waker_tid);
		if (row->waker)
			row->flags &= ~TRACT_SF_WAKER;	/* no thread to name */
		else
			row->waker = procinfo__name(sb->res.procs, s->waker_tid);
	}
	row->wake_us = s->wake_ns / 1000;
	row->wake_runq_us = s->wake_runq_ns / 1000;
	row->sc_us = s->sc_ns / 1000;
	row->state_us = s->state_ns / 1000;
	memcpy(row->sc_args, s->sc_args, sizeof(row->sc_args));
	memcpy(row->comm, s->comm, sizeof(row->comm));
	memcpy(row->pcomm, s->pcomm, sizeof(row->pcomm));
	row->comm[TRACT_COMM_LEN - 1] = row->pcomm[TRACT_COMM_LEN - 1] = '\0';
	if (!(s->flags & TRACT_SF_KTHREAD))
		row->exe = procinfo__exe(sb->res.procs, s->tgid, s->proc_start_ns, row->pcomm);
	if (s->kstack_hash)
		row->kstack = stackdict__get(sb->res.stacks, s->kstack_hash);
	if (s->ustack_hash)
		row->ustack = stackdict__get(sb->res.stacks, s->ustack_hash);
	/* a thread on its CPU: the stacks of its latest profile tick, this interval's */
	if (row->state == TRACT_STATE_RUN && !row->kstack && !row->ustack) {
		row->kstack = profile__stack(sb->profile, sb->res.stacks, s->prof_kstack, s->tgid, 0);
		row->ustack = profile__stack(sb->profile, sb->res.stacks, s->prof_ustack, s->tgid, 1);
	}
	row->cgroup_id = s->cgroup_id;
	row->cgroup = cgroups__path(sb->res.cgroups, s->cgroup_id);
	row->run_delay_ns = s->run_delay_ns;
	row->run_count = s->run_count;
	row->arrival_ns = s->arrival_ns;
	row->start_state = s->start_state < TRACT_STATE__COUNT ? s->start_state : TRACT_STATE_RUNQ;
	if (s->flags & TRACT_SF_IO) {
		row->io_dev = blockdevs__name(sb->res.blockdevs, s->io_dev);
		row->io_op = block_op_name(s->io_op);
		row->io_bytes = s->io_bytes;
		row->io_us = s->io_ns / 1000;
		row->io_service_us = s->io_service_ns / 1000;
	}
	if (s->flags & TRACT_SF_FD)
		row->file = files__name(sb->res.files, s->tgid, s->sc_args[0], s->fd_ino);
}

/*
 * A kernel or user stack record: the bytes it takes, 0 when it is not all in
 * buf yet, -1 when it is corrupt.  Frames are 8-byte aligned in the stream:
 * every record is a multiple of 8 bytes.
 */
static size_t parse_stack(struct source_bpf *sb, uint32_t kind, const unsigned char *rec, size_t len)
{
	int user = kind == TRACT_REC_USTACK;
	size_t hdr_size = user ? sizeof(struct tract_ustack) : sizeof(struct tract_kstack);
	uint32_t max = user ? TRACT_USTACK_MAX : TRACT_KSTACK_MAX;
	struct tract_ustack h = { 0 };
	size_t need;

	if (len < hdr_size)
		return 0;
	memcpy(&h, rec, hdr_size);
	if (h.nr_frames > max) {
		tract_err("corrupt stack record from the sampler (%u frames)", h.nr_frames);
		return (size_t)-1;
	}
	need = hdr_size + h.nr_frames * sizeof(uint64_t);
	if (len < need)
		return 0;
	if (user)
		stackdict__add_user(sb->res.stacks, h.hash, h.tgid, (const uint64_t *)(rec + hdr_size),
				    h.nr_frames, h.cut);
	else
		stackdict__add(sb->res.stacks, h.hash, (const uint64_t *)(rec + hdr_size), h.nr_frames);
	return need;
}

/*
 * Parse whole records from buf; returns the bytes consumed.  A record this
 * tract does not understand ends the pass's parsing and counts as a drop.
 */
static size_t parse_records(struct source_bpf *sb, struct pass *p, const unsigned char *buf, size_t len)
{
	size_t off = 0;

	while (len - off >= sizeof(uint32_t)) {
		uint32_t kind;

		memcpy(&kind, buf + off, sizeof(kind));
		if (kind == TRACT_REC_SAMPLE) {
			struct tract_sample s;

			if (len - off < sizeof(s))
				break;
			memcpy(&s, buf + off, sizeof(s));
			fill_row(sb, pass__add_row(p), &s);
			off += sizeof(s);
		} else if (kind == TRACT_REC_KSTACK || kind == TRACT_REC_USTACK) {
			size_t used = parse_stack(sb, kind, buf + off, len - off);

			if (used == (size_t)-1) {
				p->dropped++;
				return len;
			}
			if (!used)
				break;
			off += used;
		} else {
			tract_err("unknown record kind %u from the sampler", kind);
			p->dropped++;
			return len;
		}
	}
	return off;
}

/* Per CPU, from the BPF side: when a thread not sampled had it as the pass began. */
static void note_outside(struct source_bpf *sb)
{
	const struct tract_bpf__bss *bss = sb->skel->bss;

	for (size_t cpu = 0; cpu < TRACT_CPUS_MAX; cpu++) {
		uint64_t at = bss->outside_arrival[cpu];

		sb->outside_ns[cpu] = bss->outside_pass[cpu] == bss->pass_seq && at && at < bss->pass_now ?
				      bss->pass_now - at : 0;
	}
}

/* After the observer's effect is taken out: what tract displaced waited for it. */
static void take_runq_delays(struct source_bpf *sb, struct pass *p)
{
	for (size_t i = 0; i < p->nr; i++) {
		struct sample *row = &p->rows[i];

		if (!runq_history__update(sb->res.runq, row->tid, row->run_delay_ns, row->run_count,
					  (row->flags & TRACT_SF_PREEMPTED) && (row->flags & TRACT_SF_DISPLACED),
					  &row->runq_us)) {
			row->runq_us /= 1000;
			row->has_runq = 1;
		}
	}
}

/* Turns one drained map entry into a row of the pass. */
typedef void (*take_fn)(struct source_bpf *sb, const void *key, const void *value, struct pass *p);

/*
 * Take what a kernel map summed over the interval and empty it, a batch at a
 * time, not a get_next_key and a delete per key.  Keys are 8 bytes.
 */
static void drain_map(struct source_bpf *sb, struct bpf_map *map, size_t value_size, take_fn take,
		      struct pass *p)
{
	enum { BATCH = 256 };
	__u64 keys[BATCH];
	_Alignas(8) unsigned char values[BATCH * sizeof(struct tract_wakeup_val)];
	int fd = bpf_map__fd(map), first = 1;
	LIBBPF_OPTS(bpf_map_batch_opts, opts);
	__u64 batch = 0;

	if (value_size > sizeof(values) / BATCH)
		return;
	for (;;) {
		__u32 n = BATCH;
		int err = bpf_map_lookup_and_delete_batch(fd, first ? NULL : &batch, &batch, keys, values,
							  &n, &opts);

		first = 0;
		for (__u32 i = 0; i < n; i++)
			take(sb, &keys[i], values + i * value_size, p);
		if (err)
			break;	/* ENOENT: all read */
	}
}

/* A histogram bucket: its bound, completions and their summed latency. */
static void fill_hist(struct hist_row *h, unsigned int bucket, const void *value)
{
	struct tract_hist_val v;

	memcpy(&v, value, sizeof(v));
	h->le_us = 1ull << bucket;
	h->count = v.count;
	h->sum_us = v.sum_ns / 1000;
}

static void take_io(struct source_bpf *sb, const void *key, const void *value, struct pass *p)
{
	const struct tract_io_hist_key *k = key;
	struct hist_row *h = hist_rows__add(&p->io_hist);

	h->name = blockdevs__name(sb->res.blockdevs, k->dev);
	h->what = block_op_name(k->op);
	fill_hist(h, k->bucket, value);
}

static void take_syscall(struct source_bpf *sb, const void *key, const void *value, struct pass *p)
{
	const struct tract_sc_hist_key *k = key;
	struct hist_row *h = hist_rows__add(&p->sc_hist);

	h->tgid = k->tgid;
	h->name = procinfo__name(sb->res.procs, k->tgid);
	h->what = syscall_name(k->nr);
	fill_hist(h, k->bucket, value);
}

static void take_runq(struct source_bpf *sb, const void *key, const void *value, struct pass *p)
{
	const struct tract_runq_hist_key *k = key;
	struct hist_row *h = hist_rows__add(&p->runq_hist);

	h->tgid = k->tgid;
	h->name = procinfo__name(sb->res.procs, k->tgid);
	fill_hist(h, k->bucket, value);
}

static void take_wakeup(struct source_bpf *sb, const void *key, const void *value, struct pass *p)
{
	const struct tract_wakeup_key *k = key;
	struct wakeup_row *w = wakeup_rows__add(&p->wakeups);
	struct tract_wakeup_val v;
	char comm[TRACT_COMM_LEN + 1] = "";

	memcpy(&v, value, sizeof(v));
	memcpy(comm, v.wakee_comm, TRACT_COMM_LEN);
	w->waker = waker_label(k->waker_tgid);
	if (!w->waker) {
		w->waker_tgid = k->waker_tgid;
		w->waker = procinfo__name(sb->res.procs, k->waker_tgid);
	}
	w->wakee_tgid = k->wakee_tgid;
	w->wakee = procinfo__intern(sb->res.procs, comm);
	w->count = v.count;
	w->runq_us = v.runq_ns / 1000;
	w->blocked_us = v.blocked_ns / 1000;
}

/* Counts lost to full kernel maps, in all */
static uint64_t maps_full(const struct tract_bpf__bss *bss)
{
	return bss->io_hist_full + bss->sc_hist_full + bss->runq_hist_full + bss->wakeup_edges_full;
}

static int bpf_pass(struct sampler *base, struct pass *p)
{
	struct source_bpf *sb = (struct source_bpf *)base;
	struct tract_bpf__bss *bss = sb->skel->bss;
	uint64_t visited0 = bss->threads_visited, selected0 = bss->threads_selected, lost0 = maps_full(bss);
	uint64_t t0 = mono_ns();
	size_t have = 0;
	int fd, err = 0;

	fd = bpf_iter_create(bpf_link__fd(sb->skel->links.tract_sample_pass));
	if (fd < 0) {
		err = -errno;
		tract_err("cannot start the sampler pass: %s", strerror(-err));
		return err;
	}
	procinfo__trim(sb->res.procs);
	stackdict__end_pass(sb->res.stacks);
	cgroups__new_pass(sb->res.cgroups);
	files__new_pass(sb->res.files);
	for (;;) {
		ssize_t n;
		size_t used;

		if (sb->buf_cap - have < 65536) {
			sb->buf_cap *= 2;
			sb->buf = xrealloc(sb->buf, sb->buf_cap);
		}
		n = read(fd, sb->buf + have, sb->buf_cap - have);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			err = -errno;
			tract_err("cannot read the sampler pass: %s", strerror(-err));
			break;
		}
		if (n == 0)
			break;
		have += n;
		used = parse_records(sb, p, sb->buf, have);
		memmove(sb->buf, sb->buf + used, have - used);
		have -= used;
	}
	close(fd);
	if (!err && have) {
		tract_warn("sampler pass ended inside a record (%zu bytes left)", have);
		p->dropped++;
	}
	p->visited = bss->threads_visited - visited0;
	p->selected = bss->threads_selected - selected0;
	p->moment_read = bss->at_moment;
	if (p->moment_read) {
		p->displaced = observer__at_moment(p, bss->moment_tid, sb->skel->rodata->nr_cpus);
	} else {
		note_outside(sb);
		p->displaced = observer__resolve(p, sb->outside_ns, TRACT_CPUS_MAX);
	}
	/* this pass's cost stands for the waits of the threads it preempted */
	runq_history__pass_ns(sb->res.runq, mono_ns() - t0);
	take_runq_delays(sb, p);
	p->hist_lost = maps_full(bss) - lost0;
	if (!err) {
		drain_map(sb, sb->skel->maps.io_hist, sizeof(struct tract_hist_val), take_io, p);
		if (sb->syscall_latency)
			drain_map(sb, sb->skel->maps.sc_hist, sizeof(struct tract_hist_val), take_syscall, p);
		if (sb->runq_latency)
			drain_map(sb, sb->skel->maps.runq_hist, sizeof(struct tract_hist_val), take_runq, p);
		if (sb->wakeup_edges)
			drain_map(sb, sb->skel->maps.wakeup_edges_map, sizeof(struct tract_wakeup_val),
				  take_wakeup, p);
	}
	profile__drain(sb->profile, sb->res.stacks, p);
	if (bss->kstack_errors != sb->kstack_errors_seen) {
		tract_debug("%llu kernel stacks could not be taken",
			    (unsigned long long)(bss->kstack_errors - sb->kstack_errors_seen));
		sb->kstack_errors_seen = bss->kstack_errors;
	}
	return err;
}

/*
 * The sampler's figures as it goes to sleep: from them and their values at
 * the next pass, the BPF side learns when the sampler woke (tract.bpf.c, "A
 * pass is a snapshot").  /proc/thread-self/schedstat holds its run_delay
 * and pcount; its time on a CPU there is as of its last accounting, where
 * CLOCK_THREAD_CPUTIME_ID brings it up to date, so that is read last.
 */
static void bpf_rest(struct sampler *base)
{
	struct source_bpf *sb = (struct source_bpf *)base;
	unsigned long long run, delay, count;
	struct timespec ts;
	char buf[96];
	ssize_t n;

	sb->skel->bss->rest_pcount = 0;
	if (sb->schedstat_fd < 0)
		return;
	n = pread(sb->schedstat_fd, buf, sizeof(buf) - 1, 0);
	if (n <= 0)
		return;
	buf[n] = '\0';
	if (sscanf(buf, "%llu %llu %llu", &run, &delay, &count) != 3 ||
	    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts))
		return;
	run = (unsigned long long)ts.tv_sec * NSEC_PER_SEC + (unsigned long long)ts.tv_nsec;
	sb->skel->bss->rest_run_ns = run;
	sb->skel->bss->rest_run_delay = delay;
	sb->skel->bss->rest_pcount = count;
}

static void bpf_free(struct sampler *base)
{
	struct source_bpf *sb = (struct source_bpf *)base;

	if (sb->schedstat_fd >= 0)
		close(sb->schedstat_fd);
	profile__free(sb->profile);
	tract_bpf__destroy(sb->skel);
	free(sb->buf);
	free(sb);
}

static const struct sampler_ops bpf_ops = {
	.name = "bpf",
	.pass = bpf_pass,
	.rest = bpf_rest,
	.free = bpf_free,
};

/*
 * One slot per possible tid, up to 2^19 slots (20 MiB in all); beyond that
 * tids share slots and a sharing thread's syscall time, waker and cached stack
 * read as unknown.
 */
#define SLOTS_MAX (1u << 19)

static uint32_t slot_count(void)
{
	unsigned long pid_max = 1u << 22;
	uint32_t n = 1024;
	FILE *f = fopen("/proc/sys/kernel/pid_max", "re");

	if (f) {
		if (fscanf(f, "%lu", &pid_max) != 1)
			pid_max = 1u << 22;
		fclose(f);
	}
	while (n < pid_max && n < SLOTS_MAX)
		n <<= 1;
	return n;
}

/* The CPUs whose runners a pass's moment reads (moment.bpf.h). */
static uint32_t possible_cpus(void)
{
	int n = libbpf_num_possible_cpus();

	return n < 1 ? 1 : n > TRACT_CPUS_MAX ? TRACT_CPUS_MAX : (uint32_t)n;
}

static int configure(struct tract_bpf *skel, const struct sampler_config *cfg)
{
	struct tract_bpf__rodata *ro = skel->rodata;
	uint32_t slots = slot_count();

	ro->self_tgid = getpid();
	ro->all_threads = cfg->all_threads;
	ro->take_kstacks = cfg->kstacks;
	ro->take_ustacks = cfg->ustacks;
	/*
	 * bpf_copy_from_user_task() came in 5.18; with the flag constant the
	 * verifier never reaches the call, so the sampler still loads.
	 */
	if (cfg->ustacks && kernel_before(5, 18)) {
		static int said;

		ro->take_ustacks = 0;
		if (!said++)
			tract_warn("user stacks need Linux 5.18 or newer; recording without them");
	}
	ro->idle_grace_ns = cfg->idle_grace_ns;
	ro->nr_pids = cfg->nr_pids;
	memcpy((void *)ro->pids, cfg->pids, sizeof(cfg->pids));
	memcpy((void *)ro->idle_syscalls, cfg->idle_syscalls, sizeof(cfg->idle_syscalls));
	memcpy((void *)ro->fd_syscalls, cfg->fd_syscalls, sizeof(cfg->fd_syscalls));
	ro->slot_mask = slots - 1;
	ro->nr_cpus = possible_cpus();
	ro->syscall_latency = cfg->syscall_latency;
	bpf_program__set_autoload(skel->progs.tract_sys_exit, cfg->syscall_latency);
	ro->wakeup_edges = cfg->wakeup_edges;
	ro->runq_latency = cfg->runq_latency;
	bpf_program__set_autoload(skel->progs.tract_sched_switch, cfg->wakeup_edges || cfg->runq_latency);
	/* without the profile its tables take no memory */
	bpf_program__set_autoload(skel->progs.tract_profile, cfg->profile_hz > 0);
	return bpf_map__set_max_entries(skel->maps.prof_latest, cfg->profile_hz > 0 ? slots : 1) ?:
	       bpf_map__set_max_entries(skel->maps.profile_stacks, cfg->profile_hz > 0 ? TRACT_PROFILE_STACKS : 1) ?:
	       bpf_map__set_max_entries(skel->maps.profile_counts, cfg->profile_hz > 0 ? TRACT_PROFILE_COUNTS : 1) ?:
	       bpf_map__set_max_entries(skel->maps.slots, slots) ?:
	       bpf_map__set_max_entries(skel->maps.wakers, slots) ?:
	       bpf_map__set_max_entries(skel->maps.runq_since, cfg->runq_latency ? slots : 1);
}

/* Open, configure and load the object; NULL with *err set on failure. */
static struct tract_bpf *load(const struct sampler_config *cfg, int irq_by_stack, uint32_t ustack_frames, int *err)
{
	struct tract_bpf *skel = tract_bpf__open();

	if (!skel) {
		*err = -errno;
		tract_err("cannot open the BPF object: %s", strerror(-*err));
		return NULL;
	}
	skel->rodata->irq_by_stack = irq_by_stack;
	skel->rodata->ustack_frames = ustack_frames;
	*err = configure(skel, cfg);
	if (!*err)
		*err = tract_bpf__load(skel);
	if (*err) {
		tract_bpf__destroy(skel);
		return NULL;
	}
	return skel;
}

int source_bpf__open(const struct sampler_config *cfg, const struct resolvers *res,
		     struct sampler **out)
{
	struct source_bpf *sb = NULL;
	struct tract_bpf *skel;
	uint32_t frames;
	int err;

	err = check_environment();
	if (err)
		return err;
	libbpf_set_print(libbpf_print);
	/*
	 * A verifier older than 6.12's counts the walk of 127 user frames as too
	 * long a program (6.1's gives up after a million instructions, which
	 * takes it seconds): below 6.12 the walk takes 31, and on any kernel a
	 * refusal for size retries with 31.
	 */
	frames = kernel_before(6, 12) ? 31 : TRACT_USTACK_MAX - 1;
	skel = load(cfg, 1, frames, &err);
	if (!skel && err == -E2BIG && frames > 31)
		skel = load(cfg, 1, frames = 31, &err);
	if (!skel && err == -EINVAL) {
		skel = load(cfg, 0, frames, &err);
		if (skel)
			tract_warn("this kernel's verifier refuses the interrupt-stack check; "
				   "wakeups by interrupts of kernel code name the interrupted task");
	}
	if (skel && frames < TRACT_USTACK_MAX - 1)
		tract_debug("user stacks of up to %u frames on this kernel", frames);
	if (!skel) {
		tract_err("cannot load the BPF programs: %s%s", strerror(-err),
			  tract_verbose ? "" : " (run with -v for the verifier's log)");
		return err;
	}
	err = tract_bpf__attach(skel);
	if (err) {
		tract_err("cannot attach the BPF programs: %s", strerror(-err));
		tract_bpf__destroy(skel);
		return err;
	}
	sb = xcalloc(1, sizeof(*sb));
	sb->base.ops = &bpf_ops;
	sb->skel = skel;
	sb->res = *res;
	sb->syscall_latency = cfg->syscall_latency;
	sb->wakeup_edges = cfg->wakeup_edges;
	sb->runq_latency = cfg->runq_latency;
	if (cfg->profile_hz > 0)
		sb->profile = profile__open(skel->progs.tract_profile, bpf_map__fd(skel->maps.profile_stacks),
					    bpf_map__fd(skel->maps.profile_counts), &skel->bss->profile_gen,
					    cfg->profile_hz);
	/* opened by the thread that samples: the recorder may run in a thread of its own */
	sb->schedstat_fd = open("/proc/thread-self/schedstat", O_RDONLY | O_CLOEXEC);
	sb->buf_cap = 1 << 20;
	sb->buf = xcalloc(1, sb->buf_cap);
	*out = &sb->base;
	return 0;
}
