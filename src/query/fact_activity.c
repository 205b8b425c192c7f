// SPDX-License-Identifier: GPL-2.0-only
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "activity.h"
#include "columns.h"
#include "fact_activity.h"
#include "value_names.h"
#include "syscalls.h"
#include "util.h"
#include "tract/abi.h"

struct by_id {
	int64_t id;
	int value;		/* a state, a call's facts, whether a file is a terminal; -1: none */
};

/* A dimension's rows by id, as the file numbers them: in order, nearly always from 1 up without a gap. */
struct id_table {
	struct by_id *v;
	size_t n, cap;
};

struct fact_activity {
	struct ended_waits *ended;
	int loaded;
	struct id_table states, calls, terminals;
};

/* The entry of id, or NULL: where the ids have no gap, at its own place. */
static const struct by_id *find(const struct id_table *t, int64_t id)
{
	size_t lo = 0, hi = t->n;

	if (t->n && id >= t->v[0].id && (uint64_t)(id - t->v[0].id) < t->n && t->v[id - t->v[0].id].id == id)
		return &t->v[id - t->v[0].id];
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (t->v[mid].id < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < t->n && t->v[lo].id == id ? &t->v[lo] : NULL;
}

/* Reads rows (id, ...) of sql in id order into t, each one's value made by value_of; none where it fails. */
static void read_table(sqlite3 *db, const char *sql, struct id_table *t, int (*value_of)(sqlite3_stmt *st))
{
	sqlite3_stmt *st;

	if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK)
		return;
	while (sqlite3_step(st) == SQLITE_ROW) {
		ARRAY_GROW(t->v, t->n, t->cap, 64);
		t->v[t->n] = (struct by_id){ sqlite3_column_int64(st, 0), value_of(st) };
		t->n++;
	}
	sqlite3_finalize(st);
}

/* A state's number from its name; -1 for a name this build does not know (activity's idle). */
static int state_value(sqlite3_stmt *st)
{
	const char *name = (const char *)sqlite3_column_text(st, 1);

	for (int s = 0; name && s < TRACT_STATE__COUNT; s++)
		if (!strcmp(name, state_name(s)))
			return s;
	return -1;
}

#define CALL_LOCK 1
#define CALL_IDLE 2
#define CALL_INPUT 4
#define CALL_TIMER 8

/*
 * A call's facts as bits, from its syscall's name in the file (its number
 * may be another build's) and its arguments; -1 where the file names no
 * syscall, which activity takes for none.
 */
static int call_value(sqlite3_stmt *st)
{
	const char *name = (const char *)sqlite3_column_text(st, 1);
	struct activity_call c;

	if (!name)
		return -1;
	activity_call_of(syscall_number(name), sqlite3_column_int64(st, 2), sqlite3_column_int64(st, 3), &c);
	return (c.lock ? CALL_LOCK : 0) | (c.idle ? CALL_IDLE : 0) | (c.input ? CALL_INPUT : 0) | (c.timer ? CALL_TIMER : 0);
}

static int terminal_value(sqlite3_stmt *st)
{
	const char *name = (const char *)sqlite3_column_text(st, 1);

	return name && activity_file_is_terminal(name);
}

static void load(sqlite3 *db, struct fact_activity *f)
{
	f->loaded = 1;
	read_table(db, "SELECT id, name FROM main.states ORDER BY id", &f->states, state_value);
	read_table(db, "SELECT c.id, sc.name, c.a1, c.a2 FROM main.calls c"
		       " LEFT JOIN main.syscalls sc ON sc.nr = c.nr ORDER BY c.id", &f->calls, call_value);
	/* every terminal's name is under /dev: the others need not be read out */
	read_table(db, "SELECT id, name FROM main.files WHERE name GLOB '/dev/*' ORDER BY id", &f->terminals,
		   terminal_value);
}

/* A time in µs as the samples view reads it, or -1 where it is unknown (NULL). */
static int64_t us_or_unknown(sqlite3_value *v)
{
	return sqlite3_value_type(v) == SQLITE_NULL ? -1 : sqlite3_value_int64(v);
}

static void sql_fact_activity(sqlite3_context *ctx, int argc, sqlite3_value **argv)
{
	struct fact_activity *f = sqlite3_user_data(ctx);
	sqlite3 *db = sqlite3_context_db_handle(ctx);
	const struct by_id *state, *call = NULL, *terminal;
	struct activity_call facts;
	int wait_class;
	enum activity a;

	(void)argc;
	if (!f->loaded)
		load(db, f);
	/* no such state: the sample has none */
	state = sqlite3_value_type(argv[0]) != SQLITE_NULL ? find(&f->states, sqlite3_value_int64(argv[0])) : NULL;
	if (!state)
		return;
	/* in no syscall, or in one the file does not name */
	if (sqlite3_value_type(argv[1]) != SQLITE_NULL)
		call = find(&f->calls, sqlite3_value_int64(argv[1]));
	if (call && call->value < 0)
		call = NULL;
	if (call)
		facts = (struct activity_call){ .lock = !!(call->value & CALL_LOCK),
						.idle = !!(call->value & CALL_IDLE),
						.input = !!(call->value & CALL_INPUT),
						.timer = !!(call->value & CALL_TIMER) };
	/* the class of what ended the wait, where it has ended, before the class its site had when sampled */
	wait_class = sqlite3_value_type(argv[6]) == SQLITE_NULL || sqlite3_value_type(argv[7]) == SQLITE_NULL ?
			     TRACT_WAIT_UNKNOWN :
			     ended_waits__class(f->ended, db, sqlite3_value_int64(argv[6]), sqlite3_value_int64(argv[7]));
	if (wait_class == TRACT_WAIT_UNKNOWN)
		wait_class = (int)sqlite3_value_int64(argv[5]);
	terminal = sqlite3_value_type(argv[4]) != SQLITE_NULL ? find(&f->terminals, sqlite3_value_int64(argv[4])) : NULL;
	a = activity_classify(state->value, call ? &facts : NULL, us_or_unknown(argv[2]), us_or_unknown(argv[3]),
			      terminal && terminal->value > 0, wait_class);
	sqlite3_result_text(ctx, activity_names[a], -1, SQLITE_STATIC);
}

static void free_fact_activity(void *p)
{
	struct fact_activity *f = p;

	ended_waits__release(f->ended);
	free(f->states.v);
	free(f->calls.v);
	free(f->terminals.v);
	free(f);
}

int fact_activity_register(sqlite3 *db, struct ended_waits *e)
{
	struct fact_activity *f = calloc(1, sizeof(*f));
	int rc;

	if (!f)
		return -ENOMEM;
	ended_waits__hold(e);
	f->ended = e;
	/* not deterministic: its value is the file's, which SQLite must not fold into a prepared plan */
	rc = sqlite3_create_function_v2(db, "fact_activity", 8, SQLITE_UTF8, f, sql_fact_activity, NULL, NULL,
					free_fact_activity);
	return rc == SQLITE_OK ? 0 : rc == SQLITE_NOMEM ? -ENOMEM : -EINVAL;
}
