// SPDX-License-Identifier: GPL-2.0-only
/* tract record: parse the options, then record until told to stop. */
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
	return record_run(&o, NULL, NULL);
}
