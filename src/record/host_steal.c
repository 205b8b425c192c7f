// SPDX-License-Identifier: GPL-2.0-only
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "host_steal.h"
#include "util.h"

/* More CPUs than any machine tract runs on has; a line past it is left out. */
#define MAX_CPUS 8192

int host_steal__parse(const char *text, uint64_t *ticks, size_t max)
{
	int n = -1;

	for (const char *line = text; line && *line; line = strchr(line, '\n'), line = line ? line + 1 : NULL) {
		unsigned long long v[8];
		unsigned int cpu;

		/* "cpu" alone is the sum; "cpuN user nice system idle iowait irq softirq steal ..." */
		if (strncmp(line, "cpu", 3) || line[3] < '0' || line[3] > '9')
			continue;
		if (sscanf(line + 3, "%u %llu %llu %llu %llu %llu %llu %llu %llu", &cpu, &v[0], &v[1], &v[2], &v[3],
			   &v[4], &v[5], &v[6], &v[7]) != 9 || cpu >= max)
			continue;
		ticks[cpu] = v[7];
		if ((int)cpu + 1 > n)
			n = (int)cpu + 1;
	}
	return n;
}

void host_steal__apply(struct pass *p, const uint64_t *was, const uint64_t *now, size_t n, long hz)
{
	uint64_t *cpu_us = xcalloc(n ? n : 1, sizeof(*cpu_us));

	p->steal_us = p->run_steal_us = 0;
	for (size_t c = 0; c < n && hz > 0; c++) {
		uint64_t us = now[c] > was[c] ? (now[c] - was[c]) * 1000000 / (uint64_t)hz : 0;
		struct steal_row *r;

		/*
		 * All of it since the previous pass's read, so that the passes add
		 * up to the host's steal; a pass stands for weight_us, and a late
		 * one's is cut to that
		 */
		cpu_us[c] = us < p->weight_us ? us : p->weight_us;
		if (!cpu_us[c])
			continue;
		r = steal_rows__add(&p->steal);
		r->cpu = (uint32_t)c;
		r->steal_us = cpu_us[c];
		p->steal_us += cpu_us[c];
	}
	for (size_t i = 0; i < p->nr; i++) {
		struct sample *s = &p->rows[i];

		s->steal_us = s->state == TRACT_STATE_RUN && s->cpu < n ? cpu_us[s->cpu] : 0;
		p->run_steal_us += s->steal_us;
	}
	free(cpu_us);
}

/* /proc/stat's text into hs->buf, whole: 0 or -errno. */
static int read_stat(struct host_steal *hs)
{
	size_t len = 0;
	ssize_t n;

	for (;;) {
		if (len + 1 >= hs->cap) {
			hs->cap = hs->cap ? 2 * hs->cap : 16384;
			hs->buf = xrealloc(hs->buf, hs->cap);
		}
		n = pread(hs->fd, hs->buf + len, hs->cap - len - 1, (off_t)len);
		if (n < 0)
			return -errno;
		if (!n)
			break;
		len += (size_t)n;
	}
	hs->buf[len] = '\0';
	return 0;
}

int host_steal__open(struct host_steal *hs)
{
	int n, err;

	*hs = (struct host_steal){ .fd = open("/proc/stat", O_RDONLY | O_CLOEXEC), .hz = sysconf(_SC_CLK_TCK) };
	if (hs->fd < 0 || hs->hz <= 0) {
		err = hs->fd < 0 ? -errno : -EINVAL;
		tract_warn("cannot read /proc/stat (%s): the host's steal is not recorded", strerror(-err));
		host_steal__close(hs);
		return err;
	}
	hs->ticks = xcalloc(MAX_CPUS, sizeof(*hs->ticks));
	hs->now = xcalloc(MAX_CPUS, sizeof(*hs->now));
	err = read_stat(hs);
	n = err ? -1 : host_steal__parse(hs->buf, hs->ticks, MAX_CPUS);
	if (n < 0) {
		tract_warn("/proc/stat has no CPU lines: the host's steal is not recorded");
		host_steal__close(hs);
		return -EINVAL;
	}
	hs->ncpus = (size_t)n;
	return 0;
}

void host_steal__take(struct host_steal *hs, struct pass *p)
{
	uint64_t *now = hs->now;
	int n;

	if (hs->fd < 0 || read_stat(hs))
		return;
	n = host_steal__parse(hs->buf, now, MAX_CPUS);
	if (n > 0) {
		/* a CPU brought online since starts from what it has */
		for (size_t c = hs->ncpus; c < (size_t)n; c++)
			hs->ticks[c] = now[c];
		host_steal__apply(p, hs->ticks, now, (size_t)n, hs->hz);
		memcpy(hs->ticks, now, (size_t)n * sizeof(*now));
		hs->ncpus = (size_t)n;
	}
}

void host_steal__close(struct host_steal *hs)
{
	if (hs->fd >= 0)
		close(hs->fd);
	free(hs->ticks);
	free(hs->now);
	free(hs->buf);
	*hs = (struct host_steal){ .fd = -1 };
}
