// SPDX-License-Identifier: GPL-2.0-only
#include <stddef.h>
#include "schema.h"
#include "tract/abi.h"

static const char *const state_names[TRACT_STATE__COUNT] = {
	[TRACT_STATE_RUN] = "RUN",
	[TRACT_STATE_RUNQ] = "RUNQ",
	[TRACT_STATE_DISK] = "DISK",
	[TRACT_STATE_SLEEP] = "SLEEP",
	[TRACT_STATE_STOPPED] = "STOPPED",
	[TRACT_STATE_TRACED] = "TRACED",
	[TRACT_STATE_ZOMBIE] = "ZOMBIE",
	[TRACT_STATE_IDLE] = "IDLE",
};

const char *state_name(int state)
{
	if (state < 0 || state >= TRACT_STATE__COUNT)
		return "?";
	return state_names[state];
}

const char *const sample_columns[] = {
	"ts_us", "weight_us", "tid", "tgid", "comm", "pcomm", "exe", "uid", "state", "cpu",
	"syscall", "sc_us", "state_us", "kstack_id", "waker_tid",
	"sc_arg0", "sc_arg1", "sc_arg2", "sc_arg3", "sc_arg4", "sc_arg5", "cgroup_id", "cgroup", "file", "runq_us", "waker",
	"io_dev", "io_op", "io_bytes", "io_us", "io_service_us", "wake_us", "wake_runq_us", "ustack_id", NULL,
};

/*
 * Facts hold small integers; names and values that repeat live in dimension
 * tables, so a sample costs a few dozen bytes.  The samples view joins them
 * back into the documented columns.
 */
const char tract_schema_sql[] =
"-- tract store, schema version 5: one SQLite file per UTC hour.\n"
"CREATE TABLE meta (\n"
"  key   TEXT PRIMARY KEY,  -- host, kernel, frequency_hz, tract_version, schema_version, source\n"
"  value TEXT\n"
");\n"
"CREATE TABLE passes (\n"
"  id          INTEGER PRIMARY KEY,\n"
"  ts_us       INTEGER NOT NULL,  -- pass start, UTC microseconds since the epoch\n"
"  weight_us   INTEGER NOT NULL,  -- the real time this pass stands for: its interval (one pass at a random moment of each)\n"
"  visited     INTEGER NOT NULL,  -- threads the sampler looked at\n"
"  emitted     INTEGER NOT NULL,  -- rows stored (active threads)\n"
"  dropped     INTEGER NOT NULL,  -- rows the sampler could not deliver\n"
"  duration_us INTEGER NOT NULL,  -- wall time of the pass\n"
"  cpu_us      INTEGER NOT NULL,  -- CPU time the recorder spent on the pass\n"
"  hist_lost   INTEGER NOT NULL,  -- latency histogram counts lost to full kernel maps\n"
"  displaced   INTEGER NOT NULL DEFAULT 0,  -- rows shown RUN for the pass's moment that had left their CPU when visited\n"
"  unsampled_us INTEGER NOT NULL DEFAULT 0, -- intervals before this pass that no pass stands for: the recorder was stopped or starved\n"
"  load_rows   INTEGER NOT NULL DEFAULT 0,  -- rows in RUN, RUNQ or DISK: what the load average counts\n"
"  moment_read INTEGER NOT NULL DEFAULT 0   -- 1: what ran on each CPU was read at the pass's moment; 0: told from the threads' times\n"
");\n"
"CREATE TABLE threads (\n"
"  id    INTEGER PRIMARY KEY,\n"
"  tid   INTEGER NOT NULL,  -- thread id\n"
"  tgid  INTEGER NOT NULL,  -- process id\n"
"  comm  TEXT,              -- thread name, bytes as the kernel has them (not always UTF-8)\n"
"  pcomm TEXT,              -- process name (the main thread's name)\n"
"  exe   TEXT,              -- executable path, NULL for kernel threads or if unreadable\n"
"  uid   INTEGER,           -- real user id\n"
"  cgroup INTEGER           -- cgroups.id: the thread's cgroup v2 (container, systemd unit)\n"
");\n"
"CREATE TABLE calls (\n"
"  id INTEGER PRIMARY KEY,\n"
"  nr INTEGER NOT NULL,  -- syscalls.nr\n"
"  a0 INTEGER, a1 INTEGER, a2 INTEGER, a3 INTEGER, a4 INTEGER, a5 INTEGER  -- its arguments as signed 64-bit\n"
");\n"
"CREATE TABLE stacks (\n"
"  id     INTEGER PRIMARY KEY,  -- kstack_id or ustack_id in samples; local to this file\n"
"  kind   TEXT NOT NULL,        -- 'kernel' or 'user'\n"
"  hash   INTEGER NOT NULL,     -- hash of frames: the same stack has the same hash in every file\n"
"  frames TEXT NOT NULL         -- outermost;...;innermost function names (folded-stack order)\n"
");\n"
"CREATE TABLE syscalls (nr INTEGER PRIMARY KEY, name TEXT NOT NULL);\n"
"CREATE TABLE wakers (\n"
"  id   INTEGER PRIMARY KEY,\n"
"  tid  INTEGER,       -- the thread that ran a wakeup; NULL for irq and timer\n"
"  name TEXT NOT NULL  -- its name, or irq, or timer\n"
");\n"
"CREATE TABLE files (\n"
"  id   INTEGER PRIMARY KEY,\n"
"  name TEXT NOT NULL  -- a path, a socket (tcp 10.0.0.1:41234->10.0.0.2:5432 ESTABLISHED), pipe:[N], ...\n"
");\n"
"CREATE TABLE cgroups (\n"
"  id   INTEGER PRIMARY KEY,  -- cgroup v2 id: the inode number of the cgroup's directory\n"
"  path TEXT NOT NULL         -- below the cgroup2 root, e.g. /system.slice/ssh.service\n"
");\n"
"CREATE TABLE states (id INTEGER PRIMARY KEY, name TEXT NOT NULL);\n"
"CREATE TABLE sample_facts (\n"
"  pass      INTEGER NOT NULL,  -- passes.id\n"
"  thread    INTEGER NOT NULL,  -- threads.id\n"
"  state     INTEGER NOT NULL,  -- states.id\n"
"  cpu       INTEGER,           -- CPU the thread is on or last ran on\n"
"  call      INTEGER,           -- calls.id: the syscall and its arguments; NULL in user mode\n"
"  sc_us     INTEGER,           -- time in the syscall so far; NULL if unknown\n"
"  state_us  INTEGER,           -- time in the state so far; NULL if unknown\n"
"  kstack    INTEGER,           -- stacks.id of the kernel stack; off-CPU threads only\n"
"  file      INTEGER,           -- files.id: the file or socket of a syscall's fd argument\n"
"  runq_us   INTEGER,           -- mean wait for a CPU per switch-in since the thread's previous sample\n"
"  waker     INTEGER,           -- wakers.id: who ran the latest wakeup: a thread, timer, or irq (devices, softirqs)\n"
"  wake_us   INTEGER,           -- time since that wakeup; NULL when the thread has been switched out and in since\n"
"  wake_runq_us INTEGER,        -- that wakeup's wait for a CPU (woken -> on CPU), or so far while RUNQ\n"
"  ustack    INTEGER            -- stacks.id of the user stack; threads in a syscall only\n"
");\n"
"-- Few samples wait on a block request they submitted; their request is kept apart\n"
"-- so that every other sample does not carry five empty columns.\n"
"CREATE TABLE sample_io (\n"
"  fact       INTEGER PRIMARY KEY,  -- sample_facts.rowid\n"
"  dev        TEXT NOT NULL,        -- for a DISK thread, the block request it submitted and waits on: device\n"
"  op         TEXT NOT NULL,        -- read, write, flush, discard, ...\n"
"  bytes      INTEGER,\n"
"  us         INTEGER,              -- the request's time so far since it was queued\n"
"  service_us INTEGER               -- ... and since the device got it\n"
");\n"
"CREATE TABLE io_latency (\n"
"  pass  INTEGER NOT NULL,  -- passes.id: completions since the previous pass\n"
"  dev   TEXT NOT NULL,     -- block device (partition) name\n"
"  op    TEXT NOT NULL,     -- read, write, flush, ...\n"
"  le_us INTEGER NOT NULL,  -- latency from queueing to completion below this power of two\n"
"  count INTEGER NOT NULL,\n"
"  sum_us INTEGER NOT NULL DEFAULT 0  -- their latencies summed: sum(sum_us) / sum(count) is the mean\n"
");\n"
"CREATE TABLE wakeups (\n"
"  pass       INTEGER NOT NULL,  -- passes.id: wakeups whose wakee got a CPU since the previous pass (--wakeup-edges)\n"
"  waker_tgid INTEGER,           -- process that ran the wakeups; NULL for irq and timer\n"
"  waker      TEXT,              -- its name, or irq, or timer; NULL if it exited before the pass\n"
"  wakee_tgid INTEGER NOT NULL,  -- process woken\n"
"  wakee      TEXT,              -- its name\n"
"  count      INTEGER NOT NULL,\n"
"  runq_us    INTEGER NOT NULL,  -- summed over these wakeups: woken -> on CPU\n"
"  blocked_us INTEGER NOT NULL   -- summed: asleep -> woken\n"
");\n"
"CREATE TABLE syscall_latency (\n"
"  pass    INTEGER NOT NULL,  -- passes.id: syscalls completed since the previous pass (--syscall-latency)\n"
"  tgid    INTEGER NOT NULL,  -- process id\n"
"  pcomm   TEXT,              -- process name\n"
"  syscall TEXT,\n"
"  le_us   INTEGER NOT NULL,  -- latency below this power of two\n"
"  count   INTEGER NOT NULL,\n"
"  sum_us  INTEGER NOT NULL DEFAULT 0  -- their latencies summed\n"
");\n"
"CREATE TABLE runq_latency (\n"
"  pass    INTEGER NOT NULL,  -- passes.id: switch-ins since the previous pass (--runq-latency)\n"
"  tgid    INTEGER NOT NULL,  -- process id\n"
"  pcomm   TEXT,              -- process name\n"
"  le_us   INTEGER NOT NULL,  -- waited for a CPU, since woken or preempted, below this power of two;\n"
"                             -- without the time tract's own threads held that CPU\n"
"  count   INTEGER NOT NULL,\n"
"  sum_us  INTEGER NOT NULL   -- their waits summed\n"
");\n"
"CREATE VIEW samples AS\n"
"  SELECT p.ts_us, p.weight_us, t.tid, t.tgid, t.comm, t.pcomm, t.exe, t.uid,\n"
"         st.name AS state, f.cpu, sc.name AS syscall, f.sc_us, f.state_us,\n"
"         f.kstack AS kstack_id, wk.tid AS waker_tid,\n"
"         c.a0 AS sc_arg0, c.a1 AS sc_arg1, c.a2 AS sc_arg2,\n"
"         c.a3 AS sc_arg3, c.a4 AS sc_arg4, c.a5 AS sc_arg5,\n"
"         t.cgroup AS cgroup_id, cg.path AS cgroup, fl.name AS file, f.runq_us, wk.name AS waker,\n"
"         io.dev AS io_dev, io.op AS io_op, io.bytes AS io_bytes, io.us AS io_us,\n"
"         io.service_us AS io_service_us, f.wake_us, f.wake_runq_us, f.ustack AS ustack_id\n"
"  FROM sample_facts f\n"
"  JOIN passes p ON p.id = f.pass\n"
"  JOIN threads t ON t.id = f.thread\n"
"  JOIN states st ON st.id = f.state\n"
"  LEFT JOIN calls c ON c.id = f.call\n"
"  LEFT JOIN syscalls sc ON sc.nr = c.nr\n"
"  LEFT JOIN cgroups cg ON cg.id = t.cgroup\n"
"  LEFT JOIN files fl ON fl.id = f.file\n"
"  LEFT JOIN wakers wk ON wk.id = f.waker\n"
"  LEFT JOIN sample_io io ON io.fact = f.rowid;\n";
