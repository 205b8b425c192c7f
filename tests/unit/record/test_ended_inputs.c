// SPDX-License-Identifier: GPL-2.0-only
/* What a wait's ender changes in the passes' count of rows waiting for input or on a timer. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>
#include "ended_inputs.h"
#include "tract/abi.h"

#define SEC 1000000ULL
/* 2026-01-01 00:00 UTC: an hour's first microsecond */
#define HOUR 1767225600000000ULL

static struct pass *pass_at(struct pass *p, uint64_t ts_us)
{
	pass__reset(p);
	p->ts_us = ts_us;
	p->weight_us = SEC;
	return p;
}

/* tid asleep in a read since asleep_us, its site's class wait_class (its activity: waiting, or input) */
static void reading(struct pass *p, uint32_t tid, uint64_t asleep_us, int wait_class)
{
	struct sample *r = pass__add_row(p);

	memset(r, 0, sizeof(*r));
	r->tid = r->tgid = tid;
	r->state = TRACT_STATE_SLEEP;
	r->syscall_nr = 0;	/* read */
	r->flags = TRACT_SF_STATE_TIME | TRACT_SF_SC_TIME;
	r->state_us = r->sc_us = p->ts_us - asleep_us;
	r->wait_class = (uint32_t)wait_class;
}

static void ended(struct pass *p, uint32_t tid, uint64_t start_us, uint64_t end_us, const char *wait_class)
{
	struct wait_end_row *w = wait_end_rows__add(&p->wait_ends);

	memset(w, 0, sizeof(*w));
	w->tid = w->tgid = tid;
	w->start_us = start_us;
	w->end_us = end_us;
	w->wait_class = wait_class;
}

/* A first wait at its site reads waiting until the network ends it: its rows become input in the end's pass. */
static void an_ender_moves_earlier_rows_into_input(void **state)
{
	struct ended_inputs *e = ended_inputs__new();
	struct pass p = { 0 };

	(void)state;
	for (int i = 0; i < 3; i++) {
		reading(pass_at(&p, HOUR + i * SEC), 7, HOUR - SEC / 2, TRACT_WAIT_UNKNOWN);
		if (i == 2)
			ended(&p, 7, HOUR - SEC / 2, HOUR + 2 * SEC + 10, "input");
		pass__count_load(&p);
		ended_inputs__take(e, &p);
		assert_int_equal(p.input_rows, 0);
		assert_int_equal(p.input_lost_us, 0);
		assert_int_equal(p.input_gained_us, i == 2 ? 3 * SEC : 0);
	}
	/* settled: another end of the thread finds nothing left */
	ended(pass_at(&p, HOUR + 3 * SEC), 7, HOUR - SEC / 2, HOUR + 3 * SEC, "input");
	ended_inputs__take(e, &p);
	assert_int_equal(p.input_gained_us, 0);
	pass__free_rows(&p);
	ended_inputs__free(e);
}

/* Counted input by its site, ended by a thread of its program: out of input. */
static void a_blocked_end_moves_them_out(void **state)
{
	struct ended_inputs *e = ended_inputs__new();
	struct pass p = { 0 };

	(void)state;
	reading(pass_at(&p, HOUR), 7, HOUR - SEC / 2, TRACT_WAIT_INPUT);
	pass__count_load(&p);
	ended_inputs__take(e, &p);
	assert_int_equal(p.input_rows, 1);
	ended(pass_at(&p, HOUR + SEC), 7, HOUR - SEC / 2, HOUR + SEC / 2, "blocked");
	ended_inputs__take(e, &p);
	assert_int_equal(p.input_lost_us, SEC);
	assert_int_equal(p.input_gained_us, 0);
	pass__free_rows(&p);
	ended_inputs__free(e);
}

/*
 * A thread that woke between two passes is in two waits: the first's end
 * changes its rows only; and rows of the hour before the end's, which the
 * query does not give the ender (another file), are left as counted.
 */
static void only_the_waits_own_rows_in_its_file(void **state)
{
	struct ended_inputs *e = ended_inputs__new();
	struct pass p = { 0 };

	(void)state;
	reading(pass_at(&p, HOUR - SEC), 7, HOUR - 2 * SEC, TRACT_WAIT_UNKNOWN);
	ended_inputs__take(e, &p);
	reading(pass_at(&p, HOUR), 7, HOUR - 2 * SEC, TRACT_WAIT_UNKNOWN);
	ended_inputs__take(e, &p);
	/* woke and slept again: a second wait */
	reading(pass_at(&p, HOUR + SEC), 7, HOUR + SEC / 2, TRACT_WAIT_UNKNOWN);
	ended(&p, 7, HOUR - 2 * SEC, HOUR + SEC / 4, "sleeping");
	ended_inputs__take(e, &p);
	assert_int_equal(p.input_gained_us, SEC);
	ended(pass_at(&p, HOUR + 2 * SEC), 7, HOUR + SEC / 2, HOUR + 2 * SEC, "input");
	ended_inputs__take(e, &p);
	assert_int_equal(p.input_gained_us, SEC);
	pass__free_rows(&p);
	ended_inputs__free(e);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(an_ender_moves_earlier_rows_into_input),
		cmocka_unit_test(a_blocked_end_moves_them_out),
		cmocka_unit_test(only_the_waits_own_rows_in_its_file),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
