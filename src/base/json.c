// SPDX-License-Identifier: GPL-2.0-only
#include "json.h"

size_t utf8_len(const unsigned char *s, size_t n)
{
	size_t len;
	unsigned int cp;

	if (s[0] < 0x80)
		return 1;
	if (s[0] >= 0xc2 && s[0] <= 0xdf)
		len = 2, cp = s[0] & 0x1f;
	else if (s[0] >= 0xe0 && s[0] <= 0xef)
		len = 3, cp = s[0] & 0x0f;
	else if (s[0] >= 0xf0 && s[0] <= 0xf4)
		len = 4, cp = s[0] & 0x07;
	else
		return 0;
	if (len > n)
		return 0;
	for (size_t i = 1; i < len; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		cp = cp << 6 | (s[i] & 0x3f);
	}
	/* overlong forms, surrogates and beyond U+10FFFF are not UTF-8 */
	if ((len == 3 && (cp < 0x800 || (cp >= 0xd800 && cp <= 0xdfff))) ||
	    (len == 4 && (cp < 0x10000 || cp > 0x10ffff)))
		return 0;
	return len;
}

void json_string(FILE *f, const char *str, size_t len)
{
	const unsigned char *s = (const unsigned char *)str;

	fputc('"', f);
	for (size_t i = 0; i < len;) {
		size_t n = utf8_len(s + i, len - i);

		if (!n) {
			fputs("\\ufffd", f);
			i++;
			continue;
		}
		if (n == 1 && (s[i] == '"' || s[i] == '\\'))
			fprintf(f, "\\%c", s[i]);
		else if (n == 1 && (s[i] < 0x20 || s[i] == 0x7f))
			fprintf(f, "\\u%04x", s[i]);
		/* C1 too (CSI is U+009B): the same string to a parser, none on a terminal */
		else if (n == 2 && s[i] == 0xc2 && s[i + 1] < 0xa0)
			fprintf(f, "\\u%04x", s[i + 1]);
		else
			fwrite(s + i, 1, n, f);
		i += n;
	}
	fputc('"', f);
}
