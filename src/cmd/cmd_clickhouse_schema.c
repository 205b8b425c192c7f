// SPDX-License-Identifier: GPL-2.0-only
/*
 * tract clickhouse-schema: the DDL of tract's tables in ClickHouse, for
 * administrators who create them by hand (on a cluster, with --cluster).
 */
#include <getopt.h>
#include <stdio.h>
#include <string.h>
#include "ch_schema.h"
#include "ch_sql.h"
#include "commands.h"
#include "parse.h"
#include "util.h"

static const char usage[] =
"Usage: tract clickhouse-schema [--cluster NAME] [--database NAME]\n"
"\n"
"Print the ClickHouse DDL of tract's tables: samples_local (the samples\n"
"view's columns, plus host and batch_id; MergeTree by day, ordered by host\n"
"and time), stacks_local, passes_local, and the histograms, wakeups and\n"
"profile the passes carry (io_latency_local, syscall_latency_local,\n"
"runq_latency_local, wakeups_local, profile_local), with the tables queries\n"
"read (the same names without _local): Distributed over the cluster, or\n"
"views on one server.  POST it a statement (a line) at a time; on a cluster,\n"
"to every server (there is no ON CLUSTER, which would need ZooKeeper).\n"
"\n"
"Options:\n"
"      --cluster NAME    the cluster of remote_servers to create them on\n"
"      --database NAME   the database (default tract)\n"
"  -h, --help            show this help\n";

int cmd_clickhouse_schema(int argc, char **argv)
{
	static const struct option options[] = {
		{ "cluster", required_argument, NULL, 'c' },
		{ "database", required_argument, NULL, 'd' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct ch_schema_opts o = { .database = "tract" };
	int c;

	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":h", options, NULL)) != -1) {
		switch (c) {
		case 'c':
			o.cluster = optarg;
			break;
		case 'd':
			o.database = optarg;
			break;
		case 'h':
			fputs(usage, stdout);
			return 0;
		default:
			option_error("clickhouse-schema", c, argv);
			return EXIT_USAGE;
		}
	}
	if (optind < argc) {
		tract_usage_error("clickhouse-schema", "unexpected argument '%s'", argv[optind]);
		return EXIT_USAGE;
	}
	if (!ch_identifier_ok(o.database) || (o.cluster && !ch_identifier_ok(o.cluster))) {
		tract_usage_error("clickhouse-schema", "invalid %s name '%s': expected letters, digits and '_'",
				  ch_identifier_ok(o.database) ? "cluster" : "database",
				  ch_identifier_ok(o.database) ? o.cluster : o.database);
		return EXIT_USAGE;
	}
	if (ch_schema_write(stdout, &o) || fflush(stdout)) {
		tract_err("%s", "cannot write the schema");
		return EXIT_RUNTIME;
	}
	return 0;
}
