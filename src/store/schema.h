/* SPDX-License-Identifier: GPL-2.0-only */
/* The store's schema, shared by the SQLite store, the CSV store and `tract schema`. */
#ifndef TRACT_SCHEMA_H
#define TRACT_SCHEMA_H

#define TRACT_SCHEMA_VERSION 18
/* The oldest an hour may have and still be read: store_upgrade() brings it to this version. */
#define TRACT_SCHEMA_OLDEST 5
/*
 * The oldest a reader reads as it is, with no upgraded copy: 14 has the
 * files' devices (13 the threads' titles, 12 sample_blockers), which the
 * samples view joins.  15 adds the passes' input_gained_us and
 * input_lost_us, which a reader of a 14 takes for 0, 16 their stop, NULL
 * in a 15 (a view of its own: the passes columns it lacks, after its own).
 * 17 keeps the ended waits' enders once (enders) and their times from the
 * pass (wait_end_facts): its view wait_ends has the columns of 15's table.
 * 18 stores a sample that repeats the one before it as a repeat of that
 * fact (sample_facts.repeats), which a reader of an older hour takes for
 * none (a view of its own, as for the passes).
 */
#define TRACT_SCHEMA_READ_AS_IS 14

/*
 * A fact stands for its own pass and the repeats after it: a thread whose
 * sample at a pass is the one before it again (same wait, same stacks, its
 * times gone on with the clock: repeats.h) costs no row.  An open run (its
 * thread repeats it at the file's newest pass) says REPEATS_OPEN, which
 * reaches past any pass a file has; the recorder writes the count when the
 * run ends, or when it next opens the file.
 */
#define REPEATS_OPEN 8388607
#define FACT_PASSES "passes p ON p.id BETWEEN f.pass AND f.pass + ifnull(f.repeats, 0)"

/* SQL that creates an hourly SQLite file, with a comment on every column. */
const char *schema_sql(void);
/* SQL that makes the samples view again, as this tract's columns have it. */
const char *schema_view_sql(void);
/* SQL that creates the tables of schema 9 that name processes and syscalls by id, and their views. */
const char *schema_named_facts_sql(void);
const char *schema_named_views_sql(void);
/*
 * The inserts of a sample's fact and of its block request: the parameters
 * are the refs below, then the table's stored columns of the column table
 * (columns.h) in their order, then for sample_io the fact, then its columns.
 */
const char *schema_insert_fact_sql(void);
const char *schema_insert_io_sql(void);
/* The insert of a blocked sample's holder and chain: the fact, then sample_blockers' columns. */
const char *schema_insert_blocker_sql(void);
/* SQL that creates the sample_blockers table (schema 12). */
const char *schema_blockers_sql(void);
/* The insert of a trace context: its id, then the traces' columns of the column table. */
const char *schema_insert_trace_sql(void);
/* SQL that creates the enders table (schema 17). */
const char *schema_enders_sql(void);
/* SQL that creates the traces table (schema 10). */
const char *schema_traces_sql(void);
/* Parameter numbers of what a fact refers to; its own columns follow. */
enum fact_ref {
	FACT_REF_PASS = 1, FACT_REF_THREAD, FACT_REF_STATE, FACT_REF_CALL, FACT_REF_KSTACK,
	FACT_REF_FILE, FACT_REF_WAKER, FACT_REF_USTACK, FACT_REF_TRACE, FACT_REF__COUNT	/* with the terminator */
};
/*
 * The samples view's SELECT over sample_facts f and passes p with the joins
 * its columns need: column i is sql_of(i) AS its name where sql_of gives
 * one (sql_of NULL, or a NULL from it: the column table's SQL), and more
 * columns after them (or NULL).
 */
struct strbuf;
void schema_samples_select(struct strbuf *b, const char *(*sql_of)(size_t column), const char *more);
/* syscall_latency_facts.nr of a row whose syscall is NULL: no syscalls row has it, so the view shows NULL. */
#define NO_SYSCALL_NR (-2147483647 - 1)

#endif
