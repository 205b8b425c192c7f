/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Kernel fields that were renamed, read through CO-RE flavours so that one
 * object loads on every kernel tract supports (as bcc's libbpf-tools do in
 * their core_fixes.bpf.h).  Flavours only one part uses stay with it
 * (holder.bpf.h: the lock a task blocks on, file locks before 6.9).
 */
#ifndef TRACT_CORE_FIXES_BPF_H
#define TRACT_CORE_FIXES_BPF_H

#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_core_read.h>

/* __state was called state before 5.14 */
struct task_struct___pre514 {
	long state;
} __attribute__((preserve_access_index));

static __always_inline __u32 task_state_bits(struct task_struct *task)
{
	if (bpf_core_field_exists(task->__state))
		return task->__state;
	return ((struct task_struct___pre514 *)task)->state;
}

#endif
