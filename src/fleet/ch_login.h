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
/* The most a password file may hold, its line end included. */
#define CH_PASSWORD_FILE_MAX 4096
/*
 * The password in path (its first line), into buf: 0, or -errno after a
 * message.  Refused: a file others may read (-EPERM), one not root's or the
 * running user's (-EPERM), not a regular file (a FIFO does not block), a
 * symbolic link, and a file or a password too long for buf (-EFBIG).
 */
int ch_read_password(const char *path, char *buf, size_t len);
/* Whether what goes to url goes in the clear: http:// to a host other than this one (loopback). */
int ch_url_in_the_clear(const char *url);

#endif
