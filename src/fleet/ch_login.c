// SPDX-License-Identifier: GPL-2.0-only
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>
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

int ch_url_in_the_clear(const char *url)
{
	char host[256];
	const char *h, *end;
	unsigned char addr[16];
	size_t len;

	if (strncmp(url, "http://", 7))
		return 0;
	h = url + 7;
	/* [::1]:8123, or a name or IPv4 address up to its port or path */
	if (*h == '[' && (end = strchr(h, ']')))
		h++;
	else
		end = h + strcspn(h, ":/");
	len = (size_t)(end - h);
	if (!len || len >= sizeof(host))
		return 1;
	memcpy(host, h, len);
	host[len] = '\0';
	/* a name under .localhost is loopback only where the resolver makes it so */
	if (!strcasecmp(host, "localhost"))
		return 0;
	if (inet_pton(AF_INET, host, addr) == 1)
		return addr[0] != 127;
	if (inet_pton(AF_INET6, host, addr) == 1) {
		static const unsigned char one[16] = { [15] = 1 }, v4[12] = { [10] = 0xff, [11] = 0xff };

		return memcmp(addr, one, 16) && (memcmp(addr, v4, 12) || addr[12] != 127);
	}
	return 1;
}

/*
 * Owned by root or by the user tract runs as, as ssh and libpq ask of
 * theirs: a file someone else owns, they may rewrite or let others read.
 */
static int check_file(const char *path, const struct stat *st)
{
	if (!S_ISREG(st->st_mode)) {
		tract_err("'%s' is not a regular file: a password file must be one", path);
		return -EINVAL;
	}
	if (st->st_uid != 0 && st->st_uid != geteuid()) {
		tract_err("'%s' belongs to user %u: a password file must be root's or tract's user's (%u)", path,
			  (unsigned int)st->st_uid, (unsigned int)geteuid());
		return -EPERM;
	}
	if (st->st_mode & 077) {
		tract_err("'%s' may be read by others (mode %03o): a password file must be 0600", path,
			  (unsigned int)(st->st_mode & 0777));
		return -EPERM;
	}
	if (st->st_size > CH_PASSWORD_FILE_MAX) {
		tract_err("'%s' holds %lld bytes: a password file holds a password alone (at most %d bytes)", path,
			  (long long)st->st_size, CH_PASSWORD_FILE_MAX);
		return -EFBIG;
	}
	return 0;
}

int ch_read_password(const char *path, char *buf, size_t len)
{
	/* no symlink followed, and a FIFO or a device neither blocks nor is read */
	int fd = open(path, O_RDONLY | O_NONBLOCK | O_NOFOLLOW | O_CLOEXEC), err = 0;
	char text[CH_PASSWORD_FILE_MAX + 1];
	struct stat st;
	ssize_t got = 0, n;
	size_t line;

	if (fd < 0 || fstat(fd, &st)) {
		err = -errno;
		if (err == -ELOOP)
			tract_err("'%s' is a symbolic link: name the password file itself", path);
		else
			tract_err("cannot read '%s': %s", path, strerror(errno));
		if (fd >= 0)
			close(fd);
		return err;
	}
	err = check_file(path, &st);
	while (!err && (size_t)got < sizeof(text) - 1) {
		n = read(fd, text + got, sizeof(text) - 1 - (size_t)got);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			err = -errno;
			tract_err("cannot read '%s': %s", path, strerror(errno));
		}
		if (n <= 0)
			break;
		got += n;
	}
	close(fd);
	text[got] = '\0';
	line = strcspn(text, "\r\n");
	if (!err && line >= len) {
		tract_err("the password in '%s' is longer than %zu bytes", path, len - 1);
		err = -EFBIG;
	}
	if (!err) {
		memcpy(buf, text, line);
		buf[line] = '\0';
	}
	explicit_bzero(text, sizeof(text));
	return err;
}
