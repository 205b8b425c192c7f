// SPDX-License-Identifier: GPL-2.0-only
#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "nspid.h"
#include "util.h"

/* Threads named in other namespaces at once: holders are few. */
#define NSPID_CACHE 256
/* A process's threads looked at for one name, at most. */
#define NSPID_SCAN_MAX 8192

struct nspid_entry {
	uint32_t tgid, local, global;
	uint64_t used;		/* 0: free */
};

struct nspid {
	struct nspid_entry e[NSPID_CACHE];
	uint64_t clock;
};

struct nspid *nspid__new(void)
{
	return xcalloc(1, sizeof(struct nspid));
}

void nspid__free(struct nspid *c)
{
	free(c);
}

uint32_t nspid_innermost(const char *status, size_t len)
{
	static const char key[] = "NSpid:";
	const char *end = status + len, *p = status, *line;
	unsigned long last = 0;

	for (;;) {
		line = p;
		if ((size_t)(end - line) >= sizeof(key) - 1 && !memcmp(line, key, sizeof(key) - 1))
			break;
		p = memchr(line, '\n', (size_t)(end - line));
		if (!p)
			return 0;
		p++;
	}
	for (p = line + sizeof(key) - 1; p < end && *p != '\n';) {
		unsigned long v = 0;
		int digits = 0;

		while (p < end && (*p == ' ' || *p == '\t'))
			p++;
		while (p < end && *p >= '0' && *p <= '9') {
			v = v * 10 + (unsigned long)(*p++ - '0');
			if (v > UINT32_MAX)
				return 0;
			digits++;
		}
		if (!digits)
			break;
		last = v;
	}
	return (uint32_t)last;
}

/* The innermost tid of host thread tid of process tgid, from its status file; 0 if it has none. */
static uint32_t innermost_of(uint32_t tgid, uint32_t tid)
{
	char path[64], buf[4096];
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/%u/task/%u/status", tgid, tid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	n = read(fd, buf, sizeof(buf));
	close(fd);
	return n > 0 ? nspid_innermost(buf, (size_t)n) : 0;
}

/* Every thread of the process looked at for the one its namespace calls local. */
static uint32_t scan(uint32_t tgid, uint32_t local)
{
	char path[40];
	struct dirent *d;
	uint32_t found = 0;
	DIR *dir;
	int seen = 0;

	snprintf(path, sizeof(path), "/proc/%u/task", tgid);
	dir = opendir(path);
	if (!dir)
		return 0;
	while (!found && seen++ < NSPID_SCAN_MAX && (d = readdir(dir))) {
		char *end;
		unsigned long tid = strtoul(d->d_name, &end, 10);

		if (*end || !tid || tid > UINT32_MAX)
			continue;
		if (innermost_of(tgid, (uint32_t)tid) == local)
			found = (uint32_t)tid;
	}
	closedir(dir);
	return found;
}

uint32_t nspid__global(struct nspid *c, uint32_t tgid, uint32_t local)
{
	struct nspid_entry *e, *victim = &c->e[0];
	uint32_t global;

	if (!local)
		return 0;
	c->clock++;
	for (size_t i = 0; i < NSPID_CACHE; i++) {
		e = &c->e[i];
		if (e->used && e->tgid == tgid && e->local == local) {
			/* the thread is still the one of that name: else it ended, and its name may be another's */
			if (innermost_of(tgid, e->global) == local) {
				e->used = c->clock;
				return e->global;
			}
			e->used = 0;
			victim = e;
			break;
		}
		if (e->used < victim->used)
			victim = e;
	}
	global = scan(tgid, local);
	if (global)
		*victim = (struct nspid_entry){ tgid, local, global, c->clock };
	return global;
}
