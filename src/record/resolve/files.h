/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Names for the files fd syscalls work on: the path of a regular file, or
 * for a socket its protocol, endpoints and TCP state ("tcp 10.0.0.1:41234->
 * 10.0.0.2:5432 ESTABLISHED").  The kernel side says which file (its inode);
 * this names it from /proc, with caches so a thread that waits on the same
 * file pass after pass costs a lookup, not a readlink.
 */
#ifndef TRACT_FILES_H
#define TRACT_FILES_H

#include <stddef.h>
#include <stdint.h>

struct files;

struct files *files__new(const char *proc_root);
void files__free(struct files *fs);
/*
 * A pass begins at now_ns (CLOCK_MONOTONIC).  Socket states change, so
 * socket names are read again from the process's socket tables, but those
 * are costly to read on a host with a large TCP hash (every read walks
 * every bucket: milliseconds, whatever few sockets there are): reads are
 * spaced so they take at most 1% of the time, and between them a socket's
 * name is the last read's, and one not read yet shows as the kernel names
 * it ("socket:[INODE]").
 */
void files__new_pass(struct files *fs, uint64_t now_ns);
/* Process tgid ended: its cached fds go at a later pass (with those of others that ended). */
void files__forget(struct files *fs, uint32_t tgid);
/*
 * NULL if the file cannot be named (the process or fd is gone).  Valid for
 * 64 passes at least (files.c: NAMES_GRACE_PASSES), longer than a pass can
 * wait for the store.
 */
const char *files__name(struct files *fs, uint32_t tgid, uint64_t fd, uint64_t ino);
/*
 * The block device the fd's file is on, named by bd (its filesystem's
 * device): what a thread in D in fdatasync() waits on when the requests are
 * another thread's (a journal's, or writeback another thread started).
 * NULL for a file on no block device (a socket, a pipe, tmpfs, btrfs and
 * overlayfs with their devices of their own), or one gone.  Cached as names
 * are.
 */
struct blockdevs;
const char *files__dev(struct files *fs, struct blockdevs *bd, uint32_t tgid, uint64_t fd, uint64_t ino);

/*
 * Parse one line of /proc/net/{tcp,tcp6,udp,udp6} into "PROTO LOCAL->REMOTE STATE"
 * (no remote part for unconnected sockets); 0 with *ino set, or -1.
 */
int files__format_inet_line(const char *line, const char *proto, int v6, char *out, size_t len,
			    uint64_t *ino);

#endif
