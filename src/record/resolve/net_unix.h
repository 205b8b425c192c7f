/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * /proc/net/unix read without trusting its lines.  The kernel prints a
 * socket's path as it was bound, newlines and all, so a user can bind one
 * that reads as further records, naming other processes' sockets as the
 * user likes.  Here a record must have the kernel's exact layout, a line
 * that has not continues the path before it, and an inode that more than
 * one record claims is named by none of them: one of them is forged.
 */
#ifndef TRACT_NET_UNIX_H
#define TRACT_NET_UNIX_H

#include <stdint.h>
#include <stdio.h>

/* "unix PATH", or "unix" for a socket bound to no path; name is valid during the call. */
typedef void (*net_unix_fn)(void *arg, uint64_t ino, const char *name);

/* Calls fn for each socket of f, the file's text; returns how many. */
size_t net_unix__read(FILE *f, net_unix_fn fn, void *arg);

#endif
