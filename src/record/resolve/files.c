// SPDX-License-Identifier: GPL-2.0-only
#include <arpa/inet.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>
#include "blockdev.h"
#include "clock.h"
#include "dict.h"
#include "files.h"
#include "net_unix.h"
#include "util.h"

/* Bounds on memory: beyond them names are not kept, and the fd cache restarts. */
/*
 * Names handed out, in generations: past this many a new one begins, and
 * the old one is freed once no queued pass can point at its names (more
 * passes than the writer's queue holds, 32).  Pipes and sockets have names
 * of their own, so a busy host makes new ones all day.
 */
#define NAMES_PER_GENERATION 50000
#define NAMES_GRACE_PASSES 64
#define FD_CACHE_MAX 100000
/* ended processes before their cached fds are swept out */
#define SWEEP_AT 512
/* fd cache value of a socket: named by inode, from the latest read of the socket tables */
#define FD_IS_SOCKET 1
/*
 * The time between two passes that read socket tables, at least, in units
 * of the first's reading time: a quarter of a percent of a CPU at most.
 * Reading /proc/net/tcp walks every bucket of the kernel's connection hash,
 * sized by the host's memory (1.4 ms for a few sockets on 24 GiB): at 1 %
 * it was a quarter of the recorder's time on a process with a socket.
 */
#define SOCKET_READ_SPACING 399
/* devs value of a file on no block device */
#define NO_DEV 1

struct fd_key {
	uint32_t tgid;
	uint32_t pad;
	uint64_t fd;
	uint64_t ino;
};

struct files {
	char *proc_root;
	/* the names handed out: queued samples point at them (NAMES_PER_GENERATION) */
	struct dict *names, *retired;
	uint64_t passes, retired_at;
	/* tgids of processes that ended since the last sweep of fds */
	struct dict *ended;
	/* (tgid, fd, ino) -> its name, NULL for "cannot be named", or FD_IS_SOCKET */
	struct dict *fds;
	/* (tgid, fd, ino) -> its block device's name (from blockdevs, which keeps them), or NO_DEV */
	struct dict *devs;
	/* the latest read: socket inode -> its name, and the processes whose sockets were read */
	struct dict *sockets;
	struct dict *scanned;
	/* whether this pass may read socket tables, the time its reads took, and when the next may */
	int may_read_sockets;
	uint64_t sockets_read_ns, sockets_next_read_ns;
	/* the previous file named, not a socket: threads of a pool wait on one fd one after another */
	struct fd_key last_key;
	const char *last_name;
};

struct files *files__new(const char *proc_root)
{
	struct files *fs = xcalloc(1, sizeof(*fs));

	fs->proc_root = xstrdup(proc_root ? proc_root : "/proc");
	fs->names = dict__new();
	fs->ended = dict__new();
	fs->fds = dict__new();
	fs->devs = dict__new();
	fs->sockets = dict__new();
	fs->scanned = dict__new();
	fs->may_read_sockets = 1;
	return fs;
}

void files__free(struct files *fs)
{
	if (!fs)
		return;
	dict__free(fs->names);
	dict__free(fs->retired);
	dict__free(fs->ended);
	dict__free(fs->fds);
	dict__free(fs->devs);
	dict__free(fs->sockets);
	dict__free(fs->scanned);
	free(fs->proc_root);
	free(fs);
}

void files__forget(struct files *fs, uint32_t tgid)
{
	int added;

	dict__intern(fs->ended, &tgid, sizeof(tgid), &added);
}

/* fd cache entries of processes that did not end (an fd_key begins with its tgid) */
static int alive(const void *key, size_t len, uint64_t value, void *ctx)
{
	uint32_t tgid;

	(void)value;
	if (len < sizeof(tgid))
		return 1;
	memcpy(&tgid, key, sizeof(tgid));
	return !dict__find(ctx, &tgid, sizeof(tgid));
}

static void sweep(struct files *fs)
{
	struct dict *kept = dict__filter(fs->fds, alive, fs->ended);

	dict__free(fs->fds);
	fs->fds = kept;
	kept = dict__filter(fs->devs, alive, fs->ended);
	dict__free(fs->devs);
	fs->devs = kept;
	dict__clear(fs->ended);
}

void files__new_pass(struct files *fs, uint64_t now_ns)
{
	if (fs->sockets_read_ns) {
		fs->sockets_next_read_ns = now_ns + SOCKET_READ_SPACING * fs->sockets_read_ns;
		fs->sockets_read_ns = 0;
	}
	fs->may_read_sockets = now_ns >= fs->sockets_next_read_ns;
	if (fs->may_read_sockets) {
		dict__clear(fs->sockets);
		dict__clear(fs->scanned);
	}
	memset(&fs->last_key, 0, sizeof(fs->last_key));
	fs->last_name = NULL;
	if (dict__size(fs->fds) > FD_CACHE_MAX)
		dict__clear(fs->fds);
	if (dict__size(fs->devs) > FD_CACHE_MAX)
		dict__clear(fs->devs);
	if (dict__size(fs->ended) >= SWEEP_AT)
		sweep(fs);
	if (fs->retired && ++fs->passes - fs->retired_at >= NAMES_GRACE_PASSES) {
		dict__free(fs->retired);
		fs->retired = NULL;
	}
}

/*
 * A new generation of names: what points into the old one (the fd cache,
 * the sockets read) is forgotten, and read again as it is asked for.
 */
static void retire_names(struct files *fs)
{
	fs->retired = fs->names;
	fs->retired_at = fs->passes;
	fs->names = dict__new();
	dict__clear(fs->fds);
	dict__clear(fs->sockets);
	dict__clear(fs->scanned);
	memset(&fs->last_key, 0, sizeof(fs->last_key));
	fs->last_name = NULL;
}

/* The pool's copy of name; NULL while the pool is full and the previous one not yet freed. */
static const char *intern(struct files *fs, const char *name)
{
	if (dict__size(fs->names) >= NAMES_PER_GENERATION && !dict__find(fs->names, name, strlen(name) + 1)) {
		if (fs->retired)
			return NULL;
		retire_names(fs);
	}
	return dict__intern_str(fs->names, name);
}

static const char *const tcp_states[] = {
	[1] = "ESTABLISHED", [2] = "SYN_SENT", [3] = "SYN_RECV", [4] = "FIN_WAIT1",
	[5] = "FIN_WAIT2", [6] = "TIME_WAIT", [7] = "CLOSE", [8] = "CLOSE_WAIT",
	[9] = "LAST_ACK", [10] = "LISTEN", [11] = "CLOSING", [12] = "NEW_SYN_RECV",
};

/* "0100007F:1F90" (v4) or 32 hex digits (v6), as the kernel prints them, to text */
static int format_endpoint(const char *hex, int v6, char *out, size_t len)
{
	unsigned char addr[16];
	char text[INET6_ADDRSTRLEN];
	unsigned int port, words = v6 ? 4 : 1;

	/* the words, ':' and a port: no reading past a short field */
	if (strnlen(hex, words * 8 + 2) < words * 8 + 2)
		return -1;
	for (unsigned int i = 0; i < words; i++) {
		char word[9];
		uint32_t v;

		memcpy(word, hex + i * 8, 8);
		word[8] = '\0';
		v = strtoul(word, NULL, 16);
		/* each word is the address's bytes read as a host-order integer */
		memcpy(addr + i * 4, &v, 4);
	}
	if (hex[words * 8] != ':' || sscanf(hex + words * 8 + 1, "%x", &port) != 1)
		return -1;
	if (!inet_ntop(v6 ? AF_INET6 : AF_INET, addr, text, sizeof(text)))
		return -1;
	snprintf(out, len, v6 ? "[%s]:%u" : "%s:%u", text, port);
	return 0;
}

int files__format_inet_line(const char *line, const char *proto, int v6, char *out, size_t len,
			    uint64_t *ino)
{
	char local[64], remote[64], l[80], r[80];
	unsigned int state;
	unsigned long long inode;
	int tcp = !strncmp(proto, "tcp", 3);

	if (sscanf(line, " %*[0-9]: %63s %63s %x %*s %*s %*s %*s %*s %llu", local, remote, &state, &inode) != 4)
		return -1;
	if (format_endpoint(local, v6, l, sizeof(l)) || format_endpoint(remote, v6, r, sizeof(r)))
		return -1;
	/* an unconnected socket has a zero remote port */
	if (!strcmp(r + strlen(r) - 2, ":0"))
		snprintf(out, len, "%s %s", proto, l);
	else
		snprintf(out, len, "%s %s->%s", proto, l, r);
	if (tcp && state < ARRAY_SIZE(tcp_states) && tcp_states[state]) {
		size_t n = strlen(out);

		snprintf(out + n, len - n, " %s", tcp_states[state]);
	}
	*ino = inode;
	return 0;
}

static void add_socket(struct files *fs, uint64_t ino, const char *name)
{
	int added;
	uint32_t id = dict__intern(fs->sockets, &ino, sizeof(ino), &added);

	if (added)
		*dict__value(fs->sockets, id) = (uintptr_t)intern(fs, name);
}

static void add_unix_socket(void *arg, uint64_t ino, const char *name)
{
	add_socket(arg, ino, name);
}

/* The sockets of a process's network namespace, once per pass. */
static void scan_sockets(struct files *fs, uint32_t tgid)
{
	static const struct { const char *file, *proto; int v6; } tables[] = {
		{ "tcp", "tcp", 0 }, { "tcp6", "tcp", 1 }, { "udp", "udp", 0 }, { "udp6", "udp", 1 },
	};
	char path[PATH_MAX], line[1024], name[256];
	uint64_t ino;
	uint64_t t0;
	int added;
	FILE *f;

	dict__intern(fs->scanned, &tgid, sizeof(tgid), &added);
	if (!added)
		return;
	t0 = mono_ns();
	for (size_t t = 0; t < ARRAY_SIZE(tables); t++) {
		snprintf(path, sizeof(path), "%s/%u/net/%s", fs->proc_root, tgid, tables[t].file);
		f = fopen(path, "re");
		if (!f)
			continue;
		while (fgets(line, sizeof(line), f))
			if (!files__format_inet_line(line, tables[t].proto, tables[t].v6, name, sizeof(name), &ino))
				add_socket(fs, ino, name);
		fclose(f);
	}
	snprintf(path, sizeof(path), "%s/%u/net/unix", fs->proc_root, tgid);
	f = fopen(path, "re");
	if (f) {
		net_unix__read(f, add_unix_socket, fs);
		fclose(f);
	}
	/* at least a nanosecond: a read, however quick, spaces the next */
	fs->sockets_read_ns += mono_ns() - t0 + 1;
}

static const char *socket_name(struct files *fs, uint32_t tgid, uint64_t ino, const char *link)
{
	uint32_t id = dict__find(fs->sockets, &ino, sizeof(ino));

	if (!id && fs->may_read_sockets) {
		scan_sockets(fs, tgid);
		id = dict__find(fs->sockets, &ino, sizeof(ino));
	}
	if (id && *dict__value(fs->sockets, id))
		return (const char *)(uintptr_t)*dict__value(fs->sockets, id);
	/* netlink, packet, vsock...: the kernel's own name */
	return intern(fs, link);
}

/* The fd's name read from /proc on its first sight: out of line, its buffers off the hot path's stack. */
static __attribute__((noinline)) const char *read_fd_name(struct files *fs, const struct fd_key *key)
{
	char path[PATH_MAX], link[PATH_MAX];
	uint64_t *name;
	ssize_t n;
	int added;

	snprintf(path, sizeof(path), "%s/%u/fd/%" PRIu64, fs->proc_root, key->tgid, key->fd);
	n = readlink(path, link, sizeof(link) - 1);
	if (n <= 0)
		return NULL;
	link[n] = '\0';
	name = dict__value(fs->fds, dict__intern(fs->fds, key, sizeof(*key), &added));
	if (!strncmp(link, "socket:[", 8)) {
		*name = FD_IS_SOCKET;
		return socket_name(fs, key->tgid, key->ino, link);
	}
	*name = (uintptr_t)intern(fs, link);
	return (const char *)(uintptr_t)*name;
}

const char *files__name(struct files *fs, uint32_t tgid, uint64_t fd, uint64_t ino)
{
	struct fd_key key = { .tgid = tgid, .fd = fd, .ino = ino };
	char link[64];
	uint32_t id;

	/* asked for most rows of a pass: the same fd as the row before, or one read before */
	if (fs->last_name && fs->last_key.tgid == tgid && fs->last_key.fd == fd && fs->last_key.ino == ino)
		return fs->last_name;
	id = dict__find(fs->fds, &key, sizeof(key));
	if (!id)
		return read_fd_name(fs, &key);
	if (*dict__value(fs->fds, id) == FD_IS_SOCKET) {
		snprintf(link, sizeof(link), "socket:[%" PRIu64 "]", ino);
		return socket_name(fs, tgid, ino, link);
	}
	fs->last_key = key;
	return fs->last_name = (const char *)(uintptr_t)*dict__value(fs->fds, id);
}

const char *files__dev(struct files *fs, struct blockdevs *bd, uint32_t tgid, uint64_t fd, uint64_t ino)
{
	struct fd_key key = { .tgid = tgid, .fd = fd, .ino = ino };
	char path[PATH_MAX];
	struct stat st;
	uint64_t *dev;
	int added;

	dev = dict__value(fs->devs, dict__intern(fs->devs, &key, sizeof(key), &added));
	if (!added)
		return *dev == NO_DEV ? NULL : (const char *)(uintptr_t)*dev;
	*dev = NO_DEV;
	snprintf(path, sizeof(path), "%s/%u/fd/%" PRIu64, fs->proc_root, tgid, fd);
	/* the file itself, through the link: the same file the sample's inode says, on a real device */
	if (stat(path, &st) || (ino && st.st_ino != ino) || !major(st.st_dev))
		return NULL;
	/* the kernel's dev_t, as blockdevs names it: 12 bits of major above 20 of minor */
	*dev = (uintptr_t)blockdevs__name(bd, major(st.st_dev) << 20 | (minor(st.st_dev) & 0xfffff));
	return (const char *)(uintptr_t)*dev;
}
