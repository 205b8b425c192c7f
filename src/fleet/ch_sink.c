// SPDX-License-Identifier: GPL-2.0-only
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <unistd.h>
#include <time.h>
#include "ch_backfill.h"
#include "ch_gaps.h"
#include "ch_http.h"
#include "ch_rows.h"
#include "ch_schema.h"
#include "ch_send.h"
#include "ch_sink.h"
#include "ch_spool.h"
#include "ch_sql.h"
#include "clock.h"
#include "dict.h"
#include "util.h"

/*
 * How long closing waits for the server to take the spool's next table
 * before it leaves the rest for the next start, and how long in all: a
 * server that takes them, however slowly (a busy host), gets the spool; one
 * that takes nothing holds the stop no longer than DRAIN_NS.
 */
#define DRAIN_NS (5 * NSEC_PER_SEC)
#define DRAIN_MAX_NS (30 * NSEC_PER_SEC)
#define BACKOFF_MAX_NS (30 * NSEC_PER_SEC)
/* Every so many batches (2 s each by default) every stack is sent again (seal_batch()). */
#define STACKS_AGAIN_BATCHES 30

struct ch_sink {
	struct sink base;
	struct ch_config cfg;
	struct ch_spool spool;
	struct ch_http *http;		/* the shipping thread's */
	/* the batch being filled, by the writer thread */
	struct strbuf tables[CH_TABLES];
	uint64_t rows[CH_TABLES], batch_id, batch_start_ns, batch_last_us, sealed;
	struct dict *stacks_sent;	/* stack hashes already in a batch this run */
	/* the shipping thread */
	pthread_t thread;
	pthread_mutex_t lock;
	pthread_cond_t wake;
	volatile int stopping;
	int started;
	uint64_t drain_until_ns;	/* read by a send in flight, which gives up then */
	uint64_t drain_max_ns;
	uint64_t sent_batches, sent_rows;
	uint64_t format_ns, ship_ns;	/* CPU: the writer thread's on rows, the shipping thread's */
	int said_down, said_auth, said_missing;
	int stacks_lost;		/* set by the shipping thread when it made the tables again */
};

static uint64_t thread_cpu_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (uint64_t)ts.tv_sec * NSEC_PER_SEC + (uint64_t)ts.tv_nsec;
}

static void *shipper(void *arg);

static uint64_t new_batch_id(void)
{
	uint64_t id = 0;

	/* random across hosts and restarts: ids never meet */
	if (getrandom(&id, sizeof(id), 0) != sizeof(id))
		id = (uint64_t)mono_ns() ^ (uint64_t)getpid() << 40;
	return id >> 1 ? id >> 1 : 1;
}

static void seal_batch(struct ch_sink *s)
{
	if (!s->rows[CH_PASSES])
		return;
	if (ch_spool__put(&s->spool, s->batch_id, s->tables, s->rows))
		tract_warn("%s", "cannot spool a batch for ClickHouse: its passes stay in the local store only");
	else
		ch_gaps__set_mark(s->cfg.spool_dir, s->batch_last_us);
	for (int t = 0; t < CH_TABLES; t++) {
		strbuf_free(&s->tables[t]);
		s->rows[t] = 0;
	}
	s->batch_id = new_batch_id();
	/*
	 * A stack goes with the first batch that needs it; if the spool's bound
	 * drops that batch, or the server refuses it, the stack is sent again
	 * with the batches of the next minute.
	 */
	if (++s->sealed % STACKS_AGAIN_BATCHES == 0)
		dict__clear(s->stacks_sent);
	pthread_mutex_lock(&s->lock);
	pthread_cond_signal(&s->wake);
	pthread_mutex_unlock(&s->lock);
}

static void add_stack(struct ch_sink *s, const struct kstack *k, uint64_t ts_us);

/* A stack a row of the pass's tables names, with the pass's time (batch_last_us, set first). */
static void row_stack(void *arg, const struct kstack *k)
{
	struct ch_sink *s = arg;

	add_stack(s, k, s->batch_last_us);
}

static void add_stack(struct ch_sink *s, const struct kstack *k, uint64_t ts_us)
{
	int added;

	if (!k)
		return;
	dict__intern(s->stacks_sent, &k->hash, sizeof(k->hash), &added);
	if (!added)
		return;
	ch_rows__stack(&s->tables[CH_STACKS], s->cfg.host, k, ts_us);
	s->rows[CH_STACKS]++;
}

/*
 * The shipping thread starts with the first pass, from the writer thread:
 * it inherits that thread's privileges, dropped by then, not the opener's.
 */
static void ensure_started(struct ch_sink *s)
{
	if (s->started)
		return;
	if (pthread_create(&s->thread, NULL, shipper, s)) {
		tract_warn("cannot start shipping to ClickHouse: %s; batches stay spooled", strerror(errno));
		s->started = -1;
		return;
	}
	s->started = 1;
}

static int ch_write_pass(struct sink *base, const struct pass *p)
{
	struct ch_sink *s = (struct ch_sink *)base;
	uint64_t t0 = thread_cpu_ns();

	ensure_started(s);
	if (!s->rows[CH_PASSES])
		s->batch_start_ns = mono_ns();
	/* a new run's stacks are sent again: ReplacingMergeTree keeps one */
	if (dict__size(s->stacks_sent) > 1000000 || __atomic_exchange_n(&s->stacks_lost, 0, __ATOMIC_RELAXED))
		dict__clear(s->stacks_sent);
	s->rows[CH_SAMPLES] += ch_rows__samples(&s->tables[CH_SAMPLES], s->cfg.host, s->batch_id, p);
	for (size_t i = 0; i < p->nr; i++) {
		add_stack(s, p->rows[i].kstack, p->ts_us);
		add_stack(s, p->rows[i].ustack, p->ts_us);
	}
	s->batch_last_us = p->ts_us;
	for (int t = 0; t < NR_PASS_TABLES; t++)
		s->rows[CH_PASS_TABLE + t] += ch_rows__pass_table(&s->tables[CH_PASS_TABLE + t], t, s->cfg.host,
								  s->batch_id, p, row_stack, s);
	if (s->rows[CH_SAMPLES] >= s->cfg.batch_rows || mono_ns() - s->batch_start_ns >= s->cfg.batch_us * 1000)
		seal_batch(s);
	s->format_ns += thread_cpu_ns() - t0;
	return 0;
}

static int create_tables(struct ch_sink *s);

/* Whether an error answer says tract's database or a table of it is not there (codes 81 and 60). */
static int schema_missing(const char *answer)
{
	const char *c = answer ? strstr(answer, "Code: ") : NULL;
	int code = c ? atoi(c + 6) : 0;

	return code == 81 || code == 60;
}

/*
 * One table of a batch into the server: 0 when it is there, -EAGAIN to try
 * again later (-EHOSTUNREACH when nothing listens), -EINVAL when the server
 * will never take it.
 */
static int send_table(struct ch_sink *s, struct ch_batch *b, int t, int counted, int made_again)
{
	char ident[64];
	struct ch_send how = { .http = s->http, .database = s->cfg.database, .ident = ident };
	enum ch_outcome out;
	char *answer;
	enum ch_sent sent;
	int err;

	snprintf(ident, sizeof(ident), "batch_id = %" PRIu64, b->id);
	sent = ch_send__table(&how, b, t, counted, &out, &answer);
	if (sent == CH_SENT) {
		free(answer);
		return 0;
	}
	if (sent == CH_SEND_NEVER) {
		tract_warn("ClickHouse refused a batch's %s (%.200s): set aside in %s/quarantine", ch_table_name(t),
			   answer ? answer : "", s->cfg.spool_dir);
		free(answer);
		return -EINVAL;
	}
	if (out == CH_AUTH) {
		if (!s->said_auth++)
			tract_warn("ClickHouse refuses tract's user (%.200s): batches stay spooled", answer ? answer : "");
	} else if (out == CH_ERROR && schema_missing(answer) && !made_again) {
		/* a server that lost them (killed as it made them, or dropped by hand): made again, then sent */
		if (!s->said_missing++)
			tract_warn("ClickHouse has no %s.%s (%.200s): creating tract's tables again", s->cfg.database,
				   ch_table_name(t), answer);
		free(answer);
		if (create_tables(s))
			return -EAGAIN;
		err = send_table(s, b, t, counted, 1);
		if (!err) {
			/*
			 * The stacks the server had went with its tables: those of
			 * the batches to come go again (a spooled batch's went with it).
			 */
			__atomic_store_n(&s->stacks_lost, 1, __ATOMIC_RELAXED);
			s->said_missing = 0;
		}
		return err;
	} else if (!s->said_down++) {
		tract_warn("ClickHouse does not take batches now (%.200s): spooling them in %s", answer ? answer : "",
			   s->cfg.spool_dir);
	}
	free(answer);
	return out == CH_UNREACHABLE ? -EHOSTUNREACH : -EAGAIN;
}

/* A table the server took while the recorder stops: the drain waits DRAIN_NS for the next. */
static void drain_progress(struct ch_sink *s)
{
	uint64_t max = __atomic_load_n(&s->drain_max_ns, __ATOMIC_RELAXED), until = mono_ns() + DRAIN_NS;

	if (!s->stopping || !max)
		return;
	if (until > max)
		until = max;
	if (until > __atomic_load_n(&s->drain_until_ns, __ATOMIC_RELAXED))
		__atomic_store_n(&s->drain_until_ns, until, __ATOMIC_RELAXED);
}

/*
 * Sends the oldest spooled batch; 0 when one went, -ENOENT when none is
 * left, -EHOSTUNREACH when no server listens, -EAGAIN to wait.
 */
static int ship_one(struct ch_sink *s)
{
	struct ch_batch b;
	int err = ch_spool__oldest(&s->spool, &b);

	unsigned int tried;

	if (err)
		return err;
	/*
	 * Written down before anything is sent: a send this process may not
	 * live to hear the end of (a kill, a crash) is counted by the next.
	 */
	tried = b.tried;
	b.tried |= ((1u << CH_TABLES) - 1) & ~b.done;
	if (b.tried != tried)
		ch_spool__update(&s->spool, &b);
	for (int t = 0; t < CH_TABLES && !err; t++) {
		if (b.done & (1u << t))
			continue;
		err = send_table(s, &b, t, (tried >> t) & 1, 0);
		if (!err) {
			b.done |= 1u << t;
			ch_spool__update(&s->spool, &b);
			drain_progress(s);
		}
	}
	if (err == -EINVAL) {
		ch_spool__quarantine(&s->spool, &b);
		err = 0;
	} else if (!err) {
		s->sent_batches++;
		s->sent_rows += b.rows[CH_SAMPLES];
		if (s->said_down) {
			tract_warn("%s", "ClickHouse takes batches again");
			s->said_down = 0;
		}
	}
	ch_batch__free(&b);
	return err;
}

/*
 * With the spool sent, the oldest gap it never got (a batch a killed
 * recorder was filling) from the local store: 0 when one was filled,
 * -ENOENT when none is left, -EAGAIN to try later.
 */
static int fill_gap(struct ch_sink *s)
{
	struct ch_backfill_opts o = { .host = s->cfg.host, .database = s->cfg.database,
				      .batch_rows = s->cfg.batch_rows, .stop = &s->stopping };
	struct ch_backfill_stats st;
	struct store_reader set;
	int err;

	if (!s->cfg.store_dir || !ch_gaps__first(s->cfg.spool_dir, &o.from_us, &o.to_us))
		return -ENOENT;
	tract_hold_errors(1);
	err = store_reader__open(s->cfg.store_dir, &set);
	if (!err) {
		err = ch_backfill(s->http, &set, &o, &st);
		store_reader__free(&set);
	}
	tract_hold_errors(0);
	if (err)
		return -EAGAIN;
	if (st.passes)
		tract_warn("%" PRIu64 " passes a stopped recorder had not spooled were sent from the local store",
			   st.passes);
	s->sent_rows += st.samples;
	ch_gaps__done(s->cfg.spool_dir);
	return 0;
}

static void *shipper(void *arg)
{
	struct ch_sink *s = arg;
	uint64_t backoff = 0;

	for (;;) {
		uint64_t t0 = thread_cpu_ns();
		int err = ship_one(s);

		if (err == -ENOENT && !s->stopping)
			err = fill_gap(s);
		struct timespec until;
		uint64_t wait;

		s->ship_ns += thread_cpu_ns() - t0;
		pthread_mutex_lock(&s->lock);
		/*
		 * A stopping recorder sends what it can within its drain; where
		 * nothing listens, waiting out the drain only delays the stop
		 * (the spool keeps the batches for the next start).
		 */
		if (s->stopping && (err == -ENOENT || err == -EHOSTUNREACH || mono_ns() >= s->drain_until_ns)) {
			pthread_mutex_unlock(&s->lock);
			break;
		}
		if (!err) {
			backoff = 0;
			pthread_mutex_unlock(&s->lock);
			continue;
		}
		/*
		 * An empty spool waits for a batch (a second, or the writer's
		 * signal); a server that does not take them, longer each time,
		 * from a quarter of a second after every wait for a batch.
		 */
		if (err == -ENOENT) {
			backoff = 0;
			wait = NSEC_PER_SEC;
		} else {
			backoff = backoff ? backoff * 2 : NSEC_PER_SEC / 4;
			if (backoff > BACKOFF_MAX_NS)
				backoff = BACKOFF_MAX_NS;
			wait = backoff;
		}
		if (s->stopping && mono_ns() + wait > s->drain_until_ns)
			wait = s->drain_until_ns > mono_ns() ? s->drain_until_ns - mono_ns() : 0;
		clock_gettime(CLOCK_REALTIME, &until);
		until.tv_sec += (time_t)(wait / NSEC_PER_SEC);
		until.tv_nsec += (long)(wait % NSEC_PER_SEC);
		if (until.tv_nsec >= (long)NSEC_PER_SEC) {
			until.tv_sec++;
			until.tv_nsec -= (long)NSEC_PER_SEC;
		}
		pthread_cond_timedwait(&s->wake, &s->lock, &until);
		pthread_mutex_unlock(&s->lock);
	}
	return NULL;
}

static void free_config(struct ch_config *c)
{
	free((char *)c->url);
	free((char *)c->host);
	free((char *)c->database);
	free((char *)c->spool_dir);
	free((char *)c->store_dir);
}

static void ch_close(struct sink *base)
{
	struct ch_sink *s = (struct ch_sink *)base;
	uint64_t batches, bytes;

	seal_batch(s);
	if (s->started == 1) {
		pthread_mutex_lock(&s->lock);
		__atomic_store_n(&s->drain_until_ns, mono_ns() + DRAIN_NS, __ATOMIC_RELAXED);
		__atomic_store_n(&s->drain_max_ns, mono_ns() + DRAIN_MAX_NS, __ATOMIC_RELAXED);
		s->stopping = 1;
		pthread_cond_signal(&s->wake);
		pthread_mutex_unlock(&s->lock);
		pthread_join(s->thread, NULL);
	}
	ch_spool__size(&s->spool, &batches, &bytes);
	if (batches)
		tract_warn("%" PRIu64 " batches (%" PRIu64 " KiB) wait in %s for ClickHouse: the next start sends them",
			   batches, bytes / 1024, s->cfg.spool_dir);
	if (s->spool.dropped_batches)
		tract_warn("the spool's bound dropped %" PRIu64 " batches (%" PRIu64 " samples), the oldest",
			   s->spool.dropped_batches, s->spool.dropped_rows);
	tract_debug("ClickHouse: %" PRIu64 " batches, %" PRIu64 " samples sent, %.1f bytes a sample (gzip); CPU per 10,000 "
		    "samples: %.0f us making rows, %.0f us shipping", s->sent_batches, s->sent_rows,
		    s->sent_rows ? (double)ch_http__sent_bytes(s->http) / (double)s->sent_rows : 0.0,
		    s->sent_rows ? (double)s->format_ns / 1e3 * 1e4 / (double)s->sent_rows : 0.0,
		    s->sent_rows ? (double)s->ship_ns / 1e3 * 1e4 / (double)s->sent_rows : 0.0);
	ch_http__free(s->http);
	ch_spool__close(&s->spool);
	dict__free(s->stacks_sent);
	for (int t = 0; t < CH_TABLES; t++)
		strbuf_free(&s->tables[t]);
	pthread_mutex_destroy(&s->lock);
	pthread_cond_destroy(&s->wake);
	free_config(&s->cfg);
	free(s);
}

static const struct sink_ops ch_ops = {
	.write_pass = ch_write_pass,
	.close = ch_close,
};

/*
 * Tract's tables where they are missing.  -EAGAIN when the server does not
 * answer (the spool waits), -EACCES when it refuses tract's credentials.
 */
static int create_tables(struct ch_sink *s)
{
	char *answer = NULL;
	enum ch_outcome out = ch_schema_create(s->http, s->cfg.database, &answer);
	int err = 0;

	if (out == CH_AUTH) {
		tract_err("ClickHouse at %s refuses tract's user: %.300s", s->cfg.url, answer);
		err = -EACCES;
	} else if (out == CH_UNREACHABLE || out == CH_UNKNOWN) {
		tract_warn("ClickHouse at %s does not answer (%.200s): batches wait in %s until it does", s->cfg.url,
			   answer, s->cfg.spool_dir);
		s->said_down = 1;
		err = -EAGAIN;
	} else if (out != CH_OK) {
		tract_err("ClickHouse at %s cannot create tract's tables: %.300s", s->cfg.url, answer);
		err = -EIO;
	}
	free(answer);
	return err;
}

/* Passes of the local store after the spool's mark and before this start: what the last run lost. */
static void note_gap(struct ch_sink *s)
{
	uint64_t mark = ch_gaps__mark(s->cfg.spool_dir), now = realtime_us();

	if (s->cfg.store_dir && mark && mark + 1 < now && ch_gaps__add(s->cfg.spool_dir, mark + 1, now))
		tract_warn("cannot note in %s the passes to send from the local store", s->cfg.spool_dir);
}

int ch_sink__open(const struct ch_config *cfg, struct sink **out)
{
	struct ch_sink *s = xcalloc(1, sizeof(*s));
	int err;

	s->base.ops = &ch_ops;
	s->cfg = *cfg;
	/* the caller's strings need not outlive this call */
	s->cfg.url = xstrdup(cfg->url);
	s->cfg.host = xstrdup(cfg->host);
	s->cfg.database = xstrdup(cfg->database);
	s->cfg.spool_dir = xstrdup(cfg->spool_dir);
	s->cfg.store_dir = cfg->store_dir ? xstrdup(cfg->store_dir) : NULL;
	s->cfg.user = s->cfg.password = s->cfg.ca_file = NULL;
	pthread_mutex_init(&s->lock, NULL);
	pthread_cond_init(&s->wake, NULL);
	s->stacks_sent = dict__new();
	s->batch_id = new_batch_id();
	s->http = ch_http__new(cfg->url, cfg->user, cfg->password, cfg->ca_file);
	ch_http__abandon_at(s->http, &s->drain_until_ns);
	err = ch_spool__open(&s->spool, cfg->spool_dir, cfg->spool_max);
	if (!err)
		note_gap(s);
	if (!err) {
		err = create_tables(s);
		if (err == -EAGAIN)
			err = 0;
	}
	if (err) {
		ch_http__free(s->http);
		dict__free(s->stacks_sent);
		free_config(&s->cfg);
		free(s);
		return err;
	}
	*out = &s->base;
	return 0;
}
