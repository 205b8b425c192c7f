// SPDX-License-Identifier: GPL-2.0-only
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "ch_http.h"
#include "ch_login.h"
#include "ch_sql.h"
#include "ch_store.h"
#include "read_backend.h"
#include "util.h"

struct ch_store {
	struct store_remote remote;
	struct ch_http *http;
	char *url, *host;
	int plain;		/* the user may set nothing (readonly=1): queries go without settings */
};

/*
 * What every read asks: compressed answers, and the query finished before
 * the answer starts, so an error half-way is an error (500), not rows
 * with the error appended.
 */
#define READ_SETTINGS "enable_http_compression=1&wait_end_of_query=1"

static struct ch_store *of_remote(struct store_remote *r)
{
	return (struct ch_store *)r;
}

/* The first line of an error answer, which says it all ("Code: 60, e.displayText() = ..."). */
static void say_error(const struct ch_store *s, enum ch_outcome out, const char *answer)
{
	int len = (int)strcspn(answer, "\n");

	if (out == CH_UNREACHABLE && strstr(answer, "certificate"))
		tract_err("cannot reach ClickHouse at %s: %.*s (--clickhouse-ca names the CA of a private certificate)",
			  s->url, len, answer);
	else if (out == CH_UNREACHABLE)
		tract_err("cannot reach ClickHouse at %s: %.*s", s->url, len, answer);
	else if (strstr(answer, "Code: 164"))
		tract_err("ClickHouse at %s runs only statements that read here: %.*s", s->url, len, answer);
	else if (out == CH_AUTH)
		tract_err("ClickHouse at %s refused tract's user (see --clickhouse-user and "
			  "--clickhouse-password-file): %.*s", s->url, len, answer);
	else if (out == CH_UNKNOWN)
		tract_err("ClickHouse at %s did not answer: %.*s", s->url, len, answer);
	else
		tract_err("ClickHouse at %s: %.*s", s->url, len, answer);
}

static const char *last_line(const char *s, size_t len)
{
	const char *nl = len > 1 ? memrchr(s, '\n', len - 1) : NULL;

	return nl ? nl + 1 : s;
}

/* An error a server that may not finish before answering appends to the rows it sent. */
static int error_appended(const char *answer, size_t len)
{
	const char *last = last_line(answer, len);

	return !strncmp(last, "Code: ", 6) && strstr(last, "e.displayText()");
}

/* Whether the user is one of readonly=1, who may set nothing: asked without settings. */
static int user_sets_nothing(struct ch_store *s)
{
	char *answer;
	int one = ch_http__select(s->http, "SELECT value FROM system.settings WHERE name = 'readonly' FORMAT TSV", NULL,
				  &answer, NULL) == CH_OK && !strcmp(answer, "1\n");

	free(answer);
	return one;
}

/*
 * user_sql: the SQL is the user's (--sql), whose errors are theirs (-EINVAL,
 * as a local --sql's); tract's own fail with -EIO.
 */
static int select_with(struct ch_store *s, const char *sql, const char *settings, int user_sql, struct ch_table *t)
{
	struct strbuf q = { 0 }, params = { 0 };
	enum ch_outcome out;
	char *answer;
	size_t len;

	/* on a line of its own: a comment ending the SQL cannot take it */
	strbuf_addf(&q, "%s\nFORMAT TabSeparatedWithNamesAndTypes", sql);
	tract_debug("ClickHouse: %s", strbuf_str(&q));
	for (;;) {
		strbuf_free(&params);
		if (!s->plain)
			strbuf_addf(&params, "%s%s%s", READ_SETTINGS, settings ? "&" : "", settings ? settings : "");
		out = ch_http__select(s->http, strbuf_str(&q), s->plain ? NULL : strbuf_str(&params), &answer, &len);
		/* a user of readonly=1 reads without settings, and errors are found in the rows */
		if (out == CH_AUTH && !s->plain && !strncmp(answer, "Code: 164,", 10) &&
		    strstr(answer, "Cannot override setting") && user_sets_nothing(s)) {
			free(answer);
			s->plain = 1;
			continue;
		}
		break;
	}
	strbuf_free(&params);
	strbuf_free(&q);
	if (out == CH_OK && s->plain && error_appended(answer, len)) {
		char *error = xstrdup(last_line(answer, len));

		free(answer);
		answer = error;
		out = CH_ERROR;
	}
	if (out != CH_OK) {
		int theirs = user_sql && (out == CH_ERROR || out == CH_BAD_DATA || !strncmp(answer, "Code: 164,", 10));

		say_error(s, out, answer);
		free(answer);
		memset(t, 0, sizeof(*t));
		return theirs ? -EINVAL : -EIO;
	}
	if (ch_table__open(t, answer, len)) {
		tract_err("ClickHouse at %s gave an answer tract cannot read", s->url);
		ch_table__free(t);
		return -EIO;
	}
	return 0;
}

int ch_store__select(struct ch_store *s, const char *sql, struct ch_table *t)
{
	return select_with(s, sql, NULL, 0, t);
}

int ch_store__select_readonly(struct ch_store *s, const char *sql, struct ch_table *t)
{
	/* 2: reading and settings only, whatever the user may do otherwise */
	return select_with(s, sql, "readonly=2", 1, t);
}

void ch_store__host_filter(const struct ch_store *s, struct strbuf *sql)
{
	if (!s || !s->host)
		return;
	strbuf_add(sql, " AND host = ");
	ch_quote(sql, s->host, strlen(s->host));
}

static void store_free(struct store_remote *r)
{
	struct ch_store *s = of_remote(r);

	ch_http__free(s->http);
	free(s->url);
	free(s->host);
	free(s);
}

/* --host names a host the server has passes of: a typo is said, not an empty answer. */
static int check_host(struct ch_store *s)
{
	struct strbuf sql = { 0 };
	struct ch_table t;
	int err;

	strbuf_add(&sql, "SELECT countIf(host = ");
	ch_quote(&sql, s->host, strlen(s->host));
	strbuf_add(&sql, "), arrayStringConcat(arraySlice(arraySort(groupUniqArray(host)), 1, 20), ', ') "
			 "FROM (SELECT DISTINCT host FROM tract.passes)");
	err = ch_store__select(s, strbuf_str(&sql), &t);
	strbuf_free(&sql);
	if (!err && ch_table__next(&t) == 1 && ch_field_int(&t.row[0]) == 0) {
		tract_err("ClickHouse at %s has no passes of host '%s' (its hosts: %.*s)", s->url, s->host,
			  (int)t.row[1].len, t.row[1].s ? t.row[1].s : "");
		err = -ENOENT;
	}
	ch_table__free(&t);
	return err;
}

static const struct store_remote_ops ch_ops = { .free = store_free };

struct ch_store *ch_store__of(const struct store_reader *r)
{
	return r->remote && r->remote->ops == &ch_ops ? of_remote(r->remote) : NULL;
}

int ch_store__open(const struct ch_store_opts *o, struct store_reader *out)
{
	char password[512] = "";
	struct ch_store *s;
	struct ch_table t;
	int err;

	memset(out, 0, sizeof(*out));
	if (o->password_file) {
		err = ch_read_password(o->password_file, password, sizeof(password));
		if (err)
			return err;
	}
	s = xcalloc(1, sizeof(*s));
	s->remote.ops = &ch_ops;
	s->url = xstrdup(o->url);
	s->host = o->host ? xstrdup(o->host) : NULL;
	s->http = ch_http__new(o->url, o->user, o->password_file ? password : NULL, o->ca_file);
	explicit_bzero(password, sizeof(password));
	out->dir = xstrdup(o->url);
	out->remote = &s->remote;
	out->read = &read_clickhouse;
	/* the server answers, lets tract in, and has its tables */
	err = ch_store__select(s, "SELECT count() FROM system.tables WHERE database = 'tract' AND name = 'samples'",
			       &t);
	if (!err && (ch_table__next(&t) != 1 || ch_field_int(&t.row[0]) != 1)) {
		tract_err("ClickHouse at %s has no table tract.samples: nothing was shipped to it yet "
			  "(tract record --clickhouse creates it)", s->url);
		err = -ENOENT;
	}
	ch_table__free(&t);
	if (!err && s->host)
		err = check_host(s);
	if (err)
		store_reader__free(out);
	return err;
}
