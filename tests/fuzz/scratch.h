/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Where a fuzz target keeps the files it makes of its inputs: under
 * $TMPDIR (scripts/fuzz-fixed.sh gives each target a directory in memory,
 * where a file deleted costs no discard of its blocks on the disk), else
 * under /tmp.  NAME.XXXXXX is left for mkdtemp() or mkstemp().
 */
#ifndef TRACT_FUZZ_SCRATCH_H
#define TRACT_FUZZ_SCRATCH_H

#include <stdio.h>
#include <stdlib.h>

static inline void fuzz_scratch(char *buf, size_t size, const char *name)
{
	const char *tmp = getenv("TMPDIR");
	int n = -1;

	if (tmp && *tmp)
		n = snprintf(buf, size, "%s/tract-fuzz-%s.XXXXXX", tmp, name);
	if (n < 0 || (size_t)n >= size)
		snprintf(buf, size, "/tmp/tract-fuzz-%s.XXXXXX", name);
}

#endif
