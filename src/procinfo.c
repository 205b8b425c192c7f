// SPDX-License-Identifier: GPL-2.0-only
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "dict.h"
#include "procinfo.h"
#include "tract/abi.h"
#include "util.h"

#define PROCINFO_MAX 65536

struct proc_key {
	uint32_t tgid;
	uint32_t pad;
	uint64_t start_ns;
	char pcomm[TRACT_COMM_LEN];
};

struct procinfo {
	char *proc_root;
	struct dict *keys;	/* proc_key -> index + 1 into exes */
	char **exes;		/* NULL entries: unreadable */
	size_t nr, cap;
};

struct procinfo *procinfo__new(const char *proc_root)
{
	struct procinfo *pi = xcalloc(1, sizeof(*pi));

	pi->proc_root = xstrdup(proc_root ? proc_root : "/proc");
	pi->keys = dict__new();
	return pi;
}

static void forget_all(struct procinfo *pi)
{
	for (size_t i = 0; i < pi->nr; i++)
		free(pi->exes[i]);
	pi->nr = 0;
	dict__clear(pi->keys);
}

void procinfo__free(struct procinfo *pi)
{
	if (!pi)
		return;
	forget_all(pi);
	free(pi->exes);
	dict__free(pi->keys);
	free(pi->proc_root);
	free(pi);
}

void procinfo__trim(struct procinfo *pi)
{
	if (pi->nr > PROCINFO_MAX)
		forget_all(pi);
}

static char *read_exe(const char *proc_root, uint32_t tgid)
{
	char path[64 + PATH_MAX], buf[PATH_MAX];
	ssize_t n;

	snprintf(path, sizeof(path), "%s/%u/exe", proc_root, tgid);
	n = readlink(path, buf, sizeof(buf) - 1);
	if (n <= 0)
		return NULL;
	buf[n] = '\0';
	return xstrdup(buf);
}

const char *procinfo__exe(struct procinfo *pi, uint32_t tgid, uint64_t start_ns, const char *pcomm)
{
	struct proc_key key = { .tgid = tgid, .start_ns = start_ns };
	uint32_t id;
	int added;

	strncpy(key.pcomm, pcomm, sizeof(key.pcomm) - 1);
	id = dict__intern(pi->keys, &key, sizeof(key), &added);
	if (added) {
		if (pi->nr == pi->cap) {
			pi->cap = pi->cap ? pi->cap * 2 : 256;
			pi->exes = xrealloc(pi->exes, pi->cap * sizeof(*pi->exes));
		}
		pi->exes[pi->nr++] = read_exe(pi->proc_root, tgid);
	}
	return pi->exes[id - 1];
}
