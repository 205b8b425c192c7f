// SPDX-License-Identifier: GPL-2.0-only
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include "pass_tables.h"
#include "strbuf.h"
#include "util.h"

/* Each table's row type, for its columns' functions. */
#define PASS_TABLE(name, row, rows, facts, doc) typedef row pt_row_##name;
#define PASS_COLUMN(...)
#include "pass_tables.def"
#undef PASS_TABLE
#undef PASS_COLUMN

/* The kinds of value, read from a row into *v. */
#define P_U64(f) column_uint(v, 1, r->f)
#define P_NONZERO(f) column_uint(v, r->f != 0, r->f)
#define P_WITH(has, f) column_uint(v, r->has, r->f)
#define P_COUNT(f) column_uint(v, 1, r->f)
#define P_SUM(f) column_uint(v, 1, r->f)
#define P_WEIGHT(f) column_uint(v, 1, r->f)
#define P_TEXT(f) column_text(v, r->f, 0)
#define P_NAME(f) column_text(v, r->f, sizeof(r->f))
#define P_STACK(f) (column_uint(v, r->f != NULL, r->f ? r->f->hash : 0), v->stack = r->f)

#define PASS_TABLE(...)
#define PASS_COLUMN(table, name, value, store, sqlite, ch, doc)				\
	static void value_##table##_##name(const struct pass *p, const void *row, struct column_value *v) \
	{										\
		const pt_row_##table *r = row;						\
		(void)p;								\
		value;									\
	}
#include "pass_tables.def"
#undef PASS_COLUMN
#include "pass_values_end.h"

/* The kinds again, set in a row from text. */
#define U64(dst) ({ uint64_t u_; int e_ = column_parse_u64(in, &u_); if (!e_) dst = u_; e_; })
#define P_U64(f) U64(r->f)
#define P_NONZERO(f) U64(r->f)
#define P_WITH(has, f) (r->has = 1, U64(r->f))
#define P_COUNT(f) 0
#define P_SUM(f) U64(r->f)
#define P_WEIGHT(f) U64(r->f)
#define P_TEXT(f) (r->f = cr->keep(cr->arg, in->s, in->len), 0)
#define P_NAME(f) column_parse_name(in, r->f, sizeof(r->f))
#define P_STACK(f) ({ uint64_t h_; int e_ = column_parse_u64(in, &h_); \
		      e_ ? e_ : (r->f = cr->stack(cr->arg, h_)) ? 0 : -ENOENT; })

#define PASS_COLUMN(table, name, value, store, sqlite, ch, doc)				\
	static int set_##table##_##name(void *row, const struct csv_value *in, const struct column_reader *cr) \
	{										\
		pt_row_##table *r = row;						\
		(void)r, (void)cr;							\
		return in->null ? 0 : (value);						\
	}
#include "pass_tables.def"
#undef PASS_COLUMN
#undef U64
#include "pass_values_end.h"

/*
 * The kinds once more, as TOTAL(kind, add): whether rows that merge add the
 * column up (the row into m), for the columns' add functions here and their
 * total in all_columns below.
 */
#define P_U64(f) TOTAL(NONE, (void)0)
#define P_NONZERO(f) TOTAL(NONE, (void)0)
#define P_WITH(has, f) TOTAL(NONE, (void)0)
#define P_COUNT(f) TOTAL(NONE, (void)0)
#define P_SUM(f) TOTAL(SUM, m->f += r->f)
#define P_WEIGHT(f) TOTAL(WEIGHT, m->f += r->f)
#define P_TEXT(f) TOTAL(NONE, (void)0)
#define P_NAME(f) TOTAL(NONE, (void)0)
#define P_STACK(f) TOTAL(NONE, (void)0)

#define TOTAL(kind, add) add
#define PASS_COLUMN(table, name, value, store, sqlite, ch, doc)				\
	static void add_##table##_##name(void *into, const void *row)			\
	{										\
		pt_row_##table *m = into;						\
		const pt_row_##table *r = row;						\
		(void)m, (void)r;							\
		value;									\
	}
#include "pass_tables.def"
#undef PASS_COLUMN
#undef PASS_TABLE
#undef TOTAL

/* How SQLite keeps each column. */
#define S_SELF S_SELF_KIND, NULL, NULL, PART_NONE
#define S_PROCESS(ref, alias, part) S_PROCESS_KIND, #ref, #alias, PART_##part
#define S_THREAD(part) S_THREAD_KIND, "thread", "t", PART_##part
#define S_SYSCALL S_SYSCALL_KIND, "nr", "sc", PART_NAME
#define S_STACK(ref) S_STACK_KIND, #ref, NULL, PART_NONE
#define S_ENDER(part) S_ENDER_KIND, "ender", "en", PART_##part
#define S_BEFORE_PASS(ref) S_BEFORE_PASS_KIND, #ref, NULL, PART_NONE

/*
 * Every table's columns in one array, in the def's order, so that a table's
 * are a run of it: PC_START_name is where the table's run starts (the
 * enumerator after it takes the same value).
 */
enum pass_column_index {
#define PASS_TABLE(name, ...) PC_START_##name, PC_BEFORE_##name = PC_START_##name - 1,
#define PASS_COLUMN(table, name, ...) PC_##table##_##name,
#include "pass_tables.def"
#undef PASS_TABLE
#undef PASS_COLUMN
	NR_PASS_COLUMNS
};

static const enum pass_table_id table_of_column[NR_PASS_COLUMNS] = {
#define PASS_TABLE(...)
#define PASS_COLUMN(table, name, ...) [PC_##table##_##name] = PT_##table,
#include "pass_tables.def"
#undef PASS_TABLE
#undef PASS_COLUMN
};

static const struct pass_column all_columns[NR_PASS_COLUMNS] = {
#define PASS_TABLE(...)
#define TOTAL(kind, add) TOTAL_##kind
#define PASS_COLUMN(table, name, value, store, sqlite, ch, doc) \
	[PC_##table##_##name] = { #name, store, sqlite, ch, doc, value_##table##_##name, set_##table##_##name, \
				  value, add_##table##_##name },
#include "pass_tables.def"
#undef PASS_TABLE
#undef PASS_COLUMN
#undef TOTAL
};
#include "pass_values_end.h"
#undef S_SELF
#undef S_PROCESS
#undef S_THREAD
#undef S_SYSCALL
#undef S_STACK
#undef S_ENDER
#undef S_BEFORE_PASS

/* The rows of each table in a pass: how many, the i-th, a new one. */
#define PASS_COLUMN(...)
#define ROWS(m) p->m.nr
#define ITSELF 1
#define PASS_TABLE(name, row, rows, facts, doc) \
	static size_t nrows_##name(const struct pass *p) { (void)p; return rows; }
#include "pass_tables.def"
#undef PASS_TABLE
#undef ROWS
#undef ITSELF

#define ROWS(m) &p->m.rows[i]
#define ITSELF p
#define PASS_TABLE(name, row, rows, facts, doc) \
	static const void *row_##name(const struct pass *p, size_t i) { (void)i; return rows; }
#include "pass_tables.def"
#undef PASS_TABLE
#undef ROWS
#undef ITSELF

#define ADD_ROW(r) _Generic((r), struct hist_rows *: hist_rows__add, struct wakeup_rows *: wakeup_rows__add, \
			    struct profile_rows *: profile_rows__add, struct steal_rows *: steal_rows__add, \
			    struct wait_end_rows *: wait_end_rows__add)(r)
#define ROWS(m) ADD_ROW(&p->m)
#define ITSELF NULL
#define PASS_TABLE(name, row, rows, facts, doc) \
	static void *add_##name(struct pass *p) { (void)p; return rows; }
#include "pass_tables.def"
#undef PASS_TABLE
#undef ROWS
#undef ITSELF

#define ROWS(m) 0
#define ITSELF 1
#define PASS_TABLE(name, row, rows, facts, doc) \
	[PT_##name] = { #name, facts ? facts : #name, doc, rows, &all_columns[PC_START_##name], 0, \
			nrows_##name, row_##name, add_##name },
struct pass_table pass_tables[NR_PASS_TABLES] = {
#include "pass_tables.def"
};
#undef PASS_TABLE
#undef PASS_COLUMN
#undef ROWS
#undef ITSELF

/* Each table's count of columns: the length of its run (before the constructors that read the tables). */
__attribute__((constructor(101))) static void count_columns(void)
{
	for (size_t i = 0; i < NR_PASS_COLUMNS; i++)
		pass_tables[table_of_column[i]].ncolumns++;
}

static int kept_first(const struct pass_table *t, size_t i)
{
	const struct pass_column *c = &t->columns[i];

	for (size_t j = 0; c->store != S_SELF_KIND && j < i; j++)
		if (t->columns[j].store == c->store && !strcmp(t->columns[j].ref, c->ref))
			return 0;
	return 1;
}

size_t pass_table_stored(const struct pass_table *t, const struct pass_column **first_of, size_t max)
{
	size_t n = 0;

	for (size_t i = 0; i < t->ncolumns && n < max; i++)
		if (kept_first(t, i))
			first_of[n++] = &t->columns[i];
	return n;
}

static const char *stored_name(const struct pass_column *c)
{
	return c->store == S_SELF_KIND ? c->name : c->ref;
}

static const char *stored_type(const struct pass_column *c)
{
	return c->store == S_SELF_KIND ? c->sqlite_type : c->store == S_STACK_KIND ? "INTEGER" : "INTEGER NOT NULL";
}

static const char *const stored_of[] = {
	[S_SELF_KIND] = "", [S_PROCESS_KIND] = "processes.id: ", [S_THREAD_KIND] = "threads.id: ",
	[S_SYSCALL_KIND] = "syscalls.nr: ", [S_STACK_KIND] = "stacks.id: ",
	[S_ENDER_KIND] = "enders.id: what ended it, and the class that made the wait",
	[S_BEFORE_PASS_KIND] = "(the pass's ts_us minus it is the view's) ",
};

static void column_line(struct strbuf *b, const char *name, const char *type, int last, const char *what,
			const char *doc)
{
	strbuf_addf(b, "  %-12s %s%s  -- %s%s\n", name, type, last ? "" : ",", what, doc);
}

void pass_table_sqlite_create(struct strbuf *b, const struct pass_table *t)
{
	const struct pass_column *kept[64];
	size_t n = pass_table_stored(t, kept, ARRAY_SIZE(kept));

	strbuf_addf(b, "CREATE TABLE %s (\n", t->facts);
	if (t->itself)
		strbuf_addf(b, "  %-12s INTEGER PRIMARY KEY,  -- %s\n", "id", t->doc);
	else
		column_line(b, "pass", "INTEGER NOT NULL", 0, "passes.id: ", t->doc);
	for (size_t i = 0; i < n; i++)
		/* an ender's id stands for all its columns: not for the first alone */
		column_line(b, stored_name(kept[i]), stored_type(kept[i]), i + 1 == n, stored_of[kept[i]->store],
			    kept[i]->store == S_ENDER_KIND ? "" : kept[i]->doc);
	strbuf_add(b, ");\n");
}

const char *pass_column_sql(const struct pass_column *c, char *buf, size_t len)
{
	static const char *const part_names[] = {
		[PART_TID] = "tid", [PART_TGID] = "tgid", [PART_NAME] = "name", [PART_COMM] = "comm",
		[PART_PCOMM] = "pcomm", [PART_CLASS] = "wait_class",
	};

	switch (c->store) {
	case S_SELF_KIND:
		snprintf(buf, len, "h.%s", c->name);
		break;
	case S_STACK_KIND:
		snprintf(buf, len, "h.%s", c->ref);
		break;
	case S_BEFORE_PASS_KIND:
		snprintf(buf, len, "(p.ts_us - h.%s)", c->ref);
		break;
	default:
		snprintf(buf, len, "%s.%s", c->alias, part_names[c->part]);
	}
	return buf;
}

/* The joins the columns' SQL needs over the facts as h (the passes as p where the caller has not joined them). */
static void add_joins(struct strbuf *b, const struct pass_table *t, int with_passes)
{
	for (size_t i = 0; i < t->ncolumns; i++) {
		const struct pass_column *c = &t->columns[i];

		if (!kept_first(t, i))
			continue;
		if (c->store == S_PROCESS_KIND)
			strbuf_addf(b, " JOIN processes %s ON %s.id = h.%s", c->alias, c->alias, c->ref);
		else if (c->store == S_THREAD_KIND)
			strbuf_add(b, " JOIN threads t ON t.id = h.thread");
		else if (c->store == S_SYSCALL_KIND)
			strbuf_add(b, " LEFT JOIN syscalls sc ON sc.nr = h.nr");
		else if (c->store == S_ENDER_KIND)
			strbuf_addf(b, " JOIN enders %s ON %s.id = h.%s", c->alias, c->alias, c->ref);
		else if (c->store == S_BEFORE_PASS_KIND && with_passes) {
			strbuf_add(b, " JOIN passes p ON p.id = h.pass");
			with_passes = 0;
		}
	}
}

void pass_table_sqlite_view(struct strbuf *b, const struct pass_table *t)
{
	char sql[64];

	if (!strcmp(t->facts, t->name))
		return;
	strbuf_addf(b, "-- %s: pass", t->name);
	for (size_t i = 0; i < t->ncolumns; i++)
		strbuf_addf(b, ", %s", t->columns[i].name);
	strbuf_addf(b, " (the rows of %s with the names their ids stand for)\n", t->facts);
	strbuf_addf(b, "CREATE VIEW %s AS\n  SELECT h.pass", t->name);
	for (size_t i = 0; i < t->ncolumns; i++)
		strbuf_addf(b, ", %s AS %s", pass_column_sql(&t->columns[i], sql, sizeof(sql)), t->columns[i].name);
	strbuf_addf(b, "\n  FROM %s h", t->facts);
	add_joins(b, t, 1);
	strbuf_add(b, ";\n");
}

char *pass_table_sqlite_insert(const struct pass_table *t)
{
	const struct pass_column *kept[64];
	size_t n = pass_table_stored(t, kept, ARRAY_SIZE(kept));
	struct strbuf b = { 0 };

	strbuf_addf(&b, "INSERT INTO %s(%s", t->facts, t->itself ? "" : "pass");
	for (size_t i = 0; i < n; i++)
		strbuf_addf(&b, "%s%s", i || !t->itself ? ", " : "", stored_name(kept[i]));
	strbuf_add(&b, ") VALUES (");
	for (size_t i = 0; i < n + !t->itself; i++)
		strbuf_add(&b, i ? ", ?" : "?");
	strbuf_add(&b, ")");
	return strbuf_take(&b);
}

int ch_type_nullable(const char *type)
{
	return !strncmp(type, "Nullable(", 9);
}

char *pass_table_sqlite_select(const struct pass_table *t)
{
	struct strbuf b = { 0 };
	char sql[64];

	strbuf_add(&b, t->itself ? "SELECT " : "SELECT p.ts_us, ");
	for (size_t i = 0; i < t->ncolumns; i++) {
		const struct pass_column *c = &t->columns[i];
		const char *v = t->itself ? c->name : pass_column_sql(c, sql, sizeof(sql));

		/* what ClickHouse takes no NULL in gets its default */
		if (ch_type_nullable(c->ch_type))
			strbuf_addf(&b, "%s, ", v);
		else
			strbuf_addf(&b, "coalesce(%s, %s), ", v, strstr(c->ch_type, "String") ? "''" : "0");
	}
	if (t->itself) {
		strbuf_addf(&b, "id FROM %s WHERE ts_us >= ?1 AND ts_us < ?2 ORDER BY id", t->facts);
	} else {
		strbuf_addf(&b, "p.id FROM %s h JOIN passes p ON p.id = h.pass", t->facts);
		add_joins(&b, t, 0);
		strbuf_add(&b, " WHERE p.ts_us >= ?1 AND p.ts_us < ?2 ORDER BY h.rowid");
	}
	return strbuf_take(&b);
}

void pass_table_csv_header(struct strbuf *b, const struct pass_table *t)
{
	if (!t->itself)
		strbuf_add(b, "ts_us,");
	for (size_t i = 0; i < t->ncolumns; i++)
		strbuf_addf(b, "%s%s", i ? "," : "", t->columns[i].name);
}

void pass_table_ch_columns(struct strbuf *b, const struct pass_table *t, int with_types)
{
	if (!t->itself)
		strbuf_add(b, with_types ? "ts_us UInt64, " : "ts_us, ");
	for (size_t i = 0; i < t->ncolumns; i++)
		strbuf_addf(b, "%s%s%s%s", i ? ", " : "", t->columns[i].name, with_types ? " " : "",
			    with_types ? t->columns[i].ch_type : "");
}

void pass_rows_merge(const struct pass_table *t, void *into, const void *row)
{
	for (size_t i = 0; i < t->ncolumns; i++)
		if (t->columns[i].total != TOTAL_NONE)
			t->columns[i].add(into, row);
}

const struct pass_column *pass_table_weight(const struct pass_table *t)
{
	for (size_t i = 0; i < t->ncolumns; i++)
		if (t->columns[i].total == TOTAL_WEIGHT)
			return &t->columns[i];
	return NULL;
}
