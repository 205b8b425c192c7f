// SPDX-License-Identifier: GPL-2.0-only
/*
 * tract wakes: who wakes whom, between processes, over a window: the waker
 * -> wakee edges that record keeps, drawn by Graphviz; or who holds up
 * whom, between threads: the holders the samples name.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "aggregate.h"
#include "commands.h"
#include "parse.h"
#include "read_opts.h"
#include "reader.h"
#include "timespec.h"
#include "util.h"
#include "wakegraph.h"
#include "wakegraph_select.h"

static const char wakes_usage[] =
"Usage: tract wakes [-o FILE.svg|FILE.dot] [--format svg|dot] [-n N] [--holders]\n"
"                   [-w FILTER] [--from TIME] [--to TIME] [--dir DIR]\n"
"\n"
"The waker -> wakee graph between processes, as record keeps it: the\n"
"edges that ended the most time asleep, each as wide as that time and\n"
"labelled with its wakeups, summed wait for a CPU and summed time asleep\n"
"(and its share of all); a note counts the edges not drawn.  Interrupts\n"
"(softirq/NET_RX, irq/N-HANDLER, or irq where the kernel named none) and\n"
"timers are nodes of their own.  With --holders, the holder -> waiter\n"
"graph between threads instead: who held a lock whom waited for it, each\n"
"edge as wide as the waiter's time held up (blocker_tid), a deadlock's\n"
"edges red.  Laid out by Graphviz (dot).\n"
"\n"
"Options:\n"
"  -o, --output FILE     write to FILE; its extension picks the format (.svg, or .dot or .gv)\n"
"      --format FORMAT   svg or dot (default: dot on standard output)\n"
"  -n, --max-edges N     draw the N edges that ended the most time asleep\n"
"                        (default 12; 0: all of them)\n"
"  -w, --where FILTER    only edges that match: waker, wakee, waker_tgid, wakee_tgid\n"
"                        (with --holders: the waiters' samples, any column of them)\n"
"      --holders         draw who holds up whom, from the waits' named holders\n"
"      --from TIME, --to TIME, -D DIR, --strict, --utc, --local, -v: as tract query\n"
"      --clickhouse URL, --host NAME, --clickhouse-user, ...: the fleet's store, as tract query\n"
"  -h, --help            show this help\n";

enum { OPT_MAX_EDGES = 256, OPT_HOLDERS };

static const struct option wakes_options[] = {
	READ_OPTS_LONG,
	{ "output", required_argument, NULL, 'o' },
	{ "max-edges", required_argument, NULL, OPT_MAX_EDGES },
	{ "holders", no_argument, NULL, OPT_HOLDERS },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

struct wakes_args {
	struct query_opts q;
	const char *output;
	int svg, format_given, holders;
	size_t max_edges;
};

#define usage_error(...) tract_usage_error("wakes", __VA_ARGS__)

static int ends_with(const char *s, const char *tail)
{
	size_t n = strlen(s), t = strlen(tail);

	return n >= t && !strcmp(s + n - t, tail);
}

/* 0, 1 when --help was shown, or -EINVAL after a message. */
static int wakes_parse_args(int argc, char **argv, struct wakes_args *a)
{
	int c, taken;
	uint64_t v;

	memset(a, 0, sizeof(*a));
	read_opts_init(&a->q);
	a->max_edges = WAKEGRAPH_EDGES;
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":" READ_OPTS_SHORT "o:n:h", wakes_options, NULL)) != -1) {
		if (c == READ_OPT_FORMAT) {
			if (strcmp(optarg, "svg") && strcmp(optarg, "dot"))
				return usage_error("invalid value '%s' for --format: expected svg or dot", optarg);
			a->svg = !strcmp(optarg, "svg");
			a->format_given = 1;
			continue;
		}
		if (c == 'g')
			return usage_error("%s", "-g does not apply: the graph's nodes are processes");
		taken = read_opts_take("wakes", c, optarg, &a->q);
		if (taken < 0)
			return taken;
		if (taken)
			continue;
		switch (c) {
		case 'o':
			a->output = optarg;
			break;
		case 'n':
		case OPT_MAX_EDGES:
			if (parse_u64(optarg, 0, 100000, &v))
				return usage_error("invalid value '%s' for %s: expected 0 (all) to 100000", optarg,
						   c == 'n' ? "-n" : "--max-edges");
			a->max_edges = v;
			break;
		case OPT_HOLDERS:
			a->holders = 1;
			break;
		case 'h':
			fputs(wakes_usage, stdout);
			return 1;
		default:
			return option_error("wakes", c, argv);
		}
	}
	if (!a->format_given && a->output) {
		a->svg = ends_with(a->output, ".svg");
		if (!a->svg && !ends_with(a->output, ".dot") && !ends_with(a->output, ".gv"))
			return usage_error("cannot tell the format from the name '%s': end it in .svg or .dot, "
					   "or give --format", a->output);
	}
	return read_opts_finish("wakes", argc, argv, &a->q);
}

int cmd_wakes(int argc, char **argv)
{
	struct wakes_args a;
	struct store_reader set;
	struct agg_result r;
	struct wake_edge *edges = NULL;
	size_t n = 0;
	char title[512], from[64], to[64];
	FILE *out = stdout;
	int err = wakes_parse_args(argc, argv, &a);

	if (err)
		return err > 0 ? 0 : EXIT_USAGE;
	if (a.svg && !a.output)
		return usage_error("%s", "--format svg needs -o FILE: Graphviz writes it");
	if (query_open_store(&a.q, &set))
		return EXIT_RUNTIME;
	err = query_resolve_range(&set, &a.q);
	if (!err)
		err = (a.holders ? wakegraph__select_holders : wakegraph__select)(
			&set, &(struct wake_selection){ .filter = a.q.filter, .from_us = a.q.from_us, .to_us = a.q.to_us,
							.strict = a.q.strict },
			&r, &edges, &n);
	store_reader__free(&set);
	if (err)
		return exit_status(err);
	if (!n) {
		if (a.holders)
			tract_err("no waits with a named holder in that range%s (see Who holds a wait up in the README)",
				  a.q.filter ? " that match the filter" : "");
		else
			tract_err("no wakeups to draw in that range%s (record keeps them unless given --no-wakeup-edges)",
				  a.q.filter ? " that match the filter" : "");
		wakegraph__free(edges, n);
		agg_result__free(&r);
		return EXIT_RUNTIME;
	}
	timespec_format(r.first_us, from, sizeof(from));
	timespec_format(r.last_us, to, sizeof(to));
	snprintf(title, sizeof(title), "%s, %s .. %s %s%s%s", a.holders ? "Who holds up whom" : "Who wakes whom", from,
		 to, timespec_zone(r.last_us), a.q.filter ? ", " : "", a.q.filter ? a.q.filter : "");
	if (a.svg) {
		err = wakegraph__write_svg(a.output, edges, n, a.max_edges, title);
	} else {
		if (a.output && !(out = fopen(a.output, "w"))) {
			tract_err("cannot write %s: %s", a.output, strerror(errno));
			err = -errno;
		}
		if (!err && (wakegraph__write_dot(out, edges, n, a.max_edges, title) || fflush(out) ||
			     (out != stdout && fclose(out)))) {
			tract_err("cannot write %s: %s", a.output ? a.output : "the output", strerror(errno));
			err = -EIO;
		}
	}
	wakegraph__free(edges, n);
	agg_result__free(&r);
	return err ? EXIT_RUNTIME : 0;
}
