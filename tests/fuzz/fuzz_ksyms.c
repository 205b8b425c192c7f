// SPDX-License-Identifier: GPL-2.0-only
/*
 * libFuzzer target: /proc/kallsyms as ksyms.c reads it (module and BPF
 * program names included), then addresses looked up in what it kept.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "ksyms.h"
#include "scratch.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static char path[64];
	struct ksyms *ks;
	FILE *f;

	if (!path[0]) {
		int fd;

		fuzz_scratch(path, sizeof(path), "ksyms");
		fd = mkstemp(path);
		if (fd < 0)
			abort();
		close(fd);
	}
	f = fopen(path, "w");
	if (!f)
		abort();
	fwrite(data, 1, size, f);
	fclose(f);
	ks = ksyms__load(path);
	if (ks) {
		/* addresses the input names, and their neighbours */
		for (size_t i = 0; i + 8 <= size && i < 256; i += 8) {
			uint64_t addr, off;
			const char *name;

			memcpy(&addr, data + i, sizeof(addr));
			for (int d = -1; d <= 1; d++) {
				name = ksyms__lookup(ks, addr + d, &off);
				if (name && strlen(name) > 4096)
					abort();
			}
		}
		ksyms__lookup(ks, 0xffffffff81000000ull, NULL);
		ksyms__reread(ks);
		ksyms__lookup(ks, UINT64_MAX, NULL);
		ksyms__free(ks);
	}
	return 0;
}
