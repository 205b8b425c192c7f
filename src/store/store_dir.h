/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The store directory and its files, safe from the host's other users: the
 * directory and those on the way to it root's (or the recorder's user's)
 * and writable by their owner alone, its files never opened through a
 * symlink.
 */
#ifndef TRACT_STORE_DIR_H
#define TRACT_STORE_DIR_H

#include <stdio.h>
#include <sys/types.h>

/*
 * Opens the store directory, creating it and its parents (0750) where
 * missing, after checking it and every directory on the way: each must
 * belong to root, the caller or owner, and be writable by no one else (a
 * sticky directory on the way excepted).  With owner other than (uid_t)-1
 * and the caller, what root left in it is handed to owner, if it holds
 * nothing but a store's files.  With gid >= 0 it becomes setgid to that
 * group (02750), so that the group may read every file.  An fd of the
 * directory, or -errno after a message naming the path and why.
 */
int store_dir_open(const char *dir, long gid, uid_t owner);
/* store_dir_open() for the caller's own user, the fd closed: 0 or -errno after a message. */
int store_make_dir(const char *dir, long gid);
/*
 * Opens a file of the store with flags (O_CREAT: 0640), never through a
 * symlink, and only a regular file (a FIFO or device: -EPERM).  fd or -errno.
 */
int store_dir_open_file(const char *path, int flags);
/* The same as a stream: mode "w" (truncated) or "a"; NULL with errno set. */
FILE *store_fopen(const char *path, const char *mode);
/* Create the file if needed with the store's permissions (0640); 0 or -errno. */
int store_create_file(const char *path);
/*
 * Locks the store directory for one recorder: an fd to keep open while
 * recording, or -EBUSY after a message naming the process that holds it.
 */
int store_lock(const char *dir);
/* Whether a file can be created in dir now (after privileges are dropped); 0 or -errno after a message. */
int store_check_writable(const char *dir);

#endif
