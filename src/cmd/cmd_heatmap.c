// SPDX-License-Identifier: GPL-2.0-only
/*
 * tract heatmap: latency over time, from the completion histograms tract
 * keeps (syscalls, block I/O), or the age of waits still open when each
 * pass looked (inflight): a stuck operation shows before it completes.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "aggregate.h"
#include "commands.h"
#include "heatmap.h"
#include "heatmap_select.h"
#include "parse.h"
#include "read_opts.h"
#include "reader.h"
#include "render.h"
#include "timespec.h"
#include "util.h"

static const char heatmap_usage[] =
"Usage: tract heatmap --hist syscall|io|inflight [-o FILE.svg] [-w FILTER]\n"
"                     [--from TIME] [--to TIME] [--dir DIR]\n"
"\n"
"A latency heatmap as SVG: time across, log2 latency buckets up, each cell\n"
"coloured by its count; hovering a cell names its range and count.\n"
"\n"
"Options:\n"
"      --hist KIND       syscall: syscall completions (kept by record by default);\n"
"                        io: block I/O completions; inflight: the age of the waits\n"
"                        still open when each pass looked (a sampled thread's\n"
"                        time in its syscall, or its block request's), so a stuck\n"
"                        operation shows before it completes\n"
"  -o, --output FILE     write to FILE (default: standard output)\n"
"  -w, --where FILTER    only what matches: the histogram's columns (pcomm,\n"
"                        syscall; dev, op), or the samples' for inflight\n"
"      --from TIME, --to TIME, -D DIR, --strict, --utc, --local, -v: as tract query\n"
"      --clickhouse URL, --host NAME, --clickhouse-user, ...: the fleet's store, as tract query\n"
"  -h, --help            show this help\n"
"\n"
"Examples:\n"
"  tract heatmap --hist io -o io.svg --from -1h\n"
"  tract heatmap --hist inflight -w 'pcomm = postgres' -o stuck.svg\n";


static const struct option heatmap_options[] = {
	READ_OPTS_LONG,
	{ "hist", required_argument, NULL, 'H' },
	{ "output", required_argument, NULL, 'o' },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

#define usage_error(...) tract_usage_error("heatmap", __VA_ARGS__)

/* 0, 1 when --help was shown, or -EINVAL after a message. */
static int heatmap_parse_args(int argc, char **argv, struct query_opts *q, enum heat_kind *kind, const char **output)
{
	int c, taken;

	read_opts_init(q);
	*kind = HEAT_NONE;
	*output = NULL;
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":" READ_OPTS_SHORT "o:h", heatmap_options, NULL)) != -1) {
		if (c == 'g' || c == READ_OPT_FORMAT)
			return usage_error("%s", c == 'g' ? "-g does not apply: a heatmap's rows are latency buckets"
							  : "--format does not apply: a heatmap is SVG");
		taken = read_opts_take("heatmap", c, optarg, q);
		if (taken < 0)
			return taken;
		if (taken)
			continue;
		switch (c) {
		case 'H':
			if (!strcmp(optarg, "syscall"))
				*kind = HEAT_SYSCALL;
			else if (!strcmp(optarg, "io"))
				*kind = HEAT_IO;
			else if (!strcmp(optarg, "inflight"))
				*kind = HEAT_INFLIGHT;
			else
				return usage_error("invalid value '%s' for --hist: expected syscall, io or inflight", optarg);
			break;
		case 'o':
			*output = optarg;
			break;
		case 'h':
			fputs(heatmap_usage, stdout);
			return 1;
		default:
			return option_error("heatmap", c, argv);
		}
	}
	if (*kind == HEAT_NONE)
		return usage_error("%s", "--hist syscall, io or inflight says what to draw");
	return read_opts_finish("heatmap", argc, argv, q);
}

int cmd_heatmap(int argc, char **argv)
{
	struct store_reader set;
	struct query_opts o;
	struct heatmap h;
	enum heat_kind kind;
	const char *output;
	char sub[512], from[64], to[64];
	FILE *out = stdout;
	int err = heatmap_parse_args(argc, argv, &o, &kind, &output);

	if (err)
		return err > 0 ? 0 : EXIT_USAGE;
	if (query_open_store(&o, &set))
		return EXIT_RUNTIME;
	err = query_resolve_range(&set, &o);
	if (!err)
		err = heatmap__select(&set, &(struct heatmap_selection){ .kind = kind, .filter = o.filter,
									  .from_us = o.from_us, .to_us = o.to_us,
									  .strict = o.strict }, &h);
	store_reader__free(&set);
	if (err)
		return exit_status(err);
	if (!h.total) {
		tract_err("nothing to draw in that range%s%s", o.filter ? " that matches the filter" : "",
			  kind == HEAT_SYSCALL ? " (record keeps syscall latency unless given --no-syscall-latency)" : "");
		heatmap__free(&h);
		return EXIT_RUNTIME;
	}
	timespec_format(h.from_us, from, sizeof(from));
	timespec_format(h.to_us, to, sizeof(to));
	snprintf(sub, sizeof(sub), "%s .. %s %s, %llu %s%s%s", from, to, timespec_zone(h.to_us),
		 (unsigned long long)h.total, heatmap_kinds[kind].what, o.filter ? ", " : "", o.filter ? o.filter : "");
	if (output && !(out = fopen(output, "w"))) {
		tract_err("cannot write %s: %s", output, strerror(errno));
		heatmap__free(&h);
		return EXIT_RUNTIME;
	}
	err = heatmap__write_svg(&h, out, &(struct heatmap_svg_opts){ .title = heatmap_kinds[kind].title, .subtitle = sub,
								      .what = heatmap_kinds[kind].what });
	if (fflush(out) || err || (out != stdout && fclose(out))) {
		tract_err("cannot write %s: %s", output ? output : "the output", strerror(errno));
		err = -EIO;
	}
	heatmap__free(&h);
	return err ? EXIT_RUNTIME : 0;
}
