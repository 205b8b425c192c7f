// SPDX-License-Identifier: GPL-2.0-only
/* tract schema: print the store's SQL schema with every column explained. */
#include <stdio.h>
#include <string.h>
#include "commands.h"
#include "schema.h"
#include "util.h"

int cmd_schema(int argc, char **argv)
{
	if (argc > 1 && (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help"))) {
		printf("Usage: tract schema\n\nPrint the SQL schema of tract's SQLite store files.\n");
		return 0;
	}
	if (argc > 1) {
		tract_err("unexpected argument '%s'", argv[1]);
		fprintf(stderr, "Try 'tract schema --help' for more information.\n");
		return EXIT_USAGE;
	}
	fputs(schema_sql(), stdout);
	/* The version makes the printed schema a store tract opens as its own. */
	printf("PRAGMA user_version = %d;\n", TRACT_SCHEMA_VERSION);
	return 0;
}
