/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * tract's own BPF functions in the kernel's symbols, named as
 * /proc/kallsyms lists them (bpf_prog_<tag>_<function>), from what the
 * kernel says of each loaded program.  Reading the whole file again once
 * the programs are loaded cost every start a tenth of a second.
 */
#ifndef TRACT_BPF_KSYMS_H
#define TRACT_BPF_KSYMS_H

struct bpf_object;
struct ksyms;

/* Adds the JITed functions of obj's loaded programs to ks; the number added (0 where the kernel hides their addresses). */
int bpf_ksyms__add_programs(struct bpf_object *obj, struct ksyms *ks);

#endif
