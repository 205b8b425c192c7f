// SPDX-License-Identifier: GPL-2.0-only
/* libFuzzer target: every parser of option values and times. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "parse.h"
#include "timespec.h"
#include "tract/abi.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *s = malloc(size + 1);
	uint32_t pids[TRACT_PID_FILTER_MAX];
	uint64_t v;
	double hz;
	size_t n;

	memcpy(s, data, size);
	s[size] = '\0';
	parse_u64(s, 0, UINT64_MAX, &v);
	parse_seconds(s, &v);
	parse_hz(s, 1000, &hz);
	parse_pid_list(s, pids, TRACT_PID_FILTER_MAX, &n);
	parse_duration(s, &v);
	parse_size(s, &v);
	timespec_parse(s, 1767225600000000ull, &v);
	free(s);
	return 0;
}
