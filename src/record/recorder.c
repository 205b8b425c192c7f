// SPDX-License-Identifier: GPL-2.0-only
/* The recorder: drive the sampler on an absolute schedule and hand every pass to the writer. */
#include <errno.h>
#include <limits.h>
#include <sys/stat.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/prctl.h>
#include <time.h>
#include <unistd.h>
#include "blockdev.h"
#include "cgroups.h"
#include "ended_inputs.h"
#include "repeats.h"
#include "clock.h"
#include "crash_report.h"
#include "files.h"
#include "irqs.h"
#include "last_stop.h"
#include "ksyms.h"
#include "procinfo.h"
#include "proctitle.h"
#include "privileges.h"
#include "reader.h"
#include "host_steal.h"
#include "record.h"
#include "runq.h"
#include "sampler.h"
#include "ch_login.h"
#include "ch_sink.h"
#include "sink.h"
#include "stackdict.h"
#include "targets.h"
#include "thread_sched.h"
#include "usyms.h"
#include "util.h"
#include "writer.h"

static volatile sig_atomic_t stop_requested;

/* the signal that stopped the recorder, for its summary (0: none, or it ended on its own) */
static volatile sig_atomic_t stop_signal;

static void on_stop_signal(int sig)
{
	if (sig != SIGUSR1)
		stop_signal = sig;
	stop_requested = 1;
}

void record_install_signals(void)
{
	struct sigaction sa = { .sa_handler = on_stop_signal };

	/* no SA_RESTART: the sleep between passes must end at once */
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	/* a closed terminal or ssh session: stop as on the others, storing what is queued */
	sigaction(SIGHUP, &sa, NULL);
	/* what tract top sends the recorder's thread, to end its sleep */
	sigaction(SIGUSR1, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
	crash_report_install();
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

/* The shortest slice the kernel grants a fair task (EEVDF's custom slices, 6.12 on). */
#define SAMPLER_SLICE_NS 100000

/*
 * The sampler thread gets a higher weight (nice -10, this thread only; the
 * writer keeps the nice value tract was started with): when every CPU is busy, that is when the passes
 * matter most, and a pass costs milliseconds.  It also asks for a short
 * slice: a waking task with a shorter slice than the running one preempts
 * it, where otherwise the running task keeps its CPU to the end of its own
 * slice, and the sampler reaches the threads later after the pass's moment.
 */
static void raise_sampler_priority(void)
{
	int err = thread_sched_set(-10, SAMPLER_SLICE_NS);

	if (err)
		tract_debug("cannot raise the sampler's priority: %s", strerror(-err));
}

/*
 * The histograms, the wakeup edges and the profile's ticks go into a pass
 * once a second, and into the last: at the default rate that is every pass,
 * and at 10 a second a tenth of the rows (a key that comes back in every
 * pass makes one row a second, not ten), where a finer time than a second
 * tells nothing a histogram is read for.  Decided on the passes' own
 * schedule: a pass whose interval ends a second or more after the one of
 * the previous take (half an interval of slack, so that at 1 Hz every pass
 * does).
 */
static int sums_due(uint64_t slot, uint64_t interval, uint64_t sums_slot, int taken)
{
	return !taken || slot + interval / 2 >= sums_slot + NSEC_PER_SEC;
}

/* The part of a pass's interval gone by at now: a last pass taken before its moment stands for no more. */
static uint64_t interval_part_gone(uint64_t slot, uint64_t interval, uint64_t now)
{
	return now <= slot ? 0 : now - slot < interval ? now - slot : interval;
}

/* Why the recording stops after this pass, for its stop column: one word, as the column's doc lists them. */
static const char *stop_reason(int targets_gone, int duration_reached)
{
	if (stop_signal)
		return stop_signal == SIGHUP ? "SIGHUP" : stop_signal == SIGINT ? "SIGINT" : "SIGTERM";
	if (stop_requested)
		return "requested";
	if (targets_gone)
		return "targets_exited";
	return duration_reached ? "duration" : NULL;
}

/*
 * The sampler failed (its message said why): the pass it was filling is
 * stored empty, standing for no time, to say in the store that the
 * recording stopped on an error.
 */
static void stop_on_error(struct writer *writer, struct pass *p, struct pass *spare)
{
	uint64_t ts_us = p->ts_us;

	if (p == spare)
		return;
	pass__reset(p);
	p->ts_us = ts_us;
	p->stop = "error";
	writer__submit(writer, p);
}

static int record_loop(const struct record_opts *o, struct sampler *sampler, struct writer *writer,
		       struct record_totals *tot)
{
	uint64_t interval = (uint64_t)(NSEC_PER_SEC / o->hz), start = mono_ns(), prev = 0, sums_slot = 0;
	uint64_t end = o->duration_ns ? start + o->duration_ns : UINT64_MAX, rng = start ^ (uint64_t)getpid();
	uint64_t slot = start, at = pass_time(slot, interval, start, random_next(&rng));
	struct targets *targets = targets__open(o->sampler.pids, o->sampler.nr_pids);
	struct ended_inputs *inputs = ended_inputs__new();
	struct repeats *repeats = repeats__new();
	struct pass spare = { 0 };
	struct host_steal steal;
	int err = 0, taken = 0, last = 0;

	host_steal__open(&steal);

	/*
	 * The pass runs at the moment drawn, not with whatever timer expires
	 * within the default 50 us of slack after it.
	 */
	prctl(PR_SET_TIMERSLACK, 1UL);
	/* until a pass is the last: its stop column then says why */
	while (!last) {
		uint64_t t0, cpu0, next;
		struct pass *p;
		int gone, early;

		sampler__rest(sampler, at);
		sleep_until(at);
		/*
		 * Stopped while waiting for its moment: a last pass all the
		 * same, now, standing for the part of its interval gone by, so
		 * that what the kernel counted since the previous take is
		 * stored, and why the recording stopped.
		 */
		early = stop_requested;
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
		p->weight_us = (early ? interval_part_gone(slot, interval, t0) : interval) / 1000;
		p->unsampled_us = slots_skipped(prev, slot, interval) * interval / 1000;
		prev = slot;
		err = sampler__pass(sampler, p);
		if (err) {
			stop_on_error(writer, p, &spare);
			break;
		}
		host_steal__take(&steal, p);
		/* the next pass drawn now: whether there is one says whether this is the last */
		next = next_slot(start, interval, slot, mono_ns());
		at = pass_time(next, interval, mono_ns(), random_next(&rng));
		gone = targets__gone(targets);
		last = gone || stop_requested || at >= end;
		if (last)
			p->stop = stop_reason(gone, at >= end);
		/* not into a pass the full queue leaves unstored: the next one stored takes them */
		if (p != &spare && (last || sums_due(slot, interval, sums_slot, taken))) {
			sampler__sums(sampler, p);
			sums_slot = slot;
			taken = 1;
		}
		/* before anything counts the rows by their times: a repeat's are set to follow its first's */
		if (p != &spare)
			repeats__judge(repeats, p);
		pass__count_load(p);
		if (p != &spare)
			ended_inputs__take(inputs, p);
		p->duration_us = (mono_ns() - t0) / 1000;
		p->cpu_us = thread_cpu_us() - cpu0;
		tot->passes++;
		tot->rows += p->nr;
		tot->dropped += p->dropped;
		if (p != &spare)
			writer__submit(writer, p);
		if (gone) {
			tract_warn("every process -p names has exited; recording stops");
			break;
		}
		slot = next;
	}
	pass__free_rows(&spare);
	ended_inputs__free(inputs);
	repeats__free(repeats);
	host_steal__close(&steal);
	targets__free(targets);
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

/*
 * A recording the store has that ended without saying why (it was
 * killed, crashed, or its host went down) is told of when the next one
 * starts: otherwise nothing would.
 */
static void tell_last_stop(const char *dir)
{
	struct last_stop ls;
	time_t secs;
	struct tm tm;

	if (!store_last_stop(dir, &ls) || ls.stop[0])
		return;
	secs = (time_t)(ls.ts_us / 1000000);
	gmtime_r(&secs, &tm);
	tract_warn("the recording before this one ended at %04d-%02d-%02d %02d:%02d:%02d UTC without stopping: "
		   "it was killed (kill -9, out of memory), crashed, or its host went down; its stderr or the system's "
		   "log may say which", tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec);
}

void record_request_stop(void)
{
	stop_requested = 1;
}

/*
 * The ClickHouse sink of --clickhouse, spooling under the store directory;
 * its password read before (root's to read), as password.
 */
static int open_clickhouse(const struct record_opts *o, const char *password, struct sink **out)
{
	char host[256], spool[PATH_MAX];
	struct ch_config cfg = {
		.url = o->ch_url, .host = o->ch_host, .user = o->ch_user, .ca_file = o->ch_ca_file,
		.database = "tract", .spool_dir = spool, .spool_max = o->spool_max,
		.store_dir = o->no_local ? NULL : o->dir, .password = o->ch_password_file ? password : NULL,
		.batch_rows = 10000, .batch_us = o->ship_every_us,
	};

	if (!cfg.host) {
		if (gethostname(host, sizeof(host)))
			snprintf(host, sizeof(host), "unknown");
		host[sizeof(host) - 1] = '\0';
		cfg.host = host;
	}
	snprintf(spool, sizeof(spool), "%s/spool", o->dir);
	return ch_sink__open(&cfg, out);
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
	struct sink *sink = NULL, *ch = NULL;
	struct recorder_user user;
	char password[512] = "";
	int err, ks_err, lock = -1, dir = -1;

	/*
	 * At the sampler's weight from the start: loading the programs is
	 * the verifier's CPU (0.14 s of it on 6.18), and at the default weight a
	 * host whose CPUs are busy gives it a share of one (when it was 1.8 s:
	 * 8.6 s before the first pass beside the test workload, whose threads
	 * keep two CPUs busy; 3.2 to 4.5 s at this weight).
	 * Before the writer thread exists: capabilities are per thread, and it
	 * inherits them; it takes the weight tract was started with back.
	 */
	raise_sampler_priority();
	/* read beside the verifier's checking of the programs (0.1 s of a start) */
	ks = ksyms__load_async(NULL);
	if (o->sampler.ustacks)
		us = usyms__new(0);
	res.stacks = stackdict__new(ks, us);
	res.ksyms = ks;
	res.procs = procinfo__new(NULL);
	res.cgroups = cgroups__new();
	res.files = files__new(NULL);
	res.runq = runq_history__new();
	res.blockdevs = blockdevs__new(NULL);
	res.irqs = irqs__new(NULL);
	if (o->sampler.titles)
		res.titles = proctitles__new(NULL);
	err = open_source(o, &res, &sampler);
	if (err) {
		err = (err == -EPERM || err == -ENOTSUP) ? EXIT_USAGE : 1;
		goto cleanup;
	}
	ks_err = ksyms__wait(ks);
	if (ks_err == -EPERM && o->sampler.kstacks)
		tract_warn("%s", "the kernel hides its symbols' addresses (kernel.kptr_restrict): kernel stacks show addresses");
	else if (ks_err && o->sampler.kstacks)
		tract_warn("cannot read kernel symbols (%s); stacks will show addresses", strerror(-ks_err));
	store.source = sampler__name(sampler);
	store.dir = o->dir;
	store.frequency_hz = o->hz;
	store.keep_us = o->keep_us;
	store.gid = o->gid;
	store.max_bytes = o->max_bytes;
	/* what needs root: the store directory checked and handed to the recorder's user, the password read */
	recorder_user_find(&user);
	if ((o->store || o->ch_url) && (dir = store_dir_open(o->dir, o->gid, user.uid)) < 0) {
		err = 1;
		goto cleanup;
	}
	if (o->ch_url && o->ch_password_file &&
	    ch_read_password(o->ch_password_file, password, sizeof(password))) {
		err = 1;
		goto cleanup;
	}
	/* never record with more privilege than it needs: the rest is done as the recorder's user */
	if (drop_privileges(&user, !strcmp(store.source, "proc") && o->sampler.kstacks) ||
	    ((o->store || o->ch_url) && (store_check_writable(o->dir) || (lock = store_lock(o->dir)) < 0))) {
		err = 1;
		goto cleanup;
	}
	if (o->store && !ready)
		tell_last_stop(o->dir);
	if (o->ch_url && open_clickhouse(o, password, &ch)) {
		err = 1;
		goto cleanup;
	}
	if (!o->store && !o->no_local)
		sink = sink_term__new(stdout);
	else if (o->store && o->store->open(&store, &sink)) {
		err = 1;
		goto cleanup;
	}
	if (ch) {
		sink = sink ? sink_tee__new(sink, ch) : ch;
		ch = NULL;
	}
	if (ready)
		ready(arg);
	tract_debug("sampling at %g Hz%s%s", o->hz, o->dir ? " into " : "", o->dir ? o->dir : "");
	writer = writer__start(sink, writer_depth(o->hz));
	err = record_loop(o, sampler, writer, &tot) ? 1 : 0;
	writer__stop(writer, &ws);
	if (!ready && stop_signal)
		fprintf(stderr, "tract: stopped by %s\n", stop_signal == SIGHUP ? "SIGHUP (its terminal closed)" :
			stop_signal == SIGINT ? "SIGINT" : "SIGTERM");
	if (!ready && (o->store || o->ch_url || tract_verbose))
		fprintf(stderr, "tract: %llu passes, %llu rows, %llu rows dropped, %llu passes not stored\n",
			(unsigned long long)tot.passes, (unsigned long long)tot.rows,
			(unsigned long long)tot.dropped, (unsigned long long)(ws.failed + ws.overflowed));
	if (res.titles) {
		struct proctitles_stats ts;

		proctitles__stats(res.titles, &ts);
		tract_debug("process titles: %llu read, %.1f us each; %.1f us a pass", (unsigned long long)ts.reads,
			    ts.reads ? (double)ts.read_ns / 1e3 / (double)ts.reads : 0.0,
			    ts.passes ? (double)ts.fill_ns / 1e3 / (double)ts.passes : 0.0);
	}
	if (!ready && o->store)
		fprintf(stderr, "tract: the store is %s: tract query%s%s reads it\n", o->dir,
			strcmp(o->dir, store_default_dir()) ? " -D " : "", strcmp(o->dir, store_default_dir()) ? o->dir : "");
cleanup:
	explicit_bzero(password, sizeof(password));
	sink__close(sink);
	sink__close(ch);
	if (lock >= 0)
		close(lock);
	if (dir >= 0)
		close(dir);
	sampler__free(sampler);
	proctitles__free(res.titles);
	blockdevs__free(res.blockdevs);
	irqs__free(res.irqs);
	runq_history__free(res.runq);
	files__free(res.files);
	cgroups__free(res.cgroups);
	procinfo__free(res.procs);
	stackdict__free(res.stacks);
	usyms__free(us);
	ksyms__free(ks);
	return err;
}
