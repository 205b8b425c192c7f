/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Process titles: a process's command line as ps shows it (/proc/PID/cmdline,
 * its arguments joined by spaces), which servers rewrite to say what each
 * process does now: PostgreSQL's "postgres: checkpointer", a backend's
 * "postgres: app shop [local] UPDATE waiting".  Every process of such a
 * server has the same name; the title tells them apart.
 *
 * A title is read after the pass's snapshot (never inside it), only for the
 * processes the pass has rows of, and at most once per PROCTITLE_REFRESH_NS
 * per process: a backend's title changes with each statement, and a read
 * costs an open, a read and a close (6 to 9 us of a user process's, measured
 * beside 600 processes).  A new process's title is read at once; of those
 * read before, at most PROCTITLE_REFRESHES_PER_PASS are read again in a pass
 * (the next pass goes on where it stopped): thousands of processes in every
 * pass (--all) cost about half a millisecond a pass, their titles then read
 * again every few seconds rather than every second.  The process's user writes the bytes:
 * they are cut to PROCTITLE_MAX bytes and their control characters replaced.
 */
#ifndef TRACT_PROCTITLE_H
#define TRACT_PROCTITLE_H

#include <stddef.h>
#include <stdint.h>

#define PROCTITLE_MAX 256
#define PROCTITLE_REFRESH_NS 1000000000ull
#define PROCTITLE_REFRESHES_PER_PASS 64

struct pass;
struct proctitles;

struct proctitles *proctitles__new(const char *proc_root);
void proctitles__free(struct proctitles *t);
/*
 * The title of a command line's raw bytes (NULs between the arguments) into
 * out, which holds PROCTITLE_MAX + 1 bytes: NULs become spaces, other
 * control characters '?', trailing NULs and spaces go, and a title longer
 * than PROCTITLE_MAX is cut there, before a UTF-8 character it would split.
 * Returns its length; 0 for none (a kernel thread's or a zombie's command
 * line is empty).
 */
size_t proctitle_clean(const char *raw, size_t len, char *out);
/*
 * Every row of p gets its process's title, a copy the pass owns: read again
 * when the last read is PROCTITLE_REFRESH_NS old (now_ns: CLOCK_MONOTONIC;
 * within the pass's budget) or the process's name changed (an exec); a kernel thread's, or one whose
 * command line is empty, is "[pcomm]" as ps shows it; a process gone before
 * it was ever read has its pcomm.
 */
void proctitles__fill(struct proctitles *t, struct pass *p, uint64_t now_ns);

struct proctitles_stats {
	uint64_t reads;		/* command lines read */
	uint64_t read_ns;	/* the time they took, in all */
	uint64_t passes;	/* passes filled */
	uint64_t fill_ns;	/* the time filling them took, the reads' too */
	size_t cached;		/* processes whose title it holds now */
};

void proctitles__stats(const struct proctitles *t, struct proctitles_stats *out);

#endif
