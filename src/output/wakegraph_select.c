// SPDX-License-Identifier: GPL-2.0-only
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include "dict.h"
#include "pass_tables.h"
#include "strbuf.h"
#include "util.h"
#include "wakegraph_select.h"

/* A row's values as one key: the same edge in both queries. */
static size_t edge_key(const struct agg_value *v, unsigned char *key, size_t cap)
{
	size_t len = 0;

	for (int i = 0; i < 4; i++) {
		size_t n = v[i].type == SQLITE_TEXT ? v[i].len : sizeof(v[i].i);
		const void *p = v[i].type == SQLITE_TEXT ? (const void *)v[i].text : (const void *)&v[i].i;

		if (len + n + 2 > cap)
			break;
		key[len++] = (unsigned char)v[i].type;
		memcpy(key + len, p, n);
		len += n;
		key[len++] = 0;
	}
	return len;
}

/*
 * The edges over the range: the catalog's counts and run-queue sums, then
 * the sums of what the table's definition weighs its rows by (the time
 * held up), by the same keys.
 */
int wakegraph__select(const struct store_reader *set, const struct wake_selection *o, struct agg_result *r,
		      struct wake_edge **out, size_t *n)
{
	static const char group[] = "waker,waker_tgid,wakee,wakee_tgid";
	const struct pass_column *weight = pass_table_weight(&pass_tables[PT_wakeups]);
	struct catalog weighed = catalog_wakeups;
	struct agg_query q = { .cat = &catalog_wakeups, .group = group, .filter = o->filter, .from_us = o->from_us,
			       .to_us = o->to_us, .strict = o->strict };
	struct agg_result rb;
	struct agg_value v[4];
	unsigned char key[1024];
	struct dict *keys;
	int err = aggregate(set, &q, r);

	if (err)
		return err;
	weighed.sum = weight->name;
	q.cat = &weighed;
	err = aggregate(set, &q, &rb);
	if (err) {
		agg_result__free(r);
		return err;
	}
	keys = dict__new();
	for (size_t i = 0; i < rb.nrows; i++) {
		int added;
		uint32_t id;

		agg_result__values(&rb, &rb.rows[i], v);
		id = dict__intern(keys, key, edge_key(v, key, sizeof(key)), &added);
		*dict__value(keys, id) = rb.rows[i].sum;
	}
	*out = xcalloc(r->nrows ? r->nrows : 1, sizeof(**out));
	*n = r->nrows;
	for (size_t i = 0; i < r->nrows; i++) {
		struct wake_edge *e = &(*out)[i];
		uint32_t id;

		agg_result__values(r, &r->rows[i], v);
		id = dict__find(keys, key, edge_key(v, key, sizeof(key)));
		*e = (struct wake_edge){
			.waker = v[0].type == SQLITE_TEXT ? v[0].text : "?", .waker_len = v[0].type == SQLITE_TEXT ? v[0].len : 1,
			.wakee = v[2].type == SQLITE_TEXT ? v[2].text : "?", .wakee_len = v[2].type == SQLITE_TEXT ? v[2].len : 1,
			.waker_tgid = v[1].type == SQLITE_INTEGER ? v[1].i : -1,
			.wakee_tgid = v[3].type == SQLITE_INTEGER ? v[3].i : -1,
			.count = r->rows[i].measure, .runq_us = r->rows[i].sum,
			.held_up_us = id ? *dict__value(keys, id) : 0,
		};
	}
	wakegraph__rank(*out, *n);
	dict__free(keys);
	agg_result__free(&rb);
	return 0;
}

/* A text value as a NUL-terminated copy; NULL for another. */
static char *text_of(const struct agg_value *v)
{
	char *s;

	if (v->type != SQLITE_TEXT)
		return NULL;
	s = xcalloc(1, v->len + 1);
	memcpy(s, v->text, v->len);
	return s;
}

/* The name each holder's own samples give it in the range: tid -> edge index + 1 of its first edge. */
static void name_holders(const struct store_reader *set, const struct wake_selection *o, struct wake_edge *e,
			 size_t n)
{
	struct agg_query q = { .cat = &catalog_samples, .group = "tid,comm", .from_us = o->from_us, .to_us = o->to_us,
			       .strict = o->strict };
	struct strbuf filter = { 0 };
	struct agg_result r;
	struct agg_value v[2];

	strbuf_add(&filter, "tid in (");
	for (size_t i = 0; i < n; i++)
		strbuf_addf(&filter, "%s%lld", i ? ", " : "", (long long)e[i].waker_tgid);
	strbuf_add(&filter, ")");
	q.filter = strbuf_str(&filter);
	tract_hold_errors(1);
	if (!aggregate(set, &q, &r)) {
		agg_result__sort(&r);
		for (size_t k = 0; k < r.nrows; k++) {
			agg_result__values(&r, &r.rows[k], v);
			for (size_t i = 0; i < n; i++)
				if (v[0].type == SQLITE_INTEGER && v[0].i == e[i].waker_tgid && !e[i].owned &&
				    (e[i].owned = text_of(&v[1]))) {
					e[i].waker = e[i].owned;
					e[i].waker_len = strlen(e[i].owned);
				}
		}
		agg_result__free(&r);
	}
	tract_clear_error();
	tract_hold_errors(0);
	strbuf_free(&filter);
}

int wakegraph__select_holders(const struct store_reader *set, const struct wake_selection *o, struct agg_result *r,
			      struct wake_edge **out, size_t *n)
{
	struct strbuf filter = { 0 };
	struct agg_query q = { .cat = &catalog_samples, .group = "blocker_tid,tid,comm,chain_cycle",
			       .from_us = o->from_us, .to_us = o->to_us, .strict = o->strict };
	struct agg_value v[4];
	int err;

	strbuf_add(&filter, "blocker_tid is not null");
	if (o->filter)
		strbuf_addf(&filter, " and (%s)", o->filter);
	q.filter = strbuf_str(&filter);
	err = aggregate(set, &q, r);
	strbuf_free(&filter);
	if (err)
		return err;
	*out = xcalloc(r->nrows ? r->nrows : 1, sizeof(**out));
	*n = 0;
	for (size_t i = 0; i < r->nrows; i++) {
		struct wake_edge *e = NULL;

		agg_result__values(r, &r->rows[i], v);
		if (v[0].type != SQLITE_INTEGER || v[1].type != SQLITE_INTEGER)
			continue;
		/* one edge a pair, a deadlock's where any of its samples closed one */
		for (size_t k = 0; k < *n && !e; k++)
			if ((*out)[k].waker_tgid == v[0].i && (*out)[k].wakee_tgid == v[1].i)
				e = &(*out)[k];
		if (!e) {
			e = &(*out)[(*n)++];
			*e = (struct wake_edge){
				.waker = "?", .waker_len = 1, .waker_tgid = v[0].i, .wakee_tgid = v[1].i,
				.wakee = v[2].type == SQLITE_TEXT ? v[2].text : "?",
				.wakee_len = v[2].type == SQLITE_TEXT ? v[2].len : 1, .holds = 1,
			};
		}
		e->count += r->rows[i].samples;
		e->held_up_us += r->rows[i].measure;
		e->cycle |= v[3].type == SQLITE_INTEGER && v[3].i;
	}
	if (*n)
		name_holders(set, o, *out, *n);
	wakegraph__rank(*out, *n);
	return 0;
}

/* Graphviz's dot lays the graph out into path; the DOT text goes in through a pipe, no shell. */
int wakegraph__write_svg(const char *path, const struct wake_edge *e, size_t n, size_t max_edges, const char *title)
{
	int fds[2], status = 0;
	pid_t pid;
	FILE *in;

	if (pipe(fds))
		return -errno;
	pid = fork();
	if (pid < 0)
		return -errno;
	if (pid == 0) {
		dup2(fds[0], STDIN_FILENO);
		close(fds[0]);
		close(fds[1]);
		execlp("dot", "dot", "-Tsvg", "-o", path, (char *)NULL);
		_exit(127);
	}
	close(fds[0]);
	in = fdopen(fds[1], "w");
	if (in) {
		/* dot may die early: its exit status tells, not SIGPIPE */
		signal(SIGPIPE, SIG_IGN);
		wakegraph__write_dot(in, e, n, max_edges, title);
		fclose(in);
	} else {
		close(fds[1]);
	}
	if (waitpid(pid, &status, 0) < 0)
		return -errno;
	if (WIFEXITED(status) && WEXITSTATUS(status) == 127) {
		tract_err("%s", "cannot run dot: install Graphviz (apt-get install graphviz), or write --format dot");
		return -ENOENT;
	}
	if (!WIFEXITED(status) || WEXITSTATUS(status)) {
		tract_err("dot could not lay the graph out into %s", path);
		return -EIO;
	}
	return 0;
}

