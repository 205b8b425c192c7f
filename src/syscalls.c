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
