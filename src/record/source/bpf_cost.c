// SPDX-License-Identifier: GPL-2.0-only
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "bpf_cost.h"
#include "util.h"

struct bpf_cost {
	int *fds;			/* the object's loaded programs */
	size_t nr;
	int pass_fd;			/* the task iterator's, -1 if not loaded */
	const volatile uint64_t *callbacks_ns;
	uint64_t pass_runs;		/* its run count at the previous pass */
	struct bpf_cost_mark mark;
};

/* A program's run time and run count: both stay still while the stats are off. */
static int prog_stats(int fd, uint64_t *run_ns, uint64_t *runs)
{
	struct bpf_prog_info info;
	__u32 len = sizeof(info);

	memset(&info, 0, sizeof(info));
	if (bpf_obj_get_info_by_fd(fd, &info, &len))
		return -errno;
	*run_ns = info.run_time_ns;
	*runs = info.run_cnt;
	return 0;
}

/* Every program's run time, and its timer callbacks', summed; -errno if one cannot be read. */
static int total_run_ns(const struct bpf_cost *c, uint64_t *total)
{
	uint64_t run_ns, runs;
	int err;

	*total = 0;
	for (size_t i = 0; i < c->nr; i++) {
		if ((err = prog_stats(c->fds[i], &run_ns, &runs)))
			return err;
		*total += run_ns;
	}
	*total += *c->callbacks_ns;
	return 0;
}

static int stats_enabled(void)
{
	FILE *f = fopen("/proc/sys/kernel/bpf_stats_enabled", "re");
	int on = 0;

	if (f) {
		if (fscanf(f, "%d", &on) != 1)
			on = 0;
		fclose(f);
	}
	return on == 1;
}

struct bpf_cost *bpf_cost__new(const struct bpf_object *obj, const struct bpf_program *pass_prog,
			       const volatile uint64_t *callbacks_ns)
{
	struct bpf_cost *c = xcalloc(1, sizeof(*c));
	struct bpf_program *prog;
	uint64_t run_ns;
	size_t cap = 0;

	bpf_object__for_each_program(prog, obj) {
		/* a program the options left out is not loaded */
		if (bpf_program__fd(prog) < 0)
			continue;
		ARRAY_GROW(c->fds, c->nr, cap, 16);
		c->fds[c->nr++] = bpf_program__fd(prog);
	}
	c->callbacks_ns = callbacks_ns;
	c->pass_fd = bpf_program__fd(pass_prog);
	if (c->pass_fd < 0 || prog_stats(c->pass_fd, &run_ns, &c->pass_runs))
		c->pass_fd = -1;
	/* the programs run from here on: with the stats on, the first pass counts from now */
	c->mark.counted = stats_enabled() && !total_run_ns(c, &c->mark.run_ns);
	return c;
}

void bpf_cost__pass(struct bpf_cost *c, struct pass *p)
{
	uint64_t run_ns = 0, runs;
	int counted = 0;

	/*
	 * The iterator runs in every pass and its run count moves only with
	 * the stats on, so it tells for each pass where the sysctl may not:
	 * stats turned on by a BPF_ENABLE_STATS descriptor leave it at 0.
	 * The other programs are asked only then.
	 */
	if (c->pass_fd >= 0 && !prog_stats(c->pass_fd, &run_ns, &runs)) {
		counted = runs != c->pass_runs;
		c->pass_runs = runs;
	}
	if (counted && total_run_ns(c, &run_ns))
		counted = 0;
	bpf_cost_mark__pass(&c->mark, counted, run_ns, p);
}

void bpf_cost_mark__pass(struct bpf_cost_mark *m, int counted, uint64_t run_ns, struct pass *p)
{
	/*
	 * Counted at the previous pass and at this one: on between them too,
	 * but for a switch off and on again within one interval.  Differences
	 * of whole microseconds, so the passes' figures add up to the total.
	 */
	if (counted && m->counted && run_ns >= m->run_ns) {
		p->bpf_us = run_ns / 1000 - m->run_ns / 1000;
		p->has_bpf_us = 1;
	}
	m->counted = counted;
	if (counted)
		m->run_ns = run_ns;
}

void bpf_cost__free(struct bpf_cost *c)
{
	if (!c)
		return;
	free(c->fds);
	free(c);
}
