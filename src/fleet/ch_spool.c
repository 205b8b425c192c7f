// SPDX-License-Identifier: GPL-2.0-only
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "ch_spool.h"
#include "durable.h"
#include "util.h"

static char table_names[CH_TABLES][64];
static const char *suffix[CH_TABLES];

/* A pass table's spool files are named after it, but the histograms' by the short names they always had. */
static void name_tables(void)
{
	static const char *const short_names[NR_PASS_TABLES] = {
		[PT_io_latency] = "io", [PT_syscall_latency] = "syscall", [PT_runq_latency] = "runq",
	};

	suffix[CH_SAMPLES] = "samples";
	suffix[CH_STACKS] = "stacks";
	for (int t = 0; t < NR_PASS_TABLES; t++)
		suffix[CH_PASS_TABLE + t] = short_names[t] ? short_names[t] : pass_tables[t].name;
	for (int t = 0; t < CH_TABLES; t++)
		snprintf(table_names[t], sizeof(table_names[t]), "%s_local",
			 t >= CH_PASS_TABLE ? pass_tables[t - CH_PASS_TABLE].name : suffix[t]);
}

static pthread_once_t named = PTHREAD_ONCE_INIT;

const char *ch_table_name(int t)
{
	pthread_once(&named, name_tables);
	return table_names[t];
}

static const char *spool_suffix(int t)
{
	pthread_once(&named, name_tables);
	return suffix[t];
}

static char *path_of(const struct ch_spool *s, uint64_t seq, const char *ext)
{
	char *p = xcalloc(1, strlen(s->dir) + 64);

	sprintf(p, "%s/%016" PRIu64 ".%s", s->dir, seq, ext);
	return p;
}

static uint64_t file_size(const char *path)
{
	struct stat st;

	return stat(path, &st) ? 0 : (uint64_t)st.st_size;
}

/* The manifest: "id done tried", then each table's rows. */
static int write_manifest(const struct ch_spool *s, const struct ch_batch *b)
{
	char *path = path_of(s, b->seq, "batch");
	struct strbuf text = { 0 };
	int err;

	/* its directory flushed after: the tables' files, written before it, are there too */
	strbuf_addf(&text, "%" PRIu64 " %u %u", b->id, b->done, b->tried);
	for (int t = 0; t < CH_TABLES; t++)
		strbuf_addf(&text, " %" PRIu64, b->rows[t]);
	strbuf_add(&text, "\n");
	err = durable_replace(path, strbuf_str(&text), text.len);
	strbuf_free(&text);
	free(path);
	return err;
}

static int read_manifest(const struct ch_spool *s, uint64_t seq, struct ch_batch *b)
{
	char *path = path_of(s, seq, "batch");
	FILE *f = fopen(path, "r");
	int n = f ? fscanf(f, "%" SCNu64 " %u %u", &b->id, &b->done, &b->tried) : 0;

	for (int t = 0; t < CH_TABLES && n == 3 + t; t++)
		n += fscanf(f, " %" SCNu64, &b->rows[t]) == 1;
	if (f)
		fclose(f);
	free(path);
	b->seq = seq;
	return n == 3 + CH_TABLES ? 0 : -EINVAL;
}

/* Sequence numbers of the whole batches, oldest first; *n of them. */
static uint64_t *list(const struct ch_spool *s, size_t *n)
{
	DIR *d = opendir(s->dir);
	struct dirent *e;
	uint64_t *seqs = NULL;
	size_t cap = 0;

	*n = 0;
	while (d && (e = readdir(d))) {
		uint64_t seq;
		char tail[16];

		if (sscanf(e->d_name, "%16" SCNu64 ".%15s", &seq, tail) != 2 || strcmp(tail, "batch"))
			continue;
		ARRAY_GROW(seqs, *n, cap, 64);
		seqs[(*n)++] = seq;
	}
	if (d)
		closedir(d);
	for (size_t i = 1; i < *n; i++)
		for (size_t j = i; j > 0 && seqs[j - 1] > seqs[j]; j--) {
			uint64_t t = seqs[j];

			seqs[j] = seqs[j - 1];
			seqs[j - 1] = t;
		}
	return seqs;
}

static uint64_t batch_bytes(const struct ch_spool *s, uint64_t seq)
{
	uint64_t sum = 0;

	for (int t = 0; t < CH_TABLES; t++) {
		char *p = path_of(s, seq, spool_suffix(t));

		sum += file_size(p);
		free(p);
	}
	return sum;
}

static void remove_batch(struct ch_spool *s, uint64_t seq)
{
	char *m = path_of(s, seq, "batch");

	s->bytes -= batch_bytes(s, seq) <= s->bytes ? batch_bytes(s, seq) : s->bytes;
	/* the manifest first: what is left of a half-removed batch is never seen as one */
	unlink(m);
	free(m);
	for (int t = 0; t < CH_TABLES; t++) {
		char *p = path_of(s, seq, spool_suffix(t));

		unlink(p);
		free(p);
	}
}

int ch_spool__open(struct ch_spool *s, const char *dir, uint64_t max_bytes)
{
	uint64_t *seqs;
	size_t n;

	memset(s, 0, sizeof(*s));
	pthread_mutex_init(&s->lock, NULL);
	s->dir = xstrdup(dir);
	s->max_bytes = max_bytes;
	if (mkdir(dir, 0750) && errno != EEXIST) {
		tract_err("cannot create the spool %s: %s", dir, strerror(errno));
		return -errno;
	}
	seqs = list(s, &n);
	for (size_t i = 0; i < n; i++)
		s->bytes += batch_bytes(s, seqs[i]);
	s->next_seq = n ? seqs[n - 1] + 1 : 1;
	if (n)
		tract_debug("%zu batches spooled in %s from before: sent first", n, dir);
	free(seqs);
	return 0;
}

void ch_spool__close(struct ch_spool *s)
{
	free(s->dir);
	pthread_mutex_destroy(&s->lock);
}

int ch_spool__put(struct ch_spool *s, uint64_t id, struct strbuf tables[CH_TABLES], const uint64_t rows[CH_TABLES])
{
	struct ch_batch b = { .id = id };
	uint64_t size = 0;
	int err = 0;

	pthread_mutex_lock(&s->lock);
	b.seq = s->next_seq++;
	for (int t = 0; t < CH_TABLES && !err; t++) {
		char *p = path_of(s, b.seq, spool_suffix(t));
		int fd = open(p, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0640);

		b.rows[t] = rows[t];
		if (fd < 0 || write(fd, strbuf_str(&tables[t]), tables[t].len) != (ssize_t)tables[t].len || fsync(fd))
			err = errno ? -errno : -EIO;
		if (fd >= 0)
			close(fd);
		size += tables[t].len;
		free(p);
	}
	if (!err)
		err = write_manifest(s, &b);
	if (err) {
		remove_batch(s, b.seq);
	} else {
		s->bytes += size;
		/* over the bound: the oldest go first, counted */
		while (s->max_bytes && s->bytes > s->max_bytes) {
			size_t n;
			uint64_t *seqs = list(s, &n);
			struct ch_batch old = { 0 };

			if (n <= 1) {
				free(seqs);
				break;
			}
			if (!read_manifest(s, seqs[0], &old))
				s->dropped_rows += old.rows[CH_SAMPLES];
			s->dropped_batches++;
			remove_batch(s, seqs[0]);
			free(seqs);
		}
	}
	pthread_mutex_unlock(&s->lock);
	return err;
}

static char *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "r");
	char *buf = NULL;
	size_t cap = 0;

	*len = 0;
	if (!f)
		return xcalloc(1, 1);
	for (;;) {
		size_t got;

		if (*len + 65536 + 1 > cap) {
			cap = (*len + 65536 + 1) * 2;
			buf = xrealloc(buf, cap);
		}
		got = fread(buf + *len, 1, 65536, f);
		*len += got;
		if (got < 65536)
			break;
	}
	fclose(f);
	buf[*len] = '\0';
	return buf;
}

int ch_spool__oldest(struct ch_spool *s, struct ch_batch *b)
{
	size_t n;
	uint64_t *seqs;
	int err = -ENOENT;

	pthread_mutex_lock(&s->lock);
	seqs = list(s, &n);
	memset(b, 0, sizeof(*b));
	for (size_t i = 0; i < n && err; i++) {
		if (read_manifest(s, seqs[i], b)) {
			/* not a manifest tract can read: set aside, not retried forever */
			tract_warn("a damaged batch in the spool (%016" PRIu64 "): set aside", seqs[i]);
			ch_spool__quarantine(s, b);
			continue;
		}
		for (int t = 0; t < CH_TABLES; t++) {
			char *p = path_of(s, b->seq, spool_suffix(t));

			b->data[t] = slurp(p, &b->len[t]);
			free(p);
		}
		err = 0;
	}
	free(seqs);
	pthread_mutex_unlock(&s->lock);
	return err;
}

int ch_spool__update(struct ch_spool *s, struct ch_batch *b)
{
	int err = 0;

	pthread_mutex_lock(&s->lock);
	if (b->done == (1u << CH_TABLES) - 1)
		remove_batch(s, b->seq);
	else
		err = write_manifest(s, b);
	pthread_mutex_unlock(&s->lock);
	return err;
}

void ch_spool__quarantine(struct ch_spool *s, struct ch_batch *b)
{
	char *q = xcalloc(1, strlen(s->dir) + 16);

	sprintf(q, "%s/quarantine", s->dir);
	mkdir(q, 0750);
	/* every table's file, then the manifest */
	for (int i = 0; i <= CH_TABLES; i++) {
		const char *ext = i < CH_TABLES ? spool_suffix(i) : "batch";
		char *from = path_of(s, b->seq, ext), *to = xcalloc(1, strlen(q) + 64);

		sprintf(to, "%s/%016" PRIu64 ".%s", q, b->seq, ext);
		rename(from, to);
		free(from);
		free(to);
	}
	free(q);
}

void ch_batch__free(struct ch_batch *b)
{
	for (int t = 0; t < CH_TABLES; t++)
		free(b->data[t]);
	memset(b->data, 0, sizeof(b->data));
}

void ch_spool__size(struct ch_spool *s, uint64_t *batches, uint64_t *bytes)
{
	size_t n;

	pthread_mutex_lock(&s->lock);
	free(list(s, &n));
	*batches = n;
	*bytes = s->bytes;
	pthread_mutex_unlock(&s->lock);
}
