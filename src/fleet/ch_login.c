// SPDX-License-Identifier: GPL-2.0-only
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include "ch_login.h"
#include "util.h"

const char *ch_url_problem(const char *url)
{
	if (strncmp(url, "http://", 7) && strncmp(url, "https://", 8))
		return "an http:// or https:// URL";
	if (strchr(url, '@') || strchr(url, '?'))
		return "a URL with no credentials or query (see --clickhouse-user)";
	return NULL;
}

int ch_read_password(const char *path, char *buf, size_t len)
{
	struct stat st;
	FILE *f = fopen(path, "re");
	size_t n;
	int err;

	if (!f || fstat(fileno(f), &st)) {
		err = -errno;
		tract_err("cannot read %s: %s", path, strerror(errno));
		if (f)
			fclose(f);
		return err;
	}
	if (st.st_mode & 077) {
		tract_err("%s may be read by others (mode %03o): a password file must be 0600", path,
			  (unsigned int)(st.st_mode & 0777));
		fclose(f);
		return -EPERM;
	}
	n = fread(buf, 1, len - 1, f);
	fclose(f);
	buf[n] = '\0';
	buf[strcspn(buf, "\r\n")] = '\0';
	return 0;
}
