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
	const char **exes;	/* NULL entries: unreadable */
	size_t nr, cap;
	/*
	 * Executable paths and process names, never freed while tract runs:
	 * queued passes point at them, and there are few distinct ones.
	 */
	struct dict *paths;
	char **path_text;
	size_t nr_paths, cap_paths;
	/* this pass: tgid -> path index + 1 of its name (0: gone) */
	struct dict *name_ids;
	uint32_t *name_of;
	size_t nr_names, cap_names;
	/* the iterator visits a process's threads one after another */
	struct proc_key last_key;
	const char *last_exe;
};

struct procinfo *procinfo__new(const char *proc_root)
{
	struct procinfo *pi = xcalloc(1, sizeof(*pi));

	pi->proc_root = xstrdup(proc_root ? proc_root : "/proc");
	pi->keys = dict__new();
	pi->paths = dict__new();
	pi->name_ids = dict__new();
	return pi;
}

static void forget_all(struct procinfo *pi)
{
	memset(&pi->last_key, 0, sizeof(pi->last_key));
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
	for (size_t i = 0; i < pi->nr_paths; i++)
		free(pi->path_text[i]);
	free(pi->path_text);
	dict__free(pi->paths);
	dict__free(pi->name_ids);
	free(pi->name_of);
	free(pi->proc_root);
	free(pi);
}

void procinfo__trim(struct procinfo *pi)
{
	/* names are read afresh each pass: pids are reused and names change */
	dict__clear(pi->name_ids);
	pi->nr_names = 0;
	if (pi->nr > PROCINFO_MAX)
		forget_all(pi);
}

static const char *intern_path(struct procinfo *pi, const char *path)
{
	int added;
	uint32_t id = dict__intern(pi->paths, path, strlen(path), &added);

	if (added) {
		if (pi->nr_paths == pi->cap_paths) {
			pi->cap_paths = pi->cap_paths ? pi->cap_paths * 2 : 64;
			pi->path_text = xrealloc(pi->path_text, pi->cap_paths * sizeof(*pi->path_text));
		}
		pi->path_text[pi->nr_paths++] = xstrdup(path);
	}
	return pi->path_text[id - 1];
}

const char *procinfo__name(struct procinfo *pi, uint32_t tgid)
{
	char path[64 + PATH_MAX], name[64] = "";
	const char *text = NULL;
	int added;
	uint32_t id = dict__intern(pi->name_ids, &tgid, sizeof(tgid), &added);
	FILE *f;

	if (!added)
		return pi->name_of[id - 1] ? pi->path_text[pi->name_of[id - 1] - 1] : NULL;
	snprintf(path, sizeof(path), "%s/%u/comm", pi->proc_root, tgid);
	f = fopen(path, "re");
	if (f) {
		if (fgets(name, sizeof(name), f))
			name[strcspn(name, "\n")] = '\0';
		fclose(f);
		text = intern_path(pi, name);
	}
	if (pi->nr_names == pi->cap_names) {
		pi->cap_names = pi->cap_names ? pi->cap_names * 2 : 64;
		pi->name_of = xrealloc(pi->name_of, pi->cap_names * sizeof(*pi->name_of));
	}
	pi->name_of[pi->nr_names++] = text ? dict__find(pi->paths, text, strlen(text)) : 0;
	return text;
}

static const char *read_exe(struct procinfo *pi, uint32_t tgid)
{
	char path[64 + PATH_MAX], buf[PATH_MAX];
	ssize_t n;

	snprintf(path, sizeof(path), "%s/%u/exe", pi->proc_root, tgid);
	n = readlink(path, buf, sizeof(buf) - 1);
	if (n <= 0)
		return NULL;
	buf[n] = '\0';
	return intern_path(pi, buf);
}

const char *procinfo__exe(struct procinfo *pi, uint32_t tgid, uint64_t start_ns, const char *pcomm)
{
	struct proc_key key = { .tgid = tgid, .start_ns = start_ns };
	uint32_t id;
	int added;

	strncpy(key.pcomm, pcomm, sizeof(key.pcomm) - 1);
	if (!memcmp(&key, &pi->last_key, sizeof(key)))
		return pi->last_exe;
	id = dict__intern(pi->keys, &key, sizeof(key), &added);
	if (added) {
		if (pi->nr == pi->cap) {
			pi->cap = pi->cap ? pi->cap * 2 : 256;
			pi->exes = xrealloc(pi->exes, pi->cap * sizeof(*pi->exes));
		}
		pi->exes[pi->nr++] = read_exe(pi, tgid);
	}
	pi->last_key = key;
	pi->last_exe = pi->exes[id - 1];
	return pi->last_exe;
}
