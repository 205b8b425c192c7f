// SPDX-License-Identifier: GPL-2.0-only
#include <errno.h>
#include <stddef.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>
#include "seccomp.h"
#include "util.h"

#if defined(__x86_64__)
#define TRACT_AUDIT_ARCH AUDIT_ARCH_X86_64
#elif defined(__aarch64__)
#define TRACT_AUDIT_ARCH AUDIT_ARCH_AARCH64
#endif

/* a deny list: what the recorder needs (bpf on its maps, /proc, files, the network) stays open */
static const int forbidden[] = {
#ifdef SYS_execve
	SYS_execve,
#endif
	SYS_execveat,
#if !defined(__SANITIZE_ADDRESS__)
	/* (LeakSanitizer stops the world at exit with ptrace: a sanitizer build keeps it) */
	SYS_ptrace,
#endif
	SYS_process_vm_writev, SYS_mount, SYS_umount2, SYS_pivot_root,
	SYS_chroot, SYS_setns, SYS_unshare, SYS_kexec_load, SYS_kexec_file_load, SYS_init_module,
	SYS_finit_module, SYS_delete_module, SYS_reboot, SYS_swapon, SYS_swapoff, SYS_keyctl,
	SYS_add_key, SYS_request_key, SYS_userfaultfd, SYS_open_by_handle_at, SYS_name_to_handle_at,
	SYS_fsopen, SYS_fsmount, SYS_move_mount, SYS_open_tree,
};

int seccomp_forbid(void)
{
#ifdef TRACT_AUDIT_ARCH
	struct sock_filter prog[5 + 2 * ARRAY_SIZE(forbidden)];
	struct sock_fprog fprog = { .filter = prog };
	size_t n = 0;

	/* another architecture's calls (i386 on x86_64) have other numbers: refused whole */
	prog[n++] = (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, arch));
	prog[n++] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, TRACT_AUDIT_ARCH, 1, 0);
	prog[n++] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | EPERM);
	prog[n++] = (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr));
	for (size_t i = 0; i < ARRAY_SIZE(forbidden); i++) {
		prog[n++] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, (unsigned int)forbidden[i], 0, 1);
		prog[n++] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | EPERM);
	}
	prog[n++] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW);
	fprog.len = (unsigned short)n;
	return syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, &fprog) ? -errno : 0;
#else
	return -ENOTSUP;
#endif
}
