/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * What tract's own BPF programs cost between one pass and the next: their
 * run time summed, as the kernel counts it while kernel.bpf_stats_enabled
 * is on.  With the stats off nothing is counted, and a pass says "not
 * measured" (has_bpf_us 0), never "free".
 */
#ifndef TRACT_BPF_COST_H
#define TRACT_BPF_COST_H

#include <stdint.h>
#include "sample.h"

struct bpf_object;
struct bpf_program;
struct bpf_cost;

/*
 * The loaded programs of obj; pass_prog runs in every pass (the task
 * iterator), so its run count tells whether the stats were on for a pass.
 * callbacks_ns: the run time of the programs' timer callbacks, which the
 * kernel counts as no program's and the programs sum themselves.
 */
struct bpf_cost *bpf_cost__new(const struct bpf_object *obj, const struct bpf_program *pass_prog,
			       const volatile uint64_t *callbacks_ns);
/* Sets p->bpf_us to the programs' run time since the previous call, where it was counted throughout. */
void bpf_cost__pass(struct bpf_cost *c, struct pass *p);
void bpf_cost__free(struct bpf_cost *c);

/* The programs' summed run time at the previous pass, which the next one counts from. */
struct bpf_cost_mark {
	uint64_t run_ns;
	int counted;		/* the stats were on at that pass: run_ns is one to count from */
};

/*
 * One pass: counted says the stats were on for it, run_ns is the programs'
 * summed run time now.  p gets the time since the mark when both passes
 * were counted; the mark moves on either way.
 */
void bpf_cost_mark__pass(struct bpf_cost_mark *m, int counted, uint64_t run_ns, struct pass *p);

#endif
