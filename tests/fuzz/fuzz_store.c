// SPDX-License-Identifier: GPL-2.0-only
/*
 * libFuzzer target: tract query on a damaged store file.  The input becomes
 * an hourly file; reading it must end in rows or a clean error, never a
 * crash.  Seeds are real store files.  The messages of damaged files come
 * by the thousand: run it with -close_fd_mask=2, as make fuzz does.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "aggregate.h"
#include "rawsql.h"
#include "reader.h"
#include "util.h"
#include "scratch.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static char dir[64], path[128];
	struct agg_query q = { .cat = &catalog_samples, .group = "state,syscall,pcomm,wait",
			       .filter = "state != RUN", .from_us = 0, .to_us = UINT64_MAX / 2 };
	struct agg_result r;
	struct store_reader set;
	FILE *f, *null = fopen("/dev/null", "w");

	if (!dir[0]) {
		fuzz_scratch(dir, sizeof(dir), "store");
		if (!mkdtemp(dir))
			abort();
		snprintf(path, sizeof(path), "%s/tract-20260101-00.db", dir);
	}
	f = fopen(path, "w");
	fwrite(data, 1, size, f);
	fclose(f);
	if (!store_reader__open(dir, &set)) {
		if (!aggregate(&set, &q, &r))
			agg_result__sort(&r);
		agg_result__free(&r);
		rawsql_run(&set, 0, UINT64_MAX / 2, 0, "SELECT count(*), max(kstack) FROM samples",
			   RENDER_CSV, null);
		store_reader__free(&set);
	}
	fclose(null);
	unlink(path);
	return 0;
}
