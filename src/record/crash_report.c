// SPDX-License-Identifier: GPL-2.0-only
/*
 * A recorder that crashes says so on stderr, with where: a signal's name,
 * the faulting address and a backtrace, written with what is safe in a
 * signal handler, before the signal ends it as it would have.  The passes
 * still queued are lost; the store stays readable (every pass is a
 * transaction), and the next recorder tells that this one did not stop.
 */
#include <execinfo.h>
#include <signal.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>
#include "crash_report.h"

static const int crash_signals[] = { SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT };

static void put(const char *s)
{
	ssize_t n = write(STDERR_FILENO, s, strlen(s));

	(void)n;
}

static void put_hex(uintptr_t v)
{
	char buf[2 + 2 * sizeof(v) + 1], *p = buf + sizeof(buf) - 1;

	*p = '\0';
	do {
		*--p = "0123456789abcdef"[v & 15];
		v >>= 4;
	} while (v);
	*--p = 'x';
	*--p = '0';
	put(p);
}

static void put_dec(uintmax_t v)
{
	char buf[24], *p = buf + sizeof(buf) - 1;

	*p = '\0';
	do {
		*--p = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	put(p);
}

static void on_crash(int sig, siginfo_t *info, void *ctx)
{
	void *frames[64];
	int n;

	(void)ctx;
	put("tract: crashed (");
	put("SIG");
	put(sigabbrev_np(sig) ? sigabbrev_np(sig) : "?");
	if (info->si_code <= 0) {
		/* kill(2), tgkill(2), abort(3): a sender, not a fault */
		put(" sent by pid ");
		put_dec((uintmax_t)info->si_pid);
	} else {
		put(" at ");
		put_hex((uintptr_t)info->si_addr);
	}
	put("); the passes not yet stored are lost. Where it was:\n");
	n = backtrace(frames, 64);
	backtrace_symbols_fd(frames, n, STDERR_FILENO);
	/* SA_RESETHAND put the default action back: the signal ends the process as it would have */
	raise(sig);
}

void crash_report_install(void)
{
#if !defined(__SANITIZE_ADDRESS__)
	static char alt_stack[64 * 1024];
	stack_t ss = { .ss_sp = alt_stack, .ss_size = sizeof(alt_stack) };
	struct sigaction sa = { .sa_sigaction = on_crash, .sa_flags = SA_SIGINFO | SA_RESETHAND | SA_ONSTACK };
	void *warm[1];

	/* the first backtrace() loads the unwinder, which allocates: not in a handler */
	backtrace(warm, 1);
	/* a stack of its own: a crash by stack overflow still reports */
	sigaltstack(&ss, NULL);
	sigemptyset(&sa.sa_mask);
	for (size_t i = 0; i < sizeof(crash_signals) / sizeof(crash_signals[0]); i++)
		sigaction(crash_signals[i], &sa, NULL);
#endif
}
