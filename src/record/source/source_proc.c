// SPDX-License-Identifier: GPL-2.0-only
/*
 * The /proc source: what tract can see where BPF cannot be used (not root,
 * no BTF, an old kernel).  Each pass reads every thread's stat, syscall,
 * schedstat and, where permitted, kernel stack from /proc, and applies the
 * same active-thread policy as the BPF sampler.  It fills what /proc gives
 * and leaves the rest NULL: no time in the syscall or state (so idle waits
 * are never active), no waker, no request in flight.  The kernel shows
 * runnable and running alike as R: its schedstat splits them (proc_runq.h).
 * A normal user sees what /proc shows that user.
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>
#include "cgroups.h"
#include "clock.h"
#include "files.h"
#include "proc_runq.h"
#include "proc_stat.h"
#include "procinfo.h"
#include "proctitle.h"
#include "runq.h"
#include "sampler.h"
#include "stackdict.h"
#include "syscalls.h"
#include "util.h"

#define PF_KTHREAD 0x00200000u

struct source_proc {
	struct sampler base;
	struct sampler_config cfg;
	struct resolvers res;
	struct proc_runq *runq;		/* RUN or RUNQ of each runnable thread */
	char *proc;			/* "/proc" */
	long clock_ticks;
};

/* The first line of a small /proc file; -1 when unreadable. */
static ssize_t read_small(const char *path, char *buf, size_t cap)
{
	FILE *f = fopen(path, "re");
	size_t n;

	if (!f)
		return -1;
	n = fread(buf, 1, cap - 1, f);
	fclose(f);
	buf[n] = '\0';
	return (ssize_t)n;
}

/* stat: see proc_stat__parse() */
static int read_stat(const char *dir, struct sample *s, uint32_t *flags, uint64_t *start)
{
	char path[512], buf[1024];

	snprintf(path, sizeof(path), "%s/stat", dir);
	if (read_small(path, buf, sizeof(buf)) <= 0)
		return -1;
	return proc_stat__parse(buf, s, flags, start);
}

/* syscall: "nr a0 a1 a2 a3 a4 a5 sp pc", "-1 sp pc" in user mode, or "running" */
static void read_syscall(const char *dir, struct sample *s)
{
	char path[512], buf[512];
	long long nr;
	unsigned long long a[6];

	snprintf(path, sizeof(path), "%s/syscall", dir);
	if (read_small(path, buf, sizeof(buf)) <= 0 || sscanf(buf, "%lld", &nr) != 1 || nr < 0)
		return;
	if (sscanf(buf, "%*d %llx %llx %llx %llx %llx %llx", &a[0], &a[1], &a[2], &a[3], &a[4], &a[5]) != 6)
		return;
	s->syscall_nr = (int32_t)nr;
	s->flags |= TRACT_SF_IN_SYSCALL;
	for (int i = 0; i < 6; i++)
		s->sc_args[i] = a[i];
}

/* schedstat: "run_ns wait_ns timeslices"; a runnable thread's RUN or RUNQ from the first two */
static void read_schedstat(struct source_proc *sp, const char *dir, struct sample *s)
{
	char path[512], buf[128];
	unsigned long long run, wait, count;

	snprintf(path, sizeof(path), "%s/schedstat", dir);
	if (read_small(path, buf, sizeof(buf)) <= 0 || sscanf(buf, "%llu %llu %llu", &run, &wait, &count) != 3)
		return;
	s->state = proc_runq__state(sp->runq, s->tid, run, wait, mono_ns(), s->state);
	s->run_count = count;
	if (!runq_history__update(sp->res.runq, s->tid, wait, count, 0, &s->runq_us)) {
		s->runq_us /= 1000;
		s->has_runq = 1;
	}
}

/* stack: "[<0>] func+0x1a/0x80" lines, innermost first; root only */
static void read_kstack(struct source_proc *sp, const char *dir, struct sample *s)
{
	char path[512], line[256], folded[4096] = "";
	char *frames[64];
	size_t n = 0, len = 0;
	FILE *f;

	snprintf(path, sizeof(path), "%s/stack", dir);
	f = fopen(path, "re");
	if (!f)
		return;
	while (n < ARRAY_SIZE(frames) && fgets(line, sizeof(line), f)) {
		char *name = strchr(line, ' ');

		if (!name)
			continue;
		name++;
		name[strcspn(name, "+\n ")] = '\0';
		if (*name)
			frames[n++] = xstrdup(name);
	}
	fclose(f);
	/* folded stacks are outermost first */
	while (n-- > 0) {
		if (len + strlen(frames[n]) + 2 < sizeof(folded))
			len += (size_t)snprintf(folded + len, sizeof(folded) - len, "%s%s", len ? ";" : "",
						frames[n]);
		free(frames[n]);
	}
	if (len)
		s->kstack = stackdict__add_folded(sp->res.stacks, "kernel", folded);
}

/* The inode behind the fd a syscall works on, so files names it as the BPF source does. */
static void read_fd_file(struct source_proc *sp, const char *pid_dir, struct sample *s)
{
	char path[128];
	struct stat st;

	if (!(s->flags & TRACT_SF_IN_SYSCALL) || s->syscall_nr >= TRACT_SYSCALLS_MAX ||
	    !(sp->cfg.fd_syscalls[s->syscall_nr / 64] & (1ull << (s->syscall_nr % 64))))
		return;
	snprintf(path, sizeof(path), "%s/fd/%llu", pid_dir, (unsigned long long)s->sc_args[0]);
	if (stat(path, &st))
		return;
	s->file = files__name(sp->res.files, s->tgid, s->sc_args[0], st.st_ino);
	/* /proc tells no block request: a thread in D names its file's device */
	if (s->state == TRACT_STATE_DISK && s->file)
		s->io_dev = files__dev(sp->res.files, sp->res.blockdevs, s->tgid, s->sc_args[0], st.st_ino);
}

/* The cgroup v2 of a process: "0::/path" in /proc/PID/cgroup, and its directory's inode. */
static void read_cgroup(struct source_proc *sp, const char *pid_dir, struct sample *s)
{
	static const char *const roots[] = { "/sys/fs/cgroup", "/sys/fs/cgroup/unified" };
	char path[256], buf[4096], *line;
	struct stat st;

	snprintf(path, sizeof(path), "%s/cgroup", pid_dir);
	if (read_small(path, buf, sizeof(buf)) <= 0)
		return;
	for (line = strtok(buf, "\n"); line; line = strtok(NULL, "\n")) {
		if (strncmp(line, "0::", 3))
			continue;
		for (size_t i = 0; i < ARRAY_SIZE(roots); i++) {
			snprintf(path, sizeof(path), "%s%s", roots[i], line + 3);
			if (!stat(path, &st) && S_ISDIR(st.st_mode)) {
				s->cgroup_id = st.st_ino;
				s->cgroup = cgroups__path(sp->res.cgroups, st.st_ino);
				return;
			}
		}
	}
}

static int syscall_in(const uint64_t *set, int32_t nr)
{
	return nr >= 0 && nr < TRACT_SYSCALLS_MAX && (set[nr / 64] & (1ull << (nr % 64)));
}

/* The active policy of abi.h, as the BPF source applies it, without times: /proc has none. */
static int is_active(const struct source_proc *sp, const struct sample *s, int kthread)
{
	int in_syscall = !!(s->flags & TRACT_SF_IN_SYSCALL);
	struct tract_policy_facts f = {
		.state = (__u32)s->state,
		.kthread = !!kthread,
		.in_syscall = in_syscall,
		.idle_syscall = in_syscall && syscall_in(sp->cfg.idle_syscalls, s->syscall_nr),
		.lock_wait = in_syscall && s->syscall_nr == TRACT_NR_FUTEX &&
			     tract_futex_is_lock(s->sc_args[1], s->sc_args[2]),
	};

	return sp->cfg.all_threads || tract_is_active(&f);
}

_Static_assert(TRACT_NR_FUTEX == SYS_futex, "the futex number BPF and user space use");

static int pid_selected(const struct source_proc *sp, uint32_t tgid)
{
	if (!sp->cfg.nr_pids)
		return 1;
	for (size_t i = 0; i < sp->cfg.nr_pids; i++)
		if (sp->cfg.pids[i] == tgid)
			return 1;
	return 0;
}

/* The per-process facts every thread of it shares: name, user, cgroup, start. */
struct proc_facts {
	char pcomm[TRACT_COMM_LEN];
	uint32_t uid;
	uint64_t start_ticks;
	uint64_t cgroup_id;
	const char *cgroup;
};

static void read_process(struct source_proc *sp, const char *pid_dir, struct proc_facts *pf, struct sample *tmp)
{
	char path[128], buf[4096], *uid;
	uint32_t flags;

	memset(pf, 0, sizeof(*pf));
	/* the leader's start time tells a reused pid apart, as the BPF source's does */
	read_stat(pid_dir, tmp, &flags, &pf->start_ticks);
	snprintf(path, sizeof(path), "%s/comm", pid_dir);
	if (read_small(path, buf, sizeof(buf)) > 0) {
		buf[strcspn(buf, "\n")] = '\0';
		snprintf(pf->pcomm, sizeof(pf->pcomm), "%.*s", TRACT_COMM_LEN - 1, buf);
	}
	snprintf(path, sizeof(path), "%s/status", pid_dir);
	if (read_small(path, buf, sizeof(buf)) > 0 && (uid = strstr(buf, "\nUid:")))
		pf->uid = (uint32_t)strtoul(uid + 5, NULL, 10);
	tmp->cgroup_id = 0;
	tmp->cgroup = NULL;
	read_cgroup(sp, pid_dir, tmp);
	pf->cgroup_id = tmp->cgroup_id;
	pf->cgroup = tmp->cgroup;
}

static void sample_process(struct source_proc *sp, uint32_t tgid, struct pass *p)
{
	char pid_dir[64], task_dir[128], thread_dir[400];
	struct proc_facts pf;
	struct sample tmp = { 0 };
	struct dirent *e;
	DIR *tasks;

	snprintf(pid_dir, sizeof(pid_dir), "%s/%u", sp->proc, tgid);
	snprintf(task_dir, sizeof(task_dir), "%s/task", pid_dir);
	tasks = opendir(task_dir);
	if (!tasks)
		return;
	read_process(sp, pid_dir, &pf, &tmp);
	while ((e = readdir(tasks))) {
		struct sample s = { 0 };
		uint32_t flags = 0;
		uint64_t start = 0;
		int kthread;

		(void)start;

		if (!isdigit((unsigned char)e->d_name[0]))
			continue;
		p->visited++;
		p->selected++;
		snprintf(thread_dir, sizeof(thread_dir), "%s/%s", task_dir, e->d_name);
		s.tid = (uint32_t)strtoul(e->d_name, NULL, 10);
		s.tgid = tgid;
		s.syscall_nr = -1;
		if (read_stat(thread_dir, &s, &flags, &start))
			continue;
		kthread = (flags & PF_KTHREAD) != 0;
		if (kthread)
			s.flags |= TRACT_SF_KTHREAD;
		/* the cheap verdicts first, as in the BPF sampler */
		if (!sp->cfg.all_threads && (s.state == TRACT_STATE_IDLE || s.state == TRACT_STATE_ZOMBIE ||
					     (kthread && s.state == TRACT_STATE_SLEEP)))
			continue;
		if (!kthread)
			read_syscall(thread_dir, &s);
		if (!is_active(sp, &s, kthread))
			continue;
		memcpy(s.pcomm, pf.pcomm, sizeof(s.pcomm));
		s.uid = pf.uid;
		s.cgroup_id = pf.cgroup_id;
		s.cgroup = pf.cgroup;
		if (!kthread)
			s.exe = procinfo__exe(sp->res.procs, tgid,
					      pf.start_ticks * (1000000000ull / (uint64_t)sp->clock_ticks), s.pcomm);
		read_schedstat(sp, thread_dir, &s);
		if (sp->cfg.kstacks && s.state != TRACT_STATE_RUN)
			read_kstack(sp, thread_dir, &s);
		read_fd_file(sp, pid_dir, &s);
		*pass__add_row(p) = s;
	}
	closedir(tasks);
}

static int proc_pass(struct sampler *base, struct pass *p)
{
	struct source_proc *sp = (struct source_proc *)base;
	uint32_t self = (uint32_t)getpid();
	struct dirent *e;
	DIR *d = opendir(sp->proc);

	if (!d) {
		tract_err("cannot read %s: %s", sp->proc, strerror(errno));
		return -errno;
	}
	procinfo__trim(sp->res.procs);
	proc_runq__new_pass(sp->runq);
	stackdict__end_pass(sp->res.stacks);
	cgroups__new_pass(sp->res.cgroups);
	files__new_pass(sp->res.files, mono_ns());
	while ((e = readdir(d))) {
		uint32_t tgid;

		if (!isdigit((unsigned char)e->d_name[0]))
			continue;
		tgid = (uint32_t)strtoul(e->d_name, NULL, 10);
		if (tgid != self && pid_selected(sp, tgid))
			sample_process(sp, tgid, p);
	}
	closedir(d);
	if (sp->res.titles)
		proctitles__fill(sp->res.titles, p, mono_ns());
	return 0;
}

static void proc_free(struct sampler *base)
{
	struct source_proc *sp = (struct source_proc *)base;

	proc_runq__free(sp->runq);
	free(sp->proc);
	free(sp);
}

static const struct sampler_ops proc_ops = {
	.name = "proc",
	.pass = proc_pass,
	.free = proc_free,
};

int source_proc__open(const struct sampler_config *cfg, const struct resolvers *res, struct sampler **out)
{
	struct source_proc *sp;

	if (access("/proc/self/stat", R_OK)) {
		tract_err("cannot read /proc; is it mounted?");
		return -ENOENT;
	}
	sp = xcalloc(1, sizeof(*sp));
	sp->base.ops = &proc_ops;
	sp->cfg = *cfg;
	sp->res = *res;
	sp->runq = proc_runq__new();
	sp->proc = xstrdup("/proc");
	sp->clock_ticks = sysconf(_SC_CLK_TCK) > 0 ? sysconf(_SC_CLK_TCK) : 100;
	*out = &sp->base;
	return 0;
}
