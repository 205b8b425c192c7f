/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The options of every command that reads the store, parsed once: the
 * store (-D), the time range (--from, --to), grouping (-g), the filter
 * (-w), the output form (--format) and -v.  Each command's own loop hands
 * every option to read_opts_take() first.
 */
#ifndef TRACT_READ_OPTS_H
#define TRACT_READ_OPTS_H

#include <getopt.h>
#include <stdint.h>
#include "catalog.h"
#include "ch_store.h"
#include "format.h"
#include "reader.h"

struct query_opts {
	const char *dir;
	int dir_given;			/* -D was given */
	const char *group;		/* NULL: the catalog's default */
	const char *filter;
	const char *sql;
	const struct catalog *cat;
	int hist, list_columns;
	int top_given;			/* -n was given */
	int format_given;		/* --format was given */
	int strict;			/* --strict: a damaged hour fails, not skipped */
	int utc;			/* --utc: times read and shown in UTC, not local time */
	int has_from, has_to;
	const char *from, *to;		/* as given, until read_opts_finish() */
	uint64_t from_us, to_us, now_us;
	struct render_opts render;
	struct ch_store_opts ch;	/* --clickhouse: the fleet's store instead of the directory */
};

enum {
	READ_OPT_FROM = 0x1000, READ_OPT_TO, READ_OPT_FORMAT, READ_OPT_STRICT, READ_OPT_UTC, READ_OPT_LOCAL,
	READ_OPT_CLICKHOUSE, READ_OPT_CH_USER, READ_OPT_CH_PASSWORD_FILE, READ_OPT_CH_CA, READ_OPT_HOST,
};

#define READ_OPTS_SHORT "g:w:D:v"
#define READ_OPTS_LONG							\
	{ "group", required_argument, NULL, 'g' },			\
	{ "where", required_argument, NULL, 'w' },			\
	{ "from", required_argument, NULL, READ_OPT_FROM },		\
	{ "to", required_argument, NULL, READ_OPT_TO },			\
	{ "format", required_argument, NULL, READ_OPT_FORMAT },		\
	{ "dir", required_argument, NULL, 'D' },			\
	{ "strict", no_argument, NULL, READ_OPT_STRICT },		\
	{ "utc", no_argument, NULL, READ_OPT_UTC },			\
	{ "local", no_argument, NULL, READ_OPT_LOCAL },			\
	{ "clickhouse", required_argument, NULL, READ_OPT_CLICKHOUSE },	\
	{ "clickhouse-user", required_argument, NULL, READ_OPT_CH_USER }, \
	{ "clickhouse-password-file", required_argument, NULL, READ_OPT_CH_PASSWORD_FILE }, \
	{ "clickhouse-ca", required_argument, NULL, READ_OPT_CH_CA },	\
	{ "host", required_argument, NULL, READ_OPT_HOST },		\
	{ "verbose", no_argument, NULL, 'v' }

/* The --help lines of the fleet's options, as every reading command takes them. */
#define READ_OPTS_CLICKHOUSE_HELP							\
"      --clickhouse URL  the fleet's store instead: tract's tables in ClickHouse\n" \
"                        (http[s]://host:port), as tract record --clickhouse ships them\n" \
"      --host NAME       with --clickhouse: one host's samples only (-g host groups by it)\n" \
"      --clickhouse-user USER, --clickhouse-password-file FILE, --clickhouse-ca FILE\n" \
"                        who tract is there (a password only from a 0600 file), and\n" \
"                        the CA for https\n"

/* The defaults: the default store, the samples, a table. */
void read_opts_init(struct query_opts *o);
/* Takes option c of getopt_long if it is a shared one: 1 if it was, 0 if not, -EINVAL after a message. */
int read_opts_take(const char *cmd, int c, const char *arg, struct query_opts *o);
/* After the loop: no stray arguments, and the time range read; 0 or -EINVAL after a message. */
int read_opts_finish(const char *cmd, int argc, char **argv, struct query_opts *o);
/* The store the options name: -D's directory, or --clickhouse's server; 0 or -errno after a message. */
int query_open_store(const struct query_opts *o, struct store_reader *set);
/*
 * For a command that reads what was recorded (not top, which waits for a
 * recorder): 0, or -ENOENT after a message when the directory holds no
 * hour, rather than an answer of nothing.
 */
int query_check_recorded(const struct query_opts *o, const struct store_reader *set);
/* Where the store is, for messages and headings: the directory or the server's URL. */
const char *query_store_name(const struct query_opts *o);
/* Fills the open ends of the range from the store; 0 or -errno after a message. */
int query_resolve_range(const struct store_reader *set, struct query_opts *o);
/* Whether the terminal takes UTF-8 (for bars of block characters). */
int query_utf8_terminal(void);
/* The width of the terminal standard output is, in cells; 0 when it is none (a pipe). */
size_t query_terminal_columns(void);

#endif
