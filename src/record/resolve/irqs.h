/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Names for the wakers that are no thread (TRACT_WAKER_* labels): a timer,
 * an interrupt the kernel did not name ("irq"), a softirq by its vector
 * ("softirq/NET_RX") and a hard irq by its number and handler, as the
 * kernel names that interrupt's thread ("irq/24-virtio0-i": 15 bytes at
 * most, as every thread name), the handler's from /proc/interrupts.
 */
#ifndef TRACT_IRQS_H
#define TRACT_IRQS_H

#include <stdint.h>

struct irqs;

struct irqs *irqs__new(const char *proc_root);
void irqs__free(struct irqs *irqs);
/* The label's name, held as long as irqs; NULL for a thread's id (below TRACT_WAKER_KERNEL). */
const char *irqs__waker_name(struct irqs *irqs, uint32_t label);

#endif
