/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * What the recorder may never do once attached, whatever a flaw in the code
 * that reads other users' files made it run: start a program, trace or
 * write into another process, change mounts, namespaces or the kernel.
 */
#ifndef TRACT_SECCOMP_H
#define TRACT_SECCOMP_H

/*
 * Installs the filter on the calling thread, inherited by the threads it
 * starts after (no_new_privs must be set): those calls fail with EPERM.
 * 0, or negative errno (the kernel has no seccomp: the recorder goes on).
 */
int seccomp_forbid(void);

#endif
