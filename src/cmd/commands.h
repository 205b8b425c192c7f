/* SPDX-License-Identifier: GPL-2.0-only */
/* The subcommands; each returns the process exit status. */
#ifndef TRACT_COMMANDS_H
#define TRACT_COMMANDS_H

int cmd_record(int argc, char **argv);
int cmd_schema(int argc, char **argv);
int cmd_flame(int argc, char **argv);
int cmd_heatmap(int argc, char **argv);
int cmd_wakes(int argc, char **argv);
int cmd_report(int argc, char **argv);
int cmd_clickhouse_schema(int argc, char **argv);
int cmd_ship(int argc, char **argv);
int cmd_query(int argc, char **argv);
int cmd_top(int argc, char **argv);

#endif
