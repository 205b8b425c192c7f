/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * SQL text for ClickHouse, whose 18.16 has no bound parameters: every value
 * tract puts into a query goes through these, and nothing else builds a
 * literal.  Names (databases, clusters) are checked, never quoted.
 */
#ifndef TRACT_CH_SQL_H
#define TRACT_CH_SQL_H

#include <stddef.h>
#include "strbuf.h"

/*
 * s as a ClickHouse string literal, quotes included: a quote and a
 * backslash are escaped with a backslash (ClickHouse reads backslash
 * escapes in literals, so a lone one would swallow the next byte), and
 * every byte below 0x20, 0x7f and beyond 0x7f is written as \xHH, so the
 * literal is plain ASCII whatever the bytes.
 */
void ch_quote(struct strbuf *b, const char *s, size_t len);

/* Whether name is a plain identifier ([A-Za-z_][A-Za-z0-9_]*, at most 64 bytes): a database or cluster. */
int ch_identifier_ok(const char *name);

#endif
