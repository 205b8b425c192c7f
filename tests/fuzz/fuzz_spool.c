// SPDX-License-Identifier: GPL-2.0-only
/*
 * libFuzzer target: the ClickHouse spool's files as a restart finds them
 * (ch_spool.c, ch_gaps.c).  The input holds them, each part ending at a
 * line of a single form feed ("\n\f\n"), in the order of files[] below: a
 * batch's manifest and its tables, a second manifest, the gaps and the
 * mark.  The spool is opened, its oldest batch read, marked and removed,
 * and the gaps walked, as the sender does.
 */
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "ch_gaps.h"
#include "ch_spool.h"
#include "util.h"
#include "scratch.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char *const files[] = {
	"0000000000000007.batch", "0000000000000007.samples", "0000000000000007.stacks",
	"0000000000000007.passes", "0000000000000007.io", "0000000000000007.syscall",
	"0000000000000007.runq", "0000000000000007.wakeups", "0000000000000007.profile",
	"0000000000000009.batch", "gaps", "mark",
};

/* Empties dir, and its quarantine. */
static void empty(const char *dir)
{
	char path[256];
	DIR *d = opendir(dir);
	struct dirent *e;

	while (d && (e = readdir(d))) {
		if (e->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
		if (!strcmp(e->d_name, "quarantine"))
			empty(path);
		if (unlink(path))
			rmdir(path);
	}
	if (d)
		closedir(d);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static char dir[64];
	const char *p = (const char *)data, *end = p + size;
	struct ch_spool s;
	struct ch_batch b;
	uint64_t from, to, n, bytes;

	if (!dir[0]) {
		fuzz_scratch(dir, sizeof(dir), "spool");
		if (!mkdtemp(dir))
			abort();
		tract_hold_errors(1);
	}
	empty(dir);
	for (size_t i = 0; i < ARRAY_SIZE(files) && p; i++) {
		const char *sep = memmem(p, (size_t)(end - p), "\n\f\n", 3);
		char path[256];
		FILE *f;

		snprintf(path, sizeof(path), "%s/%s", dir, files[i]);
		f = fopen(path, "w");
		if (!f)
			abort();
		fwrite(p, 1, sep ? (size_t)(sep - p) + 1 : (size_t)(end - p), f);
		fclose(f);
		p = sep ? sep + 3 : NULL;
	}
	if (ch_spool__open(&s, dir, 1 << 20))
		abort();
	for (int i = 0; i < 3 && !ch_spool__oldest(&s, &b); i++) {
		for (int t = 0; t < CH_TABLES; t++)
			if (b.len[t] != strlen(b.data[t]) && !memchr(b.data[t], '\0', b.len[t]))
				abort();
		ch_batch__free(&b);
		/* half sent, then all */
		b.done |= 1u << (i % CH_TABLES);
		ch_spool__update(&s, &b);
		b.done = (1u << CH_TABLES) - 1;
		ch_spool__update(&s, &b);
	}
	ch_spool__size(&s, &n, &bytes);
	ch_spool__close(&s);
	ch_gaps__mark(dir);
	while (ch_gaps__first(dir, &from, &to))
		if (ch_gaps__done(dir))
			abort();
	return 0;
}
