/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Least privilege: once the BPF programs are loaded and attached, the
 * recorder needs none of the capabilities that did it, nor root's uid.  It
 * goes on as a user of its own ("tract", made by make install and the
 * package; "nobody" where there is none), and its sampling thread keeps
 * only what naming what it sees in /proc takes: CAP_SYS_PTRACE (exe, fd
 * and maps links of other users' processes, /proc/PID/mem for the vDSO),
 * CAP_DAC_READ_SEARCH (reading their binaries for symbols) and
 * CAP_CHECKPOINT_RESTORE (/proc/PID/map_files, for deleted binaries).  The
 * /proc source reads kernel stacks from /proc/PID/stack, which needs
 * CAP_SYS_ADMIN: it keeps that too.  The threads that write the store and
 * ship it keep nothing (thread_caps_clear()).
 */
#ifndef TRACT_PRIVILEGES_H
#define TRACT_PRIVILEGES_H

#include <sys/types.h>

/* The user a recorder run by root goes on as. */
struct recorder_user {
	uid_t uid;		/* (uid_t)-1: stay who it is (not run by root) */
	gid_t gid;
	char name[64];
};

/*
 * Who the recorder becomes: the "tract" user of /etc/passwd, else "nobody"
 * (65534 where even that is missing); uid (uid_t)-1 unless run as root.
 */
void recorder_user_find(struct recorder_user *u);

/*
 * Becomes u (its group alone, no supplementary ones), then drops every
 * capability but those above, from the bounding set too, sets
 * no_new_privs, and installs the seccomp filter (seccomp.h).  Capabilities are per thread: call it before starting
 * threads that must not have them.  0, or negative errno after a message.
 */
int drop_privileges(const struct recorder_user *u, int keep_sys_admin);
/* For a thread that needs no privilege at all: no capability, no_new_privs, the seccomp filter.  0 or -errno after a message. */
int drop_all_privileges(void);

#endif
