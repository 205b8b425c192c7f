// SPDX-License-Identifier: GPL-2.0-only
/*
 * tract ship: a backfill of the local store's hours into ClickHouse, for
 * hours recorded before --clickhouse was given, or while the spool was
 * bounded away.  Exactly once (ch_backfill.h): running it again, or over
 * hours the recorder shipped itself, sends nothing twice.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include "ch_backfill.h"
#include "ch_http.h"
#include "ch_login.h"
#include "ch_schema.h"
#include "clock.h"
#include "commands.h"
#include "parse.h"
#include "progress.h"
#include "reader.h"
#include "timespec.h"
#include "util.h"

static const char usage[] =
"Usage: tract ship --clickhouse URL [-D DIR] [--from TIME] [--to TIME] [--host NAME]\n"
"                  [--clickhouse-user USER] [--clickhouse-password-file FILE] [--clickhouse-ca FILE]\n"
"\n"
"Upload the local store's hours to ClickHouse, as record --clickhouse would\n"
"have shipped them: samples, stacks, passes, histograms, wakeups, profile.\n"
"Nothing is sent twice: passes the server has of the host are left out, and\n"
"a run that stops is resumed by the next.\n"
"\n"
"Options:\n"
"      --clickhouse URL  the server (http[s]://host:port)\n"
"  -D, --dir DIR         the store (default $TRACT_DATA or " DEFAULT_DATA_DIR ")\n"
"      --from TIME       the first pass to send (default: the store's first)\n"
"      --to TIME         send passes before this (default: now)\n"
"      --host NAME       the rows' host: the one record --host gave (default: the hostname)\n"
"      --clickhouse-user USER, --clickhouse-password-file FILE, --clickhouse-ca FILE\n"
"                        who tract is there (a password only from a 0600 file), the CA\n"
"      --strict          fail on a damaged hour instead of skipping it\n"
"  -v, --verbose         say more\n"
"  -h, --help            show this help\n";

enum { OPT_CH = 256, OPT_USER, OPT_PASSWORD, OPT_CA, OPT_HOST, OPT_FROM, OPT_TO, OPT_STRICT };

struct ship_opts {
	const char *dir, *url, *user, *password_file, *ca_file, *host, *from, *to;
	int strict;
};

/* 0, 1 after --help, or -EINVAL after a message. */
static int parse(int argc, char **argv, struct ship_opts *o)
{
	static const struct option options[] = {
		{ "clickhouse", required_argument, NULL, OPT_CH },
		{ "clickhouse-user", required_argument, NULL, OPT_USER },
		{ "clickhouse-password-file", required_argument, NULL, OPT_PASSWORD },
		{ "clickhouse-ca", required_argument, NULL, OPT_CA },
		{ "host", required_argument, NULL, OPT_HOST },
		{ "dir", required_argument, NULL, 'D' },
		{ "from", required_argument, NULL, OPT_FROM },
		{ "to", required_argument, NULL, OPT_TO },
		{ "strict", no_argument, NULL, OPT_STRICT },
		{ "verbose", no_argument, NULL, 'v' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int c;

	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":D:vh", options, NULL)) != -1) {
		switch (c) {
		case OPT_CH:
			if (ch_url_problem(optarg))
				return tract_usage_error("ship", "invalid value '%s' for --clickhouse: expected %s", optarg,
							 ch_url_problem(optarg));
			o->url = optarg;
			break;
		case OPT_USER: o->user = optarg; break;
		case OPT_PASSWORD: o->password_file = optarg; break;
		case OPT_CA: o->ca_file = optarg; break;
		case OPT_HOST: o->host = optarg; break;
		case 'D': o->dir = optarg; break;
		case OPT_FROM: o->from = optarg; break;
		case OPT_TO: o->to = optarg; break;
		case OPT_STRICT: o->strict = 1; break;
		case 'v': tract_verbose = 1; break;
		case 'h':
			fputs(usage, stdout);
			return 1;
		default:
			option_error("ship", c, argv);
			return -EINVAL;
		}
	}
	if (optind < argc)
		return tract_usage_error("ship", "unexpected argument '%s'", argv[optind]);
	if (!o->url)
		return tract_usage_error("ship", "%s", "--clickhouse URL names the server to ship to");
	return 0;
}

int cmd_ship(int argc, char **argv)
{
	struct ship_opts o = { .dir = store_default_dir() };
	struct ch_backfill_opts bo = { .database = "tract", .batch_rows = 10000 };
	struct ch_backfill_stats st = { 0 };
	struct store_reader set;
	char hostname[256], password[512] = "", *answer = NULL;
	uint64_t now = realtime_us();
	struct ch_http *http;
	enum ch_outcome out;
	int err = parse(argc, argv, &o);

	if (err)
		return err > 0 ? 0 : EXIT_USAGE;
	bo.from_us = 0;
	bo.to_us = now;
	if ((o.from && timespec_parse(o.from, now, &bo.from_us)) || (o.to && timespec_parse(o.to, now, &bo.to_us))) {
		tract_usage_error("ship", "invalid time '%s': expected -15m, 2h, 2026-11-30 13:05, 13:05, @EPOCH or now",
				  o.from && timespec_parse(o.from, now, &bo.from_us) ? o.from : o.to);
		return EXIT_USAGE;
	}
	if (!o.host) {
		if (gethostname(hostname, sizeof(hostname)))
			snprintf(hostname, sizeof(hostname), "unknown");
		hostname[sizeof(hostname) - 1] = '\0';
		o.host = hostname;
	}
	bo.host = o.host;
	bo.strict = o.strict;
	if (o.password_file && ch_read_password(o.password_file, password, sizeof(password)))
		return EXIT_RUNTIME;
	if (store_reader__open(o.dir, &set))
		return EXIT_RUNTIME;
	http = ch_http__new(o.url, o.user, o.password_file ? password : NULL, o.ca_file);
	explicit_bzero(password, sizeof(password));
	out = ch_schema_create(http, bo.database, &answer);
	if (out != CH_OK) {
		tract_err("ClickHouse at %s: %.300s", o.url, answer ? answer : "no answer");
		err = -EIO;
	}
	free(answer);
	if (!err) {
		progress_begin("ship", 1);
		err = ch_backfill(http, &set, &bo, &st);
		progress_end();
	}
	if (!err || st.batches)
		fprintf(stderr, "tract: %" PRIu64 " passes (%" PRIu64 " samples) of host %s sent in %" PRIu64
			" batches from %" PRIu64 " hours; %" PRIu64 " passes were there already%s\n",
			st.passes, st.samples, o.host, st.batches, st.hours, st.present,
			st.skipped ? ", damaged hours skipped" : "");
	ch_http__free(http);
	store_reader__free(&set);
	return err ? EXIT_RUNTIME : 0;
}
