// SPDX-License-Identifier: GPL-2.0-only
#include <errno.h>
#include <langinfo.h>
#include <locale.h>
#include <string.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include "ch_login.h"
#include "clock.h"
#include "read_backend.h"
#include "read_opts.h"
#include "timespec.h"
#include "util.h"

void read_opts_init(struct query_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->dir = store_default_dir();
	o->cat = &catalog_samples;
	o->render.format = RENDER_TABLE;
}

int read_opts_take(const char *cmd, int c, const char *arg, struct query_opts *o)
{
	int format;

	switch (c) {
	case 'g':
		if (!arg[strspn(arg, " \t")])
			return tract_usage_error(cmd, "invalid value '' for -g: expected one or more columns, "
						 "such as comm,state");
		o->group = arg;
		return 1;
	case 'w':
		o->filter = arg;
		return 1;
	case READ_OPT_FROM:
		o->from = arg;
		return 1;
	case READ_OPT_TO:
		o->to = arg;
		return 1;
	case READ_OPT_FORMAT:
		format = render_parse_format(arg);
		if (format < 0)
			return tract_usage_error(cmd, "invalid value '%s' for --format: expected table, csv or json",
						 arg);
		o->render.format = format;
		o->format_given = 1;
		return 1;
	case 'D':
		o->dir = arg;
		o->dir_given = 1;
		return 1;
	case 'v':
		tract_verbose = 1;
		return 1;
	case READ_OPT_STRICT:
		o->strict = 1;
		return 1;
	case READ_OPT_CLICKHOUSE:
		if (ch_url_problem(arg))
			return tract_usage_error(cmd, "invalid value '%s' for --clickhouse: expected %s", arg,
						 ch_url_problem(arg));
		o->ch.url = arg;
		return 1;
	case READ_OPT_CH_USER:
		o->ch.user = arg;
		return 1;
	case READ_OPT_CH_PASSWORD_FILE:
		o->ch.password_file = arg;
		return 1;
	case READ_OPT_CH_CA:
		o->ch.ca_file = arg;
		return 1;
	case READ_OPT_HOST:
		o->ch.host = arg;
		return 1;
	case READ_OPT_UTC:
	case READ_OPT_LOCAL:
		/* the last one given wins; local is the zone TZ names, or the system's */
		o->utc = c == READ_OPT_UTC;
		return 1;
	}
	return 0;
}

int read_opts_finish(const char *cmd, int argc, char **argv, struct query_opts *o)
{
	static const char forms[] = "expected -15m, 2h, 2026-11-30 13:05, 13:05, @EPOCH or now";

	if (optind < argc)
		return tract_usage_error(cmd, "unexpected argument '%s'", argv[optind]);
	if (!o->ch.url && (o->ch.user || o->ch.password_file || o->ch.ca_file || o->ch.host))
		return tract_usage_error(cmd, "%s", "--host and the --clickhouse-* options need --clickhouse");
	if (o->ch.url && o->dir_given)
		return tract_usage_error(cmd, "%s", "-D and --clickhouse name two stores: give one");
	if (o->utc)
		timespec_use_utc();
	o->now_us = realtime_us();
	if (o->from && timespec_parse(o->from, o->now_us, &o->from_us))
		return tract_usage_error(cmd, "invalid time '%s' for --from: %s", o->from, forms);
	if (o->to && timespec_parse(o->to, o->now_us, &o->to_us))
		return tract_usage_error(cmd, "invalid time '%s' for --to: %s", o->to, forms);
	o->has_from = o->from != NULL;
	o->has_to = o->to != NULL;
	return 0;
}

int query_open_store(const struct query_opts *o, struct store_reader *set)
{
	return o->ch.url ? ch_store__open(&o->ch, set) : store_reader__open(o->dir, set);
}

int query_check_recorded(const struct query_opts *o, const struct store_reader *set)
{
	if (set->remote || set->n)
		return 0;
	tract_err("'%s' holds no recorded hour (tract-YYYYMMDD-HH.db or .samples.csv files); "
		  "tract record -o %s writes them", o->dir, o->dir);
	return -ENOENT;
}

const char *query_store_name(const struct query_opts *o)
{
	return o->ch.url ? o->ch.url : o->dir;
}

/* The range the options leave open: up to the newest sample, an hour long. */
int query_resolve_range(const struct store_reader *set, struct query_opts *o)
{
	uint64_t newest;
	int err;

	if (!o->has_to) {
		err = store_newest_us(set, &newest);
		if (err)
			return err;
		o->to_us = newest ? newest + 1 : o->now_us;
		if (o->has_from && o->from_us >= o->to_us)
			o->to_us = o->now_us;
	}
	if (!o->has_from)
		o->from_us = o->to_us > USEC_PER_HOUR ? o->to_us - USEC_PER_HOUR : 0;
	if (o->from_us >= o->to_us) {
		char from[32], to[32];

		timespec_format(o->from_us, from, sizeof(from));
		timespec_format(o->to_us, to, sizeof(to));
		/* the times it settled on: a bare 13:05 is its latest past occurrence */
		tract_err("--from must be before --to: they are %s and %s %s%s", from, to, timespec_zone(o->to_us),
			  (o->from && strchr(o->from, ':') && !strchr(o->from, '-')) ||
					  (o->to && strchr(o->to, ':') && !strchr(o->to, '-')) ?
				  " (a time without a date is its latest past occurrence)" :
				  "");
		return -EINVAL;
	}
	return 0;
}

int query_utf8_terminal(void)
{
	setlocale(LC_CTYPE, "");
	return !strcmp(nl_langinfo(CODESET), "UTF-8");
}

size_t query_terminal_columns(void)
{
	struct winsize ws;

	if (!isatty(STDOUT_FILENO) || ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws))
		return 0;
	return ws.ws_col;
}
