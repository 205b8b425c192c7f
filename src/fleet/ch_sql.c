// SPDX-License-Identifier: GPL-2.0-only
#include <string.h>
#include "ch_sql.h"

void ch_quote(struct strbuf *b, const char *s, size_t len)
{
	static const char hex[] = "0123456789abcdef";
	char out[5];

	strbuf_add(b, "'");
	for (size_t i = 0; i < len; i++) {
		unsigned char c = (unsigned char)s[i];

		if (c == '\'' || c == '\\') {
			out[0] = '\\';
			out[1] = (char)c;
			out[2] = '\0';
		} else if (c < 0x20 || c >= 0x7f) {
			out[0] = '\\';
			out[1] = 'x';
			out[2] = hex[c >> 4];
			out[3] = hex[c & 15];
			out[4] = '\0';
		} else {
			out[0] = (char)c;
			out[1] = '\0';
		}
		strbuf_add(b, out);
	}
	strbuf_add(b, "'");
}

int ch_identifier_ok(const char *name)
{
	size_t n = name ? strlen(name) : 0;

	if (!n || n > 64 || !((name[0] >= 'A' && name[0] <= 'Z') || (name[0] >= 'a' && name[0] <= 'z') || name[0] == '_'))
		return 0;
	for (size_t i = 1; i < n; i++)
		if (!((name[i] >= 'A' && name[i] <= 'Z') || (name[i] >= 'a' && name[i] <= 'z') ||
		      (name[i] >= '0' && name[i] <= '9') || name[i] == '_'))
			return 0;
	return 1;
}
