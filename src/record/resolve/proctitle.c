// SPDX-License-Identifier: GPL-2.0-only
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "clock.h"
#include "dict.h"
#include "proctitle.h"
#include "sample.h"
#include "util.h"

/* processes whose titles are kept at most (about 64 bytes and the title each); past it, all are read again */
#define TITLES_MAX 65536
/* a title not used by a pass for this long goes (its process ended, or went idle) */
#define UNUSED_NS (60 * 1000000000ull)
#define SWEEP_EVERY_NS (10 * 1000000000ull)

struct title {
	uint64_t read_ns;		/* when it was read last (or tried); 0: never */
	uint64_t used_ns;		/* when a pass last had a row of the process */
	char pcomm[TRACT_COMM_LEN];	/* the process's name when read: a new one (an exec) reads again */
	char *text;			/* as read last (it may be empty); NULL: never read */
};

struct proctitles {
	char *proc_root;
	struct dict *by_tgid;		/* tgid -> struct title * */
	uint64_t swept_ns;
	size_t refreshes_left;		/* of this pass's budget */
	size_t start;			/* the pass's row its reads begin at: where the last one's budget ran out */
	int out_at_set;
	size_t out_at;			/* this pass's row the budget ran out at */
	struct proctitles_stats stats;
};

struct proctitles *proctitles__new(const char *proc_root)
{
	struct proctitles *t = xcalloc(1, sizeof(*t));

	t->proc_root = xstrdup(proc_root ? proc_root : "/proc");
	t->by_tgid = dict__new();
	return t;
}

static void title_free(struct title *t)
{
	if (t)
		free(t->text);
	free(t);
}

static void free_titles(struct dict *d)
{
	for (uint32_t id = 1; id <= dict__size(d); id++)
		title_free((struct title *)(uintptr_t)*dict__value(d, id));
	dict__clear(d);
}

void proctitles__free(struct proctitles *t)
{
	if (!t)
		return;
	free_titles(t->by_tgid);
	dict__free(t->by_tgid);
	free(t->proc_root);
	free(t);
}

void proctitles__stats(const struct proctitles *t, struct proctitles_stats *out)
{
	*out = t->stats;
	out->cached = dict__size(t->by_tgid);
}

size_t proctitle_clean(const char *raw, size_t len, char *out)
{
	size_t n = len;

	while (n && (raw[n - 1] == '\0' || raw[n - 1] == ' '))
		n--;
	if (n > PROCTITLE_MAX) {
		n = PROCTITLE_MAX;
		/* the first byte left out continues a character: that character goes whole */
		while (n && ((unsigned char)raw[n] & 0xc0) == 0x80)
			n--;
	}
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)raw[i];

		out[i] = c == '\0' ? ' ' : (c < 0x20 || c == 0x7f) ? '?' : (char)c;
	}
	while (n && out[n - 1] == ' ')
		n--;
	out[n] = '\0';
	return n;
}

/* The process's command line into t's text: 0, or -errno (gone, or not readable). */
static int read_title(struct proctitles *pt, uint32_t tgid, struct title *t)
{
	char path[64], raw[PROCTITLE_MAX + 8], text[PROCTITLE_MAX + 1];
	size_t len = 0;
	uint64_t t0 = mono_ns();
	int fd, err = 0;

	snprintf(path, sizeof(path), "%s/%u/cmdline", pt->proc_root, tgid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		err = -errno;
	/* one read gives it whole but for a title longer than tract keeps: the rest is not asked for */
	while (fd >= 0 && len < sizeof(raw)) {
		ssize_t n = read(fd, raw + len, sizeof(raw) - len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			err = -errno;
		if (n <= 0)
			break;
		len += (size_t)n;
	}
	if (fd >= 0)
		close(fd);
	pt->stats.reads++;
	pt->stats.read_ns += mono_ns() - t0;
	if (err)
		return err;
	proctitle_clean(raw, len, text);
	if (!t->text || strcmp(t->text, text)) {
		free(t->text);
		t->text = xstrdup(text);
	}
	return 0;
}

static int stale(const void *key, size_t len, uint64_t value, void *ctx)
{
	struct title *t = (struct title *)(uintptr_t)value;
	uint64_t now_ns = *(const uint64_t *)ctx;

	(void)key, (void)len;
	if (now_ns - t->used_ns < UNUSED_NS)
		return 1;
	title_free(t);
	return 0;
}

static void sweep(struct proctitles *pt, uint64_t now_ns)
{
	struct dict *d;

	pt->swept_ns = now_ns;
	if (dict__size(pt->by_tgid) > TITLES_MAX) {
		free_titles(pt->by_tgid);
		return;
	}
	d = dict__filter(pt->by_tgid, stale, &now_ns);
	dict__free(pt->by_tgid);
	pt->by_tgid = d;
}

/*
 * The title of row r (the pass's row i) of a process, as the pass should
 * keep it (a kernel thread's made here, in buf).
 */
static const char *title_of(struct proctitles *pt, const struct sample *r, size_t i, uint64_t now_ns, char *buf,
			    size_t cap)
{
	struct title *t;
	uint64_t *slot;
	uint32_t id;
	int added, read;

	if ((r->flags & TRACT_SF_KTHREAD) || !r->tgid) {
		snprintf(buf, cap, "[%.*s]", TRACT_COMM_LEN, r->pcomm);
		return buf;
	}
	id = dict__intern(pt->by_tgid, &r->tgid, sizeof(r->tgid), &added);
	slot = dict__value(pt->by_tgid, id);
	if (added)
		*slot = (uintptr_t)xcalloc(1, sizeof(*t));
	t = (struct title *)(uintptr_t)*slot;
	t->used_ns = now_ns;
	/* a new process, or a new program in it, at once; an older title within the pass's budget */
	read = !t->read_ns || strncmp(t->pcomm, r->pcomm, TRACT_COMM_LEN);
	if (!read && now_ns - t->read_ns >= PROCTITLE_REFRESH_NS) {
		if (pt->refreshes_left) {
			pt->refreshes_left--;
			read = 1;
		} else if (!pt->out_at_set) {
			pt->out_at = i;
			pt->out_at_set = 1;
		}
	}
	if (read) {
		/* unreadable (gone since): the title it had, if any, and no read again for a while */
		t->read_ns = now_ns ? now_ns : 1;
		memcpy(t->pcomm, r->pcomm, TRACT_COMM_LEN);
		read_title(pt, r->tgid, t);
	}
	if (!t->text) {
		snprintf(buf, cap, "%.*s", TRACT_COMM_LEN, r->pcomm);
		return buf;
	}
	if (!t->text[0]) {
		snprintf(buf, cap, "[%.*s]", TRACT_COMM_LEN, r->pcomm);
		return buf;
	}
	return t->text;
}

void proctitles__fill(struct proctitles *pt, struct pass *p, uint64_t now_ns)
{
	char buf[TRACT_COMM_LEN + 4];
	size_t start = p->nr ? pt->start % p->nr : 0;
	uint64_t t0 = mono_ns();

	/* the budget's reads begin where the last pass's ran out, so that every title gets its turn */
	pt->refreshes_left = PROCTITLE_REFRESHES_PER_PASS;
	pt->out_at_set = 0;
	for (size_t k = 0; k < p->nr; k++) {
		size_t i = (start + k) % p->nr;
		struct sample *r = &p->rows[i];
		const struct sample *prev = i && i != start ? &p->rows[i - 1] : NULL;

		/* a process's threads come one after another: one copy for them all */
		if (prev && prev->tgid == r->tgid && !memcmp(prev->pcomm, r->pcomm, TRACT_COMM_LEN) &&
		    (prev->flags & TRACT_SF_KTHREAD) == (r->flags & TRACT_SF_KTHREAD)) {
			r->title = prev->title;
			continue;
		}
		r->title = pass__keep_str(p, title_of(pt, r, i, now_ns, buf, sizeof(buf)));
	}
	pt->start = pt->out_at_set ? pt->out_at : 0;
	if (now_ns - pt->swept_ns >= SWEEP_EVERY_NS)
		sweep(pt, now_ns);
	pt->stats.passes++;
	pt->stats.fill_ns += mono_ns() - t0;
}
