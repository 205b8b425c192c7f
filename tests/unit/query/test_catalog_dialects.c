// SPDX-License-Identifier: GPL-2.0-only
/*
 * Every column a query can name, held to both stores without a server: its
 * SQL runs in SQLite over a store's tables with the joins it says it needs;
 * what the fleet's store gives it from is a column of the ClickHouse table
 * its catalog reads (as tract clickhouse-schema makes it), or a stack's
 * frames; the query a group by it sends the fleet names only columns of
 * the tables it reads, and the SQL that makes its values from the server's
 * groups runs in SQLite.  A new catalog or derived column that one store
 * lacks fails here, not at run time against a server.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <ctype.h>
#include <string.h>
#include <cmocka.h>
#include <sqlite3.h>
#include "aggregate.h"
#include "catalog.h"
#include "ch_read.h"
#include "ch_schema.h"
#include "derived.h"
#include "pass_tables.h"
#include "schema.h"
#include "sqlfuncs.h"
#include "strbuf.h"

static const struct {
	const struct catalog *cat;
	const char *table;		/* the fleet's table it reads */
} catalogs[] = {
	{ &catalog_samples, "samples" }, { &catalog_io, "io_latency" }, { &catalog_syscall, "syscall_latency" },
	{ &catalog_runq, "runq_latency" }, { &catalog_profile, "profile" }, { &catalog_wakeups, "wakeups" },
};

static void every_column_runs_in_sqlite(void **state)
{
	sqlite3 *db;

	(void)state;
	assert_int_equal(sqlite3_open(":memory:", &db), SQLITE_OK);
	assert_int_equal(sqlfuncs_register(db), 0);
	assert_int_equal(sqlite3_exec(db, schema_sql(), NULL, NULL, NULL), SQLITE_OK);
	for (size_t k = 0; k < sizeof(catalogs) / sizeof(catalogs[0]); k++) {
		const struct catalog *cat = catalogs[k].cat;

		for (size_t i = 0; i < cat->ncolumns; i++) {
			struct strbuf sql = { 0 };
			sqlite3_stmt *st = NULL;
			int rc;

			/* what its joins need made first */
			catalog__prepare_sql(cat, cat->columns[i].joins, &sql);
			if (sql.len && sqlite3_exec(db, strbuf_str(&sql), NULL, NULL, NULL) != SQLITE_OK)
				fail_msg("%s.%s: %s\n%s", cat->name, cat->columns[i].name, sqlite3_errmsg(db), strbuf_str(&sql));
			strbuf_free(&sql);
			strbuf_addf(&sql, "SELECT %s FROM %s", cat->columns[i].sql, cat->from);
			catalog__joins_sql(cat, cat->columns[i].joins, &sql);
			rc = sqlite3_prepare_v2(db, strbuf_str(&sql), -1, &st, NULL);
			if (rc != SQLITE_OK)
				fail_msg("%s.%s: %s\n%s", cat->name, cat->columns[i].name, sqlite3_errmsg(db), strbuf_str(&sql));
			sqlite3_finalize(st);
			strbuf_free(&sql);
		}
	}
	sqlite3_close(db);
}

/* The fleet's DDL, as tract clickhouse-schema writes it. */
static char *fleet_ddl(void)
{
	char *ddl = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&ddl, &len);

	assert_int_equal(ch_schema_write(f, &(struct ch_schema_opts){ .database = "tract" }), 0);
	fclose(f);
	return ddl;
}

/* "|name|name|...|": the columns of table's _local in the fleet's DDL. */
static char *ch_columns_of(const char *ddl, const char *table)
{
	char head[128], *start, *end, *cols, *p;
	struct strbuf b = { 0 };

	snprintf(head, sizeof(head), "tract.%s_local (", table);
	start = strstr(ddl, head);
	assert_non_null(start);
	start += strlen(head);
	end = strstr(start, ") ENGINE");
	assert_non_null(end);
	cols = strndup(start, (size_t)(end - start));
	strbuf_add(&b, "|");
	for (p = strtok(cols, ","); p; p = strtok(NULL, ",")) {
		while (*p == ' ')
			p++;
		strbuf_addn(&b, p, strcspn(p, " "));
		strbuf_add(&b, "|");
	}
	free(cols);
	return strbuf_take(&b);
}

static void every_column_comes_from_the_fleets_table(void **state)
{
	char *ddl = fleet_ddl();

	(void)state;
	for (size_t k = 0; k < sizeof(catalogs) / sizeof(catalogs[0]); k++) {
		const struct catalog *cat = catalogs[k].cat;
		char *have = ch_columns_of(ddl, catalogs[k].table), *wait_ends = ch_columns_of(ddl, "wait_ends");

		for (size_t i = 0; i < cat->ncolumns; i++) {
			char names[16][512];
			int n = ch_aggregate__inputs(&cat->columns[i], names, 16);

			if (n <= 0)
				fail_msg("%s.%s: the fleet's store cannot give it (%d)", cat->name, cat->columns[i].name, n);
			for (int j = 0; j < n; j++) {
				char key[544];

				const char *we = strstr(names[j], "we_");

				/* a time bucket's input is made of ts_us; a stack's frames are joined by its id */
				if (cat->columns[i].bucket_us || strstr(names[j], "frames"))
					continue;
				/* an ended wait's columns (we_NAME) are tract.wait_ends' */
				for (; we; we = strstr(we + 1, "we_")) {
					snprintf(key, sizeof(key), "|%.*s|", (int)strspn(we + 3, "abcdefghijklmnopqrstuvwxyz_"),
						 we + 3);
					if (!strstr(wait_ends, key))
						fail_msg("%s.%s: %s is no column of tract.wait_ends", cat->name,
							 cat->columns[i].name, we);
				}
				if (strstr(names[j], "we_"))
					continue;
				snprintf(key, sizeof(key), "|%.511s|", names[j]);
				if (!strstr(have, key))
					fail_msg("%s.%s: its input %s is no column of tract.%s", cat->name,
						 cat->columns[i].name, names[j], catalogs[k].table);
			}
		}
		free(have);
		free(wait_ends);
	}
	free(ddl);
}

static int is_name_char(char c)
{
	return isalnum((unsigned char)c) || c == '_';
}

/* Whether word is in "|a|b|...|". */
static int listed(const char *list, const char *word, size_t n)
{
	char key[160];

	snprintf(key, sizeof(key), "|%.*s|", (int)n, word);
	return strstr(list, key) != NULL;
}

/*
 * Every name sql gives the server is a column of a table it reads
 * (tract.NAME), a name it makes itself (AS name, a lambda's parameters), a
 * function's (name followed by "("), or a keyword.
 */
static void names_only_columns_of_its_tables(const char *ddl, const char *sql, const char *what)
{
	static const char keywords[] = "|SELECT|FROM|WHERE|AND|OR|NOT|AS|GROUP|BY|ANY|LEFT|JOIN|USING|IS|NULL|"
				       "TRUE|FALSE|IN|LIKE|CASE|WHEN|THEN|ELSE|END|";
	struct strbuf have = { 0 }, made = { 0 };
	const char *s;

	strbuf_add(&have, "|");
	strbuf_add(&made, "|");
	/* the tables it reads, and what it names itself */
	for (s = strstr(sql, "tract."); s; s = strstr(s + 1, "tract.")) {
		size_t n = strspn(s + 6, "abcdefghijklmnopqrstuvwxyz_");
		char table[64], *cols;

		snprintf(table, sizeof(table), "%.*s", (int)n, s + 6);
		cols = ch_columns_of(ddl, table);
		strbuf_add(&have, cols + 1);
		free(cols);
	}
	for (s = strstr(sql, " AS "); s; s = strstr(s + 1, " AS ")) {
		strbuf_addn(&made, s + 4, strspn(s + 4, "abcdefghijklmnopqrstuvwxyz_0123456789"));
		strbuf_add(&made, "|");
	}
	for (s = strstr(sql, " -> "); s; s = strstr(s + 1, " -> ")) {
		const char *w = s;

		/* a lambda's parameters: (a, b) -> ... or a -> ... */
		if (s[-1] == ')')
			while (w > sql && *w != '(')
				w--;
		else
			while (w > sql && is_name_char(w[-1]))
				w--;
		while (w < s) {
			size_t n = 0;

			while (is_name_char(w[n]))
				n++;
			strbuf_addn(&made, w, n);
			strbuf_add(&made, n ? "|" : "");
			w += n ? n : 1;
		}
	}
	for (s = sql; *s;) {
		size_t n = 0;

		if (*s == '\'') {
			for (s++; *s && *s != '\''; s++)
				;
			s += !!*s;
			continue;
		}
		if (isdigit((unsigned char)*s)) {
			while (is_name_char(*s) || *s == '.')
				s++;
			continue;
		}
		if (!is_name_char(*s)) {
			s++;
			continue;
		}
		while (is_name_char(s[n]))
			n++;
		/* a function, the database, a table of it */
		if (!(s[n] == '(' || s[n] == '.' || (s >= sql + 6 && !strncmp(s - 6, "tract.", 6)) ||
		      listed(keywords, s, n) || listed(strbuf_str(&have), s, n) || listed(strbuf_str(&made), s, n)))
			fail_msg("%s: the fleet's query names %.*s, no column of the tables it reads\n%s", what, (int)n, s,
				 sql);
		s += n;
	}
	strbuf_free(&have);
	strbuf_free(&made);
}

/*
 * A group by each column of each catalog, and a filter on it: the query the
 * fleet is sent names only columns its CREATE TABLEs have, and the
 * statement that makes the columns' values from its groups runs in SQLite.
 */
static void every_columns_fleet_query_is_made_of_the_fleets_columns(void **state)
{
	char *ddl = fleet_ddl();
	sqlite3 *db;

	(void)state;
	assert_int_equal(sqlite3_open(":memory:", &db), SQLITE_OK);
	assert_int_equal(sqlfuncs_register(db), 0);
	for (size_t k = 0; k < sizeof(catalogs) / sizeof(catalogs[0]); k++) {
		const struct catalog *cat = catalogs[k].cat;

		assert_string_equal(cat->table, catalogs[k].table);
		for (size_t i = 0; i < cat->ncolumns; i++) {
			char filter[96], what[128];

			snprintf(filter, sizeof(filter), "%s is not null", cat->columns[i].name);
			for (int filtered = 0; filtered < 2; filtered++) {
				struct agg_query q = { .cat = cat, .group = cat->columns[i].name,
						       .filter = filtered ? filter : NULL, .from_us = 1000000, .to_us = 2000000 };
				char *server, *local;
				sqlite3_stmt *st = NULL;

				snprintf(what, sizeof(what), "%s -g %s%s%s", cat->name, cat->columns[i].name,
					 filtered ? " -w " : "", filtered ? filter : "");
				if (ch_aggregate__sql(&q, &server, &local))
					fail_msg("%s: no query for the fleet", what);
				names_only_columns_of_its_tables(ddl, server, what);
				if (sqlite3_prepare_v2(db, local, -1, &st, NULL) != SQLITE_OK)
					fail_msg("%s: %s\n%s", what, sqlite3_errmsg(db), local);
				sqlite3_finalize(st);
				free(server);
				free(local);
			}
		}
	}
	sqlite3_close(db);
	free(ddl);
}

/* The two statements of a fleet query of q, held to what they should be. */
static void fleet_query_is(const struct agg_query *q, const char *server, const char *local)
{
	char *s, *l;

	assert_int_equal(ch_aggregate__sql(q, &s, &l), 0);
	assert_string_equal(s, server);
	assert_string_equal(l, local);
	free(s);
	free(l);
}

#define RANGE "WHERE ts_us >= 1000000 AND ts_us < 2000000"

/* A pass table's columns in both dialects: the table's column by its name, the value over it on each side. */
static void a_pass_catalogs_column_in_both_dialects(void **state)
{
	const struct catalog_column *folded = catalog__find(&catalog_syscall, "pcomm_folded");
	const struct catalog_column *profile_folded = catalog__find(&catalog_profile, "pcomm_folded");
	struct strbuf joins = { 0 };
	struct derived_input in;

	(void)state;
	/* SQLite: over the table's view as h, or the profile's threads */
	assert_string_equal(folded->sql, "fold_digits(h.pcomm)");
	assert_int_equal(folded->joins, 0);
	assert_string_equal(profile_folded->sql, "fold_digits(t.pcomm)");
	catalog__joins_sql(&catalog_profile, profile_folded->joins, &joins);
	assert_string_equal(strbuf_str(&joins), " JOIN threads t ON t.id = h.thread");
	strbuf_free(&joins);
	assert_string_equal(catalog__find(&catalog_io, "minute")->sql,
			    "strftime('%Y-%m-%d %H:%M', p.ts_us / 1000000, 'unixepoch', 'localtime')");
	assert_int_equal(catalog__input(&catalog_runq, catalog_runq.measure, &in), 0);
	assert_string_equal(in.sql, "h.count");
	assert_int_equal(catalog__input(&catalog_runq, catalog_runq.sum, &in), 0);
	assert_string_equal(in.sql, "h.sum_us");
	/* io has no pcomm to fold; the columns every catalog has come after its own */
	assert_null(catalog__find(&catalog_io, "pcomm_folded"));
	assert_string_equal(catalog_wakeups.columns[catalog_wakeups.ncolumns - 1].name, "minute");

	/* ClickHouse: grouped by the table's column, the value made here */
	fleet_query_is(&(struct agg_query){ .cat = &catalog_syscall, .group = "pcomm_folded", .from_us = 1000000,
					    .to_us = 2000000 },
		       "SELECT pcomm AS i1, sum(count), count(), sum(sum_us) FROM tract.syscall_latency " RANGE
		       " GROUP BY i1",
		       "SELECT fold_digits(f.i1), (1) IS TRUE, 0 FROM (SELECT 0 AS zero, ?1 AS i1) f");
	fleet_query_is(&(struct agg_query){ .cat = &catalog_wakeups, .group = "waker,wakee_tgid",
					    .filter = "wakee = 'db'", .from_us = 1000000, .to_us = 2000000 },
		       "SELECT waker AS i1, wakee_tgid AS i2, sum(count), count(), sum(runq_us) FROM tract.wakeups " RANGE
		       " AND (ifNull(wakee = 'db', 0)) GROUP BY i1, i2",
		       "SELECT coalesce(f.i1, 'exited'), f.i2, (1) IS TRUE, 0 FROM (SELECT 0 AS zero, ?1 AS i1, ?2 AS i2) f");
	/* a stack's frames, joined by its id */
	fleet_query_is(&(struct agg_query){ .cat = &catalog_profile, .group = "ustack", .from_us = 1000000,
					    .to_us = 2000000 },
		       "SELECT nullIf(uframes, '') AS i1, sum(ticks), count(), 0 FROM (SELECT * FROM tract.profile " RANGE
		       ") ANY LEFT JOIN (SELECT host, id AS ustack_id, any(frames) AS uframes FROM tract.stacks "
		       "WHERE kind = 'user' GROUP BY host, id) USING (host, ustack_id) GROUP BY i1",
		       "SELECT f.i1, (1) IS TRUE, 0 FROM (SELECT 0 AS zero, ?1 AS i1) f");
	/* a filter on a derived column is evaluated here, its input grouped too */
	fleet_query_is(&(struct agg_query){ .cat = &catalog_runq, .group = "tgid", .filter = "pcomm_folded = 'w*'",
					    .from_us = 1000000, .to_us = 2000000 },
		       "SELECT tgid AS i1, pcomm AS i2, sum(count), count(), sum(sum_us) FROM tract.runq_latency " RANGE
		       " GROUP BY i1, i2",
		       "SELECT f.i1, (((fold_digits(f.i2)) = ?3)) IS TRUE, 0 FROM (SELECT 0 AS zero, ?1 AS i1, ?2 AS i2) f");
}

/* What the wake graph weighs its edges by is the table's P_WEIGHT column, by name in both dialects. */
static void the_wake_graphs_weight_is_the_tables(void **state)
{
	struct catalog weighed = catalog_wakeups;
	struct derived_input in;

	(void)state;
	weighed.sum = pass_table_weight(&pass_tables[PT_wakeups])->name;
	assert_int_equal(catalog__input(&weighed, weighed.sum, &in), 0);
	assert_string_equal(in.sql, "h.blocked_us");
	fleet_query_is(&(struct agg_query){ .cat = &weighed, .group = "wakee", .from_us = 1000000, .to_us = 2000000 },
		       "SELECT wakee AS i1, sum(count), count(), sum(blocked_us) FROM tract.wakeups " RANGE " GROUP BY i1",
		       "SELECT f.i1, (1) IS TRUE, 0 FROM (SELECT 0 AS zero, ?1 AS i1) f");
}

/* A column made at run time of a value and inputs (a heatmap's latency bucket) reads the same way. */
static void a_column_made_at_run_time_in_both_dialects(void **state)
{
	struct catalog_column bucket = { .name = "latency", .value = "log2_bucket($1)", .inputs = { "le_us" } };
	struct catalog_column age = { .name = "age", .value = "log2_bucket(max(coalesce($1, $2), 1)) + 1",
				      .inputs = { "io_us", "sc_us" } };
	char sql[1024];

	(void)state;
	assert_int_equal(catalog__make_column(&catalog_io, &bucket, sql, sizeof(sql)), 0);
	assert_string_equal(bucket.sql, "log2_bucket(h.le_us)");
	fleet_query_is(&(struct agg_query){ .cat = &catalog_io, .cols = { &bucket }, .ncols = 1, .from_us = 1000000,
					    .to_us = 2000000 },
		       "SELECT le_us AS i1, sum(count), count(), sum(sum_us) FROM tract.io_latency " RANGE " GROUP BY i1",
		       "SELECT log2_bucket(f.i1), (1) IS TRUE, 0 FROM (SELECT 0 AS zero, ?1 AS i1) f");
	assert_int_equal(catalog__make_column(&catalog_samples, &age, sql, sizeof(sql)), 0);
	assert_true(strncmp(age.sql, "log2_bucket(max(coalesce(io.us, (CASE WHEN f.sc_us < 0", 48) == 0);
	assert_null(age.base);
	fleet_query_is(&(struct agg_query){ .cat = &catalog_samples, .cols = { &age }, .ncols = 1, .from_us = 1000000,
					    .to_us = 2000000 },
		       "SELECT io_us AS i1, sc_us AS i2, sum(weight_us), count(), 0 FROM tract.samples " RANGE
		       " GROUP BY i1, i2",
		       "SELECT log2_bucket(max(coalesce(f.i1, f.i2), 1)) + 1, (1) IS TRUE, 0 FROM (SELECT 0 AS zero, ?1 AS i1, "
		       "?2 AS i2) f");
	/* an input the catalog has not */
	bucket.inputs[0] = "no_such_column";
	assert_int_equal(catalog__make_column(&catalog_io, &bucket, sql, sizeof(sql)), -1);
}

static void a_derived_column_is_its_value_over_its_inputs(void **state)
{
	char *sql;
	uint32_t joins;
	const char *base;

	(void)state;
	assert_int_equal(derived_local(&derived_columns[DERIVED_comm_folded], &sql, &joins, &base), 0);
	assert_string_equal(sql, "fold_digits(t.comm)");
	assert_string_equal(base, "f.thread");
	free(sql);
	/* a local form over the facts' own ids: no base to group by, no join */
	assert_int_equal(derived_local(&derived_columns[DERIVED_activity], &sql, &joins, &base), 0);
	assert_null(base);
	assert_int_equal(joins, 0);
	assert_non_null(strstr(sql, "fact_activity(f.state, f.call, "));
	free(sql);
	assert_int_equal(derived_local(&derived_columns[DERIVED_wait], &sql, &joins, &base), 0);
	assert_string_equal(sql, "top_frame(ks.frames)");
	assert_string_equal(base, "f.kstack");
	free(sql);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(every_column_runs_in_sqlite),
		cmocka_unit_test(every_column_comes_from_the_fleets_table),
		cmocka_unit_test(a_derived_column_is_its_value_over_its_inputs),
		cmocka_unit_test(every_columns_fleet_query_is_made_of_the_fleets_columns),
		cmocka_unit_test(a_pass_catalogs_column_in_both_dialects),
		cmocka_unit_test(the_wake_graphs_weight_is_the_tables),
		cmocka_unit_test(a_column_made_at_run_time_in_both_dialects),
	};

	return cmocka_run_group_tests_name("catalog_dialects", tests, NULL, NULL);
}
