/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * CPython's own frames: the function, file and line of each Python frame a
 * thread runs, read from the interpreter's memory when its user stack is
 * symbolized.  One C-level call of _PyEval_EvalFrameDefault runs several
 * Python frames, so each such native frame is replaced by the Python frames
 * it runs.  The offsets come from the interpreter binary: 3.13's
 * _Py_DebugOffsets, else a small table per minor version (3.11, 3.12)
 * checked against the binary's own type descriptions.  Everything read is
 * written by the process watched: bounded, checked, and dropped where it
 * does not hold (a thread on its CPU changes its frames as they are read).
 * Not thread-safe.
 */
#ifndef TRACT_PYTHON_H
#define TRACT_PYTHON_H

#include <stddef.h>
#include <stdint.h>

struct python;

/* The eval calls of one stack, innermost first: what each runs, as a folded stack ("outer;...;inner"). */
#define PYTHON_MAX_SEGMENTS 64
struct python_stack {
	size_t nr;
	char *seg[PYTHON_MAX_SEGMENTS];
};

struct python_stats {
	uint64_t procs;		/* interpreters known now */
	uint64_t stacks;	/* threads' frames read */
	uint64_t torn;		/* ... and read while they changed: left out */
	uint64_t moved;		/* ... of a thread that ran on since its stack was copied: left out */
	uint64_t ns;		/* the time reading them took */
	uint64_t code_bytes;	/* code objects' names and line tables held now */
};

/* proc_root laid out as /proc (NULL: /proc). */
struct python *python__new(const char *proc_root);
void python__free(struct python *py);
/*
 * The Python frames thread tid of process tgid runs now, by the eval call
 * that runs them, for its user stack copied with still
 * (tract_ustack_copy.still: thread_still.h).  Returns how many segments
 * *out got (0: none, not an interpreter that tract reads, frames that did
 * not hold, or a thread that ran on since its stack was copied, whose
 * frames would be of a later moment); free them with python_stack__clear().
 */
size_t python__read(struct python *py, uint32_t tgid, uint32_t tid, uint32_t still, struct python_stack *out);
void python_stack__clear(struct python_stack *ps);
/* Process tgid ended: what was kept of it goes. */
void python__forget(struct python *py, uint32_t tgid);
void python__stats(const struct python *py, struct python_stats *st);

/*
 * A folded user stack ("outer;...;inner") with each _PyEval_EvalFrameDefault
 * frame replaced by the Python frames it runs: malloc'd, or NULL when the
 * stack has none or the two disagree.  cut: the native walk stopped early,
 * so the outermost eval calls may be missing from it.
 */
char *python__merge(const char *folded, const struct python_stack *ps, int cut);

/*
 * The source line of the code unit at lasti (counted in 2-byte code units)
 * in a 3.11+ location table (co_linetable, Objects/locations.md), for code
 * whose first line is firstlineno; -1 when the table gives none.
 */
int python__line(const uint8_t *table, size_t len, int firstlineno, int64_t lasti);

#endif
