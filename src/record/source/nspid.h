/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The host's tid of a thread that a process in a pid namespace of its own
 * names by its own: glibc keeps a mutex's holder as the tid its process
 * sees, the last field of the thread's NSpid line in /proc, where the
 * sampler has the host's.  Found by the process's threads' status files,
 * and kept in a small cache that each use checks against the thread's
 * status again.
 */
#ifndef TRACT_NSPID_H
#define TRACT_NSPID_H

#include <stddef.h>
#include <stdint.h>

struct nspid;

struct nspid *nspid__new(void);
void nspid__free(struct nspid *c);
/* The host's tid of the thread of process tgid that its namespace calls local; 0 if none. */
uint32_t nspid__global(struct nspid *c, uint32_t tgid, uint32_t local);
/* The innermost namespace's tid in a status file's text (its NSpid line's last field); 0 if none. */
uint32_t nspid_innermost(const char *status, size_t len);

#endif
