// SPDX-License-Identifier: GPL-2.0-only
/*
 * The store directory, safe from the host's other users.  A recorder runs
 * as root and writes where -o says: a directory another user made first
 * (or a symlink one planted) would let that user aim root's writes at any
 * file.  So the directory and every directory on the way to it are opened
 * one at a time without following symlinks other users own, each checked
 * to belong to root (or the recorder's own user) and to be writable by no
 * one else (a sticky directory such as /tmp excepted on the way), and the
 * store's own files are never opened through a symlink.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>
#include "hours.h"
#include "store_dir.h"
#include "util.h"

/*
 * Root and whoever runs this; for the store directory itself, the user it
 * is handed to as well (it is theirs after the first run).
 */
static int trusted(uid_t uid, uid_t owner, int last)
{
	return uid == 0 || uid == geteuid() || (last && owner != (uid_t)-1 && uid == owner);
}

/* "user 'name'" from /etc/passwd itself (not NSS: the same in a static build), else "uid N" */
static void name_owner(uid_t uid, char *buf, size_t size)
{
	FILE *f = fopen("/etc/passwd", "re");
	struct passwd *pw;

	snprintf(buf, size, "uid %u", (unsigned int)uid);
	while (f && (pw = fgetpwent(f)))
		if (pw->pw_uid == uid) {
			snprintf(buf, size, "user '%s'", pw->pw_name);
			break;
		}
	if (f)
		fclose(f);
}

/* Whether the directory opened as fd may be on the way to (last: may be) the store. */
static int check_dir(int fd, const char *path, int last, uid_t owner)
{
	char who[128];
	struct stat st;

	if (fstat(fd, &st))
		return -errno;
	if (!trusted(st.st_uid, owner, last)) {
		name_owner(st.st_uid, who, sizeof(who));
		tract_err("'%s' belongs to %s: the store directory and those on the way to it must be "
			  "root's, or another user could aim the recorder's writes at other files", path, who);
		return -EPERM;
	}
	if ((st.st_mode & (S_IWGRP | S_IWOTH)) && (last || !(st.st_mode & S_ISVTX))) {
		tract_err("'%s' is writable by %s (mode %04o): the store directory and those on the "
			  "way to it must be writable by their owner alone", path,
			  st.st_mode & S_IWOTH ? "every user" : "its group", (unsigned int)(st.st_mode & 07777));
		return -EPERM;
	}
	return 0;
}

/*
 * The next directory on the way, made (0750) if missing: a symlink is
 * followed only where root owns it, since only root could have put it in
 * a directory already checked.  fd, or -errno after a
 * message.
 */
static int open_step(int at, const char *name, const char *path, uid_t owner)
{
	char who[128];
	struct stat st;
	int fd;

	if (fstatat(at, name, &st, AT_SYMLINK_NOFOLLOW)) {
		if (errno != ENOENT) {
			int err = -errno;

			tract_err("cannot open directory '%s': %s", path, strerror(-err));
			return err;
		}
		if (mkdirat(at, name, 0750) && errno != EEXIST) {
			int err = -errno;

			tract_err("cannot create directory '%s': %s", path, strerror(-err));
			return err;
		}
	} else if (S_ISLNK(st.st_mode) && !trusted(st.st_uid, owner, 0)) {
		name_owner(st.st_uid, who, sizeof(who));
		tract_err("'%s' is a symlink of %s: the recorder follows only root's on the way to its store",
			  path, who);
		return -EPERM;
	}
	/* a symlink checked above is followed; anything put in its place since is refused */
	fd = openat(at, name, O_RDONLY | O_DIRECTORY | O_CLOEXEC |
		    (!fstatat(at, name, &st, AT_SYMLINK_NOFOLLOW) && S_ISLNK(st.st_mode) &&
		     trusted(st.st_uid, owner, 0) ? 0 : O_NOFOLLOW));
	if (fd < 0) {
		int err = errno == ENOTDIR || errno == ELOOP ? -ENOTDIR : -errno;

		if (err == -ENOTDIR)
			tract_err("'%s' is not a directory", path);
		else
			tract_err("cannot open directory '%s': %s", path, strerror(-err));
		return err;
	}
	return fd;
}

/* What a store holds: its hours, its lock, the ClickHouse spool; and nothing else. */
static int store_name(const char *name)
{
	return !strncmp(name, "tract", 5) || !strncmp(name, ".tract", 6) || !strcmp(name, "spool");
}

/*
 * Hands what root left in the store directory over to the store's user:
 * the recorder writes it as that user.  Only a directory that holds
 * nothing but a store's files, and never through a symlink.
 */
static int hand_over(int fd, const char *path, uid_t owner, int depth)
{
	int dup_fd = fcntl(fd, F_DUPFD_CLOEXEC, 0), err = 0;
	DIR *d = dup_fd < 0 ? NULL : fdopendir(dup_fd);
	struct dirent *e;

	if (!d) {
		err = -errno;
		if (dup_fd >= 0)
			close(dup_fd);
		tract_err("cannot read directory '%s': %s", path, strerror(-err));
		return err;
	}
	while (!err && (e = readdir(d))) {
		struct stat st;

		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		if (!depth && !store_name(e->d_name)) {
			tract_err("'%s' holds '%s', which is not a store's: record into a directory of its own",
				  path, e->d_name);
			err = -EEXIST;
		} else if (fstatat(fd, e->d_name, &st, AT_SYMLINK_NOFOLLOW) || st.st_uid != 0) {
			continue;
		} else if (S_ISDIR(st.st_mode) && depth < 2) {
			int sub = openat(fd, e->d_name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);

			if (sub >= 0) {
				err = hand_over(sub, path, owner, depth + 1);
				close(sub);
			}
		} else if (!S_ISREG(st.st_mode)) {
			continue;
		}
		if (!err && st.st_uid == 0 && fchownat(fd, e->d_name, owner, (gid_t)-1, AT_SYMLINK_NOFOLLOW)) {
			err = -errno;
			tract_err("cannot give '%s/%s' to the recorder's user: %s", path, e->d_name, strerror(-err));
		}
	}
	closedir(d);
	return err;
}

/*
 * With a group, the directory becomes setgid to it: every file created in it
 * later belongs to the group too, though the recorder has dropped the
 * capability to change a file's group by then.
 */
static int share_dir(int fd, const char *path, gid_t gid)
{
	struct stat st;

	if (!fstat(fd, &st) && st.st_gid == gid && (st.st_mode & 07777) == 02750)
		return 0;
	if (fchown(fd, (uid_t)-1, gid) || fchmod(fd, 02750)) {
		int err = -errno;

		tract_err("cannot give '%s' to group %u: %s", path, (unsigned int)gid, strerror(-err));
		return err;
	}
	return 0;
}

int store_dir_open(const char *dir, long gid, uid_t owner)
{
	char *path = NULL;
	int fd, err = 0;

	if (!*dir) {
		tract_err("the store directory is an empty path");
		return -EINVAL;
	}
	if (*dir == '/') {
		path = xstrdup(dir);
	} else {
		char *cwd = getcwd(NULL, 0);

		if (!cwd || asprintf(&path, "%s/%s", cwd, dir) < 0) {
			err = -errno;
			free(cwd);
			tract_err("cannot find the current directory: %s", strerror(-err));
			return err;
		}
		free(cwd);
	}
	fd = open("/", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	err = fd < 0 ? -errno : check_dir(fd, "/", !path[strspn(path, "/")], owner);
	/* one component at a time; path is cut after each, for the messages */
	for (char *name = path + strspn(path, "/"), *end; !err && *name; name = end + strspn(end, "/")) {
		char saved;
		int next, last;

		end = name + strcspn(name, "/");
		last = !end[strspn(end, "/")];
		if (end - name == 1 && *name == '.')
			continue;
		saved = *end;
		*end = '\0';
		next = open_step(fd, name, path, owner);
		if (next < 0) {
			err = next;
		} else {
			close(fd);
			fd = next;
			err = check_dir(fd, path, last, owner);
		}
		*end = saved;
	}
	/* a path ending in "." or ".." ends in a directory checked on the way */
	if (!err)
		err = check_dir(fd, dir, 1, owner);
	if (!err && owner != (uid_t)-1 && owner != geteuid()) {
		struct stat st;

		if (!fstat(fd, &st) && st.st_uid != owner) {
			err = hand_over(fd, path, owner, 0);
			if (!err && fchown(fd, owner, (gid_t)-1)) {
				err = -errno;
				tract_err("cannot give '%s' to the recorder's user: %s", path, strerror(-err));
			}
		}
	}
	if (!err && gid >= 0)
		err = share_dir(fd, path, (gid_t)gid);
	free(path);
	if (err) {
		if (fd >= 0)
			close(fd);
		return err;
	}
	return fd;
}

int store_make_dir(const char *dir, long gid)
{
	int fd = store_dir_open(dir, gid, (uid_t)-1);

	if (fd < 0)
		return fd;
	close(fd);
	return 0;
}

int store_dir_open_file(const char *path, int flags)
{
	int fd = open(path, flags | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC, 0640), err;
	struct stat st;

	if (fd < 0)
		return errno == ELOOP ? -EPERM : -errno;
	if (fstat(fd, &st) || !S_ISREG(st.st_mode)) {
		err = S_ISREG(st.st_mode) ? -errno : -EPERM;
		close(fd);
		return err;
	}
	/* regular files only: O_NONBLOCK kept a FIFO from blocking; the store's writes block */
	if (fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK)) {
		err = -errno;
		close(fd);
		return err;
	}
	return fd;
}

FILE *store_fopen(const char *path, const char *mode)
{
	int flags = *mode == 'a' ? O_WRONLY | O_CREAT | O_APPEND : O_WRONLY | O_CREAT | O_TRUNC;
	int fd = store_dir_open_file(path, flags);
	FILE *f;

	if (fd < 0) {
		errno = -fd;
		return NULL;
	}
	f = fdopen(fd, *mode == 'a' ? "a" : "w");
	if (!f)
		close(fd);
	return f;
}

int store_create_file(const char *path)
{
	int fd = store_dir_open_file(path, O_WRONLY | O_CREAT);

	if (fd < 0)
		return fd;
	close(fd);
	return 0;
}

int store_lock(const char *dir)
{
	char path[4096], holder[32] = "";
	int fd, err;
	ssize_t n;

	snprintf(path, sizeof(path), "%s/%s", dir, STORE_LOCK_NAME);
	fd = store_dir_open_file(path, O_RDWR | O_CREAT);
	if (fd < 0) {
		err = fd;
		tract_err("cannot create '%s': %s", path, err == -EPERM ? "not a regular file" : strerror(-err));
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
	fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0) {
		err = -errno;
		tract_err("cannot write into the store directory '%s': %s", dir, strerror(-err));
		return err;
	}
	close(fd);
	unlink(path);
	return 0;
}
