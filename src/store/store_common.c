// SPDX-License-Identifier: GPL-2.0-only
/* What the SQLite and CSV stores share: file naming, permissions, metadata. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <unistd.h>
#include "clock.h"
#include "hours.h"
#include "schema.h"
#include "sink.h"
#include "util.h"

int store_create_file(const char *path)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_CLOEXEC, 0640);

	if (fd < 0)
		return -errno;
	close(fd);
	return 0;
}

/*
 * With a group, the directory becomes setgid to it: every file created in it
 * later belongs to the group too, though the recorder has dropped the
 * capability to change a file's group by then.
 */
static int share_dir(const char *dir, gid_t gid)
{
	if (chown(dir, (uid_t)-1, gid) || chmod(dir, 02750)) {
		int err = -errno;

		tract_err("cannot give '%s' to group %u: %s", dir, (unsigned int)gid, strerror(-err));
		return err;
	}
	return 0;
}

/* mkdir -p, each new directory 0750 */
static int make_parents(const char *dir)
{
	char *path = xstrdup(dir);
	int err = 0;

	for (char *p = path + 1; !err && (p = strchr(p, '/')); p++) {
		*p = '\0';
		if (mkdir(path, 0750) && errno != EEXIST)
			err = -errno;
		*p = '/';
	}
	if (err)
		tract_err("cannot create directory '%s': %s", path, strerror(-err));
	free(path);
	return err;
}

int store_make_dir(const char *dir, long gid)
{
	struct stat st;
	int err = make_parents(dir);

	if (err)
		return err;
	if (!mkdir(dir, 0750) || errno == EEXIST) {
		if (!stat(dir, &st) && S_ISDIR(st.st_mode))
			return gid >= 0 ? share_dir(dir, (gid_t)gid) : 0;
		tract_err("'%s' is not a directory", dir);
		return -ENOTDIR;
	}
	err = -errno;
	tract_err("cannot create directory '%s': %s", dir, strerror(-err));
	return err;
}

int store_lock(const char *dir)
{
	char path[4096], holder[32] = "";
	int fd, err;
	ssize_t n;

	snprintf(path, sizeof(path), "%s/%s", dir, STORE_LOCK_NAME);
	fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0640);
	if (fd < 0) {
		err = -errno;
		tract_err("cannot create '%s': %s", path, strerror(-err));
		return err;
	}
	if (flock(fd, LOCK_EX | LOCK_NB)) {
		err = errno == EWOULDBLOCK ? -EBUSY : -errno;
		n = pread(fd, holder, sizeof(holder) - 1, 0);
		holder[n > 0 ? n : 0] = '\0';
		holder[strcspn(holder, "\n")] = '\0';
		if (err == -EBUSY)
			tract_err("'%s' is being recorded into by process %s; one recorder per store", dir,
				  *holder ? holder : "(unknown)");
		else
			tract_err("cannot lock '%s': %s", path, strerror(-err));
		close(fd);
		return err;
	}
	/* who holds it, for the next one that asks */
	n = snprintf(holder, sizeof(holder), "%d\n", (int)getpid());
	if (ftruncate(fd, 0) || pwrite(fd, holder, (size_t)n, 0) != n)
		tract_debug("cannot write the pid into '%s': %s", path, strerror(errno));
	return fd;
}

int store_check_writable(const char *dir)
{
	char path[4096];
	int fd, err;

	snprintf(path, sizeof(path), "%s/.tract-write-check.%d", dir, (int)getpid());
	fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	if (fd < 0) {
		err = -errno;
		tract_err("cannot write into the store directory '%s': %s (tract records without "
			  "CAP_DAC_OVERRIDE: give the directory to root, or choose another)", dir, strerror(-err));
		return err;
	}
	close(fd);
	unlink(path);
	return 0;
}

void store_meta(const struct store_config *cfg, const char *kv[][2], size_t max)
{
	static char host[256], kernel[512], hz[32], schema[16];
	struct utsname u;
	size_t n = 0;

	if (gethostname(host, sizeof(host)))
		snprintf(host, sizeof(host), "unknown");
	host[sizeof(host) - 1] = '\0';
	if (!uname(&u))
		snprintf(kernel, sizeof(kernel), "%s %s %s", u.sysname, u.release, u.machine);
	snprintf(hz, sizeof(hz), "%g", cfg->frequency_hz);
	snprintf(schema, sizeof(schema), "%d", TRACT_SCHEMA_VERSION);
	const char *pairs[][2] = {
		{ "host", host }, { "kernel", kernel }, { "frequency_hz", hz },
		{ "tract_version", TRACT_VERSION }, { "schema_version", schema },
		{ "source", cfg->source },
	};
	for (size_t i = 0; i < ARRAY_SIZE(pairs) && n + 1 < max; i++, n++) {
		kv[n][0] = pairs[i][0];
		kv[n][1] = pairs[i][1];
	}
	kv[n][0] = kv[n][1] = NULL;
}
