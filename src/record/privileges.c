// SPDX-License-Identifier: GPL-2.0-only
#include <errno.h>
#include <grp.h>
#include <pwd.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <linux/capability.h>
#include <sys/prctl.h>
#include "privileges.h"
#include "seccomp.h"
#include "thread_caps.h"
#include "util.h"

#ifndef CAP_CHECKPOINT_RESTORE
#define CAP_CHECKPOINT_RESTORE 40
#endif

#define NOBODY_ID 65534

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

/* /etc/passwd itself, not NSS: the same in a static build, and system users live there */
static int find_user(const char *name, struct recorder_user *u)
{
	FILE *f = fopen("/etc/passwd", "re");
	struct passwd *pw;
	int found = 0;

	if (!f)
		return 0;
	while (!found && (pw = fgetpwent(f)))
		if (!strcmp(pw->pw_name, name) && pw->pw_uid != 0) {
			u->uid = pw->pw_uid;
			u->gid = pw->pw_gid;
			snprintf(u->name, sizeof(u->name), "%s", name);
			found = 1;
		}
	fclose(f);
	return found;
}

void recorder_user_find(struct recorder_user *u)
{
	*u = (struct recorder_user){ .uid = (uid_t)-1, .gid = (gid_t)-1 };
	if (geteuid() != 0 || find_user("tract", u) || find_user("nobody", u))
		return;
	*u = (struct recorder_user){ .uid = NOBODY_ID, .gid = NOBODY_ID, .name = "nobody" };
}

/* Its uid and gids become u's; its capabilities survive for capset() to choose from. */
static int become(const struct recorder_user *u)
{
	if (prctl(PR_SET_KEEPCAPS, 1, 0, 0, 0) || setgroups(0, NULL) || setresgid(u->gid, u->gid, u->gid) ||
	    setresuid(u->uid, u->uid, u->uid)) {
		int err = -errno;

		tract_err("cannot become user '%s' (%u): %s", u->name, (unsigned int)u->uid, strerror(-err));
		return err;
	}
	prctl(PR_SET_KEEPCAPS, 0, 0, 0, 0);
	return 0;
}

int drop_privileges(const struct recorder_user *u, int keep_sys_admin)
{
	int last = last_cap(), err;

	/* the bounding set first: dropping from it needs CAP_SETPCAP, which goes next */
	for (int cap = 0; cap <= last; cap++)
		if (!is_kept(cap, keep_sys_admin) && prctl(PR_CAPBSET_DROP, cap, 0, 0, 0) && errno != EINVAL)
			tract_debug("cannot drop capability %d from the bounding set: %s", cap, strerror(errno));
	if (u && u->uid != (uid_t)-1 && (err = become(u)))
		return err;
	/* a user without capabilities keeps none, and may say so */
	err = thread_caps_keep(kept, ARRAY_SIZE(kept) - !keep_sys_admin);
	if (err) {
		tract_err("cannot drop capabilities: %s", strerror(-err));
		return err;
	}
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0)) {
		err = -errno;
		tract_err("cannot forbid new privileges: %s", strerror(-err));
		return err;
	}
	err = seccomp_forbid();
	if (err)
		tract_debug("no seccomp filter: %s", strerror(-err));
	return 0;
}

int drop_all_privileges(void)
{
	int err = thread_caps_clear();

	if (!err && prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0))
		err = -errno;
	if (err)
		tract_err("cannot drop privileges: %s", strerror(-err));
	else if (seccomp_forbid())
		tract_debug("no seccomp filter for this thread");
	return err;
}
