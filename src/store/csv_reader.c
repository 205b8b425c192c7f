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
#include "sink.h"
#include "util.h"

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
	if (l->nr_kept == l->cap_kept) {
		l->cap_kept = l->cap_kept ? 2 * l->cap_kept : 256;
		l->kept = xrealloc(l->kept, l->cap_kept * sizeof(*l->kept));
	}
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
	if (l->nr_stacks == l->cap_stacks) {
		l->cap_stacks = l->cap_stacks ? 2 * l->cap_stacks : 256;
		l->kstacks = xrealloc(l->kstacks, l->cap_stacks * sizeof(*l->kstacks));
	}
	frames = field_text(l, r, idx[2]);
	frames = frames ? frames : keep(l, "", 0);
	wait = strrchr(frames, ';');
	k = &l->kstacks[l->nr_stacks++];
	*k = (struct kstack){ .hash = hash, .frames = (char *)frames, .wait = wait ? wait + 1 : frames };
	k->kind = idx[1] >= 0 && (size_t)idx[1] < r->nr && !strcmp(r->fields[idx[1]].s, "user") ? "user" : "kernel";
	return 0;
}

static const struct {
	const char *name;
	size_t offset;
	size_t has;			/* of the int that says it is not NULL; 0: never NULL (seq is there) */
} pass_fields[] = {
#define FIELD(f) { #f, offsetof(struct pass, f), 0 }
#define NULLABLE(f) { #f, offsetof(struct pass, f), offsetof(struct pass, has_##f) }
	FIELD(ts_us), FIELD(weight_us), FIELD(visited), FIELD(dropped), FIELD(duration_us), FIELD(cpu_us),
	FIELD(hist_lost), FIELD(displaced), FIELD(unsampled_us), FIELD(load_rows), FIELD(moment_read),
	NULLABLE(bpf_us),
#undef NULLABLE
#undef FIELD
};
_Static_assert(offsetof(struct pass, seq) == 0, "no has_ flag is at offset 0");

static int pass_row(struct loader *l, const struct csv_record *r, const int *idx, void *arg)
{
	struct pass *p;
	int err = 0;

	(void)arg;
	if (l->nr == l->cap) {
		l->cap = l->cap ? 2 * l->cap : 64;
		l->passes = xrealloc(l->passes, l->cap * sizeof(*l->passes));
	}
	p = &l->passes[l->nr++];
	*p = (struct pass){ .seq = l->nr - 1 };
	for (size_t i = 0; i < ARRAY_SIZE(pass_fields) && !err; i++) {
		err = field_u64(l, r, idx[i], (uint64_t *)((char *)p + pass_fields[i].offset));
		if (pass_fields[i].has)
			*(int *)((char *)p + pass_fields[i].has) = !field_null(r, idx[i]);
	}
	return err;
}

static int read_passes(struct loader *l)
{
	const char *names[ARRAY_SIZE(pass_fields)];

	for (size_t i = 0; i < ARRAY_SIZE(pass_fields); i++)
		names[i] = pass_fields[i].name;
	return read_table(l, ".passes.csv", names, ARRAY_SIZE(names), pass_row, NULL);
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

/* A histogram file's rows, by their header's names: name is dev or pcomm, what is op or syscall. */
static const char *const hist_names[] = { "ts_us", "dev", "pcomm", "op", "syscall", "le_us", "count", "sum_us",
					  "tgid" };

struct hist_file {
	size_t offset;			/* of its struct hist_rows in a pass */
	size_t hint;
};

static int hist_row(struct loader *l, const struct csv_record *r, const int *idx, void *arg)
{
	struct hist_file *hf = arg;
	uint64_t ts_us, v[4];
	struct hist_row *h;
	struct pass *p;
	int err = field_u64(l, r, idx[0], &ts_us);

	for (size_t i = 0; i < 4 && !err; i++)
		err = field_u64(l, r, idx[5 + i], &v[i]);
	if (err || !(p = pass_at(l, ts_us, &hf->hint)))
		return err;
	h = hist_rows__add((struct hist_rows *)((char *)p + hf->offset));
	*h = (struct hist_row){ .le_us = v[0], .count = v[1], .sum_us = v[2], .tgid = (uint32_t)v[3] };
	h->name = field_text(l, r, idx[1] >= 0 ? idx[1] : idx[2]);
	h->what = field_text(l, r, idx[3] >= 0 ? idx[3] : idx[4]);
	return 0;
}

static int read_hist(struct loader *l, const char *suffix, size_t offset)
{
	struct hist_file hf = { .offset = offset };

	return read_table(l, suffix, hist_names, ARRAY_SIZE(hist_names), hist_row, &hf);
}

static const char *const wakeup_names[] = { "ts_us", "waker_tgid", "wakee_tgid", "count", "runq_us", "blocked_us",
					    "waker", "wakee" };

static int wakeup_row(struct loader *l, const struct csv_record *r, const int *idx, void *arg)
{
	size_t *hint = arg;
	struct wakeup_row *w;
	struct pass *p;
	uint64_t v[6];
	int err = 0;

	for (size_t i = 0; i < 6 && !err; i++)
		err = field_u64(l, r, idx[i], &v[i]);
	if (err || !(p = pass_at(l, v[0], hint)))
		return err;
	w = wakeup_rows__add(&p->wakeups);
	*w = (struct wakeup_row){ .waker_tgid = (uint32_t)v[1], .wakee_tgid = (uint32_t)v[2], .count = v[3],
				  .runq_us = v[4], .blocked_us = v[5] };
	w->waker = field_text(l, r, idx[6]);
	w->wakee = field_text(l, r, idx[7]);
	return 0;
}

static const char *const profile_names[] = { "ts_us", "tid", "tgid", "kstack", "ustack", "ticks", "comm", "pcomm" };

static int profile_row(struct loader *l, const struct csv_record *r, const int *idx, void *arg)
{
	size_t *hint = arg;
	struct profile_row *row;
	struct pass *p;
	uint64_t v[6];
	const char *comm, *pcomm;
	int err = 0;

	for (size_t i = 0; i < 6 && !err; i++)
		err = field_u64(l, r, idx[i], &v[i]);
	if (err || !(p = pass_at(l, v[0], hint)))
		return err;
	row = profile_rows__add(&p->profile);
	*row = (struct profile_row){ .tid = (uint32_t)v[1], .tgid = (uint32_t)v[2], .ticks = v[5] };
	/* a stack column that is empty is none; one not in stacks.csv is damage */
	if ((v[3] && !(row->kstack = stack_of(l, v[3]))) || (v[4] && !(row->ustack = stack_of(l, v[4]))))
		return bad(l, "a stack that stacks.csv does not have");
	comm = field_text(l, r, idx[6]);
	pcomm = field_text(l, r, idx[7]);
	if (comm)
		strncpy(row->comm, comm, sizeof(row->comm) - 1);
	if (pcomm)
		strncpy(row->pcomm, pcomm, sizeof(row->pcomm) - 1);
	return 0;
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
	size_t hint = 0, profile_hint = 0;
	int err;

	*db = NULL;
	err = read_table(&l, ".stacks.csv", stack_names, ARRAY_SIZE(stack_names), stack_row, NULL) ?:
	      read_passes(&l) ?: read_samples(&l) ?:
	      read_hist(&l, ".io_latency.csv", offsetof(struct pass, io_hist)) ?:
	      read_hist(&l, ".syscall_latency.csv", offsetof(struct pass, sc_hist)) ?:
	      read_hist(&l, ".runq_latency.csv", offsetof(struct pass, runq_hist)) ?:
	      read_table(&l, ".wakeups.csv", wakeup_names, ARRAY_SIZE(wakeup_names), wakeup_row, &hint) ?:
	      read_table(&l, ".profile.csv", profile_names, ARRAY_SIZE(profile_names), profile_row, &profile_hint);
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
