// SPDX-License-Identifier: GPL-2.0-only
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sqlite3.h>
#include "ch_backfill.h"
#include "ch_rows.h"
#include "ch_send.h"
#include "ch_spool.h"
#include "ch_sql.h"
#include "clock.h"
#include "columns.h"
#include "dict.h"
#include "progress.h"
#include "strbuf.h"
#include "schema.h"
#include "util.h"

/*
 * Each table's rows of the passes in [?1, ?2), in the columns of its
 * ClickHouse table after host and batch_id (what ch_rows.c makes of a pass
 * in the recorder, read back from the store), then the pass's id, in the
 * order they were stored: by pass.  Stacks go by id here, by hash there
 * (is_stack_column()); the samples' columns are the view's, the pass's
 * tables' their definition's (pass_table_sqlite_select()).
 */

/* Whether column c of table t's rows is a stack's id. */
static int is_stack_column(int t, int c)
{
	const struct pass_table *pt;

	if (t == CH_SAMPLES)
		return c == COL_kstack_id || c == COL_ustack_id;
	if (t < CH_PASS_TABLE)
		return 0;
	pt = &pass_tables[t - CH_PASS_TABLE];
	/* after the pass's time, which the passes have among their columns */
	c -= !pt->itself;
	return c >= 0 && (size_t)c < pt->ncolumns && pt->columns[c].store == S_STACK_KIND;
}

/* The samples view's columns, by pass. */
static char *samples_sql(void)
{
	struct strbuf b = { 0 };

	schema_samples_select(&b, NULL, "p.id");
	/* by pass: a fact that repeats stands in the passes after its own too */
	strbuf_add(&b, " WHERE p.ts_us >= ?1 AND p.ts_us < ?2 ORDER BY p.id, f.rowid");
	return strbuf_take(&b);
}

/* A stack of the hour: its hash, and whether the batch being made has it yet. */
struct stack_ref {
	int64_t hash;
	uint64_t batch;		/* the batch it went in last (1 + its index) */
};

/* One hour being shipped: a statement per table, each at its next row. */
struct hour {
	sqlite3 *db;
	const char *name;
	sqlite3_stmt *st[CH_TABLES];
	int more[CH_TABLES];		/* st[t] is on a row */
	sqlite3_stmt *stack;		/* a stack by id */
	struct dict *stacks;		/* stack id -> struct stack_ref index + 1 */
	struct stack_ref *refs;
	size_t nrefs;
	struct dict *present;		/* pass times the server has */
};

/* The fields of a row after host and batch_id: NULL, numbers, and bytes escaped. */
static void put_field(struct strbuf *b, sqlite3_stmt *st, int c)
{
	strbuf_addn(b, "\t", 1);
	switch (sqlite3_column_type(st, c)) {
	case SQLITE_NULL:
		strbuf_addn(b, "\\N", 2);
		break;
	case SQLITE_INTEGER:
		strbuf_add_i64(b, sqlite3_column_int64(st, c));
		break;
	default:
		ch_tsv_text(b, (const char *)sqlite3_column_blob(st, c), (size_t)sqlite3_column_bytes(st, c));
	}
}

/* Stack id's entry of the hour, read once; NULL when the store has no such stack. */
static struct stack_ref *stack_of(struct hour *h, int64_t id)
{
	int added;
	uint32_t k = dict__intern(h->stacks, &id, sizeof(id), &added);
	uint64_t *index = dict__value(h->stacks, k);

	if (added) {
		*index = 0;
		sqlite3_reset(h->stack);
		sqlite3_bind_int64(h->stack, 1, id);
		if (sqlite3_step(h->stack) == SQLITE_ROW) {
			h->refs = xrealloc(h->refs, (h->nrefs + 1) * sizeof(*h->refs));
			h->refs[h->nrefs] = (struct stack_ref){ .hash = sqlite3_column_int64(h->stack, 0) };
			*index = ++h->nrefs;
		}
	}
	return *index ? &h->refs[*index - 1] : NULL;
}

/* A stack of this batch's rows into its stacks table, once a batch. */
static void add_stack(struct hour *h, struct stack_ref *ref, int64_t id, uint64_t batch, uint64_t seen_us,
		      const char *host, struct strbuf *stacks, uint64_t *rows)
{
	if (ref->batch == batch)
		return;
	ref->batch = batch;
	sqlite3_reset(h->stack);
	sqlite3_bind_int64(h->stack, 1, id);
	if (sqlite3_step(h->stack) != SQLITE_ROW)
		return;
	ch_tsv_text(stacks, host, strlen(host));
	strbuf_addn(stacks, "\t", 1);
	strbuf_add_i64(stacks, ref->hash);
	put_field(stacks, h->stack, 1);
	put_field(stacks, h->stack, 2);
	strbuf_addn(stacks, "\t", 1);
	strbuf_add_u64(stacks, seen_us);
	strbuf_addn(stacks, "\n", 1);
	(*rows)++;
}

/* The current row of table t, its stack ids as hashes and their stacks added to the batch. */
static void put_row(struct hour *h, int t, const char *host, uint64_t batch_id, uint64_t batch, uint64_t seen_us,
		    struct strbuf tables[CH_TABLES], uint64_t rows[CH_TABLES])
{
	sqlite3_stmt *st = h->st[t];
	struct strbuf *b = &tables[t];

	ch_tsv_text(b, host, strlen(host));
	strbuf_addn(b, "\t", 1);
	strbuf_add_u64(b, batch_id);
	/* all but the pass's id */
	for (int c = 0; c + 1 < sqlite3_column_count(st); c++) {
		struct stack_ref *ref;

		if (!is_stack_column(t, c) || sqlite3_column_type(st, c) == SQLITE_NULL) {
			put_field(b, st, c);
			continue;
		}
		/* an id the hour's stacks lack (a damaged file) is no stack */
		if (!(ref = stack_of(h, sqlite3_column_int64(st, c)))) {
			strbuf_addn(b, "\t\\N", 3);
			continue;
		}
		strbuf_addn(b, "\t", 1);
		strbuf_add_i64(b, ref->hash);
		add_stack(h, ref, sqlite3_column_int64(st, c), batch, seen_us, host, &tables[CH_STACKS], &rows[CH_STACKS]);
	}
	strbuf_addn(b, "\n", 1);
	rows[t]++;
}

static int step(struct hour *h, int t)
{
	int rc = sqlite3_step(h->st[t]);

	h->more[t] = rc == SQLITE_ROW;
	if (rc != SQLITE_ROW && rc != SQLITE_DONE) {
		tract_err("cannot read '%s': %s", h->name, sqlite3_errmsg(h->db));
		return -EIO;
	}
	return 0;
}

/* The pass id a table's current row belongs to: its last column. */
static int64_t pass_of(const struct hour *h, int t)
{
	return sqlite3_column_int64(h->st[t], sqlite3_column_count(h->st[t]) - 1);
}

/*
 * The rows of passes first..last (ids) from every table; rows of earlier
 * passes (the server has them) are passed over.  By id, not time: a clock
 * stepped back gives times out of order, never ids.
 */
static int fill_batch(struct hour *h, const struct ch_backfill_opts *o, int64_t first, int64_t last,
		      uint64_t seen_us, uint64_t batch, struct ch_batch *b, struct strbuf tables[CH_TABLES])
{
	int err = 0;

	for (int t = 0; t < CH_TABLES && !err; t++) {
		if (t == CH_STACKS)
			continue;
		while (!err && h->more[t] && pass_of(h, t) <= last) {
			if (pass_of(h, t) >= first)
				put_row(h, t, o->host, b->id, batch, seen_us, tables, b->rows);
			err = step(h, t);
		}
	}
	return err;
}

/* The id of the batch of these passes of this host: the same whenever it is made again. */
static uint64_t batch_id_of(const char *host, int64_t first, int64_t last)
{
	uint64_t x = 0xcbf29ce484222325ull;

	for (const char *c = host; *c; c++)
		x = (x ^ (unsigned char)*c) * 0x100000001b3ull;
	x = (x ^ (uint64_t)first) * 0x100000001b3ull;
	x = (x ^ (uint64_t)last) * 0x100000001b3ull;
	x ^= x >> 31;
	return x >> 1 ? x >> 1 : 1;
}

/*
 * Sends every table of the batch, its passes last: a pass in the server
 * says its batch is whole there, which is how a later run leaves it out.
 * Each table is counted first, by the host and the passes' times (however
 * an earlier run cut its batches).
 */
static int send_batch(struct ch_http *http, const struct ch_backfill_opts *o, struct ch_batch *b, const char *times,
		      uint64_t first_us)
{
	struct strbuf ident = { 0 };
	int err = 0;

	strbuf_add(&ident, "host = ");
	ch_quote(&ident, o->host, strlen(o->host));
	strbuf_addf(&ident, " AND ts_us IN (%s)", times);
	for (int i = 0; i < CH_TABLES && !err; i++) {
		int t = i < CH_PASSES ? i : i + 1 < CH_TABLES ? i + 1 : CH_PASSES;
		struct ch_send how = { .http = http, .database = o->database, .ident = strbuf_str(&ident) };
		enum ch_outcome out;
		char *answer;
		enum ch_sent sent = ch_send__table(&how, b, t, 1, &out, &answer);

		if (sent != CH_SENT) {
			tract_err("ClickHouse %s a batch's %s (%.300s); shipping stopped at the pass of %" PRIu64 " us: "
				  "run tract ship again to go on from there", sent == CH_SEND_NEVER ? "refused" : "did not take",
				  ch_table_name(t), answer ? answer : "", first_us);
			err = sent == CH_SEND_NEVER ? -EINVAL : -EAGAIN;
		}
		free(answer);
	}
	strbuf_free(&ident);
	return err;
}

/* The pass times the server has of the host in [from, to). */
static int read_present(struct ch_http *http, const struct ch_backfill_opts *o, uint64_t from, uint64_t to,
			struct dict *present)
{
	struct strbuf q = { 0 };
	char *answer, *line, *save = NULL;
	int err = 0;

	strbuf_addf(&q, "SELECT ts_us FROM %s.passes_local WHERE host = ", o->database);
	ch_quote(&q, o->host, strlen(o->host));
	strbuf_addf(&q, " AND ts_us >= %" PRIu64 " AND ts_us < %" PRIu64 " FORMAT TSV", from, to);
	if (ch_http__select(http, strbuf_str(&q), "wait_end_of_query=1", &answer, NULL) != CH_OK) {
		tract_err("cannot ask ClickHouse which passes it has: %.300s", answer);
		err = -EAGAIN;
	}
	for (line = strtok_r(answer, "\n", &save); !err && line; line = strtok_r(NULL, "\n", &save)) {
		uint64_t ts = strtoull(line, NULL, 10);
		int added;

		dict__intern(present, &ts, sizeof(ts), &added);
	}
	free(answer);
	strbuf_free(&q);
	return err;
}

/* Every table's statement over [lo, hi), each on its first row. */
static int open_tables(struct hour *h, uint64_t lo, uint64_t hi)
{
	char *sql = samples_sql();
	int rc = sqlite3_prepare_v2(h->db, sql, -1, &h->st[CH_SAMPLES], NULL), err = 0;

	free(sql);
	for (int t = CH_PASS_TABLE; t < CH_TABLES && rc == SQLITE_OK; t++) {
		sql = pass_table_sqlite_select(&pass_tables[t - CH_PASS_TABLE]);
		rc = sqlite3_prepare_v2(h->db, sql, -1, &h->st[t], NULL);
		free(sql);
	}
	if (rc == SQLITE_OK)
		rc = sqlite3_prepare_v2(h->db, "SELECT hash, kind, frames FROM stacks WHERE id = ?1", -1, &h->stack, NULL);
	if (rc != SQLITE_OK) {
		tract_err("cannot read '%s': %s", h->name, sqlite3_errmsg(h->db));
		return -EIO;
	}
	for (int t = 0; t < CH_TABLES && !err; t++) {
		if (t == CH_STACKS)
			continue;
		sqlite3_bind_int64(h->st[t], 1, (int64_t)lo);
		sqlite3_bind_int64(h->st[t], 2, (int64_t)hi);
		err = step(h, t);
	}
	return err;
}

/*
 * The hour's passes not in the server, in runs of passes it lacks (a pass it
 * has ends a run), each run cut into batches of at most batch_rows samples;
 * each table is read once, in pass order, and cut with them.
 */
static int ship_hour(struct ch_http *http, struct hour *h, const struct ch_backfill_opts *o, uint64_t lo,
		     uint64_t hi, struct ch_backfill_stats *st)
{
	sqlite3_stmt *passes;
	struct strbuf tables[CH_TABLES] = { 0 }, times = { 0 };
	int64_t first = 0, last = 0;
	uint64_t samples = 0, batch = 0, first_us = 0;
	int rc, err = open_tables(h, lo, hi);

	if (err)
		return err;
	if (sqlite3_prepare_v2(h->db, "SELECT id, ts_us, emitted FROM passes WHERE ts_us >= ?1 AND ts_us < ?2 "
				      "ORDER BY id", -1, &passes, NULL) != SQLITE_OK) {
		tract_err("cannot read '%s': %s", h->name, sqlite3_errmsg(h->db));
		return -EIO;
	}
	sqlite3_bind_int64(passes, 1, (int64_t)lo);
	sqlite3_bind_int64(passes, 2, (int64_t)hi);
	for (;;) {
		int more = (rc = sqlite3_step(passes)) == SQLITE_ROW;
		int64_t id = more ? sqlite3_column_int64(passes, 0) : 0;
		uint64_t ts = more ? (uint64_t)sqlite3_column_int64(passes, 1) : 0;
		uint64_t n = more ? (uint64_t)sqlite3_column_int64(passes, 2) : 0;
		int there = more && dict__find(h->present, &ts, sizeof(ts));

		/* the run so far goes when it ends, or when this pass would make it too big */
		if (first && (!more || there || samples + n > o->batch_rows)) {
			struct ch_batch b = { .id = batch_id_of(o->host, first, last) };

			err = fill_batch(h, o, first, last, first_us, ++batch, &b, tables);
			for (int t = 0; t < CH_TABLES; t++) {
				b.data[t] = (char *)strbuf_str(&tables[t]);
				b.len[t] = tables[t].len;
			}
			if (!err && (!o->stop || !*o->stop))
				err = send_batch(http, o, &b, strbuf_str(&times), first_us);
			else if (!err)
				err = -EINTR;
			if (!err) {
				st->batches++;
				st->passes += b.rows[CH_PASSES];
				st->samples += b.rows[CH_SAMPLES];
			}
			for (int t = 0; t < CH_TABLES; t++)
				strbuf_free(&tables[t]);
			strbuf_free(&times);
			first = 0;
			samples = 0;
			if (err)
				break;
		}
		if (!more)
			break;
		if (there) {
			st->present++;
			continue;
		}
		if (!first) {
			first = id;
			first_us = ts;
		}
		last = id;
		samples += n;
		strbuf_addf(&times, "%s%" PRIu64, times.len ? ", " : "", ts);
	}
	if (!err && rc != SQLITE_DONE) {
		tract_err("cannot read '%s': %s", h->name, sqlite3_errmsg(h->db));
		err = -EIO;
	}
	strbuf_free(&times);
	sqlite3_finalize(passes);
	return err;
}

static void close_hour(struct hour *h)
{
	for (int t = 0; t < CH_TABLES; t++)
		sqlite3_finalize(h->st[t]);
	sqlite3_finalize(h->stack);
	dict__free(h->stacks);
	dict__free(h->present);
	free(h->refs);
	sqlite3_close(h->db);
}

int ch_backfill(struct ch_http *http, const struct store_reader *r, const struct ch_backfill_opts *o,
		struct ch_backfill_stats *st)
{
	size_t hours = 0, done = 0;
	int err = 0;

	memset(st, 0, sizeof(*st));
	for (size_t i = 0; i < r->n; i++)
		hours += store_hour_overlaps(r->hours[i].hour_us, o->from_us, o->to_us);
	for (size_t i = 0; i < r->n && !err; i++) {
		uint64_t lo = r->hours[i].hour_us, hi = lo + USEC_PER_HOUR;
		struct hour h = { 0 };
		char *name;

		if (!store_hour_overlaps(lo, o->from_us, o->to_us))
			continue;
		progress_hours(done++, hours);
		lo = lo > o->from_us ? lo : o->from_us;
		hi = hi < o->to_us ? hi : o->to_us;
		err = store_reader__open_or_skip(r, i, o->strict, &h.db);
		if (err > 0) {
			st->skipped++;
			err = 0;
			continue;
		}
		if (err)
			break;
		name = store_reader__hour_name(r, i);
		h.name = name;
		h.present = dict__new();
		h.stacks = dict__new();
		err = read_present(http, o, lo, hi, h.present) ?: ship_hour(http, &h, o, lo, hi, st);
		st->hours += !err;
		close_hour(&h);
		free(name);
	}
	return err;
}
