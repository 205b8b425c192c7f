/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The recorder's stack dictionary: raw stacks from the sampler, keyed by the
 * hash the kernel side computed, symbolized once into text.
 */
#ifndef TRACT_STACKDICT_H
#define TRACT_STACKDICT_H

#include <stdint.h>
#include <stddef.h>
#include "sample.h"
#include "tract/abi.h"

struct unwind_stats;
struct python_stats;

struct ksyms;
struct usyms;

struct stackdict;

/* ks and us (either may be NULL) are the caller's and must outlive the dictionary. */
struct stackdict *stackdict__new(struct ksyms *ks, struct usyms *us);
void stackdict__free(struct stackdict *sd);
/* Record a raw stack (innermost frame first) under the kernel's hash. */
const struct kstack *stackdict__add(struct stackdict *sd, uint64_t raw_hash,
				    const uint64_t *ip, size_t nr);
/*
 * Record a raw user stack of process tgid, symbolized now: the process may
 * exit soon.  cut: the walk stopped before the outermost frame, which the
 * frames say with a leading "[cut]"; < 0: the walk does not say (the
 * kernel's), and the stack is cut unless its outermost frame is where a
 * process or thread begins, so that the same frames read the same from
 * either walk.
 */
const struct kstack *stackdict__add_user(struct stackdict *sd, uint64_t raw_hash, uint32_t tgid,
					 const uint64_t *ip, size_t nr, int cut);
/*
 * Record a user stack copied as bytes (bytes: copy->len of them), unwound
 * and symbolized now, under the copy's id.  Copies that unwind to the same
 * frames share one entry.  The thread's Python frames, if it runs CPython,
 * take the place of the interpreter's (python.h).
 */
const struct kstack *stackdict__add_user_copy(struct stackdict *sd, const struct tract_ustack_copy *copy,
					      const void *bytes);
/* What unwinding the copies cost so far. */
void stackdict__unwind_stats(const struct stackdict *sd, struct unwind_stats *st);
/* What reading Python's own frames cost so far. */
void stackdict__python_stats(const struct stackdict *sd, struct python_stats *st);
/* A stack already symbolized elsewhere ("outer;...;inner"), as /proc gives it. */
const struct kstack *stackdict__add_folded(struct stackdict *sd, const char *kind, const char *folded);
/* Once per pass, before its rows: lets the user symbolizer forget processes gone quiet, and the last pass's questions line up with this one's. */
void stackdict__end_pass(struct stackdict *sd);
/*
 * Process tgid (started at start_ns) ended: its mappings go now, its user
 * stacks once no pass still queued for the store can point at them
 * (GRACE_PASSES in stackdict.c).
 */
void stackdict__forget_process(struct stackdict *sd, uint32_t tgid, uint64_t start_ns);
/*
 * A kernel stack no pass asked for in this many passes is freed: more than
 * a queued pass can hold on to, and long, as the sampler names the stack of
 * a thread that has not run since by its hash alone: a thread left out of
 * the passes for that long and shown again without having run has its row
 * without its kernel stack.
 */
#define STACKDICT_KSTACK_IDLE_PASSES 4096
/* Stacks held now (kernel and user). */
size_t stackdict__size(const struct stackdict *sd);
/* The stack seen before under this hash, or NULL. */
const struct kstack *stackdict__get(struct stackdict *sd, uint64_t raw_hash);

#endif
