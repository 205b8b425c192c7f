/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The contract between tract's BPF programs and user space: the records the
 * sampler writes into the task iterator's stream, and the thread-state
 * decoding both sides agree on.  This is the only header both sides include,
 * so it uses fixed-width types and explicit padding only.
 */
#ifndef TRACT_ABI_H
#define TRACT_ABI_H

#ifdef __bpf__
/* vmlinux.h already defines the __u* types */
#else
#include <linux/types.h>
#endif

#define TRACT_COMM_LEN 16
/* bpf_get_task_stack() never returns more than the kernel's own limit */
#define TRACT_KSTACK_MAX 127
/* CPUs a pass snapshots at once; threads on CPUs beyond are shown as found */
#define TRACT_CPUS_MAX 1024
/* -p accepts this many process ids */
#define TRACT_PID_FILTER_MAX 64
/* syscall numbers below this have a bit in the idle and fd syscall sets */
#define TRACT_SYSCALLS_MAX 512
/* waker_tid of a wakeup run from interrupt context (timers, devices, softirqs) */
#define TRACT_WAKER_IRQ 0xffffffffu
/* waker_tid of a wakeup run by an expiring timer (hrtimer or timer wheel) */
#define TRACT_WAKER_TIMER 0xfffffffeu
/*
 * waker_tid of a wakeup run in an interrupt the kernel named as it ran:
 * a softirq's vector (NET_RX_SOFTIRQ, ...) or a hard irq's number in the
 * low 16 bits.  From TRACT_WAKER_KERNEL on a waker is no thread.
 */
#define TRACT_WAKER_SOFTIRQ 0xfffe0000u
#define TRACT_WAKER_HARDIRQ 0xfffd0000u
#define TRACT_WAKER_KERNEL TRACT_WAKER_HARDIRQ

/*
 * What a wait is, by what ended it: a thread of its own process or of
 * another process of the same program (blocked: by that thread), a timer
 * (sleeping), an interrupt (the network, a device) or another program (its
 * client, a pipe's writer: waiting for input).  A sample in a wait that is
 * still open has the class its site (the syscall and its first argument, in
 * its process) had when a wait there last ended.
 */
enum tract_wait_class {
	TRACT_WAIT_UNKNOWN = 0,
	TRACT_WAIT_BLOCKED,
	TRACT_WAIT_SLEEPING,
	TRACT_WAIT_INPUT,
};
/*
 * With TRACT_WAIT_BLOCKED, in a site's class (the kernel side's only): the
 * ender was a thread of another process of the same program.  Within one
 * process a lock's release and a pool's hand-off of work look alike (a
 * futex, an event fd); a server's worker processes waking each other (a
 * latch) are what a lock wait between them looks like.
 */
#define TRACT_WAIT_CROSS 0x10
#define TRACT_WAIT_CLASS_MASK 0x0f

/* Thread states, in the order they are stored (the store keeps the name). */
enum tract_state {
	TRACT_STATE_RUN = 0,	/* on a CPU */
	TRACT_STATE_RUNQ,	/* runnable, waiting for a CPU */
	TRACT_STATE_DISK,	/* uninterruptible sleep */
	TRACT_STATE_SLEEP,	/* interruptible sleep */
	TRACT_STATE_STOPPED,
	TRACT_STATE_TRACED,
	TRACT_STATE_ZOMBIE,
	TRACT_STATE_IDLE,	/* uninterruptible but not counted in load (TASK_IDLE), parked kthreads */
	TRACT_STATE__COUNT
};

/* Record kinds in the iterator stream; every record starts with the kind. */
enum tract_rec_kind {
	TRACT_REC_SAMPLE = 1,
	TRACT_REC_KSTACK = 2,
	TRACT_REC_USTACK = 3,	/* struct tract_ustack */
	TRACT_REC_USTACK_COPY = 4,	/* struct tract_ustack_copy */
	TRACT_REC_TICK = 5,	/* struct tract_tick, in the profile's ring buffer */
	TRACT_REC_OTEL_ATTRS = 6,	/* struct tract_otel_attrs, just before its thread's sample */
};

/* tract_sample.flags */
enum tract_sample_flags {
	TRACT_SF_IN_SYSCALL = 1u << 0,	/* syscall_nr and sc_args are valid */
	TRACT_SF_SC_TIME = 1u << 1,	/* sc_ns is valid */
	TRACT_SF_STATE_TIME = 1u << 2,	/* state_ns is valid */
	TRACT_SF_KTHREAD = 1u << 3,
	TRACT_SF_WAKER = 1u << 4,	/* waker_tid is valid */
	TRACT_SF_FD = 1u << 5,		/* fd_ino is the inode of the file of sc_args[0] */
	TRACT_SF_IO = 1u << 6,		/* io_* describe the block request the thread waits on */
	TRACT_SF_WAKE_TIME = 1u << 7,	/* wake_ns and wake_runq_ns are valid */
	/*
	 * A pass shows the moment the sampler woke for it (tract.bpf.c, "A
	 * pass is a snapshot"); these say how a thread has changed since.
	 * RAN_AT_START: it was on a CPU then, and left it since.
	 */
	TRACT_SF_RAN_AT_START = 1u << 8,
	/* ... and the sampler took the CPU from it: its next switch-in is tract's */
	TRACT_SF_PREEMPTED = 1u << 9,
	/* asleep then and woken since: state is the wait it was woken from */
	TRACT_SF_WOKEN_SINCE = 1u << 10,
	/* on a CPU now, but it got it since: start_state is what it was then */
	TRACT_SF_ARRIVED_SINCE = 1u << 11,
	/* not active as found: stored only if it is what had its CPU then */
	TRACT_SF_ONLY_IF_RAN = 1u << 12,
	/* set by user space: reported RUN for the moment of the pass, not found so (src/record/source/observer.c) */
	TRACT_SF_DISPLACED = 1u << 13,
	/* what its CPU ran at the moment, as read then (bpf/moment.bpf.h) */
	TRACT_SF_AT_MOMENT = 1u << 14,
	/* trace_id, span_id and trace_flags are the thread's OpenTelemetry context (bpf/otel.bpf.h) */
	TRACT_SF_TRACE = 1u << 15,
	/*
	 * ... read from the thread this pass, not kept from a read before (the
	 * thread has not run since): its attributes, if any, came just before
	 */
	TRACT_SF_TRACE_READ = 1u << 16,
	/*
	 * blocker_tid holds the lock the thread waits for: the kernel named
	 * it (a kernel lock's owner, a global tid) ...
	 */
	TRACT_SF_BLOCKER = 1u << 17,
	/*
	 * ... or the C library did, in the lock word in the thread's memory (a
	 * tid as its process sees it): user space names it only if it is a
	 * live thread of the same process, not the waiter
	 */
	TRACT_SF_BLOCKER_USER = 1u << 18,
	/* kept although not active: it holds a lock a sampled thread waits for (tract.bpf.c) */
	TRACT_SF_HOLDER = 1u << 19,
};

/* tract_sample.blocker_kind: where its holder was found */
enum tract_blocker_kind {
	TRACT_BLOCKER_NONE = 0,
	TRACT_BLOCKER_PTHREAD_MUTEX,	/* glibc's pthread_mutex_t: __owner beside the futex word */
	TRACT_BLOCKER_PI_FUTEX,		/* the owner tid in a PI futex word */
	TRACT_BLOCKER_MUTEX,		/* a kernel mutex's owner */
	TRACT_BLOCKER_RWSEM,		/* a kernel rw-semaphore's writer */
	TRACT_BLOCKER_SEM,		/* a kernel semaphore's last holder */
	TRACT_BLOCKER_FILE_LOCK,	/* the process holding a file lock (fcntl, flock) */
};
/* with a kind: blocker_tid is a tid of the waiter's pid namespace, not the host's */
#define TRACT_BLOCKER_IN_NS 0x80

struct tract_sample {
	__u32 kind;		/* TRACT_REC_SAMPLE */
	__u32 tid;
	__u32 tgid;
	__u32 uid;
	__u32 cpu;
	__s32 syscall_nr;
	__u8 state;		/* enum tract_state, as of the pass's start where it is known */
	__u8 start_state;	/* with TRACT_SF_ARRIVED_SINCE: its state then, if another had its CPU */
	__u8 blocker_kind;	/* enum tract_blocker_kind */
	__u8 wait_class;	/* asleep in a syscall: enum tract_wait_class of its wait's site, | TRACT_WAIT_CROSS */
	__u32 flags;		/* enum tract_sample_flags */
	__u32 waker_tid;
	__u32 blocker_tid;	/* with TRACT_SF_BLOCKER or TRACT_SF_BLOCKER_USER: the lock's holder */
	__u64 sc_ns;		/* time in the current syscall so far */
	__u64 state_ns;		/* time in the current state so far */
	__u64 proc_start_ns;	/* process start (boot time), tells reused pids apart */
	__u64 kstack_hash;	/* 0 when no kernel stack was taken */
	__u64 cgroup_id;	/* cgroup v2 id (the cgroup directory's inode number) */
	__u64 fd_ino;		/* inode of the file a fd syscall works on */
	__u64 run_delay_ns;	/* sched_info: total time spent runnable, waiting for a CPU */
	__u64 run_count;	/* sched_info: times it got a CPU */
	__u64 io_ns;		/* the block request's time so far, since it was queued */
	__u64 io_service_ns;	/* ... and since the device got it (0: not issued yet) */
	__u32 io_dev;		/* its device (kernel dev_t: major << 20 | minor) */
	__u32 io_bytes;
	__u8 io_op;		/* REQ_OP_*: 0 read, 1 write, 2 flush, 3 discard, ... */
	__u8 pad3[7];
	__u64 sc_args[6];
	char comm[TRACT_COMM_LEN];
	char pcomm[TRACT_COMM_LEN];
	__u64 wake_ns;		/* time since the latest wakeup */
	__u64 wake_runq_ns;	/* its wait for a CPU: woken -> on CPU, or so far */
	__u64 ustack_hash;	/* 0 when no user stack was taken */
	__u64 arrival_ns;	/* since it last got a CPU (0: never) */
	__s32 prof_kstack;	/* on CPU: its latest profile tick's stacks (profile_stacks ids; -1 none) */
	__s32 prof_ustack;
	__u64 prof_age_ns;	/* ... and how long ago that tick was */
	__u64 prof_tick;	/* ... and its serial when its user stack went by the tick ring (0: none) */
	__u8 trace_id[16];	/* with TRACT_SF_TRACE: W3C byte order */
	__u8 span_id[8];
	__u8 trace_flags;
	__u8 pad4[7];
};

/*
 * Where a process's threads keep their OpenTelemetry thread context
 * (OTEP 4947), found by the recorder (src/record/resolve/otel_tls.c): the
 * variable otel_thread_ctx_v1 at the thread pointer + offset (static TLS),
 * or at offset in the block of DTV entry module (dynamic TLS).
 */
/*
 * A process that ended (its last thread exited), from the exits ring
 * buffer: its name and start as they were then, so that what it did in its
 * last moments keeps a name, and what user space kept for it can go.
 */
#define TRACT_EXITS_RING (64 * 1024)
/*
 * A pass of the sampler, the kernel side's global `pass` (bpf/pass.bpf.h):
 * what user space sets before it, and what the pass's first task found.
 */
struct tract_pass {
	/* set by user space: the sampler's time on a CPU and sched_info as it went to sleep ... */
	__u64 rest_run_ns, rest_run_delay, rest_pcount;
	__u64 boot_ns;		/* ... and the pass's time (its ts_us) in boot time (bpf/wait_ends.bpf.h) */
	/* set by the pass */
	__u64 seq;		/* passes begun */
	__u64 now;		/* the sampler's run-queue clock at its first task */
	__u64 start;		/* when the sampler woke for it */
	__u64 arrival;		/* when it then got its CPU */
	__u32 observer_cpu;	/* the CPU the sampler ran on */
	__u8 at_moment;		/* each CPU's runner was read at its moment (bpf/moment.bpf.h) */
	__u8 pad[3];
};

_Static_assert(sizeof(struct tract_pass) == 72, "tract_pass layout changed");

struct tract_exit {
	__u32 tgid;
	__u32 pad;
	__u64 start_ns;		/* the process's start (boot time), as tract_sample.proc_start_ns */
	__u64 end_ns;		/* its last thread's exit (boot time) */
	char comm[TRACT_COMM_LEN];	/* the main thread's name */
};

/*
 * A sampled wait as it ended, from the wait_ends ring buffer: the sampler
 * marks each waiting thread it samples (bpf/wait_ends.bpf.h), and the
 * wakeup that ends that wait tells who ended it.
 */
#define TRACT_WAIT_ENDS_RING (256 * 1024)
/* sites of waits (process, syscall, first argument) whose latest end is kept: LRU */
#define TRACT_WAIT_SITES 4096	/* about 390 KiB */
struct tract_wait_end {
	__u32 tid, tgid;	/* the thread that waited */
	__u32 ender_tid;	/* the thread that woke it, or TRACT_WAKER_TIMER or TRACT_WAKER_IRQ */
	__u32 ender_tgid;	/* its process; 0 for a timer or an interrupt */
	__u64 start_ns;		/* when it went to sleep, as its sample had it (boot time) */
	__u64 end_ns;		/* the wakeup (boot time) */
	char ender_comm[TRACT_COMM_LEN];	/* the waking thread's name; empty for a timer or an interrupt */
	__u8 wait_class;	/* enum tract_wait_class */
	__u8 pad[7];
};

#define TRACT_OTEL_PROCS 4096
struct tract_otel_proc {
	__u64 start_ns;		/* the process's start: an entry of an earlier process of the pid is not its */
	__s64 offset;
	__u64 module;		/* 0: static TLS */
	__u64 mm;		/* its address space, set at the first read: an exec makes another */
	__u32 attrs;		/* 1: its attributes have names (a process context): copy them */
	__u32 pad;
};

/*
 * A thread context's attributes as its record has them (OTEP 4947:
 * {u8 key index, u8 length, value}...), the first TRACT_OTEL_ATTRS bytes.
 * Followed by len bytes, padded to 8.  It comes before its thread's sample
 * in the stream (the thread's stack records may come between).
 */
#define TRACT_OTEL_ATTRS 256
struct tract_otel_attrs {
	__u32 kind;		/* TRACT_REC_OTEL_ATTRS */
	__u32 tid;
	__u16 len;		/* bytes copied, that follow */
	__u16 size;		/* the record's attrs_data_size: more than len when it was cut */
	__u32 pad;
};

/* The on-CPU profile: ticks counted by thread and stacks, read and emptied every pass. */
#define TRACT_PROFILE_STACKS 4096	/* ids emptied every pass; 4 MiB of 127-frame stacks */
#define TRACT_PROFILE_COUNTS 16384
/*
 * The ring of ticks with stack bytes (--unwind cfi), read once a pass:
 * some 400 ticks of 5 KiB, 4 s of 2 CPUs at 49 Hz.  Its user stacks take
 * no stack ids, so the id table is half the size then.
 */
#define TRACT_TICK_RING (2u << 20)
#define TRACT_PROFILE_STACKS_CFI (TRACT_PROFILE_STACKS / 2)

struct tract_profile_key {
	__u32 tid;
	__u32 tgid;
	__s32 kstack;		/* profile_stacks ids; negative: none */
	__s32 ustack;
};

struct tract_profile_val {
	__u64 ticks;
	char comm[TRACT_COMM_LEN];
	char pcomm[TRACT_COMM_LEN];
};

/* Followed by nr_frames __u64 addresses, innermost first. */
struct tract_kstack {
	__u32 kind;		/* TRACT_REC_KSTACK or TRACT_REC_USTACK */
	__u32 nr_frames;
	__u64 hash;
};

/* User stacks are walked by frame pointers; deeper frames are cut. */
#define TRACT_USTACK_MAX 128	/* a power of two; up to 127 frames are walked */

/*
 * Followed by nr_frames __u64 user addresses, innermost first: the
 * interrupted instruction, then return addresses.
 */
struct tract_ustack {
	__u32 kind;		/* TRACT_REC_USTACK */
	__u32 nr_frames;
	__u64 hash;		/* of the addresses and the process */
	__u32 tgid;		/* whose address space they are in */
	__u32 cut;		/* 1: the walk stopped before the outermost frame (a bound, or no frame pointer) */
};

/*
 * A user stack to unwind by CFI in user space (--unwind cfi): the user
 * registers, in DWARF's x86-64 numbering, and the top of the stack from sp
 * up, bounded by its mapping and by TRACT_USTACK_COPY.  Followed by len
 * bytes (a multiple of 8).  Where the frame-pointer chain leaves those
 * bytes for another stack (Go calls the vdso on its thread's system stack,
 * whose frames link back into the goroutine's), far_sp is where it went:
 * the first near_len bytes are from sp up, the rest (TRACT_USTACK_FAR at
 * most) from far_sp up.  far_sp 0: all len bytes are from sp up.
 */
#define TRACT_USTACK_COPY 16384
#define TRACT_USTACK_FAR 4096
#define TRACT_COPY_ID (1ull << 63)
#define TRACT_UREGS 17		/* rax rdx rcx rbx rsi rdi rbp rsp r8-r15 rip */
#define TRACT_UREG_BP 6
#define TRACT_UREG_SP 7
#define TRACT_UREG_IP 16
/*
 * How the recorder tells whether the thread ran on since its stack was
 * copied (tract_ustack_copy.still): the low 2 bits say which count the rest
 * holds (its low 30 bits).  What the recorder reads of the thread later (an
 * interpreter's frames) is of the copy's moment only while that count has
 * not moved.
 */
#define TRACT_STILL_NONE 0	/* no count tells it (in or leaving the kernel on its CPU): nothing read later */
#define TRACT_STILL_USER 1	/* in its user code on its CPU: voluntary context switches (nvcsw) */
#define TRACT_STILL_OFF 2	/* off its CPU: the times it got one since (sched_info.pcount) */
#define TRACT_STILL_KIND 3

struct tract_ustack_copy {
	__u32 kind;		/* TRACT_REC_USTACK_COPY */
	__u32 len;		/* stack bytes that follow */
	__u64 hash;		/* a serial with TRACT_COPY_ID set, which no hash of frames has */
	__u32 tgid;
	__u32 tid;		/* the thread: an interpreter's frames are found by it */
	__u64 regs[TRACT_UREGS];
	__u64 far_sp;
	__u32 near_len;
	__u32 still;		/* count << 2 | TRACT_STILL_* */
};

/*
 * One on-CPU profile tick whose user stack is unwound in user space: the
 * tick ring carries these, each followed by ustack.len stack bytes.
 */
struct tract_tick {
	__u32 kind;		/* TRACT_REC_TICK */
	__u32 tid;
	__u32 tgid;
	__s32 kstack;		/* profile_stacks id; negative: none */
	__u64 serial;		/* the thread's latest tick names it (tract_sample.prof_tick) */
	__u32 gen;		/* profile_gen then: kstack holds only in that generation */
	__u32 pad;
	char comm[TRACT_COMM_LEN];
	char pcomm[TRACT_COMM_LEN];
	struct tract_ustack_copy ustack;
};

/* Block I/O latency histogram: completions per (device, op, log2 µs bucket) since the last pass. */
struct tract_io_hist_key {
	__u32 dev;
	__u8 op;
	__u8 bucket;		/* latency < 2^bucket µs */
	__u16 pad;
};

#define TRACT_IO_BUCKETS 32

/* Syscall latency histogram (--syscall-latency): completions per (process, syscall, log2 µs bucket). */
struct tract_sc_hist_key {
	__u32 tgid;
	__u16 nr;
	__u8 bucket;		/* latency < 2^bucket µs */
	__u8 pad;
};

/* Run-queue latency histogram (--runq-latency): switch-ins per (process, log2 µs bucket). */
struct tract_runq_hist_key {
	__u32 tgid;
	__u8 bucket;		/* waited < 2^bucket µs for a CPU */
	__u8 pad[3];
};

/* What every latency histogram keeps per bucket: completions and their summed latency, for means. */
struct tract_hist_val {
	__u64 count;
	__u64 sum_ns;
};

/*
 * Wakeup edges (--wakeup-edges): wakeups from one process (or irq, timer) to
 * another since the last pass, counted when the wakee gets a CPU.
 */
struct tract_wakeup_key {
	__u32 waker_tgid;	/* or TRACT_WAKER_IRQ, TRACT_WAKER_TIMER */
	__u32 wakee_tgid;
};

struct tract_wakeup_val {
	__u64 count;
	__u64 runq_ns;		/* summed: woken -> on CPU */
	__u64 blocked_ns;	/* summed: asleep -> woken */
	char wakee_comm[TRACT_COMM_LEN];	/* the wakee process's name */
};

/*
 * A CPU's running totals of the wakeup edges it counts most: each CPU has
 * TRACT_EDGE_WAYS entries of the edge_totals array, an edge one of them by
 * its hash.  Counts only grow; the recorder reads them through mmap, takes
 * what grew since its last read, and frees an entry idle for a while.  An
 * edge whose entry another holds goes to the wakeup_edges_map hash.  Only
 * the CPU's own sched_switch program writes an entry's counts, with
 * interrupts off, so no atomics.
 */
#define TRACT_EDGE_WAYS_SHIFT 6
#define TRACT_EDGE_WAYS (1u << TRACT_EDGE_WAYS_SHIFT)
struct tract_edge_total {
	__u64 key;		/* (__u64)waker_tgid << 32 | wakee_tgid; 0: free */
	__u64 count;
	__u64 runq_ns;
	__u64 blocked_ns;
	char wakee_comm[TRACT_COMM_LEN];	/* set before the key, when the entry is taken */
	__u64 pad[2];
};

/*
 * A CPU's running totals of the syscalls its threads complete most, as
 * struct tract_edge_total: TRACT_SC_WAYS entries a CPU of the sc_totals
 * array, the counts and summed latencies of one (process, syscall) by log2
 * µs bucket.  Written with atomic adds (a task may be preempted in its
 * sys_exit program) and taken with a compare-and-swap; a (process, syscall)
 * whose entry another holds goes to the sc_hist hash.
 */
#define TRACT_SC_WAYS_SHIFT 5
#define TRACT_SC_WAYS (1u << TRACT_SC_WAYS_SHIFT)
#define TRACT_SC_BUCKETS 32
struct tract_sc_total {
	__u64 key;		/* (__u64)tgid << 32 | syscall number; 0: free */
	__u64 pad;		/* the buckets 16-byte aligned, in entries of 16 x 33 bytes */
	struct {
		__u64 count, sum_ns;	/* side by side: a completion writes one cache line */
	} bucket[TRACT_SC_BUCKETS];
};

#ifndef __bpf__
_Static_assert(sizeof(struct tract_sc_total) == 16 + 16 * TRACT_SC_BUCKETS, "tract_sc_total layout changed");
_Static_assert(sizeof(struct tract_edge_total) == 64, "tract_edge_total layout changed");
_Static_assert(sizeof(struct tract_wakeup_key) == 8, "tract_wakeup_key layout changed");
_Static_assert(sizeof(struct tract_wakeup_val) == 40, "tract_wakeup_val layout changed");
_Static_assert(sizeof(struct tract_io_hist_key) == 8, "tract_io_hist_key layout changed");
_Static_assert(sizeof(struct tract_sc_hist_key) == 8, "tract_sc_hist_key layout changed");
_Static_assert(sizeof(struct tract_runq_hist_key) == 8, "tract_runq_hist_key layout changed");
_Static_assert(sizeof(struct tract_hist_val) == 16, "tract_hist_val layout changed");
_Static_assert(sizeof(struct tract_sample) == 304, "tract_sample layout changed");
_Static_assert(sizeof(struct tract_otel_proc) == 40, "tract_otel_proc layout changed");
_Static_assert(sizeof(struct tract_exit) == 40, "tract_exit layout changed");
_Static_assert(sizeof(struct tract_wait_end) == 56, "tract_wait_end layout changed");
_Static_assert(sizeof(struct tract_otel_attrs) == 16, "tract_otel_attrs layout changed");
_Static_assert(sizeof(struct tract_ustack_copy) == 176, "tract_ustack_copy layout changed");
_Static_assert(sizeof(struct tract_tick) == 240, "tract_tick layout changed");
_Static_assert(sizeof(struct tract_kstack) == 16, "tract_kstack layout changed");
_Static_assert(sizeof(struct tract_ustack) == 24, "tract_ustack layout changed");
#endif

/*
 * Kernel task-state bits (include/linux/sched.h).  They have been stable in
 * value since 5.14 except TASK_FREEZABLE and friends, which tract ignores.
 */
#define TRACT_TASK_RUNNING 0x0000
#define TRACT_TASK_INTERRUPTIBLE 0x0001
#define TRACT_TASK_UNINTERRUPTIBLE 0x0002
#define TRACT_TASK_STOPPED 0x0004
#define TRACT_TASK_TRACED 0x0008
#define TRACT_TASK_PARKED 0x0040
#define TRACT_TASK_NOLOAD 0x0400
#define TRACT_TASK_RTLOCK_WAIT 0x1000
#define TRACT_EXIT_DEAD 0x0010
#define TRACT_EXIT_ZOMBIE 0x0020

/*
 * One decoding of a task's state for both sides: the BPF sampler calls it on
 * live tasks, the unit tests call it on made-up ones.  A task that is
 * TASK_RUNNING but not on a CPU is queued (RUNQ).  A task on a CPU runs,
 * whatever state it set: a thread sets the state it will sleep in before it
 * calls the scheduler, and until it switches out it runs kernel code (an I/O
 * wait submits the plugged requests then, a virtual disk's for tens of
 * microseconds); a wakeup in that window keeps it on its CPU.
 */
static inline enum tract_state tract_decode_state(__u32 task_state, __u32 exit_state, int on_cpu)
{
	if (exit_state & (TRACT_EXIT_ZOMBIE | TRACT_EXIT_DEAD))
		return TRACT_STATE_ZOMBIE;
	if (on_cpu)
		return TRACT_STATE_RUN;
	if (task_state == TRACT_TASK_RUNNING)
		return TRACT_STATE_RUNQ;
	if (task_state & TRACT_TASK_TRACED)
		return TRACT_STATE_TRACED;
	if (task_state & TRACT_TASK_STOPPED)
		return TRACT_STATE_STOPPED;
	if (task_state & TRACT_TASK_PARKED)
		return TRACT_STATE_IDLE;
	if (task_state & TRACT_TASK_UNINTERRUPTIBLE)
		return (task_state & TRACT_TASK_NOLOAD) ? TRACT_STATE_IDLE : TRACT_STATE_DISK;
	/* PREEMPT_RT sleeping spinlocks wait like a lock, not like a sleep */
	if (task_state & TRACT_TASK_RTLOCK_WAIT)
		return TRACT_STATE_DISK;
	return TRACT_STATE_SLEEP;
}

/*
 * A futex wait is a lock wait, not an idle pool, when it is a PI lock or
 * glibc's contended-mutex wait (FUTEX_WAIT on the value 2).  Condition
 * variables wait with FUTEX_WAIT_BITSET.  op and val are the syscall's
 * second and third arguments.
 */
#define TRACT_FUTEX_WAIT 0
#define TRACT_FUTEX_LOCK_PI 6
#define TRACT_FUTEX_LOCK_PI2 13
#define TRACT_FUTEX_CMD_MASK 0x7f

static inline int tract_futex_is_lock(__u64 op, __u64 val)
{
	__u32 cmd = op & TRACT_FUTEX_CMD_MASK;

	return cmd == TRACT_FUTEX_LOCK_PI || cmd == TRACT_FUTEX_LOCK_PI2 ||
	       (cmd == TRACT_FUTEX_WAIT && (__u32)val == 2);
}

/* The futex syscall's number (x86-64; the user-space side checks it against SYS_futex). */
#define TRACT_NR_FUTEX 202

/* fcntl and flock (x86-64), and the waits for a file lock they make */
#define TRACT_NR_FCNTL 72
#define TRACT_NR_FLOCK 73
#define TRACT_F_SETLKW 7
#define TRACT_F_OFD_SETLKW 38
#define TRACT_LOCK_NB 4

enum tract_file_lock_wait {
	TRACT_FILE_LOCK_NONE = 0,
	TRACT_FILE_LOCK_POSIX,		/* fcntl's record locks, OFD locks among them */
	TRACT_FILE_LOCK_FLOCK,
};

/* Which list of a file's locks a syscall with these arguments waits on, if any. */
static inline int tract_file_lock_wait(__s32 nr, const __u64 *args)
{
	if (nr == TRACT_NR_FCNTL && (args[1] == TRACT_F_SETLKW || args[1] == TRACT_F_OFD_SETLKW))
		return TRACT_FILE_LOCK_POSIX;
	if (nr == TRACT_NR_FLOCK && !(args[1] & TRACT_LOCK_NB))
		return TRACT_FILE_LOCK_FLOCK;
	return TRACT_FILE_LOCK_NONE;
}

/*
 * An idle syscall's wait with no timeout, from its number and arguments
 * (x86-64): it ends only when something acts, as a lock wait does.  One
 * with a timeout naps between checks, as a server's background worker
 * does on its latch: such a wait is never kept for its site's class.
 */
static inline int tract_wait_is_untimed(__s32 nr, const __u64 *args)
{
	switch (nr) {
	case 7:		/* poll: int timeout */
		return (__s32)args[2] < 0;
	case 232:	/* epoll_wait: after maxevents */
	case 281:	/* epoll_pwait */
		return (__s32)args[3] < 0;
	case 271:	/* ppoll: a timespec, or none */
		return !args[2];
	case 441:	/* epoll_pwait2 */
		return !args[3];
	case 23:	/* select: a timeval, or none */
	case 270:	/* pselect6 */
		return !args[4];
	case TRACT_NR_FUTEX:
	case 449:	/* futex_waitv */
		return !args[3];
	case 43:	/* accept */
	case 288:	/* accept4 */
	case 34:	/* pause */
	case 130:	/* rt_sigsuspend */
		return 1;
	default:
		return 0;
	}
}

/*
 * A PI futex word holds its owner's tid in the low bits (FUTEX_TID_MASK),
 * FUTEX_WAITERS and FUTEX_OWNER_DIED above them.
 */
#define TRACT_FUTEX_TID_MASK 0x3fffffffu
#define TRACT_FUTEX_OWNER_DIED 0x40000000u

/*
 * glibc's pthread_mutex_t on x86-64 (struct __pthread_mutex_s): the futex
 * word __lock, then __count, __owner (the holder's tid, set after the lock
 * is taken and cleared before it is given back), __nusers and __kind.
 * __kind's bits beyond these are never set by glibc: a word that has them
 * is no mutex.
 */
struct tract_glibc_mutex {
	__s32 lock;
	__u32 count;
	__s32 owner;
	__u32 nusers;
	__s32 kind;
};
#define TRACT_GLIBC_MUTEX_KIND_BITS 0x3f3u

/*
 * Whether a glibc mutex read from a waiter's memory names a holder: still
 * locked, an owner set that is not the waiter, users counted, and a kind
 * glibc could have made.  The owner is then a candidate only: user space
 * checks it is a live thread of the waiter's process.
 */
static inline __u32 tract_glibc_mutex_owner(const struct tract_glibc_mutex *m, __u32 waiter_tid)
{
	if (!m->lock || m->owner <= 0 || (__u32)m->owner == waiter_tid || !m->nusers ||
	    ((__u32)m->kind & ~TRACT_GLIBC_MUTEX_KIND_BITS))
		return 0;
	/* a PI mutex's word is its owner's tid, which __owner must agree with */
	if (((__u32)m->kind & 32) && ((__u32)m->lock & TRACT_FUTEX_TID_MASK) != (__u32)m->owner)
		return 0;
	return (__u32)m->owner;
}

/* The owner a PI futex word names, or 0; the same checks are left to user space. */
static inline __u32 tract_pi_futex_owner(__u32 word, __u32 waiter_tid)
{
	__u32 owner = word & TRACT_FUTEX_TID_MASK;

	return owner == waiter_tid || (word & TRACT_FUTEX_OWNER_DIED) ? 0 : owner;
}

/* --idle-grace unless given: an idle wait younger than this is active (activity reads it so too). */
#define TRACT_IDLE_GRACE_DEFAULT_NS 10000000ull
/*
 * How long a wait at a site where none has ended is kept for that (site_fresh):
 * a first lock wait's minute, not an idle thread's life (a runtime's parked
 * threads, a server's acceptor that no client reaches)
 */
#define TRACT_FRESH_KEEP_NS 60000000000ull

/* What the active policy looks at in a thread. */
struct tract_policy_facts {
	__u32 state;			/* enum tract_state */
	__u8 kthread;
	__u8 in_syscall;
	__u8 idle_syscall;		/* the syscall is one of the idle waits */
	__u8 lock_wait;			/* a futex wait that is a lock (tract_futex_is_lock) */
	__u8 has_state_time;		/* state_ns is known (not from /proc) */
	__u8 site_keeps;		/* its site's waits ended by another process of the program, and it has no timeout */
	__u8 site_idle;			/* ... by a timer, an interrupt or another program (not from /proc) */
	__u8 site_fresh;		/* no wait has ended at its site yet, its wait has no timeout, began
					   since the recording did and is younger than TRACT_FRESH_KEEP_NS
					   (not from /proc) */
	__u64 state_ns;			/* time in the state so far */
	__u64 idle_grace_ns;
};

/*
 * The documented "active" policy (tract(8), ACTIVE THREADS), for both
 * sources: a thread whose time in its state is unknown is never active for
 * being young.
 */
static inline int tract_is_active(const struct tract_policy_facts *f)
{
	switch (f->state) {
	case TRACT_STATE_RUN:
	case TRACT_STATE_RUNQ:
	case TRACT_STATE_DISK:
	case TRACT_STATE_TRACED:
		return 1;
	case TRACT_STATE_SLEEP:
	case TRACT_STATE_STOPPED:
		break;
	default:
		return 0;
	}
	if (f->kthread)
		return 0;
	/*
	 * An idle syscall's wait is kept however long it lasts where such waits
	 * end by another worker process, and where none has ended yet, so that
	 * a server's first lock wait is kept whole: its end says what it was.
	 * (A wait begun before the recording, one with a timeout, which soon
	 * teaches its site, or one past its first minute is not kept for that.)
	 */
	if (f->state == TRACT_STATE_SLEEP && f->in_syscall &&
	    (!f->idle_syscall || f->lock_wait || f->site_keeps || f->site_fresh))
		return 1;
	/* ... and idle from its start where they end by a timer or by input: no lock hand-off to show */
	if (f->state == TRACT_STATE_SLEEP && f->idle_syscall && f->site_idle)
		return 0;
	/* idle waits, and stopped threads, count only while they are young */
	return f->has_state_time && f->state_ns < f->idle_grace_ns;
}

#endif /* TRACT_ABI_H */
