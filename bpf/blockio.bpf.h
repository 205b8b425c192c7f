/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Block I/O tracking: every request in flight in a bounded LRU map (so one
 * that never completes, on a removed device say, is evicted, not leaked),
 * and at completion one increment of a latency histogram.  Block events are
 * thousands a second, not millions, so these hooks may read the clock.
 */
#ifndef TRACT_BLOCKIO_BPF_H
#define TRACT_BLOCKIO_BPF_H

#include "common.bpf.h"
#include "thread.bpf.h"

#define REQ_OP_MASK 0xff
#define INFLIGHT_MAX 8192	/* requests in flight on all devices at once: 832 KiB */

struct io_req {
	__u64 insert_ns;	/* queued (0: issued without queueing) */
	__u64 issue_ns;		/* handed to the device */
	__u32 dev;
	__u32 bytes;
	__u32 owner;		/* owner_tag() of the user thread that submitted it, or 0 */
	__u8 op;
	__u8 pad[3];
};

struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, INFLIGHT_MAX);
	__type(key, __u64);
	__type(value, struct io_req);
} inflight SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 4096);
	__type(key, struct tract_io_hist_key);
	__type(value, struct tract_hist_val);
} io_hist SEC(".maps");

__u64 io_hist_full, io_hist_added;

/*
 * The last bio a user thread queued in its own context, by the thread's
 * slot.  A flush (an empty write with a preflush, what fsync() ends with)
 * has no request the thread could be matched with: the flush machinery
 * issues its own from a kernel worker.  A thread asleep for I/O that has
 * not run since it queued a bio is taken to wait on that bio.
 */
struct bio_last {
	__u32 tag;		/* owner_tag() of the thread that queued it */
	__u32 dev;
	__u32 pcount;		/* the thread's switch-ins (sched_info) when it queued it */
	__u32 op_bytes;		/* op << 24 | bytes, at most 16 MiB - 1 */
};

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);	/* the slots' number, set before load */
	__type(key, __u32);
	__type(value, struct bio_last);
} bio_last SEC(".maps");

/* The partition, or for requests without one (flushes) the whole disk. */
static __always_inline __u32 request_dev(struct request *rq)
{
	struct block_device *part = rq->part;

	if (!part)
		part = rq->q->disk->part0;
	return part ? part->bd_dev : 0;
}

/*
 * The submitter is current when a request is first seen from a user
 * thread's own context (direct I/O, reads, a plug flushed at fsync).  Its
 * slot remembers the request; the request remembers its owner, since
 * request structures are recycled and a stale pointer must not match.
 */
static __always_inline struct io_req *track_request(struct request *rq)
{
	struct task_struct *task = bpf_get_current_task_btf();
	__u64 key = (__u64)rq;
	struct io_req *r = bpf_map_lookup_elem(&inflight, &key);
	struct io_req fresh = {};
	struct tract_slot *s;

	if (r)
		return r;
	fresh.dev = request_dev(rq);
	fresh.bytes = rq->__data_len;
	fresh.op = rq->cmd_flags & REQ_OP_MASK;
	if (!(task->flags & PF_KTHREAD)) {
		fresh.owner = owner_tag(task);
		s = slot_of(task->pid);
		if (s && s->tag == fresh.owner)
			s->io_rq = key;
	}
	bpf_map_update_elem(&inflight, &key, &fresh, BPF_ANY);
	return bpf_map_lookup_elem(&inflight, &key);
}

SEC("tp_btf/block_rq_insert")
int BPF_PROG(tract_block_rq_insert, struct request *rq)
{
	struct io_req *r = track_request(rq);

	if (r)
		r->insert_ns = bpf_ktime_get_ns();
	return 0;
}

/* Requests that bypass the scheduler are issued without being inserted. */
SEC("tp_btf/block_rq_issue")
int BPF_PROG(tract_block_rq_issue, struct request *rq)
{
	struct io_req *r = track_request(rq);

	if (r)
		r->issue_ns = bpf_ktime_get_ns();
	return 0;
}

SEC("tp_btf/block_rq_complete")
int BPF_PROG(tract_block_rq_complete, struct request *rq, int error, unsigned int nr_bytes)
{
	__u64 key = (__u64)rq, now, start, ns;
	struct tract_io_hist_key hk = {};
	struct io_req *r = bpf_map_lookup_elem(&inflight, &key);

	/* a request that is completed in parts stays in flight until its last part */
	if (!r || nr_bytes < rq->__data_len)
		return 0;
	now = bpf_ktime_get_ns();
	start = r->insert_ns ? r->insert_ns : r->issue_ns;
	hk.dev = r->dev;
	hk.op = r->op;
	ns = start && start < now ? now - start : 0;
	hk.bucket = log2_us(ns);
	bpf_map_delete_elem(&inflight, &key);
	hist_add(&io_hist, &hk, ns, &io_hist_full, &io_hist_added);
	return 0;
}

SEC("tp_btf/block_bio_queue")
int BPF_PROG(tract_block_bio_queue, struct bio *bio)
{
	struct task_struct *task = bpf_get_current_task_btf();
	struct block_device *bdev = bio->bi_bdev;
	__u32 i = slot_index(task->pid), op = bio->bi_opf & REQ_OP_MASK, bytes = bio->bi_iter.bi_size;
	struct bio_last *b;

	if (task->flags & PF_KTHREAD)
		return 0;
	b = bpf_map_lookup_elem(&bio_last, &i);
	if (!b)
		return 0;
	/* a flush, on the whole disk: as its request is counted (request_dev()) */
	if (!bytes && (bio->bi_opf & (1u << bpf_core_enum_value(enum req_flag_bits, __REQ_PREFLUSH)))) {
		op = REQ_OP_FLUSH;
		if (bdev)
			bdev = bdev->bd_disk->part0;
	}
	b->tag = owner_tag(task);
	b->dev = bdev ? bdev->bd_dev : 0;
	b->pcount = (__u32)task->sched_info.pcount;
	b->op_bytes = op << 24 | (bytes < 0xffffff ? bytes : 0xffffff);
	return 0;
}

/*
 * For the sampler, where no request of the thread's is in flight: the bio
 * it queued before it went to sleep for I/O (io_schedule() sets in_iowait),
 * if it has not run since.  Its time is the thread's time asleep.
 */
static __always_inline void read_bio(struct task_struct *task, __u32 tag, struct tract_sample *s)
{
	__u32 i = slot_index(task->pid);
	struct bio_last *b = bpf_map_lookup_elem(&bio_last, &i);

	if (!b || b->tag != tag || b->pcount != (__u32)task->sched_info.pcount ||
	    !BPF_CORE_READ_BITFIELD(task, in_iowait))
		return;
	s->io_dev = b->dev;
	s->io_bytes = b->op_bytes & 0xffffff;
	s->io_op = b->op_bytes >> 24;
	if (s->flags & TRACT_SF_STATE_TIME)
		s->io_ns = s->state_ns;
	s->flags |= TRACT_SF_IO;
}

/* For the sampler: the request a thread waits on, if it is still in flight. */
static __always_inline void read_io(struct tract_slot *slot, __u32 tag, struct tract_sample *s)
{
	struct io_req *r;
	__u64 now;

	if (!slot || slot->tag != tag || !slot->io_rq)
		return;
	r = bpf_map_lookup_elem(&inflight, &slot->io_rq);
	if (!r || r->owner != tag)
		return;
	now = bpf_ktime_get_ns();
	s->io_dev = r->dev;
	s->io_bytes = r->bytes;
	s->io_op = r->op;
	if (r->insert_ns && r->insert_ns < now)
		s->io_ns = now - r->insert_ns;
	else if (r->issue_ns && r->issue_ns < now)
		s->io_ns = now - r->issue_ns;
	if (r->issue_ns && r->issue_ns < now)
		s->io_service_ns = now - r->issue_ns;
	s->flags |= TRACT_SF_IO;
}

#endif
