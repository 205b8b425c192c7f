// SPDX-License-Identifier: GPL-2.0-only
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <limits.h>
#include <sys/stat.h>
#include "clock.h"
#include "schema.h"
#include "csv_reader.h"
#include "hours.h"
#include "pass_tables.h"
#include "strbuf.h"
#include "reader.h"
#include "upgrade.h"
#include "util.h"

const char *store_default_dir(void)
{
	const char *env = getenv("TRACT_DATA");

	return env && *env ? env : DEFAULT_DATA_DIR;
}

/*
 * Recorded in one format, then the other, in the same hour: its samples are
 * read from the SQLite file only.  Said once for each such hour (top opens
 * the store at every refresh).
 */
static void warn_both_formats(const char *dir, uint64_t hour_us)
{
	static uint64_t warned_up_to;
	char *db, *csv;

	if (hour_us <= warned_up_to)
		return;
	warned_up_to = hour_us;
	db = store_hour_path(dir, hour_us, HOUR_SQLITE_SUFFIX);
	csv = store_hour_path(dir, hour_us, HOUR_CSV_SUFFIX);
	tract_warn("an hour recorded in both formats: reading %s, not %s (move one away to read the other)", db, csv);
	free(db);
	free(csv);
}

int store_reader__open(const char *dir, struct store_reader *r)
{
	int err;

	size_t n = 0;

	memset(r, 0, sizeof(*r));
	err = store_hours_list(dir, &r->hours, &r->n);
	if (err)
		return err;
	/* an hour of only a -wal or a meta file holds nothing to read */
	for (size_t i = 0; i < r->n; i++) {
		if (r->hours[i].formats == (HOUR_SQLITE | HOUR_CSV))
			warn_both_formats(dir, r->hours[i].hour_us);
		if (r->hours[i].formats)
			r->hours[n++] = r->hours[i];
	}
	r->n = n;
	r->dir = xstrdup(dir);
	return 0;
}

void store_reader__free(struct store_reader *r)
{
	if (r->remote)
		r->remote->ops->free(r->remote);
	free(r->hours);
	free(r->dir);
	memset(r, 0, sizeof(*r));
}

/* An hour with an SQLite file is read from it; one with only CSV files from those. */
static int is_csv(const struct store_hour *h)
{
	return !(h->formats & HOUR_SQLITE) && (h->formats & HOUR_CSV);
}

char *store_reader__hour_name(const struct store_reader *r, size_t i)
{
	return store_hour_path(r->dir, r->hours[i].hour_us, is_csv(&r->hours[i]) ? HOUR_CSV_SUFFIX :
										   HOUR_SQLITE_SUFFIX);
}

char *store_file_uri(const char *path, const char *params)
{
	size_t len = strlen(path) * 3 + strlen(params) + 16, o;
	char *uri = xcalloc(1, len);

	o = (size_t)snprintf(uri, len, "file:");
	for (const char *c = path; *c; c++) {
		if (*c == '?' || *c == '#' || *c == '%')
			o += (size_t)snprintf(uri + o, len - o, "%%%02X", (unsigned char)*c);
		else
			uri[o++] = *c;
	}
	snprintf(uri + o, len - o, "?%s", params);
	return uri;
}

static int64_t user_version(sqlite3 *db)
{
	sqlite3_stmt *st;
	int64_t v = -1;

	if (sqlite3_prepare_v2(db, "PRAGMA user_version", -1, &st, NULL) != SQLITE_OK)
		return -1;
	if (sqlite3_step(st) == SQLITE_ROW)
		v = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	return v;
}

/* Whether a recorder has path open, or left its WAL after a crash: a -wal or -shm file beside it. */
static int wal_in_use(const char *path)
{
	char name[PATH_MAX];
	struct stat st;

	if ((size_t)snprintf(name, sizeof(name), "%s-wal", path) >= sizeof(name) || !stat(name, &st))
		return 1;
	snprintf(name, sizeof(name), "%s-shm", path);
	return !stat(name, &st);
}

/* Whether the file's table has the column: 1, 0, or 0 when it cannot be told (the query then says). */
static int has_column(sqlite3 *db, const char *table, const char *column)
{
	sqlite3_stmt *st;
	int has;

	if (sqlite3_prepare_v2(db, "SELECT 1 FROM pragma_table_info(?1) WHERE name = ?2", -1, &st, NULL) != SQLITE_OK)
		return 0;
	sqlite3_bind_text(st, 1, table, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 2, column, -1, SQLITE_STATIC);
	has = sqlite3_step(st) == SQLITE_ROW;
	sqlite3_finalize(st);
	return has;
}

/*
 * An hour of a schema read as it is but older (TRACT_SCHEMA_READ_AS_IS on):
 * its passes with the columns later schemas added after them (0 where the
 * column is NOT NULL, else NULL: nothing said), and its facts with no
 * repeats, in views of this connection's own that name them first: no
 * copy, nothing written to the file.
 */
static int read_as_newest(sqlite3 *db, const char *path)
{
	const struct pass_table *t = &pass_tables[PT_passes];
	struct strbuf sql = { 0 };
	int err = 0;

	strbuf_add(&sql, "CREATE TEMP VIEW passes AS SELECT *");
	for (size_t i = 0; i < t->ncolumns; i++) {
		const struct pass_column *c = &t->columns[i];

		if (!has_column(db, "passes", c->name))
			strbuf_addf(&sql, ", %s AS %s", strstr(c->sqlite_type, "NOT NULL") ? "0" : "NULL", c->name);
	}
	strbuf_add(&sql, " FROM main.passes;");
	/* every fact of an hour before 18 is its own pass's alone */
	if (!has_column(db, "sample_facts", "repeats"))
		strbuf_add(&sql, "CREATE TEMP VIEW sample_facts AS SELECT rowid AS rowid, *, NULL AS repeats"
				 " FROM main.sample_facts;");
	if (!err && sqlite3_exec(db, strbuf_str(&sql), NULL, NULL, NULL) != SQLITE_OK)
		err = -EIO;
	strbuf_free(&sql);
	if (!err)
		return 0;
	tract_err("cannot read '%s': %s", path, sqlite3_errmsg(db));
	sqlite3_close(db);
	return err;
}

/*
 * A file no recorder has open and whose WAL is gone is whole: read as it is
 * ("immutable"), since any other way SQLite opens a -wal and a -shm file,
 * read-write where it may, and leaves them in the store as the reader's.
 * Else read-only, which needs the WAL index a recorder keeps.  After a
 * crash of the recorder, the WAL must be recovered before anyone reads it,
 * which a read-only connection cannot do: a reader who may write the file
 * then opens it read-write, which recovers and writes nothing else.  Last,
 * for a reader who may not write, "immutable" all the same: the main file
 * as it is, whole since every pass is a transaction, without what the WAL
 * holds.
 */
int store_open_file(const char *path, sqlite3 **db)
{
	static const char *const modes[] = { "mode=ro&immutable=1", "mode=ro", "mode=rw", "mode=ro&immutable=1" };
	int64_t version = -1;

	*db = NULL;
	for (size_t i = wal_in_use(path); i < ARRAY_SIZE(modes) && version < 0; i++) {
		char *uri = store_file_uri(path, modes[i]);
		int rc = sqlite3_open_v2(uri, db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_URI | SQLITE_OPEN_NOMUTEX, NULL);

		free(uri);
		if (rc == SQLITE_OK) {
			sqlite3_busy_timeout(*db, 2000);
			version = user_version(*db);
		}
		if (version < 0) {
			sqlite3_close(*db);
			*db = NULL;
		}
	}
	if (version < 0) {
		tract_err("'%s' is not a readable tract store (not an SQLite database, or damaged)", path);
		return -EIO;
	}
	/* an hour an older tract wrote: read as this one writes them */
	if (version >= TRACT_SCHEMA_READ_AS_IS && version <= TRACT_SCHEMA_VERSION)
		return version < TRACT_SCHEMA_VERSION ? read_as_newest(*db, path) : 0;
	if (store_upgradable(version))
		return store_upgrade_copy(db);
	if (version != TRACT_SCHEMA_VERSION) {
		if (version == 0)
			tract_err("'%s' is empty or not a tract store", path);
		else
			tract_err("'%s' has schema version %lld; this tract reads versions %d to %d", path,
				  (long long)version, TRACT_SCHEMA_OLDEST, TRACT_SCHEMA_VERSION);
		sqlite3_close(*db);
		*db = NULL;
		return -EIO;
	}
	return 0;
}

int store_reader__open_hour(const struct store_reader *r, size_t i, sqlite3 **db)
{
	char *name = store_reader__hour_name(r, i);
	int err = is_csv(&r->hours[i]) ? store_csv__load_hour(r->dir, r->hours[i].hour_us, db) :
					 store_open_file(name, db);

	free(name);
	return err;
}

int store_reader__skip_damaged(int err, int strict)
{
	char why[512];

	if (!err)
		return 0;
	snprintf(why, sizeof(why), "%s", tract_last_error());
	/* no memory is no damage: never skipped */
	if (strict || err == -ENOMEM) {
		tract_err("%s", why);
		return err;
	}
	tract_warn("skipping a damaged hour (--strict fails instead): %s", why);
	return 1;
}

int store_reader__open_or_skip(const struct store_reader *r, size_t i, int strict, sqlite3 **db)
{
	int err;

	tract_clear_error();
	tract_hold_errors(1);
	err = store_reader__open_hour(r, i, db);
	tract_hold_errors(0);
	return store_reader__skip_damaged(err, strict);
}

static int attach(sqlite3 *db, const char *uri_or_name, const char *as)
{
	sqlite3_stmt *st;
	int rc = sqlite3_prepare_v2(db, "ATTACH ?1 AS ?2", -1, &st, NULL);

	if (rc == SQLITE_OK) {
		sqlite3_bind_text(st, 1, uri_or_name, -1, SQLITE_TRANSIENT);
		sqlite3_bind_text(st, 2, as, -1, SQLITE_TRANSIENT);
		rc = sqlite3_step(st) == SQLITE_DONE ? SQLITE_OK : SQLITE_ERROR;
	}
	sqlite3_finalize(st);
	return rc;
}

/* A CSV hour is loaded into memory and copied into the attached database whole. */
static int attach_copy(sqlite3 *db, sqlite3 *hour, const char *as)
{
	sqlite3_int64 size;
	unsigned char *bytes = sqlite3_serialize(hour, "main", &size, 0);
	int rc;

	if (!bytes)
		return SQLITE_NOMEM;
	rc = attach(db, ":memory:", as);
	if (rc == SQLITE_OK)
		rc = sqlite3_deserialize(db, as, bytes, size, size,
					 SQLITE_DESERIALIZE_FREEONCLOSE | SQLITE_DESERIALIZE_RESIZEABLE);
	else
		sqlite3_free(bytes);
	return rc;
}

/* Whether db is an image in memory (sqlite3_deserialize()'s VFS), not a file. */
static int in_memory(sqlite3 *db)
{
	sqlite3_vfs *vfs = NULL;

	return sqlite3_file_control(db, "main", SQLITE_FCNTL_VFS_POINTER, &vfs) == SQLITE_OK && vfs &&
	       !strcmp(vfs->zName, "memdb");
}

int store_reader__attach_hour(const struct store_reader *r, size_t i, sqlite3 *db, const char *as)
{
	char *name = store_reader__hour_name(r, i), *uri;
	char why[256] = "";
	sqlite3 *hour;
	int err = store_reader__open_hour(r, i, &hour), rc;

	if (err) {
		free(name);
		return err;
	}
	/* a CSV hour, or an older one upgraded, is in memory */
	if (is_csv(&r->hours[i]) || in_memory(hour)) {
		rc = attach_copy(db, hour, as);
	} else {
		/* without a WAL index and write access, read the file as it is; without a WAL, as well */
		uri = store_file_uri(name, wal_in_use(name) ? "mode=ro" : "mode=ro&immutable=1");
		rc = attach(db, uri, as);
		free(uri);
		if (rc != SQLITE_OK) {
			/*
			 * ATTACH says only "unable to open database" when the
			 * schema is damaged: the file's own connection says why
			 */
			if (sqlite3_exec(hour, "SELECT count(*) FROM sqlite_master", NULL, NULL, NULL) != SQLITE_OK)
				snprintf(why, sizeof(why), "%s", sqlite3_errmsg(hour));
			uri = store_file_uri(name, "mode=ro&immutable=1");
			rc = attach(db, uri, as);
			free(uri);
		}
	}
	sqlite3_close(hour);
	if (rc != SQLITE_OK) {
		tract_err("cannot read '%s': %s", name, *why ? why : sqlite3_errmsg(db));
		err = -EIO;
	}
	free(name);
	return err;
}

int store_reader__newest_us(const struct store_reader *r, uint64_t *ts_us)
{
	*ts_us = 0;
	for (size_t i = r->n; i-- > 0 && !*ts_us;) {
		sqlite3_stmt *st;
		sqlite3 *db;
		int err;

		tract_hold_errors(1);
		err = store_reader__open_hour(r, i, &db);
		tract_hold_errors(0);
		/* a damaged hour says so when a query reads it */
		if (err == -ENOMEM) {
			tract_err("out of memory");
			return err;
		}
		if (err)
			continue;
		if (sqlite3_prepare_v2(db, "SELECT max(ts_us) FROM passes", -1, &st, NULL) == SQLITE_OK) {
			if (sqlite3_step(st) == SQLITE_ROW)
				*ts_us = (uint64_t)sqlite3_column_int64(st, 0);
			sqlite3_finalize(st);
		}
		sqlite3_close(db);
	}
	return 0;
}
