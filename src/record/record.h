/* SPDX-License-Identifier: GPL-2.0-only */
/* Options of tract record, parsed apart from running so they can be tested. */
#ifndef TRACT_RECORD_H
#define TRACT_RECORD_H

#include <stdint.h>
#include "sampler.h"
#include "sink.h"

#define MAX_HZ 1000.0

enum source { SOURCE_AUTO, SOURCE_BPF, SOURCE_PROC };

struct record_opts {
	double hz;
	uint64_t duration_ns;		/* 0: until signalled */
	const char *dir;		/* NULL: print to the terminal */
	const struct store_kind *store;	/* NULL: print to the terminal */
	uint64_t keep_us, max_bytes;	/* retention; 0: none */
	long gid;			/* --group; -1: none */
	enum source source;
	struct sampler_config sampler;
	/* --clickhouse: every pass shipped there too (or only, with --no-local) */
	const char *ch_url, *ch_host, *ch_user, *ch_password_file, *ch_ca_file;
	int no_local;
	uint64_t spool_max;
	uint64_t ship_every_us;		/* a batch sealed at least this often */
};

/* The defaults of every option: what live top records with, and record starts from. */
void record_opts_init(struct record_opts *o);
/* 0; 1 when --help was printed; -EINVAL after a message on stderr. */
int record_parse_args(int argc, char **argv, struct record_opts *o);
/* A sampling rate, as -F takes it (record and live top); 0 or -EINVAL. */
int record_parse_hz(const char *s, double *hz);
#define RECORD_HZ_EXPECTED "expected passes per second, a plain number from 0.0000116 (one pass a day) to 1000"
/* SIGINT, SIGTERM and SIGUSR1 end the recording after the pass under way. */
void record_install_signals(void);
/*
 * Records until the duration is over or a stop is requested; ready(arg), if
 * given, is called once the programs are attached and the store is open.
 * Returns the exit status (2 when BPF cannot be used, 1 on other errors).
 */
int record_run(const struct record_opts *o, void (*ready)(void *arg), void *arg);
/* Async-signal-safe; a sleeping recorder notices at its next tick, or at once on SIGUSR1. */
void record_request_stop(void);

#endif
