// SPDX-License-Identifier: GPL-2.0-only
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "nspid.h"
#include "perfmap.h"
#include "proc_file.h"
#include "util.h"

/* Enough of the bytes before where reading stopped to tell a file that grew from one rewritten. */
#define PERFMAP_TAIL	64
#define PERFMAP_CHUNK	(64u << 10)

struct perfmap_entry {
	uint64_t start;
	uint32_t size;
	uint32_t name_off;
	uint32_t seq;		/* its line's place in the file: the later wins */
};

struct perfmap {
	struct perfmap_entry *e;
	size_t nr, cap;
	char *names;
	size_t names_len, names_cap;
	int sorted;
	int skipping;		/* inside a line too long to keep: drop to its newline */
	uint32_t seq;
	/* the file read so far: which, how far, and the bytes just before */
	dev_t dev;
	ino_t ino;
	off_t read;
	size_t tail_len;
	char tail[PERFMAP_TAIL];
	struct perfmap_stats st;
};

struct perfmap *perfmap__new(void)
{
	return xcalloc(1, sizeof(struct perfmap));
}

void perfmap__free(struct perfmap *pm)
{
	if (!pm)
		return;
	free(pm->e);
	free(pm->names);
	free(pm);
}

static void forget_lines(struct perfmap *pm)
{
	free(pm->e);
	free(pm->names);
	pm->e = NULL;
	pm->names = NULL;
	pm->nr = pm->cap = pm->names_len = pm->names_cap = 0;
	pm->sorted = 1;
	pm->skipping = 0;
	pm->seq = 0;
	pm->read = 0;
	pm->tail_len = 0;
}

size_t perfmap__bytes(const struct perfmap *pm)
{
	return pm->cap * sizeof(*pm->e) + pm->names_cap;
}

void perfmap__stats(const struct perfmap *pm, struct perfmap_stats *st)
{
	*st = pm->st;
}

/* A hex number, "0x" or not, ending in a blank: its value, and s moved past the blanks. */
static int parse_hex(const char **s, const char *end, uint64_t *v)
{
	const char *p = *s;
	int digits = 0;

	*v = 0;
	if (end - p > 2 && p[0] == '0' && (p[1] == 'x' || p[1] == 'X'))
		p += 2;
	for (; p < end; p++, digits++) {
		int d;

		if (*p >= '0' && *p <= '9')
			d = *p - '0';
		else if (*p >= 'a' && *p <= 'f')
			d = *p - 'a' + 10;
		else if (*p >= 'A' && *p <= 'F')
			d = *p - 'A' + 10;
		else
			break;
		if (digits == 16)
			return -1;
		*v = *v << 4 | (uint64_t)d;
	}
	if (!digits || p == end || (*p != ' ' && *p != '\t'))
		return -1;
	while (p < end && (*p == ' ' || *p == '\t'))
		p++;
	*s = p;
	return 0;
}

/* One line, without its newline: kept, or counted as bad or dropped. */
static void parse_line(struct perfmap *pm, const char *s, const char *end, size_t max_bytes)
{
	uint64_t start, size;
	size_t len, need_e, need_n;
	char *name;

	if (end > s && end[-1] == '\r')
		end--;
	while (end > s && (end[-1] == ' ' || end[-1] == '\t'))
		end--;
	if (parse_hex(&s, end, &start) || parse_hex(&s, end, &size) || s == end ||
	    !size || size > UINT32_MAX || start + size < start) {
		pm->st.bad++;
		return;
	}
	len = (size_t)(end - s);
	if (len > PERFMAP_MAX_NAME)
		len = PERFMAP_MAX_NAME;
	need_e = pm->nr == pm->cap ? (pm->cap ? pm->cap : 64) : 0;
	need_n = pm->names_len + len + 1 > pm->names_cap ?
		 (pm->names_cap ? pm->names_cap : 4096) + len + 1 : 0;
	if (perfmap__bytes(pm) + need_e * sizeof(*pm->e) + need_n > max_bytes) {
		pm->st.dropped++;
		return;
	}
	if (need_e) {
		pm->cap += need_e;
		pm->e = xrealloc(pm->e, pm->cap * sizeof(*pm->e));
	}
	if (need_n) {
		pm->names_cap += need_n;
		pm->names = xrealloc(pm->names, pm->names_cap);
	}
	name = pm->names + pm->names_len;
	/* a name goes into folded stacks and terminals: no separator, no control byte */
	for (size_t i = 0; i < len; i++)
		name[i] = s[i] == ';' ? ':' : printable_byte((unsigned char)s[i]);
	name[len] = '\0';
	if (pm->nr && start < pm->e[pm->nr - 1].start)
		pm->sorted = 0;
	pm->e[pm->nr++] = (struct perfmap_entry){
		.start = start, .size = (uint32_t)size, .name_off = (uint32_t)pm->names_len, .seq = pm->seq++,
	};
	pm->names_len += len + 1;
	pm->st.lines++;
}

size_t perfmap__parse(struct perfmap *pm, const char *buf, size_t len, size_t max_bytes)
{
	const char *p = buf, *end = buf + len, *nl;

	while (p < end && (nl = memchr(p, '\n', (size_t)(end - p)))) {
		if (pm->skipping)
			pm->skipping = 0;
		else if ((size_t)(nl - p) > PERFMAP_MAX_LINE)
			pm->st.bad++;
		else
			parse_line(pm, p, nl, max_bytes);
		p = nl + 1;
	}
	return (size_t)(p - buf);
}

/* Whether the bytes before pm->read are still those read there: the file grew rather than being rewritten. */
static int only_grew(const struct perfmap *pm, int fd)
{
	char now[PERFMAP_TAIL];

	if (!pm->tail_len)
		return 1;
	return pread(fd, now, pm->tail_len, pm->read - (off_t)pm->tail_len) == (ssize_t)pm->tail_len &&
	       !memcmp(now, pm->tail, pm->tail_len);
}

int perfmap__update(struct perfmap *pm, int fd, size_t max_bytes)
{
	struct stat st;
	off_t size;
	char *buf;
	int err = 0;

	if (fstat(fd, &st))
		return -errno;
	if (!S_ISREG(st.st_mode))
		return -EPERM;
	if (st.st_dev != pm->dev || st.st_ino != pm->ino || st.st_size < pm->read || !only_grew(pm, fd)) {
		if (pm->read || pm->nr)
			pm->st.rereads++;
		forget_lines(pm);
		pm->dev = st.st_dev;
		pm->ino = st.st_ino;
	}
	size = st.st_size < (off_t)PERFMAP_MAX_FILE ? st.st_size : (off_t)PERFMAP_MAX_FILE;
	if (pm->read >= size)
		return 0;
	buf = xcalloc(1, PERFMAP_CHUNK);
	while (pm->read < size) {
		size_t want = (size_t)(size - pm->read) < PERFMAP_CHUNK ? (size_t)(size - pm->read) : PERFMAP_CHUNK;
		ssize_t n = pread(fd, buf, want, pm->read);
		size_t used;

		if (n <= 0) {
			err = n < 0 ? -errno : 0;
			break;
		}
		used = perfmap__parse(pm, buf, (size_t)n, max_bytes);
		if (!used && (size_t)n == PERFMAP_CHUNK) {
			/* no newline in a whole chunk: a line far too long, dropped to its end */
			if (!pm->skipping)
				pm->st.bad++;
			pm->skipping = 1;
			used = (size_t)n;
		}
		/* nothing whole in what is left: a last line still being written */
		if (!used)
			break;
		pm->read += (off_t)used;
	}
	free(buf);
	pm->tail_len = pm->read < PERFMAP_TAIL ? (size_t)pm->read : PERFMAP_TAIL;
	if (pm->tail_len &&
	    pread(fd, pm->tail, pm->tail_len, pm->read - (off_t)pm->tail_len) != (ssize_t)pm->tail_len) {
		/* cut under us: read afresh next time */
		pm->ino = 0;
		pm->tail_len = 0;
	}
	return err;
}

static int cmp_entry(const void *a, const void *b)
{
	const struct perfmap_entry *x = a, *y = b;

	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

const char *perfmap__lookup(struct perfmap *pm, uint64_t addr, uint64_t *off)
{
	const struct perfmap_entry *best = NULL;
	size_t lo = 0, hi = pm->nr;

	if (!pm->sorted) {
		qsort(pm->e, pm->nr, sizeof(*pm->e), cmp_entry);
		pm->sorted = 1;
	}
	/* the first entry past addr; those before it start at or below */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (pm->e[mid].start <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	/* an older, longer piece of code may still cover addr: a few back, the latest line that does */
	for (size_t i = lo, seen = 0; i-- > 0 && seen < 8; seen++) {
		const struct perfmap_entry *e = &pm->e[i];

		if (addr - e->start < e->size && (!best || e->seq > best->seq))
			best = e;
	}
	if (!best)
		return NULL;
	*off = addr - best->start;
	return pm->names + best->name_off;
}

/* The uids a process makes files with: its effective and its file-system one, from its status. */
static int status_uids(const char *status, uid_t *euid, uid_t *fsuid)
{
	const char *line = strstr(status, "\nUid:");
	unsigned long r, e, s, f;

	if (!line || sscanf(line + 5, "%lu %lu %lu %lu", &r, &e, &s, &f) != 4)
		return -EINVAL;
	*euid = (uid_t)e;
	*fsuid = (uid_t)f;
	return 0;
}

int perfmap_open(const char *proc, pid_t pid)
{
	char path[64], status[8192];
	uint32_t nspid;
	uid_t euid, fsuid;
	struct stat st;
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "%s/%d/status", proc, (int)pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	n = read(fd, status, sizeof(status) - 1);
	close(fd);
	if (n <= 0)
		return n < 0 ? -errno : -ESRCH;
	status[n] = '\0';
	nspid = nspid_innermost(status, (size_t)n);
	if (!nspid || status_uids(status, &euid, &fsuid))
		return -ESRCH;
	snprintf(path, sizeof(path), "/tmp/perf-%u.map", nspid);
	fd = proc_file_open_nofollow(proc, pid, path, &st);
	if (fd < 0)
		return fd == -ELOOP ? -EPERM : fd;
	if (st.st_uid != euid && st.st_uid != fsuid) {
		close(fd);
		return -EPERM;
	}
	return fd;
}
