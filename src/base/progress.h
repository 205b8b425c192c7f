/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * How far long work is, on stderr when it is a terminal: one line, redrawn
 * in place ("report: flame graph, hour 37 of 168, 41%"), cleared at the end.
 * A command begins it; the loops over a store's hours step it, and do
 * nothing when no command began one or stderr is not a terminal.
 */
#ifndef TRACT_PROGRESS_H
#define TRACT_PROGRESS_H

#include <stddef.h>

/* what: the command; stages: how many times the hours are read (1 or more). */
void progress_begin(const char *what, unsigned int stages);
/* The next stage, by name ("flame graph"); NULL for none. */
void progress_stage(const char *name);
/* done of total hours of the current stage have been read (done < total: one is being read). */
void progress_hours(size_t done, size_t total);
/* Clears the line until the next step redraws it: before a message to stderr. */
void progress_clear(void);
/* Clears the line for good. */
void progress_end(void);

#endif
