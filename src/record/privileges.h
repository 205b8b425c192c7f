/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Least privilege: once the BPF programs are loaded and attached, the
 * recorder needs none of the capabilities that did it.  What it keeps is for
 * naming what it sees in /proc: CAP_SYS_PTRACE (exe, fd and maps links of
 * other users' processes, /proc/PID/mem for the vDSO), CAP_DAC_READ_SEARCH
 * (reading their binaries for symbols) and CAP_CHECKPOINT_RESTORE
 * (/proc/PID/map_files, for deleted binaries).  The /proc source reads
 * kernel stacks from /proc/PID/stack, which needs CAP_SYS_ADMIN: it keeps
 * that too.
 */
#ifndef TRACT_PRIVILEGES_H
#define TRACT_PRIVILEGES_H

/*
 * Drops every other capability of the calling thread, from its bounding set
 * too, and sets no_new_privs.  Capabilities are per thread: call it before
 * starting threads that must not have them.  0, or negative errno.
 */
int drop_privileges(int keep_sys_admin);

#endif
