// SPDX-License-Identifier: GPL-2.0-only
#include <dirent.h>
#include <fcntl.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "clock.h"
#include "retention.h"
#include "storeset.h"
#include "util.h"

struct hour {
	uint64_t hour_us;
	uint64_t bytes;
};

static int by_hour(const void *a, const void *b)
{
	const struct hour *x = a, *y = b;

	return x->hour_us < y->hour_us ? -1 : x->hour_us > y->hour_us;
}

/* Every hour of dir with its size on disk; NULL when dir cannot be read. */
static struct hour *list_hours(const char *dir, size_t *n)
{
	struct hour *hours = NULL;
	size_t cap = 0;
	struct dirent *e;
	DIR *d = opendir(dir);

	*n = 0;
	if (!d)
		return NULL;
	while ((e = readdir(d))) {
		const char *suffix;
		uint64_t hour = store_hour_of_name(e->d_name, &suffix);
		struct stat st;
		size_t i;

		if (!hour || fstatat(dirfd(d), e->d_name, &st, AT_SYMLINK_NOFOLLOW) || !S_ISREG(st.st_mode))
			continue;
		for (i = 0; i < *n && hours[i].hour_us != hour; i++)
			;
		if (i == *n) {
			if (*n == cap) {
				cap = cap ? cap * 2 : 64;
				hours = xrealloc(hours, cap * sizeof(*hours));
			}
			hours[(*n)++] = (struct hour){ .hour_us = hour };
		}
		hours[i].bytes += (uint64_t)st.st_blocks * 512;
	}
	closedir(d);
	if (*n > 1)
		qsort(hours, *n, sizeof(*hours), by_hour);
	return hours;
}

static void delete_hour(const char *dir, uint64_t hour_us)
{
	struct dirent *e;
	DIR *d = opendir(dir);

	if (!d)
		return;
	while ((e = readdir(d))) {
		const char *suffix;

		if (store_hour_of_name(e->d_name, &suffix) == hour_us && unlinkat(dirfd(d), e->d_name, 0) &&
		    errno != ENOENT)
			tract_warn("cannot delete '%s/%s': %s", dir, e->d_name, strerror(errno));
	}
	closedir(d);
}

int store_retention(const char *dir, uint64_t now_us, uint64_t keep_us, uint64_t max_bytes)
{
	uint64_t current = now_us / USEC_PER_HOUR * USEC_PER_HOUR, total = 0;
	size_t n, deleted = 0;
	struct hour *hours;

	if (!keep_us && !max_bytes)
		return 0;
	hours = list_hours(dir, &n);
	for (size_t i = 0; i < n; i++)
		total += hours[i].bytes;
	for (size_t i = 0; i < n && hours[i].hour_us < current; i++) {
		/* an hour is old when its last moment is */
		int too_old = keep_us && hours[i].hour_us + USEC_PER_HOUR + keep_us <= now_us;
		int too_big = max_bytes && total > max_bytes;

		if (!too_old && !too_big)
			break;
		delete_hour(dir, hours[i].hour_us);
		total -= hours[i].bytes;
		deleted++;
	}
	if (deleted)
		tract_debug("retention: deleted the %zu oldest hours of '%s'", deleted, dir);
	free(hours);
	return (int)deleted;
}
