// SPDX-License-Identifier: GPL-2.0-only
/*
 * Empty programs: the floor that `make bench` compares tract's own cost
 * against.  sys_exit is here because the floor of syscall tracking is
 * defined as empty sys_enter and sys_exit programs, though tract needs no
 * sys_exit program.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

char LICENSE[] SEC("license") = "GPL";

SEC("tp_btf/sys_enter")
int BPF_PROG(floor_sys_enter) { return 0; }

SEC("tp_btf/sys_exit")
int BPF_PROG(floor_sys_exit) { return 0; }

SEC("tp_btf/sched_waking")
int BPF_PROG(floor_sched_waking) { return 0; }

SEC("tp_btf/sched_switch")
int BPF_PROG(floor_sched_switch) { return 0; }
