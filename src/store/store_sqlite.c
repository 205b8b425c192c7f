// SPDX-License-Identifier: GPL-2.0-only
/*
 * The embedded store: one SQLite file per UTC hour, one transaction per pass,
 * so a pass is stored whole or not at all, and WAL keeps the file readable
 * beside the writer and after a crash.
 */
#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <sqlite3.h>
#include "clock.h"
#include "dict.h"
#include "durable.h"
#include "retention.h"
#include "columns.h"
#include "schema.h"
#include "value_names.h"
#include "upgrade.h"
#include "hours.h"
#include "pass_tables.h"
#include "sink.h"
#include "syscalls.h"
#include "util.h"
#include "fact_runs.h"

#define SYSCALL_BITS 1024
_Static_assert(SYSCALL_BITS >= TRACT_SYSCALLS_MAX, "every syscall the sources know has its bit");
_Static_assert(NR_SAMPLE_COLUMNS <= 256, "a column's index fits the plan's byte");

enum { INS_THREAD, INS_CALL, INS_STACK, INS_SYSCALL, INS_CGROUP, INS_FILE, INS_WAKER, INS_PROCESS, INS_ENDER,
       INS_FACT, INS_IO, INS_TRACE, INS_BLOCKER, INS_REPEATS,
       INS__COUNT };

static const char *const insert_sql[INS__COUNT] = {
	[INS_THREAD] = "INSERT INTO threads(id, tid, tgid, comm, pcomm, exe, uid, cgroup, title) VALUES (?,?,?,?,?,?,?,?,?)",
	[INS_CALL] = "INSERT INTO calls(id, nr, a0, a1, a2, a3, a4, a5) VALUES (?,?,?,?,?,?,?,?)",
	[INS_STACK] = "INSERT INTO stacks(id, kind, hash, frames) VALUES (?,?,?,?)",
	[INS_SYSCALL] = "INSERT OR IGNORE INTO syscalls(nr, name) VALUES (?,?)",
	[INS_CGROUP] = "INSERT OR IGNORE INTO cgroups(id, path) VALUES (?,?)",
	[INS_FILE] = "INSERT INTO files(id, name, dev) VALUES (?,?,?)",
	[INS_WAKER] = "INSERT INTO wakers(id, tid, name) VALUES (?,?,?)",
	[INS_PROCESS] = "INSERT INTO processes(id, tgid, name) VALUES (?,?,?)",
	[INS_ENDER] = "INSERT INTO enders(id, tid, tgid, name, wait_class) VALUES (?,?,?,?,?)",
	/* a run of repeats begun or ended (fact_runs.h) */
	[INS_REPEATS] = "UPDATE sample_facts SET repeats = ?2 WHERE rowid = ?1",
	/* INS_FACT, INS_IO and INS_TRACE come from the column table: schema_insert_*_sql(); the pass's tables
	 * from theirs (pass_tables.def) */
};

/*
 * A dimension table: the values it holds that the writer remembers, each
 * with its row's id, and the last id of the file.  What it forgets and
 * sees again is stored again, under a new id (queries group by values, not
 * ids).  Those of threads, processes and calls remember in two generations
 * of generation_us of passes each: a value comes into the newer when used,
 * and what went unused for a whole generation is forgotten with the older.
 * So they hold about what was alive lately, where on a host that starts
 * programs all day most of them are of processes long gone.
 */
struct dimension {
	struct dict *ids, *older;	/* value: the row's id */
	int64_t last;
	uint64_t generation_us;		/* 0: one generation, forgotten when full */
	uint64_t since_us;		/* the pass time the newer generation began at */
	const char *table;
};

/* The values a generation remembers: past this many, it is the older one. */
#define DIMENSION_CACHE_MAX 16384
/* A generation of the threads, processes and calls remembered. */
#define DIMENSION_GENERATION_US (60 * 1000000ull)

struct store_sqlite {
	struct sink base;
	struct store_config cfg;
	sqlite3 *db;
	char *path;
	uint64_t hour;
	sqlite3_stmt *ins[INS__COUNT];
	sqlite3_stmt *pass_ins[NR_PASS_TABLES];	/* pass_table_sqlite_insert() */
	struct dimension threads, calls, stacks, files, wakers, processes, traces, enders;
	/* syscall names of histograms without a number: negative numbers of this file's own */
	struct dimension odd_syscalls;
	struct dict *syscall_nrs;	/* histograms' syscall names looked up in this file, to their nr */
	uint64_t syscalls_written[SYSCALL_BITS / 64];
	struct dict *cgroups_written;
	struct dict *sample_of_tid;	/* a pass's first sample of each tid (its index) */
	struct fact_runs *runs;		/* the facts the next passes' rows may repeat */
	struct stored_columns {
		uint8_t column[NR_SAMPLE_COLUMNS];	/* index in sample_columns */
		uint8_t coarse[NR_SAMPLE_COLUMNS];	/* column_coarse_us() */
		size_t nr;
	} stored[BLOCKER + 1];				/* by enum column_where, BLOCKER the last */
	sqlite3 **memory;		/* an in-memory store: the database goes to *memory at close */
};

static int db_fail(struct store_sqlite *st, const char *what)
{
	tract_err("cannot %s '%s': %s", what, st->path, sqlite3_errmsg(st->db));
	return -EIO;
}

static int exec(struct store_sqlite *st, const char *sql)
{
	char *msg = NULL;

	if (sqlite3_exec(st->db, sql, NULL, NULL, &msg) == SQLITE_OK)
		return 0;
	tract_err("cannot write '%s': %s", st->path, msg ? msg : "unknown error");
	sqlite3_free(msg);
	return -EIO;
}

static int64_t query_int(sqlite3 *db, const char *sql)
{
	sqlite3_stmt *stmt;
	int64_t v = -1;

	if (sqlite3_prepare_v2(db, sql, -1, &stmt, NULL) != SQLITE_OK)
		return -1;
	if (sqlite3_step(stmt) == SQLITE_ROW)
		v = sqlite3_column_int64(stmt, 0);
	sqlite3_finalize(stmt);
	return v;
}

#define NR_DIMENSIONS 9

/* Every dimension the writer remembers values of, into dims. */
static void dimensions_of(const struct store_sqlite *st, struct dimension *dims[NR_DIMENSIONS])
{
	struct store_sqlite *w = (struct store_sqlite *)st;
	struct dimension *all[NR_DIMENSIONS] = { &w->threads, &w->calls, &w->stacks, &w->files, &w->wakers,
						 &w->processes, &w->traces, &w->enders, &w->odd_syscalls };

	memcpy(dims, all, sizeof(all));
}

/* Forget what this file holds; ids continue after those already in it. */
static void reset_dimensions(struct store_sqlite *st)
{
	struct dimension *dims[NR_DIMENSIONS];
	char sql[128];

	dimensions_of(st, dims);
	for (size_t i = 0; i < ARRAY_SIZE(dims); i++) {
		dict__clear(dims[i]->ids);
		dict__clear(dims[i]->older);
		snprintf(sql, sizeof(sql), "SELECT coalesce(max(id), 0) FROM %s", dims[i]->table);
		dims[i]->last = st->db ? query_int(st->db, sql) : 0;
	}
	memset(st->syscalls_written, 0, sizeof(st->syscalls_written));
	dict__clear(st->syscall_nrs);
	dict__clear(st->cgroups_written);
}

static int create_schema(struct store_sqlite *st)
{
	char sql[128];
	int err = exec(st, "BEGIN");

	if (!err)
		err = exec(st, schema_sql());
	for (int i = 0; !err && i < TRACT_STATE__COUNT; i++) {
		snprintf(sql, sizeof(sql), "INSERT INTO states VALUES (%d, '%s')", i, state_name(i));
		err = exec(st, sql);
	}
	if (!err) {
		snprintf(sql, sizeof(sql), "PRAGMA user_version = %d", TRACT_SCHEMA_VERSION);
		err = exec(st, sql);
	}
	if (!err)
		err = exec(st, "COMMIT");
	else
		exec(st, "ROLLBACK");
	return err;
}

static int write_meta(struct store_sqlite *st)
{
	const char *kv[16][2];
	sqlite3_stmt *stmt;
	int err = 0;

	store_meta(&st->cfg, kv, ARRAY_SIZE(kv));
	if (sqlite3_prepare_v2(st->db, "INSERT OR REPLACE INTO meta VALUES (?,?)", -1, &stmt, NULL))
		return db_fail(st, "write");
	for (size_t i = 0; kv[i][0] && !err; i++) {
		sqlite3_bind_text(stmt, 1, kv[i][0], -1, SQLITE_STATIC);
		sqlite3_bind_text(stmt, 2, kv[i][1], -1, SQLITE_STATIC);
		if (sqlite3_step(stmt) != SQLITE_DONE)
			err = db_fail(st, "write");
		sqlite3_reset(stmt);
	}
	sqlite3_finalize(stmt);
	return err;
}

static void close_file(struct store_sqlite *st)
{
	for (int i = 0; i < INS__COUNT; i++) {
		sqlite3_finalize(st->ins[i]);
		st->ins[i] = NULL;
	}
	for (int i = 0; i < NR_PASS_TABLES; i++) {
		sqlite3_finalize(st->pass_ins[i]);
		st->pass_ins[i] = NULL;
	}
	if (st->memory)
		*st->memory = st->db;
	else if (st->db)
		sqlite3_close(st->db);
	st->db = NULL;
	free(st->path);
	st->path = NULL;
}

static int prepare(struct store_sqlite *st, uint64_t ts_us);

/*
 * A new hour file appears whole: made with its schema under another name
 * (one the hour listing does not match), then renamed into place.  A
 * reader beside the writer (tract query on a live store, top --live) never
 * finds it empty.
 */
static int create_hour_file(struct store_sqlite *st, uint64_t ts_us)
{
	char *tmp = store_hour_path(st->cfg.dir, ts_us, HOUR_SQLITE_SUFFIX ".new"), *final = st->path;
	int err = store_create_file(tmp);

	if (err) {
		tract_err("cannot create '%s': %s", tmp, strerror(-err));
		free(tmp);
		return err;
	}
	st->path = tmp;
	if (sqlite3_open_v2(tmp, &st->db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOFOLLOW, NULL) != SQLITE_OK)
		err = db_fail(st, "open");
	/* WAL is kept in the file's header, for the connection that opens it next */
	if (!err && exec(st, "PRAGMA journal_mode = WAL"))
		err = -EIO;
	if (!err)
		err = create_schema(st);
	sqlite3_close(st->db);
	st->db = NULL;
	st->path = final;
	if (!err && (err = durable_rename(tmp, final)))
		tract_err("cannot rename '%s' to '%s': %s", tmp, final, strerror(-err));
	if (err)
		unlink(tmp);
	free(tmp);
	return err;
}

/*
 * Runs a recorder left open in the file (it stopped, or crashed) went on to
 * its newest pass, as they say; the passes this one adds are not theirs.
 */
static int end_open_runs(struct store_sqlite *st)
{
	char sql[160];

	snprintf(sql, sizeof(sql), "UPDATE sample_facts SET repeats = (SELECT max(id) FROM passes) - pass"
		 " WHERE repeats = %d", REPEATS_OPEN);
	return exec(st, sql);
}

static int open_file(struct store_sqlite *st, uint64_t ts_us)
{
	struct stat sb;
	int64_t version;
	int err = 0;

	close_file(st);
	st->path = store_hour_path(st->cfg.dir, ts_us, HOUR_SQLITE_SUFFIX);
	/* not access(): it leaves out the capability that reaches a store under root's home */
	if (lstat(st->path, &sb) && errno == ENOENT)
		err = create_hour_file(st, ts_us);
	if (err)
		return err;
	/* one thread at a time uses a connection: no mutex around every call */
	if (sqlite3_open_v2(st->path, &st->db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX | SQLITE_OPEN_NOFOLLOW, NULL) != SQLITE_OK)
		return db_fail(st, "open");
	sqlite3_busy_timeout(st->db, 5000);
	if (exec(st, "PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL"))
		return -EIO;
	version = query_int(st->db, "PRAGMA user_version");
	if (version == 0)
		err = create_schema(st);
	else if (store_upgradable(version))
		err = store_upgrade(st->db, st->path);
	else if (version != TRACT_SCHEMA_VERSION) {
		tract_err("'%s' has schema version %lld; this tract writes version %d",
			  st->path, (long long)version, TRACT_SCHEMA_VERSION);
		return -EINVAL;
	}
	if (err || (err = write_meta(st)) || (err = end_open_runs(st)))
		return err;
	return prepare(st, ts_us);
}

static int prepare(struct store_sqlite *st, uint64_t ts_us)
{
	for (int i = 0; i < INS__COUNT; i++)
		if (sqlite3_prepare_v3(st->db, i == INS_FACT ? schema_insert_fact_sql() :
					   i == INS_IO ? schema_insert_io_sql() :
					   i == INS_TRACE ? schema_insert_trace_sql() :
					   i == INS_BLOCKER ? schema_insert_blocker_sql() : insert_sql[i],
				       -1, SQLITE_PREPARE_PERSISTENT, &st->ins[i], NULL))
			return db_fail(st, "prepare statements for");
	for (int i = 0; i < NR_PASS_TABLES; i++) {
		char *sql = pass_table_sqlite_insert(&pass_tables[i]);
		int rc = sqlite3_prepare_v3(st->db, sql, -1, SQLITE_PREPARE_PERSISTENT, &st->pass_ins[i], NULL);

		free(sql);
		if (rc)
			return db_fail(st, "prepare statements for");
	}
	st->hour = ts_us / USEC_PER_HOUR;
	reset_dimensions(st);
	fact_runs__forget(st->runs);
	if (!st->memory)
		store_retention(st->cfg.dir, ts_us, st->cfg.keep_us, st->cfg.max_bytes);
	return 0;
}

/* Every statement binds each of its parameters for every row, NULL ones too: none are cleared between rows. */
static int step(struct store_sqlite *st, sqlite3_stmt *stmt)
{
	int rc = sqlite3_step(stmt);

	sqlite3_reset(stmt);
	return rc == SQLITE_DONE ? 0 : db_fail(st, "write");
}

/* The newer generation becomes the older, the older's values forgotten. */
static void next_generation(struct dimension *dim, uint64_t ts_us)
{
	struct dict *forgotten = dim->older;

	dim->older = dim->ids;
	/* freed, not cleared: a burst of values leaves no table its size behind */
	dict__free(forgotten);
	dim->ids = dict__new();
	dim->since_us = ts_us;
}

/* A pass at ts_us: the dimensions whose generation it ends move on. */
static void age_dimensions(struct store_sqlite *st, uint64_t ts_us)
{
	struct dimension *dims[NR_DIMENSIONS];

	dimensions_of(st, dims);
	for (size_t i = 0; i < ARRAY_SIZE(dims); i++)
		if (dims[i]->generation_us && ts_us >= dims[i]->since_us + dims[i]->generation_us)
			next_generation(dims[i], ts_us);
}

/* Id of a dimension row, inserting it when the writer does not remember it; 0 on error. */
static int64_t dimension_id(struct store_sqlite *st, struct dimension *dim, const void *key,
			    size_t len, int (*insert)(struct store_sqlite *, int64_t, const void *),
			    const void *arg)
{
	uint32_t found = dict__find(dim->ids, key, len);
	int64_t id;
	int added;

	if (found)
		return (int64_t)*dict__value(dim->ids, found);
	found = dim->older ? dict__find(dim->older, key, len) : 0;
	id = found ? (int64_t)*dict__value(dim->older, found) : ++dim->last;
	if (dict__size(dim->ids) >= DIMENSION_CACHE_MAX && dim->generation_us)
		next_generation(dim, dim->since_us);
	else if (dict__size(dim->ids) >= DIMENSION_CACHE_MAX)
		dict__clear(dim->ids);
	*dict__value(dim->ids, dict__intern(dim->ids, key, len, &added)) = (uint64_t)id;
	if (!found && insert(st, id, arg))
		return 0;
	return id;
}

static void bind_opt(sqlite3_stmt *s, int col, int valid, int64_t v)
{
	if (valid)
		sqlite3_bind_int64(s, col, v);
	else
		sqlite3_bind_null(s, col);
}

/* text that stays put until the row is stepped, or NULL */
static void bind_text_opt(sqlite3_stmt *s, int col, const char *text)
{
	if (text)
		sqlite3_bind_text(s, col, text, -1, SQLITE_STATIC);
	else
		sqlite3_bind_null(s, col);
}

static int insert_thread(struct store_sqlite *st, int64_t id, const void *arg)
{
	const struct sample *r = arg;
	sqlite3_stmt *s = st->ins[INS_THREAD];

	sqlite3_bind_int64(s, 1, id);
	sqlite3_bind_int64(s, 2, r->tid);
	sqlite3_bind_int64(s, 3, r->tgid);
	sqlite3_bind_text(s, 4, r->comm, strnlen(r->comm, TRACT_COMM_LEN), SQLITE_STATIC);
	sqlite3_bind_text(s, 5, r->pcomm, strnlen(r->pcomm, TRACT_COMM_LEN), SQLITE_STATIC);
	bind_text_opt(s, 6, r->exe);
	sqlite3_bind_int64(s, 7, r->uid);
	bind_opt(s, 8, r->cgroup_id != 0, (int64_t)r->cgroup_id);
	bind_text_opt(s, 9, r->title);
	return step(st, s);
}

/* A call: the syscall number, then its arguments. */
static int insert_call(struct store_sqlite *st, int64_t id, const void *arg)
{
	const int64_t *call = arg;
	sqlite3_stmt *s = st->ins[INS_CALL];

	sqlite3_bind_int64(s, 1, id);
	for (int i = 0; i < 7; i++)
		sqlite3_bind_int64(s, 2 + i, call[i]);
	return step(st, s);
}

static int insert_stack(struct store_sqlite *st, int64_t id, const void *arg)
{
	const struct kstack *k = arg;
	sqlite3_stmt *s = st->ins[INS_STACK];

	sqlite3_bind_int64(s, 1, id);
	sqlite3_bind_text(s, 2, k->kind, -1, SQLITE_STATIC);
	sqlite3_bind_int64(s, 3, (int64_t)k->hash);
	sqlite3_bind_text(s, 4, k->frames, -1, SQLITE_STATIC);
	return step(st, s);
}


/* files: (id, text) */
static int insert_text(struct store_sqlite *st, sqlite3_stmt *s, int64_t id, const char *text)
{
	sqlite3_bind_int64(s, 1, id);
	sqlite3_bind_text(s, 2, text, -1, SQLITE_STATIC);
	return step(st, s);
}

/* A file, and the device a sample in D on no request of its own waits on (io_dev without io_op), if any. */
static int insert_file(struct store_sqlite *st, int64_t id, const void *arg)
{
	const struct sample *r = arg;
	sqlite3_stmt *s = st->ins[INS_FILE];

	/* every parameter bound on every row: none is cleared between them */
	bind_text_opt(s, 3, r->io_op ? NULL : r->io_dev);
	return insert_text(st, s, id, r->file);
}

/*
 * files.id of the sample's file: keyed by its name, and for one in D on no
 * request of its own by the name, a NUL and the device; 0 on error.
 */
static int64_t file_id(struct store_sqlite *st, const struct sample *r)
{
	size_t n = strlen(r->file), dev_len;
	char small[256], *key;
	int64_t id;

	if (r->io_op || !r->io_dev)
		return dimension_id(st, &st->files, r->file, n, insert_file, r);
	dev_len = strlen(r->io_dev);
	key = n + 1 + dev_len <= sizeof(small) ? small : xcalloc(1, n + 1 + dev_len);
	memcpy(key, r->file, n + 1);
	memcpy(key + n + 1, r->io_dev, dev_len);
	id = dimension_id(st, &st->files, key, n + 1 + dev_len, insert_file, r);
	if (key != small)
		free(key);
	return id;
}

/* A waker: its tid (none for irq and timer) and name. */
static int insert_waker(struct store_sqlite *st, int64_t id, const void *arg)
{
	const struct sample *r = arg;
	sqlite3_stmt *s = st->ins[INS_WAKER];

	sqlite3_bind_int64(s, 1, id);
	bind_opt(s, 2, r->flags & TRACT_SF_WAKER, r->waker_tid);
	sqlite3_bind_text(s, 3, r->waker, -1, SQLITE_STATIC);
	return step(st, s);
}

static int note_syscall(struct store_sqlite *st, int nr)
{
	sqlite3_stmt *s = st->ins[INS_SYSCALL];
	char unnamed[32];
	const char *name = syscall_name_or_number(nr, unnamed, sizeof(unnamed));

	if (nr < SYSCALL_BITS) {
		if (st->syscalls_written[nr / 64] & (1ull << (nr % 64)))
			return 0;
		st->syscalls_written[nr / 64] |= 1ull << (nr % 64);
	}
	sqlite3_bind_int64(s, 1, nr);
	sqlite3_bind_text(s, 2, name, -1, SQLITE_TRANSIENT);
	return step(st, s);
}

/* cgroup ids are the kernel's own; the path is written once per file. */
static int note_cgroup(struct store_sqlite *st, const struct sample *r)
{
	sqlite3_stmt *s = st->ins[INS_CGROUP];
	int added;

	dict__intern(st->cgroups_written, &r->cgroup_id, sizeof(r->cgroup_id), &added);
	if (!added)
		return 0;
	sqlite3_bind_int64(s, 1, (int64_t)r->cgroup_id);
	sqlite3_bind_text(s, 2, r->cgroup, -1, SQLITE_STATIC);
	return step(st, s);
}

/* A title's bytes in a thread's key: the recorder cuts titles far shorter (proctitle.h) */
#define THREAD_KEY_TITLE_MAX 1024

/*
 * Every part of a thread's identity that the threads table holds: a process
 * that changes its title (a server saying what each process does now) is a
 * new row from then on.
 */
static size_t thread_key(const struct sample *r, unsigned char *buf, size_t cap)
{
	size_t title_len = r->title ? strnlen(r->title, THREAD_KEY_TITLE_MAX) : 0;
	size_t exe_len = r->exe ? strlen(r->exe) : 0, len = 0;
	uint16_t title_len16 = (uint16_t)title_len;

	if (exe_len > cap - 64 - THREAD_KEY_TITLE_MAX)
		exe_len = cap - 64 - THREAD_KEY_TITLE_MAX;
	memcpy(buf + len, &r->tid, 4), len += 4;
	memcpy(buf + len, &r->tgid, 4), len += 4;
	memcpy(buf + len, &r->uid, 4), len += 4;
	memcpy(buf + len, &r->cgroup_id, 8), len += 8;
	memcpy(buf + len, r->comm, TRACT_COMM_LEN), len += TRACT_COMM_LEN;
	memcpy(buf + len, r->pcomm, TRACT_COMM_LEN), len += TRACT_COMM_LEN;
	buf[len++] = r->title != NULL;
	memcpy(buf + len, &title_len16, 2), len += 2;
	memcpy(buf + len, r->title ? r->title : "", title_len), len += title_len;
	buf[len++] = r->exe != NULL;
	memcpy(buf + len, r->exe ? r->exe : "", exe_len), len += exe_len;
	return len;
}

/* A waker is its tid and name: the same tid may wake under a new name. */
static size_t waker_key(const struct sample *r, unsigned char *buf)
{
	size_t n = strlen(r->waker);
	uint32_t tid = (r->flags & TRACT_SF_WAKER) ? r->waker_tid : 0;

	if (n > TRACT_COMM_LEN + 8)
		n = TRACT_COMM_LEN + 8;
	memcpy(buf, &tid, sizeof(tid));
	memcpy(buf + sizeof(tid), r->waker, n);
	return sizeof(tid) + n;
}

/* Kernel and user stacks share the dictionary: their hashes are of the frames' text. */
static int64_t stack_id(struct store_sqlite *st, const struct kstack *k)
{
	return dimension_id(st, &st->stacks, &k->hash, sizeof(k->hash), insert_stack, k);
}


/* A value bound to parameter param, a time in µs as a coarse one with coarse: SQLITE_OK or an error. */
static int bind_value(sqlite3_stmt *s, int param, const struct column_value *v, int coarse)
{
	switch (v->kind) {
	case VAL_NULL:
		return sqlite3_bind_null(s, param);
	case VAL_INT:
		return sqlite3_bind_int64(s, param, v->i);
	case VAL_UINT:
		return sqlite3_bind_int64(s, param, coarse ? coarse_us_stored(v->u) : (int64_t)v->u);
	case VAL_TEXT:
		/* bytes as they are: the value may point into a buffer of its own */
		return sqlite3_bind_text(s, param, v->s, (int)v->len, SQLITE_TRANSIENT);
	}
	return SQLITE_MISUSE;
}

/* The columns stored in each table, in their order there, made once a store: every row binds them. */
static void plan_columns(struct store_sqlite *st)
{
	for (size_t i = 0; i < NR_SAMPLE_COLUMNS; i++) {
		struct stored_columns *c = &st->stored[sample_columns[i].where];

		c->column[c->nr] = (uint8_t)i;
		c->coarse[c->nr++] = (uint8_t)column_coarse_us(&sample_columns[i]);
	}
}

/* The row's values of the columns stored in one table, bound from parameter first on. */
static int bind_stored(struct store_sqlite *st, sqlite3_stmt *s, int first, enum column_where where,
		       const struct pass *p, const struct sample *r)
{
	const struct stored_columns *c = &st->stored[where];
	int rc = SQLITE_OK;

	for (size_t i = 0; i < c->nr && rc == SQLITE_OK; i++) {
		struct column_value v;

		sample_columns[c->column[i]].value(p, r, &v);
		rc = bind_value(s, first + (int)i, &v, c->coarse[i]);
	}
	return rc != SQLITE_OK;
}

/* A sample whose trace context goes into the traces dimension. */
struct traced_sample {
	const struct pass *p;
	const struct sample *r;
};

static int insert_trace(struct store_sqlite *st, int64_t id, const void *arg)
{
	const struct traced_sample *t = arg;
	sqlite3_stmt *s = st->ins[INS_TRACE];

	sqlite3_bind_int64(s, 1, id);
	return bind_stored(st, s, 2, TRACE, t->p, t->r) || step(st, s) ? -EIO : 0;
}

/* traces.id of the sample's trace context, 0 on error; -1 when it has none. */
static int64_t trace_id_of(struct store_sqlite *st, const struct pass *p, const struct sample *r)
{
	struct traced_sample t = { p, r };
	unsigned char small[256], *key = small;
	size_t n = r->trace_attrs ? strlen(r->trace_attrs) : 0, len = 1 + 16 + 8 + 1 + 1 + n;
	int64_t id;

	if (!(r->flags & TRACT_SF_TRACE) && !r->trace_attrs)
		return -1;
	if (len > sizeof(small))
		key = xcalloc(1, len);
	key[0] = !!(r->flags & TRACT_SF_TRACE);
	memcpy(key + 1, r->trace_id, 16);
	memcpy(key + 17, r->span_id, 8);
	key[25] = r->trace_flags;
	key[26] = r->trace_attrs != NULL;
	memcpy(key + 27, r->trace_attrs ? r->trace_attrs : "", n);
	id = dimension_id(st, &st->traces, key, len, insert_trace, &t);
	if (key != small)
		free(key);
	return id;
}

static int insert_row(struct store_sqlite *st, int64_t pass_id, const struct pass *p, const struct sample *r,
		      int64_t *fact)
{
	unsigned char key[4096 + 64];
	sqlite3_stmt *s = st->ins[INS_FACT];
	int in_syscall = r->syscall_nr >= 0;
	int64_t thread, call = 0, stack = 0, ustack = 0, file = 0, waker = 0, trace;

	thread = dimension_id(st, &st->threads, key, thread_key(r, key, sizeof(key)), insert_thread, r);
	if (!thread)
		return -EIO;
	if (in_syscall) {
		if (note_syscall(st, r->syscall_nr))
			return -EIO;
		int64_t key_call[7] = { r->syscall_nr };

		memcpy(key_call + 1, r->sc_args, sizeof(r->sc_args));
		call = dimension_id(st, &st->calls, key_call, sizeof(key_call), insert_call, key_call);
		if (!call)
			return -EIO;
	}
	if (r->kstack && !(stack = stack_id(st, r->kstack)))
		return -EIO;
	if (r->ustack && !(ustack = stack_id(st, r->ustack)))
		return -EIO;
	if (r->cgroup && note_cgroup(st, r))
		return -EIO;
	if (r->file && !(file = file_id(st, r)))
		return -EIO;
	if (r->waker) {
		waker = dimension_id(st, &st->wakers, key, waker_key(r, key), insert_waker, r);
		if (!waker)
			return -EIO;
	}
	trace = trace_id_of(st, p, r);
	if (!trace)
		return -EIO;
	sqlite3_bind_int64(s, FACT_REF_PASS, pass_id);
	sqlite3_bind_int64(s, FACT_REF_THREAD, thread);
	sqlite3_bind_int64(s, FACT_REF_STATE, r->state);
	bind_opt(s, FACT_REF_CALL, call, call);
	bind_opt(s, FACT_REF_KSTACK, stack, stack);
	bind_opt(s, FACT_REF_FILE, file, file);
	bind_opt(s, FACT_REF_WAKER, waker, waker);
	bind_opt(s, FACT_REF_USTACK, ustack, ustack);
	bind_opt(s, FACT_REF_TRACE, trace > 0, trace);
	if (bind_stored(st, s, FACT_REF__COUNT, FACT, p, r) || step(st, s))
		return -EIO;
	*fact = sqlite3_last_insert_rowid(st->db);
	if (r->blocker_tid) {
		s = st->ins[INS_BLOCKER];
		sqlite3_bind_int64(s, 1, *fact);
		if (bind_stored(st, s, 2, BLOCKER, p, r) || step(st, s))
			return -EIO;
	}
	if (!r->io_op)
		return 0;
	s = st->ins[INS_IO];
	sqlite3_bind_int64(s, 1, *fact);
	sqlite3_bind_text(s, 2, r->io_dev, -1, SQLITE_STATIC);
	if (bind_stored(st, s, 3, IO, p, r))
		return -EIO;
	return step(st, s);
}

static int set_repeats(void *arg, int64_t fact, int64_t repeats)
{
	struct store_sqlite *st = arg;
	sqlite3_stmt *s = st->ins[INS_REPEATS];

	sqlite3_bind_int64(s, 1, fact);
	sqlite3_bind_int64(s, 2, repeats);
	return step(st, s);
}

/* A row: a repeat goes on with its thread's run (no row), any other is a fact of its own. */
static int write_row(struct store_sqlite *st, int64_t pass_id, const struct pass *p, const struct sample *r)
{
	int mark_open, err;
	int64_t fact = fact_runs__extend(st->runs, r, &mark_open);

	if (fact)
		return mark_open ? set_repeats(st, fact, REPEATS_OPEN) : 0;
	err = insert_row(st, pass_id, p, r, &fact);
	if (!err)
		fact_runs__stored(st->runs, r, fact);
	return err;
}

/* A process of the histograms and edges: tgid (none for the irq and timer wakers) and name (NULL: gone). */
struct process_ref {
	int has_tgid;
	uint32_t tgid;
	const char *name;
};

static int insert_process(struct store_sqlite *st, int64_t id, const void *arg)
{
	const struct process_ref *pr = arg;
	sqlite3_stmt *s = st->ins[INS_PROCESS];

	sqlite3_bind_int64(s, 1, id);
	bind_opt(s, 2, pr->has_tgid, pr->tgid);
	bind_text_opt(s, 3, pr->name);
	return step(st, s);
}

/* processes.id of a process, inserting it on first use in this file; 0 on error. */
static int64_t process_id(struct store_sqlite *st, int has_tgid, uint32_t tgid, const char *name)
{
	struct process_ref pr = { has_tgid, has_tgid ? tgid : 0, name };
	unsigned char small[128], *key = small;
	size_t n = name ? strlen(name) : 0, len = 6 + n;
	int64_t id;

	/* names come whole into the key, however long a CSV hour's are */
	if (len > sizeof(small))
		key = xcalloc(1, len);
	key[0] = (unsigned char)has_tgid;
	memcpy(key + 1, &pr.tgid, 4);
	key[5] = name != NULL;
	memcpy(key + 6, name ? name : "", n);
	id = dimension_id(st, &st->processes, key, len, insert_process, &pr);
	if (key != small)
		free(key);
	return id;
}

/* A syscall name of no number: syscalls holds it under a negative number of this file's own. */
static int insert_odd_syscall(struct store_sqlite *st, int64_t id, const void *arg)
{
	sqlite3_stmt *s = st->ins[INS_SYSCALL];

	sqlite3_bind_int64(s, 1, -id);
	sqlite3_bind_text(s, 2, arg, -1, SQLITE_STATIC);
	return step(st, s);
}


/*
 * The syscalls.nr a histogram row's syscall name is stored by: its number
 * (the kernel's, or N of syscall_N), or for a name this tract does not
 * know (a CSV hour written elsewhere) a negative number of this file's own.
 * 0, or -EIO.
 */
static int hist_syscall_nr(struct store_sqlite *st, const char *name, int64_t *nr)
{
	int nr_found, added;
	uint32_t seen;

	if (!name) {
		*nr = NO_SYSCALL_NR;
		return 0;
	}
	/* a name is looked up once a file: syscall_number() reads the whole table */
	seen = dict__intern(st->syscall_nrs, name, strlen(name), &added);
	if (!added) {
		*nr = (int64_t)*dict__value(st->syscall_nrs, seen);
		return 0;
	}
	nr_found = syscall_number_of(name);
	if (nr_found >= 0) {
		*nr = nr_found;
		if (note_syscall(st, nr_found))
			return -EIO;
	} else if (!(*nr = -dimension_id(st, &st->odd_syscalls, name, strlen(name), insert_odd_syscall, name))) {
		return -EIO;
	}
	*dict__value(st->syscall_nrs, seen) = (uint64_t)*nr;
	return 0;
}

/* The value of the column of t kept with c (the same process or thread) that is this part of it. */
static void part_value(const struct pass_table *t, const struct pass_column *c, enum pass_part part,
		       const struct pass *p, const void *row, struct column_value *v)
{
	v->kind = VAL_NULL;
	for (size_t i = 0; i < t->ncolumns; i++)
		if (t->columns[i].store == c->store && !strcmp(t->columns[i].ref, c->ref) && t->columns[i].part == part)
			t->columns[i].value(p, row, v);
}

/* What ended a wait: its thread (none for a timer or an interrupt) and process, its name and the wait's class. */
struct ender_ref {
	int has_tid, has_tgid;
	uint32_t tid, tgid;
	const char *name, *wait_class;
};

static int insert_ender(struct store_sqlite *st, int64_t id, const void *arg)
{
	const struct ender_ref *er = arg;
	sqlite3_stmt *s = st->ins[INS_ENDER];

	sqlite3_bind_int64(s, 1, id);
	bind_opt(s, 2, er->has_tid, er->tid);
	bind_opt(s, 3, er->has_tgid, er->tgid);
	sqlite3_bind_text(s, 4, er->name, -1, SQLITE_STATIC);
	sqlite3_bind_text(s, 5, er->wait_class, -1, SQLITE_STATIC);
	return step(st, s);
}

/* enders.id of the ender of a row of the pass's tables, inserting it on first use in this file; 0 on error. */
static int64_t ender_id(struct store_sqlite *st, const struct pass_table *t, const struct pass_column *c,
			const struct pass *p, const void *row)
{
	struct column_value tid, tgid, name, wait_class;
	char name_z[TRACT_COMM_LEN + 16] = "", class_z[16] = "";
	unsigned char key[10 + sizeof(name_z) + sizeof(class_z)];
	struct ender_ref er;
	size_t len = 0;

	part_value(t, c, PART_TID, p, row, &tid);
	part_value(t, c, PART_TGID, p, row, &tgid);
	part_value(t, c, PART_NAME, p, row, &name);
	part_value(t, c, PART_CLASS, p, row, &wait_class);
	/* a name or class longer than any tract writes (a CSV hour's) is cut: the same here and in the file */
	if (name.kind == VAL_TEXT)
		memcpy(name_z, name.s, name.len < sizeof(name_z) - 1 ? name.len : sizeof(name_z) - 1);
	if (wait_class.kind == VAL_TEXT)
		memcpy(class_z, wait_class.s, wait_class.len < sizeof(class_z) - 1 ? wait_class.len : sizeof(class_z) - 1);
	er = (struct ender_ref){ tid.kind != VAL_NULL, tgid.kind != VAL_NULL, (uint32_t)tid.u, (uint32_t)tgid.u,
				 name_z, class_z };
	key[len++] = (unsigned char)er.has_tid;
	key[len++] = (unsigned char)er.has_tgid;
	memcpy(key + len, &er.tid, 4), len += 4;
	memcpy(key + len, &er.tgid, 4), len += 4;
	memcpy(key + len, name_z, strlen(name_z) + 1), len += strlen(name_z) + 1;
	memcpy(key + len, class_z, strlen(class_z)), len += strlen(class_z);
	return dimension_id(st, &st->enders, key, len, insert_ender, &er);
}

/* A name of at most TRACT_COMM_LEN bytes from a value into a thread's field. */
static void comm_of(char *dst, const struct column_value *v)
{
	memset(dst, 0, TRACT_COMM_LEN);
	if (v->kind == VAL_TEXT)
		memcpy(dst, v->s, v->len < TRACT_COMM_LEN ? v->len : TRACT_COMM_LEN);
}

/*
 * The thread a row of the pass's tables names, in the threads dimension: the
 * pass's sample of that tid when it has one (the same row, with its
 * executable and cgroup), else the names the row has.
 */
static int64_t row_thread(struct store_sqlite *st, const struct pass_table *t, const struct pass_column *c,
			  const struct pass *p, const void *row)
{
	unsigned char key[4096 + 64];
	struct column_value v[4];
	static const enum pass_part parts[] = { PART_TID, PART_TGID, PART_COMM, PART_PCOMM };
	struct sample named = { 0 };
	const struct sample *s = &named;
	uint32_t id;

	for (size_t i = 0; i < ARRAY_SIZE(parts); i++)
		part_value(t, c, parts[i], p, row, &v[i]);
	named.tid = (uint32_t)v[0].u;
	named.tgid = (uint32_t)v[1].u;
	id = dict__find(st->sample_of_tid, &named.tid, sizeof(named.tid));
	if (id && p->rows[*dict__value(st->sample_of_tid, id)].tgid == named.tgid) {
		s = &p->rows[*dict__value(st->sample_of_tid, id)];
	} else {
		comm_of(named.comm, &v[2]);
		comm_of(named.pcomm, &v[3]);
	}
	return dimension_id(st, &st->threads, key, thread_key(s, key, sizeof(key)), insert_thread, s);
}

/* Column c of a row of the pass's tables bound to param, by the id of what it names where it is kept so. */
static int bind_kept(struct store_sqlite *st, sqlite3_stmt *s, int param, const struct pass_table *t,
		     const struct pass_column *c, const struct pass *p, const void *row)
{
	struct column_value v = { 0 }, w = { 0 };
	int64_t id = 0;

	switch (c->store) {
	case S_SELF_KIND:
		c->value(p, row, &v);
		return bind_value(s, param, &v, 0) != SQLITE_OK;
	case S_PROCESS_KIND:
		/* no tgid: an irq or timer waker, or a command's processes folded together (hist_fold.h) */
		part_value(t, c, PART_TGID, p, row, &v);
		part_value(t, c, PART_NAME, p, row, &w);
		id = process_id(st, v.kind != VAL_NULL, (uint32_t)v.u, w.kind == VAL_TEXT ? w.s : NULL);
		break;
	case S_THREAD_KIND:
		id = row_thread(st, t, c, p, row);
		break;
	case S_SYSCALL_KIND:
		c->value(p, row, &v);
		if (hist_syscall_nr(st, v.kind == VAL_TEXT ? v.s : NULL, &id))
			return -EIO;
		return sqlite3_bind_int64(s, param, id) != SQLITE_OK;
	case S_STACK_KIND:
		c->value(p, row, &v);
		if (!v.stack)
			return sqlite3_bind_null(s, param) != SQLITE_OK;
		id = stack_id(st, v.stack);
		break;
	case S_ENDER_KIND:
		id = ender_id(st, t, c, p, row);
		break;
	case S_BEFORE_PASS_KIND:
		c->value(p, row, &v);
		return sqlite3_bind_int64(s, param, (int64_t)(p->ts_us - v.u)) != SQLITE_OK;
	}
	return !id || sqlite3_bind_int64(s, param, id) != SQLITE_OK ? -EIO : 0;
}

/* The pass's rows of one of its tables; the passes' own row gives the pass its id. */
static int insert_pass_rows(struct store_sqlite *st, enum pass_table_id id, const struct pass *p, int64_t *pass_id)
{
	const struct pass_table *t = &pass_tables[id];
	const struct pass_column *kept[64];
	size_t n = pass_table_stored(t, kept, ARRAY_SIZE(kept)), rows = t->nrows(p);
	sqlite3_stmt *s = st->pass_ins[id];

	for (size_t r = 0; r < rows; r++) {
		const void *row = t->row(p, r);
		int param = 1;

		if (!t->itself)
			sqlite3_bind_int64(s, param++, *pass_id);
		for (size_t i = 0; i < n; i++)
			if (bind_kept(st, s, param++, t, kept[i], p, row))
				return -EIO;
		if (step(st, s))
			return -EIO;
		if (t->itself)
			*pass_id = sqlite3_last_insert_rowid(st->db);
	}
	return 0;
}

/* Whether a row of the pass's tables names a thread. */
static int names_threads(const struct pass *p)
{
	for (int t = 0; t < NR_PASS_TABLES; t++)
		for (size_t i = 0; pass_tables[t].nrows(p) && i < pass_tables[t].ncolumns; i++)
			if (pass_tables[t].columns[i].store == S_THREAD_KIND)
				return 1;
	return 0;
}

/* The pass's samples by tid, for the threads its other tables name (row_thread()). */
static void index_samples(struct store_sqlite *st, const struct pass *p)
{
	dict__clear(st->sample_of_tid);
	for (size_t i = 0; i < p->nr; i++) {
		int added;
		uint32_t id = dict__intern(st->sample_of_tid, &p->rows[i].tid, sizeof(p->rows[i].tid), &added);

		if (added)
			*dict__value(st->sample_of_tid, id) = i;
	}
}

static int sqlite_write_pass(struct sink *base, const struct pass *p)
{
	struct store_sqlite *st = (struct store_sqlite *)base;
	int64_t pass_id;
	int err;

	/* a file per hour; an in-memory store is one database whatever the hours */
	if (!st->memory && (!st->db || p->ts_us / USEC_PER_HOUR != st->hour)) {
		err = open_file(st, p->ts_us);
		if (err) {
			close_file(st);
			return err;
		}
	}
	age_dimensions(st, p->ts_us);
	err = exec(st, "BEGIN");
	if (!err)
		err = insert_pass_rows(st, PT_passes, p, &pass_id);
	if (!err)
		fact_runs__begin(st->runs, pass_id);
	for (size_t i = 0; !err && i < p->nr; i++)
		err = write_row(st, pass_id, p, &p->rows[i]);
	if (!err)
		err = fact_runs__ended(st->runs, set_repeats, st);
	if (names_threads(p))
		index_samples(st, p);
	for (int t = 0; !err && t < NR_PASS_TABLES; t++)
		if (t != PT_passes)
			err = insert_pass_rows(st, t, p, &pass_id);
	if (!err)
		err = exec(st, "COMMIT");
	if (!err)
		fact_runs__commit(st->runs);
	if (err) {
		/* nothing of the pass is stored, so the dimensions must not remember it either */
		sqlite3_exec(st->db, "ROLLBACK", NULL, NULL, NULL);
		reset_dimensions(st);
	}
	return err;
}

static void sqlite_close(struct sink *base)
{
	struct store_sqlite *st = (struct store_sqlite *)base;
	struct dimension *dims[NR_DIMENSIONS];

	dimensions_of(st, dims);
	close_file(st);
	for (size_t i = 0; i < ARRAY_SIZE(dims); i++) {
		dict__free(dims[i]->ids);
		dict__free(dims[i]->older);
	}
	dict__free(st->syscall_nrs);
	dict__free(st->cgroups_written);
	dict__free(st->sample_of_tid);
	fact_runs__free(st->runs);
	free((char *)st->cfg.dir);
	free(st);
}

static const struct sink_ops sqlite_ops = {
	.write_pass = sqlite_write_pass,
	.close = sqlite_close,
};

static struct store_sqlite *store_new(const struct store_config *cfg)
{
	struct store_sqlite *st = xcalloc(1, sizeof(*st));

	st->base.ops = &sqlite_ops;
	st->cfg = *cfg;
	st->cfg.dir = xstrdup(cfg->dir);
	st->threads = (struct dimension){ .ids = dict__new(), .older = dict__new(), .table = "threads",
					  .generation_us = DIMENSION_GENERATION_US };
	st->calls = (struct dimension){ .ids = dict__new(), .older = dict__new(), .table = "calls",
					.generation_us = DIMENSION_GENERATION_US };
	st->stacks = (struct dimension){ .ids = dict__new(), .table = "stacks" };
	st->files = (struct dimension){ .ids = dict__new(), .table = "files" };
	st->wakers = (struct dimension){ .ids = dict__new(), .table = "wakers" };
	st->processes = (struct dimension){ .ids = dict__new(), .older = dict__new(), .table = "processes",
					    .generation_us = DIMENSION_GENERATION_US };
	st->traces = (struct dimension){ .ids = dict__new(), .table = "traces" };
	st->enders = (struct dimension){ .ids = dict__new(), .older = dict__new(), .table = "enders",
					 .generation_us = DIMENSION_GENERATION_US };
	/* ids count down from those the file has: -1, -2, ... */
	st->odd_syscalls = (struct dimension){ .ids = dict__new(), .table = "(SELECT -nr AS id FROM syscalls WHERE nr < 0)" };
	st->syscall_nrs = dict__new();
	st->cgroups_written = dict__new();
	st->sample_of_tid = dict__new();
	st->runs = fact_runs__new();
	plan_columns(st);
	return st;
}

size_t store_sqlite__remembered(const struct sink *base)
{
	struct dimension *dims[NR_DIMENSIONS];
	size_t n = 0;

	dimensions_of((const struct store_sqlite *)base, dims);
	for (size_t i = 0; i < ARRAY_SIZE(dims); i++)
		n += dict__size(dims[i]->ids) + (dims[i]->older ? dict__size(dims[i]->older) : 0);
	return n;
}

int store_sqlite__open(const struct store_config *cfg, struct sink **out)
{
	int err = store_make_dir(cfg->dir, cfg->gid);

	if (err)
		return err;
	*out = &store_new(cfg)->base;
	return 0;
}

/* Every page of from copied into to: 0, or -1. */
static int copy_pages(sqlite3 *to, sqlite3 *from)
{
	sqlite3_backup *b = sqlite3_backup_init(to, "main", from, "main");
	int done = b && sqlite3_backup_step(b, -1) == SQLITE_DONE;

	return sqlite3_backup_finish(b) == SQLITE_OK && done ? 0 : -1;
}

/*
 * A memory database's schema, copied from the first one made (tract query
 * makes one for each CSV hour it reads).  Making the schema parses every
 * statement twice, to run it and as the schema, and writes its pages; a
 * copy's pages are copied, and its schema parsed once, by its first
 * statement.
 */
static int memory_schema(struct store_sqlite *st)
{
	static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
	static sqlite3 *model;
	int err;

	pthread_mutex_lock(&lock);
	if (model) {
		err = copy_pages(st->db, model) ? db_fail(st, "copy the schema into") : 0;
	} else {
		err = create_schema(st);
		/* one that cannot be kept as the model is not: the next makes its own */
		if (!err && (sqlite3_open_v2(":memory:", &model, SQLITE_OPEN_READWRITE, NULL) != SQLITE_OK ||
			     copy_pages(model, st->db))) {
			sqlite3_close(model);
			model = NULL;
		}
	}
	pthread_mutex_unlock(&lock);
	return err;
}

int store_sqlite__open_memory(const char *name, struct sink **out, sqlite3 **db)
{
	struct store_config cfg = { .dir = name, .gid = -1 };
	struct store_sqlite *st = store_new(&cfg);
	int err;

	st->path = xstrdup(name);
	st->memory = db;
	*db = NULL;
	if (sqlite3_open_v2(":memory:", &st->db, SQLITE_OPEN_READWRITE, NULL) != SQLITE_OK) {
		err = db_fail(st, "open");
	} else {
		err = memory_schema(st) ?: prepare(st, 0);
	}
	if (err) {
		st->memory = NULL;
		sqlite_close(&st->base);
		return err;
	}
	*out = &st->base;
	return 0;
}
