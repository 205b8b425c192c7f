// SPDX-License-Identifier: GPL-2.0-only
#include <string.h>
#include "syscall_names.h"
#include "syscalls.h"
#include "util.h"

int syscall_count(void)
{
	return ARRAY_SIZE(syscall_names);
}

const char *syscall_name(int nr)
{
	if (nr < 0 || nr >= syscall_count())
		return NULL;
	return syscall_names[nr];
}

int syscall_number(const char *name)
{
	for (int nr = 0; nr < syscall_count(); nr++)
		if (syscall_names[nr] && !strcmp(syscall_names[nr], name))
			return nr;
	return -1;
}

void fd_syscalls_bitmap(uint64_t *bitmap, int nbits)
{
	static const char *const names[] = {
		"read", "write", "pread64", "pwrite64", "readv", "writev", "preadv", "pwritev",
		"preadv2", "pwritev2", "fsync", "fdatasync", "sync_file_range", "fallocate",
		"ftruncate", "lseek", "getdents64", "ioctl", "fcntl", "flock", "fstat", "fstatfs",
		"recvfrom", "sendto", "recvmsg", "sendmsg", "recvmmsg", "sendmmsg", "connect",
		"accept", "accept4", "shutdown", "sendfile", "splice", "tee", "copy_file_range",
		"epoll_wait", "epoll_pwait", "epoll_pwait2", "epoll_ctl", "syncfs", "fadvise64",
		"readahead", "getsockopt", "setsockopt", "bind", "listen",
	};

	memset(bitmap, 0, nbits / 8);
	for (size_t i = 0; i < ARRAY_SIZE(names); i++) {
		int nr = syscall_number(names[i]);

		if (nr >= 0 && nr < nbits)
			bitmap[nr / 64] |= 1ull << (nr % 64);
	}
}
