// SPDX-License-Identifier: GPL-2.0-only
#include <string.h>
#include "format.h"

int render_parse_format(const char *s)
{
	if (!strcmp(s, "table"))
		return RENDER_TABLE;
	if (!strcmp(s, "csv"))
		return RENDER_CSV;
	if (!strcmp(s, "json"))
		return RENDER_JSON;
	return -1;
}
