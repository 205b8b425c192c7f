// SPDX-License-Identifier: GPL-2.0-only
/*
 * The waker graph of a busy host: the edges that ended most blocked time
 * drawn, the rest counted in a note with their share, an interrupt waker
 * named for what it is, and a picture small enough to read at a glance.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>
#include "util.h"
#include "wakegraph.h"
#include "wakegraph_select.h"

#define BUSY 500

static char names[BUSY][2][32];

/*
 * A busy host's edges: BUSY pairs, a few ending long waits, the rest many
 * short ones; the interrupt's edge has the most wakeups of all, and a
 * process with the most wakeups ends almost no wait.
 */
static size_t busy_host(struct wake_edge *e)
{
	for (size_t i = 0; i < BUSY; i++) {
		snprintf(names[i][0], sizeof(names[i][0]), "waker%zu", i);
		snprintf(names[i][1], sizeof(names[i][1]), "backend%zu", i);
		e[i] = (struct wake_edge){
			.waker = names[i][0], .waker_len = strlen(names[i][0]), .waker_tgid = 1000 + i,
			.wakee = names[i][1], .wakee_len = strlen(names[i][1]), .wakee_tgid = 5000 + i,
			.count = 10 + i % 7, .runq_us = 100, .held_up_us = 1000 + i,
		};
	}
	/* long waits: what the graph is for */
	for (size_t i = 0; i < 8; i++)
		e[100 + i].held_up_us = 60000000 - i * 1000000;
	e[200] = (struct wake_edge){ .waker = "irq", .waker_len = 3, .waker_tgid = -1, .wakee = "postgres",
				     .wakee_len = 8, .wakee_tgid = 42, .count = 67000, .held_up_us = 50000000 };
	e[300].count = 1000000;
	e[300].held_up_us = 10;
	return BUSY;
}

static char *dot(const struct wake_edge *e, size_t n, size_t max_edges)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	assert_non_null(f);
	assert_int_equal(wakegraph__write_dot(f, e, n, max_edges, "Who wakes whom"), 0);
	fclose(f);
	return buf;
}

static size_t edges_drawn(const char *text)
{
	size_t k = 0;

	for (const char *s = text; (s = strstr(s, " -> ")); s++)
		k++;
	return k;
}

static void most_blocked_time_first(void **state)
{
	static struct wake_edge e[BUSY];
	size_t n = busy_host(e);

	(void)state;
	wakegraph__rank(e, n);
	assert_int_equal(e[0].held_up_us, 60000000);
	assert_memory_equal(e[1].waker, "waker101", 8);
	/* the interrupt ended 50 s of waits: next after the eight longest */
	assert_int_equal(e[2].held_up_us, 58000000);
	assert_int_equal(e[8].waker_tgid, -1);
	/* a million wakeups that ended 10 us of waiting: last of all */
	assert_int_equal(e[n - 1].count, 1000000);
	for (size_t i = 1; i < n; i++)
		assert_true(e[i - 1].held_up_us >= e[i].held_up_us);
}

static void the_rest_is_counted_in_a_note(void **state)
{
	static struct wake_edge e[BUSY];
	size_t n = busy_host(e);
	uint64_t total = 0, left = 0, wakeups = 0;
	char note[160];
	char *text;

	(void)state;
	wakegraph__rank(e, n);
	for (size_t i = 0; i < n; i++) {
		total += e[i].held_up_us;
		if (i >= WAKEGRAPH_EDGES) {
			left += e[i].held_up_us;
			wakeups += e[i].count;
		}
	}
	text = dot(e, n, WAKEGRAPH_EDGES);
	assert_int_equal(edges_drawn(text), WAKEGRAPH_EDGES);
	snprintf(note, sizeof(note), "and %d more edges carrying %.1f%% of the blocked time (%llu wakeups) not drawn",
		 BUSY - WAKEGRAPH_EDGES, 100.0 * (double)left / (double)total, (unsigned long long)wakeups);
	if (!strstr(text, note))
		fail_msg("no '%s' in:\n%s", note, text);
	/* each edge says its share of all the blocked time: the largest, 60 s */
	snprintf(note, sizeof(note), "blocked 60.00 s (%.0f%%)", 100.0 * 60e6 / (double)total);
	assert_non_null(strstr(text, note));
	free(text);

	/* 0 draws them all, and there is nothing to note */
	text = dot(e, n, 0);
	assert_int_equal(edges_drawn(text), BUSY);
	assert_null(strstr(text, "more edge"));
	free(text);
	text = dot(e, 3, 2);
	assert_non_null(strstr(text, "and 1 more edge carrying"));
	free(text);
}

static void an_interrupt_says_what_it_is(void **state)
{
	static struct wake_edge e[BUSY];
	size_t n = busy_host(e);
	char *text;

	(void)state;
	wakegraph__rank(e, n);
	text = dot(e, n, WAKEGRAPH_EDGES);
	/* the node keeps its id, so a filter's and another store's edges still meet it */
	assert_non_null(strstr(text, "\t\"irq\" [shape=ellipse, fillcolor=\"#dde8f4\", label=\"interrupt\\n(hardirq/softirq)\"];\n"));
	assert_non_null(strstr(text, "\t\"irq\" -> \"postgres 42\" [penwidth="));
	assert_non_null(strstr(text, "interrupt (hardirq/softirq): woken in an interrupt handler or a softirq, not by a thread"));
	/* no timer drawn, no timer explained */
	assert_null(strstr(text, "timer"));
	free(text);
	/* an interrupt not drawn is not explained either */
	text = dot(e, n, 1);
	assert_null(strstr(text, "hardirq"));
	free(text);
}

/* An interrupt the kernel named is a node of its own, drawn as the kernel's wakers are, and explained. */
static void a_named_interrupt_is_its_own_node(void **state)
{
	struct wake_edge e[] = {
		{ .waker = "softirq/NET_RX", .waker_len = 14, .waker_tgid = -1, .wakee = "redis", .wakee_len = 5,
		  .wakee_tgid = 7, .count = 900, .held_up_us = 5000000 },
		{ .waker = "irq/24-virtio0-", .waker_len = 15, .waker_tgid = -1, .wakee = "postgres", .wakee_len = 8,
		  .wakee_tgid = 42, .count = 10, .held_up_us = 1000 },
	};
	char *text;

	(void)state;
	text = dot(e, 2, WAKEGRAPH_EDGES);
	assert_non_null(strstr(text, "\t\"softirq/NET_RX\" [shape=ellipse, fillcolor=\"#dde8f4\"];\n"));
	assert_non_null(strstr(text, "\t\"softirq/NET_RX\" -> \"redis 7\" [penwidth="));
	assert_non_null(strstr(text, "\t\"irq/24-virtio0-\" [shape=ellipse"));
	assert_non_null(strstr(text, "softirq/NAME: woken in that softirq"));
	assert_non_null(strstr(text, "irq/N-HANDLER: woken in that hard interrupt's handler"));
	/* no bare irq drawn: none explained */
	assert_null(strstr(text, "did not name"));
	free(text);
}

/* Holder -> waiter edges say how long the waiter was held up, a deadlock's in red; the note counts samples. */
static void a_holders_graph_says_who_held_whom_up(void **state)
{
	struct wake_edge e[] = {
		{ .waker = "root", .waker_len = 4, .waker_tgid = 10, .wakee = "mid", .wakee_len = 3, .wakee_tgid = 11,
		  .count = 30, .held_up_us = 3000000, .holds = 1 },
		{ .waker = "dead2", .waker_len = 5, .waker_tgid = 21, .wakee = "dead1", .wakee_len = 5,
		  .wakee_tgid = 20, .count = 20, .held_up_us = 2000000, .holds = 1, .cycle = 1 },
		{ .waker = "a", .waker_len = 1, .waker_tgid = 30, .wakee = "b", .wakee_len = 1, .wakee_tgid = 31,
		  .count = 7, .held_up_us = 700000, .holds = 1 },
	};
	char *text;

	(void)state;
	text = dot(e, 3, 2);
	assert_non_null(strstr(text, "\t\"root 10\" -> \"mid 11\" [penwidth=8.00, label=\"held up 3.00 s (53%)"));
	assert_non_null(strstr(text, "\t\"dead2 21\" -> \"dead1 20\" [penwidth=5.67, color=\"#e00000\", "
				     "label=\"deadlock: held up 2.00 s (35%)"));
	assert_non_null(strstr(text, "and 1 more edge carrying 12% of the blocked time (7 samples) not drawn"));
	assert_null(strstr(text, "wakeups"));
	free(text);
}

/* The picture Graphviz lays out of the busy host fits a screen, as its 60 edges by wakeups did not. */
static void a_busy_host_reads_at_a_glance(void **state)
{
	static struct wake_edge e[BUSY];
	size_t n = busy_host(e);
	char path[] = "/tmp/tract-wakegraph-XXXXXX", line[512];
	double w = 0, h = 0;
	FILE *f;
	int fd;

	(void)state;
	if (system("command -v dot > /dev/null 2>&1"))
		skip();
	wakegraph__rank(e, n);
	fd = mkstemp(path);
	assert_true(fd >= 0);
	close(fd);
	assert_int_equal(wakegraph__write_svg(path, e, n, WAKEGRAPH_EDGES, "Who wakes whom, 2026-12-01 11:00:00 .. 12:00:00 UTC"), 0);
	f = fopen(path, "r");
	assert_non_null(f);
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, "<svg width=\"", 12) && sscanf(line, "<svg width=\"%lfpt\" height=\"%lfpt\"", &w, &h) == 2)
			break;
	fclose(f);
	unlink(path);
	print_message("# %zu edges: %.0f x %.0f pt\n", (size_t)WAKEGRAPH_EDGES, w, h);
	assert_true(w > 0 && h > 0);
	assert_true(w <= 1200 && h <= 900);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(most_blocked_time_first),
		cmocka_unit_test(the_rest_is_counted_in_a_note),
		cmocka_unit_test(an_interrupt_says_what_it_is),
		cmocka_unit_test(a_named_interrupt_is_its_own_node),
		cmocka_unit_test(a_holders_graph_says_who_held_whom_up),
		cmocka_unit_test(a_busy_host_reads_at_a_glance),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
