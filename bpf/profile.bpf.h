/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The on-CPU profile: a software cpu-clock event on every CPU (--profile-hz)
 * takes the running thread's kernel and user stacks.  Tracking, not
 * tracing: each tick adds one to a count by (thread, kernel stack, user
 * stack) that the recorder reads and empties once a pass, and leaves the
 * thread's latest stacks where the sampler finds them, so a RUN sample says
 * what code it ran.
 */
#ifndef TRACT_PROFILE_BPF_H
#define TRACT_PROFILE_BPF_H

struct {
	__uint(type, BPF_MAP_TYPE_STACK_TRACE);
	__uint(max_entries, TRACT_PROFILE_STACKS);
	__uint(key_size, sizeof(__u32));
	__uint(value_size, TRACT_KSTACK_MAX * sizeof(__u64));
} profile_stacks SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, TRACT_PROFILE_COUNTS);
	__type(key, struct tract_profile_key);
	__type(value, struct tract_profile_val);
} profile_counts SEC(".maps");

/* A thread's latest tick, by the slot index of its tid. */
struct tract_prof_latest {
	__u32 tag;		/* owner_tag() of the thread */
	__s32 kstack, ustack;
	__u32 gen;		/* profile_gen then: its stack ids hold only until the tables are emptied */
	__u64 ns;		/* rq clock of the tick */
};

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct tract_prof_latest);
} prof_latest SEC(".maps");

__u64 profile_ticks;		/* ticks that counted */
__u32 profile_gen;		/* the recorder adds one each time it empties the tables */
__u64 profile_lost;		/* ticks the full count table could not take */

SEC("perf_event")
int tract_profile(struct bpf_perf_event_data *ctx)
{
	struct task_struct *task = bpf_get_current_task_btf();
	struct tract_profile_key key = { .tid = task->pid, .tgid = task->tgid };
	struct tract_profile_val *v, fresh = { .ticks = 1 };
	struct tract_prof_latest *latest;
	__u32 i;

	/* the idle task is no thread, and tract's own threads are never samples */
	if (!key.tid || key.tgid == self_tgid || !pid_selected(key.tgid))
		return 0;
	/* --no-kstacks and --no-ustacks hold here too: ticks by thread alone */
	key.kstack = take_kstacks ? bpf_get_stackid(ctx, &profile_stacks, 0) : -1;
	key.ustack = !take_ustacks || (task->flags & PF_KTHREAD) ? -1 :
		     bpf_get_stackid(ctx, &profile_stacks, BPF_F_USER_STACK);
	v = bpf_map_lookup_elem(&profile_counts, &key);
	if (v) {
		__sync_fetch_and_add(&v->ticks, 1);
	} else {
		__builtin_memcpy(fresh.comm, task->comm, sizeof(fresh.comm));
		BPF_CORE_READ_STR_INTO(&fresh.pcomm, task, group_leader, comm);
		if (bpf_map_update_elem(&profile_counts, &key, &fresh, BPF_NOEXIST) &&
		    !bpf_map_lookup_elem(&profile_counts, &key)) {
			profile_lost++;
			return 0;
		}
	}
	profile_ticks++;
	i = slot_index(key.tid);
	latest = bpf_map_lookup_elem(&prof_latest, &i);
	if (latest) {
		latest->tag = owner_tag(task);
		latest->kstack = key.kstack;
		latest->ustack = key.ustack;
		latest->gen = profile_gen;
		latest->ns = rq_clock_of(task);
	}
	return 0;
}

/* A running thread's latest tick, into its sample. */
static __always_inline void read_profile(struct task_struct *task, __u32 tag, struct tract_sample *s, __u64 now)
{
	__u32 i = slot_index(s->tid);
	struct tract_prof_latest *latest = bpf_map_lookup_elem(&prof_latest, &i);

	s->prof_kstack = s->prof_ustack = -1;
	if (!latest || latest->tag != tag || !latest->ns || latest->gen != profile_gen)
		return;
	s->prof_kstack = latest->kstack;
	s->prof_ustack = latest->ustack;
	s->prof_age_ns = now > latest->ns ? now - latest->ns : 0;
}

#endif
