// SPDX-License-Identifier: GPL-2.0-only
/*
 * Threads whose waits end in known ways, each every ~300 ms, for tract to
 * name what ended them.  It prints each thread's role and tid (role=tid),
 * and the other process's pid (writers=pid), then "ready", and ends at the
 * deadline (argument 1, seconds; default 60).
 *
 *   poller      waits in epoll_wait on an eventfd that kicker, a thread
 *               of the same process, writes
 *   latchwaiter waits in epoll_wait on a Unix socket that latchwriter, a
 *               thread of another process of the same program, writes (a
 *               server's worker processes waking each other by a latch)
 *   sleeper     waits in nanosleep: a timer ends each wait
 *   tcpreader   waits in read on a TCP connection over loopback that
 *               tcpwriter, a thread of another process, writes to
 *   unixreader  waits in read on a Unix socket that unixwriter, a thread
 *               of that other process, writes to
 *
 * With "reaper" after the deadline, one thread alone instead:
 *
 *   reaper      waits in wait4 for a child that lives 2 ms, one child after
 *               another: each wait is the first at its site (wait4's first
 *               argument, the child's pid), younger than the idle grace,
 *               and ended by the child's exit.  Alone, as it makes a new
 *               site every few ms, which the recorder's table of sites
 *               makes room for by forgetting the others'.
 *
 * With "fresh" after the deadline, waits at sites where none has ended:
 *
 *   idler       waits in epoll_wait, no timeout, on an eventfd nobody
 *               writes, from before "ready"
 *   then, once the process is sent SIGUSR1 (after the recording began):
 *   latchwaiter waits in epoll_wait on a Unix socket that latchwriter, a
 *               thread of another process of the same program, writes
 *               once, 2 s later: first 0.3 s with a timeout, which runs
 *               out, then with none; an alarm (a timer's signal, as a
 *               server's deadlock check) ends that wait after 0.8 s, and it
 *               waits again, with no timeout, until the write
 *   lateidler   as idler, from then on
 *   ticker      waits in epoll_wait, no timeout, on a timerfd that fires
 *               every 300 ms, from then on
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/prctl.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/timerfd.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define PERIOD_NS 300000000L

static void die(const char *what)
{
	fprintf(stderr, "waits: %s: %s\n", what, strerror(errno));
	exit(1);
}

/* every thread of a process announced: then it is ready */
static pthread_barrier_t announced;

/* The thread's role and tid on stdout, and its name; then it waits for the others'. */
static void announce(const char *role)
{
	pthread_setname_np(pthread_self(), role);
	printf("%s=%ld\n", role, (long)syscall(SYS_gettid));
	fflush(stdout);
	pthread_barrier_wait(&announced);
}

static void nap(void)
{
	struct timespec ts = { 0, PERIOD_NS };

	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
}

static void start(void *(*fn)(void *), void *arg)
{
	pthread_t t;

	if (pthread_create(&t, NULL, fn, arg))
		die("pthread_create");
	pthread_detach(t);
}

/* A byte every period into fd, by a thread named role. */
struct writer {
	const char *role;
	int fd;
};

static void *writer_thread(void *arg)
{
	struct writer *w = arg;
	uint64_t one = 1;

	announce(w->role);
	for (;;) {
		nap();
		if (write(w->fd, &one, sizeof(one)) < 0)
			die(w->role);
	}
	return NULL;
}

/* Reads from fd forever, by a thread named role. */
struct reader {
	const char *role;
	int fd;
};

static void *reader_thread(void *arg)
{
	struct reader *r = arg;
	char buf[64];

	announce(r->role);
	for (;;)
		if (read(r->fd, buf, sizeof(buf)) <= 0)
			die(r->role);
	return NULL;
}

/* Waits in epoll_wait on fd, then reads what came, forever, by a thread named role. */
static void *poller_thread(void *arg)
{
	struct reader *r = arg;
	int ep = epoll_create1(0);
	struct epoll_event ev = { .events = EPOLLIN, .data.fd = r->fd };
	uint64_t n;

	if (ep < 0 || epoll_ctl(ep, EPOLL_CTL_ADD, r->fd, &ev))
		die("epoll");
	announce(r->role);
	for (;;) {
		if (epoll_wait(ep, &ev, 1, -1) == 1 && read(r->fd, &n, sizeof(n)) < 0)
			die(r->role);
	}
	return NULL;
}

static void *sleeper_thread(void *arg)
{
	(void)arg;
	announce("sleeper");
	for (;;)
		nap();
	return NULL;
}

static void *reaper_thread(void *arg)
{
	struct timespec life = { 0, 2000000 };

	(void)arg;
	announce("reaper");
	for (;;) {
		pid_t pid = fork();

		if (pid < 0)
			die("fork");
		if (pid == 0) {
			nanosleep(&life, NULL);
			_exit(0);
		}
		while (waitpid(pid, NULL, 0) < 0 && errno == EINTR)
			;
	}
	return NULL;
}

/* A process of the workload's own: 0 in it, its pid in the workload; it ends with the workload, however that ends. */
static pid_t fork_partner(void)
{
	pid_t child = fork();

	if (child < 0)
		die("fork");
	if (child == 0 && (prctl(PR_SET_PDEATHSIG, SIGKILL) || getppid() == 1))
		exit(1);
	return child;
}

/* Waits in epoll_wait on fd, with no timeout, until something comes: once, by a thread named role. */
static void *once_thread(void *arg)
{
	struct reader *r = arg;
	int ep = epoll_create1(0);
	struct epoll_event ev = { .events = EPOLLIN, .data.fd = r->fd };

	if (ep < 0 || epoll_ctl(ep, EPOLL_CTL_ADD, r->fd, &ev))
		die("epoll");
	announce(r->role);
	while (epoll_wait(ep, &ev, 1, -1) != 1)
		;
	for (;;)
		pause();
	return NULL;
}

static void on_alarm(int sig)
{
	(void)sig;
}

/*
 * The latch waiter: a wait with a timeout that runs out after 0.3 s, then
 * waits with none until the latch is written, the first ended by an alarm
 * 0.8 s from the start: a signal to this thread alone.  Its epoll set holds
 * a signalfd too, as a server's latch does: every signal sent to the
 * thread wakes a signalfd's waiters, before it is queued.
 */
static void *alarmed_thread(void *arg)
{
	struct reader *r = arg;
	struct sigevent sev = { .sigev_notify = SIGEV_THREAD_ID, .sigev_signo = SIGALRM };
	struct itimerspec alarm_at = { .it_value = { 0, 800000000 } };
	struct sigaction sa = { .sa_handler = on_alarm };
	int ep = epoll_create1(0), sfd;
	struct epoll_event ev = { .events = EPOLLIN, .data.fd = r->fd };
	sigset_t usr2;
	timer_t timer;

	sev._sigev_un._tid = (pid_t)syscall(SYS_gettid);	/* sigev_notify_thread_id, which glibc 2.36 lacks */
	sigemptyset(&usr2);
	sigaddset(&usr2, SIGUSR2);
	sfd = signalfd(-1, &usr2, 0);
	if (ep < 0 || sfd < 0 || epoll_ctl(ep, EPOLL_CTL_ADD, r->fd, &ev) ||
	    epoll_ctl(ep, EPOLL_CTL_ADD, sfd, &(struct epoll_event){ .events = EPOLLIN, .data.fd = sfd }) ||
	    sigaction(SIGALRM, &sa, NULL) ||
	    timer_create(CLOCK_MONOTONIC, &sev, &timer) || timer_settime(timer, 0, &alarm_at, NULL))
		die("alarm");
	announce(r->role);
	if (epoll_wait(ep, &ev, 1, 300))
		die("a latch written before its time");
	while (epoll_wait(ep, &ev, 1, -1) != 1)
		;
	for (;;)
		pause();
	return NULL;
}

/* Waits in epoll_wait, with no timeout, on a timerfd that fires every 300 ms, forever. */
static void *ticker_thread(void *arg)
{
	struct itimerspec every = { .it_interval = { 0, PERIOD_NS }, .it_value = { 0, PERIOD_NS } };
	int tfd = timerfd_create(CLOCK_MONOTONIC, 0), ep = epoll_create1(0);
	struct epoll_event ev = { .events = EPOLLIN, .data.fd = tfd };
	uint64_t n;

	(void)arg;
	if (tfd < 0 || ep < 0 || timerfd_settime(tfd, 0, &every, NULL) || epoll_ctl(ep, EPOLL_CTL_ADD, tfd, &ev))
		die("ticker");
	announce("ticker");
	for (;;)
		if (epoll_wait(ep, &ev, 1, -1) == 1 && read(tfd, &n, sizeof(n)) < 0)
			die("ticker");
	return NULL;
}

/* SIGUSR1, or the deadline: 0 for the signal (blocked in every thread before they start) */
static int triggered(long seconds)
{
	struct timespec t = { seconds, 0 };
	sigset_t usr1;

	sigemptyset(&usr1);
	sigaddset(&usr1, SIGUSR1);
	return sigtimedwait(&usr1, NULL, &t) == SIGUSR1 ? 0 : -1;
}

/* "fresh": the idler now; on SIGUSR1, the latch waiter, the late idler, and the latch's one write 2 s later. */
static int fresh(long seconds)
{
	static struct reader idler, late_idler, latch_waiter;
	struct timespec later = { 2, 0 };
	int latch_sv[2];
	sigset_t usr1;
	pid_t child;
	char c = 0;

	sigemptyset(&usr1);
	sigaddset(&usr1, SIGUSR1);
	if (pthread_sigmask(SIG_BLOCK, &usr1, NULL) || socketpair(AF_UNIX, SOCK_STREAM, 0, latch_sv))
		die("socketpair");
	child = fork_partner();
	if (child == 0) {
		pthread_setname_np(pthread_self(), "latchwriter");
		printf("latchwriter=%ld\n", (long)getpid());
		if (triggered(seconds))
			exit(0);
		nanosleep(&later, NULL);
		if (write(latch_sv[1], &c, 1) != 1)
			die("latchwriter");
		for (;;)
			pause();
	}
	pthread_barrier_init(&announced, NULL, 2);
	idler = (struct reader){ "idler", eventfd(0, 0) };
	start(once_thread, &idler);
	pthread_barrier_wait(&announced);
	printf("ready\n");
	if (!triggered(seconds)) {
		kill(child, SIGUSR1);
		pthread_barrier_init(&announced, NULL, 4);
		latch_waiter = (struct reader){ "latchwaiter", latch_sv[0] };
		late_idler = (struct reader){ "lateidler", eventfd(0, 0) };
		start(alarmed_thread, &latch_waiter);
		start(once_thread, &late_idler);
		start(ticker_thread, NULL);
		pthread_barrier_wait(&announced);
		printf("triggered\n");
		sleep((unsigned int)seconds);
	}
	kill(child, SIGKILL);
	waitpid(child, NULL, 0);
	return 0;
}

/* The other process: its three writers, then a byte on ready_fd. */
static void writers(int tcp_fd, int unix_fd, int latch_fd, int ready_fd)
{
	static struct writer tw, uw, lw;

	pthread_barrier_init(&announced, NULL, 4);
	tw = (struct writer){ "tcpwriter", tcp_fd };
	uw = (struct writer){ "unixwriter", unix_fd };
	lw = (struct writer){ "latchwriter", latch_fd };
	start(writer_thread, &tw);
	start(writer_thread, &uw);
	start(writer_thread, &lw);
	pthread_barrier_wait(&announced);
	if (write(ready_fd, "", 1) != 1)
		die("ready");
	for (;;)
		pause();
}

/* A TCP connection over loopback: *server_side and *client_side. */
static void tcp_pair(int *server_side, int *client_side)
{
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	socklen_t len = sizeof(a);
	int l = socket(AF_INET, SOCK_STREAM, 0);

	if (l < 0 || bind(l, (struct sockaddr *)&a, sizeof(a)) || listen(l, 1) ||
	    getsockname(l, (struct sockaddr *)&a, &len))
		die("listen");
	*client_side = socket(AF_INET, SOCK_STREAM, 0);
	if (*client_side < 0 || connect(*client_side, (struct sockaddr *)&a, sizeof(a)))
		die("connect");
	*server_side = accept(l, NULL, NULL);
	if (*server_side < 0)
		die("accept");
	close(l);
}

int main(int argc, char **argv)
{
	static struct writer kicker;
	static struct reader tcp_reader, unix_reader, poller, latch_waiter;
	int tcp_in, tcp_out, unix_sv[2], latch_sv[2], ready[2], efd;
	long seconds = argc > 1 ? strtol(argv[1], NULL, 10) : 60;
	pid_t child;
	char c;

	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc > 2 && !strcmp(argv[2], "reaper")) {
		pthread_barrier_init(&announced, NULL, 2);
		start(reaper_thread, NULL);
		pthread_barrier_wait(&announced);
		printf("ready\n");
		sleep((unsigned int)seconds);
		return 0;
	}
	if (argc > 2 && !strcmp(argv[2], "fresh"))
		return fresh(seconds);
	tcp_pair(&tcp_in, &tcp_out);
	if (socketpair(AF_UNIX, SOCK_STREAM, 0, unix_sv) || socketpair(AF_UNIX, SOCK_STREAM, 0, latch_sv) ||
	    pipe(ready))
		die("socketpair");
	child = fork_partner();
	if (child == 0) {
		printf("writers=%ld\n", (long)getpid());
		pthread_setname_np(pthread_self(), "waits-writers");
		close(tcp_in);
		close(unix_sv[0]);
		close(latch_sv[0]);
		writers(tcp_out, unix_sv[1], latch_sv[1], ready[1]);
	}
	close(tcp_out);
	close(unix_sv[1]);
	close(latch_sv[1]);
	if (read(ready[0], &c, 1) != 1)
		die("the writers' process");
	efd = eventfd(0, 0);
	if (efd < 0)
		die("eventfd");
	pthread_barrier_init(&announced, NULL, 7);
	kicker = (struct writer){ "kicker", efd };
	tcp_reader = (struct reader){ "tcpreader", tcp_in };
	unix_reader = (struct reader){ "unixreader", unix_sv[0] };
	poller = (struct reader){ "poller", efd };
	latch_waiter = (struct reader){ "latchwaiter", latch_sv[0] };
	start(poller_thread, &poller);
	start(poller_thread, &latch_waiter);
	start(sleeper_thread, NULL);
	start(reader_thread, &tcp_reader);
	start(reader_thread, &unix_reader);
	start(writer_thread, &kicker);
	pthread_barrier_wait(&announced);
	printf("ready\n");
	sleep((unsigned int)seconds);
	kill(child, SIGKILL);
	waitpid(child, NULL, 0);
	return 0;
}
