// SPDX-License-Identifier: GPL-2.0-only
/* The wakers that are no thread, named: timers, softirqs, hard irqs by /proc/interrupts. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include "irqs.h"
#include "tract/abi.h"

static void every_kind_is_named(void **state)
{
	char root[] = "/tmp/tract-test-irqs-XXXXXX", path[600], cmd[700];
	struct irqs *irqs;
	FILE *f;

	(void)state;
	assert_non_null(mkdtemp(root));
	snprintf(path, sizeof(path), "%s/interrupts", root);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs("           CPU0       CPU1       \n"
	      "  1:          9          0  IO-APIC   1-edge      i8042\n"
	      " 24:         12          0  PCI-MSIX-0000:00:01.0   0-edge      virtio0-input.0\n"
	      " 30:          0          0  IO-APIC  16-fasteoi   ehci_hcd:usb1, ahci\n"
	      "NMI:          0          0   Non-maskable interrupts\n", f);
	fclose(f);
	irqs = irqs__new(root);
	assert_null(irqs__waker_name(irqs, 4242));
	assert_string_equal(irqs__waker_name(irqs, TRACT_WAKER_TIMER), "timer");
	assert_string_equal(irqs__waker_name(irqs, TRACT_WAKER_IRQ), "irq");
	assert_string_equal(irqs__waker_name(irqs, TRACT_WAKER_SOFTIRQ | 3), "softirq/NET_RX");
	assert_string_equal(irqs__waker_name(irqs, TRACT_WAKER_SOFTIRQ | 4), "softirq/BLOCK");
	/* as the kernel names an irq's thread: 15 bytes at most */
	assert_string_equal(irqs__waker_name(irqs, TRACT_WAKER_HARDIRQ | 24), "irq/24-virtio0-");
	assert_string_equal(irqs__waker_name(irqs, TRACT_WAKER_HARDIRQ | 1), "irq/1-i8042");
	/* shared: the last handler's; not in the file: the number alone */
	assert_string_equal(irqs__waker_name(irqs, TRACT_WAKER_HARDIRQ | 30), "irq/30-ahci");
	assert_string_equal(irqs__waker_name(irqs, TRACT_WAKER_HARDIRQ | 77), "irq/77");
	/* a vector the kernel has no name for: an irq */
	assert_string_equal(irqs__waker_name(irqs, TRACT_WAKER_SOFTIRQ | 99), "irq");
	irqs__free(irqs);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
	assert_int_equal(system(cmd), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(every_kind_is_named),
	};
	return cmocka_run_group_tests_name("irqs", tests, NULL, NULL);
}
