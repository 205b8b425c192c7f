// SPDX-License-Identifier: GPL-2.0-only
/*
 * tract flame: a flame graph of any selection of samples, on and off CPU in
 * one picture, each path weighted by the time its samples stand for.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "aggregate.h"
#include "commands.h"
#include "flame.h"
#include "flame_select.h"
#include "parse.h"
#include "progress.h"
#include "read_opts.h"
#include "reader.h"
#include "timespec.h"
#include "util.h"

static const char flame_usage[] =
"Usage: tract flame [-o FILE] [--format svg|folded|speedscope] [-w FILTER]\n"
"                   [--from TIME] [--to TIME] [--dir DIR]\n"
"\n"
"A flame graph of the selected samples, on and off CPU together: each frame's\n"
"width is the thread time of the samples under it.  Frames from the root:\n"
"the process, its user stack, its kernel stack, then the thread's state,\n"
"syscall and the file or socket it works on (DISK;fsync;/var/lib/db/wal).\n"
"\n"
"Options:\n"
"  -o, --output FILE     write to FILE (default: standard output)\n"
"      --format FORMAT   svg (default: interactive, self-contained), folded\n"
"                        (frame;frame;... weight_us lines for flamegraph.pl and\n"
"                        inferno) or speedscope (its JSON file format)\n"
"      --width PX        the SVG's width (default 1200)\n"
"      --profile         the on-CPU profile's ticks (--profile-hz) instead of the\n"
"                        samples: what code ran, by process and stacks\n"
"      --diff-from TIME, --diff-to TIME\n"
"                        a differential graph (SVG): the range drawn, each frame\n"
"                        red where its share grew since this base window, blue\n"
"                        where it shrank\n"
"  -w, --where FILTER    only samples that match, e.g. 'pcomm=postgres and state!=RUN'\n"
"      --from TIME       start: -15m, 2h, 2026-11-30 13:05, 13:05, @EPOCH, now\n"
"      --to TIME         end (default: the newest sample; --from default: an hour before)\n"
"  -D, --dir DIR         the store (default $TRACT_DATA or " DEFAULT_DATA_DIR ")\n"
READ_OPTS_CLICKHOUSE_HELP
"      --strict          fail on a damaged store file instead of skipping it\n"
"      --utc, --local    read and show times in UTC, or in local time (the default)\n"
"  -v, --verbose         say more\n"
"  -h, --help            show this help\n"
"\n"
"Examples:\n"
"  tract flame -o flame.svg --from -15m            the last quarter hour\n"
"  tract flame -w 'pcomm=postgres' -o pg.svg        one program's time\n"
"  tract flame --format folded | flamegraph.pl      through Brendan Gregg's tool\n";

enum flame_format { FLAME_SVG, FLAME_FOLDED, FLAME_SPEEDSCOPE };

enum { OPT_WIDTH = 256, OPT_PROFILE, OPT_DIFF_FROM, OPT_DIFF_TO };

static const struct option flame_options[] = {
	READ_OPTS_LONG,
	{ "output", required_argument, NULL, 'o' },
	{ "width", required_argument, NULL, OPT_WIDTH },
	{ "profile", no_argument, NULL, OPT_PROFILE },
	{ "diff-from", required_argument, NULL, OPT_DIFF_FROM },
	{ "diff-to", required_argument, NULL, OPT_DIFF_TO },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};


struct flame_args {
	struct query_opts q;
	const char *output;
	enum flame_format format;
	unsigned int width;
	int profile;			/* --profile */
	const char *diff_from, *diff_to;	/* the base window of a differential graph */
	uint64_t base_from_us, base_to_us;
};

#define usage_error(...) tract_usage_error("flame", __VA_ARGS__)

/* 0, 1 when --help was shown, or -EINVAL after a message. */
static int flame_parse_args(int argc, char **argv, struct flame_args *a)
{
	int c, taken;
	uint64_t v;

	memset(a, 0, sizeof(*a));
	read_opts_init(&a->q);
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":" READ_OPTS_SHORT "o:h", flame_options, NULL)) != -1) {
		/* its own formats, not the tables' */
		if (c == READ_OPT_FORMAT) {
			if (!strcmp(optarg, "svg"))
				a->format = FLAME_SVG;
			else if (!strcmp(optarg, "folded"))
				a->format = FLAME_FOLDED;
			else if (!strcmp(optarg, "speedscope"))
				a->format = FLAME_SPEEDSCOPE;
			else
				return usage_error("invalid value '%s' for --format: expected svg, folded or speedscope",
						   optarg);
			continue;
		}
		if (c == 'g')
			return usage_error("%s", "-g does not apply: a flame graph's frames are its grouping");
		taken = read_opts_take("flame", c, optarg, &a->q);
		if (taken < 0)
			return taken;
		if (taken)
			continue;
		switch (c) {
		case 'o':
			a->output = optarg;
			break;
		case OPT_PROFILE:
			a->profile = 1;
			break;
		case OPT_DIFF_FROM:
			a->diff_from = optarg;
			break;
		case OPT_DIFF_TO:
			a->diff_to = optarg;
			break;
		case OPT_WIDTH:
			if (parse_u64(optarg, 200, 100000, &v))
				return usage_error("invalid value '%s' for --width: expected pixels, 200 to 100000", optarg);
			a->width = (unsigned int)v;
			break;
		case 'h':
			fputs(flame_usage, stdout);
			return 1;
		default:
			return option_error("flame", c, argv);
		}
	}
	c = read_opts_finish("flame", argc, argv, &a->q);
	if (c || (!a->diff_from && !a->diff_to))
		return c;
	if (!a->diff_from || !a->diff_to)
		return usage_error("%s", "a differential graph takes its base window whole: --diff-from and --diff-to");
	if (a->format != FLAME_SVG)
		return usage_error("%s", "a differential graph is drawn in colour: --format svg");
	if (timespec_parse(a->diff_from, a->q.now_us, &a->base_from_us))
		return usage_error("invalid time '%s' for --diff-from", a->diff_from);
	if (timespec_parse(a->diff_to, a->q.now_us, &a->base_to_us) || a->base_to_us <= a->base_from_us)
		return usage_error("invalid time '%s' for --diff-to: expected a time after --diff-from", a->diff_to);
	return 0;
}

static int write_flame(const struct flame_args *a, const struct flame *f, const struct flame *base,
		       const struct agg_result *res, FILE *out)
{
	char title[512], sub[512], from[64], to[64];

	snprintf(title, sizeof(title), "%s%s%s", a->profile ? "On-CPU profile" : "Thread time",
		 a->q.filter ? ": " : "", a->q.filter ? a->q.filter : "");
	flame__describe(res, a->profile, sub, sizeof(sub));
	if (base) {
		size_t n = strlen(title);

		timespec_format(a->base_from_us, from, sizeof(from));
		timespec_format(a->base_to_us, to, sizeof(to));
		snprintf(title + n, sizeof(title) - n, ", against %s .. %s", from, to);
	}
	switch (a->format) {
	case FLAME_FOLDED:
		return flame__write_folded(f, out);
	case FLAME_SPEEDSCOPE:
		return flame__write_speedscope(f, out, title);
	default:
		return flame__write_svg(f, out, &(struct flame_svg_opts){ .title = title, .subtitle = sub,
									  .width = a->width, .ticks = a->profile,
									  .base = base });
	}
}

int cmd_flame(int argc, char **argv)
{
	struct flame_args a;
	struct store_reader set;
	struct agg_result res;
	struct flame *f = NULL, *base = NULL;
	FILE *out = stdout;
	int err = flame_parse_args(argc, argv, &a);

	if (err)
		return err > 0 ? 0 : EXIT_USAGE;
	if (query_open_store(&a.q, &set))
		return EXIT_RUNTIME;
	err = query_resolve_range(&set, &a.q);
	progress_begin("flame", a.diff_from ? 2 : 1);
	progress_stage(a.diff_from ? "the range" : NULL);
	if (!err)
		err = flame__select(&set, &(struct flame_selection){ .filter = a.q.filter, .from_us = a.q.from_us,
								     .to_us = a.q.to_us, .strict = a.q.strict,
								     .profile = a.profile }, &f, &res);
	if (!err && f && a.diff_from) {
		struct agg_result base_res;

		progress_stage("the base window");
		err = flame__select(&set, &(struct flame_selection){ .filter = a.q.filter, .from_us = a.base_from_us,
								     .to_us = a.base_to_us, .strict = a.q.strict,
								     .profile = a.profile }, &base, &base_res);
		if (!err)
			agg_result__free(&base_res);
		if (!err && !base) {
			tract_err("%s", "no samples in the base window (--diff-from, --diff-to) to compare with");
			err = -ENOENT;
		}
		if (err) {
			progress_end();
			flame__free(f);
			agg_result__free(&res);
			store_reader__free(&set);
			return EXIT_RUNTIME;
		}
	}
	progress_end();
	store_reader__free(&set);
	if (err)
		return exit_status(err);
	if (!f) {
		tract_err("no samples to draw%s", a.q.filter ? " match the filter in that range" : " in that range");
		agg_result__free(&res);
		return EXIT_RUNTIME;
	}
	if (a.output && !(out = fopen(a.output, "w"))) {
		tract_err("cannot write %s: %s", a.output, strerror(errno));
		err = -errno;
	}
	if (!err && (write_flame(&a, f, base, &res, out) || fflush(out))) {
		tract_err("cannot write %s: %s", a.output ? a.output : "the output", strerror(errno));
		err = -EIO;
	}
	if (out && out != stdout && fclose(out) && !err) {
		tract_err("cannot write %s: %s", a.output, strerror(errno));
		err = -EIO;
	}
	flame__free(f);
	flame__free(base);
	agg_result__free(&res);
	return err ? EXIT_RUNTIME : 0;
}
