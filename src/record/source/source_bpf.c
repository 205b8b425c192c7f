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
#include <sys/stat.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include "blockdev.h"
#include "bpf_cost.h"
#include "bpf_ksyms.h"
#include "clock.h"
#include "cgroups.h"
#include "chains.h"
#include "ksyms.h"
#include "nspid.h"
#include "files.h"
#include "irqs.h"
#include "observer.h"
#include "procinfo.h"
#include "proctitle.h"
#include "pass_sums.h"
#include "otel_attrs.h"
#include "otel_pctx.h"
#include "otel_procs.h"
#include "profile.h"
#include "runq.h"
#include "sampler.h"
#include "python.h"
#include "stackdict.h"
#include "unwind.h"
#include "syscalls.h"
#include "tract.skel.h"
#include "util.h"
#include "wait_ends.h"

struct source_bpf {
	struct sampler base;
	struct tract_bpf *skel;
	struct resolvers res;
	struct pass_sums *sums;		/* the histograms and the wakeup edges */
	struct profile *profile;	/* NULL: no on-CPU profile */
	struct wait_ends *wait_ends;	/* the sampled waits that ended */
	struct otel_procs *otel;	/* the processes that publish thread contexts */
	struct otel_attrs *attrs;	/* by thread, the text of its context's attributes */
	struct nspid *nspid;		/* the host's tids of holders named in a pid namespace */
	struct bpf_cost *cost;		/* what the programs cost between passes */
	struct {			/* the attributes record just before a sample */
		uint32_t tid;
		size_t len;
		int cut;		/* the record had more than the sampler copies */
		uint8_t data[TRACT_OTEL_ATTRS];
	} pending;
	unsigned char *buf;
	size_t buf_cap;
	uint64_t kstack_errors_seen;
	int schedstat_fd;	/* the sampling thread's own sched_info, -1 if unreadable */
	int readied;		/* ready_pass() ran since the last pass */
	uint64_t outside_ns[TRACT_CPUS_MAX];	/* see observer__resolve() */
	/* the process of the pass's previous row: its threads come one after another */
	struct {
		uint32_t tgid;
		uint64_t start_ns;
		char pcomm[TRACT_COMM_LEN];	/* as the sampler sent it, bytes after the NUL too */
		const char *exe;
	} last_proc;
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

/*
 * The text of a traced sample's attributes: made from the record just
 * before it when its context was read this pass, else the thread's text
 * from the read before (it has not run since).
 */
static const char *trace_attrs(struct source_bpf *sb, struct pass *p, const struct tract_sample *s)
{
	const char *text;

	if (s->flags & TRACT_SF_TRACE_READ) {
		const struct otel_keys *keys = otel_procs__keys(sb->otel, s->tgid);
		char buf[OTEL_ATTRS_TEXT_MAX + 1];
		int unknown = 0;

		if (!(s->flags & TRACT_SF_TRACE) || !keys || sb->pending.tid != s->tid ||
		    !otel_attrs_text(keys, sb->pending.data, sb->pending.len, sb->pending.cut, buf, &unknown)) {
			buf[0] = '\0';
		}
		if (unknown)
			otel_procs__keys_stale(sb->otel, s->tgid);
		otel_attrs__set(sb->attrs, s->tid, buf[0] ? buf : NULL);
	}
	sb->pending.tid = 0;
	text = (s->flags & TRACT_SF_TRACE) ? otel_attrs__get(sb->attrs, s->tid) : NULL;
	return text ? pass__keep_str(p, text) : NULL;
}

static void fill_row(struct source_bpf *sb, struct pass *p, struct sample *row, const struct tract_sample *s)
{
	row->tid = s->tid;
	row->tgid = s->tgid;
	row->uid = s->uid;
	row->cpu = s->cpu;
	row->state = s->state < TRACT_STATE__COUNT ? s->state : TRACT_STATE_SLEEP;
	row->flags = s->flags;
	row->syscall_nr = (s->flags & TRACT_SF_IN_SYSCALL) ? s->syscall_nr : -1;
	row->waker_tid = s->waker_tid;
	if (s->flags & (TRACT_SF_BLOCKER | TRACT_SF_BLOCKER_USER))
		row->blocker_tid = (s->blocker_kind & TRACT_BLOCKER_IN_NS) ?
				   nspid__global(sb->nspid, s->tgid, s->blocker_tid) : s->blocker_tid;
	if (s->flags & TRACT_SF_WAKER) {
		row->waker = irqs__waker_name(sb->res.irqs, s->waker_tid);
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
	if (!(s->flags & TRACT_SF_KTHREAD)) {
		if (s->tgid != sb->last_proc.tgid || s->proc_start_ns != sb->last_proc.start_ns ||
		    memcmp(s->pcomm, sb->last_proc.pcomm, TRACT_COMM_LEN)) {
			sb->last_proc.tgid = s->tgid;
			sb->last_proc.start_ns = s->proc_start_ns;
			memcpy(sb->last_proc.pcomm, s->pcomm, TRACT_COMM_LEN);
			sb->last_proc.exe = procinfo__exe(sb->res.procs, s->tgid, s->proc_start_ns, row->pcomm);
			otel_procs__seen(sb->otel, s->tgid, s->proc_start_ns, row->pcomm);
			procinfo__saw(sb->res.procs, s->tgid, row->pcomm);
		}
		row->exe = sb->last_proc.exe;
	}
	if (s->flags & TRACT_SF_TRACE) {
		memcpy(row->trace_id, s->trace_id, sizeof(row->trace_id));
		memcpy(row->span_id, s->span_id, sizeof(row->span_id));
		row->trace_flags = s->trace_flags;
	}
	row->trace_attrs = trace_attrs(sb, p, s);
	if (s->kstack_hash)
		row->kstack = stackdict__get(sb->res.stacks, s->kstack_hash);
	if (s->ustack_hash)
		row->ustack = stackdict__get(sb->res.stacks, s->ustack_hash);
	/*
	 * A thread on its CPU: the stacks of its latest profile tick, this
	 * interval's, where the sampler found them of what it ran at the
	 * moment (bpf/run_moment.bpf.h); a user stack it copied instead stays.
	 */
	if (row->state == TRACT_STATE_RUN && !row->kstack)
		row->kstack = profile__stack(sb->profile, sb->res.stacks, s->prof_kstack, s->tgid, 0);
	if (row->state == TRACT_STATE_RUN && !row->ustack)
		row->ustack = s->prof_tick ? profile__tick_ustack(sb->profile, s->prof_tick) :
			      profile__stack(sb->profile, sb->res.stacks, s->prof_ustack, s->tgid, 1);
	row->cgroup_id = s->cgroup_id;
	row->cgroup = cgroups__path(sb->res.cgroups, s->cgroup_id);
	row->run_delay_ns = s->run_delay_ns;
	row->run_count = s->run_count;
	row->wait_class = s->wait_class & TRACT_WAIT_CLASS_MASK;
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
	/* in D on no request of its own (a journal's, another thread's writeback): its file's device */
	if (row->state == TRACT_STATE_DISK && !row->io_dev && row->file)
		row->io_dev = files__dev(sb->res.files, sb->res.blockdevs, s->tgid, s->sc_args[0], s->fd_ino);
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

/* A user stack copied for CFI unwinding: like parse_stack(). */
static size_t parse_stack_copy(struct source_bpf *sb, const unsigned char *rec, size_t len)
{
	struct tract_ustack_copy h;

	if (len < sizeof(h))
		return 0;
	memcpy(&h, rec, sizeof(h));
	if (h.len > TRACT_USTACK_COPY + TRACT_USTACK_FAR || h.len % 8) {
		tract_err("corrupt stack copy from the sampler (%u bytes)", h.len);
		return (size_t)-1;
	}
	if (len < sizeof(h) + h.len)
		return 0;
	stackdict__add_user_copy(sb->res.stacks, &h, rec + sizeof(h));
	return sizeof(h) + h.len;
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
			fill_row(sb, p, pass__add_row(p), &s);
			off += sizeof(s);
		} else if (kind == TRACT_REC_OTEL_ATTRS) {
			struct tract_otel_attrs h;
			size_t need;

			if (len - off < sizeof(h))
				break;
			memcpy(&h, buf + off, sizeof(h));
			if (h.len > TRACT_OTEL_ATTRS) {
				tract_err("corrupt attributes record from the sampler (%u bytes)", h.len);
				p->dropped++;
				return len;
			}
			need = sizeof(h) + ((h.len + 7u) & ~7u);
			if (len - off < need)
				break;
			sb->pending.tid = h.tid;
			sb->pending.len = h.len;
			sb->pending.cut = h.size > h.len;
			memcpy(sb->pending.data, buf + off + sizeof(h), h.len);
			off += need;
		} else if (kind == TRACT_REC_KSTACK || kind == TRACT_REC_USTACK ||
			   kind == TRACT_REC_USTACK_COPY) {
			size_t used = kind == TRACT_REC_USTACK_COPY ? parse_stack_copy(sb, buf + off, len - off) :
				      parse_stack(sb, kind, buf + off, len - off);

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

		sb->outside_ns[cpu] = bss->outside_pass[cpu] == bss->pass.seq && at && at < bss->pass.now ?
				      bss->pass.now - at : 0;
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

/* Whether tid is a live thread of process tgid: a holder the C library named that the pass has no row of. */
static int thread_alive(void *arg, uint32_t tgid, uint32_t tid)
{
	char path[64];
	struct stat st;

	(void)arg;
	snprintf(path, sizeof(path), "/proc/%u/task/%u", tgid, tid);
	return !stat(path, &st);
}

/* Turns one drained map entry into a row of the pass. */
typedef void (*take_fn)(struct source_bpf *sb, const void *key, const void *value, struct pass *p);

/* Counts lost to full kernel maps, in all */
static uint64_t maps_full(const struct tract_bpf__bss *bss)
{
	return bss->io_hist_full + bss->sc_hist_full + bss->runq_hist_full + bss->wakeup_edges_full;
}

/*
 * What the previous pass leaves to tidy, done before the sampler sleeps:
 * from its wakeup to its visit of a thread, a thread can wake and sleep
 * again, and is then seen as it is, not as it was at the pass's moment
 * (bpf/pass.bpf.h).  The work here would lengthen
 * that for every thread.
 */
static void ready_pass(struct source_bpf *sb)
{
	procinfo__trim(sb->res.procs);
	/* a pass marks each of its processes seen, and the trim may have dropped the last's exe */
	memset(&sb->last_proc, 0, sizeof(sb->last_proc));
	/* the processes the last pass saw: searched for thread contexts before this one reads them */
	otel_procs__pass_end(sb->otel, mono_ns());
	/* texts forgotten: the threads they were of are read again */
	if (otel_attrs__pass_end(sb->attrs))
		sb->skel->bss->otel_gen++;
	/* a pass that ended inside a record leaves no attributes for the next */
	sb->pending.tid = 0;
	stackdict__end_pass(sb->res.stacks);
	cgroups__new_pass(sb->res.cgroups);
	files__new_pass(sb->res.files, mono_ns());
	sb->readied = 1;
}

static int bpf_pass(struct sampler *base, struct pass *p)
{
	struct source_bpf *sb = (struct source_bpf *)base;
	struct tract_bpf__bss *bss = sb->skel->bss;
	uint64_t visited0 = bss->threads_visited, selected0 = bss->threads_selected, lost0 = maps_full(bss);
	uint64_t t0 = mono_ns();
	size_t have = 0;
	int fd, err = 0;

	if (!sb->readied)
		ready_pass(sb);
	sb->readied = 0;
	bss->pass.boot_ns = wait_ends__boot_ns_of(p->ts_us);
	fd = bpf_iter_create(bpf_link__fd(sb->skel->links.tract_sample_pass));
	if (fd < 0) {
		err = -errno;
		tract_err("cannot start the sampler pass: %s", strerror(-err));
		return err;
	}
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
	/* wakeups from here on are after every visit of the pass (bpf/window.bpf.h) */
	bss->window_closed = bss->window_moment;
	if (!err && have) {
		tract_warn("sampler pass ended inside a record (%zu bytes left)", have);
		p->dropped++;
	}
	p->visited = bss->threads_visited - visited0;
	p->selected = bss->threads_selected - selected0;
	p->moment_read = bss->pass.at_moment;
	if (p->moment_read) {
		p->displaced = observer__at_moment(p, bss->moment_tid, sb->skel->rodata->nr_cpus);
	} else {
		note_outside(sb);
		p->displaced = observer__resolve(p, sb->outside_ns, TRACT_CPUS_MAX);
	}
	/* this pass's cost stands for the waits of the threads it preempted */
	runq_history__pass_ns(sb->res.runq, mono_ns() - t0);
	take_runq_delays(sb, p);
	chains__resolve(p, thread_alive, NULL);
	p->hist_lost = maps_full(bss) - lost0;
	profile__drain(sb->profile);
	wait_ends__drain(sb->wait_ends, p);
	/* past the snapshot: a read of a command line lengthens no pass's window */
	if (sb->res.titles)
		proctitles__fill(sb->res.titles, p, mono_ns());
	if (bss->kstack_errors != sb->kstack_errors_seen) {
		tract_debug("%llu kernel stacks could not be taken",
			    (unsigned long long)(bss->kstack_errors - sb->kstack_errors_seen));
		sb->kstack_errors_seen = bss->kstack_errors;
	}
	bpf_cost__pass(sb->cost, p);
	return err;
}

static void bpf_sums(struct sampler *base, struct pass *p)
{
	struct source_bpf *sb = (struct source_bpf *)base;

	const struct tract_exit *ended;
	size_t n;

	pass_sums__take(sb->sums, p);
	profile__take(sb->profile, p);
	/* their last rows are taken: what was kept for the processes that ended can go */
	ended = pass_sums__ended(sb->sums, &n);
	for (size_t i = 0; i < n; i++) {
		stackdict__forget_process(sb->res.stacks, ended[i].tgid, ended[i].start_ns);
		procinfo__forget(sb->res.procs, ended[i].tgid);
		files__forget(sb->res.files, ended[i].tgid);
	}
}

/*
 * The sampler's figures as it goes to sleep: from them and their values at
 * the next pass, the BPF side learns when the sampler woke
 * (bpf/pass.bpf.h).  /proc/thread-self/schedstat holds its run_delay
 * and pcount; its time on a CPU there is as of its last accounting, where
 * CLOCK_THREAD_CPUTIME_ID brings it up to date, so that is read last.
 */
static void bpf_rest(struct sampler *base, uint64_t moment_ns)
{
	struct source_bpf *sb = (struct source_bpf *)base;
	unsigned long long run, delay, count;
	struct timespec ts;
	char buf[96];
	ssize_t n;

	if (!sb->readied)
		ready_pass(sb);
	/* every CPU's timer is set for it (bpf/moment_timer.bpf.h) */
	sb->skel->bss->moment_deadline = moment_ns;
	sb->skel->bss->pass.rest_pcount = 0;
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
	sb->skel->bss->pass.rest_run_ns = run;
	sb->skel->bss->pass.rest_run_delay = delay;
	sb->skel->bss->pass.rest_pcount = count;
}

/* What the stacks copied for CFI unwinding cost, for -v. */
static void report_unwinding(const struct source_bpf *sb)
{
	const struct tract_bpf__bss *bss = sb->skel->bss;
	struct python_stats py;
	struct unwind_stats st;

	stackdict__python_stats(sb->res.stacks, &py);
	if (py.stacks)
		tract_debug("python frames: %llu threads' read, %.1f us each, %llu changed as read, "
			    "%llu of threads that ran on since their stack's copy; "
			    "%llu interpreters, %llu bytes of code objects",
			    (unsigned long long)py.stacks, py.ns / 1e3 / py.stacks, (unsigned long long)py.torn,
			    (unsigned long long)py.moved, (unsigned long long)py.procs,
			    (unsigned long long)py.code_bytes);
	stackdict__unwind_stats(sb->res.stacks, &st);
	if (!st.stacks)
		return;
	tract_debug("user stacks: %llu copied, %.0f bytes each; %llu unwound, %.1f us and %.1f frames each, %llu cut; "
		    "%llu read modules in, %.1f ms",
		    (unsigned long long)bss->ustack_copies,
		    bss->ustack_copies ? (double)bss->ustack_copy_bytes / bss->ustack_copies : 0.0,
		    (unsigned long long)st.stacks, st.stacks > st.loads ? st.ns / 1e3 / (st.stacks - st.loads) : 0.0,
		    (double)st.frames / st.stacks, (unsigned long long)st.cut, (unsigned long long)st.loads,
		    st.load_ns / 1e6);
}

static void bpf_free(struct sampler *base)
{
	struct source_bpf *sb = (struct source_bpf *)base;

	if (sb->schedstat_fd >= 0)
		close(sb->schedstat_fd);
	report_unwinding(sb);
	if (sb->skel && sb->skel->bss->otel_read + sb->skel->bss->otel_torn)
		tract_debug("thread contexts: %llu read, %llu of running threads dropped as torn",
			    (unsigned long long)sb->skel->bss->otel_read, (unsigned long long)sb->skel->bss->otel_torn);
	if (sb->skel && sb->skel->bss->window_stacks_kept + sb->skel->bss->window_stacks_missed)
		tract_debug("%llu kernel stacks kept by wakeups between a pass's moment and its visit; "
			    "%llu samples of threads woken so without theirs",
			    (unsigned long long)sb->skel->bss->window_stacks_kept,
			    (unsigned long long)sb->skel->bss->window_stacks_missed);
	if (sb->skel && sb->skel->bss->window_ucopies_taken + sb->skel->bss->window_ucopies_lost)
		tract_debug("%llu user stacks copied as a woken thread left the syscall it slept in before its visit; "
			    "%llu samples whose copy was written over",
			    (unsigned long long)sb->skel->bss->window_ucopies_taken,
			    (unsigned long long)sb->skel->bss->window_ucopies_lost);
	if (sb->skel && sb->skel->bss->run_ustacks_tick + sb->skel->bss->run_ustacks_switch +
			       sb->skel->bss->run_ustacks_exit + sb->skel->bss->run_ustacks_now)
		tract_debug("user stacks of threads that ran at a pass's moment: %llu of a profile tick, "
			    "%llu copied by their CPU's timer at the moment, "
			    "%llu copied in user code (of %llu copies in the moment's interrupt and %llu as they left their CPU), "
			    "%llu as they left their syscall, %llu read at the visit",
			    (unsigned long long)sb->skel->bss->run_ustacks_tick,
			    (unsigned long long)sb->skel->bss->run_ustacks_timer,
			    (unsigned long long)sb->skel->bss->run_ustacks_switch,
			    (unsigned long long)sb->skel->bss->run_ucopies_here,
			    (unsigned long long)sb->skel->bss->run_ucopies_switch,
			    (unsigned long long)sb->skel->bss->run_ustacks_exit,
			    (unsigned long long)sb->skel->bss->run_ustacks_now);
	if (sb->skel && sb->skel->bss->moment_timer_fires)
		tract_debug("timers at the moments: %llu fired, %.1f us each, %llu copied a user stack; %llu not set",
			    (unsigned long long)sb->skel->bss->moment_timer_fires,
			    sb->skel->bss->moment_timer_ns / 1e3 / sb->skel->bss->moment_timer_fires,
			    (unsigned long long)sb->skel->bss->moment_timer_copies,
			    (unsigned long long)sb->skel->bss->moment_timer_errors);
	if (sb->skel && sb->skel->bss->stacks_raced)
		tract_debug("%llu stacks not kept: their thread ran as they were read",
			    (unsigned long long)sb->skel->bss->stacks_raced);
	otel_procs__free(sb->otel);
	otel_attrs__free(sb->attrs);
	nspid__free(sb->nspid);
	profile__free(sb->profile);
	bpf_cost__free(sb->cost);
	pass_sums__free(sb->sums);
	if (sb->skel && sb->skel->bss->wait_ends_lost)
		tract_warn("%llu ends of sampled waits lost to a full ring buffer",
			   (unsigned long long)sb->skel->bss->wait_ends_lost);
	wait_ends__free(sb->wait_ends);
	tract_bpf__destroy(sb->skel);
	free(sb->buf);
	free(sb);
}

static const struct sampler_ops bpf_ops = {
	.name = "bpf",
	.pass = bpf_pass,
	.sums = bpf_sums,
	.rest = bpf_rest,
	.free = bpf_free,
};

/*
 * One slot per possible tid, up to 2^19 slots (20 MiB in all); beyond that
 * tids share slots and a sharing thread's syscall time, waker and cached stack
 * read as unknown.
 */
#define SLOTS_MAX (1u << 19)
/*
 * The still threads' last reads cached (struct tract_still, 128 bytes):
 * 2 MiB, whatever pid_max is; past this many threads, some share an entry
 * and are read afresh.
 */
#define STILL_MAX (1u << 14)

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

/*
 * The ring of user stacks copied at a pass's moment and at syscalls' exits
 * (window_ustack.bpf.h): every busy CPU's timer copies one a pass, so two a
 * CPU, at least the 64 a small host's exits need, a power of two.
 */
static uint32_t ucopies_for(uint32_t cpus)
{
	uint32_t n = 64;

	while (n < 2 * cpus)
		n *= 2;
	return n;
}

/*
 * The hash maps that sum over a pass, and the one user space fills, hold
 * few of their entries most of the time: from 6.1 on a tracing program may
 * use a hash that allocates its entries as they come, and the kernel then
 * charges the memory they use, not the table's bound.
 */
static int allocate_as_used(struct tract_bpf *skel)
{
	struct bpf_map *maps[] = { skel->maps.sc_hist, skel->maps.runq_hist, skel->maps.io_hist,
				   skel->maps.wakeup_edges_map, skel->maps.profile_counts, skel->maps.otel_procs };
	int err = 0;

	if (kernel_before(6, 1))
		return 0;
	for (size_t i = 0; i < sizeof(maps) / sizeof(maps[0]) && !err; i++)
		err = bpf_map__set_map_flags(maps[i], bpf_map__map_flags(maps[i]) | BPF_F_NO_PREALLOC);
	return err;
}

/* Whether the kernel's sched_process_exit tracepoint passes group_dead (6.16 on): its BTF says. */
static int exit_has_group_dead(const struct btf *btf)
{
	const struct btf_type *t;
	int id, has = 0;

	if (!btf)
		return 0;
	id = btf__find_by_name_kind(btf, "btf_trace_sched_process_exit", BTF_KIND_TYPEDEF);
	t = id > 0 ? btf__type_by_id(btf, btf__type_by_id(btf, id)->type) : NULL;
	if (t && btf_is_ptr(t)) {
		t = btf__type_by_id(btf, t->type);
		/* void *ctx, the task, group_dead */
		has = btf_is_func_proto(t) && btf_vlen(t) == 3;
	}
	return has;
}

/* Whether the kernel's BTF has a struct with the member: its own record of what it keeps. */
static int btf_has_member(const struct btf *btf, const char *type, const char *member)
{
	int id = btf__find_by_name_kind(btf, type, BTF_KIND_STRUCT);
	const struct btf_type *t = id > 0 ? btf__type_by_id(btf, id) : NULL;
	const struct btf_member *m = t ? btf_members(t) : NULL;

	for (int i = 0; m && i < btf_vlen(t); i++)
		if (!strcmp(btf__name_by_offset(btf, m[i].name_off), member))
			return 1;
	return 0;
}

/*
 * The holders of kernel locks come from the task's blocker, which the kernel
 * keeps with CONFIG_DETECT_HUNG_TASK_BLOCKER from 6.16 (6.15: mutexes only):
 * one notice where it has none, and the sampler reads nothing there.
 */
static void note_kernel_holders(const struct btf *btf)
{
	static int said;
	int has;

	if (!btf)
		return;
	has = btf_has_member(btf, "task_struct", "blocker") || btf_has_member(btf, "task_struct", "blocker_mutex");
	if (!has && !said++)
		tract_warn("this kernel does not record who holds a kernel lock (task_struct.blocker, Linux 6.16 "
			     "with CONFIG_DETECT_HUNG_TASK_BLOCKER): blocker_tid names holders of user-space locks only");
}

static int configure(struct tract_bpf *skel, const struct sampler_config *cfg)
{
	struct tract_bpf__rodata *ro = skel->rodata;
	uint32_t slots = slot_count();
	uint32_t still = slots < STILL_MAX ? slots : STILL_MAX;	/* the caches' entries */
	/* read once: a tenth of a second each time */
	struct btf *vmlinux = btf__load_vmlinux_btf();

	ro->self_tgid = getpid();
	ro->exit_has_group_dead = exit_has_group_dead(vmlinux);
	ro->all_threads = cfg->all_threads;
	ro->take_kstacks = cfg->kstacks;
	ro->take_ustacks = cfg->ustacks;
	ro->unwind_cfi = cfg->ustacks && cfg->unwind_cfi;
	/*
	 * bpf_copy_from_user_task() came in 5.18; with the flag constant the
	 * verifier never reaches the call, so the sampler still loads.
	 */
	if (cfg->ustacks && kernel_before(5, 18)) {
		static int said;

		ro->take_ustacks = ro->unwind_cfi = 0;
		if (!said++)
			tract_warn("user stacks need Linux 5.18 or newer; recording without them");
	}
	/*
	 * A runner's user stack at the moment on every CPU takes a timer
	 * pinned to each CPU at an absolute time (bpf/moment_timer.bpf.h):
	 * the flags for both came in 6.7.
	 */
	ro->moment_timers = ro->unwind_cfi && !kernel_before(6, 7);
	if (ro->unwind_cfi && !ro->moment_timers) {
		static int said;

		if (!said++)
			tract_warn("this kernel cannot set a timer on each CPU for a pass's moment (Linux 6.7): "
				   "a RUN sample of a thread in its own code on another CPU than the sampler's timer "
				   "has a user stack only where it was preempted or a profile tick found it");
	}
	/* the C library's lock words are read by the same helper */
	ro->user_holders = !kernel_before(5, 18);
	note_kernel_holders(vmlinux);
	btf__free(vmlinux);
	ro->idle_grace_ns = cfg->idle_grace_ns;
	ro->nr_pids = cfg->nr_pids;
	memcpy((void *)ro->pids, cfg->pids, sizeof(cfg->pids));
	memcpy((void *)ro->idle_syscalls, cfg->idle_syscalls, sizeof(cfg->idle_syscalls));
	memcpy((void *)ro->fd_syscalls, cfg->fd_syscalls, sizeof(cfg->fd_syscalls));
	memcpy((void *)ro->untimed_syscalls, cfg->untimed_syscalls, sizeof(cfg->untimed_syscalls));
	syscall_set__never_waiting(cfg->untimed_syscalls, (uint64_t *)ro->never_waiting_syscalls);
	ro->slot_mask = slots - 1;
	ro->still_mask = still - 1;
	ro->nr_cpus = possible_cpus();
	ro->window_ucopy_mask = ucopies_for(ro->nr_cpus) - 1;
	ro->syscall_latency = cfg->syscall_latency;
	bpf_program__set_autoload(skel->progs.tract_sys_exit, cfg->syscall_latency);
	ro->wakeup_edges = cfg->wakeup_edges;
	ro->runq_latency = cfg->runq_latency;
	bpf_program__set_autoload(skel->progs.tract_sched_switch, cfg->wakeup_edges || cfg->runq_latency);
	/* without the profile its tables take no memory */
	bpf_program__set_autoload(skel->progs.tract_profile, cfg->profile_hz > 0);
	return allocate_as_used(skel) ?:
	       bpf_map__set_max_entries(skel->maps.prof_latest, cfg->profile_hz > 0 ? still : 1) ?:
	       bpf_map__set_max_entries(skel->maps.profile_stacks, cfg->profile_hz <= 0 ? 1 :
					ro->unwind_cfi ? TRACT_PROFILE_STACKS_CFI : TRACT_PROFILE_STACKS) ?:
	       bpf_map__set_max_entries(skel->maps.profile_counts, cfg->profile_hz > 0 ? TRACT_PROFILE_COUNTS : 1) ?:
	       /* the smallest ring there is (a page) where no tick goes by it */
	       bpf_map__set_max_entries(skel->maps.profile_ticks_ring,
					cfg->profile_hz > 0 && ro->unwind_cfi ? TRACT_TICK_RING : 4096) ?:
	       bpf_map__set_max_entries(skel->maps.slots, slots) ?:
	       bpf_map__set_max_entries(skel->maps.wakers, slots) ?:
	       bpf_map__set_max_entries(skel->maps.bio_last, slots) ?:
	       bpf_map__set_max_entries(skel->maps.still_reads, still) ?:
	       bpf_map__set_max_entries(skel->maps.holder_marks, still) ?:
	       bpf_map__set_max_entries(skel->maps.wait_marks, still) ?:
	       bpf_map__set_max_entries(skel->maps.runq_since, cfg->runq_latency ? slots : 1) ?:
	       bpf_map__set_max_entries(skel->maps.window_ucopies, ro->window_ucopy_mask + 1) ?:
	       bpf_map__set_max_entries(skel->maps.timer_running, ro->nr_cpus) ?:
	       bpf_map__set_max_entries(skel->maps.cpu_views, ro->nr_cpus) ?:
	       bpf_map__set_max_entries(skel->maps.moment_runs, ro->nr_cpus) ?:
	       bpf_map__set_max_entries(skel->maps.moment_timer_map, ro->moment_timers ? ro->nr_cpus : 1) ?:
	       bpf_map__set_max_entries(skel->maps.edge_totals, cfg->wakeup_edges ? ro->nr_cpus * TRACT_EDGE_WAYS : 1) ?:
	       bpf_map__set_max_entries(skel->maps.sc_totals, cfg->syscall_latency ? ro->nr_cpus * TRACT_SC_WAYS : 1) ?:
	       /* the tables of what is not kept take no memory */
	       (cfg->wakeup_edges ? 0 : bpf_map__set_max_entries(skel->maps.wakeup_edges_map, 1)) ?:
	       (cfg->syscall_latency ? 0 : bpf_map__set_max_entries(skel->maps.sc_hist, 1)) ?:
	       (cfg->runq_latency ? 0 : bpf_map__set_max_entries(skel->maps.runq_hist, 1));
}

/*
 * The kernel's symbols, read meanwhile: tract's programs named in them (its
 * stacks name them, not the code below them), and a timerfd's expiry told
 * as its own event, which a wait's site learns from (wait_ends.bpf.h).
 */
static void use_ksyms(struct tract_bpf *skel, struct ksyms *ks)
{
	static int said;

	if (ks && !ksyms__wait(ks))
		bpf_ksyms__add_programs(skel->obj, ks);
	skel->bss->timerfd_fn = ksyms__address(ks, "timerfd_tmrproc");
	if (!skel->bss->timerfd_fn && !said++)
		tract_warn("%s", "without the kernel's symbols a timerfd's expiry is not told from an alarm's: "
			   "waits with no timeout that timers end are active, each for its first minute at most");
}

/* Open, configure and load the object; NULL with *err set on failure. */
static struct tract_bpf *load(const struct sampler_config *cfg, int irq_by_stack,
			      uint32_t ustack_frames, int *err)
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
	if (skel && frames < TRACT_USTACK_MAX - 1) {
		static int said;

		/* with --unwind fp every user stack is that walk; with cfi only the ticks the ring had no room for */
		if (skel->rodata->take_ustacks && !skel->rodata->unwind_cfi && !said++)
			tract_warn("--unwind fp walks at most %u user frames on this kernel; deeper stacks begin with [cut]",
				   frames);
		else
			tract_debug("user stacks of up to %u frames on this kernel", frames);
	}
	if (!skel) {
		tract_err("cannot load the BPF programs: %s%s", strerror(-err),
			  tract_verbose ? "" : " (run with -v for the verifier's log)");
		return err;
	}
	use_ksyms(skel, res->ksyms);
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
	struct pass_sums_maps sums = {
		.io_hist = bpf_map__fd(skel->maps.io_hist),
		.sc_hist = cfg->syscall_latency ? bpf_map__fd(skel->maps.sc_hist) : -1,
		.runq_hist = cfg->runq_latency ? bpf_map__fd(skel->maps.runq_hist) : -1,
		.edges = cfg->wakeup_edges ? bpf_map__fd(skel->maps.wakeup_edges_map) : -1,
		.sc_totals = cfg->syscall_latency ? bpf_map__fd(skel->maps.sc_totals) : -1,
		.edge_totals = cfg->wakeup_edges ? bpf_map__fd(skel->maps.edge_totals) : -1,
		.exits = bpf_map__fd(skel->maps.exits),
		.cpus = skel->rodata->nr_cpus,
		.io_added = &skel->bss->io_hist_added, .sc_added = &skel->bss->sc_hist_added,
		.runq_added = &skel->bss->runq_hist_added, .edges_added = &skel->bss->wakeup_edges_added,
	};

	sb->sums = pass_sums__open(&sums, res);
	sb->wait_ends = sb->sums ? wait_ends__open(bpf_map__fd(skel->maps.wait_ends), sb->res.irqs) : NULL;
	if (!sb->wait_ends) {
		pass_sums__free(sb->sums);
		tract_bpf__destroy(skel);
		free(sb);
		return -ENOMEM;
	}
	if (cfg->profile_hz > 0) {
		struct profile_maps maps = {
			.stacks_fd = bpf_map__fd(skel->maps.profile_stacks),
			.counts_fd = bpf_map__fd(skel->maps.profile_counts),
			.ring_fd = skel->rodata->unwind_cfi ? bpf_map__fd(skel->maps.profile_ticks_ring) : -1,
			.gen = &skel->bss->profile_gen,
			.added = &skel->bss->profile_added,
		};

		sb->profile = profile__open(skel->progs.tract_profile, &maps, res->stacks, cfg->profile_hz);
	}
	sb->otel = otel_procs__new(bpf_map__fd(skel->maps.otel_procs), &skel->bss->otel_gen, NULL);
	sb->attrs = otel_attrs__new();
	sb->nspid = nspid__new();
	sb->cost = bpf_cost__new(skel->obj, skel->progs.tract_sample_pass,
				 (const volatile uint64_t *)&skel->bss->moment_timer_ns);
	/* opened by the thread that samples: the recorder may run in a thread of its own */
	sb->schedstat_fd = open("/proc/thread-self/schedstat", O_RDONLY | O_CLOEXEC);
	sb->buf_cap = 1 << 20;
	sb->buf = xcalloc(1, sb->buf_cap);
	*out = &sb->base;
	return 0;
}
