// SPDX-License-Identifier: GPL-2.0-only
/*
 * Threads that wait for locks other threads hold, for as long as the run
 * lasts, in known shapes: tract must name each waiter's holder, the root of
 * each chain and the cycles.  It prints each thread's role and tid, then
 * "ready", and ends at the deadline (the threads still waiting die with it).
 *
 *   hold      holder takes a mutex and sleeps; waiter1 and waiter2 wait for it
 *   chain     root holds m2 and sleeps; mid holds m1 and waits for m2;
 *             top waits for m1: top -> mid -> root
 *   deadlock  dead1 holds m1 and waits for m2, dead2 holds m2 and waits for m1
 *   pi        piholder takes a PTHREAD_PRIO_INHERIT mutex and sleeps; piwaiter waits
 *   kernel    kholder writes to a file from a buffer whose page fault never
 *             ends (userfaultfd), so it keeps the file's inode lock;
 *             kwaiter1..N write to the same file and wait for that lock
 *   file      fholder, a process of its own, takes a write lock on a file with
 *             fcntl and another with flock, and sleeps; fwaiter waits for the
 *             first in fcntl(F_SETLKW), flwaiter for the second in flock
 *   fake      fake1 and fake2 wait as glibc's contended mutex does (FUTEX_WAIT
 *             on 2) on words that are no pthread_mutex_t, the tid of a live
 *             thread of theirs (bystander) where glibc keeps __owner: fake1's
 *             counts no user, fake2's kind has bits glibc never sets
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <fcntl.h>
#include <linux/userfaultfd.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/file.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

static pthread_mutex_t m1 = PTHREAD_MUTEX_INITIALIZER, m2 = PTHREAD_MUTEX_INITIALIZER, pim;
static pthread_barrier_t both_hold;
static int kernel_fd = -1;
static char *stuck_page;
static long page_size;

static void die(const char *what, int err)
{
	fprintf(stderr, "locks: %s: %s\n", what, strerror(err));
	exit(1);
}

/* The thread's role and tid on stdout, and its name. */
static void announce(const char *role)
{
	pthread_setname_np(pthread_self(), role);
	printf("%s=%ld\n", role, (long)syscall(SYS_gettid));
	fflush(stdout);
}

static void sleep_forever(void)
{
	for (;;)
		pause();
}

static void lock(pthread_mutex_t *m)
{
	int err = pthread_mutex_lock(m);

	if (err)
		die("pthread_mutex_lock", err);
}

/* Takes *arg and sleeps holding it. */
static void *hold_thread(void *arg)
{
	lock(arg);
	announce(arg == &pim ? "piholder" : arg == &m2 ? "root" : "holder");
	sleep_forever();
	return NULL;
}

static void *wait_thread(void *arg)
{
	static int n;

	announce(arg == &pim ? "piwaiter" : __atomic_add_fetch(&n, 1, __ATOMIC_SEQ_CST) == 1 ? "waiter1" : "waiter2");
	lock(arg);
	return NULL;
}

static void *mid_thread(void *arg)
{
	(void)arg;
	lock(&m1);
	announce("mid");
	lock(&m2);
	return NULL;
}

static void *top_thread(void *arg)
{
	(void)arg;
	announce("top");
	lock(&m1);
	return NULL;
}

static void *dead_thread(void *arg)
{
	int first = arg == &m1;

	lock(first ? &m1 : &m2);
	announce(first ? "dead1" : "dead2");
	pthread_barrier_wait(&both_hold);
	lock(first ? &m2 : &m1);
	return NULL;
}

/* Writes the page no one ever faults in: the write holds the inode lock meanwhile. */
static void *kholder_thread(void *arg)
{
	(void)arg;
	announce("kholder");
	if (pwrite(kernel_fd, stuck_page, page_size, 0) < 0)
		sleep_forever();
	return NULL;
}

static void *kwaiter_thread(void *arg)
{
	static char buf[4096];
	char name[16];

	snprintf(name, sizeof(name), "kwaiter%ld", (long)(intptr_t)arg);
	announce(name);
	for (;;)
		if (pwrite(kernel_fd, buf, sizeof(buf), 0) < 0)
			sleep_forever();
	return NULL;
}

/*
 * The file's locks in a child process (file locks are a process's): both
 * taken, it says so on the pipe and sleeps until its parent ends.
 */
static void start_file_holder(const char *path)
{
	int ready[2], fd;
	char c = 0;

	fflush(stdout);
	if (pipe(ready))
		die("pipe", errno);
	if (fork() == 0) {
		struct flock fl = { .l_type = F_WRLCK, .l_whence = SEEK_SET };

		prctl(PR_SET_PDEATHSIG, SIGKILL);
		fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
		if (fd < 0 || fcntl(fd, F_SETLK, &fl) || flock(fd, LOCK_EX))
			die(path, errno);
		announce("fholder");
		fflush(stdout);
		if (write(ready[1], &c, 1) != 1)
			die("write", errno);
		sleep_forever();
	}
	if (read(ready[0], &c, 1) != 1)
		die("the file lock's holder", EPIPE);
}

static const char *locked_path;

/* Waits for the file's write lock: in fcntl(F_SETLKW) (arg NULL), or in flock. */
static void *file_waiter_thread(void *arg)
{
	struct flock fl = { .l_type = F_WRLCK, .l_whence = SEEK_SET };
	int fd = open(locked_path, O_RDWR | O_CLOEXEC);

	announce(arg ? "flwaiter" : "fwaiter");
	if (fd < 0)
		die(locked_path, errno);
	if (arg ? flock(fd, LOCK_EX) : fcntl(fd, F_SETLKW, &fl))
		die("the file lock", errno);
	sleep_forever();
	return NULL;
}

/* A word laid out as glibc's mutex, locked and contended, naming the bystander where __owner is. */
static int fake_words[2][5];
static pid_t bystander_tid;

static void *bystander_thread(void *arg)
{
	(void)arg;
	__atomic_store_n(&bystander_tid, (pid_t)syscall(SYS_gettid), __ATOMIC_SEQ_CST);
	announce("bystander");
	sleep_forever();
	return NULL;
}

static void *fake_thread(void *arg)
{
	int *w = arg;

	announce(w == fake_words[0] ? "fake1" : "fake2");
	for (;;)
		syscall(SYS_futex, w, 128 /* FUTEX_WAIT_PRIVATE */, 2, NULL, NULL, 0);
	return NULL;
}

static void start(void *(*fn)(void *), void *arg)
{
	pthread_t t;
	int err = pthread_create(&t, NULL, fn, arg);

	if (err)
		die("pthread_create", err);
}

/* Lets the thread before take its lock and go to sleep in it. */
static void settle(void)
{
	nanosleep(&(struct timespec){ .tv_nsec = 100 * 1000 * 1000 }, NULL);
}

/* A page of memory whose first touch waits on a userfaultfd no one reads. */
static char *page_never_filled(void)
{
	struct uffdio_api api = { .api = UFFD_API };
	struct uffdio_register reg;
	int uffd = (int)syscall(SYS_userfaultfd, O_CLOEXEC);
	char *p;

	if (uffd < 0 || ioctl(uffd, UFFDIO_API, &api))
		die("userfaultfd", errno);
	p = mmap(NULL, page_size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		die("mmap", errno);
	reg.range.start = (unsigned long)p;
	reg.range.len = page_size;
	reg.mode = UFFDIO_REGISTER_MODE_MISSING;
	if (ioctl(uffd, UFFDIO_REGISTER, &reg))
		die("UFFDIO_REGISTER", errno);
	return p;
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "";
	long seconds = argc > 2 ? strtol(argv[2], NULL, 10) : 30, waiters = argc > 3 ? strtol(argv[3], NULL, 10) : 4;

	page_size = sysconf(_SC_PAGESIZE);
	if (!strcmp(mode, "hold")) {
		start(hold_thread, &m1);
		settle();
		start(wait_thread, &m1);
		start(wait_thread, &m1);
	} else if (!strcmp(mode, "chain")) {
		start(hold_thread, &m2);
		settle();
		start(mid_thread, NULL);
		settle();
		start(top_thread, NULL);
	} else if (!strcmp(mode, "deadlock")) {
		pthread_barrier_init(&both_hold, NULL, 2);
		start(dead_thread, &m1);
		start(dead_thread, &m2);
	} else if (!strcmp(mode, "pi")) {
		pthread_mutexattr_t a;

		pthread_mutexattr_init(&a);
		pthread_mutexattr_setprotocol(&a, PTHREAD_PRIO_INHERIT);
		pthread_mutex_init(&pim, &a);
		start(hold_thread, &pim);
		settle();
		start(wait_thread, &pim);
	} else if (!strcmp(mode, "fake")) {
		pid_t tid;

		start(bystander_thread, NULL);
		while (!(tid = __atomic_load_n(&bystander_tid, __ATOMIC_SEQ_CST)))
			settle();
		/* lock, count, owner, nusers, kind */
		memcpy(fake_words[0], (int[5]){ 2, 0, tid, 0, 0 }, sizeof(fake_words[0]));
		memcpy(fake_words[1], (int[5]){ 2, 0, tid, 1, 0x10000 }, sizeof(fake_words[1]));
		start(fake_thread, fake_words[0]);
		start(fake_thread, fake_words[1]);
	} else if (!strcmp(mode, "file") && argc > 3) {
		locked_path = argv[3];
		start_file_holder(locked_path);
		start(file_waiter_thread, NULL);
		start(file_waiter_thread, (void *)1);
	} else if (!strcmp(mode, "kernel") && argc > 4) {
		kernel_fd = open(argv[4], O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
		if (kernel_fd < 0)
			die(argv[4], errno);
		stuck_page = page_never_filled();
		start(kholder_thread, NULL);
		settle();
		for (long i = 1; i <= waiters; i++)
			start(kwaiter_thread, (void *)(intptr_t)i);
	} else {
		fprintf(stderr, "usage: locks hold|chain|deadlock|pi|fake [SECONDS]\n"
				"       locks kernel SECONDS WAITERS FILE\n"
				"       locks file SECONDS FILE\n");
		return 2;
	}
	settle();
	printf("ready pid=%d\n", (int)getpid());
	fflush(stdout);
	sleep((unsigned int)seconds);
	/* the threads still waiting end with the process */
	_exit(0);
}
