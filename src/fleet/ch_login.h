/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Where a ClickHouse server is and who tract is there: what every command
 * that takes --clickhouse checks the same way.  Credentials never come from
 * argv or the URL (servers log URLs): a user name and a password file.
 */
#ifndef TRACT_CH_LOGIN_H
#define TRACT_CH_LOGIN_H

#include <stddef.h>

/* NULL if url will do (http[s]://, no credentials, no query), else what is wrong with it. */
const char *ch_url_problem(const char *url);
/*
 * The password in path (its first line), into buf: 0, or -errno after a
 * message; a file others may read is refused (-EPERM).
 */
int ch_read_password(const char *path, char *buf, size_t len);

#endif
