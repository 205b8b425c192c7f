// SPDX-License-Identifier: GPL-2.0-only
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "durable.h"
#include "util.h"

/* The directory that holds path flushed: 0 or -errno. */
static int sync_dir_of(const char *path)
{
	const char *slash = strrchr(path, '/');
	char *dir = slash ? strndup(path, slash == path ? 1 : (size_t)(slash - path)) : strdup(".");
	int fd, err = 0;

	if (!dir)
		return -ENOMEM;
	fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0 || fsync(fd))
		err = -errno;
	if (fd >= 0)
		close(fd);
	free(dir);
	return err;
}

int durable_rename(const char *from, const char *to)
{
	if (rename(from, to))
		return -errno;
	return sync_dir_of(to);
}

int durable_fclose(FILE *f)
{
	int err = 0;

	if (fflush(f) || fsync(fileno(f)))
		err = -errno;
	if (fclose(f) && !err)
		err = -errno;
	return err;
}

int durable_replace(const char *path, const char *text, size_t len)
{
	char *tmp = xcalloc(1, strlen(path) + 5);
	int fd, err = 0;

	strcat(strcpy(tmp, path), ".tmp");
	fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0666);
	if (fd < 0) {
		err = -errno;
		free(tmp);
		return err;
	}
	while (len && !err) {
		ssize_t n = write(fd, text, len);

		if (n < 0 && errno != EINTR)
			err = -errno;
		else if (n > 0)
			text += n, len -= (size_t)n;
	}
	if (!err && fsync(fd))
		err = -errno;
	if (close(fd) && !err)
		err = -errno;
	if (!err)
		err = durable_rename(tmp, path);
	if (err)
		unlink(tmp);
	free(tmp);
	return err;
}
