// SPDX-License-Identifier: GPL-2.0-only
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "dict.h"
#include "irqs.h"
#include "tract/abi.h"
#include "util.h"

/* a thread's name is at most this long: a waker's name is one */
#define NAME_MAX_LEN 15

struct irqs {
	char *proc_root;
	struct dict *names;	/* label -> its name in pool */
	struct dict *pool;
};

struct irqs *irqs__new(const char *proc_root)
{
	struct irqs *irqs = xcalloc(1, sizeof(*irqs));

	irqs->proc_root = xstrdup(proc_root ? proc_root : "/proc");
	irqs->names = dict__new();
	irqs->pool = dict__new();
	return irqs;
}

void irqs__free(struct irqs *irqs)
{
	if (!irqs)
		return;
	dict__free(irqs->names);
	dict__free(irqs->pool);
	free(irqs->proc_root);
	free(irqs);
}

/* The kernel's softirq_to_name[], by vector. */
static const char *softirq_name(unsigned int vec)
{
	static const char *const names[] = {
		"HI", "TIMER", "NET_TX", "NET_RX", "BLOCK", "IRQ_POLL", "TASKLET", "SCHED", "HRTIMER", "RCU",
	};

	return vec < ARRAY_SIZE(names) ? names[vec] : NULL;
}

/*
 * The handler of irq in /proc/interrupts ("  24:  12  0  IO-APIC  5-edge  ACPI:Ged"):
 * its last word (the last handler's, of an irq shared by several), into out; 0 or -1.
 */
static int handler_name(const struct irqs *irqs, unsigned int irq, char *out, size_t len)
{
	char path[PATH_MAX], line[4096];
	int found = -1;
	FILE *f;

	snprintf(path, sizeof(path), "%s/interrupts", irqs->proc_root);
	f = fopen(path, "re");
	if (!f)
		return -1;
	while (found && fgets(line, sizeof(line), f)) {
		char *end, *word;
		unsigned long n = strtoul(line, &end, 10);

		if (end == line || *end != ':' || n != irq)
			continue;
		end = line + strlen(line);
		while (end > line && (end[-1] == '\n' || end[-1] == ' '))
			*--end = '\0';
		word = strrchr(line, ' ');
		if (word && word + 1 > strchr(line, ':') + 1) {
			snprintf(out, len, "%s", word + 1);
			found = 0;
		}
	}
	fclose(f);
	return found;
}

static void name_label(const struct irqs *irqs, uint32_t label, char *name, size_t len)
{
	unsigned int n = label & 0xffff;
	char handler[256];

	if (label == TRACT_WAKER_TIMER)
		snprintf(name, len, "timer");
	else if ((label & 0xffff0000u) == TRACT_WAKER_SOFTIRQ && softirq_name(n))
		snprintf(name, len, "softirq/%s", softirq_name(n));
	else if ((label & 0xffff0000u) == TRACT_WAKER_HARDIRQ) {
		int k = snprintf(name, len, "irq/%u", n);

		/* as the kernel names the irq's thread: cut where a thread's name is */
		if (k > 0 && (size_t)k + 2 < len && !handler_name(irqs, n, handler, sizeof(handler))) {
			size_t h = strnlen(handler, len - (size_t)k - 2);

			name[k] = '-';
			memcpy(name + k + 1, handler, h);
			name[k + 1 + h] = '\0';
		}
	} else
		snprintf(name, len, "irq");
}

const char *irqs__waker_name(struct irqs *irqs, uint32_t label)
{
	char name[NAME_MAX_LEN + 1];
	uint64_t *held;
	int added;

	if (label < TRACT_WAKER_KERNEL)
		return NULL;
	held = dict__value(irqs->names, dict__intern(irqs->names, &label, sizeof(label), &added));
	if (added) {
		name_label(irqs, label, name, sizeof(name));
		*held = (uintptr_t)dict__intern_str(irqs->pool, name);
	}
	return (const char *)(uintptr_t)*held;
}
