// SPDX-License-Identifier: GPL-2.0-only
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <linux/capability.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include "privileges.h"
#include "util.h"

#ifndef CAP_CHECKPOINT_RESTORE
#define CAP_CHECKPOINT_RESTORE 40
#endif

static const int kept[] = { CAP_SYS_PTRACE, CAP_DAC_READ_SEARCH, CAP_CHECKPOINT_RESTORE, CAP_SYS_ADMIN };

/* CAP_SYS_ADMIN, last in kept[], only when asked for */
static int is_kept(int cap, int sys_admin)
{
	for (size_t i = 0; i < ARRAY_SIZE(kept) - !sys_admin; i++)
		if (kept[i] == cap)
			return 1;
	return 0;
}

static int last_cap(void)
{
	FILE *f = fopen("/proc/sys/kernel/cap_last_cap", "re");
	int last = CAP_LAST_CAP;

	if (f) {
		if (fscanf(f, "%d", &last) != 1)
			last = CAP_LAST_CAP;
		fclose(f);
	}
	return last;
}

int drop_privileges(int keep_sys_admin)
{
	struct __user_cap_header_struct hdr = { .version = _LINUX_CAPABILITY_VERSION_3 };
	struct __user_cap_data_struct data[2], now[2];
	int last = last_cap();

	/* the bounding set first: dropping from it needs CAP_SETPCAP, which goes next */
	for (int cap = 0; cap <= last; cap++)
		if (!is_kept(cap, keep_sys_admin) && prctl(PR_CAPBSET_DROP, cap, 0, 0, 0) && errno != EINVAL)
			tract_debug("cannot drop capability %d from the bounding set: %s", cap, strerror(errno));
	memset(data, 0, sizeof(data));
	for (size_t i = 0; i < ARRAY_SIZE(kept) - !keep_sys_admin; i++) {
		if (kept[i] > last)
			continue;
		data[kept[i] / 32].effective |= 1u << (kept[i] % 32);
		data[kept[i] / 32].permitted |= 1u << (kept[i] % 32);
	}
	/* keep only what it holds: a user without capabilities keeps none, and may say so */
	if (!syscall(SYS_capget, &hdr, now))
		for (int i = 0; i < 2; i++) {
			data[i].permitted &= now[i].permitted;
			data[i].effective &= now[i].permitted;
		}
	if (syscall(SYS_capset, &hdr, data)) {
		int err = -errno;

		tract_err("cannot drop capabilities: %s", strerror(-err));
		return err;
	}
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0)) {
		int err = -errno;

		tract_err("cannot forbid new privileges: %s", strerror(-err));
		return err;
	}
	return 0;
}
