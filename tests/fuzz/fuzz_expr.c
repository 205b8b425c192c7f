// SPDX-License-Identifier: GPL-2.0-only
/* libFuzzer target: the filter language compiler, and the SQL it emits must prepare. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sqlite3.h>
#include "catalog.h"
#include "expr.h"
#include "sqlfuncs.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static sqlite3 *db;
	static struct expr_column *cols;
	char *src = malloc(size + 1);
	struct expr_sql out = { 0 };
	struct expr_error err;

	if (!db) {
		sqlite3_open(":memory:", &db);
		sqlfuncs_register(db);
		sqlite3_exec(db, "CREATE TABLE t(x)", NULL, NULL, NULL);
		cols = catalog__expr_columns(&catalog_samples);
		/* every column stands for the one column of t */
		for (size_t i = 0; i < catalog_samples.ncolumns; i++)
			cols[i].sql = "x";
	}
	memcpy(src, data, size);
	src[size] = '\0';
	if (!expr_compile(src, cols, catalog_samples.ncolumns, &out, &err)) {
		char *sql = sqlite3_mprintf("SELECT count(*) FROM t WHERE %s", out.sql);
		sqlite3_stmt *st;

		/* a compiled filter is valid SQL with exactly its parameters */
		if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK ||
		    (size_t)sqlite3_bind_parameter_count(st) != out.nparams)
			abort();
		if (expr_bind(st, 1, &out) < 0)
			abort();
		sqlite3_step(st);
		sqlite3_finalize(st);
		sqlite3_free(sql);
		expr_sql_free(&out);
	} else if (err.pos > size) {
		abort();
	}
	free(src);
	return 0;
}
