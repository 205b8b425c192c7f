/* SPDX-License-Identifier: GPL-2.0-only */
/* Kernel symbols from /proc/kallsyms, for naming kernel stack frames. */
#ifndef TRACT_KSYMS_H
#define TRACT_KSYMS_H

#include <stdint.h>

struct ksyms;

/* NULL with errno set on failure. */
struct ksyms *ksyms__load(const char *path);
void ksyms__free(struct ksyms *ks);
/* Reads the symbols again: code loaded since (BPF programs, modules) is named. */
void ksyms__reread(struct ksyms *ks);
/* Name of the function holding addr, or NULL; *offset is addr's offset in it. */
const char *ksyms__lookup(const struct ksyms *ks, uint64_t addr, uint64_t *offset);
/*
 * The same, but where addr names nothing, the symbols are read again first
 * if they were not in the last 10 s (a BPF program loaded since).  Names
 * looked up before are invalid after.
 */
const char *ksyms__name(struct ksyms *ks, uint64_t addr);
/* The address of the code symbol name (of the kernel's text, a module's or a BPF program's); 0 where it has none. */
uint64_t ksyms__address(const struct ksyms *ks, const char *name);

#endif
