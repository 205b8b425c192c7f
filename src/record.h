/* SPDX-License-Identifier: GPL-2.0-only */
/* Options of tract record, parsed apart from running so they can be tested. */
#ifndef TRACT_RECORD_H
#define TRACT_RECORD_H

#include <stdint.h>
#include "sampler.h"

#define MAX_HZ 1000.0
#define DEFAULT_DATA_DIR "/var/lib/tract"

enum output { OUT_TERMINAL, OUT_SQLITE, OUT_CSV };

struct record_opts {
	double hz;
	uint64_t duration_ns;		/* 0: until signalled */
	const char *dir;		/* NULL: print to the terminal */
	enum output output;
	struct sampler_config sampler;
};

/* 0; 1 when --help was printed; -EINVAL after a message on stderr. */
int record_parse_args(int argc, char **argv, struct record_opts *o);

#endif
