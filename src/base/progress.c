// SPDX-License-Identifier: GPL-2.0-only
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include "clock.h"
#include "progress.h"

/* at most this often: a terminal over ssh need not carry a line per hour */
#define REDRAW_NS (NSEC_PER_SEC / 10)

static struct {
	int on;			/* begun, and stderr is a terminal */
	int drawn;		/* the line is on the screen */
	const char *what, *stage;
	unsigned int stages, index;	/* index: the current stage, from 1 */
	uint64_t last_ns;
	double pct;		/* the most said: a stage that reads the hours twice goes on, not back */
	char line[160];
} p;

void progress_begin(const char *what, unsigned int stages)
{
	memset(&p, 0, sizeof(p));
	p.on = isatty(STDERR_FILENO);
	p.what = what;
	p.stages = stages ? stages : 1;
}

void progress_stage(const char *name)
{
	p.stage = name;
	if (p.index < p.stages)
		p.index++;
}

void progress_hours(size_t done, size_t total)
{
	char line[sizeof(p.line)];
	unsigned int stage = p.index ? p.index - 1 : 0;
	double pct;
	uint64_t now;

	if (!p.on || !total)
		return;
	pct = 100.0 * (stage + (double)done / (double)total) / p.stages;
	if (pct < p.pct)
		pct = p.pct;
	p.pct = pct;
	snprintf(line, sizeof(line), "%s: %s%shour %zu of %zu, %.0f%%", p.what, p.stage ? p.stage : "",
		 p.stage ? ", " : "", done < total ? done + 1 : total, total, pct);
	now = mono_ns();
	/* the first line at once, then at most every REDRAW_NS, and only when it changed */
	if ((p.drawn && now - p.last_ns < REDRAW_NS) || !strcmp(line, p.line))
		return;
	p.last_ns = now;
	memcpy(p.line, line, sizeof(line));
	fprintf(stderr, "\r%s\033[K", line);
	fflush(stderr);
	p.drawn = 1;
}

void progress_clear(void)
{
	if (!p.drawn)
		return;
	fputs("\r\033[K", stderr);
	fflush(stderr);
	p.drawn = 0;
	p.line[0] = '\0';
}

void progress_end(void)
{
	progress_clear();
	p.on = 0;
}
