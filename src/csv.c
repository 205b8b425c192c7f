// SPDX-License-Identifier: GPL-2.0-only
#include <inttypes.h>
#include <string.h>
#include "csv.h"

void csv_field(FILE *f, const char *s)
{
	size_t len;

	if (!s)
		return;
	len = strlen(s);
	if (!strpbrk(s, ",\"\r\n") && !(len && (s[0] == ' ' || s[len - 1] == ' '))) {
		fputs(s, f);
		return;
	}
	fputc('"', f);
	for (; *s; s++) {
		if (*s == '"')
			fputc('"', f);
		fputc(*s, f);
	}
	fputc('"', f);
}

void csv_u64(FILE *f, uint64_t v)
{
	fprintf(f, "%" PRIu64, v);
}

void csv_sep(FILE *f)
{
	fputc(',', f);
}

void csv_end(FILE *f)
{
	/* RFC 4180 lines end in CRLF; every CSV reader accepts it */
	fputs("\r\n", f);
}
