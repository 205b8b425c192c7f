/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Where a process keeps its threads' OpenTelemetry thread context (OTEP
 * 4947): the module of its executable or loaded libraries that defines the
 * TLS variable otel_thread_ctx_v1 in its dynamic symbols, and how a thread
 * reaches that variable in the module's TLS model.  Static TLS (TLSDESC as
 * glibc mostly resolves it, initial-exec, local-exec) is an offset from
 * the thread pointer; dynamic TLS (general-dynamic, a TLSDESC of a module
 * loaded late) a module id in the thread's DTV and an offset in its block.
 * The recorder finds this once per process and hands it to the sampler,
 * which reads each sampled thread's record.
 */
#ifndef TRACT_OTEL_TLS_H
#define TRACT_OTEL_TLS_H

#include <stdint.h>

struct otel_tls {
	int64_t offset;			/* static: from the thread pointer; dynamic: in the module's block */
	uint64_t module;		/* 0: static TLS; else the module's index in the DTV */
	char model[16];			/* tlsdesc, gd, ie, le: for messages */
};

/*
 * Finds it for process pid under proc_root ("/proc"): 1 when found, 0 when
 * the process publishes nothing (yet: a library may come later), -errno
 * when it cannot be read.
 */
int otel_tls_find(const char *proc_root, uint32_t pid, struct otel_tls *out);

#endif
