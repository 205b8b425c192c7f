// SPDX-License-Identifier: GPL-2.0-only
#include <errno.h>
#include <string.h>
#include <unistd.h>
#include <linux/capability.h>
#include <sys/syscall.h>
#include "thread_caps.h"

/* the raw calls: they change the calling thread alone, as wanted here */
int thread_caps_keep(const int *caps, size_t n)
{
	struct __user_cap_header_struct hdr = { .version = _LINUX_CAPABILITY_VERSION_3 };
	struct __user_cap_data_struct want[2], now[2];

	memset(want, 0, sizeof(want));
	for (size_t i = 0; i < n; i++) {
		if (caps[i] < 0 || caps[i] >= 64)
			continue;
		want[caps[i] / 32].effective |= 1u << (caps[i] % 32);
		want[caps[i] / 32].permitted |= 1u << (caps[i] % 32);
	}
	if (syscall(SYS_capget, &hdr, now))
		return -errno;
	for (int i = 0; i < 2; i++) {
		want[i].permitted &= now[i].permitted;
		want[i].effective &= now[i].permitted;
	}
	return syscall(SYS_capset, &hdr, want) ? -errno : 0;
}

int thread_caps_clear(void)
{
	return thread_caps_keep(NULL, 0);
}
