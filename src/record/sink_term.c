// SPDX-License-Identifier: GPL-2.0-only
/* Each pass as an aligned table on the terminal: what `tract record` shows without -o. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "value_names.h"
#include "writer.h"
#include "sink.h"
#include "stackdict.h"
#include "syscalls.h"
#include "util.h"

struct sink_term {
	struct sink base;
	FILE *f;
};

static int cmp_rows(const void *a, const void *b)
{
	const struct sample *x = a, *y = b;
	int c;

	if (x->state != y->state)
		return x->state - y->state;
	c = strcmp(x->pcomm, y->pcomm);
	if (c)
		return c;
	return x->tid < y->tid ? -1 : x->tid > y->tid;
}

/* A time so far in the unit a person reads it in: 7.6ms, 12.5s, 62min, 5.1h. */
static void format_time(char *buf, size_t len, int valid, uint64_t us)
{
	if (!valid)
		snprintf(buf, len, "-");
	else if (us < 1000000)
		snprintf(buf, len, "%.1fms", us / 1e3);
	else if (us < 60 * 1000000ull)
		snprintf(buf, len, "%.1fs", us / 1e6);
	else if (us < 120 * 60 * 1000000ull)
		snprintf(buf, len, "%.0fmin", us / 60e6);
	else
		snprintf(buf, len, "%.1fh", us / 3600e6);
}

static int term_write_pass(struct sink *base, const struct pass *p)
{
	struct sink_term *t = (struct sink_term *)base;
	struct sample *rows = xcalloc(p->nr, sizeof(*rows));
	time_t secs = p->ts_us / 1000000;
	char when[32];
	struct tm tm;

	memcpy(rows, p->rows, p->nr * sizeof(*rows));
	qsort(rows, p->nr, sizeof(*rows), cmp_rows);
	gmtime_r(&secs, &tm);
	strftime(when, sizeof(when), "%H:%M:%S", &tm);
	fprintf(t->f, "\n%s.%03u UTC  pass %llu: %zu active of %llu threads%s\n", when,
		(unsigned)(p->ts_us / 1000 % 1000), (unsigned long long)p->seq, p->nr,
		(unsigned long long)p->selected, p->dropped ? "  (rows dropped!)" : "");
	fprintf(t->f, "%8s %-16s %-16s %-5s %3s %-16s %9s %10s  %s\n", "TID", "PROCESS", "THREAD",
		"STATE", "CPU", "SYSCALL", "SC_TIME", "STATE_TIME", "WAITING IN / ON");
	for (size_t i = 0; i < p->nr; i++) {
		const struct sample *r = &rows[i];
		char comm[TRACT_COMM_LEN], pcomm[TRACT_COMM_LEN], sc[32], sc_ms[24], st_ms[24];

		/* thread names are bytes: keep control characters off the terminal */
		printable_copy(comm, sizeof(comm), r->comm, sizeof(r->comm));
		printable_copy(pcomm, sizeof(pcomm), r->pcomm, sizeof(r->pcomm));
		if (r->syscall_nr < 0)
			snprintf(sc, sizeof(sc), "-");
		else
			syscall_name_or_number(r->syscall_nr, sc, sizeof(sc));
		format_time(sc_ms, sizeof(sc_ms), r->syscall_nr >= 0 && (r->flags & TRACT_SF_SC_TIME), r->sc_us);
		format_time(st_ms, sizeof(st_ms), r->flags & TRACT_SF_STATE_TIME, r->state_us);
		fprintf(t->f, "%8u %-16s %-16s %-5s %3u %-16s %9s %10s  %s", r->tid, pcomm, comm,
			state_name(r->state), r->cpu, sc, sc_ms, st_ms, r->kstack ? r->kstack->wait : "-");
		/* what it waits on: the block request, else the file or socket */
		if (r->io_op)
			fprintf(t->f, "  %s %s %u bytes, %.1f ms", r->io_dev, r->io_op, r->io_bytes,
				r->io_us / 1000.0);
		else if (r->file)
			fprintf(t->f, "  %s%s%s", r->file, r->io_dev ? " on " : "", r->io_dev ? r->io_dev : "");
		fputc('\n', t->f);
	}
	free(rows);
	fflush(t->f);
	return ferror(t->f) ? -EIO : 0;
}

static void term_close(struct sink *base)
{
	free(base);
}

static const struct sink_ops term_ops = {
	.write_pass = term_write_pass,
	.close = term_close,
};

struct sink *sink_term__new(FILE *f)
{
	struct sink_term *t = xcalloc(1, sizeof(*t));

	t->base.ops = &term_ops;
	t->f = f;
	return &t->base;
}
