// SPDX-License-Identifier: GPL-2.0-only
/*
 * libFuzzer target: a perf map as a process may write it, read as it grows
 * (the input in two parts, the second appended) and then rewritten (the
 * second part alone), under a small memory bound; addresses it names
 * looked up, and their neighbours.
 */
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "perfmap.h"
#include "scratch.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void write_at(const char *path, const uint8_t *data, size_t size, const char *mode)
{
	FILE *f = fopen(path, mode);

	if (!f)
		abort();
	fwrite(data, 1, size, f);
	fclose(f);
}

static void look_up(struct perfmap *pm, const uint8_t *data, size_t size)
{
	for (size_t i = 0; i + 8 <= size && i < 256; i += 8) {
		uint64_t addr, off;
		const char *name;

		memcpy(&addr, data + i, sizeof(addr));
		for (int d = -1; d <= 1; d++) {
			name = perfmap__lookup(pm, addr + d, &off);
			if (name && strlen(name) > PERFMAP_MAX_NAME)
				abort();
		}
	}
	perfmap__lookup(pm, 0x1000, &(uint64_t){ 0 });
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static char path[64];
	size_t half = size / 2;
	struct perfmap *pm;
	int fd;

	if (!path[0]) {
		fuzz_scratch(path, sizeof(path), "perfmap");
		fd = mkstemp(path);
		if (fd < 0)
			abort();
		close(fd);
	}
	pm = perfmap__new();
	write_at(path, data, half, "w");
	fd = open(path, O_RDONLY);
	if (fd < 0)
		abort();
	perfmap__update(pm, fd, 64 << 10);
	write_at(path, data + half, size - half, "a");
	perfmap__update(pm, fd, 64 << 10);
	if (perfmap__bytes(pm) > 64 << 10)
		abort();
	look_up(pm, data, size);
	write_at(path, data + half, size - half, "w");
	perfmap__update(pm, fd, 64 << 10);
	look_up(pm, data + half, size - half);
	close(fd);
	perfmap__free(pm);
	return 0;
}
