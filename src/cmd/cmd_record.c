// SPDX-License-Identifier: GPL-2.0-only
/* tract record: parse the options, then record until told to stop. */
#include <sqlite3.h>
#include "commands.h"
#include "record.h"
#include "util.h"

int cmd_record(int argc, char **argv)
{
	struct record_opts o;
	int err = record_parse_args(argc, argv, &o);

	if (err)
		return err > 0 ? 0 : EXIT_USAGE;
	record_install_signals();
	/*
	 * SQLite's memory statistics take a global mutex on every allocation,
	 * hundreds a pass; the recorder reads none of them (a query's heap
	 * limit does, so only here).
	 */
	sqlite3_config(SQLITE_CONFIG_MEMSTATUS, 0);
	return record_run(&o, NULL, NULL);
}
