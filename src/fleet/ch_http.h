/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * One ClickHouse server over HTTP (libcurl, one kept-alive connection):
 * a statement with an optional body, its answer and what went wrong.
 * Credentials go in headers, never in the URL, which servers log.
 */
#ifndef TRACT_CH_HTTP_H
#define TRACT_CH_HTTP_H

#include <stddef.h>
#include <stdint.h>

struct ch_http;

enum ch_outcome {
	CH_OK,
	CH_UNREACHABLE,		/* nothing was sent: the server is down or refused the connection */
	CH_UNKNOWN,		/* sent, then no answer (timeout, reset): the rows may or may not be in */
	CH_AUTH,		/* wrong user or password, or not allowed */
	CH_BAD_DATA,		/* the server read the rows and refused them (a parse or type error) */
	CH_ERROR,		/* any other error answer */
};

/* url: http[s]://host:port; user and password may be NULL (the default user); ca_file: NULL for the system's. */
struct ch_http *ch_http__new(const char *url, const char *user, const char *password, const char *ca_file);
void ch_http__free(struct ch_http *h);
/*
 * A request in flight is given up once mono_ns() reaches *deadline_ns (0:
 * never), which another thread may set: a stopping recorder's last sends
 * end with its drain, not the 15 s a silent server would take.  What was
 * sent counts as sent without an answer (CH_UNKNOWN).
 */
void ch_http__abandon_at(struct ch_http *h, const uint64_t *deadline_ns);
/* The bytes of request bodies sent so far, compressed as they went. */
uint64_t ch_http__sent_bytes(const struct ch_http *h);
/*
 * POSTs query (sent as the body when body is NULL, else in the URL with
 * body as the data).  *answer gets the server's text (malloc'd, "" when
 * none; the caller frees it).
 */
enum ch_outcome ch_http__post(struct ch_http *h, const char *query, const char *body, size_t len, char **answer);
/*
 * The same with body as the rows of query (an INSERT), under query_id
 * (or NULL): the server runs one query of an id at a time, so a retry
 * cannot overtake an INSERT it is still running.
 */
enum ch_outcome ch_http__insert(struct ch_http *h, const char *query, const char *query_id, const char *body,
				size_t len, char **answer);

/* The most a SELECT's answer may hold: tract reads answers whole. */
#define CH_SELECT_MAX ((size_t)1 << 30)
/*
 * Runs a SELECT; *answer gets its rows, or the error (malloc'd either way,
 * *len bytes).  settings: the URL's parameters ("wait_end_of_query=1"), or
 * NULL; the answer may come compressed.
 */
enum ch_outcome ch_http__select(struct ch_http *h, const char *query, const char *settings, char **answer,
				size_t *len);

#endif
