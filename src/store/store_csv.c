// SPDX-License-Identifier: GPL-2.0-only
/*
 * The CSV store, for DuckDB, pandas and spreadsheets: per UTC hour the files
 * tract-YYYYMMDD-HH.{samples,stacks,passes,io_latency,syscall_latency,runq_latency,wakeups,profile,meta}.csv,
 * RFC 4180 with a header
 * line.  samples.csv has the columns of the SQLite samples view; kstack_id and
 * ustack_id are the stack's hash, the same in every file.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "clock.h"
#include "columns.h"
#include "csv.h"
#include "dict.h"
#include "durable.h"
#include "retention.h"
#include "schema.h"
#include "hours.h"
#include "pass_tables.h"
#include "sink.h"
#include "syscalls.h"
#include "util.h"

/* The hour's files: its samples, its stacks, and a file for each of the pass's tables (pass_tables.def). */
enum { CSV_SAMPLES, CSV_STACKS, CSV_PASS_TABLE, CSV__COUNT = CSV_PASS_TABLE + NR_PASS_TABLES };

/* File i's name after the hour's: tract-YYYYMMDD-HH.<this>. */
static const char *csv_suffix(int i, char *buf, size_t len)
{
	if (i == CSV_SAMPLES)
		return HOUR_CSV_SUFFIX;
	if (i == CSV_STACKS)
		return ".stacks.csv";
	snprintf(buf, len, ".%s.csv", pass_tables[i - CSV_PASS_TABLE].name);
	return buf;
}

struct store_csv {
	struct sink base;
	struct store_config cfg;
	FILE *f[CSV__COUNT];
	uint64_t hour;
	struct dict *stacks_written;
};

static void close_files(struct store_csv *st)
{
	for (int i = 0; i < CSV__COUNT; i++) {
		if (st->f[i])
			fclose(st->f[i]);
		st->f[i] = NULL;
	}
}

#define MAX_COLUMNS NR_SAMPLE_COLUMNS
static const char *const stack_columns[] = { "id", "kind", "frames" };

/*
 * File i's columns into names, and into alt the name an older tract gave
 * each (NULL: none): how many.  An older tract's hour may lack the last
 * ones, or have them in another order.
 */
static size_t columns_of(int i, const char **names, const char **alt)
{
	const struct pass_table *t;
	size_t n = 0;

	if (i == CSV_SAMPLES) {
		for (size_t c = 0; c < NR_SAMPLE_COLUMNS; c++, n++)
			names[n] = sample_columns[c].name, alt[n] = NULL;
		return n;
	}
	if (i == CSV_STACKS) {
		for (; n < ARRAY_SIZE(stack_columns); n++)
			names[n] = stack_columns[n], alt[n] = NULL;
		return n;
	}
	t = &pass_tables[i - CSV_PASS_TABLE];
	if (!t->itself)
		names[n] = "ts_us", alt[n++] = NULL;
	for (size_t c = 0; c < t->ncolumns && n < MAX_COLUMNS; c++, n++) {
		names[n] = t->columns[c].name;
		/* a stack's column was once named as SQLite keeps it */
		alt[n] = t->columns[c].store == S_STACK_KIND ? t->columns[c].ref : NULL;
	}
	return n;
}

static void write_header(FILE *f, const char *const *names, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		if (i)
			csv_sep(f);
		csv_field(f, names[i]);
	}
	csv_end(f);
}

/* Column i of names (or of alt) as the old header has them: its field index, or -1. */
static void map_columns(const struct csv_record *header, const char *const *names, const char *const *alt, size_t n,
			int *at)
{
	for (size_t i = 0; i < n; i++) {
		at[i] = -1;
		for (size_t k = 0; k < header->nr; k++)
			if (!strcmp(header->fields[k].s, names[i]) || (alt[i] && !strcmp(header->fields[k].s, alt[i])))
				at[i] = (int)k;
	}
}

/*
 * An hour's file an older tract began, made over with this tract's
 * columns, names (those it lacked empty: NULL), before more rows are
 * appended to it.  0, or -errno.
 */
static int upgrade_file(const char *path, const char *const *names, const char *const *alt, size_t n)
{
	struct csv_record r = { 0 };
	char *tmp = xcalloc(1, strlen(path) + 9);
	FILE *in = fopen(path, "re"), *out = NULL;
	int at[MAX_COLUMNS], err = 0, same, closed;

	strcat(strcpy(tmp, path), ".upgrade");
	if (!in) {
		err = -errno;
		goto done;
	}
	if (csv_read_record(in, &r) != 1)
		goto done;
	map_columns(&r, names, alt, n, at);
	same = r.nr == n;
	for (size_t i = 0; i < n && same; i++)
		same = at[i] == (int)i;
	if (same)
		goto done;
	out = store_fopen(tmp, "w");
	if (!out) {
		err = err ? err : -errno;
		goto done;
	}
	write_header(out, names, n);
	while ((err = csv_read_record(in, &r)) == 1) {
		for (size_t i = 0; i < n; i++) {
			const struct csv_value *v = at[i] >= 0 && (size_t)at[i] < r.nr ? &r.fields[at[i]] : NULL;

			if (i)
				csv_sep(out);
			if (v && !v->null)
				csv_field_n(out, v->s, v->len);
		}
		csv_end(out);
	}
	err = err < 0 ? -EINVAL : 0;
	/* flushed before the rename, which must not outlive the rows it names */
	closed = durable_fclose(out);
	err = err ? err : closed;
	out = NULL;
	if (!err)
		err = durable_rename(tmp, path);
done:
	if (err)
		tract_err("cannot upgrade '%s' to this tract's columns: %s", path, strerror(-err));
	if (out)
		fclose(out);
	if (in)
		fclose(in);
	unlink(tmp);
	free(tmp);
	csv_record_free(&r);
	return err;
}

static int write_meta_file(struct store_csv *st, uint64_t ts_us)
{
	const char *kv[16][2];
	char *path = store_hour_path(st->cfg.dir, ts_us, ".meta.csv");
	FILE *f = store_fopen(path, "w");
	int err;

	if (!f) {
		err = -errno;
		tract_err("cannot write '%s': %s", path, strerror(-err));
		free(path);
		return err;
	}
	store_meta(&st->cfg, kv, ARRAY_SIZE(kv));
	fputs("key,value", f);
	csv_end(f);
	for (size_t i = 0; kv[i][0]; i++) {
		csv_field(f, kv[i][0]);
		csv_sep(f);
		csv_field(f, kv[i][1]);
		csv_end(f);
	}
	err = fclose(f) ? -errno : 0;
	free(path);
	return err;
}

static int open_files(struct store_csv *st, uint64_t ts_us)
{
	int err = write_meta_file(st, ts_us);

	close_files(st);
	dict__clear(st->stacks_written);
	for (int i = 0; !err && i < CSV__COUNT; i++) {
		char suffix[64], *path = store_hour_path(st->cfg.dir, ts_us, csv_suffix(i, suffix, sizeof(suffix)));
		const char *names[MAX_COLUMNS], *alt[MAX_COLUMNS];
		size_t n = columns_of(i, names, alt);
		struct stat sb;

		err = store_create_file(path);
		/* an hour an older tract began: its rows made over to this tract's columns first */
		if (!err && !lstat(path, &sb) && sb.st_size > 0)
			err = upgrade_file(path, names, alt, n);
		st->f[i] = err ? NULL : store_fopen(path, "a");
		if (!st->f[i]) {
			err = err ? err : -errno;
			tract_err("cannot open '%s': %s", path, strerror(-err));
		} else if (!fstat(fileno(st->f[i]), &sb) && sb.st_size == 0) {
			write_header(st->f[i], names, n);
		}
		free(path);
	}
	if (!err)
		store_retention(st->cfg.dir, ts_us, st->cfg.keep_us, st->cfg.max_bytes);
	if (err)
		close_files(st);
	else
		st->hour = ts_us / USEC_PER_HOUR;
	return err;
}

static void write_stack(struct store_csv *st, const struct kstack *k)
{
	FILE *f = st->f[CSV_STACKS];
	int added;

	dict__intern(st->stacks_written, &k->hash, sizeof(k->hash), &added);
	if (!added)
		return;
	csv_u64(f, k->hash);
	csv_sep(f);
	csv_field(f, k->kind);
	csv_sep(f);
	csv_field(f, k->frames);
	csv_end(f);
}

static void write_value(FILE *f, const struct column_value *v)
{
	switch (v->kind) {
	case VAL_NULL:
		break;
	case VAL_INT:
		fprintf(f, "%" PRId64, v->i);
		break;
	case VAL_UINT:
		csv_u64(f, v->u);
		break;
	case VAL_TEXT:
		csv_field_n(f, v->s, v->len);
		break;
	}
}

static void write_sample(struct store_csv *st, const struct pass *p, const struct sample *r)
{
	FILE *f = st->f[CSV_SAMPLES];

	for (size_t i = 0; i < NR_SAMPLE_COLUMNS; i++) {
		struct column_value v;

		if (i)
			csv_sep(f);
		sample_columns[i].value(p, r, &v);
		write_value(f, &v);
	}
	csv_end(f);
	if (r->kstack)
		write_stack(st, r->kstack);
	if (r->ustack)
		write_stack(st, r->ustack);
}

/* The pass's rows of one of its tables: its time first (the passes have it), their stacks by hash. */
static void write_pass_rows(struct store_csv *st, enum pass_table_id id, const struct pass *p)
{
	const struct pass_table *t = &pass_tables[id];
	FILE *f = st->f[CSV_PASS_TABLE + id];
	size_t rows = t->nrows(p);

	for (size_t r = 0; r < rows; r++) {
		const void *row = t->row(p, r);

		if (!t->itself) {
			csv_u64(f, p->ts_us);
			csv_sep(f);
		}
		for (size_t c = 0; c < t->ncolumns; c++) {
			struct column_value v = { 0 };

			if (c)
				csv_sep(f);
			t->columns[c].value(p, row, &v);
			write_value(f, &v);
			if (v.stack)
				write_stack(st, v.stack);
		}
		csv_end(f);
	}
}

/* A pass is whole only once every file is flushed; a short write reports it. */
static int csv_write_pass(struct sink *base, const struct pass *p)
{
	struct store_csv *st = (struct store_csv *)base;
	int err = 0;

	if (!st->f[0] || p->ts_us / USEC_PER_HOUR != st->hour) {
		err = open_files(st, p->ts_us);
		if (err)
			return err;
	}
	for (size_t i = 0; i < p->nr; i++)
		write_sample(st, p, &p->rows[i]);
	/* the passes last: a pass's line says its rows are all there */
	for (int t = 0; t < NR_PASS_TABLES; t++)
		if (t != PT_passes)
			write_pass_rows(st, t, p);
	write_pass_rows(st, PT_passes, p);
	for (int i = 0; i < CSV__COUNT; i++)
		if (fflush(st->f[i]) || ferror(st->f[i]))
			err = -EIO;
	if (err) {
		tract_err("cannot write CSV files in '%s'", st->cfg.dir);
		close_files(st);
	}
	return err;
}

static void csv_close(struct sink *base)
{
	struct store_csv *st = (struct store_csv *)base;

	close_files(st);
	dict__free(st->stacks_written);
	free((char *)st->cfg.dir);
	free(st);
}

static const struct sink_ops csv_ops = {
	.write_pass = csv_write_pass,
	.close = csv_close,
};

int store_csv__open(const struct store_config *cfg, struct sink **out)
{
	struct store_csv *st;
	int err = store_make_dir(cfg->dir, cfg->gid);

	if (err)
		return err;
	st = xcalloc(1, sizeof(*st));
	st->base.ops = &csv_ops;
	st->cfg = *cfg;
	st->cfg.dir = xstrdup(cfg->dir);
	st->stacks_written = dict__new();
	*out = &st->base;
	return 0;
}
