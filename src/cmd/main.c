// SPDX-License-Identifier: GPL-2.0-only
/* tract: dispatch to a subcommand, named in full or by a unique prefix. */
#include <stdio.h>
#include <string.h>
#include "commands.h"
#include "util.h"

static int cmd_version(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	printf("tract %s\n", TRACT_VERSION);
	return 0;
}

static const char usage[] =
"Usage: tract COMMAND [options]\n"
"\n"
"tract tracks what every thread of a Linux host is doing and waiting for,\n"
"always on, at a cost low enough for production: tracking, not tracing.\n"
"\n"
"Commands:\n"
"  record    sample threads and print or store them (needs root)\n"
"  flame     a flame graph of thread time, on and off CPU, from the store\n"
"  heatmap   latency over time: syscalls, block I/O, waits still in flight\n"
"  wakes     who wakes whom: the waker -> wakee graph between processes\n"
"  report    one self-contained HTML page for a window: tables and pictures\n"
"  clickhouse-schema   the DDL of tract's tables in ClickHouse\n"
"  ship                upload the local store's hours to ClickHouse (a backfill)\n"
"  query     what threads did over a time range, from the store\n"
"  schema    print the store's SQL schema\n"
"  top       the same, refreshed on a screen: live, following a store, or history\n"
"  version   print the version\n"
"\n"
"Run 'tract COMMAND --help' for a command's options, 'man tract' for more.\n";

static int cmd_help(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	fputs(usage, stdout);
	return 0;
}

static const struct {
	const char *name;
	int (*run)(int argc, char **argv);
} commands[] = {
	{ "record", cmd_record },
	{ "flame", cmd_flame },
	{ "heatmap", cmd_heatmap },
	{ "wakes", cmd_wakes },
	{ "report", cmd_report },
	{ "clickhouse-schema", cmd_clickhouse_schema },
	{ "ship", cmd_ship },
	{ "query", cmd_query },
	{ "schema", cmd_schema },
	{ "top", cmd_top },
	{ "version", cmd_version },
	{ "help", cmd_help },
};

int main(int argc, char **argv)
{
	const char *name = argc > 1 ? argv[1] : NULL;
	int found = -1;

	if (!name) {
		fputs(usage, stderr);
		return EXIT_USAGE;
	}
	if (!strcmp(name, "-h") || !strcmp(name, "--help"))
		return cmd_help(argc, argv);
	if (!strcmp(name, "--version"))
		return cmd_version(argc, argv);
	for (size_t i = 0; i < ARRAY_SIZE(commands); i++) {
		if (strncmp(commands[i].name, name, strlen(name)))
			continue;
		if (!strcmp(commands[i].name, name)) {
			found = i;
			break;
		}
		if (found >= 0) {
			tract_err("'%s' is ambiguous", name);
			return EXIT_USAGE;
		}
		found = i;
	}
	if (found < 0) {
		tract_err("'%s' is not a tract command; see 'tract --help'", name);
		return EXIT_USAGE;
	}
	return commands[found].run(argc - 1, argv + 1);
}
