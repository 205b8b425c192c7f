// SPDX-License-Identifier: GPL-2.0-only
/*
 * Every column a query can name, held to both stores without a server: its
 * SQL runs in SQLite over a store's tables with the joins it says it needs,
 * and what the fleet's store gives it from is a column of the ClickHouse
 * table its catalog reads (as tract clickhouse-schema makes it), or a
 * stack's frames.  A new catalog or derived column that one store lacks
 * fails here, not at run time against a server.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include <sqlite3.h>
#include "aggregate.h"
#include "catalog.h"
#include "ch_read.h"
#include "ch_schema.h"
#include "derived.h"
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
	char *ddl = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&ddl, &len);

	(void)state;
	assert_int_equal(ch_schema_write(f, &(struct ch_schema_opts){ .database = "tract" }), 0);
	fclose(f);
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
	};

	return cmocka_run_group_tests_name("catalog_dialects", tests, NULL, NULL);
}
