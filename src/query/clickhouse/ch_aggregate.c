// SPDX-License-Identifier: GPL-2.0-only
/*
 * Group-by over the fleet's store: one query to ClickHouse groups the rows
 * of the range (the samples, or one of the pass's tables) by the inputs
 * the group's columns are made of (catalog.h: comm for comm_folded, the
 * kernel stack's frames for wait), and tract turns each of those groups
 * into the columns' values, the catalog's value over $1... with the same
 * SQL functions a local query uses, in an in-memory SQLite, merging groups
 * that come out alike.  So a column means the same on both stores, and the
 * server sends one row per distinct input, not per row.
 *
 * A filter runs in the server when every column it names is an input as
 * it is (a column of the fleet's table, host, or a stack's frames); one
 * that names a derived column is evaluated here on the groups, its
 * columns' inputs grouped too.
 */
#include <errno.h>
#include <stdio.h>
#include <strings.h>
#include <stdlib.h>
#include <string.h>
#include <sqlite3.h>
#include "aggregate.h"
#include "ch_read.h"
#include "ch_sql.h"
#include "columns.h"
#include "derived.h"
#include "pass_tables.h"
#include "ch_store.h"
#include "expr.h"
#include "sqlfuncs.h"
#include "strbuf.h"
#include "util.h"

#define KFRAMES "nullIf(kframes, '')"
#define UFRAMES "nullIf(uframes, '')"
#define MAX_INPUTS 64

/*
 * A column of the ended wait a sample is in: of the waits of its host and
 * thread that overlap its second (arrays, joined in add_from, latest start
 * first), the one begun last at or before its time, if it had not ended,
 * as a local store picks it.  Waits of a thread can overlap by the
 * sampler's lateness (a wait's start is estimated back from the pass's
 * time): a sample of the second, taken after the first ended, is in the
 * second.  0 and '' are no value: the arrays hold a NULL as 0, and an
 * index of 0 reads a 0 or ''.  The time goes in as an array: the oldest
 * servers do not read a column that only a lambda names.
 */
#define WAIT_END_INDEX "arrayFirstIndex((s, t) -> s <= t, we_start_us, replicate(ts_us, we_start_us))"
#define WAIT_END_INPUT(column, none) \
	"nullIf(if(arrayElement(we_end_us, " WAIT_END_INDEX ") >= ts_us, arrayElement(we_" column ", " \
	WAIT_END_INDEX "), " none "), " none ")"
static const char *wait_end_input(const char *column)
{
	static const char *const inputs[][2] = {
		{ "ender", WAIT_END_INPUT("ender", "''") },
		{ "ender_tid", WAIT_END_INPUT("ender_tid", "0") },
		{ "ender_tgid", WAIT_END_INPUT("ender_tgid", "0") },
		{ "wait_class", WAIT_END_INPUT("wait_class", "''") },
	};

	for (size_t i = 0; i < ARRAY_SIZE(inputs); i++)
		if (!strcmp(column, inputs[i][0]))
			return inputs[i][1];
	return column;	/* none: the server says which */
}

static int needs_wait_ends(const char *input)
{
	return strstr(input, "we_start_us") != NULL;
}

/* The host column, which only the fleet's tables have. */
static const struct catalog_column host_column = {
	.name = "host", .sql = "host", .doc = "the host that recorded the sample (--host of tract record)",
	.type = "TEXT", .inputs = { "host" },
};

/*
 * An input of a catalog's columns (catalog__input()) as the fleet's tables
 * have it: the column of the name, a stack's frames joined by its id, or a
 * column of the ended wait a sample is in.
 */
static const char *fleet_input(const char *name)
{
	if (!strcmp(name, "kframes"))
		return KFRAMES;
	if (!strcmp(name, "uframes"))
		return UFRAMES;
	if (!strncmp(name, "wait_ends.", 10))
		return wait_end_input(name + 10);
	return name;
}

/* A column as the fleet's store has it: its inputs, and its value from them (NULL: the one input). */
struct ch_column {
	const char *inputs[DERIVED_MAX_INPUTS];
	size_t ninputs;
	char *local;		/* over $1...; NULL: the input itself */
	char *bucket_key;	/* a time bucket's key over $1 (what a local query groups its passes by) */
	char *bucket_input;	/* a time bucket's own input (owned) */
};

static char *replace_all(const char *s, const char *from, const char *to)
{
	struct strbuf b = { 0 };

	strbuf_add_replaced(&b, s, from, to);
	return strbuf_take(&b);
}

/*
 * A time bucket's input is the bucket's index since its origin; its value
 * and key are the column's own SQL at the bucket's start, so they come out
 * as in a local query whatever the column makes of the time.
 */
static void time_column(const struct catalog_column *c, struct ch_column *out)
{
	struct strbuf b = { 0 };
	char *start;

	strbuf_addf(&b, "intDiv(toInt64(ts_us) - %llu, %llu)", (unsigned long long)c->bucket_origin_us,
		    (unsigned long long)c->bucket_us);
	out->bucket_input = strbuf_take(&b);
	out->inputs[0] = out->bucket_input;
	out->ninputs = 1;
	strbuf_addf(&b, "($1 * %llu + %llu)", (unsigned long long)c->bucket_us, (unsigned long long)c->bucket_origin_us);
	start = strbuf_take(&b);
	out->local = replace_all(c->sql, "p.ts_us", start);
	out->bucket_key = replace_all(c->base ? c->base : c->sql, "p.ts_us", start);
	free(start);
}

/*
 * The column as the fleet's store gives it: its inputs as the fleet's
 * tables have them, its value over them as the catalog has it.  0, or
 * -ENOTSUP for a column of no inputs.
 */
static int ch_column_of(const struct catalog_column *c, struct ch_column *out)
{
	memset(out, 0, sizeof(*out));
	if (c->bucket_us) {
		time_column(c, out);
		return 0;
	}
	for (; out->ninputs < DERIVED_MAX_INPUTS && c->inputs[out->ninputs]; out->ninputs++)
		out->inputs[out->ninputs] = fleet_input(c->inputs[out->ninputs]);
	if (!out->ninputs)
		return -ENOTSUP;
	out->local = c->value && strcmp(c->value, "$1") ? xstrdup(c->value) : NULL;
	return 0;
}

static void ch_column_free(struct ch_column *c)
{
	free(c->local);
	free(c->bucket_key);
	free(c->bucket_input);
}

int ch_aggregate__inputs(const struct catalog_column *c, char (*names)[512], size_t max)
{
	struct ch_column col;
	int n = ch_column_of(c, &col);

	for (size_t i = 0; !n && i < col.ninputs && i < max; i++)
		snprintf(names[i], sizeof(names[i]), "%s", col.inputs[i]);
	n = n ? n : (int)col.ninputs;
	ch_column_free(&col);
	return n;
}

/* What one query reads: the distinct inputs, and SQL over them. */
struct ch_plan {
	char *inputs[MAX_INPUTS];
	size_t ninputs;
	struct strbuf values;		/* the group columns' values over f.i1, f.i2, ... */
	struct expr_sql local;		/* a filter evaluated here, over f.i1, ... (has_local) */
	int has_local;
	struct strbuf server_filter;	/* a filter for the server, or empty */
	int kstacks, ustacks;		/* inputs that need a stack's frames */
	int wait_ends;			/* inputs that need the ended wait a sample is in */
	size_t time_input;		/* the time column's input, or (size_t)-1 */
	char *time_key;			/* its bucket's key over the inputs */
	char *time_key_alone;		/* the same over f.i1, its input alone */
};

static size_t add_input(struct ch_plan *p, const char *input)
{
	size_t i;

	for (i = 0; i < p->ninputs && strcmp(p->inputs[i], input); i++)
		;
	if (i == p->ninputs) {
		if (p->ninputs == MAX_INPUTS)
			return (size_t)-1;
		p->inputs[p->ninputs++] = xstrdup(input);
		p->kstacks |= strstr(input, "kframes") != NULL;
		p->ustacks |= strstr(input, "uframes") != NULL;
		p->wait_ends |= needs_wait_ends(input);
	}
	return i;
}

/* The column's value over the plan's inputs (f.iN), its inputs added; NULL when there are too many. */
static char *local_sql(struct ch_plan *p, const struct ch_column *c)
{
	char args[DERIVED_MAX_INPUTS][24];
	const char *argv[DERIVED_MAX_INPUTS];

	for (size_t k = 0; k < c->ninputs; k++) {
		size_t i = add_input(p, c->inputs[k]);

		if (i == (size_t)-1)
			return NULL;
		snprintf(args[k], sizeof(args[k]), "f.i%zu", i + 1);
		argv[k] = args[k];
	}
	return derived_apply(c->local, argv, c->ninputs);
}

/* The filter's columns: the catalog's and host, each with the SQL of one side. */
struct filter_columns {
	struct expr_column *cols;
	size_t n;
	char **owned;
};

static void filter_columns_free(struct filter_columns *f)
{
	for (size_t i = 0; i < f->n; i++)
		free(f->owned[i]);
	free(f->owned);
	free(f->cols);
}

/*
 * server: each column as the server reads it, or "NULL" where it cannot
 * (derived ones); else the columns of used as their values here, over the
 * plan's inputs (which they add to), and "NULL" for the rest.
 */
static int make_filter_columns(const struct catalog *cat, struct ch_plan *p, int server, uint64_t used,
			       struct filter_columns *f)
{
	struct expr_column *base = catalog__expr_columns(cat);
	int err = 0;

	f->n = cat->ncolumns + 1;
	f->cols = xcalloc(f->n, sizeof(*f->cols));
	f->owned = xcalloc(f->n, sizeof(*f->owned));
	for (size_t i = 0; i < f->n && !err; i++) {
		const struct catalog_column *c = i < cat->ncolumns ? &cat->columns[i] : &host_column;
		struct ch_column cc;

		f->cols[i] = i < cat->ncolumns ? base[i] : (struct expr_column){ .name = "host" };
		f->cols[i].sql = "NULL";
		if (ch_column_of(c, &cc))
			continue;
		if (server && !cc.local && cc.ninputs == 1)
			f->owned[i] = xstrdup(cc.inputs[0]);
		else if (!server && i < 64 && (used & (1ull << i)) && !(f->owned[i] = local_sql(p, &cc)))
			err = -E2BIG;
		if (f->owned[i])
			f->cols[i].sql = f->owned[i];
		ch_column_free(&cc);
	}
	free(base);
	return err;
}

/* Whether the server can evaluate every column the filter names. */
static int server_can_filter(const struct filter_columns *f, uint64_t used)
{
	for (size_t i = 0; i < f->n && i < 64; i++)
		if ((used & (1ull << i)) && !f->owned[i])
			return 0;
	return 1;
}

/* The filter's SQL with each '?' replaced by its value as a ClickHouse literal. */
static void inline_params(const struct expr_sql *e, struct strbuf *out)
{
	size_t k = 0;

	for (const char *s = e->sql; *s; s++) {
		if (*s != '?' || k >= e->nparams) {
			strbuf_addn(out, s, 1);
			continue;
		}
		const struct expr_param *prm = &e->params[k++];

		char digits[40];

		if (prm->kind == EXPR_PARAM_TEXT) {
			ch_quote(out, prm->text, strlen(prm->text));
		} else if (prm->text_column) {
			/* ClickHouse compares no String with a number: the text SQLite would make of it */
			if (prm->kind == EXPR_PARAM_INT)
				snprintf(digits, sizeof(digits), "%lld", prm->i);
			else
				snprintf(digits, sizeof(digits), "%.15g", prm->r);
			ch_quote(out, digits, strlen(digits));
		} else if (prm->kind == EXPR_PARAM_INT) {
			strbuf_add_i64(out, prm->i);
		} else {
			strbuf_addf(out, "%.17g", prm->r);
		}
	}
}

/* The filter, for the server where it can, else for here (p->local, bound after the inputs). */
static int plan_filter(const struct agg_query *q, struct ch_plan *p)
{
	struct filter_columns f = { 0 };
	struct expr_sql e = { 0 };
	struct expr_error ee;
	int err;

	if (!q->filter || !*q->filter)
		return 0;
	err = make_filter_columns(q->cat, p, 1, 0, &f);
	if (!err && expr_compile_in(&expr_clickhouse, q->filter, f.cols, f.n, &e, &ee)) {
		agg_filter_error(q->filter, &ee);
		err = -EINVAL;
	}
	if (!err && server_can_filter(&f, e.used)) {
		inline_params(&e, &p->server_filter);
		/* the stacks' frames it names are joined in */
		for (size_t i = 0; i < f.n && i < 64; i++)
			if (e.used & (1ull << i)) {
				p->kstacks |= strstr(f.owned[i], "kframes") != NULL;
				p->ustacks |= strstr(f.owned[i], "uframes") != NULL;
				p->wait_ends |= needs_wait_ends(f.owned[i]);
			}
	} else if (!err) {
		uint64_t used = e.used;

		filter_columns_free(&f);
		memset(&f, 0, sizeof(f));
		err = make_filter_columns(q->cat, p, 0, used, &f);
		if (!err && expr_compile(q->filter, f.cols, f.n, &p->local, &ee)) {
			agg_filter_error(q->filter, &ee);
			err = -EINVAL;
		}
		p->has_local = !err;
	}
	if (err == -E2BIG)
		tract_err("the filter and the group need more than %d values from ClickHouse", MAX_INPUTS);
	expr_sql_free(&e);
	filter_columns_free(&f);
	return err;
}

/* The group's columns: the catalog's, and host. */
static int parse_group(const struct agg_query *q, struct agg_query *out)
{
	char *copy, *save = NULL;
	int err = 0;

	*out = *q;
	if (q->ncols)
		return 0;
	copy = xstrdup(q->group ? q->group : "");
	/* host is ours; the catalog's parser reads the rest, one by one */
	for (char *name = strtok_r(copy, ",", &save); name && !err; name = strtok_r(NULL, ",", &save)) {
		size_t n;
		const struct catalog_column *one[AGG_MAX_GROUP];

		name += strspn(name, " \t");
		name[strcspn(name, " \t")] = '\0';
		if (!*name)
			continue;
		if (out->ncols == AGG_MAX_GROUP) {
			tract_err("at most %d columns to group by", AGG_MAX_GROUP);
			err = -EINVAL;
		} else if (!strcasecmp(name, "host")) {
			out->cols[out->ncols++] = &host_column;
		} else if (!(err = agg_parse_group(q->cat, name, one, &n)) && n) {
			out->cols[out->ncols++] = one[0];
		}
	}
	/* no columns at all is the total */
	if (!err && !out->ncols)
		out->group = "";
	free(copy);
	return err;
}

static void free_plan(struct ch_plan *p)
{
	for (size_t i = 0; i < p->ninputs; i++)
		free(p->inputs[i]);
	strbuf_free(&p->values);
	strbuf_free(&p->server_filter);
	free(p->time_key);
	free(p->time_key_alone);
	expr_sql_free(&p->local);
}

/* The group columns' values over the inputs, and which input is the time bucket's. */
static int plan_values(const struct agg_result *r, struct ch_plan *p)
{
	p->time_input = (size_t)-1;
	for (size_t c = 0; c < r->ncols; c++) {
		struct ch_column cc;
		char *sql;

		if (ch_column_of(r->cols[c], &cc)) {
			tract_err("column '%s' cannot be read from ClickHouse", r->cols[c]->name);
			return -ENOTSUP;
		}
		sql = local_sql(p, &cc);
		if (sql && (int)c == r->time_col) {
			char to[32];

			p->time_input = add_input(p, cc.inputs[0]);
			snprintf(to, sizeof(to), "f.i%zu", p->time_input + 1);
			p->time_key = derived_apply(cc.bucket_key, (const char *[]){ to }, 1);
			p->time_key_alone = derived_apply(cc.bucket_key, (const char *[]){ "f.i1" }, 1);
		}
		ch_column_free(&cc);
		if (!sql) {
			tract_err("the group needs more than %d values from ClickHouse", MAX_INPUTS);
			return -E2BIG;
		}
		strbuf_addf(&p->values, "%s%s", c ? ", " : "", sql);
		free(sql);
	}
	return 0;
}

/* a column of a second's waits, in the order of their starts, latest first (WAIT_END_INPUT) */
#define LATEST_FIRST(column) "arrayReverseSort((x, s) -> s, groupArray(" column "), groupArray(start_us))"

/*
 * The samples of the range, joined to their stacks' frames and to the
 * ended wait each is in where the inputs need them; 1 when it ends in a
 * WHERE of its own, which a filter then joins with AND.
 */
static int add_from(const struct ch_store *s, const struct agg_query *q, const struct ch_plan *p,
		    struct strbuf *sql)
{
	struct strbuf range = { 0 }, from = { 0 };

	strbuf_addf(&range, "tract.%s WHERE ts_us >= %llu AND ts_us < %llu", q->cat->table,
		    (unsigned long long)q->from_us, (unsigned long long)q->to_us);
	ch_store__host_filter(s, &range);
	if (!p->kstacks && !p->ustacks && !p->wait_ends) {
		strbuf_add(sql, strbuf_str(&range));
		strbuf_free(&range);
		return 1;
	}
	if (!p->kstacks && !p->ustacks)
		strbuf_add(&from, strbuf_str(&range));
	/* stacks are kept once per host and id, maybe more than once until merged: any() of each */
	if (p->kstacks && p->ustacks)
		strbuf_add(&from, "(SELECT * FROM ");
	if (p->kstacks || p->ustacks)
		strbuf_addf(&from, "(SELECT * FROM %s)", strbuf_str(&range));
	if (p->kstacks)
		strbuf_add(&from, " ANY LEFT JOIN (SELECT host, id AS kstack_id, any(frames) AS kframes FROM tract.stacks "
				  "WHERE kind = 'kernel' GROUP BY host, id) USING (host, kstack_id)");
	if (p->kstacks && p->ustacks)
		strbuf_add(&from, ")");
	if (p->ustacks)
		strbuf_add(&from, " ANY LEFT JOIN (SELECT host, id AS ustack_id, any(frames) AS uframes FROM tract.stacks "
				  "WHERE kind = 'user' GROUP BY host, id) USING (host, ustack_id)");
	if (!p->wait_ends) {
		strbuf_add(sql, strbuf_str(&from));
	} else {
		/*
		 * The oldest servers join by equality alone: each wait is
		 * joined to the seconds it overlaps in the range, and a sample
		 * to its second's waits, as arrays (a thread's waits never
		 * overlap: at most one holds its time).  Only the seconds of
		 * its end's hour, as a local store's file of that hour gives
		 * the ender to the samples it holds: both answer alike.
		 */
		strbuf_addf(sql, "(SELECT *, toUInt64(intDiv(ts_us, 1000000)) AS we_second FROM %s) "
			    "ANY LEFT JOIN (SELECT host, tid, we_second, arrayReverseSort(groupArray(start_us)) AS we_start_us, "
			    LATEST_FIRST("end_us") " AS we_end_us, " LATEST_FIRST("ender") " AS we_ender, "
			    LATEST_FIRST("ifNull(ender_tid, 0)") " AS we_ender_tid, "
			    LATEST_FIRST("ifNull(ender_tgid, 0)") " AS we_ender_tgid, "
			    LATEST_FIRST("wait_class") " AS we_wait_class FROM (SELECT *, "
			    "toUInt64(intDiv(greatest(greatest(start_us, %llu), intDiv(end_us, 3600000000) * 3600000000), 1000000)) AS we_first, "
			    "toUInt64(intDiv(least(end_us, %llu), 1000000)) AS we_last, "
			    "arrayJoin(arrayMap(k -> we_first + k, range(toUInt64(we_last + 1 - we_first)))) AS we_second FROM tract.wait_ends "
			    "WHERE end_us >= %llu AND start_us < %llu", strbuf_str(&from),
			    (unsigned long long)q->from_us, (unsigned long long)q->to_us,
			    (unsigned long long)q->from_us, (unsigned long long)q->to_us);
		ch_store__host_filter(s, sql);
		strbuf_add(sql, ") GROUP BY host, tid, we_second) USING (host, tid, we_second)");
	}
	strbuf_free(&range);
	strbuf_free(&from);
	return 0;
}

/* SELECT the inputs and the weight of each distinct one, in the range, filtered where the server can. */
static char *group_sql(const struct ch_store *s, const struct agg_query *q, const struct ch_plan *p)
{
	struct strbuf sql = { 0 };
	int where;

	strbuf_add(&sql, "SELECT ");
	for (size_t i = 0; i < p->ninputs; i++)
		strbuf_addf(&sql, "%s AS i%zu, ", p->inputs[i], i + 1);
	strbuf_addf(&sql, "sum(%s), count(), %s%s%s FROM ", fleet_input(q->cat->measure), q->cat->sum ? "sum(" : "",
		    q->cat->sum ? fleet_input(q->cat->sum) : "0", q->cat->sum ? ")" : "");
	where = add_from(s, q, p, &sql);
	if (p->server_filter.len)
		strbuf_addf(&sql, " %s (%s)", where ? "AND" : "WHERE", strbuf_str(&p->server_filter));
	for (size_t i = 0; i < p->ninputs; i++)
		strbuf_addf(&sql, "%s i%zu", i ? "," : " GROUP BY", i + 1);
	return strbuf_take(&sql);
}

/*
 * SELECT values, filter, time key FROM the stand-in row of one group's
 * inputs (?1 ... ?N); the filter's own values are numbered after them.
 */
static char *local_statement(const struct ch_plan *p)
{
	struct strbuf sql = { 0 };
	size_t next = p->ninputs + 1;

	strbuf_addf(&sql, "SELECT %s%s(", strbuf_str(&p->values), p->values.len ? ", " : "");
	for (const char *c = p->has_local ? p->local.sql : "1"; *c; c++) {
		if (*c == '?')
			strbuf_addf(&sql, "?%zu", next++);
		else
			strbuf_addn(&sql, c, 1);
	}
	if (p->time_key)
		strbuf_addf(&sql, ") IS TRUE, %s", p->time_key);
	else
		strbuf_add(&sql, ") IS TRUE, 0");
	strbuf_add(&sql, " FROM (SELECT 0 AS zero");
	for (size_t i = 0; i < p->ninputs; i++)
		strbuf_addf(&sql, ", ?%zu AS i%zu", i + 1, i + 1);
	strbuf_add(&sql, ") f");
	return strbuf_take(&sql);
}

static void bind_field(sqlite3_stmt *st, int index, const struct ch_field *f, enum ch_kind kind)
{
	if (!f->s)
		sqlite3_bind_null(st, index);
	else if (kind == CH_KIND_INT)
		sqlite3_bind_int64(st, index, ch_field_int(f));
	else if (kind == CH_KIND_REAL)
		sqlite3_bind_double(st, index, ch_field_real(f));
	else
		sqlite3_bind_text(st, index, f->len ? f->s : "", (int)f->len, SQLITE_TRANSIENT);
}

/* Each group of the server's answer, as the columns' values, into r. */
static int merge_groups(sqlite3 *db, struct ch_table *t, const struct ch_plan *p, struct agg_result *r)
{
	size_t ncols = r->ncols;
	sqlite3_stmt *st = NULL;
	char *sql = local_statement(p);
	int rc = 0, err = 0;

	tract_debug("values: %s", sql);
	if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK) {
		tract_err("cannot evaluate the group's values: %s", sqlite3_errmsg(db));
		err = -EIO;
	}
	free(sql);
	while (!err && (rc = ch_table__next(t)) == 1) {
		uint64_t sums[3] = { (uint64_t)ch_field_int(&t->row[p->ninputs]),
				     (uint64_t)ch_field_int(&t->row[p->ninputs + 1]),
				     (uint64_t)ch_field_int(&t->row[p->ninputs + 2]) };

		sqlite3_reset(st);
		sqlite3_clear_bindings(st);
		for (size_t i = 0; i < p->ninputs; i++)
			bind_field(st, (int)i + 1, &t->row[i], t->kinds[i]);
		if (p->has_local && expr_bind(st, (int)p->ninputs + 1, &p->local) < 0)
			rc = SQLITE_ERROR;
		else
			rc = sqlite3_step(st);
		if (rc != SQLITE_ROW) {
			tract_err("cannot evaluate the group's values: %s", sqlite3_errmsg(db));
			err = -EIO;
		} else if (sqlite3_column_int(st, (int)ncols)) {
			agg_result__add_row(r, st, sums, sqlite3_column_int64(st, (int)ncols + 1));
		}
	}
	if (!err && rc < 0) {
		tract_err("ClickHouse gave a row tract cannot read");
		err = -EIO;
	}
	sqlite3_finalize(st);
	return err;
}

/* What the passes of each time bucket sampled, the most any host did, by the bucket's key. */
static int read_bucket_passes(struct ch_store *s, sqlite3 *db, const struct ch_plan *p, const char *where,
			      struct agg_result *r)
{
	struct strbuf sql = { 0 };
	sqlite3_stmt *st = NULL;
	struct ch_table t;
	char *key = NULL;
	int err;

	strbuf_addf(&sql, "SELECT k, max(w), sum(n) FROM (SELECT host, %s AS k, sum(weight_us) AS w, count() AS n "
		    "FROM tract.passes %s GROUP BY host, k) GROUP BY k", p->inputs[p->time_input], where);
	err = ch_store__select(s, strbuf_str(&sql), &t);
	strbuf_free(&sql);
	if (err)
		return err;
	if (asprintf(&key, "SELECT %s FROM (SELECT ?1 AS i1) f", p->time_key_alone) < 0)
		abort();
	if (sqlite3_prepare_v2(db, key, -1, &st, NULL) != SQLITE_OK) {
		tract_err("cannot evaluate the time buckets: %s", sqlite3_errmsg(db));
		err = -EIO;
	}
	while (!err && ch_table__next(&t) == 1) {
		sqlite3_reset(st);
		sqlite3_bind_int64(st, 1, ch_field_int(&t.row[0]));
		if (sqlite3_step(st) != SQLITE_ROW) {
			tract_err("cannot evaluate the time buckets: %s", sqlite3_errmsg(db));
			err = -EIO;
			break;
		}
		agg_result__add_bucket_passes(r, sqlite3_column_int64(st, 0), (uint64_t)ch_field_int(&t.row[1]),
					      (uint64_t)ch_field_int(&t.row[2]));
	}
	sqlite3_finalize(st);
	free(key);
	ch_table__free(&t);
	return err;
}

/*
 * The passes of the range: what they sampled, in all and per time bucket.
 * Hosts sample side by side, so the fleet's sampled time is the most any
 * host sampled, not their sum: a figure over the fleet is its hosts'
 * active threads added up.  A host that recorded half the range counts for
 * half.
 */
static int read_passes(struct ch_store *s, sqlite3 *db, const struct agg_query *q, const struct ch_plan *p,
		       struct agg_result *r)
{
	struct strbuf sql = { 0 }, where = { 0 };
	struct ch_table t;
	int err;

	strbuf_addf(&where, "WHERE ts_us >= %llu AND ts_us < %llu", (unsigned long long)q->from_us,
		    (unsigned long long)q->to_us);
	ch_store__host_filter(s, &where);
	strbuf_addf(&sql, "SELECT max(w), sum(n), sum(d), min(lo), max(hi), sum(u), sum(l), sum(r), sum(rs), sum(s), "
		    "sum(i) FROM (SELECT host, sum(weight_us) AS w, count() AS n, sum(dropped) AS d, min(ts_us) AS lo, "
		    "max(ts_us) AS hi, sum(unsampled_us) AS u, sum(load_rows * weight_us) AS l, "
		    "sum(run_rows * weight_us) AS r, sum(run_steal_us) AS rs, sum(steal_us) AS s, "
		    "greatest(toInt64(sum(input_rows * weight_us) + sum(input_gained_us)) - toInt64(sum(input_lost_us)), 0) AS i FROM tract.passes %s GROUP BY host)", strbuf_str(&where));
	err = ch_store__select(s, strbuf_str(&sql), &t);
	if (!err && ch_table__next(&t) == 1 && ch_field_int(&t.row[1]) > 0) {
		r->sampled_us = (uint64_t)ch_field_int(&t.row[0]);
		r->passes = (uint64_t)ch_field_int(&t.row[1]);
		r->dropped = (uint64_t)ch_field_int(&t.row[2]);
		r->first_us = (uint64_t)ch_field_int(&t.row[3]);
		r->last_us = (uint64_t)ch_field_int(&t.row[4]);
		r->unsampled_us = (uint64_t)ch_field_int(&t.row[5]);
		r->load = (uint64_t)ch_field_int(&t.row[6]);
		r->run = (uint64_t)ch_field_int(&t.row[7]);
		r->run_steal_us = (uint64_t)ch_field_int(&t.row[8]);
		r->steal_us = (uint64_t)ch_field_int(&t.row[9]);
		r->input = (uint64_t)ch_field_int(&t.row[10]);
	}
	ch_table__free(&t);
	strbuf_free(&sql);
	if (!err && p->time_key)
		err = read_bucket_passes(s, db, p, strbuf_str(&where), r);
	strbuf_free(&where);
	return err;
}

int ch_aggregate__sql(const struct agg_query *q, char **server, char **local)
{
	struct ch_plan plan = { 0 };
	struct agg_query grouped;
	struct agg_result r = { 0 };
	int err = parse_group(q, &grouped);

	*server = *local = NULL;
	if (!err)
		err = agg_result__start(&grouped, &r);
	if (!err)
		err = plan_values(&r, &plan);
	if (!err)
		err = plan_filter(q, &plan);
	if (!err) {
		*server = group_sql(NULL, q, &plan);
		*local = local_statement(&plan);
	}
	free_plan(&plan);
	agg_result__free(&r);
	return err;
}

int ch_aggregate(const struct store_reader *set, const struct agg_query *q, struct agg_result *r)
{
	struct ch_store *s = ch_store__of(set);
	struct ch_plan plan = { 0 };
	struct agg_query grouped;
	struct ch_table t = { 0 };
	sqlite3 *db = NULL;
	char *sql = NULL;
	int err;

	/* what the caller frees, whatever fails */
	memset(r, 0, sizeof(*r));
	if (!q->cat->table) {
		tract_err("the %s table is not in ClickHouse", q->cat->name);
		return -ENOTSUP;
	}
	/* where the columns' values are made from the server's groups */
	if (sqlite3_open(":memory:", &db) != SQLITE_OK || sqlfuncs_register(db)) {
		sqlite3_close(db);
		tract_err("cannot open an in-memory database");
		return -ENOMEM;
	}
	err = parse_group(q, &grouped);
	if (!err)
		err = agg_result__start(&grouped, r);
	if (!err)
		err = plan_values(r, &plan);
	if (!err)
		err = plan_filter(q, &plan);
	if (!err)
		err = read_passes(s, db, q, &plan, r);
	if (!err) {
		sql = group_sql(s, q, &plan);
		err = ch_store__select(s, sql, &t);
	}
	if (!err)
		err = merge_groups(db, &t, &plan, r);
	ch_table__free(&t);
	free(sql);
	free_plan(&plan);
	sqlite3_close(db);
	if (r->keys)
		agg_result__finish(r);
	return err;
}
