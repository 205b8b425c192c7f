// SPDX-License-Identifier: GPL-2.0-only
/*
 * A host whose processes come and go: after 5,000 of them have ended, the
 * recorder holds nothing of theirs (their user stacks once no queued pass
 * can point at them, their names and executables), while a process still
 * alive keeps all it had; and their histogram rows and wakeup edges go into
 * one row per command, the rows past a take's budget too.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include "dict.h"
#include "hist_fold.h"
#include "pass_tables.h"
#include "procinfo.h"
#include "stackdict.h"

#define ENDED 5000
#define ALIVE 1		/* the pid of a process that stays */

static void the_stacks_of_ended_processes_go_after_their_grace(void **state)
{
	struct stackdict *sd = stackdict__new(NULL, NULL);
	uint64_t ip[3] = { 0x401000, 0x402000, 0x403000 };
	const struct kstack *alive;

	(void)state;
	alive = stackdict__add_user(sd, 1, ALIVE, ip, 3, 0);
	for (uint32_t pid = 100; pid < 100 + ENDED; pid++) {
		ip[0] = pid;
		stackdict__add_user(sd, (uint64_t)pid << 16, pid, ip, 3, 0);
		stackdict__add(sd, 7, ip, 3);	/* a kernel stack, shared by all */
	}
	assert_int_equal(stackdict__size(sd), ENDED + 2);
	for (uint32_t pid = 100; pid < 100 + ENDED; pid++)
		stackdict__forget_process(sd, pid, 0);
	/* a queued pass may still point at them: kept for a while */
	stackdict__end_pass(sd);
	assert_int_equal(stackdict__size(sd), ENDED + 2);
	assert_non_null(stackdict__get(sd, (uint64_t)100 << 16));
	for (int i = 0; i < 100; i++)
		stackdict__end_pass(sd);
	/* then gone, but for the living process's and the kernel's */
	assert_int_equal(stackdict__size(sd), 2);
	assert_null(stackdict__get(sd, (uint64_t)100 << 16));
	assert_ptr_equal(stackdict__get(sd, 1), alive);
	assert_non_null(stackdict__get(sd, 7));
	stackdict__free(sd);
}

/*
 * Kernel stacks belong to no process: the on-CPU profile's come new with
 * every address a tick falls on.  Those no pass asks for again go; those
 * the passes keep asking for stay, under their hash, with their frames.
 */
static void kernel_stacks_no_pass_asks_for_go(void **state)
{
	struct stackdict *sd = stackdict__new(NULL, NULL);
	uint64_t ip[3] = { 0xffffffff81000000ull, 0xffffffff81001000ull, 0xffffffff81002000ull };
	const struct kstack *kept, *asked;
	char frames[256];

	(void)state;
	kept = stackdict__add(sd, 1, ip, 3);
	snprintf(frames, sizeof(frames), "%s", kept->frames);
	for (uint64_t raw = 2; raw < 2 + ENDED; raw++) {
		ip[0] = 0xffffffff81000000ull + raw;
		stackdict__add(sd, raw, ip, 3);
	}
	assert_int_equal(stackdict__size(sd), ENDED + 1);
	for (int i = 0; i < 2 * STACKDICT_KSTACK_IDLE_PASSES; i++) {
		assert_ptr_equal(stackdict__get(sd, 1), kept);
		stackdict__end_pass(sd);
	}
	assert_int_equal(stackdict__size(sd), 1);
	assert_null(stackdict__get(sd, 2));
	asked = stackdict__get(sd, 1);
	assert_ptr_equal(asked, kept);
	assert_string_equal(asked->frames, frames);
	/* one asked for again within the time is not freed: the profile adds its stacks again */
	ip[0] = 0xffffffff81000000ull + 2;
	stackdict__add(sd, 2, ip, 3);
	for (int i = 0; i < STACKDICT_KSTACK_IDLE_PASSES / 2; i++)
		stackdict__end_pass(sd);
	assert_non_null(stackdict__get(sd, 2));
	stackdict__free(sd);
}

static void stacks_that_read_alike_share_their_frames(void **state)
{
	struct stackdict *sd = stackdict__new(NULL, NULL);
	uint64_t ip[3] = { 0x401000, 0x402000, 0x403000 };
	const struct kstack *a, *b, *k1, *k2;

	(void)state;
	/* the same code in two processes: a stack each, one text */
	a = stackdict__add_user(sd, 1, 100, ip, 3, 0);
	b = stackdict__add_user(sd, 2, 200, ip, 3, 0);
	assert_ptr_not_equal(a, b);
	assert_int_equal(a->tgid, 100);
	assert_int_equal(b->tgid, 200);
	assert_ptr_equal(a->frames, b->frames);
	assert_true(a->hash == b->hash);
	/* kernel stacks under two raw hashes that fold to the same names */
	k1 = stackdict__add(sd, 7, ip, 3);
	k2 = stackdict__add(sd, 8, ip, 3);
	assert_ptr_equal(k1->frames, k2->frames);
	/* the first process ends: the other's stack reads as before */
	for (uint32_t pid = 1000; pid < 1000 + 300; pid++) {
		stackdict__add_user(sd, (uint64_t)pid << 16, pid, ip, 3, 0);
		stackdict__forget_process(sd, pid, 0);
	}
	stackdict__forget_process(sd, 100, 0);
	for (int i = 0; i < 100; i++)
		stackdict__end_pass(sd);
	assert_null(stackdict__get(sd, 1));
	assert_ptr_equal(stackdict__get(sd, 2), b);
	assert_string_equal(b->frames, "[gone]");
	assert_int_equal(stackdict__size(sd), 3);
	stackdict__free(sd);
}

static void names_and_executables_of_ended_processes_go(void **state)
{
	struct procinfo *pi = procinfo__new("/nonexistent");
	char name[16];

	(void)state;
	procinfo__saw(pi, ALIVE, "init");
	for (uint32_t pid = 100; pid < 100 + ENDED; pid++) {
		snprintf(name, sizeof(name), "p%u", pid % 7);
		procinfo__saw(pi, pid, name);
		procinfo__exe(pi, pid, pid, name);
	}
	procinfo__trim(pi);
	assert_true(procinfo__size(pi) >= 2 * ENDED);
	for (uint32_t pid = 100; pid < 100 + ENDED; pid++)
		procinfo__forget(pi, pid);
	procinfo__trim(pi);
	assert_int_equal(procinfo__size(pi), 1);
	assert_string_equal(procinfo__name(pi, ALIVE), "init");
	assert_null(procinfo__name(pi, 100));
	procinfo__free(pi);
}

static struct hist_row row(uint32_t tgid, const char *name, const char *what, uint64_t le, uint64_t count)
{
	return (struct hist_row){ .tgid = tgid, .name = name, .what = what, .le_us = le, .count = count,
				  .sum_us = count * le };
}

static void short_lived_processes_fold_into_their_command(void **state)
{
	struct hist_rows h = { 0 };
	struct dict *fold = dict__new();
	uint64_t total = 0, kept = 0;
	int added;

	(void)state;
	*hist_rows__add(&h) = row(ALIVE, "init", "read", 8, 5);
	for (uint32_t pid = 100; pid < 100 + ENDED; pid++) {
		*hist_rows__add(&h) = row(pid, pid % 2 ? "sh" : "true", "read", 8, 2);
		*hist_rows__add(&h) = row(pid, pid % 2 ? "sh" : "true", "execve", 1024, 1);
		dict__intern(fold, &pid, sizeof(pid), &added);
	}
	for (size_t i = 0; i < h.nr; i++)
		total += h.rows[i].count;
	assert_int_equal(hist_rows__fold(&h, &pass_tables[PT_syscall_latency], fold, 4096), 2 * ENDED);
	/* the living process's row, and one per command, syscall and bucket */
	assert_int_equal(h.nr, 5);
	for (size_t i = 0; i < h.nr; i++) {
		kept += h.rows[i].count;
		if (strcmp(h.rows[i].name, "init"))
			assert_int_equal(h.rows[i].tgid, 0);
		else
			assert_int_equal(h.rows[i].tgid, ALIVE);
		if (!strcmp(h.rows[i].name, "sh") && !strcmp(h.rows[i].what, "read")) {
			assert_int_equal(h.rows[i].count, ENDED);	/* 2,500 of them, 2 each */
			assert_int_equal(h.rows[i].sum_us, 8 * ENDED);	/* their latencies added up too */
		}
	}
	assert_int_equal(kept, total);
	free(h.rows);
	dict__free(fold);
}

static void past_the_budget_the_quietest_processes_fold(void **state)
{
	struct hist_rows h = { 0 };
	struct dict *none = dict__new();
	size_t own = 0;

	(void)state;
	/* 200 long-lived processes of 20 rows each, one of them far busier */
	for (uint32_t pid = 1; pid <= 200; pid++)
		for (uint64_t b = 0; b < 20; b++)
			*hist_rows__add(&h) = row(pid, "worker", "read", 1ull << b, pid == 7 ? 1000000 : pid);
	hist_rows__fold(&h, &pass_tables[PT_syscall_latency], none, 1000);
	for (size_t i = 0; i < h.nr; i++)
		own += h.rows[i].tgid != 0;
	assert_true(own <= 1000);
	assert_true(h.nr <= 1000 + 20);
	/* the busiest keeps rows of its own */
	for (size_t i = 0; i < h.nr; i++)
		if (h.rows[i].count == 1000000)
			assert_int_equal(h.rows[i].tgid, 7);
	free(h.rows);
	dict__free(none);
}

static const char *keep_copy(void *arg, const char *s)
{
	struct pass *p = arg;

	return pass__keep_str(p, s);
}

/* A command run every take makes one row per syscall and bucket every ten seconds, not every take. */
static void a_commands_rows_are_held_over_takes(void **state)
{
	struct hist_hold hold = { 0 };
	struct pass p = { 0 };
	uint64_t now = 5 * 1000000000ull, stored = 0;
	char name[16];

	(void)state;
	for (int take = 0; take < 25; take++, now += 1000000000ull) {
		struct hist_rows h = { 0 };

		/* the name's bytes change under the hold: it must keep its own copy */
		snprintf(name, sizeof(name), "sh");
		*hist_rows__add(&h) = row(ALIVE, "init", "read", 8, 5);
		*hist_rows__add(&h) = row(0, name, "read", 8, 2);
		*hist_rows__add(&h) = row(0, name, "execve", 1024, 1);
		hist_hold__take(&hold, &pass_tables[PT_syscall_latency], &h, now);
		/* the living process's row stays with the take */
		assert_int_equal(h.nr, 1);
		assert_int_equal(h.rows[0].tgid, ALIVE);
		snprintf(name, sizeof(name), "XX");
		if (hist_hold__due(&hold, now) || take == 24) {
			hist_hold__release(&hold, &p.sc_hist, keep_copy, &p);
			stored++;
		}
		free(h.rows);
	}
	/* due at 10 s and 20 s, and the last take's */
	assert_int_equal(stored, 3);
	assert_int_equal(p.sc_hist.nr, 6);
	for (size_t i = 0; i < p.sc_hist.nr; i++) {
		assert_string_equal(p.sc_hist.rows[i].name, "sh");
		assert_int_equal(p.sc_hist.rows[i].tgid, 0);
	}
	/* every count of the 25 takes, none twice */
	assert_int_equal(p.sc_hist.rows[0].count + p.sc_hist.rows[2].count + p.sc_hist.rows[4].count, 50);
	assert_int_equal(p.sc_hist.rows[1].count + p.sc_hist.rows[3].count + p.sc_hist.rows[5].count, 25);
	assert_int_equal(p.sc_hist.rows[1].sum_us + p.sc_hist.rows[3].sum_us + p.sc_hist.rows[5].sum_us, 25 * 1024);
	assert_false(hist_hold__due(&hold, now + HIST_HOLD_NS));
	hist_hold__free(&hold);
	pass__free_rows(&p);
}

static void wakeup_edges_fold_on_either_end(void **state)
{
	struct wakeup_rows w = { 0 };
	struct dict *fold = dict__new();
	int added;

	(void)state;
	for (uint32_t pid = 100; pid < 100 + ENDED; pid++) {
		/* the shell wakes each child at its start, and each wakes the shell as it exits */
		*wakeup_rows__add(&w) = (struct wakeup_row){ .waker_tgid = ALIVE, .waker = "bash", .wakee_tgid = pid,
							       .wakee = "true", .count = 1, .runq_us = 1,
							       .blocked_us = 10 };
		*wakeup_rows__add(&w) = (struct wakeup_row){ .waker_tgid = pid, .waker = "true", .wakee_tgid = ALIVE,
							       .wakee = "bash", .count = 1, .runq_us = 2,
							       .blocked_us = 20 };
		dict__intern(fold, &pid, sizeof(pid), &added);
	}
	/* an interrupt's edge stays as it is */
	*wakeup_rows__add(&w) = (struct wakeup_row){ .waker = "irq", .wakee_tgid = ALIVE, .wakee = "bash", .count = 3 };
	wakeup_rows__fold(&w, fold, 2048);
	assert_int_equal(w.nr, 3);
	for (size_t i = 0; i < w.nr; i++) {
		if (!strcmp(w.rows[i].waker, "irq"))
			continue;
		assert_int_equal(w.rows[i].count, ENDED);
		assert_int_equal(w.rows[i].runq_us, (uint64_t)ENDED * (w.rows[i].waker_tgid == ALIVE ? 1 : 2));
		assert_int_equal(w.rows[i].blocked_us, (uint64_t)ENDED * (w.rows[i].waker_tgid == ALIVE ? 10 : 20));
	}
	free(w.rows);
	dict__free(fold);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(the_stacks_of_ended_processes_go_after_their_grace),
		cmocka_unit_test(kernel_stacks_no_pass_asks_for_go),
		cmocka_unit_test(stacks_that_read_alike_share_their_frames),
		cmocka_unit_test(names_and_executables_of_ended_processes_go),
		cmocka_unit_test(short_lived_processes_fold_into_their_command),
		cmocka_unit_test(past_the_budget_the_quietest_processes_fold),
		cmocka_unit_test(a_commands_rows_are_held_over_takes),
		cmocka_unit_test(wakeup_edges_fold_on_either_end),
	};
	return cmocka_run_group_tests_name("churn", tests, NULL, NULL);
}
