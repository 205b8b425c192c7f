// SPDX-License-Identifier: GPL-2.0-only
/*
 * Every column of every sample round-trips through both stores: a pass made
 * here, written to an SQLite store and a CSV store, reads back the same from
 * the samples view and from samples.csv, NULLs and hostile bytes included,
 * and holds the values the pass was made of; and the CSV hour read back
 * into SQLite (how queries read a CSV store) is the SQLite store's again.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>
#include <sqlite3.h>
#include "columns.h"
#include "csv.h"
#include "csv_reader.h"
#include "sink.h"
#include "../sql_rows.h"

/* 2026-11-30 12:00:05 UTC */
#define PASS_US 1796040005000000ull

static struct kstack kernel_stack = { .kind = "kernel", .hash = 0xfedcba9876543210ull,
				      .frames = "entry_SYSCALL_64;do_fsync;submit_bio_wait", .wait = "submit_bio_wait" };
static struct kstack user_stack = { .kind = "user", .hash = 42, .frames = "main;work;fsync", .wait = "fsync" };

static void make_pass(struct pass *p)
{
	struct sample *r;

	*p = (struct pass){ .ts_us = PASS_US, .weight_us = 100000, .visited = 3 };
	/* in a syscall, with everything a row can carry, names hostile */
	r = pass__add_row(p);
	*r = (struct sample){ .tid = 101, .tgid = 100, .uid = 1000, .cpu = 1, .state = TRACT_STATE_DISK,
			      .syscall_nr = 74 /* fsync */, .sc_us = 1234, .state_us = 1200,
			      .flags = TRACT_SF_SC_TIME | TRACT_SF_STATE_TIME | TRACT_SF_WAKER | TRACT_SF_WAKE_TIME,
			      .waker_tid = 7, .waker = "kworker/1:2", .exe = "/usr/bin/db \"x\",y",
			      .kstack = &kernel_stack, .ustack = &user_stack, .cgroup_id = 99,
			      .cgroup = "/system.slice/db.service", .file = "/var/lib/db/wal,\r\n\"1\"",
			      .has_runq = 1, .runq_us = 17, .io_dev = "vda", .io_op = "write", .io_bytes = 4096,
			      .io_us = 300, .io_service_us = 250, .wake_us = 5000, .wake_runq_us = 12,
			      .blocker_tid = 4000000, .chain_root_tid = 4000001, .chain_len = 2 };
	r->sc_args[0] = 3;
	r->sc_args[1] = (uint64_t)-1;
	memcpy(r->comm, "a,b\"c\nd\xff 16 bytes", TRACT_COMM_LEN);	/* all 16 bytes, no NUL */
	memcpy(r->pcomm, "db", 3);
	/* in user mode: most columns NULL */
	r = pass__add_row(p);
	*r = (struct sample){ .tid = 102, .tgid = 100, .cpu = 0, .state = TRACT_STATE_RUN, .syscall_nr = -1 };
	memcpy(r->comm, "spin", 5);
	memcpy(r->pcomm, "db", 3);
	/* a syscall without a name, and an empty file name; asleep an hour, in it 9 s, woken 8.4 s ago */
	r = pass__add_row(p);
	*r = (struct sample){ .tid = 103, .tgid = 100, .state = TRACT_STATE_SLEEP, .syscall_nr = 499, .file = "",
			      .flags = TRACT_SF_SC_TIME | TRACT_SF_STATE_TIME | TRACT_SF_WAKE_TIME,
			      .sc_us = 9000000, .state_us = 3600000000, .wake_us = 8388607,
			      .blocker_tid = 101, .chain_root_tid = 101, .chain_len = 2, .chain_cycle = 1 };
	memcpy(r->comm, " pad ", 6);
	memcpy(r->pcomm, "db", 3);
	p->load_rows = 1;
	p->displaced = 1;
	p->moment_read = 1;
	*hist_rows__add(&p->io_hist) = (struct hist_row){ .name = "vda", .what = "write", .le_us = 64, .count = 9,
							  .sum_us = 400 };
	*hist_rows__add(&p->sc_hist) = (struct hist_row){ .tgid = 100, .name = "db", .what = "fsync", .le_us = 128,
							  .count = 3, .sum_us = 300 };
	*hist_rows__add(&p->runq_hist) = (struct hist_row){ .tgid = 100, .name = "db,\"x\"", .le_us = 2,
							    .count = 70, .sum_us = 90 };
	*profile_rows__add(&p->profile) = (struct profile_row){ .tid = 102, .tgid = 100, .comm = "spin", .pcomm = "db",
								 .ustack = &user_stack, .ticks = 49 };
	*profile_rows__add(&p->profile) = (struct profile_row){ .tid = 7, .tgid = 7, .comm = "kworker/1:2",
								 .pcomm = "kworker/1:2", .kstack = &kernel_stack,
								 .ticks = 3 };
	*wakeup_rows__add(&p->wakeups) = (struct wakeup_row){ .waker_tgid = 0, .wakee_tgid = 100, .waker = "irq",
							      .wakee = "db", .count = 5, .runq_us = 10,
							      .blocked_us = 1000 };
}

struct cell {
	int null;
	char *text;		/* as text, whatever the type */
	size_t len;
};

struct table {
	char *names[NR_SAMPLE_COLUMNS];
	struct cell cells[3][NR_SAMPLE_COLUMNS];
	size_t nr;
};

static void table_free(struct table *t)
{
	for (size_t c = 0; c < NR_SAMPLE_COLUMNS; c++) {
		free(t->names[c]);
		for (size_t r = 0; r < 3; r++)
			free(t->cells[r][c].text);
	}
}

static char *mem(const void *s, size_t len)
{
	char *p = malloc(len + 1);

	memcpy(p, s, len);
	p[len] = '\0';
	return p;
}

static void write_store(int (*open)(const struct store_config *, struct sink **), const char *dir,
			const struct pass *p)
{
	struct store_config cfg = { .dir = dir, .frequency_hz = 10, .source = "test", .gid = -1 };
	struct sink *s;

	assert_int_equal(open(&cfg, &s), 0);
	assert_int_equal(sink__write_pass(s, p), 0);
	sink__close(s);
}

/* The samples view, stack ids given as their hashes, as CSV has them. */
static void read_view(sqlite3 *db, struct table *t)
{
	sqlite3_stmt *st;

	assert_int_equal(sqlite3_prepare_v2(db, "SELECT * FROM samples ORDER BY tid", -1, &st, NULL), SQLITE_OK);
	assert_int_equal(sqlite3_column_count(st), NR_SAMPLE_COLUMNS);
	for (int c = 0; c < NR_SAMPLE_COLUMNS; c++)
		t->names[c] = strdup(sqlite3_column_name(st, c));
	for (t->nr = 0; sqlite3_step(st) == SQLITE_ROW; t->nr++) {
		assert_true(t->nr < 3);
		for (int c = 0; c < NR_SAMPLE_COLUMNS; c++) {
			struct cell *cell = &t->cells[t->nr][c];
			const unsigned char *text = sqlite3_column_text(st, c);

			cell->null = sqlite3_column_type(st, c) == SQLITE_NULL;
			cell->len = (size_t)sqlite3_column_bytes(st, c);
			cell->text = mem(cell->null ? "" : (const char *)text, cell->null ? 0 : cell->len);
			if (!cell->null && (c == COL_kstack_id || c == COL_ustack_id)) {
				sqlite3_stmt *h;
				char hash[32];

				sqlite3_prepare_v2(db, "SELECT hash FROM stacks WHERE id = ?", -1, &h, NULL);
				sqlite3_bind_int64(h, 1, sqlite3_column_int64(st, c));
				assert_int_equal(sqlite3_step(h), SQLITE_ROW);
				snprintf(hash, sizeof(hash), "%llu", (unsigned long long)sqlite3_column_int64(h, 0));
				sqlite3_finalize(h);
				free(cell->text);
				cell->text = strdup(hash);
				cell->len = strlen(hash);
			}
		}
	}
	sqlite3_finalize(st);
}

static void read_sqlite(const char *dir, struct table *t)
{
	char path[512];
	sqlite3 *db;

	snprintf(path, sizeof(path), "%s/tract-20261130-12.db", dir);
	assert_int_equal(sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL), SQLITE_OK);
	read_view(db, t);
	sqlite3_close(db);
}

static void read_csv(const char *dir, struct table *t)
{
	char path[512];
	struct csv_record rec = { 0 };
	FILE *f;

	snprintf(path, sizeof(path), "%s/tract-20261130-12.samples.csv", dir);
	f = fopen(path, "r");
	assert_non_null(f);
	assert_int_equal(csv_read_record(f, &rec), 1);
	assert_int_equal(rec.nr, NR_SAMPLE_COLUMNS);
	for (size_t c = 0; c < NR_SAMPLE_COLUMNS; c++)
		t->names[c] = strdup(rec.fields[c].s);
	for (t->nr = 0; csv_read_record(f, &rec) == 1; t->nr++) {
		assert_true(t->nr < 3);
		assert_int_equal(rec.nr, NR_SAMPLE_COLUMNS);
		for (size_t c = 0; c < NR_SAMPLE_COLUMNS; c++) {
			struct cell *cell = &t->cells[t->nr][c];

			cell->null = rec.fields[c].null;
			cell->len = rec.fields[c].len;
			cell->text = mem(rec.fields[c].s, cell->len);
		}
	}
	fclose(f);
	csv_record_free(&rec);
}

static const struct cell *cell_of(const struct table *t, size_t row, const char *name)
{
	for (size_t c = 0; c < NR_SAMPLE_COLUMNS; c++)
		if (!strcmp(t->names[c], name))
			return &t->cells[row][c];
	fail_msg("no column %s", name);
	return NULL;
}

static void expect_text(const struct table *t, size_t row, const char *name, const char *want, size_t len)
{
	const struct cell *c = cell_of(t, row, name);

	if (!want) {
		assert_true(c->null);
		return;
	}
	assert_false(c->null);
	assert_int_equal(c->len, len);
	assert_memory_equal(c->text, want, len);
}

#define EXPECT(t, row, name, want) expect_text(t, row, name, want, strlen(want))
#define EXPECT_NULL(t, row, name) expect_text(t, row, name, NULL, 0)

/* What the pass was made of, by column name: a column written in the wrong place fails here. */
static void holds_the_pass(const struct table *t)
{
	assert_int_equal(t->nr, 3);
	EXPECT(t, 0, "ts_us", "1796040005000000");
	EXPECT(t, 0, "weight_us", "100000");
	EXPECT(t, 0, "tid", "101");
	EXPECT(t, 0, "tgid", "100");
	expect_text(t, 0, "comm", "a,b\"c\nd\xff 16 bytes", TRACT_COMM_LEN);
	EXPECT(t, 0, "pcomm", "db");
	EXPECT(t, 0, "exe", "/usr/bin/db \"x\",y");
	EXPECT(t, 0, "uid", "1000");
	EXPECT(t, 0, "state", "DISK");
	EXPECT(t, 0, "cpu", "1");
	EXPECT(t, 0, "syscall", "fsync");
	EXPECT(t, 0, "sc_us", "1234");
	EXPECT(t, 0, "state_us", "1200");
	EXPECT(t, 0, "kstack_id", "18364758544493064720");
	EXPECT(t, 0, "waker_tid", "7");
	EXPECT(t, 0, "sc_arg0", "3");
	EXPECT(t, 0, "sc_arg1", "-1");
	EXPECT(t, 0, "sc_arg5", "0");
	EXPECT(t, 0, "cgroup_id", "99");
	EXPECT(t, 0, "cgroup", "/system.slice/db.service");
	EXPECT(t, 0, "file", "/var/lib/db/wal,\r\n\"1\"");
	EXPECT(t, 0, "runq_us", "17");
	EXPECT(t, 0, "waker", "kworker/1:2");
	EXPECT(t, 0, "io_dev", "vda");
	EXPECT(t, 0, "io_op", "write");
	EXPECT(t, 0, "io_bytes", "4096");
	EXPECT(t, 0, "io_us", "300");
	EXPECT(t, 0, "io_service_us", "250");
	EXPECT(t, 0, "wake_us", "5000");
	EXPECT(t, 0, "wake_runq_us", "12");
	EXPECT(t, 0, "ustack_id", "42");
	EXPECT(t, 0, "blocker_tid", "4000000");
	EXPECT(t, 0, "chain_root_tid", "4000001");
	EXPECT(t, 0, "chain_len", "2");
	EXPECT(t, 0, "chain_cycle", "0");
	/* user mode: no syscall, no times, no stacks, no request */
	EXPECT(t, 1, "comm", "spin");
	EXPECT(t, 1, "state", "RUN");
	EXPECT(t, 1, "cpu", "0");
	static const char *const nulls[] = { "exe", "syscall", "sc_us", "state_us", "kstack_id", "waker_tid",
					     "sc_arg0", "cgroup_id", "cgroup", "file", "runq_us", "waker", "io_dev",
					     "io_op", "io_bytes", "io_us", "io_service_us", "wake_us",
					     "wake_runq_us", "ustack_id", "blocker_tid", "chain_root_tid", "chain_len",
					     "chain_cycle" };
	for (size_t i = 0; i < sizeof(nulls) / sizeof(nulls[0]); i++)
		EXPECT_NULL(t, 1, nulls[i]);
	EXPECT(t, 2, "comm", " pad ");
	EXPECT(t, 2, "syscall", "syscall_499");
	EXPECT(t, 2, "file", "");
	EXPECT(t, 2, "sc_us", "9000000");
	EXPECT(t, 2, "state_us", "3600000000");
	EXPECT(t, 2, "wake_us", "8388607");
	EXPECT(t, 2, "blocker_tid", "101");
	EXPECT(t, 2, "chain_cycle", "1");
}

static void same_tables(const struct table *a, const struct table *b, const char *what)
{
	for (size_t r = 0; r < 3; r++)
		for (size_t c = 0; c < NR_SAMPLE_COLUMNS; c++) {
			const struct cell *x = &a->cells[r][c], *y = &b->cells[r][c];

			if (x->null != y->null || x->len != y->len || memcmp(x->text, y->text, x->len))
				fail_msg("%s: row %zu, %s: '%s'%s against '%s'%s", what, r, sample_columns[c].name,
					 x->text, x->null ? " (NULL)" : "", y->text, y->null ? " (NULL)" : "");
		}
}

static void every_column_round_trips_through_both_stores(void **state)
{
	char sqlite_dir[] = "/tmp/tract-columns-XXXXXX", csv_dir[] = "/tmp/tract-columns-XXXXXX";
	struct table from_sqlite = { 0 }, from_csv = { 0 }, csv_loaded = { 0 };
	sqlite3 *loaded;
	struct pass p;
	char cmd[256];

	(void)state;
	assert_non_null(mkdtemp(sqlite_dir));
	assert_non_null(mkdtemp(csv_dir));
	make_pass(&p);
	write_store(store_sqlite__open, sqlite_dir, &p);
	write_store(store_csv__open, csv_dir, &p);
	read_sqlite(sqlite_dir, &from_sqlite);
	read_csv(csv_dir, &from_csv);

	for (size_t c = 0; c < NR_SAMPLE_COLUMNS; c++) {
		assert_string_equal(from_sqlite.names[c], sample_columns[c].name);
		assert_string_equal(from_csv.names[c], sample_columns[c].name);
	}
	holds_the_pass(&from_sqlite);
	holds_the_pass(&from_csv);
	same_tables(&from_sqlite, &from_csv, "SQLite store against samples.csv");
	/* the CSV hour as queries read it */
	assert_int_equal(store_csv__load_hour(csv_dir, PASS_US, &loaded), 0);
	read_view(loaded, &csv_loaded);
	{
		static const char *const tables[] = {
			"SELECT * FROM passes", "SELECT * FROM io_latency", "SELECT * FROM syscall_latency",
			"SELECT * FROM runq_latency", "SELECT * FROM wakeups", "SELECT * FROM profile", "SELECT kind, hash, frames FROM stacks ORDER BY hash",
			"SELECT * FROM meta ORDER BY key",
		};
		char path[512];
		sqlite3 *file;

		snprintf(path, sizeof(path), "%s/tract-20261130-12.db", sqlite_dir);
		assert_int_equal(sqlite3_open_v2(path, &file, SQLITE_OPEN_READONLY, NULL), SQLITE_OK);
		for (size_t i = 0; i < sizeof(tables) / sizeof(tables[0]); i++) {
			char *a = dump(file, tables[i]), *b = dump(loaded, tables[i]);

			if (strcmp(a, b) || !*a)
				fail_msg("%s: the SQLite store has\n%s\nthe CSV hour read back\n%s", tables[i], a, b);
			free(a);
			free(b);
		}
		/* long times kept in milliseconds, as negative numbers; shorter ones as they are */
		{
			char *raw = dump(file, "SELECT sc_us, state_us, wake_us FROM sample_facts ORDER BY rowid");

			assert_string_equal(raw, "1234|1200|5000\nNULL|NULL|NULL\n-9000|-3600000|8388607\n");
			free(raw);
		}
		sqlite3_close(file);
	}
	sqlite3_close(loaded);
	holds_the_pass(&csv_loaded);
	same_tables(&from_sqlite, &csv_loaded, "SQLite store against the CSV hour read back");
	table_free(&from_sqlite);
	table_free(&from_csv);
	table_free(&csv_loaded);
	pass__free_rows(&p);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s' '%s'", sqlite_dir, csv_dir);
	assert_int_equal(system(cmd), 0);
}

/*
 * A coarse time: exact below 8389000 us, else whole milliseconds (those
 * below one dropped), negative; read back, never below a time kept exact.
 */
static void long_times_are_kept_in_milliseconds(void **state)
{
	(void)state;
	assert_int_equal(coarse_us_stored(0), 0);
	assert_int_equal(coarse_us_stored(8388607), 8388607);
	assert_int_equal(coarse_us_stored(8388999), 8388999);
	assert_int_equal(coarse_us_stored(8389000), -8389);
	assert_int_equal(coarse_us_stored(9000999), -9000);
	assert_int_equal(coarse_us_stored(86400000000ull * 30), -2592000000ll);
	for (size_t c = 0; c < NR_SAMPLE_COLUMNS; c++)
		if (column_coarse_us(&sample_columns[c])) {
			assert_int_equal(sample_columns[c].where, FACT);
			assert_non_null(strstr(sample_columns[c].sql, column_stored_name(&sample_columns[c])));
		}
	assert_true(column_coarse_us(&sample_columns[COL_state_us]));
	assert_false(column_coarse_us(&sample_columns[COL_cpu]));
}

static const struct kstack *any_stack(void *arg, uint64_t hash)
{
	static struct kstack k = { .kind = "user", .frames = "a;b", .wait = "b" };

	(void)arg;
	k.hash = hash;
	return &k;
}

static const char *keep_copy(void *arg, const char *s, size_t len)
{
	static char kept[64][256];
	static size_t n;
	char *k = kept[n++ % 64];

	(void)arg;
	snprintf(k, sizeof(kept[0]), "%.*s", (int)len, s);
	return k;
}

/*
 * column_mix_sample() tells apart two samples that differ in any one
 * value but their pass's and their times so far: each column of a row
 * that has them all, set to another value, changes it; a time does not.
 */
static void every_value_but_the_times_tells_samples_apart(void **state)
{
	struct column_reader cr = { any_stack, keep_copy, NULL };
	struct pass p;
	struct sample base;

	(void)state;
	make_pass(&p);
	base = p.rows[0];
	base.flags |= TRACT_SF_TRACE;
	memset(base.trace_id, 0xab, sizeof(base.trace_id));
	memset(base.span_id, 0xcd, sizeof(base.span_id));
	base.trace_flags = 1;
	base.trace_attrs = "http.route=/a";
	base.title = "db: writer";
	base.steal_us = 5;
	base.wait_class = 1;
	base.chain_cycle = 1;
	for (size_t i = 0; i < NR_SAMPLE_COLUMNS; i++) {
		const struct sample_column *c = &sample_columns[i];
		struct sample other = base;
		struct column_value v;
		char text[256];
		struct csv_value in = { text, 0, 0 };

		if (c->where == PASS)
			continue;
		c->value(&p, &base, &v);
		if (v.kind == VAL_NULL)
			fail_msg("column %s has no value in the sample", c->name);
		if (v.kind == VAL_TEXT && i == COL_state)
			snprintf(text, sizeof(text), "SLEEP");
		else if (v.kind == VAL_TEXT && i == COL_syscall)
			snprintf(text, sizeof(text), "read");
		else if (v.kind == VAL_TEXT && (i == COL_trace_id || i == COL_span_id))
			snprintf(text, sizeof(text), "%.*s", (int)v.len, "0123456789abcdef0123456789abcdef");
		else if (v.kind == VAL_TEXT) {
			/* its first byte another: a name of 16 bytes has no room for more */
			snprintf(text, sizeof(text), "%.*s", (int)(v.len > 200 ? 200 : v.len), v.s);
			text[0] = text[0] == 'a' ? 'b' : 'a';
		}
		else if (v.kind == VAL_INT)
			snprintf(text, sizeof(text), "%lld", (long long)v.i + 1);
		else
			snprintf(text, sizeof(text), "%llu", (unsigned long long)v.u + 1);
		in.len = strlen(text);
		if (c->set(&other, &in, &cr))
			fail_msg("column %s cannot be set to %s", c->name, text);
		if (column_coarse_us(c))
			assert_true(column_mix_sample(&other, 1) == column_mix_sample(&base, 1));
		else if (column_mix_sample(&other, 1) == column_mix_sample(&base, 1))
			fail_msg("column %s set to another value (%s) leaves the sample's hash as it was", c->name, text);
	}
	pass__free_rows(&p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(long_times_are_kept_in_milliseconds),
		cmocka_unit_test(every_value_but_the_times_tells_samples_apart),
		cmocka_unit_test(every_column_round_trips_through_both_stores),
	};
	return cmocka_run_group_tests_name("columns", tests, NULL, NULL);
}
