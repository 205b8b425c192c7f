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
/* ended processes before their entries are swept out: a walk of the tables each time */
#define SWEEP_AT 512

struct proc_key {
	uint32_t tgid;
	uint32_t pad;
	uint64_t start_ns;
	char pcomm[TRACT_COMM_LEN];
};

struct procinfo {
	char *proc_root;
	struct dict *keys;	/* proc_key -> its exe in texts, or 0 if unreadable */
	struct dict *names;	/* this pass: id -> its name in texts, or 0 if gone */
	struct dict *seen;	/* id -> the name it had when last seen alive, in texts */
	struct dict *ended;	/* tgids of processes that ended since the last sweep */
	/*
	 * Executable paths and process names, never freed while tract runs:
	 * queued passes point at them, and there are few distinct ones.
	 */
	struct dict *texts;
	/* the iterator visits a process's threads one after another */
	struct proc_key last_key;
	const char *last_exe;
};

struct procinfo *procinfo__new(const char *proc_root)
{
	struct procinfo *pi = xcalloc(1, sizeof(*pi));

	pi->proc_root = xstrdup(proc_root ? proc_root : "/proc");
	pi->keys = dict__new();
	pi->names = dict__new();
	pi->seen = dict__new();
	pi->ended = dict__new();
	pi->texts = dict__new();
	return pi;
}

void procinfo__free(struct procinfo *pi)
{
	if (!pi)
		return;
	dict__free(pi->keys);
	dict__free(pi->names);
	dict__free(pi->seen);
	dict__free(pi->ended);
	dict__free(pi->texts);
	free(pi->proc_root);
	free(pi);
}

size_t procinfo__size(const struct procinfo *pi)
{
	return dict__size(pi->keys) + dict__size(pi->seen);
}

void procinfo__forget(struct procinfo *pi, uint32_t tgid)
{
	int added;

	dict__intern(pi->ended, &tgid, sizeof(tgid), &added);
}

/* entries of processes that did not end (the key's first 4 bytes are its id or tgid) */
static int alive(const void *key, size_t len, uint64_t value, void *ctx)
{
	uint32_t id;

	(void)value;
	if (len < sizeof(id))
		return 1;
	memcpy(&id, key, sizeof(id));
	return !dict__find(ctx, &id, sizeof(id));
}

static void sweep(struct procinfo *pi)
{
	struct dict *d;

	d = dict__filter(pi->keys, alive, pi->ended);
	dict__free(pi->keys);
	pi->keys = d;
	d = dict__filter(pi->seen, alive, pi->ended);
	dict__free(pi->seen);
	pi->seen = d;
	dict__clear(pi->ended);
	memset(&pi->last_key, 0, sizeof(pi->last_key));
}

void procinfo__trim(struct procinfo *pi)
{
	/* names are read afresh each pass: ids are reused and names change */
	dict__clear(pi->names);
	if (dict__size(pi->ended) >= SWEEP_AT)
		sweep(pi);
	if (dict__size(pi->keys) > PROCINFO_MAX) {
		memset(&pi->last_key, 0, sizeof(pi->last_key));
		dict__clear(pi->keys);
	}
	if (dict__size(pi->seen) > PROCINFO_MAX)
		dict__clear(pi->seen);
}

/* The first line of a /proc file, or a link's target, interned; NULL if unreadable. */
static const char *read_text(struct procinfo *pi, uint32_t id, const char *file, int is_link)
{
	char path[64 + PATH_MAX], buf[PATH_MAX] = "";
	ssize_t n = -1;
	FILE *f;

	snprintf(path, sizeof(path), "%s/%u/%s", pi->proc_root, id, file);
	if (is_link) {
		n = readlink(path, buf, sizeof(buf) - 1);
		if (n > 0)
			buf[n] = '\0';
	} else if ((f = fopen(path, "re"))) {
		if (fgets(buf, sizeof(buf), f)) {
			buf[strcspn(buf, "\n")] = '\0';
			n = 1;
		}
		fclose(f);
	}
	return n > 0 ? dict__intern_str(pi->texts, buf) : NULL;
}

/* id's cached text in d, read once with read_text() when new */
static const char *cached(struct procinfo *pi, struct dict *d, const void *key, size_t len,
			  uint32_t id, const char *file, int is_link)
{
	int added;
	uint64_t *text = dict__value(d, dict__intern(d, key, len, &added));

	if (added)
		*text = (uintptr_t)read_text(pi, id, file, is_link);
	return (const char *)(uintptr_t)*text;
}

const char *procinfo__intern(struct procinfo *pi, const char *name)
{
	return dict__intern_str(pi->texts, name);
}

static uint64_t *seen_slot(struct procinfo *pi, uint32_t id)
{
	int added;
	uint64_t *slot = dict__value(pi->seen, dict__intern(pi->seen, &id, sizeof(id), &added));

	if (added)
		*slot = 0;
	return slot;
}

void procinfo__saw(struct procinfo *pi, uint32_t id, const char *name)
{
	const char *text = dict__intern_str(pi->texts, name);
	uint32_t now = dict__find(pi->names, &id, sizeof(id));

	*seen_slot(pi, id) = (uintptr_t)text;
	/* gone when this pass read it: the name it had, from here on in this pass too */
	if (now && !*dict__value(pi->names, now))
		*dict__value(pi->names, now) = (uintptr_t)text;
}

const char *procinfo__name(struct procinfo *pi, uint32_t id)
{
	int added;
	uint64_t *text = dict__value(pi->names, dict__intern(pi->names, &id, sizeof(id), &added));

	if (added) {
		const char *name = read_text(pi, id, "comm", 0);
		uint64_t *seen = seen_slot(pi, id);

		/*
		 * Gone since: what it did in its last moments (the syscalls of
		 * its exit, counted at the next take) goes under the name it
		 * had then.  A pid reused meanwhile reads as its new process's.
		 */
		if (name)
			*seen = (uintptr_t)name;
		*text = *seen;
	}
	return (const char *)(uintptr_t)*text;
}

const char *procinfo__exe(struct procinfo *pi, uint32_t tgid, uint64_t start_ns, const char *pcomm)
{
	struct proc_key key = { .tgid = tgid, .start_ns = start_ns };

	/* the threads of a process come one after another: the last answer, with no copy made */
	if (tgid == pi->last_key.tgid && start_ns == pi->last_key.start_ns &&
	    !strncmp(pcomm, pi->last_key.pcomm, sizeof(key.pcomm) - 1))
		return pi->last_exe;
	strncpy(key.pcomm, pcomm, sizeof(key.pcomm) - 1);
	pi->last_key = key;
	pi->last_exe = cached(pi, pi->keys, &key, sizeof(key), tgid, "exe", 1);
	return pi->last_exe;
}
