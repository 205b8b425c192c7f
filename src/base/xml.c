// SPDX-License-Identifier: GPL-2.0-only
#include "json.h"
#include "xml.h"

void xml_text(FILE *f, const char *str, size_t len)
{
	const unsigned char *s = (const unsigned char *)str;

	for (size_t i = 0; i < len;) {
		size_t n = utf8_len(s + i, len - i);

		if (!n || (n == 1 && ((s[i] < 0x20 && s[i] != '\t') || s[i] == 0x7f))) {
			fputs("\xef\xbf\xbd", f);
			i++;
			continue;
		}
		if (n == 1 && s[i] == '&')
			fputs("&amp;", f);
		else if (n == 1 && s[i] == '<')
			fputs("&lt;", f);
		else if (n == 1 && s[i] == '>')
			fputs("&gt;", f);
		else if (n == 1 && s[i] == '"')
			fputs("&quot;", f);
		else if (n == 1 && s[i] == '\'')
			fputs("&#39;", f);
		else
			fwrite(s + i, 1, n, f);
		i += n;
	}
}
