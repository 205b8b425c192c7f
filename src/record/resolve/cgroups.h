/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * cgroup v2 ids to paths: which container or systemd unit a thread belongs
 * to.  A cgroup's id is the inode number of its directory in the cgroup2
 * file system, so the paths come from walking that directory tree.
 */
#ifndef TRACT_CGROUPS_H
#define TRACT_CGROUPS_H

#include <stdint.h>

struct cgroups;

/* Finds the cgroup2 mount in /proc/self/mountinfo; works (returning NULL paths) without one. */
struct cgroups *cgroups__new(void);
void cgroups__free(struct cgroups *cg);
/*
 * Path of the cgroup below the cgroup2 root ("/" for the root), or NULL if
 * unknown.  An unknown id triggers at most one rescan per pass.  Valid until
 * cgroups__free().
 */
const char *cgroups__path(struct cgroups *cg, uint64_t id);
/* A new pass: unknown ids may trigger a rescan again. */
void cgroups__new_pass(struct cgroups *cg);
/* Parse one /proc/self/mountinfo line; the mount point if it is cgroup2 (static storage). */
const char *cgroups__mount_from_line(const char *line);

#endif
