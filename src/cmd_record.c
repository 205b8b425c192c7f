// SPDX-License-Identifier: GPL-2.0-only
/* tract record: drive the sampler on an absolute schedule and store every pass. */
#include <errno.h>
#include <getopt.h>
#include <grp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/prctl.h>
#include <time.h>
#include <unistd.h>
#include "clock.h"
#include "blockdev.h"
#include "cgroups.h"
#include "commands.h"
#include "files.h"
#include "ksyms.h"
#include "parse.h"
#include "procinfo.h"
#include "privileges.h"
#include "record.h"
#include "runq.h"
#include "sampler.h"
#include "sink.h"
#include "stackdict.h"
#include "usyms.h"
#include "syscalls.h"
#include "util.h"
#include "writer.h"

static volatile sig_atomic_t stop_requested;

static void on_stop_signal(int sig)
{
	(void)sig;
	stop_requested = 1;
}

static const char record_usage[] =
"Usage: tract record [options]\n"
"\n"
"Sample what every thread is doing, a few times a second, and print the\n"
"active threads or store them for tract query and tract top.\n"
"\n"
"Options:\n"
"  -F, --frequency HZ       passes per second (default 1, up to 1000; 0.5 = every 2 s)\n"
"  -d, --duration SECONDS   stop after this long (default: until SIGINT or SIGTERM)\n"
"  -o, --output DIR         store hourly files in DIR instead of printing\n"
"      --format FORMAT      store format: sqlite (default) or csv; without -o,\n"
"                           stores in $TRACT_DATA or " DEFAULT_DATA_DIR "\n"
"  -p, --pid PID[,PID...]   only threads of these processes\n"
"      --source SOURCE      bpf, or proc (less detail, no root needed); by default\n"
"                           bpf, and proc where BPF cannot be used\n"
"  -a, --all                every thread, not only the active ones\n"
"      --idle-grace MS      an idle wait counts as active while younger than this\n"
"                           (default 10)\n"
"      --idle-syscalls LIST comma-separated syscalls that are idle waits\n"
"                           (default: futex, epoll_wait, poll, select, nanosleep, ...)\n"
"      --group GROUP        let GROUP read the store (the directory becomes setgid)\n"
"      --keep DURATION      delete store hours older than this (e.g. 7d, 12h)\n"
"      --max-size SIZE      delete the oldest store hours beyond this size (e.g. 2G)\n"
"      --no-kstacks         do not take kernel stacks\n"
"      --no-ustacks         do not take user stacks\n"
"      --syscall-latency    keep per-process syscall latency histograms\n"
"                           (adds a sys_exit program and a clock read per syscall)\n"
"      --wakeup-edges       keep waker -> wakee counts and delays per process pair\n"
"                           (adds a sched_switch program and a hash update per wakeup)\n"
"      --runq-latency       keep per-process histograms of the wait for a CPU\n"
"                           (the same program, a clock read per switch and wakeup)\n"
"  -v, --verbose            say more, including libbpf's messages\n"
"  -h, --help               show this help\n"
"\n"
"Examples:\n"
"  sudo tract record                      print active threads every second\n"
"  sudo tract record -F 10 -d 60 -o /tmp/t  record a minute at 10 Hz\n"
"  sudo tract record --format sqlite      record to $TRACT_DATA until stopped\n";

enum { OPT_FORMAT = 256, OPT_IDLE_GRACE, OPT_IDLE_SYSCALLS, OPT_NO_KSTACKS, OPT_NO_USTACKS, OPT_KEEP, OPT_GROUP, OPT_SOURCE,
       OPT_MAX_SIZE, OPT_SYSCALL_LATENCY, OPT_WAKEUP_EDGES, OPT_RUNQ_LATENCY };

static const struct option record_options[] = {
	{ "frequency", required_argument, NULL, 'F' },
	{ "duration", required_argument, NULL, 'd' },
	{ "output", required_argument, NULL, 'o' },
	{ "format", required_argument, NULL, OPT_FORMAT },
	{ "pid", required_argument, NULL, 'p' },
	{ "all", no_argument, NULL, 'a' },
	{ "idle-grace", required_argument, NULL, OPT_IDLE_GRACE },
	{ "idle-syscalls", required_argument, NULL, OPT_IDLE_SYSCALLS },
	{ "keep", required_argument, NULL, OPT_KEEP },
	{ "source", required_argument, NULL, OPT_SOURCE },
	{ "group", required_argument, NULL, OPT_GROUP },
	{ "max-size", required_argument, NULL, OPT_MAX_SIZE },
	{ "no-kstacks", no_argument, NULL, OPT_NO_KSTACKS },
	{ "no-ustacks", no_argument, NULL, OPT_NO_USTACKS },
	{ "syscall-latency", no_argument, NULL, OPT_SYSCALL_LATENCY },
	{ "wakeup-edges", no_argument, NULL, OPT_WAKEUP_EDGES },
	{ "runq-latency", no_argument, NULL, OPT_RUNQ_LATENCY },
	{ "verbose", no_argument, NULL, 'v' },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

static int bad_value(const char *opt, const char *value, const char *expected)
{
	return tract_usage_error("record", "invalid value '%s' for %s: expected %s", value, opt, expected);
}

/* 0, 1 when --help was shown, or -EINVAL after a message. */
int record_parse_args(int argc, char **argv, struct record_opts *o)
{
	const char *bad, *idle_list = default_idle_syscalls;
	int format = -1, c;
	uint64_t v;

	memset(o, 0, sizeof(*o));
	o->hz = 1;
	o->sampler.idle_grace_ns = 10 * 1000000ull;
	o->sampler.kstacks = 1;
	o->sampler.ustacks = 1;
	o->gid = -1;
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":F:d:o:p:avh", record_options, NULL)) != -1) {
		switch (c) {
		case 'F':
			if (parse_hz(optarg, MAX_HZ, &o->hz))
				return bad_value("--frequency", optarg, "a number of passes per second in (0, 1000]");
			break;
		case 'd':
			if (parse_seconds(optarg, &o->duration_ns))
				return bad_value("--duration", optarg, "a positive number of seconds");
			break;
		case 'o':
			o->dir = optarg;
			break;
		case OPT_FORMAT:
			if (!strcmp(optarg, "sqlite"))
				format = OUT_SQLITE;
			else if (!strcmp(optarg, "csv"))
				format = OUT_CSV;
			else
				return bad_value("--format", optarg, "sqlite or csv");
			break;
		case 'p':
			if (parse_pid_list(optarg, o->sampler.pids, TRACT_PID_FILTER_MAX, &o->sampler.nr_pids))
				return bad_value("--pid", optarg, "process ids separated by commas (at most 64)");
			break;
		case 'a':
			o->sampler.all_threads = 1;
			break;
		case OPT_IDLE_GRACE:
			if (parse_u64(optarg, 0, 3600 * 1000, &v))
				return bad_value("--idle-grace", optarg, "milliseconds");
			o->sampler.idle_grace_ns = v * 1000000;
			break;
		case OPT_IDLE_SYSCALLS:
			idle_list = optarg;
			break;
		case OPT_SOURCE:
			if (!strcmp(optarg, "bpf"))
				o->source = SOURCE_BPF;
			else if (!strcmp(optarg, "proc"))
				o->source = SOURCE_PROC;
			else
				return bad_value("--source", optarg, "bpf or proc");
			break;
		case OPT_GROUP: {
			struct group *g = getgrnam(optarg);

			if (g)
				o->gid = g->gr_gid;
			else if (parse_u64(optarg, 0, 0x7fffffff, &v) == 0)
				o->gid = (long)v;
			else
				return bad_value("--group", optarg, "a group name or number");
			break;
		}
		case OPT_KEEP:
			if (parse_duration(optarg, &o->keep_us) || o->keep_us < 3600000000ull)
				return bad_value("--keep", optarg, "a duration of an hour or more, such as 12h or 7d");
			break;
		case OPT_MAX_SIZE:
			if (parse_size(optarg, &o->max_bytes) || o->max_bytes < 1048576)
				return bad_value("--max-size", optarg, "a size of 1M or more, such as 500M or 2G");
			break;
		case OPT_NO_KSTACKS:
			o->sampler.kstacks = 0;
			break;
		case OPT_NO_USTACKS:
			o->sampler.ustacks = 0;
			break;
		case OPT_SYSCALL_LATENCY:
			o->sampler.syscall_latency = 1;
			break;
		case OPT_WAKEUP_EDGES:
			o->sampler.wakeup_edges = 1;
			break;
		case OPT_RUNQ_LATENCY:
			o->sampler.runq_latency = 1;
			break;
		case 'v':
			tract_verbose = 1;
			break;
		case 'h':
			fputs(record_usage, stdout);
			return 1;
		case ':':
			return tract_usage_error("record", "option '%s' needs a value", argv[optind - 1]);
		default:
			return tract_usage_error("record", "unknown option '%s'", argv[optind - 1]);
		}
	}
	if (optind < argc)
		return tract_usage_error("record", "unexpected argument '%s'", argv[optind]);
	if (idle_syscalls__parse(idle_list, o->sampler.idle_syscalls, idle_list != default_idle_syscalls, &bad))
		return bad_value("--idle-syscalls", bad, "syscall names separated by commas");
	fd_syscalls_bitmap(o->sampler.fd_syscalls, IDLE_SYSCALLS_MAX);
	if (o->dir || format >= 0) {
		o->output = format >= 0 ? (enum output)format : OUT_SQLITE;
		if (!o->dir)
			o->dir = getenv("TRACT_DATA") && *getenv("TRACT_DATA") ? getenv("TRACT_DATA") : DEFAULT_DATA_DIR;
	}
	return 0;
}

void record_install_signals(void)
{
	struct sigaction sa = { .sa_handler = on_stop_signal };

	/* no SA_RESTART: the sleep between passes must end at once */
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	/* what tract top sends the recorder's thread, to end its sleep */
	sigaction(SIGUSR1, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
}

static void sleep_until(uint64_t deadline_ns)
{
	struct timespec ts = { .tv_sec = deadline_ns / NSEC_PER_SEC, .tv_nsec = deadline_ns % NSEC_PER_SEC };

	while (!stop_requested && clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR)
		;
}

/*
 * Two seconds of passes ride out a WAL checkpoint behind a busy disk; more
 * would only hold memory (a pass of 10,000 threads is over a megabyte).
 */
static size_t writer_depth(double hz)
{
	double n = hz * 2;

	return n < 4 ? 4 : n > 32 ? 32 : (size_t)n;
}

struct record_totals {
	uint64_t passes, rows, dropped;
};

/*
 * The sampler thread gets a higher weight (nice -10, this thread only; the
 * writer keeps the default): when every CPU is busy, that is when the passes
 * matter most, and a pass costs milliseconds.
 */
static void raise_sampler_priority(void)
{
	if (setpriority(PRIO_PROCESS, 0, -10))
		tract_debug("cannot raise the sampler's priority: %s", strerror(errno));
}

static int record_loop(const struct record_opts *o, struct sampler *sampler, struct writer *writer,
		       struct record_totals *tot)
{
	uint64_t interval = (uint64_t)(NSEC_PER_SEC / o->hz), start = mono_ns(), prev = 0;
	uint64_t end = o->duration_ns ? start + o->duration_ns : UINT64_MAX, rng = start ^ (uint64_t)getpid();
	struct pass spare = { 0 };
	int err = 0;

	/*
	 * The pass runs at the moment drawn, not with whatever timer expires
	 * within the default 50 us of slack after it.
	 */
	prctl(PR_SET_TIMERSLACK, 1UL);
	for (uint64_t slot = start; !stop_requested && slot < end; slot = next_slot(start, interval, slot, mono_ns())) {
		uint64_t t0, cpu0, at = pass_time(slot, interval, mono_ns(), random_next(&rng));
		struct pass *p;

		if (at >= end)
			break;
		sampler__rest(sampler);
		sleep_until(at);
		if (stop_requested)
			break;
		/* with the queue full the pass is still taken, to keep weights and counters true */
		p = writer__claim(writer);
		if (!p) {
			pass__reset(&spare);
			p = &spare;
		}
		p->seq = tot->passes;
		t0 = mono_ns();
		cpu0 = thread_cpu_us();
		p->ts_us = realtime_us();
		/*
		 * One pass at a random moment of each interval stands for that
		 * interval: weighting it by the time since the previous pass would
		 * favour the passes that fall late in theirs.
		 */
		p->weight_us = interval / 1000;
		p->unsampled_us = slots_skipped(prev, slot, interval) * interval / 1000;
		prev = slot;
		err = sampler__pass(sampler, p);
		if (err)
			break;
		pass__count_load(p);
		p->duration_us = (mono_ns() - t0) / 1000;
		p->cpu_us = thread_cpu_us() - cpu0;
		tot->passes++;
		tot->rows += p->nr;
		tot->dropped += p->dropped;
		if (p != &spare)
			writer__submit(writer, p);
	}
	pass__free_rows(&spare);
	return err;
}

/*
 * BPF unless told otherwise; where BPF cannot be used (not root, no BTF, an
 * old kernel, refused), /proc, saying so once after the reason.
 */
static int open_source(const struct record_opts *o, const struct resolvers *res, struct sampler **out)
{
	int err;

	if (o->source == SOURCE_PROC)
		return source_proc__open(&o->sampler, res, out);
	err = source_bpf__open(&o->sampler, res, out);
	if (!err || o->source == SOURCE_BPF || (err != -EPERM && err != -ENOTSUP && err != -EACCES))
		return err;
	tract_warn("using the /proc source instead: no wakers, no times in syscalls or states, "
		   "no RUNQ and no user stacks (tract(8), SOURCES)");
	return source_proc__open(&o->sampler, res, out);
}

void record_request_stop(void)
{
	stop_requested = 1;
}

int record_run(const struct record_opts *o, void (*ready)(void *arg), void *arg)
{
	struct store_config store = { .source = "bpf" };
	struct record_totals tot = { 0 };
	struct writer_stats ws = { 0 };
	struct writer *writer;
	struct sampler *sampler = NULL;
	struct resolvers res = { 0 };
	struct ksyms *ks = NULL;
	struct usyms *us = NULL;
	struct sink *sink = NULL;
	int err;

	ks = ksyms__load(NULL);
	if (!ks && o->sampler.kstacks)
		tract_warn("cannot read kernel symbols (%s); stacks will show addresses", strerror(errno));
	if (o->sampler.ustacks)
		us = usyms__new(0);
	res.stacks = stackdict__new(ks, us);
	res.procs = procinfo__new(NULL);
	res.cgroups = cgroups__new();
	res.files = files__new(NULL);
	res.runq = runq_history__new();
	res.blockdevs = blockdevs__new(NULL);
	err = open_source(o, &res, &sampler);
	if (err) {
		err = (err == -EPERM || err == -ENOTSUP) ? EXIT_USAGE : 1;
		goto cleanup;
	}
	store.source = sampler__name(sampler);
	store.dir = o->dir;
	store.frequency_hz = o->hz;
	store.keep_us = o->keep_us;
	store.gid = o->gid;
	store.max_bytes = o->max_bytes;
	if (o->output == OUT_TERMINAL)
		sink = sink_term__new(stdout);
	else if ((o->output == OUT_SQLITE ? store_sqlite__open(&store, &sink) : store_csv__open(&store, &sink))) {
		err = 1;
		goto cleanup;
	}
	if (ready)
		ready(arg);
	tract_debug("sampling at %g Hz%s%s", o->hz, o->dir ? " into " : "", o->dir ? o->dir : "");
	/* before the writer thread exists: capabilities are per thread, and it inherits them */
	raise_sampler_priority();
	drop_privileges(!strcmp(store.source, "proc") && o->sampler.kstacks);
	writer = writer__start(sink, writer_depth(o->hz));
	err = record_loop(o, sampler, writer, &tot) ? 1 : 0;
	writer__stop(writer, &ws);
	if (!ready && (o->output != OUT_TERMINAL || tract_verbose))
		fprintf(stderr, "tract: %llu passes, %llu rows, %llu rows dropped, %llu passes not stored\n",
			(unsigned long long)tot.passes, (unsigned long long)tot.rows,
			(unsigned long long)tot.dropped, (unsigned long long)(ws.failed + ws.overflowed));
cleanup:
	sink__close(sink);
	sampler__free(sampler);
	blockdevs__free(res.blockdevs);
	runq_history__free(res.runq);
	files__free(res.files);
	cgroups__free(res.cgroups);
	procinfo__free(res.procs);
	stackdict__free(res.stacks);
	usyms__free(us);
	ksyms__free(ks);
	return err;
}

int cmd_record(int argc, char **argv)
{
	struct record_opts o;
	int err = record_parse_args(argc, argv, &o);

	if (err)
		return err > 0 ? 0 : EXIT_USAGE;
	record_install_signals();
	return record_run(&o, NULL, NULL);
}
