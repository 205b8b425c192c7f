// SPDX-License-Identifier: GPL-2.0-only
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "ch_schema.h"
#include "pass_tables.h"
#include "value_names.h"
#include "strbuf.h"
#include "util.h"
#include "tract/abi.h"

/* The samples view's columns in ClickHouse's types: what each one may hold, NULL included. */
#define V_PASS(f) "UInt64"
#define V_UINT(f) "UInt64"
#define V_NAME(f) "String"
#define V_TEXT(f) "Nullable(String)"
#define V_STATE(f) NULL		/* the states' enum, written out below */
#define V_SYSCALL(f) "Nullable(String)"
#define V_FLAGGED(flag, f) "Nullable(UInt64)"
#define V_SYSCALL_FLAGGED(flag, f) "Nullable(UInt64)"
#define V_STACK(f) "Nullable(Int64)"
#define V_ARG(n) "Nullable(Int64)"
#define V_NONZERO(f) "Nullable(UInt64)"
#define V_WITH(has, f) "Nullable(UInt64)"
#define V_IO_TEXT(f) "Nullable(String)"
#define V_IO_UINT(f) "Nullable(UInt64)"
#define V_IO_NONZERO(f) "Nullable(UInt64)"
#define V_HEX(flag, f) "Nullable(String)"
#define V_BLOCKER(f) "Nullable(UInt64)"

struct ch_column {
	const char *name, *type;
};

static const struct ch_column ch_sample_columns[] = {
#define COLUMN(name, where, type, sql, joins, base, value, doc) { #name, value },
#include "sample_columns.def"
#undef COLUMN
};

static void states_enum(FILE *out)
{
	fputs("Enum8(", out);
	for (int s = 0; s < TRACT_STATE__COUNT; s++)
		fprintf(out, "%s'%s' = %d", s ? ", " : "", state_name(s), s + 1);
	fputs(")", out);
}

/* The table queries read: Distributed over the cluster, or a view of the one server's. */
static void reader_table(FILE *out, const struct ch_schema_opts *o, const char *name, const char *key)
{
	if (o->cluster)
		fprintf(out, "CREATE TABLE IF NOT EXISTS %s.%s AS %s.%s_local ENGINE = Distributed(%s, %s, %s_local, %s);\n",
			o->database, name, o->database, name, o->cluster, o->database, name, key);
	else
		fprintf(out, "CREATE VIEW IF NOT EXISTS %s.%s AS SELECT * FROM %s.%s_local;\n", o->database, name,
			o->database, name);
}

int ch_schema_write(FILE *out, const struct ch_schema_opts *o)
{
	/* no ON CLUSTER, which needs ZooKeeper: the same statements run on every server */
	fprintf(out, "CREATE DATABASE IF NOT EXISTS %s;\n", o->database);
	/* a batch's rows carry its id, so a batch whose fate is unknown can be counted before it is sent again */
	fprintf(out, "CREATE TABLE IF NOT EXISTS %s.samples_local (host String, batch_id UInt64", o->database);
	for (size_t i = 0; i < sizeof(ch_sample_columns) / sizeof(ch_sample_columns[0]); i++) {
		fprintf(out, ", %s ", ch_sample_columns[i].name);
		if (ch_sample_columns[i].type)
			fputs(ch_sample_columns[i].type, out);
		else
			states_enum(out);
	}
	/* days for retention (DROP PARTITION), and host + time first for a host's window */
	fputs(") ENGINE = MergeTree PARTITION BY toYYYYMMDD(toDateTime(intDiv(ts_us, 1000000))) ORDER BY (host, ts_us);\n",
	      out);
	reader_table(out, o, "samples", "cityHash64(host)");
	fprintf(out, "CREATE TABLE IF NOT EXISTS %s.stacks_local (host String, id Int64, kind Enum8('kernel' = 1, "
		"'user' = 2), frames String, seen_us UInt64) ENGINE = ReplacingMergeTree(seen_us) ORDER BY (host, id);\n",
		o->database);
	reader_table(out, o, "stacks", "cityHash64(host)");
	/* the pass's own tables (pass_tables.def): rows of the pass's time, by what they count */
	for (size_t i = 0; i < NR_PASS_TABLES; i++) {
		struct strbuf cols = { 0 };

		pass_table_ch_columns(&cols, &pass_tables[i], 1);
		fprintf(out, "CREATE TABLE IF NOT EXISTS %s.%s_local (host String, batch_id UInt64, %s) "
			"ENGINE = MergeTree PARTITION BY toYYYYMMDD(toDateTime(intDiv(ts_us, 1000000))) "
			"ORDER BY (host, ts_us);\n", o->database, pass_tables[i].name, strbuf_str(&cols));
		strbuf_free(&cols);
		reader_table(out, o, pass_tables[i].name, "cityHash64(host)");
	}
	return ferror(out) ? -1 : 0;
}

/* A SELECT's one value into *out (malloc'd); on an error the server's answer goes to *answer instead. */
static enum ch_outcome select_one(struct ch_http *h, const char *sql, char **out, char **answer)
{
	size_t len;
	enum ch_outcome o = ch_http__select(h, sql, NULL, out, &len);

	if (o != CH_OK) {
		free(*answer);
		*answer = *out;
		*out = NULL;
	}
	return o;
}

/* "|name|name|...|": the columns a table has now ("||" when it is not there). */
static enum ch_outcome columns_of(struct ch_http *h, const char *database, const char *table, char **out,
				  char **answer)
{
	char sql[512];

	snprintf(sql, sizeof(sql), "SELECT concat('|', arrayStringConcat(groupArray(name), '|'), '|') "
		 "FROM system.columns WHERE database = '%s' AND table = '%s'", database, table);
	return select_one(h, sql, out, answer);
}

static int has_column(const char *columns, const char *name)
{
	char key[80];

	snprintf(key, sizeof(key), "|%s|", name);
	return strstr(columns, key) != NULL;
}

/* A table's columns, the ones older tracts' tables may lack among them. */
struct ch_columns {
	const char *table;		/* the reader's table; its servers' is table_local */
	const struct ch_column *cols;
	size_t nr;
};

/*
 * The columns of c that table lacks, added (18.16 has no ADD COLUMN IF
 * NOT EXISTS, so the server's columns are asked first).  A recorder
 * starting beside this one may add one first: an ALTER that fails is fine
 * when the column is there after it.  New columns come last in the column
 * table, so they are added last too, as inserts list them.
 */
static enum ch_outcome add_columns(struct ch_http *h, const char *database, const char *table,
				   const struct ch_columns *c, char **answer)
{
	char *have = NULL, sql[512];
	enum ch_outcome out = columns_of(h, database, table, &have, answer);

	for (size_t i = 0; out == CH_OK && i < c->nr; i++) {
		if (!c->cols[i].type || has_column(have, c->cols[i].name))
			continue;
		snprintf(sql, sizeof(sql), "ALTER TABLE %s.%s ADD COLUMN %s %s", database, table, c->cols[i].name,
			 c->cols[i].type);
		free(*answer);
		*answer = NULL;
		if (ch_http__post(h, sql, NULL, 0, answer) == CH_OK)
			continue;
		free(have);
		have = NULL;
		out = columns_of(h, database, table, &have, answer);
		if (out == CH_OK && !has_column(have, c->cols[i].name))
			out = CH_ERROR;
	}
	free(have);
	return out;
}

/*
 * Tables an older tract made lack the columns added since: they get them,
 * and a view over them is made again if it lacks them (a view keeps the
 * columns it had when it was made).  A cluster's Distributed table gets
 * them too; its shards' local tables are each recorder's to upgrade.
 */
static enum ch_outcome add_missing_columns(struct ch_http *h, const char *database, const struct ch_columns *c,
					   char **answer)
{
	char sql[512], local_name[64], *engine = NULL, *local = NULL, *view = NULL;
	enum ch_outcome out;

	snprintf(local_name, sizeof(local_name), "%s_local", c->table);
	out = add_columns(h, database, local_name, c, answer);
	snprintf(sql, sizeof(sql), "SELECT any(engine) FROM system.tables WHERE database = '%s' AND name = '%s'",
		 database, c->table);
	if (out == CH_OK)
		out = select_one(h, sql, &engine, answer);
	if (out == CH_OK && !strncmp(engine, "Distributed", 11))
		out = add_columns(h, database, c->table, c, answer);
	else if (out == CH_OK && !strncmp(engine, "View", 4) &&
		 (out = columns_of(h, database, local_name, &local, answer)) == CH_OK &&
		 (out = columns_of(h, database, c->table, &view, answer)) == CH_OK && strcmp(local, view)) {
		/* another recorder may be doing the same: IF EXISTS, IF NOT EXISTS */
		snprintf(sql, sizeof(sql), "DROP TABLE IF EXISTS %s.%s", database, c->table);
		free(*answer);
		*answer = NULL;
		out = ch_http__post(h, sql, NULL, 0, answer);
		if (out == CH_OK) {
			snprintf(sql, sizeof(sql), "CREATE VIEW IF NOT EXISTS %s.%s AS SELECT * FROM %s.%s", database,
				 c->table, database, local_name);
			free(*answer);
			*answer = NULL;
			out = ch_http__post(h, sql, NULL, 0, answer);
		}
	}
	free(engine);
	free(local);
	free(view);
	return out;
}

enum ch_outcome ch_schema_create(struct ch_http *h, const char *database, char **answer)
{
	static const struct ch_columns samples = {
		"samples", ch_sample_columns, sizeof(ch_sample_columns) / sizeof(ch_sample_columns[0])
	};
	char *ddl = NULL, *line, *save = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&ddl, &len);
	enum ch_outcome out = CH_OK;

	*answer = NULL;
	if (!f) {
		*answer = strdup("out of memory");
		return CH_ERROR;
	}
	ch_schema_write(f, &(struct ch_schema_opts){ .database = database });
	fclose(f);
	for (line = strtok_r(ddl, "\n", &save); line && out == CH_OK; line = strtok_r(NULL, "\n", &save)) {
		free(*answer);
		out = ch_http__post(h, line, NULL, 0, answer);
	}
	free(ddl);
	if (out == CH_OK)
		out = add_missing_columns(h, database, &samples, answer);
	/* every table of the pass may have columns added since: those it lacks come last, as inserts name them */
	for (size_t i = 0; out == CH_OK && i < NR_PASS_TABLES; i++) {
		const struct pass_table *t = &pass_tables[i];
		struct ch_column cols[64];
		struct ch_columns c = { t->name, cols, 0 };

		for (; c.nr < t->ncolumns && c.nr < ARRAY_SIZE(cols); c.nr++)
			cols[c.nr] = (struct ch_column){ t->columns[c.nr].name, t->columns[c.nr].ch_type };
		out = add_missing_columns(h, database, &c, answer);
	}
	return out;
}
