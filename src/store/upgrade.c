// SPDX-License-Identifier: GPL-2.0-only
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include "columns.h"
#include "schema.h"
#include "upgrade.h"
#include "util.h"

int store_upgradable(int64_t version)
{
	return version >= TRACT_SCHEMA_OLDEST && version < TRACT_SCHEMA_VERSION;
}

static int has_column(sqlite3 *db, const char *table, const char *column)
{
	char sql[128];
	sqlite3_stmt *st;
	int found = 0;

	snprintf(sql, sizeof(sql), "SELECT 1 FROM pragma_table_info('%s') WHERE name = ?1", table);
	if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK)
		return -1;
	sqlite3_bind_text(st, 1, column, -1, SQLITE_STATIC);
	found = sqlite3_step(st) == SQLITE_ROW;
	sqlite3_finalize(st);
	return found;
}

/* The column added to table unless it has it: -1 on an error. */
static int add_column(sqlite3 *db, const char *table, const char *name, const char *type)
{
	char sql[256];
	int has = has_column(db, table, name);

	if (has)
		return has < 0 ? -1 : 0;
	/* SQLite adds no NOT NULL column without a default: old rows have none */
	snprintf(sql, sizeof(sql), "ALTER TABLE %s ADD COLUMN %s %.*s", table, name,
		 (int)(strstr(type, " NOT NULL") ? (size_t)(strstr(type, " NOT NULL") - type) : strlen(type)), type);
	return sqlite3_exec(db, sql, NULL, NULL, NULL) == SQLITE_OK ? 0 : -1;
}

/* Columns of the passes added since TRACT_SCHEMA_OLDEST, as schema.c declares them, in its order. */
static const struct {
	const char *name, *type;
} added_pass_columns[] = {
	{ "bpf_us", "INTEGER" },	/* version 8 */
};

static int add_columns(sqlite3 *db)
{
	for (size_t i = 0; i < NR_SAMPLE_COLUMNS; i++) {
		const struct sample_column *c = &sample_columns[i];
		const char *table = c->where == FACT ? "sample_facts" : c->where == IO ? "sample_io" : NULL;

		if (table && add_column(db, table, column_stored_name(c), c->type))
			return -1;
	}
	for (size_t i = 0; i < ARRAY_SIZE(added_pass_columns); i++)
		if (add_column(db, "passes", added_pass_columns[i].name, added_pass_columns[i].type))
			return -1;
	return 0;
}

int store_upgrade(sqlite3 *db, const char *name)
{
	char sql[64];

	snprintf(sql, sizeof(sql), "PRAGMA user_version = %d", TRACT_SCHEMA_VERSION);
	if (sqlite3_exec(db, "BEGIN IMMEDIATE", NULL, NULL, NULL) != SQLITE_OK)
		goto fail;
	if (add_columns(db) || sqlite3_exec(db, schema_view_sql(), NULL, NULL, NULL) != SQLITE_OK ||
	    sqlite3_exec(db, sql, NULL, NULL, NULL) != SQLITE_OK ||
	    sqlite3_exec(db, "COMMIT", NULL, NULL, NULL) != SQLITE_OK) {
		tract_err("cannot upgrade '%s' to schema version %d: %s", name, TRACT_SCHEMA_VERSION,
			  sqlite3_errmsg(db));
		sqlite3_exec(db, "ROLLBACK", NULL, NULL, NULL);
		return -EIO;
	}
	return 0;
fail:
	tract_err("cannot upgrade '%s': %s", name, sqlite3_errmsg(db));
	return -EIO;
}

/* The file's connection closed, *db NULL, and err. */
static int give_up(sqlite3 **db, int err)
{
	sqlite3_close(*db);
	*db = NULL;
	return err;
}

int store_upgrade_copy(sqlite3 **db)
{
	sqlite3_int64 size;
	unsigned char *bytes = sqlite3_serialize(*db, "main", &size, 0);
	sqlite3 *copy = NULL;
	int err;

	if (!bytes) {
		int nomem = sqlite3_errcode(*db) == SQLITE_NOMEM;

		/* a damaged page, a busy or unreadable file, or no memory */
		tract_err("cannot read '%s' to upgrade it: %s", sqlite3_db_filename(*db, "main"),
			  nomem ? "out of memory" : sqlite3_errmsg(*db));
		return give_up(db, nomem ? -ENOMEM : -EIO);
	}
	/* the copy is no WAL database: the header's read and write versions say so */
	if (size > 19)
		bytes[18] = bytes[19] = 1;
	if (sqlite3_open(":memory:", &copy) != SQLITE_OK) {
		sqlite3_free(bytes);
		sqlite3_close(copy);
		tract_err("out of memory");
		return give_up(db, -ENOMEM);
	}
	if (sqlite3_deserialize(copy, "main", bytes, size, size,
				SQLITE_DESERIALIZE_FREEONCLOSE | SQLITE_DESERIALIZE_RESIZEABLE) != SQLITE_OK) {
		sqlite3_close(copy);
		tract_err("out of memory");
		return give_up(db, -ENOMEM);
	}
	err = store_upgrade(copy, sqlite3_db_filename(*db, "main"));
	if (err) {
		sqlite3_close(copy);
		return give_up(db, err);
	}
	sqlite3_close(*db);
	*db = copy;
	return 0;
}
