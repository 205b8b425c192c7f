// SPDX-License-Identifier: GPL-2.0-only
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include "clock.h"
#include "hours.h"
#include "util.h"

char *store_hour_path(const char *dir, uint64_t ts_us, const char *suffix)
{
	char hour[32];
	size_t len;
	char *path;

	format_hour(ts_us, hour, sizeof(hour));
	len = strlen(dir) + strlen(hour) + strlen(suffix) + 16;
	path = xcalloc(1, len);
	snprintf(path, len, "%s/tract-%s%s", dir, hour, suffix);
	return path;
}

uint64_t store_hour_of_name(const char *name, const char **suffix)
{
	struct tm tm = { 0 };
	unsigned int y, mo, d, h;
	int n = 0;
	time_t t;

	if (sscanf(name, "tract-%4u%2u%2u-%2u%n", &y, &mo, &d, &h, &n) != 4 || n != 17 ||
	    mo < 1 || mo > 12 || d < 1 || d > 31 || h > 23)
		return 0;
	*suffix = name + n;
	tm.tm_year = (int)y - 1900;
	tm.tm_mon = (int)mo - 1;
	tm.tm_mday = (int)d;
	tm.tm_hour = (int)h;
	t = timegm(&tm);
	return t > 0 ? (uint64_t)t * 1000000 : 0;
}

static int by_hour(const void *a, const void *b)
{
	const struct store_hour *x = a, *y = b;

	return x->hour_us < y->hour_us ? -1 : x->hour_us > y->hour_us;
}

int store_hours_list(const char *dir, struct store_hour **hours, size_t *n)
{
	size_t cap = 0;
	struct dirent *e;
	DIR *d = opendir(dir);

	*hours = NULL;
	*n = 0;
	if (!d) {
		int err = -errno;

		tract_err("cannot read the store directory '%s': %s", dir, strerror(-err));
		return err;
	}
	while ((e = readdir(d))) {
		const char *suffix;
		uint64_t hour = store_hour_of_name(e->d_name, &suffix);
		struct stat st;
		size_t i;

		/* an hour file being made (".db.new", and its WAL) is not one yet */
		if (!hour || strstr(suffix, ".new") ||
		    fstatat(dirfd(d), e->d_name, &st, AT_SYMLINK_NOFOLLOW) || !S_ISREG(st.st_mode))
			continue;
		for (i = 0; i < *n && (*hours)[i].hour_us != hour; i++)
			;
		if (i == *n) {
			ARRAY_GROW(*hours, *n, cap, 64);
			(*hours)[(*n)++] = (struct store_hour){ .hour_us = hour };
		}
		(*hours)[i].bytes += (uint64_t)st.st_blocks * 512;
		if (!strcmp(suffix, HOUR_SQLITE_SUFFIX))
			(*hours)[i].formats |= HOUR_SQLITE;
		else if (!strcmp(suffix, HOUR_CSV_SUFFIX))
			(*hours)[i].formats |= HOUR_CSV;
	}
	closedir(d);
	if (*n > 1)
		qsort(*hours, *n, sizeof(**hours), by_hour);
	return 0;
}

void store_hours_remove(const char *dir, uint64_t hour_us)
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

void store_hours_remove_all(const char *dir)
{
	struct store_hour *hours;
	char *lock;
	size_t n;

	if (store_hours_list(dir, &hours, &n))
		return;
	for (size_t i = 0; i < n; i++)
		store_hours_remove(dir, hours[i].hour_us);
	free(hours);
	/* the lock file is the store's too */
	lock = xcalloc(1, strlen(dir) + sizeof(STORE_LOCK_NAME) + 1);
	sprintf(lock, "%s/%s", dir, STORE_LOCK_NAME);
	unlink(lock);
	free(lock);
	rmdir(dir);
}

int store_hour_overlaps(uint64_t hour_us, uint64_t from_us, uint64_t to_us)
{
	return hour_us < to_us && hour_us + USEC_PER_HOUR > from_us;
}
