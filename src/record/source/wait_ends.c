// SPDX-License-Identifier: GPL-2.0-only
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <bpf/libbpf.h>
#include "value_names.h"
#include "irqs.h"
#include "wait_ends.h"
#include "util.h"

struct wait_ends {
	struct ring_buffer *ring;
	struct pass *p;			/* the pass being drained into */
	int64_t utc_minus_boot_ns;	/* read at the drain */
	struct irqs *irqs;
};

static uint64_t to_utc_us(uint64_t boot_ns, int64_t utc_minus_boot_ns)
{
	int64_t ns = (int64_t)boot_ns + utc_minus_boot_ns;

	return ns > 0 ? (uint64_t)ns / 1000 : 0;
}

void wait_end_row__from(struct wait_end_row *row, const struct tract_wait_end *e, int64_t utc_minus_boot_ns,
			const char *kernel_ender)
{
	int by_thread = e->ender_tid < TRACT_WAKER_KERNEL;

	row->tid = e->tid;
	row->tgid = e->tgid;
	row->start_us = to_utc_us(e->start_ns, utc_minus_boot_ns);
	row->end_us = to_utc_us(e->end_ns, utc_minus_boot_ns);
	/* the start is a sample's estimate, on another clock: never after the end */
	if (row->start_us > row->end_us)
		row->start_us = row->end_us;
	row->ender_tid = by_thread ? e->ender_tid : 0;
	row->ender_tgid = by_thread ? e->ender_tgid : 0;
	memset(row->ender, 0, sizeof(row->ender));
	if (by_thread)
		memcpy(row->ender, e->ender_comm, sizeof(row->ender) - 1);
	else
		snprintf(row->ender, sizeof(row->ender), "%s", kernel_ender ? kernel_ender : "irq");
	row->wait_class = wait_class_name(e->wait_class);
	if (!row->wait_class)
		row->wait_class = "input";
}

static int take_wait_end(void *ctx, void *data, size_t size)
{
	struct wait_ends *we = ctx;
	struct tract_wait_end e;

	if (size < sizeof(e))
		return 0;
	memcpy(&e, data, sizeof(e));
	wait_end_row__from(wait_end_rows__add(&we->p->wait_ends), &e, we->utc_minus_boot_ns,
			   irqs__waker_name(we->irqs, e.ender_tid));
	return 0;
}

struct wait_ends *wait_ends__open(int ring_fd, struct irqs *irqs)
{
	struct wait_ends *we = xcalloc(1, sizeof(*we));

	we->irqs = irqs;
	we->ring = ring_buffer__new(ring_fd, take_wait_end, we, NULL);
	if (!we->ring) {
		tract_err("cannot read the waits that end: %s", strerror(errno));
		free(we);
		return NULL;
	}
	return we;
}

void wait_ends__free(struct wait_ends *we)
{
	if (!we)
		return;
	ring_buffer__free(we->ring);
	free(we);
}

static int64_t clock_ns(clockid_t id)
{
	struct timespec ts;

	clock_gettime(id, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

uint64_t wait_ends__boot_ns_of(uint64_t utc_us)
{
	int64_t boot = clock_ns(CLOCK_BOOTTIME), ago = clock_ns(CLOCK_REALTIME) - (int64_t)utc_us * 1000;

	return boot > ago ? (uint64_t)(boot - ago) : 0;
}

void wait_ends__drain(struct wait_ends *we, struct pass *p)
{
	int64_t boot = clock_ns(CLOCK_BOOTTIME), utc = clock_ns(CLOCK_REALTIME);

	/* the boot clock read on both sides of the realtime one: their offset to within the reads' time */
	boot = boot / 2 + clock_ns(CLOCK_BOOTTIME) / 2;
	we->utc_minus_boot_ns = utc - boot;
	we->p = p;
	ring_buffer__consume(we->ring);
	we->p = NULL;
}
