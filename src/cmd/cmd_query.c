// SPDX-License-Identifier: GPL-2.0-only
/*
 * tract query: what the threads were doing over a time range, grouped by
 * any columns, from the store alone; no root needed, only read access.
 */
#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "aggregate.h"
#include "clock.h"
#include "commands.h"
#include "parse.h"
#include "read_opts.h"
#include "rawsql.h"
#include "render.h"
#include "reader.h"
#include "timespec.h"
#include "util.h"

static const char query_usage[] =
"Usage: tract query [-g COLUMNS] [-w FILTER] [--from TIME] [--to TIME] [-n N]\n"
"                   [--format table|csv|json] [--dir DIR]\n"
"       tract query --hist syscall|runq|io [-w FILTER] [--from TIME] [--to TIME]\n"
"       tract query --sql 'SELECT ...' [--from TIME] [--to TIME] [--timeout S]\n"
"                   [--max-rows N]\n"
"       tract query --trace ID [-g COLUMNS] [-w FILTER] [--from TIME] [--to TIME]\n"
"       tract query --columns\n"
"\n"
"Average active threads per group over a time range of the store.\n"
"\n"
"Options:\n"
"  -g, --group COLUMNS   comma-separated columns to group by\n"
"                        (default state,syscall,pcomm; --columns lists them)\n"
"  -w, --where FILTER    only samples that match, e.g. 'state=DISK and comm~\"^kworker\"'\n"
"      --from TIME       start: -15m, 2h, 2026-11-30 13:05, 13:05, @EPOCH, now\n"
"      --to TIME         end (default: the newest sample; --from default: an hour before)\n"
"  -n, --top N           show the N largest groups (0: all; default 30 for tables,\n"
"                        all otherwise)\n"
"      --format FORMAT   table (default), csv or json\n"
"      --hist KIND       latency histograms: syscall (recorded by default),\n"
"                        runq (waits for a CPU, with --runq-latency) or io (block\n"
"                        I/O), grouped by -g (default: by process and syscall, by\n"
"                        process, or by device and op)\n"
"      --sql SQL         run a SELECT over the range's samples, passes, wakeups,\n"
"                        io_latency, syscall_latency, runq_latency, profile, steal and\n"
"                        wait_ends tables; with --clickhouse, ClickHouse's SQL over\n"
"                        tract.samples, ... (read-only)\n"
"      --timeout S       with --sql: a query that runs longer is stopped, an error\n"
"                        (default 60 s; 0: no limit)\n"
"      --max-rows N      with --sql: an answer of more rows stops after N, an error\n"
"                        (default 1000000; 0: no limit)\n"
"      --trace ID        one request's time, across all its threads: the samples of\n"
"                        OpenTelemetry trace ID (32 hex digits, or a traceparent),\n"
"                        by state, syscall, wait and file unless -g says otherwise\n"
"      --columns         list the columns to group and filter by\n"
"  -D, --dir DIR         the store (default $TRACT_DATA or " DEFAULT_DATA_DIR ")\n"
READ_OPTS_CLICKHOUSE_HELP
"      --strict          fail on a damaged store file instead of skipping it\n"
"      --utc, --local    read and show times in UTC, or in local time (the default)\n"
"  -v, --verbose         say more\n"
"  -h, --help            show this help\n"
"\n"
"Examples:\n"
"  tract query                                  what the threads did, newest hour\n"
"  tract query -g pcomm,wait -w state=DISK      who waited on disk, and where\n"
"  tract query --from -15m -g minute,state      a timeline\n"
"  tract query --hist io --from -1h             block I/O latency\n"
"  tract query -g trace_id,state                where each request's time went\n"
"  tract query --clickhouse http://ch:8123 -g host,state   the fleet, host by host\n";

enum { OPT_HIST = 256, OPT_SQL, OPT_COLUMNS, OPT_TRACE, OPT_TIMEOUT, OPT_MAX_ROWS };

static const struct option query_options[] = {
	READ_OPTS_LONG,
	{ "top", required_argument, NULL, 'n' },
	{ "hist", required_argument, NULL, OPT_HIST },
	{ "sql", required_argument, NULL, OPT_SQL },
	{ "columns", no_argument, NULL, OPT_COLUMNS },
	{ "trace", required_argument, NULL, OPT_TRACE },
	{ "timeout", required_argument, NULL, OPT_TIMEOUT },
	{ "max-rows", required_argument, NULL, OPT_MAX_ROWS },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

#define usage_error(...) tract_usage_error("query", __VA_ARGS__)

/*
 * --trace ID: 32 hex digits, or a W3C traceparent (00-TRACE-SPAN-FLAGS),
 * as the filter of that trace (quoted: an id of digits alone is text
 * too); the group, by default, where its time went.
 */
static int trace_filter(const char *arg, struct query_opts *o)
{
	static char filter[4096];
	char id[33];
	size_t n = 0;

	if (!strncmp(arg, "00-", 3) && strlen(arg) == 55)
		arg += 3;
	for (; n < 32 && isxdigit((unsigned char)arg[n]); n++)
		id[n] = (char)tolower((unsigned char)arg[n]);
	id[n] = '\0';
	if (n != 32 || (arg[32] && arg[32] != '-'))
		return usage_error("invalid value '%s' for --trace: expected a trace id of 32 hex digits, or a "
				   "traceparent", arg);
	if ((size_t)snprintf(filter, sizeof(filter), "trace_id = '%s'%s%s%s", id, o->filter ? " and (" : "",
			     o->filter ? o->filter : "", o->filter ? ")" : "") >= sizeof(filter))
		return usage_error("%s", "the filter with --trace is too long");
	o->filter = filter;
	if (!o->group)
		o->group = "state,syscall,wait,file";
	return 0;
}

/* 0, 1 when --help was shown, or -EINVAL after a message. */
static int query_parse_args(int argc, char **argv, struct query_opts *o, struct rawsql_limits *lim)
{
	const char *trace = NULL;
	int limits_given = 0;
	int c, taken;
	uint64_t v;

	read_opts_init(o);
	*lim = (struct rawsql_limits){ RAWSQL_TIMEOUT_S, RAWSQL_MAX_ROWS };
	o->render.top = (size_t)-1;
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":" READ_OPTS_SHORT "n:h", query_options, NULL)) != -1) {
		taken = read_opts_take("query", c, optarg, o);
		if (taken < 0)
			return taken;
		if (taken)
			continue;
		switch (c) {
		case 'n':
			if (parse_u64(optarg, 0, 1000000000, &v))
				return usage_error("invalid value '%s' for --top: expected a number of rows", optarg);
			o->render.top = v;
			o->top_given = 1;
			break;
		case OPT_HIST:
			if (!strcmp(optarg, "syscall"))
				o->cat = &catalog_syscall;
			else if (!strcmp(optarg, "io"))
				o->cat = &catalog_io;
			else if (!strcmp(optarg, "runq"))
				o->cat = &catalog_runq;
			else
				return usage_error("invalid value '%s' for --hist: expected syscall, io or runq", optarg);
			o->hist = 1;
			break;
		case OPT_SQL:
			o->sql = optarg;
			break;
		case OPT_COLUMNS:
			o->list_columns = 1;
			break;
		case OPT_TRACE:
			trace = optarg;
			break;
		case OPT_TIMEOUT:
			if (parse_u64(optarg, 0, 1000000, &v))
				return usage_error("invalid value '%s' for --timeout: expected seconds, 0 for no limit",
						   optarg);
			lim->timeout_s = (unsigned int)v;
			limits_given = 1;
			break;
		case OPT_MAX_ROWS:
			if (parse_u64(optarg, 0, UINT64_MAX, &v))
				return usage_error("invalid value '%s' for --max-rows: expected a number of rows, 0 for "
						   "no limit", optarg);
			lim->max_rows = v;
			limits_given = 1;
			break;
		case 'h':
			fputs(query_usage, stdout);
			return 1;
		default:
			return option_error("query", c, argv);
		}
	}
	if (o->list_columns && (o->sql || o->group || o->filter || trace || o->top_given))
		return usage_error("%s", "--columns lists the columns: no -g, -w, -n, --sql or --trace with it");
	if (o->sql && (o->hist || o->group || o->filter || trace))
		return usage_error("%s", "--sql takes the whole query: no -g, -w, --trace or --hist with it");
	if (limits_given && !o->sql)
		return usage_error("%s", "--timeout and --max-rows limit --sql: give them with it");
	if (trace && o->hist)
		return usage_error("%s", "--trace is of the samples: no --hist with it");
	if (trace && trace_filter(trace, o))
		return -EINVAL;
	if (o->render.top == (size_t)-1)
		o->render.top = o->render.format == RENDER_TABLE && !o->hist ? 30 : 0;
	return read_opts_finish("query", argc, argv, o);
}

static void list_columns(const struct catalog *cat)
{
	printf("Columns of %s (group with -g, filter with -w):\n", cat->name);
	for (size_t i = 0; i < cat->ncolumns; i++)
		printf("  %-14s %s\n", cat->columns[i].name, cat->columns[i].doc);
}

int cmd_query(int argc, char **argv)
{
	struct agg_result res;
	struct store_reader set;
	struct query_opts o;
	struct agg_query q;
	struct rawsql_limits lim;
	char hist_group[256];
	int err = query_parse_args(argc, argv, &o, &lim);

	if (err)
		return err > 0 ? 0 : EXIT_USAGE;
	if (o.list_columns) {
		list_columns(o.cat);
		return 0;
	}
	o.render.utf8 = query_utf8_terminal();
	o.render.columns = query_terminal_columns();
	if (query_open_store(&o, &set))
		return EXIT_RUNTIME;
	err = query_resolve_range(&set, &o);
	if (!err && o.sql && !(err = query_check_recorded(&o, &set)))
		err = rawsql_run_with(&set, o.from_us, o.to_us, o.strict, o.sql, o.render.format, &lim, stdout);
	if (!err && !o.sql) {
		q = (struct agg_query){ .cat = o.cat, .group = o.group ? o.group : o.cat->default_group,
					.filter = o.filter, .from_us = o.from_us, .to_us = o.to_us, .strict = o.strict };
		if (o.hist) {
			/* the buckets are the innermost group */
			snprintf(hist_group, sizeof(hist_group), "%s,le_us", q.group);
			q.group = hist_group;
		}
		err = aggregate(&set, &q, &res);
		/* the filter and the groups checked first: a usage error is one in any store */
		if (!err)
			err = query_check_recorded(&o, &set);
		if (!err && o.hist) {
			render_hists(stdout, &res, &o.render);
		} else if (!err) {
			agg_result__sort(&res);
			/* a timeline is shown whole unless asked otherwise */
			if (res.time_col >= 0 && !o.top_given)
				o.render.top = 0;
			render_groups(stdout, &res, &o.render);
		}
		agg_result__free(&res);
	}
	store_reader__free(&set);
	if (fflush(stdout) || ferror(stdout)) {
		tract_err("cannot write the output: %s", strerror(errno));
		return 1;
	}
	return exit_status(err);
}
