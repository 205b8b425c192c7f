// SPDX-License-Identifier: GPL-2.0-only
#include <string.h>
#include <strings.h>
#include "catalog.h"
#include "util.h"

enum {
	J_THREAD = 1 << 0, J_STATE = 1 << 1, J_CALL = 1 << 2, J_SYSCALL = 1 << 3, J_CGROUP = 1 << 4,
	J_FILE = 1 << 5, J_WAKER = 1 << 6, J_IO = 1 << 7, J_KSTACK = 1 << 8, J_USTACK = 1 << 9,
};

static const char *const sample_joins[] = {
	" JOIN threads t ON t.id = f.thread",
	" JOIN states st ON st.id = f.state",
	" LEFT JOIN calls c ON c.id = f.call",
	" LEFT JOIN syscalls sc ON sc.nr = c.nr",
	" LEFT JOIN cgroups cg ON cg.id = t.cgroup",
	" LEFT JOIN files fl ON fl.id = f.file",
	" LEFT JOIN wakers wk ON wk.id = f.waker",
	" LEFT JOIN sample_io io ON io.fact = f.rowid",
	" LEFT JOIN stacks ks ON ks.id = f.kstack",
	" LEFT JOIN stacks us ON us.id = f.ustack",
};

#define TIME_FMT(fmt) "strftime('" fmt "', p.ts_us / 1000000, 'unixepoch', 'localtime')"

static const struct catalog_column sample_columns_def[] = {
	{ "ts_us", "p.ts_us", 0, "pass time, UTC microseconds", NULL, 0 },
	{ "weight_us", "p.weight_us", 0, "the time the pass stands for", NULL, 0 },
	{ "tid", "t.tid", J_THREAD, "thread id", "f.thread", 0 },
	{ "tgid", "t.tgid", J_THREAD, "process id", "f.thread", 0 },
	{ "comm", "t.comm", J_THREAD, "thread name", "f.thread", 0 },
	{ "pcomm", "t.pcomm", J_THREAD, "process name", "f.thread", 0 },
	{ "exe", "t.exe", J_THREAD, "executable", "f.thread", 0 },
	{ "uid", "t.uid", J_THREAD, "user id", "f.thread", 0 },
	{ "state", "st.name", J_STATE, "RUN, RUNQ, DISK, SLEEP, ...", "f.state", 0 },
	{ "cpu", "f.cpu", 0, "CPU", NULL, 0 },
	{ "syscall", "sc.name", J_CALL | J_SYSCALL, "syscall, NULL in user mode", "f.call", 0 },
	{ "sc_us", "f.sc_us", 0, "time in the syscall so far", NULL, 0 },
	{ "state_us", "f.state_us", 0, "time in the state so far", NULL, 0 },
	{ "kstack_id", "f.kstack", 0, "kernel stack id (within one file)", NULL, 0 },
	{ "waker_tid", "wk.tid", J_WAKER, "thread that woke it last", "f.waker", 0 },
	{ "sc_arg0", "c.a0", J_CALL, "syscall argument", "f.call", 0 },
	{ "sc_arg1", "c.a1", J_CALL, "syscall argument", "f.call", 0 },
	{ "sc_arg2", "c.a2", J_CALL, "syscall argument", "f.call", 0 },
	{ "sc_arg3", "c.a3", J_CALL, "syscall argument", "f.call", 0 },
	{ "sc_arg4", "c.a4", J_CALL, "syscall argument", "f.call", 0 },
	{ "sc_arg5", "c.a5", J_CALL, "syscall argument", "f.call", 0 },
	{ "cgroup_id", "t.cgroup", J_THREAD, "cgroup v2 id", "f.thread", 0 },
	{ "cgroup", "cg.path", J_THREAD | J_CGROUP, "cgroup path: container, systemd unit", "f.thread", 0 },
	{ "file", "fl.name", J_FILE, "file or socket of an fd syscall", "f.file", 0 },
	{ "runq_us", "f.runq_us", 0, "mean CPU wait per switch-in", NULL, 0 },
	{ "waker", "wk.name", J_WAKER, "who woke it last: thread name, timer, irq", "f.waker", 0 },
	{ "io_dev", "io.dev", J_IO, "block device a DISK thread waits on", NULL, 0 },
	{ "io_op", "io.op", J_IO, "read, write, flush, ...", NULL, 0 },
	{ "io_bytes", "io.bytes", J_IO, "request size", NULL, 0 },
	{ "io_us", "io.us", J_IO, "request time so far", NULL, 0 },
	{ "io_service_us", "io.service_us", J_IO, "... since the device got it", NULL, 0 },
	{ "wake_us", "f.wake_us", 0, "time since the last wakeup", NULL, 0 },
	{ "wake_runq_us", "f.wake_runq_us", 0, "that wakeup's wait for a CPU", NULL, 0 },
	{ "ustack_id", "f.ustack", 0, "user stack id (within one file)", NULL, 0 },
	/* derived dimensions */
	{ "comm_folded", "fold_digits(t.comm)", J_THREAD, "thread name, digits as * (kworker/*:*)", "f.thread", 0 },
	{ "pcomm_folded", "fold_digits(t.pcomm)", J_THREAD, "process name, digits as *", "f.thread", 0 },
	{ "file_dir", "dir_name(fl.name)", J_FILE, "directory of the file", "f.file", 0 },
	{ "file_ext", "file_ext(fl.name)", J_FILE, "extension of the file", "f.file", 0 },
	{ "wait", "top_frame(ks.frames)", J_KSTACK, "where in the kernel it waits", "f.kstack", 0 },
	{ "activity", "activity(st.name, sc.name, f.sc_us, fl.name, c.a1, c.a2)", J_STATE | J_CALL | J_SYSCALL | J_FILE,
	  "cpu, runq, disk, lock, waiting, input (a terminal, or 10 s without data), idle, stopped", NULL, 0 },
	{ "kstack", "ks.frames", J_KSTACK, "kernel stack, outermost first", "f.kstack", 0 },
	{ "ustack", "us.frames", J_USTACK, "user stack, outermost first", "f.ustack", 0 },
	{ "hour", TIME_FMT("%Y-%m-%d %H:00"), 0, "local hour", "p.ts_us / 3600000000 * 3600000000", 3600000000 },
	{ "minute", TIME_FMT("%Y-%m-%d %H:%M"), 0, "local minute, for timelines", "p.ts_us / 60000000 * 60000000",
	  60000000 },
	{ "second", TIME_FMT("%H:%M:%S"), 0, "local second", "p.ts_us / 1000000 * 1000000", 1000000 },
};

const struct catalog catalog_samples = {
	.name = "samples",
	/* CROSS JOIN keeps the facts outer: no temporary index on them */
	.from = "sample_facts f CROSS JOIN passes p ON p.id = f.pass",
	.measure = "p.weight_us",
	.joins = sample_joins,
	.columns = sample_columns_def,
	.ncolumns = ARRAY_SIZE(sample_columns_def),
	.default_group = "state,syscall,pcomm",
};

static const struct catalog_column io_columns_def[] = {
	{ "dev", "h.dev", 0, "block device", NULL, 0 },
	{ "op", "h.op", 0, "read, write, flush, ...", NULL, 0 },
	{ "le_us", "h.le_us", 0, "latency bucket: below this many microseconds", NULL, 0 },
	{ "ts_us", "p.ts_us", 0, "pass time", NULL, 0 },
	{ "minute", TIME_FMT("%Y-%m-%d %H:%M"), 0, "local minute", NULL, 0 },
};

const struct catalog catalog_io = {
	.name = "io",
	.from = "io_latency h JOIN passes p ON p.id = h.pass",
	.measure = "h.count",
	.sum = "h.sum_us",
	.columns = io_columns_def,
	.ncolumns = ARRAY_SIZE(io_columns_def),
	.default_group = "dev,op",
};

static const struct catalog_column syscall_columns_def[] = {
	{ "pcomm", "h.pcomm", 0, "process name", NULL, 0 },
	{ "tgid", "h.tgid", 0, "process id", NULL, 0 },
	{ "syscall", "h.syscall", 0, "syscall", NULL, 0 },
	{ "le_us", "h.le_us", 0, "latency bucket: below this many microseconds", NULL, 0 },
	{ "ts_us", "p.ts_us", 0, "pass time", NULL, 0 },
	{ "pcomm_folded", "fold_digits(h.pcomm)", 0, "process name, digits as *", NULL, 0 },
	{ "minute", TIME_FMT("%Y-%m-%d %H:%M"), 0, "local minute", NULL, 0 },
};

const struct catalog catalog_syscall = {
	.name = "syscall",
	.from = "syscall_latency h JOIN passes p ON p.id = h.pass",
	.measure = "h.count",
	.sum = "h.sum_us",
	.columns = syscall_columns_def,
	.ncolumns = ARRAY_SIZE(syscall_columns_def),
	.default_group = "pcomm,syscall",
};

static const struct catalog_column runq_columns_def[] = {
	{ "pcomm", "h.pcomm", 0, "process name", NULL, 0 },
	{ "tgid", "h.tgid", 0, "process id", NULL, 0 },
	{ "le_us", "h.le_us", 0, "latency bucket: waited for a CPU below this many microseconds", NULL, 0 },
	{ "ts_us", "p.ts_us", 0, "pass time", NULL, 0 },
	{ "pcomm_folded", "fold_digits(h.pcomm)", 0, "process name, digits as *", NULL, 0 },
	{ "minute", TIME_FMT("%Y-%m-%d %H:%M"), 0, "local minute", NULL, 0 },
};

const struct catalog catalog_runq = {
	.name = "runq",
	.from = "runq_latency h JOIN passes p ON p.id = h.pass",
	.measure = "h.count",
	.sum = "h.sum_us",
	.columns = runq_columns_def,
	.ncolumns = ARRAY_SIZE(runq_columns_def),
	.default_group = "pcomm,tgid",
};

const struct catalog_column *catalog__find(const struct catalog *c, const char *name)
{
	for (size_t i = 0; i < c->ncolumns; i++)
		if (!strcasecmp(c->columns[i].name, name))
			return &c->columns[i];
	return NULL;
}

struct expr_column *catalog__expr_columns(const struct catalog *c)
{
	struct expr_column *cols = xcalloc(c->ncolumns, sizeof(*cols));

	for (size_t i = 0; i < c->ncolumns; i++) {
		cols[i].name = c->columns[i].name;
		cols[i].sql = c->columns[i].sql;
	}
	return cols;
}

void catalog__joins_sql(const struct catalog *c, uint32_t joins, char *buf, size_t cap)
{
	size_t len = strlen(buf);

	for (unsigned int i = 0; c->joins && joins >> i; i++) {
		size_t n;

		if (!(joins & (1u << i)))
			continue;
		n = strlen(c->joins[i]);
		if (len + n + 1 > cap)
			return;
		memcpy(buf + len, c->joins[i], n + 1);
		len += n;
	}
}

uint32_t catalog__joins_of(const struct catalog *c, uint64_t used)
{
	uint32_t joins = 0;

	for (size_t i = 0; i < c->ncolumns && i < 64; i++)
		if (used & (1ull << i))
			joins |= c->columns[i].joins;
	return joins;
}
