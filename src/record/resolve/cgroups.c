// SPDX-License-Identifier: GPL-2.0-only
#include <errno.h>
#include <ftw.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cgroups.h"
#include "dict.h"
#include "util.h"

/* Enough for any host; a container churn beyond it stops adding names. */
#define CGROUPS_MAX 100000

struct cgroups {
	char *root;		/* cgroup2 mount point, NULL if none */
	struct dict *ids;	/* cgroup id -> its path in paths */
	struct dict *paths;
	int rescanned;		/* in this pass */
};

const char *cgroups__mount_from_line(const char *line)
{
	static char mnt[PATH_MAX];
	const char *sep = strstr(line, " - ");
	char type[64];

	/* "36 25 0:30 / /sys/fs/cgroup/unified rw,... - cgroup2 cgroup2 rw" */
	if (!sep || sscanf(sep, " - %63s", type) != 1 || strcmp(type, "cgroup2"))
		return NULL;
	if (sscanf(line, "%*s %*s %*s %*s %4095s", mnt) != 1)
		return NULL;
	return mnt;
}

static char *find_mount(void)
{
	char line[4096];
	char *found = NULL;
	FILE *f = fopen("/proc/self/mountinfo", "re");

	if (!f)
		return NULL;
	while (!found && fgets(line, sizeof(line), f)) {
		const char *mnt = cgroups__mount_from_line(line);

		if (mnt)
			found = xstrdup(mnt);
	}
	fclose(f);
	return found;
}

struct cgroups *cgroups__new(void)
{
	struct cgroups *cg = xcalloc(1, sizeof(*cg));

	cg->root = find_mount();
	cg->ids = dict__new();
	cg->paths = dict__new();
	return cg;
}

void cgroups__free(struct cgroups *cg)
{
	if (!cg)
		return;
	dict__free(cg->ids);
	dict__free(cg->paths);
	free(cg->root);
	free(cg);
}

static void add(struct cgroups *cg, uint64_t id, const char *path)
{
	uint32_t i;
	int added;

	if (dict__size(cg->ids) >= CGROUPS_MAX)
		return;
	i = dict__intern(cg->ids, &id, sizeof(id), &added);
	if (added)
		*dict__value(cg->ids, i) = (uintptr_t)dict__intern_str(cg->paths, path);
}

/* nftw has no user pointer */
static struct cgroups *scanning;

static int visit(const char *path, const struct stat *st, int type, struct FTW *ftw)
{
	size_t root_len = strlen(scanning->root);

	(void)ftw;
	if (type != FTW_D)
		return 0;
	add(scanning, st->st_ino, path[root_len] ? path + root_len : "/");
	return 0;
}

static void rescan(struct cgroups *cg)
{
	scanning = cg;
	/* cgroups come and go while we walk; a vanished one is not an error */
	nftw(cg->root, visit, 32, FTW_PHYS | FTW_MOUNT);
	scanning = NULL;
}

const char *cgroups__path(struct cgroups *cg, uint64_t id)
{
	uint32_t i;

	if (!cg->root || !id)
		return NULL;
	i = dict__find(cg->ids, &id, sizeof(id));
	if (!i && !cg->rescanned) {
		cg->rescanned = 1;
		rescan(cg);
		i = dict__find(cg->ids, &id, sizeof(id));
	}
	return i ? (const char *)(uintptr_t)*dict__value(cg->ids, i) : NULL;
}

void cgroups__new_pass(struct cgroups *cg)
{
	cg->rescanned = 0;
}
