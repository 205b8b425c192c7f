/* SPDX-License-Identifier: GPL-2.0-only */
/* The subcommands; each returns the process exit status. */
#ifndef TRACT_COMMANDS_H
#define TRACT_COMMANDS_H

int cmd_record(int argc, char **argv);
int cmd_schema(int argc, char **argv);
int cmd_query(int argc, char **argv);
int cmd_top(int argc, char **argv);

#endif
