// SPDX-License-Identifier: GPL-2.0-only
/*
 * libFuzzer target: an hour of the CSV store read back (csv_reader.c).  The
 * input holds the hour's files, each part of it ending at a line of a
 * single form feed ("\n\f\n"), in the order of parts[] below; a part not
 * there is a file missing.  Reading must end in a database or a clean
 * error, never a crash.  Seeds are hours tract recorded, cut short.
 */
#include <sqlite3.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "csv_reader.h"
#include "hours.h"
#include "util.h"
#include "scratch.h"

#define HOUR_US 1796526000000000ull	/* 2026-12-06 03:00 */

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char *const parts[] = {
	".samples.csv", ".stacks.csv", ".passes.csv", ".io_latency.csv", ".syscall_latency.csv",
	".runq_latency.csv", ".wakeups.csv", ".profile.csv", ".meta.csv",
};

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static char dir[64];
	const char *p = (const char *)data, *end = p + size;
	sqlite3 *db = NULL;

	if (!dir[0]) {
		fuzz_scratch(dir, sizeof(dir), "csv");
		if (!mkdtemp(dir))
			abort();
		/* damaged files make a message each: kept, not printed */
		tract_hold_errors(1);
	}
	for (size_t i = 0; i < ARRAY_SIZE(parts); i++) {
		char *path = store_hour_path(dir, HOUR_US, parts[i]);
		const char *sep = p ? memmem(p, (size_t)(end - p), "\n\f\n", 3) : NULL;
		FILE *f;

		unlink(path);
		if (p) {
			f = fopen(path, "w");
			if (!f)
				abort();
			fwrite(p, 1, sep ? (size_t)(sep - p) + 1 : (size_t)(end - p), f);
			fclose(f);
			p = sep ? sep + 3 : NULL;
		}
		free(path);
	}
	if (!store_csv__load_hour(dir, HOUR_US, &db)) {
		sqlite3_exec(db, "SELECT count(*), sum(length(comm)) FROM samples", NULL, NULL, NULL);
		sqlite3_close(db);
	}
	return 0;
}
