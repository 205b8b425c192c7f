// SPDX-License-Identifier: GPL-2.0-only
/*
 * tract top: the grouped view of tract query, refreshed, on a screen.  Live
 * (as root, with no store named) it records in a thread of its own into a
 * private store it removes at exit; otherwise it follows a recorder's store
 * or shows a range of history.  -b prints refreshes as text for scripts.
 */
#include <dirent.h>
#include <errno.h>
#include <getopt.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include "clock.h"
#include "commands.h"
#include "parse.h"
#include "privileges.h"
#include "record.h"
#include "timespec.h"
#include "top.h"
#include "top_screen.h"
#include "read_opts.h"
#include "util.h"

static const char top_usage[] =
"Usage: tract top [-g COLUMNS] [-w FILTER] [--dir DIR | --live] [--from TIME] [--to TIME]\n"
"                 [--span DURATION] [-i SECONDS] [-b [-n N]]\n"
"\n"
"What the threads are doing, grouped, refreshed: live, following a\n"
"recorder's store, or over a range of history.\n"
"\n"
"Options:\n"
"  -g, --group COLUMNS   columns to group by (default " TOP_DEFAULT_GROUP ")\n"
"  -w, --where FILTER    only samples that match (see tract query)\n"
"      --live            sample in-process (needs root); the default for root\n"
"                        when no store or range is named\n"
"  -F, --frequency HZ    live sampling rate (default 1, up to 1000)\n"
"  -D, --dir DIR         follow the store in DIR (default $TRACT_DATA or " DEFAULT_DATA_DIR ")\n"
READ_OPTS_CLICKHOUSE_HELP
"      --from TIME       history: start of the window (-15m, 13:05, 2026-11-30 13:05, @EPOCH)\n"
"      --to TIME         history: end of the window (default: the newest sample)\n"
"      --span DURATION   window length when following or live (default 5m)\n"
"      --format FORMAT   with -b: table (default), csv or json\n"
"      --strict          fail on a damaged store file instead of skipping it\n"
"      --utc, --local    read and show times in UTC, or in local time (the default)\n"
"  -i, --interval SECS   refresh every SECS seconds (default 1)\n"
"  -b, --batch           print refreshes as text instead of the screen\n"
"  -n, --iterations N    with -b: how many refreshes (default 1)\n"
"  -v, --verbose         say more\n"
"  -h, --help            show this help\n"
"\n"
"Keys: Enter drill down, Backspace back, g group, / filter, p peek at stacks,\n"
"+/- zoom, </> pan, f follow, s sort, ? help, q quit.\n";

enum { OPT_SPAN = 256, OPT_LIVE };

static const struct option top_options[] = {
	READ_OPTS_LONG,
	{ "live", no_argument, NULL, OPT_LIVE },
	{ "frequency", required_argument, NULL, 'F' },
	{ "span", required_argument, NULL, OPT_SPAN },
	{ "interval", required_argument, NULL, 'i' },
	{ "batch", no_argument, NULL, 'b' },
	{ "iterations", required_argument, NULL, 'n' },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

struct top_opts {
	struct query_opts q;
	int live, batch;
	double hz;
	uint64_t span_us, interval_ns, iterations;
};

#define usage_error(...) tract_usage_error("top", __VA_ARGS__)

static int top_parse_args(int argc, char **argv, struct top_opts *o)
{
	int c, taken;

	memset(o, 0, sizeof(*o));
	read_opts_init(&o->q);
	o->q.render.top = 30;
	o->hz = 1;
	o->span_us = 300 * 1000000ull;
	o->interval_ns = NSEC_PER_SEC;
	o->iterations = 1;
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":" READ_OPTS_SHORT "F:i:bn:h", top_options, NULL)) != -1) {
		taken = read_opts_take("top", c, optarg, &o->q);
		if (taken < 0)
			return taken;
		if (taken)
			continue;
		switch (c) {
		case OPT_LIVE:
			o->live = 1;
			break;
		case 'F':
			if (record_parse_hz(optarg, &o->hz))
				return usage_error("invalid value '%s' for --frequency: %s", optarg, RECORD_HZ_EXPECTED);
			break;
		case OPT_SPAN:
			if (parse_duration(optarg, &o->span_us) || o->span_us < 10 * 1000000ull)
				return usage_error("invalid value '%s' for --span: expected a duration such as 90s, 5m or 1h",
						   optarg);
			break;
		case 'i':
			if (parse_seconds(optarg, &o->interval_ns) || o->interval_ns < NSEC_PER_SEC / 10)
				return usage_error("invalid value '%s' for --interval: expected seconds, at least 0.1",
						   optarg);
			break;
		case 'b':
			o->batch = 1;
			break;
		case 'n':
			if (parse_u64(optarg, 1, 1000000, &o->iterations))
				return usage_error("invalid value '%s' for --iterations: expected a number >= 1", optarg);
			break;
		case 'h':
			fputs(top_usage, stdout);
			return 1;
		default:
			return option_error("top", c, argv);
		}
	}
	if (read_opts_finish("top", argc, argv, &o->q))
		return -EINVAL;
	if (o->q.format_given && !o->batch)
		return usage_error("%s", "--format is for the text of -b; the screen is a table");
	if (o->live && (o->q.dir_given || o->q.ch.url || o->q.from || o->q.to))
		return usage_error("%s", "--live records its own store: no --dir, --clickhouse, --from or --to with it");
	if (!o->live && !o->q.dir_given && !o->q.ch.url && !o->q.from && !o->q.to && geteuid() == 0)
		o->live = 1;
	return 0;
}

/* ---- live: the recorder in a thread, into a private store ---- */

struct live {
	struct record_opts rec;
	char dir[64];
	pthread_t thread;
	pthread_mutex_t lock;
	pthread_cond_t cond;
	int ready, done, status;
};

static void live_ready(void *arg)
{
	struct live *l = arg;

	pthread_mutex_lock(&l->lock);
	l->ready = 1;
	pthread_cond_signal(&l->cond);
	pthread_mutex_unlock(&l->lock);
}

static void *live_main(void *arg)
{
	struct live *l = arg;
	int status = record_run(&l->rec, live_ready, l);

	pthread_mutex_lock(&l->lock);
	l->status = status;
	l->done = 1;
	pthread_cond_signal(&l->cond);
	pthread_mutex_unlock(&l->lock);
	return NULL;
}

#define LIVE_PREFIX "tract-top."

/*
 * The private stores of live tops that died without removing theirs (kill
 * -9): named tract-top.PID.XXXXXX, they go when PID is gone and they are
 * this user's.
 */
static void remove_stale_stores(void)
{
	struct recorder_user user;
	struct dirent *e;
	DIR *d = opendir("/tmp");

	if (!d)
		return;
	/* a live top's recorder writes its store as the recorder's user */
	recorder_user_find(&user);
	while ((e = readdir(d))) {
		char path[300];
		struct stat st;
		unsigned int pid;
		int n = 0;

		if (sscanf(e->d_name, LIVE_PREFIX "%u.%n", &pid, &n) != 1 || !n ||
		    (kill((pid_t)pid, 0) == 0 || errno != ESRCH))
			continue;
		snprintf(path, sizeof(path), "/tmp/%s", e->d_name);
		if (!lstat(path, &st) && S_ISDIR(st.st_mode) && (st.st_uid == geteuid() || st.st_uid == user.uid)) {
			tract_debug("removing '%s', the store of a live top that is gone", path);
			store_hours_remove_all(path);
		}
	}
	closedir(d);
}

/* Starts recording; 0 once the programs are attached, else the recorder's exit status. */
static int live_start(struct live *l, double hz)
{
	int err;

	remove_stale_stores();
	snprintf(l->dir, sizeof(l->dir), "/tmp/" LIVE_PREFIX "%d.XXXXXX", (int)getpid());
	if (!mkdtemp(l->dir)) {
		tract_err("cannot create a directory for the live store: %s", strerror(errno));
		return 1;
	}
	record_opts_init(&l->rec);
	l->rec.hz = hz;
	l->rec.dir = l->dir;
	l->rec.store = store_kind_named("sqlite");
	pthread_mutex_init(&l->lock, NULL);
	pthread_cond_init(&l->cond, NULL);
	record_install_signals();
	err = pthread_create(&l->thread, NULL, live_main, l);
	if (err) {
		tract_err("cannot start the recorder: %s", strerror(err));
		store_hours_remove_all(l->dir);
		return 1;
	}
	pthread_mutex_lock(&l->lock);
	while (!l->ready && !l->done)
		pthread_cond_wait(&l->cond, &l->lock);
	pthread_mutex_unlock(&l->lock);
	if (l->done) {
		pthread_join(l->thread, NULL);
		store_hours_remove_all(l->dir);
		return l->status;
	}
	return 0;
}

static void live_stop(struct live *l)
{
	record_request_stop();
	pthread_kill(l->thread, SIGUSR1);
	pthread_join(l->thread, NULL);
	store_hours_remove_all(l->dir);
}

/* ---- batch ---- */

static void sleep_ns(uint64_t ns)
{
	struct timespec ts = { .tv_sec = (time_t)(ns / NSEC_PER_SEC), .tv_nsec = (long)(ns % NSEC_PER_SEC) };

	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
}

static void print_timeline(const struct top *t, int utf8)
{
	double max = top__timeline_max(t);
	char glyph[8];

	fputs("timeline |", stdout);
	for (size_t i = 0; i < t->ntimeline; i++)
		fputs(top__spark(t->timeline[i], max, utf8, glyph), stdout);
	printf("| max %.2f\n", max);
}

static int batch(struct top *t, const struct top_opts *o, int wait_first)
{
	for (uint64_t i = 0; i < o->iterations; i++) {
		if (i || wait_first)
			sleep_ns(o->interval_ns);
		int err = top__refresh(t, 60);

		/* what failed has said so on stderr already */
		if (err)
			return exit_status(err);
		printf("tract top - %s   group: %s   filter: %s\n", t->mode, top__level(t)->group,
		       top__level(t)->filter ? top__level(t)->filter : "-");
		print_timeline(t, t->q.render.utf8);
		render_groups(stdout, &t->res, &t->q.render);
		if (i + 1 < o->iterations)
			putchar('\n');
		fflush(stdout);
	}
	return 0;
}

int cmd_top(int argc, char **argv)
{
	struct top_opts o;
	struct live live = { 0 };
	struct store_reader set;
	struct top t;
	char mode[256];
	int err = top_parse_args(argc, argv, &o), follow = 1;
	uint64_t span = o.span_us;

	if (err)
		return err > 0 ? 0 : EXIT_USAGE;
	o.q.render.utf8 = query_utf8_terminal();
	/* getch() on a pipe or /dev/null returns at once: the screen would spin */
	if (!o.batch && (!isatty(STDIN_FILENO) || !isatty(STDOUT_FILENO))) {
		tract_usage_error("top", "%s", "the screen needs a terminal on stdin and stdout; -b prints text");
		return EXIT_USAGE;
	}
	if (o.live) {
		err = live_start(&live, o.hz);
		if (err)
			return err;
		/* the screen needs no privilege at all; the recorder thread dropped its own */
		if (drop_all_privileges()) {
			live_stop(&live);
			return EXIT_RUNTIME;
		}
		o.q.dir = live.dir;
		snprintf(mode, sizeof(mode), "live");
	} else if (o.q.has_from || o.q.has_to) {
		if (query_open_store(&o.q, &set))
			return EXIT_RUNTIME;
		err = query_resolve_range(&set, &o.q);
		store_reader__free(&set);
		if (err)
			return exit_status(err);
		span = o.q.to_us - o.q.from_us;
		follow = 0;
		snprintf(mode, sizeof(mode), "history of %.*s", 200, query_store_name(&o.q));
	} else {
		if (query_open_store(&o.q, &set))
			return EXIT_RUNTIME;
		store_reader__free(&set);
		snprintf(mode, sizeof(mode), "following %.*s", 200, query_store_name(&o.q));
	}
	top__init(&t, &o.q, mode, span, follow);
	if (o.batch)
		err = batch(&t, &o, o.live);
	else
		err = top_screen_run(&t, (unsigned int)(o.interval_ns / 1000000), o.q.render.utf8);
	top__free(&t);
	if (o.live)
		live_stop(&live);
	return err;
}
