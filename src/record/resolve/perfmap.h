/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * JIT code named by the perf map convention: a runtime writes
 * /tmp/perf-PID.map, one "START SIZE NAME" line per piece of code it
 * generated, START and SIZE in hex with or without "0x" (HotSpot's jcmd
 * Compiler.perfmap and -XX:+DumpPerfMapAtExit, Node's --perf-basic-prof,
 * Python 3.12's -X perf).  Some append as they compile, some rewrite the
 * whole file: a map is read on from where it was left while the file only
 * grew, and afresh when it was rewritten.  The file is written by the
 * process tract watches: everything read from it is bounded.
 */
#ifndef TRACT_PERFMAP_H
#define TRACT_PERFMAP_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* Of one file, whatever it claims: what a map reads and what a line may be. */
#define PERFMAP_MAX_FILE	(64u << 20)
#define PERFMAP_MAX_LINE	4096u
/* A name longer than this is cut: a frame is not a place for a paragraph. */
#define PERFMAP_MAX_NAME	512u

struct perfmap;

struct perfmap_stats {
	uint64_t lines;		/* read and kept */
	uint64_t bad;		/* not "START SIZE NAME", or too long */
	uint64_t dropped;	/* good, but past the memory the map may hold */
	uint64_t rereads;	/* the file was rewritten: read again from its start */
};

struct perfmap *perfmap__new(void);
void perfmap__free(struct perfmap *pm);

/*
 * Reads what is new in fd (an open perf map): the lines past those read
 * before if the file only grew, all of it if it was replaced, rewritten or
 * cut.  A last line with no newline yet waits for its end.  The map holds
 * at most max_bytes (entries and names); lines past it are counted and
 * dropped.  Returns 0 or -errno.
 */
int perfmap__update(struct perfmap *pm, int fd, size_t max_bytes);

/*
 * Parses whole lines of buf (len bytes) into the map, as update does; the
 * bytes it took (up to the end of the last whole line).  For tests.
 */
size_t perfmap__parse(struct perfmap *pm, const char *buf, size_t len, size_t max_bytes);

/*
 * The name of the code that holds addr, and in *off how far into it addr
 * is; NULL if no line names it.  Where lines overlap (code freed and its
 * memory reused), the later line wins.
 */
const char *perfmap__lookup(struct perfmap *pm, uint64_t addr, uint64_t *off);

/* Bytes the map holds now. */
size_t perfmap__bytes(const struct perfmap *pm);
void perfmap__stats(const struct perfmap *pm, struct perfmap_stats *st);

/*
 * Opens the perf map of process pid as the process sees it: its own
 * /tmp under its own root (a container's), named by the pid its own
 * namespace gives it (the last field of NSpid in its status).  Only a
 * regular file, not a symlink, owned by the process's user (or by root for
 * a root process): a user must not make the recorder read another's file.
 * An fd, or -errno (-ENOENT: no map; -EPERM: one that may not be read).
 */
int perfmap_open(const char *proc, pid_t pid);

#endif
