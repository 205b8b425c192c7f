// SPDX-License-Identifier: GPL-2.0-only
#include <pthread.h>
#include <stddef.h>
#include <string.h>
#include "columns.h"
#include "pass_tables.h"
#include "schema.h"
#include "strbuf.h"
#include "util.h"
#include "tract/abi.h"

/*
 * Facts hold small integers; names and values that repeat live in dimension
 * tables, so a sample costs a few dozen bytes.  The samples view joins them
 * back into the documented columns.
 */
static const char schema_head[] =
"-- tract store: one SQLite file per UTC hour.\n"
"CREATE TABLE meta (\n"
"  key   TEXT PRIMARY KEY,  -- host, kernel, frequency_hz, tract_version, schema_version, source\n"
"  value TEXT\n"
");\n";

/* The dimensions the facts refer to; the passes come between (pass_tables.def). */
static const char schema_dimensions[] =
"CREATE TABLE threads (\n"
"  id    INTEGER PRIMARY KEY,\n"
"  tid   INTEGER NOT NULL,  -- thread id\n"
"  tgid  INTEGER NOT NULL,  -- process id\n"
"  comm  TEXT,              -- thread name, bytes as the kernel has them (not always UTF-8)\n"
"  pcomm TEXT,              -- process name (the main thread's name)\n"
"  exe   TEXT,              -- executable path, NULL for kernel threads or if unreadable\n"
"  uid   INTEGER,           -- real user id\n"
"  cgroup INTEGER,          -- cgroups.id: the thread's cgroup v2 (container, systemd unit)\n"
"  title TEXT               -- its process's title (command line) when sampled; NULL if not read (schema 13)\n"
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
"  name TEXT NOT NULL, -- a path, a socket (tcp 10.0.0.1:41234->10.0.0.2:5432 ESTABLISHED), pipe:[N], ...\n"
"  dev  TEXT           -- the block device of its filesystem, for samples in D on no request of their own\n"
"                      -- (io_dev); NULL for the others' (schema 14)\n"
");\n"
"CREATE TABLE cgroups (\n"
"  id   INTEGER PRIMARY KEY,  -- cgroup v2 id: the inode number of the cgroup's directory\n"
"  path TEXT NOT NULL         -- below the cgroup2 root, e.g. /system.slice/ssh.service\n"
");\n"
"CREATE TABLE states (id INTEGER PRIMARY KEY, name TEXT NOT NULL);\n";

/* What ended the sampled waits (wait_end_facts.ender), schema 17: a few threads, the timer and irqs, each once. */
static const char schema_enders[] =
"CREATE TABLE enders (\n"
"  id         INTEGER PRIMARY KEY,\n"
"  tid        INTEGER,       -- the thread that woke the wait; NULL for a timer or an interrupt\n"
"  tgid       INTEGER,       -- that thread's process; NULL for a timer or an interrupt\n"
"  name       TEXT NOT NULL, -- the waking thread's name, or timer, or irq\n"
"  wait_class TEXT NOT NULL  -- what that made the wait: blocked, sleeping or input\n"
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
");\n";

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
	{ "dev", "TEXT NOT NULL", "block device (io_dev)" },
	{ NULL, NULL, NULL },
};

/* A blocked sample's holder and chain, kept apart as its block request is: most samples have none. */
static const struct stored_column blocker_refs[] = {
	{ "fact", "INTEGER PRIMARY KEY", "sample_facts.rowid" },
	{ NULL, NULL, NULL },
};

/* After a fact's own values: the passes after its own that it stands for as well (FACT_PASSES). */
static const struct stored_column fact_tail[] = {
	{ "repeats", "INTEGER", "passes after its own at which its thread's sample repeats it (same wait and stacks, "
	  "times gone on with the clock); NULL: none; 8388607: to the file's newest pass" },
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

/* CREATE TABLE name: the refs, then the columns of the table that are stored in it, then the tail (or NULL). */
static void add_table(struct strbuf *b, const char *name, const struct stored_column *refs,
		      enum column_where where, const struct stored_column *tail)
{
	size_t nr = 0, left = 0;

	for (size_t i = 0; i < NR_SAMPLE_COLUMNS; i++)
		left += sample_columns[i].where == where;
	for (size_t i = 0; tail && tail[i].name; i++)
		left++;
	strbuf_addf(b, "CREATE TABLE %s (\n", name);
	for (; refs[nr].name; nr++)
		add_column_line(b, &refs[nr], !left && !refs[nr + 1].name, 0);
	for (size_t i = 0; i < NR_SAMPLE_COLUMNS; i++) {
		const struct sample_column *c = &sample_columns[i];
		struct stored_column sc = { column_stored_name(c), c->type, c->doc };

		if (c->where == where)
			add_column_line(b, &sc, !--left, column_coarse_us(c));
	}
	for (size_t i = 0; tail && tail[i].name; i++)
		add_column_line(b, &tail[i], !--left, 0);
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
	strbuf_add(b, "\n  FROM sample_facts f\n  JOIN " FACT_PASSES);
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
static char *schema_text, *view_text, *traces_text, *insert_facts, *insert_io, *insert_trace, *named_facts_text,
	*named_views_text;

/*
 * The pass's own tables (pass_tables.def): those that keep their rows as
 * they are (facts 0), or by the ids of processes and syscalls, with the
 * processes and the views of their names (facts 1).
 */
static void add_pass_tables(struct strbuf *b, int facts)
{
	for (size_t i = 0; i < NR_PASS_TABLES; i++) {
		const struct pass_table *t = &pass_tables[i];

		if (!t->itself && !strcmp(t->facts, t->name) == !facts)
			pass_table_sqlite_create(b, t);
	}
}

static void add_pass_views(struct strbuf *b)
{
	for (size_t i = 0; i < NR_PASS_TABLES; i++)
		pass_table_sqlite_view(b, &pass_tables[i]);
}

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

	add_table(&b, "traces", trace_refs, TRACE, NULL);
	traces_text = strbuf_take(&b);
	add_table(&b, "sample_blockers", blocker_refs, BLOCKER, NULL);
	blockers_text = strbuf_take(&b);
	strbuf_add(&b, schema_named_facts);
	add_pass_tables(&b, 1);
	named_facts_text = strbuf_take(&b);
	add_pass_views(&b);
	named_views_text = strbuf_take(&b);
	strbuf_add(&b, schema_head);
	pass_table_sqlite_create(&b, &pass_tables[PT_passes]);
	strbuf_add(&b, schema_dimensions);
	strbuf_add(&b, schema_enders);
	add_table(&b, "sample_facts", fact_refs, FACT, fact_tail);
	strbuf_add(&b, "-- Few samples wait on a block request they submitted; their request is kept apart\n"
		       "-- so that every other sample does not carry five empty columns.\n");
	add_table(&b, "sample_io", io_refs, IO, NULL);
	strbuf_add(&b, "-- A sample waiting for a lock whose holder is named: the holder, and the chain of holders\n"
		       "-- at the same pass, kept apart as well.\n");
	strbuf_add(&b, blockers_text);
	strbuf_add(&b, "-- The trace contexts samples published: each once per file, as a thread keeps one\n"
		       "-- for all the samples of its request.\n");
	strbuf_add(&b, traces_text);
	strbuf_add(&b, "-- Per pass: what the kernel counted over its interval.\n");
	add_pass_tables(&b, 0);
	strbuf_add(&b, "-- The histograms, edges and ended waits that repeat a few processes, syscalls and enders in\n"
		       "-- every pass refer to them by id, and views of the same names join the names back.\n");
	strbuf_add(&b, named_facts_text);
	strbuf_add(&b, named_views_text);
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
	schema_sql();
	return named_facts_text;
}

const char *schema_named_views_sql(void)
{
	schema_sql();
	return named_views_text;
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

const char *schema_enders_sql(void)
{
	return schema_enders;
}

const char *schema_traces_sql(void)
{
	schema_sql();
	return traces_text;
}
