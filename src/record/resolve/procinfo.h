/* SPDX-License-Identifier: GPL-2.0-only */
/* Per-process facts the kernel side does not carry: the executable path. */
#ifndef TRACT_PROCINFO_H
#define TRACT_PROCINFO_H

#include <stdint.h>

struct procinfo;

struct procinfo *procinfo__new(const char *proc_root);
void procinfo__free(struct procinfo *pi);
/*
 * Executable of process tgid, or NULL if it cannot be read (kernel threads,
 * processes gone already).  Cached per (tgid, start time, name) so a reused
 * pid or an exec is noticed.  Valid until procinfo__free().
 */
const char *procinfo__exe(struct procinfo *pi, uint32_t tgid, uint64_t start_ns, const char *pcomm);
/*
 * Name of process or thread id (its comm), read once per pass; if it is
 * gone, the name it had when last read or seen (procinfo__saw()), NULL if
 * never.  Valid until procinfo__free().
 */
const char *procinfo__name(struct procinfo *pi, uint32_t id);
/* id is alive under name (as the sampler saw it), for procinfo__name() once it is gone. */
void procinfo__saw(struct procinfo *pi, uint32_t id, const char *name);
/* A name the kernel side gave, kept like the others; valid until procinfo__free(). */
const char *procinfo__intern(struct procinfo *pi, const char *name);
/* Processes and threads it holds anything of now. */
size_t procinfo__size(const struct procinfo *pi);
/* Process tgid ended: its entries go at a later trim (with those of others that ended). */
void procinfo__forget(struct procinfo *pi, uint32_t tgid);
/* Forget what ended processes left, or everything if the cache grew past its bound; call between passes. */
void procinfo__trim(struct procinfo *pi);

#endif
