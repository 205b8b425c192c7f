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
#include "retention.h"
#include "schema.h"
#include "hours.h"
#include "sink.h"
#include "syscalls.h"
#include "util.h"

enum { CSV_SAMPLES, CSV_STACKS, CSV_PASSES, CSV_IO_LATENCY, CSV_SYSCALL_LATENCY, CSV_RUNQ_LATENCY, CSV_WAKEUPS,
       CSV_PROFILE, CSV__COUNT };

static const char *const csv_suffix[CSV__COUNT] = {
	[CSV_SAMPLES] = HOUR_CSV_SUFFIX,
	[CSV_STACKS] = ".stacks.csv",
	[CSV_PASSES] = ".passes.csv",
	[CSV_IO_LATENCY] = ".io_latency.csv",
	[CSV_SYSCALL_LATENCY] = ".syscall_latency.csv",
	[CSV_RUNQ_LATENCY] = ".runq_latency.csv",
	[CSV_WAKEUPS] = ".wakeups.csv",
	[CSV_PROFILE] = ".profile.csv",
};

/* The headers of the files whose columns stay as they are; samples and passes: columns_of(). */
static const char *const csv_header[CSV__COUNT] = {
	[CSV_STACKS] = "id,kind,frames",
	[CSV_IO_LATENCY] = "ts_us,dev,op,le_us,count,sum_us",
	[CSV_SYSCALL_LATENCY] = "ts_us,pcomm,syscall,le_us,count,sum_us,tgid",
	[CSV_RUNQ_LATENCY] = "ts_us,pcomm,le_us,count,sum_us,tgid",
	[CSV_WAKEUPS] = "ts_us,waker_tgid,waker,wakee_tgid,wakee,count,runq_us,blocked_us",
	[CSV_PROFILE] = "ts_us,tid,tgid,comm,pcomm,kstack,ustack,ticks",
};

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

/* The passes' columns; an older tract's hour may lack the last ones. */
static const char *const pass_columns[] = {
	"ts_us", "weight_us", "visited", "emitted", "dropped", "duration_us", "cpu_us", "hist_lost", "displaced",
	"unsampled_us", "load_rows", "moment_read", "bpf_us",
};

#define MAX_COLUMNS NR_SAMPLE_COLUMNS
_Static_assert(ARRAY_SIZE(pass_columns) <= MAX_COLUMNS, "the passes' columns fit the arrays of names");

/* The columns of file i that this tract has added to (samples, passes) into names: how many, or 0. */
static size_t columns_of(int i, const char **names)
{
	if (i == CSV_PASSES) {
		memcpy(names, pass_columns, sizeof(pass_columns));
		return ARRAY_SIZE(pass_columns);
	}
	if (i != CSV_SAMPLES)
		return 0;
	for (size_t c = 0; c < NR_SAMPLE_COLUMNS; c++)
		names[c] = sample_columns[c].name;
	return NR_SAMPLE_COLUMNS;
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

/* Column i of names as the old header has them: its field index, or -1. */
static void map_columns(const struct csv_record *header, const char *const *names, size_t n, int *at)
{
	for (size_t i = 0; i < n; i++) {
		at[i] = -1;
		for (size_t k = 0; k < header->nr; k++)
			if (!strcmp(header->fields[k].s, names[i]))
				at[i] = (int)k;
	}
}

/*
 * An hour's file an older tract began, made over with this tract's
 * columns, names (those it lacked empty: NULL), before more rows are
 * appended to it.  0, or -errno.
 */
static int upgrade_file(const char *path, const char *const *names, size_t n)
{
	struct csv_record r = { 0 };
	char *tmp = xcalloc(1, strlen(path) + 9);
	FILE *in = fopen(path, "re"), *out = NULL;
	int at[MAX_COLUMNS], err = 0, same;

	strcat(strcpy(tmp, path), ".upgrade");
	if (!in) {
		err = -errno;
		goto done;
	}
	if (csv_read_record(in, &r) != 1)
		goto done;
	map_columns(&r, names, n, at);
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
	if (fclose(out) && !err)
		err = -errno;
	out = NULL;
	if (!err && rename(tmp, path))
		err = -errno;
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
		char *path = store_hour_path(st->cfg.dir, ts_us, csv_suffix[i]);
		const char *names[MAX_COLUMNS];
		size_t n = columns_of(i, names);
		struct stat sb;

		err = store_create_file(path);
		/* an hour an older tract began: its rows made over to this tract's columns first */
		if (!err && n && !lstat(path, &sb) && sb.st_size > 0)
			err = upgrade_file(path, names, n);
		st->f[i] = err ? NULL : store_fopen(path, "a");
		if (!st->f[i]) {
			err = err ? err : -errno;
			tract_err("cannot open '%s': %s", path, strerror(-err));
		} else if (!fstat(fileno(st->f[i]), &sb) && sb.st_size == 0) {
			if (n)
				write_header(st->f[i], names, n);
			else
				fputs(csv_header[i], st->f[i]), csv_end(st->f[i]);
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

static void opt_u64(FILE *f, int valid, uint64_t v)
{
	csv_sep(f);
	if (valid)
		csv_u64(f, v);
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

static void write_wakeups(FILE *f, uint64_t ts_us, const struct wakeup_rows *w)
{
	for (size_t i = 0; i < w->nr; i++) {
		const struct wakeup_row *r = &w->rows[i];

		csv_u64(f, ts_us);
		opt_u64(f, r->waker_tgid, r->waker_tgid);
		csv_sep(f);
		csv_field(f, r->waker);
		opt_u64(f, r->wakee_tgid, r->wakee_tgid);
		csv_sep(f);
		csv_field(f, r->wakee);
		fprintf(f, ",%" PRIu64 ",%" PRIu64 ",%" PRIu64, r->count, r->runq_us, r->blocked_us);
		csv_end(f);
	}
}

/* The histogram files' columns in the order of their headers: what and tgid where the file has them. */
static void write_hist(FILE *f, uint64_t ts_us, const struct hist_rows *h, int with_what, int with_tgid)
{
	for (size_t i = 0; i < h->nr; i++) {
		const struct hist_row *r = &h->rows[i];

		csv_u64(f, ts_us);
		csv_sep(f);
		csv_field(f, r->name);
		if (with_what) {
			csv_sep(f);
			csv_field(f, r->what);
		}
		fprintf(f, ",%" PRIu64 ",%" PRIu64 ",%" PRIu64, r->le_us, r->count, r->sum_us);
		if (with_tgid)
			opt_u64(f, r->tgid, r->tgid);
		csv_end(f);
	}
}

/* The profile's rows; stacks by their hash, as samples.csv has them. */
static void write_profile(struct store_csv *st, uint64_t ts_us, const struct profile_rows *pr)
{
	FILE *f = st->f[CSV_PROFILE];

	for (size_t i = 0; i < pr->nr; i++) {
		const struct profile_row *r = &pr->rows[i];

		fprintf(f, "%" PRIu64 ",%u,%u,", ts_us, r->tid, r->tgid);
		csv_field_n(f, r->comm, strnlen(r->comm, sizeof(r->comm)));
		csv_sep(f);
		csv_field_n(f, r->pcomm, strnlen(r->pcomm, sizeof(r->pcomm)));
		opt_u64(f, r->kstack != NULL, r->kstack ? r->kstack->hash : 0);
		opt_u64(f, r->ustack != NULL, r->ustack ? r->ustack->hash : 0);
		fprintf(f, ",%" PRIu64, r->ticks);
		csv_end(f);
		if (r->kstack)
			write_stack(st, r->kstack);
		if (r->ustack)
			write_stack(st, r->ustack);
	}
}

/* A pass is whole only once every file is flushed; a short write reports it. */
static int csv_write_pass(struct sink *base, const struct pass *p)
{
	struct store_csv *st = (struct store_csv *)base;
	FILE *pf;
	int err = 0;

	if (!st->f[0] || p->ts_us / USEC_PER_HOUR != st->hour) {
		err = open_files(st, p->ts_us);
		if (err)
			return err;
	}
	for (size_t i = 0; i < p->nr; i++)
		write_sample(st, p, &p->rows[i]);
	write_hist(st->f[CSV_IO_LATENCY], p->ts_us, &p->io_hist, 1, 0);
	write_hist(st->f[CSV_SYSCALL_LATENCY], p->ts_us, &p->sc_hist, 1, 1);
	write_hist(st->f[CSV_RUNQ_LATENCY], p->ts_us, &p->runq_hist, 0, 1);
	write_wakeups(st->f[CSV_WAKEUPS], p->ts_us, &p->wakeups);
	write_profile(st, p->ts_us, &p->profile);
	pf = st->f[CSV_PASSES];
	fprintf(pf, "%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%zu,%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64
		",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64, p->ts_us, p->weight_us, p->visited, p->nr,
		p->dropped, p->duration_us, p->cpu_us, p->hist_lost, p->displaced, p->unsampled_us, p->load_rows,
		p->moment_read);
	opt_u64(pf, p->has_bpf_us, p->bpf_us);
	csv_end(pf);
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
