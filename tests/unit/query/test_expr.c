// SPDX-License-Identifier: GPL-2.0-only
/*
 * The filter compiler stands between user text and SQL: check what it emits,
 * what its filters select in a real SQLite, and that hostile text stays data.
 */
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include <sqlite3.h>
#include "expr.h"
#include "sqlfuncs.h"
#include "util.h"

static const struct expr_column cols[] = {
	{ .name = "comm", .sql = "comm" },
	{ .name = "state", .sql = "state" },
	{ .name = "syscall", .sql = "syscall" },
	{ .name = "sc_us", .sql = "sc_us" },
	{ .name = "file", .sql = "file" },
	{ .name = "group", .sql = "fold_digits(comm)" },
};

/* Params as "T:text I:12 R:0.5", one string to compare. */
static const char *params_str(const struct expr_sql *e)
{
	static char out[1024];
	size_t n = 0;

	out[0] = '\0';
	for (size_t i = 0; i < e->nparams; i++) {
		const struct expr_param *p = &e->params[i];
		const char *sep = i ? " " : "";

		if (p->kind == EXPR_PARAM_TEXT)
			n += snprintf(out + n, sizeof(out) - n, "%sT:%s", sep, p->text);
		else if (p->kind == EXPR_PARAM_INT)
			n += snprintf(out + n, sizeof(out) - n, "%sI:%lld", sep, p->i);
		else
			n += snprintf(out + n, sizeof(out) - n, "%sR:%g", sep, p->r);
	}
	return out;
}

static void check_sql(const char *src, const char *sql, const char *params)
{
	struct expr_sql e;
	struct expr_error err = { 0 };

	if (expr_compile(src, cols, ARRAY_SIZE(cols), &e, &err)) {
		print_error("filter %s: %s\n", src, err.msg);
		fail();
	}
	assert_string_equal(e.sql, sql);
	assert_string_equal(params_str(&e), params);
	expr_sql_free(&e);
}

/* A choice is itself where it also names a column: it cannot mean the column there. */
static void a_choice_that_names_a_column_is_the_choice(void **state)
{
	static const char *const activities[] = { "cpu", "runq", "disk", NULL };
	static const struct expr_column acols[] = {
		{ .name = "activity", .sql = "activity", .type = EXPR_CHOICE, .choices = activities },
		{ .name = "cpu", .sql = "cpu", .type = EXPR_INT },
		{ .name = "comm", .sql = "comm" },
	};
	struct expr_error err = { 0 };
	struct expr_sql e;

	(void)state;
	assert_int_equal(expr_compile("activity in (cpu, RUNQ, 'disk') and cpu = 1", acols, ARRAY_SIZE(acols), &e, &err), 0);
	assert_string_equal(e.sql, "((activity IN (?, ?, ?)) AND (cpu = ?))");
	assert_string_equal(params_str(&e), "T:cpu T:runq T:disk I:1");
	expr_sql_free(&e);
	/* where it is no choice, still refused: comparing two columns is not what the filter does */
	assert_int_not_equal(expr_compile("activity = comm", acols, ARRAY_SIZE(acols), &e, &err), 0);
	assert_string_equal(err.msg, "position 11: 'comm' is a column name; quote it to use it as text");
}

static void comparisons_compile_to_placeholders(void **state)
{
	(void)state;
	check_sql("state=DISK", "(state = ?)", "T:DISK");
	check_sql("syscall != futex", "(syscall IS NOT ?)", "T:futex");
	check_sql("sc_us < 5", "(sc_us < ?)", "I:5");
	check_sql("sc_us <= -5", "(sc_us <= ?)", "I:-5");
	check_sql("sc_us > 0.5", "(sc_us > ?)", "R:0.5");
	check_sql("sc_us >= -.25", "(sc_us >= ?)", "R:-0.25");
	check_sql("comm ~ \"^kworker\"", "(comm REGEXP ?)", "T:^kworker");
	check_sql("comm !~ worker", "((comm REGEXP ?) IS NOT TRUE)", "T:worker");
	check_sql("syscall in (read, pread64)", "(syscall IN (?, ?))", "T:read T:pread64");
	check_sql("syscall not in (read)", "((syscall IN (?)) IS NOT TRUE)", "T:read");
	check_sql("syscall is null", "(syscall IS NULL)", "");
	check_sql("syscall IS NOT NULL", "(syscall IS NOT NULL)", "");
	check_sql("comm=kworker/1:2", "(comm = ?)", "T:kworker/1:2");
	check_sql("comm = \"123\"", "(comm = ?)", "T:123");
	check_sql("comm = 123", "(comm = ?)", "I:123");
	check_sql("file = 1.2.3", "(file = ?)", "T:1.2.3");
	check_sql("file = -", "(file = ?)", "T:-");
	check_sql("COMM = x", "(comm = ?)", "T:x");
	/* a column that is an expression keeps its own parentheses */
	check_sql("group = \"kworker/*:*\"", "((fold_digits(comm)) = ?)", "T:kworker/*:*");
	check_sql("sc_us between 10 and 20", "(sc_us BETWEEN ? AND ?)", "I:10 I:20");
	check_sql("sc_us NOT BETWEEN -1 and 2.5", "((sc_us BETWEEN ? AND ?) IS NOT TRUE)", "I:-1 R:2.5");
	check_sql("comm between a and m", "(comm BETWEEN ? AND ?)", "T:a T:m");
	check_sql("group between 'a' and \"b\"", "((fold_digits(comm)) BETWEEN ? AND ?)", "T:a T:b");
	/* its 'and' is its own: the chain of 'and' goes on after the upper bound */
	check_sql("sc_us between 1 and 2 and state = RUN or comm = x",
		  "(((sc_us BETWEEN ? AND ?) AND (state = ?)) OR (comm = ?))", "I:1 I:2 T:RUN T:x");
}

static void check_clickhouse(const char *src, const char *sql, const char *params)
{
	struct expr_sql e;
	struct expr_error err = { 0 };

	if (expr_compile_in(&expr_clickhouse, src, cols, ARRAY_SIZE(cols), &e, &err)) {
		print_error("filter %s: %s\n", src, err.msg);
		fail();
	}
	assert_string_equal(e.sql, sql);
	assert_string_equal(params_str(&e), params);
	expr_sql_free(&e);
}

/* ClickHouse's comparisons with NULL are NULL: each one is made 0 or 1, so 'not' is the complement there too */
static void clickhouse_dialect_is_never_null(void **state)
{
	(void)state;
	check_clickhouse("state=DISK", "ifNull(state = ?, 0)", "T:DISK");
	check_clickhouse("syscall != futex", "(NOT ifNull(syscall = ?, 0))", "T:futex");
	check_clickhouse("sc_us >= 5", "ifNull(sc_us >= ?, 0)", "I:5");
	check_clickhouse("comm ~ \"^kworker\"", "ifNull(match(toString(comm), ?), 0)", "T:^kworker");
	check_clickhouse("comm !~ worker", "(NOT ifNull(match(toString(comm), ?), 0))", "T:worker");
	check_clickhouse("syscall in (read, pread64)", "ifNull(syscall IN (?, ?), 0)", "T:read T:pread64");
	check_clickhouse("syscall not in (read)", "(NOT ifNull(syscall IN (?), 0))", "T:read");
	check_clickhouse("syscall is null", "isNull(syscall)", "");
	check_clickhouse("syscall is not null", "isNotNull(syscall)", "");
	/* between: both bounds, the column read twice (a NULL column fails both) */
	check_clickhouse("sc_us between 5 and 10", "ifNull((sc_us >= ?) AND (sc_us <= ?), 0)", "I:5 I:10");
	check_clickhouse("sc_us not between 5 and 10", "(NOT ifNull((sc_us >= ?) AND (sc_us <= ?), 0))", "I:5 I:10");
	check_clickhouse("not (state=a or group=b)", "(NOT (ifNull(state = ?, 0) OR ifNull((fold_digits(comm)) = ?, 0)))",
			 "T:a T:b");
}

static void strings_and_escapes(void **state)
{
	(void)state;
	check_sql("comm = 'a\\'b'", "(comm = ?)", "T:a'b");
	check_sql("comm = \"a\\\"b\"", "(comm = ?)", "T:a\"b");
	check_sql("comm = \"a\\\\b\"", "(comm = ?)", "T:a\\b");
	check_sql("comm = 'say \"hi\"'", "(comm = ?)", "T:say \"hi\"");
	/* other backslashes are kept, so a regex reads as written */
	check_sql("comm ~ \"\\.so$\"", "(comm REGEXP ?)", "T:\\.so$");
	check_sql("comm = ''", "(comm = ?)", "T:");
	check_sql("comm = 'and'", "(comm = ?)", "T:and");
	check_sql("comm = 'state'", "(comm = ?)", "T:state");
}

static void precedence_and_parentheses(void **state)
{
	(void)state;
	check_sql("state=DISK and comm~\"^kworker\"", "((state = ?) AND (comm REGEXP ?))", "T:DISK T:^kworker");
	check_sql("syscall in (read, pread64) and sc_us > 10000",
		  "((syscall IN (?, ?)) AND (sc_us > ?))", "T:read T:pread64 I:10000");
	check_sql("not state in (RUN, RUNQ)", "((state IN (?, ?)) IS NOT TRUE)", "T:RUN T:RUNQ");
	check_sql("state=a or state=b and state=c", "((state = ?) OR ((state = ?) AND (state = ?)))", "T:a T:b T:c");
	check_sql("(state=a or state=b) and state=c", "(((state = ?) OR (state = ?)) AND (state = ?))", "T:a T:b T:c");
	check_sql("state=a AND state=b And state=c", "((state = ?) AND (state = ?) AND (state = ?))", "T:a T:b T:c");
	check_sql("not state=a and state=b", "(((state = ?) IS NOT TRUE) AND (state = ?))", "T:a T:b");
	check_sql("not not state=a", "(((state = ?) IS NOT TRUE) IS NOT TRUE)", "T:a");
	check_sql("not (state=a or state=b)", "(((state = ?) OR (state = ?)) IS NOT TRUE)", "T:a T:b");
	check_sql("((state=a))", "(state = ?)", "T:a");
	check_sql("\tstate=a\n", "(state = ?)", "T:a");
}

static void check_error(const char *src, size_t pos, const char *msg)
{
	struct expr_sql e = { .sql = (char *)"untouched" };
	struct expr_error err = { 0 };

	assert_int_equal(expr_compile(src, cols, ARRAY_SIZE(cols), &e, &err), -EINVAL);
	assert_string_equal(err.msg, msg);
	assert_int_equal(err.pos, pos);
	/* output parameters are left alone on failure */
	assert_string_equal(e.sql, "untouched");
	assert_null(e.params);
}

static void malformed_filters_say_where(void **state)
{
	(void)state;
	check_error("", 0, "position 0: empty filter");
	check_error("  \t", 0, "position 0: empty filter");
	check_error("state=", 6, "position 6: expected a value after '=', found the end of the filter");
	check_error("state !=  and", 10, "position 10: expected a value after '!=', found 'and'");
	check_error("(state=RUN", 10,
		    "position 10: expected ')' to close '(' at position 0, found the end of the filter");
	check_error("state=RUN)", 9, "position 9: unmatched ')'");
	check_error("state=RUN foo", 10,
		    "position 10: expected 'and', 'or' or the end of the filter, found 'foo'");
	check_error("foo=1", 0,
		    "position 0: unknown column 'foo' (columns: comm, state, syscall, sc_us, file, group)");
	check_error("comm = \"abc", 7, "position 7: unterminated string");
	check_error("comm = 'abc\\'", 7, "position 7: unterminated string");
	check_error("comm = 'abc\\", 7, "position 7: unterminated string");
	check_error("state DISK", 6, "position 6: expected an operator after 'state', found 'DISK'");
	check_error("state", 5, "position 5: expected an operator after 'state', found the end of the filter");
	check_error("state = comm", 8, "position 8: 'comm' is a column name; quote it to use it as text");
	check_error("state = null", 8, "position 8: null is not a value: use 'is null' or 'is not null'");
	check_error("state is nul", 9, "position 9: expected 'null' after 'is', found 'nul'");
	check_error("state is not 1", 13, "position 13: expected 'null' after 'is not', found '1'");
	check_error("state not RUN", 10, "position 10: expected 'in' or 'between' after 'not', found 'RUN'");
	check_error("state in RUN", 9, "position 9: expected '(' after 'in', found 'RUN'");
	check_error("state in ()", 10, "position 10: expected a value in the list, found ')'");
	check_error("state in (RUN,)", 14, "position 14: expected a value in the list, found ')'");
	check_error("state in (RUN RUNQ)", 14, "position 14: expected ',' or ')' in the list, found 'RUNQ'");
	check_error("state in (RUN", 13, "position 13: expected ',' or ')' in the list, found the end of the filter");
	check_error("sc_us between 1", 15, "position 15: expected 'and' after the lower bound of 'between', found the end of the filter");
	check_error("sc_us between 1 or 2", 16, "position 16: expected 'and' after the lower bound of 'between', found 'or'");
	check_error("sc_us between and 2", 14, "position 14: expected the lower bound after 'between', found 'and'");
	check_error("sc_us between 1 and", 19, "position 19: expected the upper bound after 'and', found the end of the filter");
	check_error("sc_us between (1, 2)", 14, "position 14: expected the lower bound after 'between', found '('");
	check_error("state not between", 17, "position 17: expected the lower bound after 'between', found the end of the filter");
	check_error("state not like x", 10, "position 10: expected 'in' or 'between' after 'not', found 'like'");
	check_error("comm = between", 7, "position 7: expected a value after '=', found 'between'");
	check_error("5 = state", 0, "position 0: expected a column name or '(', found '5'");
	check_error("'comm' = x", 0, "position 0: expected a column name or '(', found ''comm''");
	check_error("()", 1, "position 1: expected a column name or '(', found ')'");
	check_error("state=RUN and", 13, "position 13: expected a column name or '(', found the end of the filter");
	check_error("state=RUN or or", 13, "position 13: expected a column name or '(', found 'or'");
	check_error("state ! RUN", 6, "position 6: expected '!=' or '!~'");
	check_error("state == RUN", 7, "position 7: expected a value after '=', found '='");
	check_error("sc_us > 99999999999999999999", 8, "position 8: number out of range: 99999999999999999999");
	check_error("comm = caf\xc3\xa9", 10, "position 10: unexpected character '\\xc3'");
	check_error("comm ~ \"\" and comm ~ \"a\\", 21, "position 21: unterminated string");
}

static void invalid_regex_is_reported_at_compile_time(void **state)
{
	struct expr_sql e;
	struct expr_error err;
	const char *prefix = "position 8: invalid regular expression: ";

	(void)state;
	assert_int_equal(expr_compile("state ~ \"(\"", cols, ARRAY_SIZE(cols), &e, &err), -EINVAL);
	assert_int_equal(err.pos, 8);
	assert_memory_equal(err.msg, prefix, strlen(prefix));
	/* regerror()'s own words follow */
	assert_true(strlen(err.msg) > strlen(prefix));
	assert_int_equal(expr_compile("comm !~ 'a{2,1}'", cols, ARRAY_SIZE(cols), &e, &err), -EINVAL);
	assert_int_equal(err.pos, 8);
	assert_int_equal(expr_compile("comm ~ null", cols, ARRAY_SIZE(cols), &e, &err), -EINVAL);
	assert_int_equal(err.pos, 7);
}

static void injection_is_refused_or_bound(void **state)
{
	struct expr_sql e;
	struct expr_error err;

	(void)state;
	check_error("comm; drop", 4, "position 4: unexpected character ';'");
	check_error("comm = x; DROP TABLE t", 8, "position 8: unexpected character ';'");
	check_error("comm in ('a'); DELETE FROM t; --')", 13, "position 13: unexpected character ';'");
	check_error("comm = x -- y", 9, "position 9: expected 'and', 'or' or the end of the filter, found '--'");
	check_error("comm) or (1=1", 4, "position 4: expected an operator after 'comm', found ')'");
	check_error("sqlite_master = 1", 0,
		    "position 0: unknown column 'sqlite_master' (columns: comm, state, syscall, sc_us, file, group)");
	/* the text becomes a parameter; none of it reaches the SQL */
	assert_int_equal(expr_compile("comm = \"x'; DROP TABLE t; --\"", cols, ARRAY_SIZE(cols), &e, &err), 0);
	assert_string_equal(e.sql, "(comm = ?)");
	assert_string_equal(e.params[0].text, "x'; DROP TABLE t; --");
	expr_sql_free(&e);
}

/* n copies of s, then tail */
static char *repeat(const char *s, int n, const char *tail)
{
	size_t len = strlen(s);
	char *out = malloc(len * n + strlen(tail) + 1);

	for (int i = 0; i < n; i++)
		memcpy(out + i * len, s, len);
	strcpy(out + len * n, tail);
	return out;
}

/* head, then n - 1 copies of item, then last */
static char *value_list(const char *head, int n, const char *item, const char *last)
{
	char *items = repeat(item, n - 1, last), *out;

	assert_true(asprintf(&out, "%s%s", head, items) > 0);
	free(items);
	return out;
}

static void hostile_sizes_are_bounded(void **state)
{
	struct expr_sql e;
	struct expr_error err;
	char *src;

	(void)state;
	src = repeat("(", 10000, "");
	assert_int_equal(expr_compile(src, cols, ARRAY_SIZE(cols), &e, &err), -EINVAL);
	assert_string_equal(err.msg, "position 16: too deeply nested (at most 16 levels)");
	free(src);

	src = repeat("not ", 10000, "state=RUN");
	assert_int_equal(expr_compile(src, cols, ARRAY_SIZE(cols), &e, &err), -EINVAL);
	assert_int_equal(err.pos, 4 * 16);
	free(src);

	src = repeat("state=RUN or ", 300, "state=RUN");
	assert_int_equal(expr_compile(src, cols, ARRAY_SIZE(cols), &e, &err), -EINVAL);
	assert_int_equal(err.pos, strlen("state=RUN or ") * 256);
	assert_string_equal(err.msg, "position 3328: too many comparisons (at most 256)");
	free(src);

	src = value_list("state in (", 1001, "a,", "a)");
	assert_int_equal(expr_compile(src, cols, ARRAY_SIZE(cols), &e, &err), -EINVAL);
	assert_string_equal(err.msg, "position 2010: too many values (at most 1000)");
	free(src);

	/* errors are optional */
	assert_int_equal(expr_compile("(((", cols, ARRAY_SIZE(cols), &e, NULL), -EINVAL);
	assert_int_equal(expr_compile(NULL, cols, ARRAY_SIZE(cols), &e, &err), -EINVAL);
	assert_string_equal(err.msg, "position 0: empty filter");
}

/* The test table: rows numbered 1..5, two with a NULL syscall (user mode). */
static sqlite3 *open_db(void)
{
	static const char setup[] =
		"CREATE TABLE t (id INTEGER PRIMARY KEY, comm TEXT, state TEXT, syscall TEXT, sc_us INTEGER, file TEXT);"
		"INSERT INTO t VALUES (1, 'kworker/1:2', 'DISK', NULL, NULL, NULL);"
		"INSERT INTO t VALUES (2, 'postgres', 'DISK', 'pread64', 20000, '/var/lib/pg/1.dat');"
		"INSERT INTO t VALUES (3, 'postgres', 'SLEEP', 'futex', 500, NULL);"
		"INSERT INTO t VALUES (4, 'php-fpm7', 'RUN', NULL, NULL, NULL);"
		"INSERT INTO t VALUES (5, 'php-fpm12', 'RUNQ', 'read', 15000, 'tcp 10.0.0.1:5->10.0.0.2:80');";
	sqlite3 *db;

	assert_int_equal(sqlite3_open(":memory:", &db), SQLITE_OK);
	assert_int_equal(sqlfuncs_register(db), 0);
	assert_int_equal(sqlite3_exec(db, setup, NULL, NULL, NULL), SQLITE_OK);
	return db;
}

/* Ids of the rows the filter selects, "2,5"; an id bound ahead of the filter proves the numbering. */
static const char *matching(sqlite3 *db, const char *filter)
{
	static char out[256];
	struct expr_sql e;
	struct expr_error err;
	sqlite3_stmt *stmt;
	char *sql;
	size_t n = 0;

	out[0] = '\0';
	if (expr_compile(filter, cols, ARRAY_SIZE(cols), &e, &err)) {
		print_error("filter %s: %s\n", filter, err.msg);
		fail();
	}
	assert_true(asprintf(&sql, "SELECT id FROM t WHERE id > ? AND %s ORDER BY id", e.sql) > 0);
	if (sqlite3_prepare_v2(db, sql, -1, &stmt, NULL) != SQLITE_OK) {
		print_error("%s: %s\n", sql, sqlite3_errmsg(db));
		fail();
	}
	assert_int_equal(sqlite3_bind_int(stmt, 1, 0), SQLITE_OK);
	assert_int_equal(expr_bind(stmt, 2, &e), 2 + (int)e.nparams);
	while (sqlite3_step(stmt) == SQLITE_ROW)
		n += snprintf(out + n, sizeof(out) - n, "%s%d", n ? "," : "", sqlite3_column_int(stmt, 0));
	assert_int_equal(sqlite3_errcode(db), SQLITE_DONE);
	sqlite3_finalize(stmt);
	free(sql);
	expr_sql_free(&e);
	return out;
}

static void filters_select_the_right_rows(void **state)
{
	sqlite3 *db = open_db();

	(void)state;
	assert_string_equal(matching(db, "state=DISK"), "1,2");
	assert_string_equal(matching(db, "STATE = DISK"), "1,2");
	/* values are case-sensitive, as the store writes them */
	assert_string_equal(matching(db, "state = disk"), "");
	assert_string_equal(matching(db, "state=DISK and comm~\"^kworker\""), "1");
	assert_string_equal(matching(db, "comm ~ worker"), "1");
	assert_string_equal(matching(db, "comm ~ '^php-fpm[0-9]+$'"), "4,5");
	assert_string_equal(matching(db, "comm = kworker/1:2"), "1");
	assert_string_equal(matching(db, "syscall in (read, pread64) and sc_us > 10000"), "2,5");
	assert_string_equal(matching(db, "not state in (RUN, RUNQ)"), "1,2,3");
	assert_string_equal(matching(db, "sc_us > 10000"), "2,5");
	assert_string_equal(matching(db, "sc_us < 1000.5"), "3");
	/* a number in quotes still compares as a number against an INTEGER column */
	assert_string_equal(matching(db, "sc_us = \"500\""), "3");
	assert_string_equal(matching(db, "group = \"php-fpm*\""), "4,5");
	assert_string_equal(matching(db, "file ~ \"^/var/\""), "2");
	assert_string_equal(matching(db, "state = RUN or state = DISK and syscall = pread64"), "2,4");
	assert_string_equal(matching(db, "(state = RUN or state = DISK) and syscall is null"), "1,4");
	assert_string_equal(matching(db, "syscall is not null"), "2,3,5");
	/* between as SQL's: both bounds inclusive, numbers, durations and text */
	assert_string_equal(matching(db, "sc_us between 500 and 15000"), "3,5");
	assert_string_equal(matching(db, "sc_us between 15000 and 500"), "");
	assert_string_equal(matching(db, "comm between p and q"), "2,3,4,5");
	assert_string_equal(matching(db, "syscall between futex and pread64"), "2,3");
	sqlite3_close(db);
}

static void missing_values_and_negation(void **state)
{
	sqlite3 *db = open_db();

	(void)state;
	/* "syscall != futex" includes the user-mode samples */
	assert_string_equal(matching(db, "syscall != futex"), "1,2,4,5");
	assert_string_equal(matching(db, "syscall = futex"), "3");
	assert_string_equal(matching(db, "not syscall = futex"), "1,2,4,5");
	assert_string_equal(matching(db, "syscall in (futex, read)"), "3,5");
	assert_string_equal(matching(db, "syscall not in (futex, read)"), "1,2,4");
	assert_string_equal(matching(db, "not syscall in (futex, read)"), "1,2,4");
	assert_string_equal(matching(db, "syscall ~ '^f'"), "3");
	assert_string_equal(matching(db, "syscall !~ '^f'"), "1,2,4,5");
	assert_string_equal(matching(db, "syscall is null"), "1,4");
	/* a comparison with a missing value is false, so its negation is true */
	assert_string_equal(matching(db, "sc_us > 10000"), "2,5");
	assert_string_equal(matching(db, "not sc_us > 10000"), "1,3,4");
	assert_string_equal(matching(db, "not (sc_us > 10000 and syscall = read)"), "1,2,3,4");
	assert_string_equal(matching(db, "not (sc_us > 10000 or syscall = futex)"), "1,4");
	/* a missing value is in no range, so it is outside every one */
	assert_string_equal(matching(db, "sc_us not between 500 and 15000"), "1,2,4");
	assert_string_equal(matching(db, "not sc_us between 500 and 15000"), "1,2,4");
	sqlite3_close(db);
}

/* Every filter and its negation split the table in two. */
static void negation_is_the_exact_complement(void **state)
{
	static const char *const filters[] = {
		"syscall = futex", "sc_us >= 500", "sc_us < 15000", "file ~ '^/'", "syscall !~ ea",
		"syscall in (read, futex)", "file is null", "state = DISK and sc_us > 0",
		"sc_us > 600 or syscall = futex", "not (syscall = read or sc_us < 1000)",
		"sc_us between 500 and 15000", "syscall not between a and g",
	};
	sqlite3 *db = open_db();

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(filters); i++) {
		char neg[256], both[16] = "";
		char yes[64], no[64];

		snprintf(neg, sizeof(neg), "not (%s)", filters[i]);
		snprintf(yes, sizeof(yes), "%s", matching(db, filters[i]));
		snprintf(no, sizeof(no), "%s", matching(db, neg));
		for (int id = 1; id <= 5; id++) {
			char s[4];
			int in_yes, in_no;

			snprintf(s, sizeof(s), "%d", id);
			in_yes = !!strstr(yes, s);
			in_no = !!strstr(no, s);
			both[id - 1] = '0' + in_yes + in_no;
		}
		if (strcmp(both, "11111")) {
			print_error("%s: matches '%s', its negation '%s'\n", filters[i], yes, no);
			fail();
		}
	}
	sqlite3_close(db);
}

static int count_rows(sqlite3 *db)
{
	sqlite3_stmt *stmt;
	int n;

	assert_int_equal(sqlite3_prepare_v2(db, "SELECT count(*) FROM t", -1, &stmt, NULL), SQLITE_OK);
	assert_int_equal(sqlite3_step(stmt), SQLITE_ROW);
	n = sqlite3_column_int(stmt, 0);
	sqlite3_finalize(stmt);
	return n;
}

static void injected_text_is_only_data(void **state)
{
	sqlite3 *db = open_db();

	(void)state;
	assert_string_equal(matching(db, "comm = \"x'; DROP TABLE t; --\""), "");
	assert_string_equal(matching(db, "comm = 'x\" OR 1=1 --'"), "");
	assert_string_equal(matching(db, "comm in (\"a'); DELETE FROM t; --\")"), "");
	assert_string_equal(matching(db, "comm ~ \"') OR 1=1 --\""), "");
	assert_int_equal(count_rows(db), 5);
	/* and the same text, once it is a thread's name, matches that thread */
	assert_int_equal(sqlite3_exec(db, "INSERT INTO t(id, comm) VALUES (6, 'x''; DROP TABLE t; --')",
				      NULL, NULL, NULL), SQLITE_OK);
	assert_string_equal(matching(db, "comm = \"x'; DROP TABLE t; --\""), "6");
	assert_string_equal(matching(db, "comm != \"x'; DROP TABLE t; --\""), "1,2,3,4,5");
	sqlite3_close(db);
}

/* open n times, then middle, then close n times */
static char *nest(const char *open, int n, const char *middle, const char *close)
{
	char *head = repeat(open, n, middle), *tail = repeat(close, n, ""), *out;

	assert_true(asprintf(&out, "%s%s", head, tail) > 0);
	free(head);
	free(tail);
	return out;
}

static void largest_accepted_filters_run(void **state)
{
	static const struct {
		const char *open, *close;
		int times;
		const char *rows;
	} deepest[] = {
		{ "(", ")", 16, "4" },
		{ "not ", "", 16, "4" },
		{ "state=X or (", ")", 16, "4" },
		{ "state=X or not (", ")", 8, "4" },
		{ "syscall is null and (state=X or (", "))", 8, "4" },
		/* each level: {1,4} and not the level below, so {4}, {1}, {4}, ... */
		{ "state=X or syscall is null and not (", ")", 8, "4" },
	};
	sqlite3 *db = open_db();
	char *src;

	(void)state;
	/* the limits leave SQLite's own (expression depth 1000) out of reach */
	src = repeat("state=X or ", 255, "state=RUN");
	assert_string_equal(matching(db, src), "4");
	free(src);
	/* the costliest nesting SQLite's parser sees, as deep as allowed */
	for (size_t i = 0; i < ARRAY_SIZE(deepest); i++) {
		src = nest(deepest[i].open, deepest[i].times, "state=RUN", deepest[i].close);
		assert_string_equal(matching(db, src), deepest[i].rows);
		free(src);
	}
	src = value_list("sc_us in (", 1000, "1,", "500)");
	assert_string_equal(matching(db, src), "3");
	free(src);
	sqlite3_close(db);
}

static void bind_reports_bad_indexes(void **state)
{
	sqlite3 *db = open_db();
	struct expr_sql e;
	sqlite3_stmt *stmt;

	(void)state;
	assert_int_equal(expr_compile("sc_us = 1 or comm = x or sc_us = 0.5", cols, ARRAY_SIZE(cols), &e, NULL), 0);
	assert_int_equal(sqlite3_prepare_v2(db, "SELECT 1 WHERE ? AND ?", -1, &stmt, NULL), SQLITE_OK);
	assert_int_equal(expr_bind(stmt, 1, &e), -ERANGE);
	assert_int_equal(expr_bind(stmt, 0, &e), -ERANGE);
	sqlite3_finalize(stmt);
	expr_sql_free(&e);
	assert_null(e.sql);
	expr_sql_free(&e);
	expr_sql_free(NULL);
	sqlite3_close(db);
}

/* Regexes that would make regcomp() take exponential time are refused at once. */
static void costly_regexes_are_refused(void **state)
{
	struct expr_sql e0;

	/* found by fuzzing: a backslash in brackets is no escape, so the repetitions after them are stacked */
	assert_int_equal(expr_compile("comm !~ 'x[]\\\\]++++++++'", cols, ARRAY_SIZE(cols), &e0, NULL), -EINVAL);

	static const struct expr_column comm[] = { { .name = "comm", .sql = "comm" } };
	const char *bad[] = { "comm ~ 'a++'", "comm ~ ']+++++++++++++++++++'", "comm ~ 'a*?'",
			      "comm ~ 'a{2}{3}'", "comm ~ 'x{1,1000}'", "comm ~ '(a{2})(b{2})(c{2})'", NULL };
	const char *good[] = { "comm ~ '^kworker/[0-9]+:[0-9]+$'", "comm ~ '[+*]+x'", "comm ~ 'a\\++'",
			       "comm ~ '(ab){2,3}'", NULL };
	struct expr_sql out;
	struct expr_error err;
	char big[400];

	(void)state;
	for (int i = 0; bad[i]; i++) {
		assert_int_not_equal(expr_compile(bad[i], comm, 1, &out, &err), 0);
		assert_non_null(strstr(err.msg, "regular expression"));
	}
	for (int i = 0; good[i]; i++) {
		assert_int_equal(expr_compile(good[i], comm, 1, &out, &err), 0);
		expr_sql_free(&out);
	}
	snprintf(big, sizeof(big), "comm ~ '%0300d'", 0);
	assert_int_not_equal(expr_compile(big, comm, 1, &out, &err), 0);
}

/* The columns of a catalog carry their type: values of another kind fail, and say so where. */
static void values_have_their_columns_type(void **state)
{
	static const char *const states[] = { "RUN", "RUNQ", "DISK", "SLEEP", NULL };
	static const struct expr_column typed[] = {
		{ "comm", "comm", EXPR_TEXT, NULL },
		{ "tid", "tid", EXPR_INT, NULL },
		{ "sc_us", "sc_us", EXPR_DURATION, NULL },
		{ "state", "state", EXPR_CHOICE, states },
	};
	static const struct {
		const char *src, *params;
	} good[] = {
		{ "sc_us > 10ms", "I:10000" }, { "sc_us > 1.5s", "I:1500000" }, { "sc_us < 250us", "I:250" },
		{ "sc_us >= 2m", "I:120000000" }, { "sc_us > 500", "I:500" }, { "tid = 12", "I:12" },
		{ "sc_us between 1ms and 2s", "I:1000 I:2000000" }, { "tid between 10 and 20", "I:10 I:20" },
		{ "state between run and runq", "T:RUN T:RUNQ" },
		{ "state = run", "T:RUN" }, { "state in (disk, \"Sleep\")", "T:DISK T:SLEEP" }, { "comm = 12", "I:12" },
	};
	static const struct {
		const char *src, *msg;
		size_t pos;
	} bad[] = {
		{ "sc_us > 10 ms", "expected", 11 }, { "sc_us > abc", "sc_us takes microseconds", 8 },
		{ "sc_us > 10parsecs", "sc_us takes microseconds", 8 }, { "tid = \"12\"", "tid takes a number", 6 },
		{ "tid = 10ms", "tid takes a number", 6 }, { "state = bogus", "state is one of RUN, RUNQ, DISK, SLEEP", 8 },
		{ "tid in (1, x)", "tid takes a number", 11 },
		{ "tid between 1 and x", "tid takes a number", 18 }, { "tid between x and 2", "tid takes a number", 12 },
		{ "sc_us > 9999999999999999999999h", "sc_us takes microseconds", 8 },
		{ "sc_us > infs", "sc_us takes microseconds", 8 },
	};

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(good); i++) {
		struct expr_sql e;
		struct expr_error err = { 0 };

		if (expr_compile(good[i].src, typed, ARRAY_SIZE(typed), &e, &err))
			fail_msg("%s: %s", good[i].src, err.msg);
		assert_string_equal(params_str(&e), good[i].params);
		expr_sql_free(&e);
	}
	for (size_t i = 0; i < ARRAY_SIZE(bad); i++) {
		struct expr_sql e;
		struct expr_error err = { 0 };

		assert_int_not_equal(expr_compile(bad[i].src, typed, ARRAY_SIZE(typed), &e, &err), 0);
		if (!strstr(err.msg, bad[i].msg) || err.pos != bad[i].pos)
			fail_msg("%s: '%s' at %zu", bad[i].src, err.msg, err.pos);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(costly_regexes_are_refused),
		cmocka_unit_test(comparisons_compile_to_placeholders),
		cmocka_unit_test(a_choice_that_names_a_column_is_the_choice),
		cmocka_unit_test(strings_and_escapes),
		cmocka_unit_test(clickhouse_dialect_is_never_null),
		cmocka_unit_test(precedence_and_parentheses),
		cmocka_unit_test(malformed_filters_say_where),
		cmocka_unit_test(invalid_regex_is_reported_at_compile_time),
		cmocka_unit_test(injection_is_refused_or_bound),
		cmocka_unit_test(hostile_sizes_are_bounded),
		cmocka_unit_test(filters_select_the_right_rows),
		cmocka_unit_test(missing_values_and_negation),
		cmocka_unit_test(negation_is_the_exact_complement),
		cmocka_unit_test(injected_text_is_only_data),
		cmocka_unit_test(largest_accepted_filters_run),
		cmocka_unit_test(bind_reports_bad_indexes),
		cmocka_unit_test(values_have_their_columns_type),
	};
	return cmocka_run_group_tests_name("expr", tests, NULL, NULL);
}
