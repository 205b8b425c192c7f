// SPDX-License-Identifier: GPL-2.0-only
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "clock.h"
#include "schema.h"
#include "storeset.h"
#include "util.h"

const char *storeset_default_dir(void)
{
	const char *env = getenv("TRACT_DATA");

	return env && *env ? env : DEFAULT_DATA_DIR;
}

uint64_t store_hour_of_name(const char *name, const char **suffix)
{
	struct tm tm = { 0 };
	unsigned int y, mo, d, h;
	int n = 0;
	time_t t;

	if (sscanf(name, "tract-%4u%2u%2u-%2u%n", &y, &mo, &d, &h, &n) != 4 || n != 17 ||
	    mo < 1 || mo > 12 || d < 1 || d > 31 || h > 23)
		return 0;
	*suffix = name + n;
	tm.tm_year = (int)y - 1900;
	tm.tm_mon = (int)mo - 1;
	tm.tm_mday = (int)d;
	tm.tm_hour = (int)h;
	t = timegm(&tm);
	return t > 0 ? (uint64_t)t * 1000000 : 0;
}

static int by_hour(const void *a, const void *b)
{
	const struct store_file *x = a, *y = b;

	return x->hour_us < y->hour_us ? -1 : x->hour_us > y->hour_us;
}

int storeset__open(const char *dir, struct storeset *set)
{
	struct dirent *e;
	size_t cap = 0;
	DIR *d = opendir(dir);

	memset(set, 0, sizeof(*set));
	if (!d) {
		int err = -errno;

		tract_err("cannot read the store directory '%s': %s", dir, strerror(-err));
		return err;
	}
	set->dir = xstrdup(dir);
	while ((e = readdir(d))) {
		const char *suffix;
		uint64_t hour = store_hour_of_name(e->d_name, &suffix);
		size_t len;

		if (!hour || strcmp(suffix, ".db"))
			continue;
		if (set->n == cap) {
			cap = cap ? cap * 2 : 32;
			set->files = xrealloc(set->files, cap * sizeof(*set->files));
		}
		len = strlen(dir) + strlen(e->d_name) + 2;
		set->files[set->n].path = xcalloc(1, len);
		snprintf(set->files[set->n].path, len, "%s/%s", dir, e->d_name);
		set->files[set->n++].hour_us = hour;
	}
	closedir(d);
	if (set->n > 1)
		qsort(set->files, set->n, sizeof(*set->files), by_hour);
	return 0;
}

void storeset__free(struct storeset *set)
{
	for (size_t i = 0; i < set->n; i++)
		free(set->files[i].path);
	free(set->files);
	free(set->dir);
	memset(set, 0, sizeof(*set));
}

int storeset__overlaps(const struct store_file *f, uint64_t from_us, uint64_t to_us)
{
	return f->hour_us < to_us && f->hour_us + USEC_PER_HOUR > from_us;
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

/*
 * Read-only first.  After a crash of the recorder, the WAL must be
 * recovered before anyone reads it, which a read-only connection cannot do:
 * a reader who may write the file then opens it read-write, which recovers
 * and writes nothing else.  Last, for a reader who may not write (or where no
 * recorder keeps the WAL index), "immutable": SQLite reads the main file as
 * it is, whole since every pass is a transaction, without what the WAL holds.
 */
int store_open_readonly(const char *path, sqlite3 **db)
{
	static const char *const modes[] = { "mode=ro", "mode=rw", "mode=ro&immutable=1" };
	int64_t version = -1;

	*db = NULL;
	for (size_t i = 0; i < ARRAY_SIZE(modes) && version < 0; i++) {
		char *uri = store_file_uri(path, modes[i]);
		int rc = sqlite3_open_v2(uri, db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_URI, NULL);

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
		return -EINVAL;
	}
	if (version != TRACT_SCHEMA_VERSION) {
		if (version == 0)
			tract_err("'%s' is empty or not a tract store", path);
		else
			tract_err("'%s' has schema version %lld; this tract reads version %d", path,
				  (long long)version, TRACT_SCHEMA_VERSION);
		sqlite3_close(*db);
		*db = NULL;
		return -EINVAL;
	}
	return 0;
}

int storeset__newest_us(const struct storeset *set, uint64_t *ts_us)
{
	*ts_us = 0;
	for (size_t i = set->n; i-- > 0 && !*ts_us;) {
		sqlite3_stmt *st;
		sqlite3 *db;
		int err = store_open_readonly(set->files[i].path, &db);

		if (err)
			return err;
		if (sqlite3_prepare_v2(db, "SELECT max(ts_us) FROM passes", -1, &st, NULL) == SQLITE_OK) {
			if (sqlite3_step(st) == SQLITE_ROW)
				*ts_us = (uint64_t)sqlite3_column_int64(st, 0);
			sqlite3_finalize(st);
		}
		sqlite3_close(db);
	}
	return 0;
}
