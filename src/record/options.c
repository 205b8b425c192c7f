// SPDX-License-Identifier: GPL-2.0-only
/* The options of tract record, parsed apart from running so they can be tested. */
#include <errno.h>
#include <getopt.h>
#include <grp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "ch_login.h"
#include "clock.h"
#include "parse.h"
#include "record.h"
#include "reader.h"
#include "syscalls.h"
#include "util.h"

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
"      --unwind HOW         how user stacks are walked: cfi (default; the top\n"
"                           16 KiB of the stack copied and unwound by .eh_frame,\n"
"                           whole through code without frame pointers) or fp\n"
"                           (frame pointers only: less work, broken stacks\n"
"                           through libc and most distribution binaries)\n"
"      --no-syscall-latency do not keep per-process syscall latency histograms\n"
"                           (kept by default: a sys_exit program, two clock reads\n"
"                           per timed syscall)\n"
"      --untimed-syscalls LIST  syscalls left out of the histograms (default:\n"
"                           getpid, getppid, gettid, clock_gettime, ..., which never wait)\n"
"      --no-wakeup-edges    do not keep waker -> wakee counts and delays per process\n"
"                           pair (kept by default: a sched_switch program)\n"
"      --runq-latency       keep per-process histograms of the wait for a CPU\n"
"                           (a clock read per switch and wakeup, so off by default)\n"
"      --profile-hz HZ      on-CPU profile ticks per second per CPU (default 49, 0: off):\n"
"                           what running threads run, and a profile table\n"
"      --no-titles          do not read the processes' titles (their command lines,\n"
"                           which can hold what a program was given: passwords too)\n"
"      --clickhouse URL     ship every pass to ClickHouse too (http[s]://host:port),\n"
"                           through a spool under the store directory that outlives\n"
"                           the recorder: nothing lost, nothing doubled\n"
"      --host NAME          the host column of the shipped rows (default: the hostname)\n"
"      --clickhouse-user USER             ClickHouse's user (default: default)\n"
"      --clickhouse-password-file FILE    its password, from a file only its owner reads\n"
"      --clickhouse-ca FILE               the CA certificate for https\n"
"      --no-local           ship only: keep no local store (the spool stays)\n"
"      --spool-max SIZE     bound the spool (default 1G); beyond it the oldest\n"
"                           batches are dropped, and counted\n"
"      --ship-every DURATION\n"
"                           seal and send a batch this often (default 2s, 1s to\n"
"                           10m); each is one INSERT a table: a fleet raises it\n"
"  -v, --verbose            say more, including libbpf's messages\n"
"  -h, --help               show this help\n"
"\n"
"Examples:\n"
"  sudo tract record                      print active threads every second\n"
"  sudo tract record -F 10 -d 60 -o /var/lib/tract-test  record a minute at 10 Hz\n"
"  sudo tract record --format sqlite      record to $TRACT_DATA until stopped\n";

enum { OPT_FORMAT = 256, OPT_IDLE_GRACE, OPT_IDLE_SYSCALLS, OPT_NO_KSTACKS, OPT_NO_USTACKS, OPT_KEEP, OPT_GROUP, OPT_SOURCE,
       OPT_MAX_SIZE, OPT_SYSCALL_LATENCY, OPT_WAKEUP_EDGES, OPT_RUNQ_LATENCY, OPT_PROFILE_HZ,
       OPT_NO_SYSCALL_LATENCY, OPT_NO_WAKEUP_EDGES, OPT_UNTIMED_SYSCALLS,
       OPT_UNWIND, OPT_CLICKHOUSE, OPT_HOST, OPT_CH_USER, OPT_CH_PASSWORD_FILE, OPT_CH_CA, OPT_NO_LOCAL,
       OPT_SPOOL_MAX, OPT_SHIP_EVERY, OPT_NO_TITLES };

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
	{ "unwind", required_argument, NULL, OPT_UNWIND },
	{ "clickhouse", required_argument, NULL, OPT_CLICKHOUSE },
	{ "host", required_argument, NULL, OPT_HOST },
	{ "clickhouse-user", required_argument, NULL, OPT_CH_USER },
	{ "clickhouse-password-file", required_argument, NULL, OPT_CH_PASSWORD_FILE },
	{ "clickhouse-ca", required_argument, NULL, OPT_CH_CA },
	{ "no-local", no_argument, NULL, OPT_NO_LOCAL },
	{ "spool-max", required_argument, NULL, OPT_SPOOL_MAX },
	{ "ship-every", required_argument, NULL, OPT_SHIP_EVERY },
	/* the defaults now; still taken, so that older command lines run */
	{ "syscall-latency", no_argument, NULL, OPT_SYSCALL_LATENCY },
	{ "wakeup-edges", no_argument, NULL, OPT_WAKEUP_EDGES },
	{ "no-syscall-latency", no_argument, NULL, OPT_NO_SYSCALL_LATENCY },
	{ "no-wakeup-edges", no_argument, NULL, OPT_NO_WAKEUP_EDGES },
	{ "untimed-syscalls", required_argument, NULL, OPT_UNTIMED_SYSCALLS },
	{ "runq-latency", no_argument, NULL, OPT_RUNQ_LATENCY },
	{ "profile-hz", required_argument, NULL, OPT_PROFILE_HZ },
	{ "no-titles", no_argument, NULL, OPT_NO_TITLES },
	{ "verbose", no_argument, NULL, 'v' },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

/* A pid that names a process now: not gone, and not one of a process's threads. */
static int check_process(uint32_t pid)
{
	char path[64], line[256];
	long tgid = -1;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%u/status", pid);
	f = fopen(path, "re");
	if (!f)
		return tract_usage_error("record", "no process %u for --pid", pid);
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "Tgid: %ld", &tgid) == 1)
			break;
	fclose(f);
	if (tgid >= 0 && tgid != (long)pid)
		return tract_usage_error("record", "%u is a thread of process %ld; --pid takes process ids", pid, tgid);
	return 0;
}

static int bad_value(const char *opt, const char *value, const char *expected)
{
	return tract_usage_error("record", "invalid value '%s' for %s: expected %s", value, opt, expected);
}

/* 0, 1 when --help was shown, or -EINVAL after a message. */
void record_opts_init(struct record_opts *o)
{
	const char *bad;

	memset(o, 0, sizeof(*o));
	o->hz = 1;
	o->sampler.idle_grace_ns = TRACT_IDLE_GRACE_DEFAULT_NS;
	o->sampler.kstacks = 1;
	o->sampler.ustacks = 1;
	o->sampler.unwind_cfi = 1;
	o->spool_max = 1ull << 30;
	o->ship_every_us = 2000000;
	o->sampler.profile_hz = 49;
	o->sampler.titles = 1;
	o->sampler.syscall_latency = 1;
	o->sampler.wakeup_edges = 1;
	o->gid = -1;
	syscall_set__parse(default_idle_syscalls, o->sampler.idle_syscalls, 0, &bad);
	syscall_set__parse(default_untimed_syscalls, o->sampler.untimed_syscalls, 0, &bad);
	fd_syscalls_bitmap(o->sampler.fd_syscalls, TRACT_SYSCALLS_MAX);
}

int record_parse_hz(const char *s, double *hz)
{
	return parse_hz(s, MAX_HZ, hz);
}

int record_parse_args(int argc, char **argv, struct record_opts *o)
{
	const char *bad, *idle_list = NULL, *untimed_list = NULL;
	const struct store_kind *format = NULL;
	int c, unwind_given = 0, spool_given = 0;
	uint64_t v;

	record_opts_init(o);
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":F:d:o:p:avh", record_options, NULL)) != -1) {
		switch (c) {
		case 'F':
			if (record_parse_hz(optarg, &o->hz))
				return tract_usage_error("record", "invalid value '%s' for --frequency: %s", optarg,
							 RECORD_HZ_EXPECTED);
			break;
		case 'd':
			if (parse_seconds(optarg, &o->duration_ns))
				return bad_value("--duration", optarg, "a positive number of seconds");
			break;
		case 'o':
			o->dir = optarg;
			break;
		case OPT_FORMAT:
			format = store_kind_named(optarg);
			if (!format)
				return bad_value("--format", optarg, "sqlite or csv");
			break;
		case 'p':
			if (parse_pid_list(optarg, o->sampler.pids, TRACT_PID_FILTER_MAX, &o->sampler.nr_pids))
				return bad_value("--pid", optarg, "process ids separated by commas (at most 64)");
			for (size_t i = 0; i < o->sampler.nr_pids; i++)
				if (check_process(o->sampler.pids[i]))
					return -EINVAL;
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
		case OPT_CLICKHOUSE:
			if (ch_url_problem(optarg))
				return bad_value("--clickhouse", optarg, ch_url_problem(optarg));
			o->ch_url = optarg;
			break;
		case OPT_HOST:
			o->ch_host = optarg;
			break;
		case OPT_CH_USER:
			o->ch_user = optarg;
			break;
		case OPT_CH_PASSWORD_FILE:
			o->ch_password_file = optarg;
			break;
		case OPT_CH_CA:
			o->ch_ca_file = optarg;
			break;
		case OPT_NO_LOCAL:
			o->no_local = 1;
			break;
		case OPT_SPOOL_MAX:
			if (parse_size(optarg, &o->spool_max) || o->spool_max < 1048576)
				return bad_value("--spool-max", optarg, "a size of 1M or more, such as 500M or 2G");
			spool_given = 1;
			break;
		case OPT_SHIP_EVERY:
			if (parse_duration(optarg, &o->ship_every_us) || o->ship_every_us < 1000000 ||
			    o->ship_every_us > 600000000)
				return bad_value("--ship-every", optarg, "a duration from 1s to 10m, such as 30s");
			spool_given = 1;
			break;
		case OPT_UNWIND:
			if (strcmp(optarg, "cfi") && strcmp(optarg, "fp"))
				return bad_value("--unwind", optarg, "cfi or fp");
			o->sampler.unwind_cfi = !strcmp(optarg, "cfi");
			unwind_given = 1;
			break;
		case OPT_SYSCALL_LATENCY:
			o->sampler.syscall_latency = 1;
			break;
		case OPT_WAKEUP_EDGES:
			o->sampler.wakeup_edges = 1;
			break;
		case OPT_NO_SYSCALL_LATENCY:
			o->sampler.syscall_latency = 0;
			break;
		case OPT_NO_WAKEUP_EDGES:
			o->sampler.wakeup_edges = 0;
			break;
		case OPT_NO_TITLES:
			o->sampler.titles = 0;
			break;
		case OPT_UNTIMED_SYSCALLS:
			untimed_list = optarg;
			break;
		case OPT_PROFILE_HZ:
			if (!strcmp(optarg, "0"))
				o->sampler.profile_hz = 0;
			else if (parse_hz(optarg, MAX_HZ, &o->sampler.profile_hz))
				return bad_value("--profile-hz", optarg, "ticks per second per CPU in [0, 1000]");
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
		default:
			return option_error("record", c, argv);
		}
	}
	if (optind < argc)
		return tract_usage_error("record", "unexpected argument '%s'", argv[optind]);
	if (unwind_given && !o->sampler.ustacks)
		return tract_usage_error("record", "%s", "--unwind is how user stacks are walked: not with --no-ustacks");
	if (idle_list && syscall_set__parse(idle_list, o->sampler.idle_syscalls, 1, &bad))
		return bad_value("--idle-syscalls", bad, "syscall names separated by commas");
	if (untimed_list && syscall_set__parse(untimed_list, o->sampler.untimed_syscalls, 1, &bad))
		return bad_value("--untimed-syscalls", bad, "syscall names separated by commas");
	if (o->dir || format || o->ch_url) {
		o->store = format ? format : &store_kinds[0];
		if (!o->dir)
			o->dir = store_default_dir();
	}
	if (!o->ch_url && (o->no_local || o->ch_host || o->ch_user || o->ch_password_file || o->ch_ca_file || spool_given))
		return tract_usage_error("record", "%s",
					 "--no-local, --host, --spool-max, --ship-every and the --clickhouse-* options need --clickhouse");
	if (o->no_local)
		o->store = NULL;
	return 0;
}
