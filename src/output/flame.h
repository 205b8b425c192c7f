/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Flame graphs of thread time: paths of frames from the root (process, user
 * stack, kernel stack, then what the thread was doing: state, syscall,
 * file), each weighted by the time its samples stand for.  Written as
 * folded lines for flamegraph.pl and inferno, as speedscope's JSON, or as a
 * self-contained interactive SVG.
 */
#ifndef TRACT_FLAME_H
#define TRACT_FLAME_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

enum flame_kind {
	FLAME_ROOT,
	FLAME_PROCESS,
	FLAME_USER,		/* a function of the user stack */
	FLAME_KERNEL,		/* a function of the kernel stack */
	FLAME_STATE,		/* RUN, RUNQ, DISK, SLEEP, ... */
	FLAME_SYSCALL,
	FLAME_FILE,		/* the file or socket the syscall works on */
};

struct flame_frame {
	enum flame_kind kind;
	const char *name;
	size_t len;
};

struct flame;

struct flame *flame__new(void);
void flame__free(struct flame *f);
/* Adds weight (µs of thread time) to the path frames[0..n), outermost first. */
void flame__add(struct flame *f, const struct flame_frame *frames, size_t n, uint64_t weight);
/* Σ weight added. */
uint64_t flame__total(const struct flame *f);

/* "frame;frame;... weight" lines, one per path; ';' and newlines in names become '_'. */
int flame__write_folded(const struct flame *f, FILE *out);

struct flame_svg_opts {
	const char *title;		/* the first line: what was selected */
	const char *subtitle;		/* the window, the selection's total */
	unsigned int width;		/* px; 0: 1200 */
	int ticks;			/* weights are profile ticks, not µs of thread time */
	/*
	 * A differential graph: each frame coloured by how its share of the
	 * selection changed since this one (red grew, blue shrank, grey the
	 * same); NULL: coloured by kind.
	 */
	const struct flame *base;
};

/* The interactive SVG; frames narrower than a pixel are not drawn, their time stays in their parent. */
int flame__write_svg(const struct flame *f, FILE *out, const struct flame_svg_opts *o);

/* speedscope's file format: one "sampled" profile, weights in microseconds. */
int flame__write_speedscope(const struct flame *f, FILE *out, const char *name);

#endif
