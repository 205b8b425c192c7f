// SPDX-License-Identifier: GPL-2.0-only
#include <pthread.h>
#include <stddef.h>
#include "columns.h"
#include "schema.h"
#include "strbuf.h"
#include "util.h"
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

/*
 * Facts hold small integers; names and values that repeat live in dimension
 * tables, so a sample costs a few dozen bytes.  The samples view joins them
 * back into the documented columns.
 */
static const char schema_head[] =
"-- tract store, schema version 10: one SQLite file per UTC hour.\n"
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
"  moment_read INTEGER NOT NULL DEFAULT 0,  -- 1: what ran on each CPU was read at the pass's moment; 0: told from the threads' times\n"
"  bpf_us      INTEGER            -- run time of tract's BPF programs since the previous pass, all CPUs;\n"
"                                 -- NULL: not measured (kernel.bpf_stats_enabled=0 for some of the interval; the /proc source)\n"
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
"CREATE TABLE states (id INTEGER PRIMARY KEY, name TEXT NOT NULL);\n";

/* Per pass: the block I/O histogram and the on-CPU profile. */
static const char schema_histograms[] =
"CREATE TABLE io_latency (\n"
"  pass  INTEGER NOT NULL,  -- passes.id: completions since the previous pass with rows here (taken once a second)\n"
"  dev   TEXT NOT NULL,     -- block device (partition) name\n"
"  op    TEXT NOT NULL,     -- read, write, flush, ...\n"
"  le_us INTEGER NOT NULL,  -- latency from queueing to completion below this power of two\n"
"  count INTEGER NOT NULL,\n"
"  sum_us INTEGER NOT NULL DEFAULT 0  -- their latencies summed: sum(sum_us) / sum(count) is the mean\n"
");\n"
"CREATE TABLE profile (\n"
"  pass    INTEGER NOT NULL,  -- passes.id: on-CPU ticks since the previous pass with rows here (--profile-hz, per CPU)\n"
"  thread  INTEGER NOT NULL,  -- threads.id: the thread that was running\n"
"  kstack  INTEGER,           -- stacks.id of the kernel stack at the tick; NULL in user mode\n"
"  ustack  INTEGER,           -- stacks.id of the user stack; NULL for kernel threads\n"
"  ticks   INTEGER NOT NULL   -- ticks with these stacks: ticks / profile_hz is CPU seconds\n"
");\n";

/*
 * The syscall and run-queue histograms and the wakeup edges repeat a few
 * processes and syscalls in every pass: their rows (the *_facts tables, since
 * schema 9) refer to them by id, and views of the documented names join the
 * names back (schema_named_views).
 */
static const char schema_named_facts[] =
"CREATE TABLE processes (\n"
"  id   INTEGER PRIMARY KEY,\n"
"  tgid INTEGER,  -- process id; NULL for the irq and timer wakers, and for a command's processes folded\n"
"                 -- together (those that lived less than a take, or past a take's budget of rows)\n"
"  name TEXT      -- its name (the main thread's; the one it ended with), or irq, or timer\n"
");\n"
"CREATE TABLE wakeup_facts (\n"
"  pass       INTEGER NOT NULL,  -- passes.id: wakeups whose wakee got a CPU since the previous pass with rows here\n"
"  waker      INTEGER NOT NULL,  -- processes.id of the process that ran the wakeups, or irq, or timer\n"
"  wakee      INTEGER NOT NULL,  -- processes.id of the process woken\n"
"  count      INTEGER NOT NULL,\n"
"  runq_us    INTEGER NOT NULL,  -- summed over these wakeups: woken -> on CPU\n"
"  blocked_us INTEGER NOT NULL   -- summed: asleep -> woken\n"
");\n"
"CREATE TABLE syscall_latency_facts (\n"
"  pass    INTEGER NOT NULL,  -- passes.id: syscalls completed since the previous pass with rows here, the untimed left out\n"
"  process INTEGER NOT NULL,  -- processes.id\n"
"  nr      INTEGER NOT NULL,  -- syscalls.nr\n"
"  le_us   INTEGER NOT NULL,  -- latency below this power of two\n"
"  count   INTEGER NOT NULL,\n"
"  sum_us  INTEGER NOT NULL   -- their latencies summed\n"
");\n"
"CREATE TABLE runq_latency_facts (\n"
"  pass    INTEGER NOT NULL,  -- passes.id: switch-ins since the previous pass with rows here (--runq-latency)\n"
"  process INTEGER NOT NULL,  -- processes.id\n"
"  le_us   INTEGER NOT NULL,  -- waited for a CPU, since woken or preempted, below this power of two;\n"
"                             -- without the time tract's own threads held that CPU\n"
"  count   INTEGER NOT NULL,\n"
"  sum_us  INTEGER NOT NULL   -- their waits summed\n"
");\n";

/* The views of the histograms and edges with their names, as the tables of schema 8 had them. */
static const char schema_named_views[] =
"-- wakeups: pass, waker_tgid (NULL for irq and timer), waker (its name, or irq, or timer;\n"
"--   [gone] for a process that ended unseen), wakee_tgid, wakee, count, runq_us, blocked_us;\n"
"--   NULL tgids: a command's short-lived processes folded together\n"
"CREATE VIEW wakeups AS\n"
"  SELECT h.pass, wr.tgid AS waker_tgid, wr.name AS waker, we.tgid AS wakee_tgid, we.name AS wakee,\n"
"         h.count, h.runq_us, h.blocked_us\n"
"  FROM wakeup_facts h JOIN processes wr ON wr.id = h.waker JOIN processes we ON we.id = h.wakee;\n"
"-- syscall_latency: pass, tgid, pcomm (process name), syscall, le_us, count, sum_us\n"
"CREATE VIEW syscall_latency AS\n"
"  SELECT h.pass, pr.tgid, pr.name AS pcomm, sc.name AS syscall, h.le_us, h.count, h.sum_us\n"
"  FROM syscall_latency_facts h JOIN processes pr ON pr.id = h.process LEFT JOIN syscalls sc ON sc.nr = h.nr;\n"
"-- runq_latency: pass, tgid, pcomm, le_us, count, sum_us\n"
"CREATE VIEW runq_latency AS\n"
"  SELECT h.pass, pr.tgid, pr.name AS pcomm, h.le_us, h.count, h.sum_us\n"
"  FROM runq_latency_facts h JOIN processes pr ON pr.id = h.process;\n";

struct stored_column {
	const char *name, *type, *doc;
};

/* What every fact refers to; the fact's own values follow, from the column table. */
static const struct stored_column fact_refs[] = {
	{ "pass", "INTEGER NOT NULL", "passes.id" },
	{ "thread", "INTEGER NOT NULL", "threads.id" },
	{ "state", "INTEGER NOT NULL", "states.id" },
	{ "call", "INTEGER", "calls.id: the syscall and its arguments; NULL in user mode" },
	{ "kstack", "INTEGER", "stacks.id of the kernel stack; off-CPU threads only" },
	{ "file", "INTEGER", "files.id: the file or socket of a syscall's fd argument" },
	{ "waker", "INTEGER", "wakers.id: who ran the latest wakeup" },
	{ "ustack", "INTEGER", "stacks.id of the user stack; off CPU with user registers saved" },
	{ "trace", "INTEGER", "traces.id: the trace context it published; NULL if none" },
	{ NULL, NULL, NULL },
};

_Static_assert(ARRAY_SIZE(fact_refs) == FACT_REF__COUNT, "the refs are bound in this order");

static const struct stored_column io_refs[] = {
	{ "fact", "INTEGER PRIMARY KEY", "sample_facts.rowid" },
	{ NULL, NULL, NULL },
};

/* A blocked sample's holder and chain, kept apart as its block request is: most samples have none. */
static const struct stored_column blocker_refs[] = {
	{ "fact", "INTEGER PRIMARY KEY", "sample_facts.rowid" },
	{ NULL, NULL, NULL },
};

static const struct stored_column trace_refs[] = {
	{ "id", "INTEGER PRIMARY KEY", "sample_facts.trace" },
	{ NULL, NULL, NULL },
};

static void add_column_line(struct strbuf *b, const struct stored_column *c, int last, int coarse_us)
{
	strbuf_addf(b, "  %-12s %s%s  -- %s%s\n", c->name, c->type, last ? "" : ",", c->doc,
		    coarse_us ? "; from 8389000 us on, -milliseconds (the samples view reads us)" : "");
}

/* CREATE TABLE name: the refs, then the columns of the table that are stored in it. */
static void add_table(struct strbuf *b, const char *name, const struct stored_column *refs,
		      enum column_where where)
{
	size_t nr = 0, left = 0;

	for (size_t i = 0; i < NR_SAMPLE_COLUMNS; i++)
		left += sample_columns[i].where == where;
	strbuf_addf(b, "CREATE TABLE %s (\n", name);
	for (; refs[nr].name; nr++)
		add_column_line(b, &refs[nr], !left && !refs[nr + 1].name, 0);
	for (size_t i = 0; i < NR_SAMPLE_COLUMNS; i++) {
		const struct sample_column *c = &sample_columns[i];
		struct stored_column sc = { column_stored_name(c), c->type, c->doc };

		if (c->where == where)
			add_column_line(b, &sc, !--left, column_coarse_us(c));
	}
	strbuf_add(b, ");\n");
}

void schema_samples_select(struct strbuf *b, const char *(*sql_of)(size_t column), const char *more)
{
	uint32_t joins = 0;

	strbuf_add(b, "SELECT");
	for (size_t i = 0; i < NR_SAMPLE_COLUMNS; i++) {
		const struct sample_column *c = &sample_columns[i];
		const char *sql = sql_of ? sql_of(i) : NULL;

		strbuf_addf(b, "%s\n    %s AS %s", i ? "," : "", sql ? sql : c->sql, c->name);
		joins |= c->joins;
	}
	if (more)
		strbuf_addf(b, ",\n    %s", more);
	strbuf_add(b, "\n  FROM sample_facts f\n  JOIN passes p ON p.id = f.pass");
	for (unsigned int i = 0; sample_join_sql[i]; i++)
		if (joins & (1u << i))
			strbuf_addf(b, "\n %s", sample_join_sql[i]);
}

static void add_view(struct strbuf *b)
{
	strbuf_add(b, "-- The samples as one table: the facts with what they refer to joined back.\n"
		      "CREATE VIEW samples AS\n  ");
	schema_samples_select(b, NULL, NULL);
	strbuf_add(b, ";\n");
}

/* The docs of the view's columns, as comments (SQLite keeps none inside a view). */
static void add_view_docs(struct strbuf *b)
{
	strbuf_add(b, "-- samples columns:\n");
	for (size_t i = 0; i < NR_SAMPLE_COLUMNS; i++)
		strbuf_addf(b, "--   %-14s %s\n", sample_columns[i].name, sample_columns[i].doc);
}

static char *blockers_text, *insert_blocker;
static char *schema_text, *view_text, *traces_text, *insert_facts, *insert_io, *insert_trace;

/* INSERT INTO table(refs..., stored columns...) VALUES (?, ...): refs bind first, in order. */
static char *build_insert(const char *table, const struct stored_column *refs, enum column_where where)
{
	struct strbuf b = { 0 };
	size_t n = 0;

	strbuf_addf(&b, "INSERT INTO %s(", table);
	for (; refs[n].name; n++)
		strbuf_addf(&b, "%s%s", n ? ", " : "", refs[n].name);
	for (size_t i = 0; i < NR_SAMPLE_COLUMNS; i++)
		if (sample_columns[i].where == where) {
			strbuf_addf(&b, ", %s", column_stored_name(&sample_columns[i]));
			n++;
		}
	strbuf_add(&b, ") VALUES (");
	for (size_t i = 0; i < n; i++)
		strbuf_add(&b, i ? ", ?" : "?");
	strbuf_add(&b, ")");
	return strbuf_take(&b);
}

static void build_schema(void)
{
	struct strbuf b = { 0 };

	add_table(&b, "traces", trace_refs, TRACE);
	traces_text = strbuf_take(&b);
	add_table(&b, "sample_blockers", blocker_refs, BLOCKER);
	blockers_text = strbuf_take(&b);
	strbuf_add(&b, schema_head);
	add_table(&b, "sample_facts", fact_refs, FACT);
	strbuf_add(&b, "-- Few samples wait on a block request they submitted; their request is kept apart\n"
		       "-- so that every other sample does not carry five empty columns.\n");
	add_table(&b, "sample_io", io_refs, IO);
	strbuf_add(&b, "-- A sample waiting for a lock whose holder is named: the holder, and the chain of holders\n"
		       "-- at the same pass, kept apart as well.\n");
	strbuf_add(&b, blockers_text);
	strbuf_add(&b, "-- The trace contexts samples published: each once per file, as a thread keeps one\n"
		       "-- for all the samples of its request.\n");
	strbuf_add(&b, traces_text);
	strbuf_add(&b, schema_histograms);
	strbuf_add(&b, schema_named_facts);
	strbuf_add(&b, schema_named_views);
	add_view_docs(&b);
	add_view(&b);
	schema_text = strbuf_take(&b);
	strbuf_add(&b, "DROP VIEW IF EXISTS samples;\n");
	add_view(&b);
	view_text = strbuf_take(&b);
	insert_facts = build_insert("sample_facts", fact_refs, FACT);
	insert_io = build_insert("sample_io", io_refs, IO);
	insert_blocker = build_insert("sample_blockers", blocker_refs, BLOCKER);
	insert_trace = build_insert("traces", trace_refs, TRACE);
}

const char *schema_sql(void)
{
	static pthread_once_t once = PTHREAD_ONCE_INIT;

	pthread_once(&once, build_schema);
	return schema_text;
}

const char *schema_view_sql(void)
{
	schema_sql();
	return view_text;
}

const char *schema_insert_fact_sql(void)
{
	schema_sql();
	return insert_facts;
}

const char *schema_named_facts_sql(void)
{
	return schema_named_facts;
}

const char *schema_named_views_sql(void)
{
	return schema_named_views;
}

const char *schema_insert_io_sql(void)
{
	schema_sql();
	return insert_io;
}

const char *schema_insert_blocker_sql(void)
{
	schema_sql();
	return insert_blocker;
}

const char *schema_blockers_sql(void)
{
	schema_sql();
	return blockers_text;
}

const char *schema_insert_trace_sql(void)
{
	schema_sql();
	return insert_trace;
}

const char *schema_traces_sql(void)
{
	schema_sql();
	return traces_text;
}
