// SPDX-License-Identifier: GPL-2.0-only
/* What the SQLite and CSV stores share: file naming, permissions, metadata. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <unistd.h>
#include "clock.h"
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

int store_make_dir(const char *dir, long gid)
{
	struct stat st;

	if (!mkdir(dir, 0750) || errno == EEXIST) {
		if (!stat(dir, &st) && S_ISDIR(st.st_mode))
			return gid >= 0 ? share_dir(dir, (gid_t)gid) : 0;
		tract_err("'%s' is not a directory", dir);
		return -ENOTDIR;
	}
	tract_err("cannot create directory '%s': %s", dir, strerror(errno));
	return -errno;
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
