// SPDX-License-Identifier: GPL-2.0-only
/* What the SQLite and CSV stores share: the metadata every file records. */
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
