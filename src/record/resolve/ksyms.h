/* SPDX-License-Identifier: GPL-2.0-only */
/* Kernel symbols from /proc/kallsyms, for naming kernel stack frames. */
#ifndef TRACT_KSYMS_H
#define TRACT_KSYMS_H

#include <stddef.h>
#include <stdint.h>

struct ksyms;

/* NULL with errno set on failure. */
struct ksyms *ksyms__load(const char *path);
/*
 * The same read by a thread of its own, beside what the caller does
 * meanwhile (the recorder: the verifier's checking of its programs).
 * Nothing else of ks may be used before ksyms__wait(), which gives the
 * reading's 0 or -errno (-EPERM: kptr_restrict hides the addresses); a
 * table that could not be read names nothing.
 */
struct ksyms *ksyms__load_async(const char *path);
int ksyms__wait(struct ksyms *ks);
void ksyms__free(struct ksyms *ks);
/* Reads the symbols again: code loaded since (BPF programs, modules) is named. */
void ksyms__reread(struct ksyms *ks);
/* Code the caller knows of, as /proc/kallsyms would list it (its own BPF programs); addresses of 0 are left out. */
struct ksym_code {
	uint64_t addr;
	const char *name;
};
void ksyms__add(struct ksyms *ks, const struct ksym_code *code, size_t nr);
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
