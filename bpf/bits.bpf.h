/* SPDX-License-Identifier: GPL-2.0-only */
/* Bit arithmetic of the histograms and hash tables. */
#ifndef TRACT_BITS_BPF_H
#define TRACT_BITS_BPF_H

#include "vmlinux.h"
#include <bpf/bpf_helpers.h>

/* Histogram bucket of a latency: the b with 2^(b-1) <= µs < 2^b. */
static __always_inline __u8 log2_us(__u64 ns)
{
	__u64 us = ns / 1000;
	__u8 b = 0;

	for (int i = 0; i < 31 && us; i++) {
		us >>= 1;
		b++;
	}
	return b;
}

/*
 * A key's entry in a CPU's running totals (abi.h): the CPU's row of 2^shift
 * entries, the key's place in it by Fibonacci hashing.
 */
static __always_inline __u32 totals_index(__u64 key, __u32 shift)
{
	return (bpf_get_smp_processor_id() << shift) + (__u32)((key * 0x9e3779b97f4a7c15ull) >> (64 - shift));
}

#endif
