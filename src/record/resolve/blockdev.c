// SPDX-License-Identifier: GPL-2.0-only
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "blockdev.h"
#include "dict.h"
#include "util.h"

struct blockdevs {
	char *sys_root;
	struct dict *devs;	/* dev -> its name in names */
	struct dict *names;
};

struct blockdevs *blockdevs__new(const char *sys_root)
{
	struct blockdevs *bd = xcalloc(1, sizeof(*bd));

	bd->sys_root = xstrdup(sys_root ? sys_root : "/sys");
	bd->devs = dict__new();
	bd->names = dict__new();
	return bd;
}

void blockdevs__free(struct blockdevs *bd)
{
	if (!bd)
		return;
	dict__free(bd->devs);
	dict__free(bd->names);
	free(bd->sys_root);
	free(bd);
}

static const char *read_name(struct blockdevs *bd, unsigned int major, unsigned int minor)
{
	char path[PATH_MAX], line[256], name[128];
	FILE *f;

	snprintf(path, sizeof(path), "%s/dev/block/%u:%u/uevent", bd->sys_root, major, minor);
	f = fopen(path, "re");
	if (f) {
		while (fgets(line, sizeof(line), f)) {
			if (sscanf(line, "DEVNAME=%127s", name) == 1) {
				fclose(f);
				return dict__intern_str(bd->names, name);
			}
		}
		fclose(f);
	}
	snprintf(name, sizeof(name), "%u:%u", major, minor);
	return dict__intern_str(bd->names, name);
}

const char *blockdevs__name(struct blockdevs *bd, uint32_t dev)
{
	int added;
	uint32_t id = dict__intern(bd->devs, &dev, sizeof(dev), &added);
	uint64_t *name = dict__value(bd->devs, id);

	/* the kernel's dev_t: 12 bits of major above 20 bits of minor */
	if (added)
		*name = (uintptr_t)read_name(bd, dev >> 20, dev & 0xfffff);
	return (const char *)(uintptr_t)*name;
}

const char *block_op_name(unsigned int op)
{
	static const char *const names[] = {
		[0] = "read", [1] = "write", [2] = "flush", [3] = "discard", [5] = "secure_erase",
		[7] = "zone_append", [9] = "write_zeroes", [10] = "zone_open", [11] = "zone_close",
		[12] = "zone_finish", [13] = "zone_reset", [15] = "zone_reset_all",
		[34] = "drv_in", [35] = "drv_out",
	};

	if (op < ARRAY_SIZE(names) && names[op])
		return names[op];
	return "other";
}
