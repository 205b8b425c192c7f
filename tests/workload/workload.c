// SPDX-License-Identifier: GPL-2.0-only
/*
 * Test workload for tract: starts named threads whose behaviour is known in
 * advance (busy, fsync-bound, sleeping, lock-contended, pipe- and
 * socket-blocked, idle) so that tests can compare what the sampler reports
 * with the truth.
 *
 * Threads that poll the stop flag: spin, hog*, futex*, fsync, direct, wal, ping (and pong,
 * which follows ping).  Threads that would otherwise stay blocked in the kernel
 * for seconds (sleep, server, client) are cancelled instead, since all their
 * blocking calls are cancellation points and they hold no locks; the idle pool
 * is woken through its condvar.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <netinet/in.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <alloca.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define FSYNC_BLOCK 4096
#define FUTEX_THREADS 4
#define FUTEX_HOLD_US 300
#define SERVER_DELAY_S 2
#define DEFAULT_POOL 8
/* Far beyond any sensible test; only guards against typos like --hogs 1e9. */
#define MAX_COUNT 65536L

enum group {
	G_SPIN = 1 << 0,
	G_FSYNC = 1 << 1,
	G_SLEEP = 1 << 2,
	G_FUTEX = 1 << 3,
	G_PINGPONG = 1 << 4,
	G_HOG = 1 << 5,
	G_IDLE = 1 << 6,
	G_CLIENT = 1 << 7,
	G_DIRECT = 1 << 8,
	G_ALL = (1 << 9) - 1,
	/* only when asked for */
	G_HOSTILE = 1 << 9,
	G_STORM = 1 << 10,
	G_DEEP = 1 << 11,
	G_CHAIN = 1 << 12,
	G_SORT = 1 << 13,
	G_MANGLED = 1 << 14,
	G_PIPE = 1 << 15,
	G_WAL = 1 << 16,
	G_BURSTS = 1 << 17,
};

static const struct {
	const char *name;
	unsigned int bit;
} group_names[] = {
	{ "spin", G_SPIN },
	{ "fsync", G_FSYNC },
	{ "direct", G_DIRECT },
	{ "sleep", G_SLEEP },
	{ "futex", G_FUTEX },
	{ "pingpong", G_PINGPONG },
	{ "hog", G_HOG },
	{ "idle", G_IDLE },
	{ "client", G_CLIENT },	/* also starts the server */
	{ "hostile", G_HOSTILE },
	{ "storm", G_STORM },
	{ "deep", G_DEEP },
	{ "chain", G_CHAIN },
	{ "sort", G_SORT },
	{ "mangled", G_MANGLED },
	{ "pipe", G_PIPE },
	{ "wal", G_WAL },
	{ "bursts", G_BURSTS },
};

/*
 * Thread names that break naive CSV writers, terminals, SQL and markup:
 * separators, quotes, a newline, bytes that are not UTF-8, a full 15-byte
 * name, tags that would end an SVG text and open a script, an attribute
 * with & and both quotes, and entities XML does not define or allow.
 */
static const char *const hostile_names[] = {
	"a,b\"c\nd", "\xff\xfe;x", "'; DROP --", "123456789012345", "\t\x1b[2J",
	"</text><script>", "<b a=\"&'\">", "&x;&#0;&lt;",
};

#define STORM_STACK (64 * 1024)

struct worker {
	pthread_t tid;
	bool cancel_on_stop;
};

static atomic_bool stop_requested;

static struct worker *workers;
static size_t nworkers;

static char tmp_dir[PATH_MAX];	/* non-empty only if we created it */
static char fsync_path[PATH_MAX];
static bool fsync_created;
static char direct_path[PATH_MAX];
static bool direct_created;
static char wal_path[PATH_MAX];
static bool wal_created;

static pthread_mutex_t futex_lock = PTHREAD_MUTEX_INITIALIZER;

static pthread_mutex_t idle_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t idle_cond = PTHREAD_COND_INITIALIZER;

static struct {
	int to_pong[2];
	int to_ping[2];
	int hostile[2];		/* never written: the hostile threads wait on it */
} pipes = { { -1, -1 }, { -1, -1 }, { -1, -1 } };

static long storm_size = 10000;
static long deep_depth = 48;
static long deep_frame_bytes;	/* each call's frame holds this much more: stacks deeper than a copy */
static int deep_pipe[2] = { -1, -1 };
static int bulk_pipe[2] = { -1, -1 };
static long futex_threads = FUTEX_THREADS;
static long futex_hold_ns = FUTEX_HOLD_US * 1000L;

/*
 * --timings: the workload times its own syscalls, an independent measure
 * to hold tract's latency histograms to.  Buckets as tract's: b holds the
 * calls with 2^(b-1) <= us < 2^b.
 */
#define TIMING_BUCKETS 32
enum timed { T_FSYNC, T_PWRITE, T_READ, T_WRITE, T__COUNT };
static const char *const timed_names[T__COUNT] = { "fsync", "pwrite64", "read", "write" };
static bool timing;
static struct {
	atomic_ulong count[TIMING_BUCKETS];
	atomic_ullong sum_ns;
} timings[T__COUNT];

static struct {
	int listen_fd;
	int client_fd;
	int conn_fd;
	struct sockaddr_in addr;
} tcp = { .listen_fd = -1, .client_fd = -1, .conn_fd = -1 };

void workload_fsync_once(int fd);
long workload_deep(long depth);
ssize_t workload_pipe_write(const char *buf, size_t len);
unsigned long workload_chain_inner(unsigned long x);
unsigned long workload_chain_middle(unsigned long x);
unsigned long workload_chain_outer(unsigned long x);
int workload_compare(const void *a, const void *b);
int workload_sort_once(unsigned int *v, size_t n, unsigned int seed);
unsigned long workload_burst(unsigned long x, unsigned long loops);

static void __attribute__((noreturn, format(printf, 2, 3)))
die(int err, const char *fmt, ...)
{
	va_list ap;

	fputs("workload: cannot ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, ": %s\n", strerror(err));
	exit(1);
}

static bool stopping(void)
{
	return atomic_load_explicit(&stop_requested, memory_order_relaxed);
}

/* Registered with atexit() so that error exits clean up too. */
static void remove_files(void)
{
	if (fsync_created)
		unlink(fsync_path);
	if (direct_created)
		unlink(direct_path);
	if (wal_created)
		unlink(wal_path);
	if (tmp_dir[0])
		rmdir(tmp_dir);
}

static long long now_ns(void);

static int bucket_of(long long ns)
{
	unsigned long long us = ns > 0 ? (unsigned long long)ns / 1000 : 0;
	int b = 0;

	while (us && b < TIMING_BUCKETS - 1) {
		us >>= 1;
		b++;
	}
	return b;
}

static long long timing_start(void)
{
	return timing ? now_ns() : 0;
}

static void timing_end(enum timed what, long long start)
{
	long long ns;

	if (!timing)
		return;
	ns = now_ns() - start;
	atomic_fetch_add(&timings[what].count[bucket_of(ns)], 1);
	atomic_fetch_add(&timings[what].sum_ns, (unsigned long long)ns);
}

/* One line per call and bucket: "syscall le_us count", then "syscall mean_us calls". */
static void write_timings(const char *path)
{
	FILE *f = fopen(path, "w");

	if (!f)
		die(errno, "create %s", path);
	for (int t = 0; t < T__COUNT; t++) {
		unsigned long long calls = 0;

		for (int b = 0; b < TIMING_BUCKETS; b++) {
			unsigned long n = atomic_load(&timings[t].count[b]);

			if (n)
				fprintf(f, "%s %llu %lu\n", timed_names[t], 1ull << b, n);
			calls += n;
		}
		if (calls)
			fprintf(f, "%s mean_us %.3f %llu\n", timed_names[t],
				(double)atomic_load(&timings[t].sum_ns) / 1000.0 / (double)calls, calls);
	}
	if (fclose(f) != 0)
		die(errno, "write %s", path);
}

/*
 * Recursion to a known depth, then a wait in read() (an active wait, so
 * sampled) on a pipe nobody writes: a user stack of depth + a few frames.
 * The addition after the call keeps the compiler from making it a loop.
 */
/* called through a volatile pointer: at -O2 the compiler would make the recursion a loop */
static long (*volatile deep_next)(long) = workload_deep;

__attribute__((noinline, noclone)) long workload_deep(long depth)
{
	char c;

	if (deep_frame_bytes) {
		volatile char *pad = alloca((size_t)deep_frame_bytes);

		pad[0] = (char)depth;
	}
	if (depth <= 1)
		return read(deep_pipe[0], &c, 1);
	return deep_next(depth - 1) + 1;
}

static void *deep_thread(void *arg)
{
	(void)arg;
	while (!stopping())
		workload_deep(deep_depth);
	return NULL;
}

/*
 * Bulk copies through a pipe: pwriter writes 1 MiB at a time from
 * workload_pipe_write, preader reads them; on a CPU, both are nearly always
 * inside the syscall, copying.
 */
#define BULK_BYTES (1 << 20)

__attribute__((noinline, noclone)) ssize_t workload_pipe_write(const char *buf, size_t len)
{
	return write(bulk_pipe[1], buf, len);
}

static void *pipe_writer_thread(void *arg)
{
	char *buf = calloc(1, BULK_BYTES);

	(void)arg;
	if (!buf)
		die(ENOMEM, "allocate pipe buffer");
	while (!stopping())
		if (workload_pipe_write(buf, BULK_BYTES) < 0 && errno != EINTR)
			die(errno, "write to pipe");
	free(buf);
	return NULL;
}

static void *pipe_reader_thread(void *arg)
{
	char *buf = malloc(BULK_BYTES);

	(void)arg;
	if (!buf)
		die(ENOMEM, "allocate pipe buffer");
	while (!stopping())
		if (read(bulk_pipe[0], buf, BULK_BYTES) < 0 && errno != EINTR)
			die(errno, "read from pipe");
	free(buf);
	return NULL;
}

/*
 * On CPU in functions named as a C++ and a Rust compiler name them (the
 * symbols as C gives them in an asm label), for the demangler: a template
 * method whose name holds spaces, then a Rust v0 function.
 */
unsigned long workload_rust_inner(unsigned long x) __asm__("_RNvNtCs1a2b3c_8workload4rust5inner");
unsigned long workload_cpp_spin(unsigned long x) __asm__("_ZN8workload6holderISt4pairIiiEE4spinEm");

__attribute__((noinline, noclone)) unsigned long workload_rust_inner(unsigned long x)
{
	for (int i = 0; i < 200000; i++)
		x = x * 6364136223846793005ull + 1442695040888963407ull;
	return x;
}

__attribute__((noinline, noclone)) unsigned long workload_cpp_spin(unsigned long x)
{
	return workload_rust_inner(x) + 3;
}

static void *mangled_thread(void *arg)
{
	volatile unsigned long sink = 0;

	(void)arg;
	while (!stopping())
		sink = workload_cpp_spin(sink);
	return NULL;
}

/*
 * On CPU in a chain of named functions, outermost first: chain_thread ->
 * workload_chain_outer -> workload_chain_middle -> workload_chain_inner ->
 * workload_chain_spin (inlined), where nearly all the time goes.  Using each result keeps the calls from
 * becoming jumps, which would drop the callers from the stack.
 */
/* inlined into workload_chain_inner: where debug info names it, its own frame */
static inline __attribute__((always_inline)) unsigned long workload_chain_spin(unsigned long x)
{
	for (int i = 0; i < 200000; i++)
		x = x * 6364136223846793005ull + 1442695040888963407ull;
	return x;
}

__attribute__((noinline, noclone)) unsigned long workload_chain_inner(unsigned long x)
{
	return workload_chain_spin(x);
}

__attribute__((noinline, noclone)) unsigned long workload_chain_middle(unsigned long x)
{
	return workload_chain_inner(x) + 1;
}

__attribute__((noinline, noclone)) unsigned long workload_chain_outer(unsigned long x)
{
	return workload_chain_middle(x) ^ 0x55;
}

static void *chain_thread(void *arg)
{
	volatile unsigned long sink = 0;

	(void)arg;
	while (!stopping())
		sink = workload_chain_outer(sink);
	return NULL;
}

/*
 * On CPU inside a libc callback: qsort() calls the comparator, which does
 * enough work to hold most of the thread's time, so the stack on CPU is
 * sort_thread -> workload_sort_once -> qsort (libc's own frames) ->
 * workload_compare.
 */
__attribute__((noinline, noclone)) int workload_compare(const void *a, const void *b)
{
	unsigned int x = *(const unsigned int *)a, y = *(const unsigned int *)b;
	volatile unsigned int spin = 0;

	for (int i = 0; i < 64; i++)
		spin += x ^ i;
	return (x > y) - (x < y);
}

__attribute__((noinline, noclone)) int workload_sort_once(unsigned int *v, size_t n, unsigned int seed)
{
	for (size_t i = 0; i < n; i++)
		v[i] = seed = seed * 1103515245u + 12345u;
	qsort(v, n, sizeof(*v), workload_compare);
	return (int)v[0];
}

static void *sort_thread(void *arg)
{
	static unsigned int v[2048];
	volatile int sink = 0;
	unsigned int seed = 1;

	(void)arg;
	while (!stopping())
		sink += workload_sort_once(v, sizeof(v) / sizeof(v[0]), seed++);
	return NULL;
}

static void *spin_thread(void *arg)
{
	/* volatile keeps the loop from being optimised into nothing */
	volatile unsigned long counter = 0;

	(void)arg;
	while (!stopping())
		counter++;
	return NULL;
}

/*
 * Non-static and never inlined so that the name shows up in user stacks.
 * Using fsync()'s result afterwards prevents a tail call, which would drop
 * this frame from the stack exactly while the thread waits in fsync().
 */
__attribute__((noinline, noclone)) void workload_fsync_once(int fd)
{
	long long t0 = timing_start();

	if (fsync(fd) != 0)
		die(errno, "fsync %s", fsync_path);
	timing_end(T_FSYNC, t0);
}

static void *fsync_thread(void *arg)
{
	static char block[FSYNC_BLOCK];
	int fd = *(int *)arg;

	memset(block, 'f', sizeof(block));
	while (!stopping()) {
		long long t0 = timing_start();
		ssize_t n = pwrite(fd, block, sizeof(block), 0);

		timing_end(T_PWRITE, t0);
		/* no EINTR: every thread has the only handled signals blocked */
		if (n != (ssize_t)sizeof(block))
			die(n < 0 ? errno : EIO, "write %s", fsync_path);
		workload_fsync_once(fd);
	}
	return NULL;
}

/*
 * O_DIRECT writes: unlike fsync, which often waits on the journal thread's
 * requests, this thread always waits on a request it issued itself.
 */
static void *direct_thread(void *arg)
{
	int fd = *(int *)arg;
	void *block;
	int err = posix_memalign(&block, FSYNC_BLOCK, FSYNC_BLOCK);

	if (err)
		die(err, "allocate an aligned block");
	memset(block, 'd', FSYNC_BLOCK);
	while (!stopping()) {
		long long t0 = timing_start();
		ssize_t n = pwrite(fd, block, FSYNC_BLOCK, 0);

		timing_end(T_PWRITE, t0);
		if (n != FSYNC_BLOCK)
			die(n < 0 ? errno : EIO, "write %s", direct_path);
	}
	free(block);
	return NULL;
}

/*
 * A write-ahead log: appends and fdatasync()s each, starting over now and
 * then.  A file that grows makes each fdatasync commit the journal, so the
 * thread waits in D on requests the journal's own thread issued, none of
 * its own.
 */
static void *wal_thread(void *arg)
{
	static char record[2 * FSYNC_BLOCK];
	int fd = *(int *)arg;
	unsigned long n = 0;

	memset(record, 'l', sizeof(record));
	while (!stopping()) {
		if (write(fd, record, sizeof(record)) != (ssize_t)sizeof(record))
			die(errno ? errno : EIO, "write %s", wal_path);
		if (fdatasync(fd) != 0)
			die(errno, "fdatasync %s", wal_path);
		if (++n % 1024 == 0 && (ftruncate(fd, 0) != 0 || lseek(fd, 0, SEEK_SET) != 0))
			die(errno, "start %s over", wal_path);
	}
	return NULL;
}

/* Waits in read(), which counts as active, so tract stores it without --all. */
static void *hostile_thread(void *arg)
{
	char c;

	(void)arg;
	for (;;)
		if (read(pipes.hostile[0], &c, 1) <= 0 && errno != EINTR)
			return NULL;
	return NULL;
}

static void *storm_child(void *arg)
{
	const struct timespec ms = { .tv_nsec = 1000000 };

	(void)arg;
	nanosleep(&ms, NULL);
	return NULL;
}

/* Creates storm_size threads that live a millisecond, waits for them, again and again. */
static void *storm_thread(void *arg)
{
	pthread_t *kids = calloc((size_t)storm_size, sizeof(*kids));
	pthread_attr_t attr;

	(void)arg;
	if (!kids)
		die(ENOMEM, "allocate the storm");
	pthread_attr_init(&attr);
	pthread_attr_setstacksize(&attr, STORM_STACK);
	while (!stopping()) {
		long n = 0;

		while (n < storm_size && !stopping() && !pthread_create(&kids[n], &attr, storm_child, NULL))
			n++;
		while (n > 0)
			pthread_join(kids[--n], NULL);
	}
	pthread_attr_destroy(&attr);
	free(kids);
	return NULL;
}

static void *sleep_thread(void *arg)
{
	const struct timespec second = { .tv_sec = 1 };

	(void)arg;
	for (;;)
		clock_nanosleep(CLOCK_MONOTONIC, 0, &second, NULL);
	return NULL;
}

static long long now_ns(void)
{
	struct timespec ts;

	/* served by the vDSO, so the busy wait below stays in user space */
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

/*
 * Short bursts on a CPU between sleeps, as a server's backends run: each
 * burst thread spins about BURST_US in workload_burst, then sleeps
 * BURST_SLEEP_US.  The burst is a loop count calibrated once, so it never
 * leaves its own code (no clock read inside it).
 */
#define BURST_THREADS 3
#define BURST_US 300
#define BURST_SLEEP_US 1000

static unsigned long burst_loops = 1;

__attribute__((noinline, noclone)) unsigned long workload_burst(unsigned long x, unsigned long loops)
{
	for (unsigned long i = 0; i < loops; i++)
		x = x * 6364136223846793005ull + 1442695040888963407ull;
	return x;
}

/* The fastest of a few timed runs: one preempted would make the bursts short. */
static void calibrate_burst(void)
{
	const unsigned long probe = 1ul << 18;
	long long best = -1;

	for (int i = 0; i < 5; i++) {
		long long t0 = now_ns(), ns;

		if (workload_burst(t0, probe) == 42)
			t0++;
		ns = now_ns() - t0;
		if (ns > 0 && (best < 0 || ns < best))
			best = ns;
	}
	burst_loops = best > 0 ? (unsigned long)((double)probe * BURST_US * 1000 / (double)best) : probe;
	if (!burst_loops)
		burst_loops = 1;
}

static void *burst_thread(void *arg)
{
	const struct timespec pause = { .tv_nsec = BURST_SLEEP_US * 1000L };
	volatile unsigned long sink = 0;

	(void)arg;
	while (!stopping()) {
		sink = workload_burst(sink, burst_loops);
		nanosleep(&pause, NULL);
	}
	return NULL;
}

static void *futex_thread(void *arg)
{
	(void)arg;
	for (;;) {
		long long until;

		pthread_mutex_lock(&futex_lock);
		if (stopping()) {
			pthread_mutex_unlock(&futex_lock);
			break;
		}
		until = now_ns() + futex_hold_ns;
		while (now_ns() < until)
			;
		pthread_mutex_unlock(&futex_lock);
	}
	return NULL;
}

/* Returns false on end of file. */
static bool get_byte(int fd, bool is_socket, const char *what)
{
	char c;

	for (;;) {
		long long t0 = timing_start();
		ssize_t n = is_socket ? recv(fd, &c, 1, 0) : read(fd, &c, 1);

		if (!is_socket)
			timing_end(T_READ, t0);
		if (n >= 0)
			return n == 1;
		if (errno != EINTR)
			die(errno, "read from %s", what);
	}
}

static void put_byte(int fd, bool is_socket, const char *what)
{
	const char c = 'x';

	for (;;) {
		long long t0 = timing_start();
		/* MSG_NOSIGNAL: a vanished peer is an error, not a SIGPIPE */
		ssize_t n = is_socket ? send(fd, &c, 1, MSG_NOSIGNAL)
				      : write(fd, &c, 1);

		if (!is_socket)
			timing_end(T_WRITE, t0);
		if (n == 1)
			return;
		if (n < 0 && errno != EINTR)
			die(errno, "write to %s", what);
	}
}

static void *ping_thread(void *arg)
{
	(void)arg;
	while (!stopping()) {
		put_byte(pipes.to_pong[1], false, "pipe");
		get_byte(pipes.to_ping[0], false, "pipe");
	}
	/* end of file is pong's signal to stop */
	close(pipes.to_pong[1]);
	pipes.to_pong[1] = -1;
	return NULL;
}

static void *pong_thread(void *arg)
{
	(void)arg;
	while (get_byte(pipes.to_pong[0], false, "pipe"))
		put_byte(pipes.to_ping[1], false, "pipe");
	return NULL;
}

static void *idle_thread(void *arg)
{
	(void)arg;
	pthread_mutex_lock(&idle_lock);
	while (!stopping())
		pthread_cond_wait(&idle_cond, &idle_lock);
	pthread_mutex_unlock(&idle_lock);
	return NULL;
}

static void *server_thread(void *arg)
{
	(void)arg;
	do {
		tcp.conn_fd = accept(tcp.listen_fd, NULL, NULL);
	} while (tcp.conn_fd < 0 && errno == EINTR);
	if (tcp.conn_fd < 0)
		die(errno, "accept");

	while (get_byte(tcp.conn_fd, true, "socket")) {
		struct timespec left = { .tv_sec = SERVER_DELAY_S };

		while (nanosleep(&left, &left) != 0)
			if (errno != EINTR)
				die(errno, "sleep");
		put_byte(tcp.conn_fd, true, "socket");
	}
	return NULL;
}

static void *client_thread(void *arg)
{
	(void)arg;
	if (connect(tcp.client_fd, (struct sockaddr *)&tcp.addr,
		    sizeof(tcp.addr)) != 0)
		die(errno, "connect to 127.0.0.1:%u", ntohs(tcp.addr.sin_port));
	do {
		put_byte(tcp.client_fd, true, "socket");
	} while (get_byte(tcp.client_fd, true, "socket"));
	return NULL;
}

/*
 * Start @count threads running @fn(@arg), named @base, or @base0, @base1, ...
 * if @numbered.  Tests find the threads by these names.
 */
static void start_one(struct worker *w, const char *name, void *(*fn)(void *), void *arg,
		      bool cancel_on_stop)
{
	int err = pthread_create(&w->tid, NULL, fn, arg);

	if (err)
		die(err, "create thread %s", name);
	w->cancel_on_stop = cancel_on_stop;
	nworkers++;
	err = pthread_setname_np(w->tid, name);
	if (err)
		die(err, "name thread %s", name);
}

static void start_threads(const char *base, long count, bool numbered,
			  void *(*fn)(void *), void *arg, bool cancel_on_stop)
{
	struct worker *grown;
	long i;

	if (count == 0)
		return;
	grown = realloc(workers, (nworkers + count) * sizeof(*workers));
	if (!grown)
		die(ENOMEM, "allocate thread table");
	workers = grown;

	for (i = 0; i < count; i++) {
		struct worker *w = &workers[nworkers];
		char name[16];	/* the kernel's limit, including the NUL */
		int len;

		if (numbered)
			len = snprintf(name, sizeof(name), "%s%ld", base, i);
		else
			len = snprintf(name, sizeof(name), "%s", base);
		if (len < 0 || (size_t)len >= sizeof(name))
			die(ENAMETOOLONG, "name thread %s", base);

		start_one(w, name, fn, arg, cancel_on_stop);
	}
}

static void stop_threads(void)
{
	size_t i;
	int err;

	atomic_store(&stop_requested, true);

	/*
	 * Broadcasting under the lock closes the window between an idle
	 * thread's check of the flag and its wait.
	 */
	pthread_mutex_lock(&idle_lock);
	pthread_cond_broadcast(&idle_cond);
	pthread_mutex_unlock(&idle_lock);

	for (i = 0; i < nworkers; i++)
		if (workers[i].cancel_on_stop)
			pthread_cancel(workers[i].tid);
	for (i = 0; i < nworkers; i++) {
		err = pthread_join(workers[i].tid, NULL);
		if (err)
			die(err, "join thread");
	}
	free(workers);
	workers = NULL;
	nworkers = 0;
}

static void close_fd(int *fd)
{
	if (*fd >= 0)
		close(*fd);
	*fd = -1;
}

static int open_fsync_file(const char *dir)
{
	int fd;

	if (!dir) {
		const char *base = getenv("TMPDIR");

		if (!base || !*base)
			base = "/tmp";
		if ((size_t)snprintf(tmp_dir, sizeof(tmp_dir),
				     "%s/workload.XXXXXX", base) >= sizeof(tmp_dir))
			die(ENAMETOOLONG, "create directory in %s", base);
		if (!mkdtemp(tmp_dir)) {
			int err = errno;

			tmp_dir[0] = '\0';
			die(err, "create directory in %s", base);
		}
		dir = tmp_dir;
	}
	if ((size_t)snprintf(fsync_path, sizeof(fsync_path), "%s/fsync.dat",
			     dir) >= sizeof(fsync_path))
		die(ENAMETOOLONG, "create %s/fsync.dat", dir);

	fd = open(fsync_path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (fd < 0)
		die(errno, "create %s", fsync_path);
	fsync_created = true;
	return fd;
}

/* A file named name next to the fsync file, into path; -1 with errno EINVAL where flags are refused. */
static int open_next_to_fsync(const char *name, int flags, char *path, size_t len, bool *created)
{
	char *slash = strrchr(fsync_path, '/');
	int fd;

	if ((size_t)snprintf(path, len, "%.*s/%s", (int)(slash - fsync_path), fsync_path, name) >= len)
		die(ENAMETOOLONG, "create %s next to %s", name, fsync_path);
	fd = open(path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC | flags, 0600);
	if (fd < 0 && errno == EINVAL)
		return -1;
	if (fd < 0)
		die(errno, "create %s", path);
	*created = true;
	return fd;
}

/* -1 where the file system refuses O_DIRECT (tmpfs before 6.6) */
static int open_direct_file(void)
{
	return open_next_to_fsync("direct.dat", O_DIRECT, direct_path, sizeof(direct_path), &direct_created);
}

static void open_tcp(void)
{
	socklen_t len = sizeof(tcp.addr);

	tcp.addr.sin_family = AF_INET;
	tcp.addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	tcp.addr.sin_port = 0;

	tcp.listen_fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (tcp.listen_fd < 0)
		die(errno, "create socket");
	if (bind(tcp.listen_fd, (struct sockaddr *)&tcp.addr, len) != 0)
		die(errno, "bind to 127.0.0.1");
	if (getsockname(tcp.listen_fd, (struct sockaddr *)&tcp.addr, &len) != 0)
		die(errno, "get socket address");
	if (listen(tcp.listen_fd, 1) != 0)
		die(errno, "listen");

	tcp.client_fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (tcp.client_fd < 0)
		die(errno, "create socket");
}

static void usage(FILE *out)
{
	fprintf(out,
		"Usage: workload [-d SECONDS] [--only LIST] [--dir DIR] [--hogs N] [--pool N]\n"
		"\n"
		"Start threads of known behaviour for testing tract.\n"
		"\n"
		"  -d, --duration SECONDS  stop after SECONDS (default: until SIGINT/SIGTERM)\n"
		"      --only LIST         comma-separated groups to start (default: all):\n"
		"                          spin,fsync,direct (O_DIRECT writes),sleep,futex,\n"
		"                          pingpong,hog,idle,client; and, only when named,\n"
		"                          hostile (threads with hostile names), storm, deep,\n"
		"                          chain (on CPU in a chain of named functions),\n"
		"                          sort (on CPU in a qsort() comparator),\n"
		"                          mangled (on CPU in C++ and Rust-named functions),\n"
		"                          pipe (1 MiB writes to a pipe another thread reads),\n"
		"                          wal (appends, each fdatasync()ed),\n"
		"                          bursts (3 threads: 300 us on a CPU, then 1 ms asleep)\n"
		"      --dir DIR           where to create (and at exit remove) fsync.dat, direct.dat\n"
		"                          and wal.dat\n"
		"                          (default: a temporary directory)\n"
		"      --hogs N            number of hog threads (default: 2 x CPUs + 1)\n"
		"      --pool N            number of idle threads (default: %d)\n"
		"      --lockers N         number of futex threads sharing one mutex (default: %d)\n"
		"      --hold-us N         how long a futex thread holds the mutex, spinning (default: %d)\n"
		"      --timings FILE      time the fsync, pwrite, pipe read and write calls and write\n"
		"                          their log2 histograms and means to FILE at exit\n"
		"      --storm N           with --only storm: threads created and ended per round\n"
		"                          (default: 10000)\n"
		"      --depth N           with --only deep: calls deep a thread waits in read() (default: 48)\n"
		"      --frame-bytes N     with --only deep: each call's frame is N bytes bigger\n"
		"      --name NAME         name the main thread NAME (at most 15 bytes): the process\n"
		"                          name tract draws its pictures by\n"
		"  -h, --help              show this help\n",
		DEFAULT_POOL, FUTEX_THREADS, FUTEX_HOLD_US);
}

static void __attribute__((noreturn)) bad_value(const char *value,
						 const char *option)
{
	fprintf(stderr, "workload: invalid value '%s' for %s\n", value, option);
	exit(2);
}

static long parse_count(const char *s, const char *option)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || end == s || *end || v < 0 || v > MAX_COUNT)
		bad_value(s, option);
	return v;
}

static unsigned int parse_groups(const char *list)
{
	unsigned int groups = 0;
	const char *p = list;

	for (;;) {
		size_t len = strcspn(p, ",");
		size_t i;

		for (i = 0; i < sizeof(group_names) / sizeof(group_names[0]); i++)
			if (strlen(group_names[i].name) == len &&
			    !strncmp(group_names[i].name, p, len))
				break;
		if (i == sizeof(group_names) / sizeof(group_names[0]))
			bad_value(list, "--only");
		groups |= group_names[i].bit;
		if (!p[len])
			return groups;
		p += len + 1;
	}
}

/* Returns when a signal in @set arrives or, if @deadline >= 0, at @deadline. */
static void wait_for_stop(const sigset_t *set, long long deadline)
{
	int sig;

	if (deadline < 0) {
		sigwait(set, &sig);
		return;
	}
	for (;;) {
		long long left = deadline - now_ns();
		struct timespec ts;

		if (left <= 0)
			return;
		ts.tv_sec = left / 1000000000LL;
		ts.tv_nsec = left % 1000000000LL;
		if (sigtimedwait(set, NULL, &ts) >= 0)
			return;
		if (errno != EINTR)
			return;
	}
}

int main(int argc, char **argv)
{
	static const struct option options[] = {
		{ "duration", required_argument, NULL, 'd' },
		{ "only", required_argument, NULL, 'o' },
		{ "dir", required_argument, NULL, 'D' },
		{ "hogs", required_argument, NULL, 'H' },
		{ "pool", required_argument, NULL, 'p' },
		{ "storm", required_argument, NULL, 'S' },
		{ "depth", required_argument, NULL, 'R' },
		{ "frame-bytes", required_argument, NULL, 'B' },
		{ "lockers", required_argument, NULL, 'L' },
		{ "hold-us", required_argument, NULL, 'U' },
		{ "timings", required_argument, NULL, 'T' },
		{ "name", required_argument, NULL, 'N' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	unsigned int groups = G_ALL;
	const char *dir = NULL, *timings_path = NULL;
	long seconds = -1, hogs = -1, pool = DEFAULT_POOL;
	long long deadline = -1;
	int fsync_fd = -1, direct_fd = -1, wal_fd = -1;
	sigset_t stop_signals;
	int opt, err;

	while ((opt = getopt_long(argc, argv, "d:h", options, NULL)) != -1) {
		switch (opt) {
		case 'd': {
			char *end;

			errno = 0;
			seconds = strtol(optarg, &end, 10);
			if (errno || end == optarg || *end || seconds < 0 ||
			    seconds > INT_MAX)
				bad_value(optarg, "-d");
			break;
		}
		case 'o':
			groups = parse_groups(optarg);
			break;
		case 'D':
			dir = optarg;
			break;
		case 'H':
			hogs = parse_count(optarg, "--hogs");
			break;
		case 'p':
			pool = parse_count(optarg, "--pool");
			break;
		case 'S':
			storm_size = parse_count(optarg, "--storm");
			break;
		case 'R':
			deep_depth = parse_count(optarg, "--depth");
			break;
		case 'B':
			deep_frame_bytes = parse_count(optarg, "--frame-bytes");
			break;
		case 'L':
			futex_threads = parse_count(optarg, "--lockers");
			break;
		case 'U':
			futex_hold_ns = parse_count(optarg, "--hold-us") * 1000L;
			break;
		case 'T':
			timings_path = optarg;
			timing = true;
			break;
		case 'N':
			/* the kernel would cut a longer name: a test would look for one never set */
			if (!*optarg || strlen(optarg) > 15)
				bad_value(optarg, "--name");
			err = pthread_setname_np(pthread_self(), optarg);
			if (err)
				die(err, "name the main thread %s", optarg);
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	if (optind < argc) {
		fprintf(stderr, "workload: unexpected argument '%s'\n", argv[optind]);
		usage(stderr);
		return 2;
	}
	if (hogs < 0) {
		long cpus = sysconf(_SC_NPROCESSORS_ONLN);

		hogs = 2 * (cpus > 0 ? cpus : 1) + 1;
	}

	/*
	 * Block the stop signals before any thread exists so that every
	 * thread inherits the mask and only the main thread's sigwait sees
	 * them; no handler, and no EINTR in the workers.
	 */
	sigemptyset(&stop_signals);
	sigaddset(&stop_signals, SIGINT);
	sigaddset(&stop_signals, SIGTERM);
	err = pthread_sigmask(SIG_BLOCK, &stop_signals, NULL);
	if (err)
		die(err, "block signals");

	if (atexit(remove_files) != 0)
		die(ENOMEM, "register cleanup");

	/*
	 * Count the duration from here, not from "ready": starting many
	 * threads next to already spinning hogs can take a while on a small
	 * machine, and callers rely on the total run time.
	 */
	if (seconds >= 0)
		deadline = now_ns() + seconds * 1000000000LL;

	if (groups & G_SPIN)
		start_threads("spin", 1, false, spin_thread, NULL, false);
	if (groups & (G_FSYNC | G_DIRECT | G_WAL))
		fsync_fd = open_fsync_file(dir);
	if (groups & G_FSYNC)
		start_threads("fsync", 1, false, fsync_thread, &fsync_fd, false);
	if (groups & G_DIRECT) {
		direct_fd = open_direct_file();
		if (direct_fd >= 0)
			start_threads("direct", 1, false, direct_thread,
				      &direct_fd, false);
	}
	if (groups & G_WAL) {
		wal_fd = open_next_to_fsync("wal.dat", 0, wal_path, sizeof(wal_path), &wal_created);
		if (wal_fd < 0)
			die(EINVAL, "create %s", wal_path);
		start_threads("wal", 1, false, wal_thread, &wal_fd, false);
	}
	if (groups & G_SLEEP)
		start_threads("sleep", 1, false, sleep_thread, NULL, true);
	if (groups & G_FUTEX)
		start_threads("futex", futex_threads, true, futex_thread, NULL,
			      false);
	if (groups & G_PINGPONG) {
		if (pipe2(pipes.to_pong, O_CLOEXEC) != 0 ||
		    pipe2(pipes.to_ping, O_CLOEXEC) != 0)
			die(errno, "create pipe");
		start_threads("ping", 1, false, ping_thread, NULL, false);
		start_threads("pong", 1, false, pong_thread, NULL, false);
	}
	if (groups & G_HOG)
		start_threads("hog", hogs, true, spin_thread, NULL, false);
	if (groups & G_IDLE)
		start_threads("idle", pool, true, idle_thread, NULL, false);
	if (groups & G_CLIENT) {
		open_tcp();
		start_threads("server", 1, false, server_thread, NULL, true);
		start_threads("client", 1, false, client_thread, NULL, true);
	}

	if (groups & G_HOSTILE) {
		struct worker *grown;
		size_t n = sizeof(hostile_names) / sizeof(hostile_names[0]);

		if (pipe2(pipes.hostile, O_CLOEXEC) != 0)
			die(errno, "create pipe");
		grown = realloc(workers, (nworkers + n) * sizeof(*workers));
		if (!grown)
			die(ENOMEM, "allocate thread table");
		workers = grown;
		for (size_t i = 0; i < n; i++)
			start_one(&workers[nworkers], hostile_names[i], hostile_thread, NULL, true);
	}
	if (groups & G_STORM)
		start_threads("storm", 1, false, storm_thread, NULL, false);
	if (groups & G_DEEP) {
		if (pipe2(deep_pipe, O_CLOEXEC) != 0)
			die(errno, "create pipe");
		start_threads("deep", 1, false, deep_thread, NULL, true);
	}
	if (groups & G_CHAIN)
		start_threads("chain", 1, false, chain_thread, NULL, false);
	if (groups & G_PIPE) {
		if (pipe2(bulk_pipe, O_CLOEXEC) != 0)
			die(errno, "create pipe");
		start_threads("pwriter", 1, false, pipe_writer_thread, NULL, true);
		start_threads("preader", 1, false, pipe_reader_thread, NULL, true);
	}
	if (groups & G_BURSTS) {
		calibrate_burst();
		start_threads("burst", BURST_THREADS, true, burst_thread, NULL, false);
	}
	if (groups & G_SORT)
		start_threads("sort", 1, false, sort_thread, NULL, false);
	if (groups & G_MANGLED)
		start_threads("mangled", 1, false, mangled_thread, NULL, false);
	if (groups & G_FSYNC)
		printf("fsync-file=%s\n", fsync_path);
	if (groups & G_WAL)
		printf("wal-file=%s\n", wal_path);
	if (groups & G_CLIENT)
		printf("server-port=%u\n", ntohs(tcp.addr.sin_port));
	printf("ready pid=%d\n", (int)getpid());
	if (fflush(stdout) != 0)
		die(errno, "write to stdout");

	wait_for_stop(&stop_signals, deadline);
	stop_threads();
	if (timings_path)
		write_timings(timings_path);

	close_fd(&fsync_fd);
	close_fd(&direct_fd);
	close_fd(&wal_fd);
	close_fd(&pipes.to_pong[0]);
	close_fd(&pipes.to_pong[1]);
	close_fd(&pipes.to_ping[0]);
	close_fd(&pipes.to_ping[1]);
	close_fd(&pipes.hostile[0]);
	close_fd(&pipes.hostile[1]);
	close_fd(&tcp.conn_fd);
	close_fd(&tcp.client_fd);
	close_fd(&tcp.listen_fd);
	return 0;
}
