/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * A file as a process sees it, through its own root (containers have their
 * own), opened for reading only when it is a regular file.  The path comes
 * from the process's maps, which its user controls: an absolute symlink in
 * it must resolve inside the process's root, not the host's, and a device
 * or FIFO must never be opened (an open can have side effects).
 */
#ifndef TRACT_PROC_FILE_H
#define TRACT_PROC_FILE_H

#include <sys/stat.h>
#include <sys/types.h>

/*
 * Opens path (absolute, as the process sees it) under proc/PID/root, read
 * only, without blocking: an fd of a regular file, or -errno (-EPERM for
 * anything else).
 */
int proc_file_open(const char *proc, pid_t pid, const char *path);
/*
 * The same for a file found by a name the process's runtime agreed on
 * rather than by a mapping, which the process's user may have made a
 * symlink to anything: a symlink as the last component is refused too.
 * *st gets what the fd is (its owner, size).
 */
int proc_file_open_nofollow(const char *proc, pid_t pid, const char *path, struct stat *st);

#endif
