// SPDX-License-Identifier: GPL-2.0-only
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <stdint.h>
#include <linux/openat2.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include "proc_file.h"

#ifndef SYS_openat2
#define SYS_openat2 437
#endif

static int open_in_root(const char *proc, pid_t pid, const char *path, uint64_t flags, struct stat *out)
{
	struct open_how how = {
		.flags = flags | O_PATH | O_CLOEXEC,
		/* symlinks (absolute ones too) and ".." stay inside the process's root; no /proc magic links */
		.resolve = RESOLVE_IN_ROOT | RESOLVE_NO_MAGICLINKS,
	};
	char buf[64];
	struct stat st;
	int root, where, fd, err;

	if (path[0] != '/')
		return -EINVAL;
	snprintf(buf, sizeof(buf), "%s/%d/root", proc, (int)pid);
	root = open(buf, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (root < 0)
		return -errno;
	/* every kernel tract runs on has openat2 (5.6) */
	where = (int)syscall(SYS_openat2, root, path, &how, sizeof(how));
	err = where < 0 ? -errno : 0;
	close(root);
	if (err)
		return err;
	/* what it is, before anything opens it: only a regular file is read (a symlink O_NOFOLLOW kept is not) */
	if (fstat(where, &st) || !S_ISREG(st.st_mode)) {
		close(where);
		return -EPERM;
	}
	snprintf(buf, sizeof(buf), "/proc/self/fd/%d", where);
	fd = open(buf, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	err = fd < 0 ? -errno : 0;
	close(where);
	if (fd >= 0 && out)
		*out = st;
	return fd < 0 ? err : fd;
}

int proc_file_open(const char *proc, pid_t pid, const char *path)
{
	return open_in_root(proc, pid, path, 0, NULL);
}

int proc_file_open_nofollow(const char *proc, pid_t pid, const char *path, struct stat *st)
{
	return open_in_root(proc, pid, path, O_NOFOLLOW, st);
}
