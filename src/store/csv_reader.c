// SPDX-License-Identifier: GPL-2.0-only
/*
 * A CSV hour read back: its files parsed into the passes they were written
 * from (the column table sets each sample's columns from its text), and
 * those written into an in-memory SQLite store, so that every reader reads
 * a CSV hour as it reads an SQLite one.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "columns.h"
#include "csv.h"
#include "csv_reader.h"
#include "dict.h"
#include "hours.h"
#include "pass_tables.h"
#include "sink.h"
#include "util.h"

/* The most columns a table of the pass has. */
#define MAX_PASS_COLUMNS 32

struct loader {
	const char *dir;
	uint64_t hour_us;
	char *path;			/* the file being read, for messages */
	size_t line;
	struct pass *passes;		/* in the order of passes.csv: by time */
	size_t nr, cap;
	struct dict *stacks;		/* hash -> index in kstacks */
	struct kstack *kstacks;
	size_t nr_stacks, cap_stacks;
	char **kept;			/* strings the rows point to */
	size_t nr_kept, cap_kept;
	size_t orphans;			/* samples of a pass that has no line in passes.csv */
};

static const char *keep(void *arg, const char *s, size_t len)
{
	struct loader *l = arg;
	char *copy = xcalloc(1, len + 1);

	memcpy(copy, s, len);
	ARRAY_GROW(l->kept, l->nr_kept, l->cap_kept, 256);
	l->kept[l->nr_kept++] = copy;
	return copy;
}

static const struct kstack *stack_of(void *arg, uint64_t hash)
{
	struct loader *l = arg;
	uint32_t id = dict__find(l->stacks, &hash, sizeof(hash));

	return id ? &l->kstacks[id - 1] : NULL;
}

static int bad(struct loader *l, const char *what)
{
	tract_err("'%s' line %zu: %s", l->path, l->line, what);
	return -EIO;
}

/* Opens the hour's file with this suffix; NULL without a message when it does not exist. */
static FILE *open_part(struct loader *l, const char *suffix, int *err)
{
	FILE *f;

	free(l->path);
	l->path = store_hour_path(l->dir, l->hour_us, suffix);
	l->line = 0;
	f = fopen(l->path, "re");
	*err = 0;
	if (!f && errno != ENOENT) {
		*err = -errno;
		tract_err("cannot read '%s': %s", l->path, strerror(errno));
	}
	return f;
}

static int read_record(struct loader *l, FILE *f, struct csv_record *r)
{
	int rc = csv_read_record(f, r);

	l->line++;
	if (rc < 0)
		return bad(l, "a quoted field is not closed");
	return rc;
}

/* Where each header name is in the file: index[i] for names[i], -1 if absent. */
static void find_columns(const struct csv_record *hdr, const char *const *names, int *index, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		index[i] = -1;
		for (size_t c = 0; c < hdr->nr; c++)
			if (!strcmp(hdr->fields[c].s, names[i]))
				index[i] = (int)c;
	}
}

/* A column the file lacks (index -1), or an empty field: NULL. */
static int field_null(const struct csv_record *r, int index)
{
	return index < 0 || (size_t)index >= r->nr || r->fields[index].null;
}

static int field_u64(struct loader *l, const struct csv_record *r, int index, uint64_t *v)
{
	char *end;

	*v = 0;
	if (field_null(r, index))
		return 0;
	*v = strtoull(r->fields[index].s, &end, 10);
	return *end || !r->fields[index].len ? bad(l, "a number is not a number") : 0;
}

static const char *field_text(struct loader *l, const struct csv_record *r, int index)
{
	if (field_null(r, index))
		return NULL;
	return keep(l, r->fields[index].s, r->fields[index].len);
}

typedef int (*row_fn)(struct loader *l, const struct csv_record *r, const int *idx, void *arg);

/*
 * Reads the hour's file with this suffix, if it has one: its header tells
 * where each of names is (idx[i], -1 if absent), and every later record
 * goes to row.
 */
static int read_table(struct loader *l, const char *suffix, const char *const *names, size_t n, row_fn row,
		      void *arg)
{
	struct csv_record r = { 0 };
	int idx[16], err, rc;
	FILE *f = open_part(l, suffix, &err);

	if (!f)
		return err;
	rc = read_record(l, f, &r);
	if (rc > 0)
		find_columns(&r, names, idx, n < 16 ? n : 16);
	while (rc > 0 && !err && (rc = read_record(l, f, &r)) > 0)
		err = row(l, &r, idx, arg);
	fclose(f);
	csv_record_free(&r);
	return err ? err : rc < 0 ? rc : 0;
}

static const char *const stack_names[] = { "id", "kind", "frames" };

static int stack_row(struct loader *l, const struct csv_record *r, const int *idx, void *arg)
{
	struct kstack *k;
	uint64_t hash;
	const char *frames, *wait;
	int added, err = field_u64(l, r, idx[0], &hash);

	(void)arg;
	if (err)
		return err;
	dict__intern(l->stacks, &hash, sizeof(hash), &added);
	if (!added)
		return 0;
	ARRAY_GROW(l->kstacks, l->nr_stacks, l->cap_stacks, 256);
	frames = field_text(l, r, idx[2]);
	frames = frames ? frames : keep(l, "", 0);
	wait = strrchr(frames, ';');
	k = &l->kstacks[l->nr_stacks++];
	*k = (struct kstack){ .hash = hash, .frames = (char *)frames, .wait = wait ? wait + 1 : frames };
	k->kind = idx[1] >= 0 && (size_t)idx[1] < r->nr && !strcmp(r->fields[idx[1]].s, "user") ? "user" : "kernel";
	return 0;
}

/* The pass of time ts_us: passes are in time order, and samples come in the same. */
static struct pass *pass_at(struct loader *l, uint64_t ts_us, size_t *hint)
{
	for (size_t i = *hint; i < l->nr; i++)
		if (l->passes[i].ts_us == ts_us)
			return &l->passes[*hint = i];
	for (size_t i = 0; i < *hint && i < l->nr; i++)
		if (l->passes[i].ts_us == ts_us)
			return &l->passes[*hint = i];
	return NULL;
}

static int read_samples(struct loader *l)
{
	struct column_reader cr = { .stack = stack_of, .keep = keep, .arg = l };
	struct csv_record r = { 0 };
	size_t hint = 0, width = 0;
	int err, rc, idx[NR_SAMPLE_COLUMNS];
	FILE *f = open_part(l, HOUR_CSV_SUFFIX, &err);

	if (!f)
		return err ? err : -ENOENT;
	rc = read_record(l, f, &r);
	if (rc > 0) {
		const char *names[NR_SAMPLE_COLUMNS];
		size_t known = 0;

		for (size_t c = 0; c < NR_SAMPLE_COLUMNS; c++)
			names[c] = sample_columns[c].name;
		find_columns(&r, names, idx, NR_SAMPLE_COLUMNS);
		for (size_t c = 0; c < NR_SAMPLE_COLUMNS; c++)
			known += idx[c] >= 0;
		/* an older tract's hour lacks the columns added since (NULL); a newer one's has others */
		if (known != r.nr || idx[COL_ts_us] < 0)
			err = bad(l, "its columns are not the ones this tract writes; "
				  "read it with the tract that wrote it");
		width = r.nr;
	}
	while (rc > 0 && !err && (rc = read_record(l, f, &r)) > 0) {
		uint64_t ts_us;
		struct pass *p;
		struct sample *s;

		if (r.nr != width) {
			err = bad(l, "a sample with another number of columns than the header");
			break;
		}
		if ((err = field_u64(l, &r, idx[COL_ts_us], &ts_us)))
			break;
		p = pass_at(l, ts_us, &hint);
		if (!p) {
			l->orphans++;
			continue;
		}
		s = pass__add_row(p);
		*s = (struct sample){ .syscall_nr = -1 };
		for (size_t c = 0; c < NR_SAMPLE_COLUMNS && !err; c++)
			if (idx[c] >= 0 && sample_columns[c].set(s, &r.fields[idx[c]], &cr)) {
				char what[128];

				snprintf(what, sizeof(what), "column %s: '%.40s' is not a value it takes",
					 sample_columns[c].name, r.fields[idx[c]].s);
				err = bad(l, what);
			}
	}
	fclose(f);
	csv_record_free(&r);
	return err ? err : rc < 0 ? rc : 0;
}

/* The pass a row of one of the pass's tables sets, a new one for the passes' own; NULL: an orphan. */
static struct pass *pass_of_row(struct loader *l, const struct pass_table *t, const struct csv_record *r, int ts,
				size_t *hint, int *err)
{
	uint64_t ts_us;

	if (t->itself) {
		ARRAY_GROW(l->passes, l->nr, l->cap, 64);
		l->passes[l->nr] = (struct pass){ .seq = l->nr };
		return &l->passes[l->nr++];
	}
	*err = field_u64(l, r, ts, &ts_us);
	return *err ? NULL : pass_at(l, ts_us, hint);
}

/*
 * The hour's file of one of the pass's tables, if it has one: each column
 * found by its name in the header (or the name an older tract gave it;
 * one the file lacks stays NULL), each row set in its pass.
 */
static int read_pass_table(struct loader *l, enum pass_table_id id)
{
	const struct pass_table *t = &pass_tables[id];
	struct column_reader cr = { .stack = stack_of, .keep = keep, .arg = l };
	struct csv_record r = { 0 };
	char suffix[64];
	int idx[MAX_PASS_COLUMNS + 1], err, rc;
	size_t hint = 0, n = t->ncolumns < MAX_PASS_COLUMNS ? t->ncolumns : MAX_PASS_COLUMNS;
	FILE *f;

	snprintf(suffix, sizeof(suffix), ".%s.csv", t->name);
	if (!(f = open_part(l, suffix, &err)))
		return err;
	rc = read_record(l, f, &r);
	if (rc > 0) {
		const char *names[MAX_PASS_COLUMNS + 1];

		for (size_t c = 0; c < n; c++)
			names[c] = t->columns[c].name;
		names[n] = "ts_us";
		find_columns(&r, names, idx, n + 1);
		for (size_t c = 0; c < n; c++)
			if (idx[c] < 0 && t->columns[c].store == S_STACK_KIND)
				find_columns(&r, &t->columns[c].ref, &idx[c], 1);
	}
	while (rc > 0 && !err && (rc = read_record(l, f, &r)) > 0) {
		struct pass *p = pass_of_row(l, t, &r, idx[n], &hint, &err);
		void *row;

		if (!p)
			continue;
		row = t->itself ? p : t->add(p);
		for (size_t c = 0; c < n && !err; c++) {
			char what[128];
			int e;

			if (idx[c] < 0 || (size_t)idx[c] >= r.nr || !(e = t->columns[c].set(row, &r.fields[idx[c]], &cr)))
				continue;
			snprintf(what, sizeof(what), "column %s: '%.40s' is not a value it takes", t->columns[c].name,
				 r.fields[idx[c]].s);
			err = bad(l, e == -ENOENT ? "a stack that stacks.csv does not have" : what);
		}
	}
	fclose(f);
	csv_record_free(&r);
	return err ? err : rc < 0 ? rc : 0;
}

/* meta.csv's keys and values, as the SQLite file's meta table holds them. */
static int read_meta(struct loader *l, sqlite3 *db)
{
	struct csv_record r = { 0 };
	sqlite3_stmt *st;
	int err, rc;
	FILE *f = open_part(l, ".meta.csv", &err);

	if (!f)
		return err;
	if (sqlite3_prepare_v2(db, "INSERT OR REPLACE INTO meta VALUES (?, ?)", -1, &st, NULL) != SQLITE_OK) {
		fclose(f);
		return -ENOMEM;
	}
	rc = read_record(l, f, &r);
	while (rc > 0 && (rc = read_record(l, f, &r)) > 0 && r.nr >= 2) {
		sqlite3_bind_text(st, 1, r.fields[0].s, (int)r.fields[0].len, SQLITE_TRANSIENT);
		sqlite3_bind_text(st, 2, r.fields[1].s, (int)r.fields[1].len, SQLITE_TRANSIENT);
		sqlite3_step(st);
		sqlite3_reset(st);
	}
	sqlite3_finalize(st);
	fclose(f);
	csv_record_free(&r);
	return rc < 0 ? rc : 0;
}

static void loader_free(struct loader *l)
{
	for (size_t i = 0; i < l->nr; i++)
		pass__free_rows(&l->passes[i]);
	free(l->passes);
	for (size_t i = 0; i < l->nr_kept; i++)
		free(l->kept[i]);
	free(l->kept);
	free(l->kstacks);
	dict__free(l->stacks);
	free(l->path);
}

int store_csv__load_hour(const char *dir, uint64_t hour_us, sqlite3 **db)
{
	struct loader l = { .dir = dir, .hour_us = hour_us, .stacks = dict__new() };
	struct sink *sink = NULL;
	char *name = store_hour_path(dir, hour_us, HOUR_CSV_SUFFIX);
	int err;

	*db = NULL;
	err = read_table(&l, ".stacks.csv", stack_names, ARRAY_SIZE(stack_names), stack_row, NULL) ?:
	      read_pass_table(&l, PT_passes) ?: read_samples(&l);
	for (int t = 0; !err && t < NR_PASS_TABLES; t++)
		if (t != PT_passes)
			err = read_pass_table(&l, t);
	if (err == -ENOENT)
		tract_err("'%s' is missing", l.path);
	if (!err)
		err = store_sqlite__open_memory(name, &sink, db);
	for (size_t i = 0; i < l.nr && !err; i++)
		err = sink__write_pass(sink, &l.passes[i]);
	if (sink)
		sink__close(sink);
	if (!err)
		err = read_meta(&l, *db);
	if (!err && l.orphans)
		tract_debug("'%s': %zu samples of passes not in passes.csv (the recorder stopped mid-pass)", name,
			    l.orphans);
	if (err && *db) {
		sqlite3_close(*db);
		*db = NULL;
	}
	free(name);
	loader_free(&l);
	return err;
}
