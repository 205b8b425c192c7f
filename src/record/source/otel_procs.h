/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The processes whose threads publish an OpenTelemetry thread context, as
 * the sampler's otel_procs map holds them: each process is searched when
 * it is first seen (and again after an exec, and every half minute while
 * it publishes nothing, for a library it may load later, a few a pass),
 * and its entry goes when it is gone.  A process that publishes nothing
 * costs the sampler one failed lookup.
 */
#ifndef TRACT_OTEL_PROCS_H
#define TRACT_OTEL_PROCS_H

#include <stdint.h>

struct otel_procs;

/*
 * map_fd: the otel_procs map; gen: the sampler's otel_gen, bumped when a
 * cached read of a thread would no longer be what a read gives; proc_root: "/proc".
 */
struct otel_procs *otel_procs__new(int map_fd, volatile uint32_t *gen, const char *proc_root);
void otel_procs__free(struct otel_procs *o);
/* A sample of process tgid (started at start_ns, named pcomm) came in this pass. */
void otel_procs__seen(struct otel_procs *o, uint32_t tgid, uint64_t start_ns, const char *pcomm);
/* After a pass: the searches it allows, and the entries of processes gone. */
void otel_procs__pass_end(struct otel_procs *o, uint64_t now_ns);
/* The names of process tgid's thread-context attributes, or NULL when it has none. */
struct otel_keys;
const struct otel_keys *otel_procs__keys(struct otel_procs *o, uint32_t tgid);
/* A record of process tgid used a key its map lacked: it is read again soon. */
void otel_procs__keys_stale(struct otel_procs *o, uint32_t tgid);

#endif
