// SPDX-License-Identifier: GPL-2.0-only
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "ch_gaps.h"
#include "durable.h"
#include "util.h"

static char *path_in(const char *dir, const char *name)
{
	char *p;

	if (asprintf(&p, "%s/%s", dir, name) < 0)
		abort();
	return p;
}

/* Replaces file name in dir with text, whole or not at all. */
static int write_whole(const char *dir, const char *name, const char *text)
{
	char *path = path_in(dir, name);
	int err = durable_replace(path, text, strlen(text));

	free(path);
	return err;
}

uint64_t ch_gaps__mark(const char *dir)
{
	char *path = path_in(dir, "mark");
	FILE *f = fopen(path, "re");
	uint64_t ts = 0;

	if (f && fscanf(f, "%" SCNu64, &ts) != 1)
		ts = 0;
	if (f)
		fclose(f);
	free(path);
	return ts;
}

int ch_gaps__set_mark(const char *dir, uint64_t ts_us)
{
	char text[32];

	snprintf(text, sizeof(text), "%" PRIu64 "\n", ts_us);
	return write_whole(dir, "mark", text);
}

/* The gaps file's text, "" when there is none (the caller frees it). */
static char *read_gaps(const char *dir)
{
	char *path = path_in(dir, "gaps"), *text = NULL;
	FILE *f = fopen(path, "re");
	size_t cap = 0;
	ssize_t n = f ? getdelim(&text, &cap, '\0', f) : -1;

	if (f)
		fclose(f);
	free(path);
	if (n < 0) {
		free(text);
		return xstrdup("");
	}
	return text;
}

int ch_gaps__add(const char *dir, uint64_t from_us, uint64_t to_us)
{
	char *old = read_gaps(dir), *text;
	int err;

	if (asprintf(&text, "%s%" PRIu64 " %" PRIu64 "\n", old, from_us, to_us) < 0)
		abort();
	err = write_whole(dir, "gaps", text);
	free(text);
	free(old);
	return err;
}

int ch_gaps__first(const char *dir, uint64_t *from_us, uint64_t *to_us)
{
	char *text = read_gaps(dir);
	int n = sscanf(text, "%" SCNu64 " %" SCNu64, from_us, to_us);

	free(text);
	return n == 2;
}

int ch_gaps__done(const char *dir)
{
	char *text = read_gaps(dir), *rest = strchr(text, '\n');
	int err = write_whole(dir, "gaps", rest ? rest + 1 : "");

	free(text);
	return err;
}
