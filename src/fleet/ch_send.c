// SPDX-License-Identifier: GPL-2.0-only
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "ch_send.h"
#include "ch_spool.h"
#include "strbuf.h"

/* The number a query answers, or *out and *answer say why none. */
static int number(const struct ch_send *s, const char *sql, uint64_t *n, enum ch_outcome *out, char **answer)
{
	*out = ch_http__post(s->http, sql, NULL, 0, answer);
	if (*out != CH_OK)
		return -1;
	*n = strtoull(*answer, NULL, 10);
	free(*answer);
	*answer = NULL;
	return 0;
}

enum ch_sent ch_send__table(const struct ch_send *s, const struct ch_batch *b, int t, int counted,
			    enum ch_outcome *out, char **answer)
{
	struct strbuf q = { 0 };
	char id[64];
	uint64_t n = 0;
	enum ch_sent sent = CH_SENT;

	*answer = NULL;
	*out = CH_OK;
	if (!b->rows[t])
		return CH_SENT;
	snprintf(id, sizeof(id), "tract-%016" PRIx64 "-%d", b->id, t);
	/* stacks replace each other: sending twice is harmless, counting would not be exact */
	if (counted && t != CH_STACKS) {
		/* an INSERT of it still running, or a deletion of its rows not done: not yet */
		strbuf_addf(&q, "SELECT (SELECT count() FROM system.processes WHERE query_id = '%s') + "
			    "(SELECT count() FROM system.mutations WHERE database = '%s' AND table = '%s' AND "
			    "NOT is_done) FORMAT TSV", id, s->database, ch_table_name(t));
		if (number(s, strbuf_str(&q), &n, out, answer) || n) {
			strbuf_free(&q);
			return CH_SEND_LATER;
		}
		strbuf_free(&q);
		strbuf_addf(&q, "SELECT count() FROM %s.%s WHERE %s FORMAT TSV", s->database, ch_table_name(t), s->ident);
		if (number(s, strbuf_str(&q), &n, out, answer))
			sent = CH_SEND_LATER;
		else if (n == b->rows[t])
			sent = CH_SENT;
		strbuf_free(&q);
		if (sent == CH_SEND_LATER || n == b->rows[t])
			return sent;
		if (n) {
			/* some there: gone first, then the batch's, after the deletion is done */
			strbuf_addf(&q, "ALTER TABLE %s.%s DELETE WHERE %s", s->database, ch_table_name(t), s->ident);
			*out = ch_http__post(s->http, strbuf_str(&q), NULL, 0, answer);
			strbuf_free(&q);
			return CH_SEND_LATER;
		}
	}
	strbuf_addf(&q, "INSERT INTO %s.%s", s->database, ch_table_name(t));
	/* by name: a server's table an older tract made has the columns added since last */
	if (t >= CH_PASS_TABLE) {
		strbuf_add(&q, " (host, batch_id, ");
		pass_table_ch_columns(&q, &pass_tables[t - CH_PASS_TABLE], 0);
		strbuf_add(&q, ")");
	}
	strbuf_add(&q, " FORMAT TabSeparated");
	*out = ch_http__insert(s->http, strbuf_str(&q), id, b->data[t], b->len[t], answer);
	strbuf_free(&q);
	if (*out == CH_OK)
		return CH_SENT;
	return *out == CH_BAD_DATA ? CH_SEND_NEVER : CH_SEND_LATER;
}
