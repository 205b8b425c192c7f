// SPDX-License-Identifier: GPL-2.0-only
/* Chains of lock holders at a pass: roots, lengths, cycles, and holders the C library named checked. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include "chains.h"

/* A row of tid in process tgid, waiting for holder (0: none), named by the kernel or (user) the C library. */
static struct sample *row(struct pass *p, uint32_t tid, uint32_t tgid, uint32_t holder, int user)
{
	struct sample *r = pass__add_row(p);

	r->tid = tid;
	r->tgid = tgid;
	r->blocker_tid = holder;
	if (holder)
		r->flags |= user ? TRACT_SF_BLOCKER_USER : TRACT_SF_BLOCKER;
	return r;
}

static const struct sample *find(const struct pass *p, uint32_t tid)
{
	for (size_t i = 0; i < p->nr; i++)
		if (p->rows[i].tid == tid)
			return &p->rows[i];
	fail_msg("no row of %u", tid);
	return NULL;
}

static void chain_is(const struct pass *p, uint32_t tid, uint32_t holder, uint32_t root, uint32_t len, uint32_t cycle)
{
	const struct sample *r = find(p, tid);

	assert_int_equal(r->blocker_tid, holder);
	if (!holder)
		return;
	assert_int_equal(r->chain_root_tid, root);
	assert_int_equal(r->chain_len, len);
	assert_int_equal(r->chain_cycle, cycle);
}

/* Live threads, as /proc would say: 10..19 of process 1, 30 of process 3. */
static int alive(void *arg, uint32_t tgid, uint32_t tid)
{
	(*(int *)arg)++;
	return (tgid == 1 && tid >= 10 && tid < 20) || (tgid == 3 && tid == 30);
}

static void two_waiters_one_holder(void **state)
{
	struct pass p = { 0 };

	(void)state;
	row(&p, 12, 1, 11, 1);
	row(&p, 11, 1, 0, 0);
	row(&p, 13, 1, 11, 1);
	chains__resolve(&p, NULL, NULL);
	chain_is(&p, 12, 11, 11, 1, 0);
	chain_is(&p, 13, 11, 11, 1, 0);
	chain_is(&p, 11, 0, 0, 0, 0);
	pass__free_rows(&p);
}

/* top waits for mid, who waits for root, who waits for nothing named */
static void a_chain_names_its_root(void **state)
{
	struct pass p = { 0 };

	(void)state;
	row(&p, 10, 1, 11, 0);
	row(&p, 11, 1, 12, 1);
	row(&p, 12, 1, 0, 0);
	chains__resolve(&p, NULL, NULL);
	chain_is(&p, 10, 11, 12, 2, 0);
	chain_is(&p, 11, 12, 12, 1, 0);
	pass__free_rows(&p);
}

/* A holder the pass has no row of ends the chain: it is the root. */
static void a_holder_not_sampled_is_the_root(void **state)
{
	struct pass p = { 0 };
	int asked = 0;

	(void)state;
	row(&p, 10, 1, 11, 0);
	row(&p, 11, 1, 15, 1);
	chains__resolve(&p, alive, &asked);
	chain_is(&p, 10, 11, 15, 2, 0);
	chain_is(&p, 11, 15, 15, 1, 0);
	assert_int_equal(asked, 1);
	pass__free_rows(&p);
}

static void a_deadlock_is_a_cycle(void **state)
{
	struct pass p = { 0 };

	(void)state;
	row(&p, 17, 1, 14, 1);
	row(&p, 14, 1, 17, 1);
	/* and one waiting for a thread of the cycle: its chain closes too */
	row(&p, 19, 1, 17, 1);
	chains__resolve(&p, NULL, NULL);
	chain_is(&p, 17, 14, 14, 2, 1);
	chain_is(&p, 14, 17, 14, 2, 1);
	chain_is(&p, 19, 17, 14, 3, 1);
	pass__free_rows(&p);
}

/* Three kernel tasks in a ring, the lowest tid last: every one has the same root. */
static void a_ring_has_one_root(void **state)
{
	struct pass p = { 0 };

	(void)state;
	row(&p, 50, 5, 40, 0);
	row(&p, 40, 4, 30, 0);
	row(&p, 30, 3, 50, 0);
	chains__resolve(&p, NULL, NULL);
	chain_is(&p, 50, 40, 30, 3, 1);
	chain_is(&p, 40, 30, 30, 3, 1);
	chain_is(&p, 30, 50, 30, 3, 1);
	pass__free_rows(&p);
}

/*
 * What the C library's memory names is checked: a row of another process,
 * a thread that is not alive, the waiter itself are no holders.  A kernel
 * lock's holder may be of any process.
 */
static void a_foreign_or_stale_word_names_no_one(void **state)
{
	struct pass p = { 0 };
	int asked = 0;

	(void)state;
	row(&p, 30, 3, 0, 0);
	row(&p, 10, 1, 30, 1);		/* a row of process 3 */
	row(&p, 11, 1, 99, 1);		/* no such thread */
	row(&p, 12, 1, 12, 1);		/* itself */
	row(&p, 13, 1, 30, 0);		/* the kernel's word: stands */
	row(&p, 14, 1, 18, 1);		/* alive, not sampled: stands */
	chains__resolve(&p, alive, &asked);
	chain_is(&p, 10, 0, 0, 0, 0);
	chain_is(&p, 11, 0, 0, 0, 0);
	chain_is(&p, 12, 0, 0, 0, 0);
	chain_is(&p, 13, 30, 30, 1, 0);
	chain_is(&p, 14, 18, 18, 1, 0);
	assert_int_equal(asked, 2);
	/* without a way to ask, a holder that is no row stands not */
	pass__free_rows(&p);
	p = (struct pass){ 0 };
	row(&p, 14, 1, 18, 1);
	chains__resolve(&p, NULL, NULL);
	chain_is(&p, 14, 0, 0, 0, 0);
	pass__free_rows(&p);
}

/* A chain longer than CHAIN_MAX ends where it was cut; a pass with no holder is left as it is. */
static void long_chains_end_and_quiet_passes_stay(void **state)
{
	struct pass p = { 0 };

	(void)state;
	for (uint32_t t = 1000; t < 1000 + 2 * CHAIN_MAX; t++)
		row(&p, t, 7, t + 1, 0);
	chains__resolve(&p, NULL, NULL);
	assert_int_equal(find(&p, 1000)->chain_len, CHAIN_MAX);
	assert_int_equal(find(&p, 1000)->chain_cycle, 0);
	assert_int_equal(find(&p, 1000 + 2 * CHAIN_MAX - 1)->chain_root_tid, 1000 + 2 * CHAIN_MAX);
	pass__free_rows(&p);
	p = (struct pass){ 0 };
	row(&p, 5, 5, 0, 0);
	chains__resolve(&p, NULL, NULL);
	assert_int_equal(find(&p, 5)->chain_root_tid, 0);
	pass__free_rows(&p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(two_waiters_one_holder),
		cmocka_unit_test(a_chain_names_its_root),
		cmocka_unit_test(a_holder_not_sampled_is_the_root),
		cmocka_unit_test(a_deadlock_is_a_cycle),
		cmocka_unit_test(a_ring_has_one_root),
		cmocka_unit_test(a_foreign_or_stale_word_names_no_one),
		cmocka_unit_test(long_chains_end_and_quiet_passes_stay),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
