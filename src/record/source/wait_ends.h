/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The sampled waits that ended, as the kernel side tells them
 * (bpf/wait_ends.bpf.h): drained at each pass into its wait_ends rows,
 * their times in UTC and each named by what ended it.
 */
#ifndef TRACT_WAIT_ENDS_H
#define TRACT_WAIT_ENDS_H

#include <stdint.h>
#include "sample.h"
#include "tract/abi.h"

struct wait_ends;

struct irqs;

/* Over the wait_ends ring buffer's fd, naming interrupts by irqs; NULL after a message. */
struct wait_ends *wait_ends__open(int ring_fd, struct irqs *irqs);
void wait_ends__free(struct wait_ends *we);
/* utc_us (a pass's ts_us) in boot time, for the kernel side's pass.boot_ns */
uint64_t wait_ends__boot_ns_of(uint64_t utc_us);
/* The waits that ended since the last drain, into p's wait_ends rows. */
void wait_ends__drain(struct wait_ends *we, struct pass *p);

/*
 * One record as a row: its boot times in UTC by utc_minus_boot_ns (the
 * realtime clock less the boot time clock, read together), its ender and
 * class named: kernel_ender the ender's name where no thread ran it (a
 * timer, an interrupt: irqs.h), else NULL.
 */
void wait_end_row__from(struct wait_end_row *row, const struct tract_wait_end *e, int64_t utc_minus_boot_ns,
			const char *kernel_ender);

#endif
