// SPDX-License-Identifier: GPL-2.0-only
/*
 * libFuzzer target: the /proc files the recorder parses, whose text users
 * shape (paths, thread names): the input, whole, as each of them.
 *   maps          the symbolizer's and the OpenTelemetry readers', from a
 *                 /proc laid out in a scratch directory
 *   net/unix      every record, as files.c reads it
 *   net/tcp, tcp6 each line
 *   mountinfo     each line, as cgroups.c looks for cgroup2
 *   stat          as the /proc source reads a thread's
 *   cmdline       a process's title: printable, bounded, never a split character
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "cgroups.h"
#include "files.h"
#include "net_unix.h"
#include "otel_pctx.h"
#include "otel_tls.h"
#include "proc_stat.h"
#include "proctitle.h"
#include "usyms.h"
#include "scratch.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void count(void *arg, uint64_t ino, const char *name)
{
	(void)ino;
	if (strncmp(name, "unix", 4) || strchr(name, '\n'))
		abort();
	++*(size_t *)arg;
}

/* the input as /proc/1/maps: what its mappings name, at a few addresses */
static void maps(const char *root, const char *file, const uint8_t *data, size_t size)
{
	static const uint64_t ips[] = { 0x1000, 0x400000, 0x7f0000001000, 0x7ffff7fc1000, 0xffffffffff600000 };
	struct otel_keys keys = { 0 };
	struct otel_tls tls;
	struct usyms *u;
	char *text;
	FILE *f = fopen(file, "w");

	if (!f)
		abort();
	fwrite(data, 1, size, f);
	fclose(f);
	u = usyms__new_at(4, root);
	if (!usyms__symbolize(u, 1, 0, ips, sizeof(ips) / sizeof(ips[0]), &text))
		free(text);
	usyms__free(u);
	otel_pctx_read(root, 1, &keys);
	otel_tls_find(root, 1, &tls);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static char root[64], file[128];
	char *text = malloc(size + 1), *line, *next, out[256];
	struct sample s = { 0 };
	uint32_t flags = 0;
	uint64_t start = 0, ino;
	size_t named = 0;
	FILE *f;

	if (!root[0]) {
		fuzz_scratch(root, sizeof(root), "proc");
		if (!mkdtemp(root))
			abort();
		snprintf(file, sizeof(file), "%s/1", root);
		mkdir(file, 0700);
		snprintf(file, sizeof(file), "%s/1/maps", root);
	}
	maps(root, file, data, size);

	f = fmemopen((void *)data, size ? size : 1, "r");
	if (f) {
		net_unix__read(f, count, &named);
		fclose(f);
	}

	{
		char title[PROCTITLE_MAX + 1];
		size_t n = proctitle_clean((const char *)data, size, title);

		if (n > PROCTITLE_MAX || strlen(title) != n || (n && title[n - 1] == ' ') ||
		    (n == PROCTITLE_MAX && size > n && ((unsigned char)data[n] & 0xc0) == 0x80))
			abort();
		for (size_t i = 0; i < n; i++)
			if ((unsigned char)title[i] < 0x20 || title[i] == 0x7f)
				abort();
	}
	memcpy(text, data, size);
	text[size] = '\0';
	if (!proc_stat__parse(text, &s, &flags, &start) && s.comm[sizeof(s.comm) - 1])
		abort();
	for (line = text; line; line = next) {
		next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		files__format_inet_line(line, "tcp", 0, out, sizeof(out), &ino);
		files__format_inet_line(line, "tcp", 1, out, sizeof(out), &ino);
		cgroups__mount_from_line(line);
	}
	free(text);
	return 0;
}
