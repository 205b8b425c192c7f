/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The OpenTelemetry thread context of a sampled thread (OTEP 4947): the
 * trace and span it works for, read from its TLS where the recorder found
 * the process keeps it (otel_procs).  Every read of the thread's memory is
 * bpf_copy_from_user_task(), which the sleepable iterator may do for
 * another task; anything that does not read, or reads as not valid, is no
 * context.  A thread off its CPU is still, so one read is whole; one on
 * its CPU may be writing its record, so it is read twice and dropped if
 * the two differ.
 */
#ifndef TRACT_OTEL_BPF_H
#define TRACT_OTEL_BPF_H

#include "common.bpf.h"
#include "thread.bpf.h"

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, TRACT_OTEL_PROCS);
	__type(key, __u32);
	__type(value, struct tract_otel_proc);
} otel_procs SEC(".maps");

/* The record's fixed part (the writer's struct otel_thread_ctx_record) */
struct otel_record_head {
	__u8 trace_id[16];
	__u8 span_id[8];
	__u8 valid;
	__u8 trace_flags;
	__u16 attrs_data_size;
} __attribute__((aligned(4)));

__u64 otel_read, otel_torn;	/* contexts read; reads of running threads dropped as torn */
/*
 * Bumped by user space whenever what a read gives may have changed for a
 * thread that has not run: a process newly in otel_procs, a key map that
 * came or grew, the texts of attributes forgotten.  A cached read of an
 * older generation is read again.
 */
__u32 otel_gen;
/* the process whose threads the iterator shows now, and whether it has an entry */
__u64 otel_leader;
__u32 otel_leader_published;


/* The address of the thread's otel_thread_ctx_v1, or 0. */
static __always_inline __u64 otel_var(struct task_struct *task, const struct tract_otel_proc *p, __u64 *dtv,
				      __u64 *len, __u64 *block)
{
	__u64 tp = task->thread.fsbase;

	if (!tp)
		return 0;
	if (!p->module)
		return tp + p->offset;
	/* glibc x86-64: the DTV at tp + 8, its length in the entry before it, 16 bytes an entry */
	if (bpf_copy_from_user_task(dtv, sizeof(*dtv), (void *)(tp + 8), task, 0) || !*dtv ||
	    bpf_copy_from_user_task(len, sizeof(*len), (void *)(*dtv - 16), task, 0) || *len < p->module ||
	    bpf_copy_from_user_task(block, sizeof(*block), (void *)(*dtv + p->module * 16), task, 0))
		return 0;
	/* a block the thread never touched is not there (glibc marks it -1) */
	if (!*block || *block == (__u64)-1)
		return 0;
	return *block + p->offset;
}

static __always_inline int otel_read_head(struct task_struct *task, __u64 var, __u64 *rec,
					  struct otel_record_head *h)
{
	return bpf_copy_from_user_task(rec, sizeof(*rec), (void *)var, task, 0) || !*rec ||
	       bpf_copy_from_user_task(h, sizeof(*h), (void *)*rec, task, 0) || h->valid != 1;
}

/* Whether two heads differ: BPF has no memcmp(). */
static __always_inline bool heads_differ(const struct otel_record_head *a, const struct otel_record_head *b)
{
	const __u32 *x = (const __u32 *)a, *y = (const __u32 *)b;
	__u32 d = 0;

	for (int i = 0; i < (int)(sizeof(*a) / sizeof(__u32)); i++)
		d |= x[i] ^ y[i];
	return d != 0;
}

/* The thread's attributes as a record of the stream, written just before its sample. */
struct otel_attrs_rec {
	struct tract_otel_attrs h;
	__u8 data[TRACT_OTEL_ATTRS];
};

/* The reads' buffers: off the BPF stack, which the sampler's frame nearly fills. */
struct otel_scratch_buf {
	struct otel_found found;
	struct otel_record_head h, again;
	__u64 rec, rec2;		/* the record's address, read twice */
	__u64 dtv, len, block;		/* otel_var()'s reads */
	/* a read to remember in still_reads once the sample is written (otel_remember()) */
	__u64 switches;
	__u32 slot, tag, gen;
	__u32 read;			/* read this pass, not taken from the cache */
	__u32 remember;
	struct otel_attrs_rec attrs;
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct otel_scratch_buf);
} otel_scratch SEC(".maps");

/*
 * What each thread's context was when last read is kept with its other
 * still reads (struct tract_still): a thread that has not run since cannot
 * have changed it, so it is not read again.  Every read of another task's
 * memory costs about a microsecond (its mm, the mmap lock, a page walk).
 * Its attributes are not kept there: user space keeps the text they made,
 * by thread, and a sample says whether its context was read (TRACT_SF_TRACE_READ).
 */

/* The record's attributes, as far as TRACT_OTEL_ATTRS, into b->attrs (len 0: none or unreadable). */
static __always_inline void otel_read_attrs(struct task_struct *task, struct otel_scratch_buf *b)
{
	__u32 n = b->h.attrs_data_size;

	b->attrs.h.size = b->h.attrs_data_size;
	if (n > TRACT_OTEL_ATTRS)
		n = TRACT_OTEL_ATTRS;
	/* the padding to 8 goes into the stream too: not another thread's bytes */
	*(__u64 *)&b->attrs.data[(n & (TRACT_OTEL_ATTRS - 1)) & ~7u] = 0;
	if (n && !bpf_copy_from_user_task(b->attrs.data, n, (void *)(b->rec + sizeof(b->h)), task, 0))
		b->attrs.h.len = n;
}

/* The context read from the thread's TLS into out; 1 when it has one. */
static __always_inline int otel_read_thread(struct task_struct *task, __u32 tgid, __u64 start_ns, int on_cpu,
					    struct otel_scratch_buf *b)
{
	struct otel_found *out = &b->found;
	struct tract_otel_proc *p;
	__u64 var, mm;

	p = bpf_map_lookup_elem(&otel_procs, &tgid);
	if (!p || p->start_ns != start_ns)
		return 0;
	mm = (__u64)BPF_CORE_READ(task, mm);	/* not walked: read_process() says why */
	if (!p->mm)
		p->mm = mm;
	else if (p->mm != mm)
		return 0;
	var = otel_var(task, p, &b->dtv, &b->len, &b->block);
	if (!var || otel_read_head(task, var, &b->rec, &b->h))
		return 0;
	if (p->attrs)
		otel_read_attrs(task, b);
	/* a running thread may have changed its record while it was read: read again */
	if (on_cpu && (otel_read_head(task, var, &b->rec2, &b->again) || b->rec2 != b->rec ||
		       heads_differ(&b->h, &b->again))) {
		otel_torn++;
		b->attrs.h.len = 0;
		return 0;
	}
	/* an all-zero trace id is none */
	if (!(*(__u64 *)&b->h.trace_id[0] | *(__u64 *)&b->h.trace_id[8])) {
		b->attrs.h.len = 0;
		return 0;
	}
	__builtin_memcpy(out->trace_id, b->h.trace_id, sizeof(out->trace_id));
	__builtin_memcpy(out->span_id, b->h.span_id, sizeof(out->span_id));
	out->trace_flags = b->h.trace_flags;
	out->ok = 1;
	otel_read++;
	return 1;
}

/*
 * The thread's context into b->found: as cached while it is still, else
 * read (and remembered once its sample is written: otel_remember()).  A
 * subprogram of its own, not inlined: its many ways out end in one state
 * of the caller's, so the sampler's paths do not multiply by them (6.1's
 * verifier gives up at a million instructions).
 */
static __noinline int otel_of_thread(struct task_struct *task, struct otel_scratch_buf *b, __u64 start_ns, __u32 tag,
				     int on_cpu)
{
	struct otel_found *f = &b->found;
	__u32 i = still_index(task->pid);
	struct tract_still *c;
	__u64 switches = switch_count(task), leader;

	b->read = b->remember = 0;
	b->attrs.h.len = 0;
	if (task->flags & PF_KTHREAD)
		return 0;
	/* threads of a process come together: one lookup for the lot, and nothing more where it publishes nothing */
	leader = (__u64)BPF_CORE_READ(task, group_leader);
	if (otel_leader != leader) {
		__u32 tgid = task->tgid;
		struct tract_otel_proc *p = bpf_map_lookup_elem(&otel_procs, &tgid);

		otel_leader = leader;
		otel_leader_published = p && p->start_ns == start_ns;
	}
	if (!otel_leader_published)
		return 0;
	c = bpf_map_lookup_elem(&still_reads, &i);
	if (c && c->otel_tag == tag && c->otel_switches == switches && c->otel_gen == otel_gen && !on_cpu) {
		__builtin_memcpy(f, &c->otel, sizeof(*f));
		return 0;
	}
	otel_read_thread(task, task->tgid, start_ns, on_cpu, b);
	b->read = 1;
	b->remember = c && !on_cpu;
	b->slot = i;
	b->tag = tag;
	b->gen = otel_gen;
	b->switches = switches;
	return 0;
}

/*
 * The thread's context into its sample; its attributes, if read, into the
 * stream just before it.  Should the seq_file overflow, the kernel drops
 * both and shows the thread again.
 */
static __always_inline void read_otel(struct seq_file *seq, struct task_struct *task, struct tract_sample *s,
				      bool on_cpu, __u32 tag)
{
	__u32 zero = 0, n;
	struct otel_scratch_buf *b = bpf_map_lookup_elem(&otel_scratch, &zero);
	struct otel_found *f;

	if (!b)
		return;
	f = &b->found;
	__builtin_memset(f, 0, sizeof(*f));
	otel_of_thread(task, b, s->proc_start_ns, tag, on_cpu);
	/* the same writes whatever was found: one state for what follows */
	__builtin_memcpy(s->trace_id, f->trace_id, sizeof(s->trace_id));
	__builtin_memcpy(s->span_id, f->span_id, sizeof(s->span_id));
	s->trace_flags = f->trace_flags;
	s->flags |= (__u32)(f->ok & 1) * TRACT_SF_TRACE | (__u32)(b->read & 1) * TRACT_SF_TRACE_READ;
	n = b->attrs.h.len;
	if (!f->ok || !n)
		return;
	if (n > TRACT_OTEL_ATTRS)
		n = TRACT_OTEL_ATTRS;
	n = (n + 7) & ~7u;
	if (n > TRACT_OTEL_ATTRS)
		n = TRACT_OTEL_ATTRS;
	b->attrs.h.kind = TRACT_REC_OTEL_ATTRS;
	b->attrs.h.tid = s->tid;
	bpf_seq_write(seq, &b->attrs, sizeof(b->attrs.h) + n);
}

/* After the sample is written: a read of a still thread is kept for the passes it stays still. */
static __noinline int otel_remember(void)
{
	__u32 zero = 0;
	struct otel_scratch_buf *b = bpf_map_lookup_elem(&otel_scratch, &zero);
	struct tract_still *c;

	if (!b || !b->remember)
		return 0;
	c = bpf_map_lookup_elem(&still_reads, &b->slot);
	if (!c)
		return 0;
	c->otel_tag = b->tag;
	c->otel_gen = b->gen;
	c->otel_switches = b->switches;
	__builtin_memcpy(&c->otel, &b->found, sizeof(c->otel));
	return 0;
}

#endif
