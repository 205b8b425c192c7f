// SPDX-License-Identifier: GPL-2.0-only
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include "csv.h"
#include "strbuf.h"
#include "util.h"
#include "width.h"

void csv_field(FILE *f, const char *s)
{
	if (s)
		csv_field_n(f, s, strlen(s));
}

void csv_field_n(FILE *f, const char *s, size_t len)
{
	int quote = !len || s[0] == ' ' || s[len - 1] == ' ';

	for (size_t i = 0; i < len && !quote; i++)
		quote = s[i] == ',' || s[i] == '"' || s[i] == '\r' || s[i] == '\n' || !s[i];
	if (!quote) {
		fwrite(s, 1, len, f);
		return;
	}
	fputc('"', f);
	for (size_t i = 0; i < len; i++) {
		if (s[i] == '"')
			fputc('"', f);
		fputc(s[i], f);
	}
	fputc('"', f);
}

void csv_text(FILE *f, const char *s, size_t len)
{
	struct strbuf b = { 0 };

	/* OWASP's list: what Excel, LibreOffice and Google Sheets start a formula with */
	if (len && s[0] && strchr("=+-@", s[0]))
		strbuf_add(&b, "'");
	for (size_t i = 0, n; i < len; i += n) {
		int control;

		n = text_char(s + i, len - i, &control);
		for (size_t k = 0; control && k < n; k++)
			strbuf_addf(&b, "\\x%02x", (unsigned char)s[i + k]);
		if (!control)
			strbuf_addn(&b, s + i, n);
	}
	csv_field_n(f, strbuf_str(&b), b.len);
	strbuf_free(&b);
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

void csv_record_free(struct csv_record *r)
{
	free(r->buf);
	free(r->fields);
	*r = (struct csv_record){ 0 };
}

static void put(struct csv_record *r, size_t *len, char c)
{
	if (*len + 1 >= r->cap) {
		r->cap = r->cap ? 2 * r->cap : 256;
		r->buf = xrealloc(r->buf, r->cap);
	}
	r->buf[(*len)++] = c;
}

static void end_field(struct csv_record *r, size_t start, size_t *len, int quoted)
{
	ARRAY_GROW(r->fields, r->nr, r->fields_cap, 32);
	/* offsets until the record is whole: the buffer may move */
	r->fields[r->nr++] = (struct csv_value){ .s = (const char *)(uintptr_t)start, .len = *len - start,
						 .null = !quoted && *len == start };
	put(r, len, '\0');
}

int csv_read_record(FILE *f, struct csv_record *r)
{
	size_t len = 0, start = 0;
	int c, quoted = 0, in_quotes = 0, any = 0;

	r->nr = 0;
	while ((c = getc(f)) != EOF) {
		any = 1;
		if (in_quotes) {
			if (c != '"') {
				put(r, &len, (char)c);
				continue;
			}
			c = getc(f);
			if (c == '"') {
				put(r, &len, '"');
				continue;
			}
			in_quotes = 0;
			if (c == EOF)
				break;
		}
		if (c == '"' && len == start) {
			in_quotes = quoted = 1;
		} else if (c == ',') {
			end_field(r, start, &len, quoted);
			start = len;
			quoted = 0;
		} else if (c == '\n') {
			break;
		} else if (c == '\r') {
			int next = getc(f);

			if (next == '\n')
				break;
			if (next != EOF)
				ungetc(next, f);
			put(r, &len, '\r');
		} else {
			put(r, &len, (char)c);
		}
	}
	if (!any)
		return 0;
	if (in_quotes)
		return -1;
	end_field(r, start, &len, quoted);
	for (size_t i = 0; i < r->nr; i++)
		r->fields[i].s = r->buf + (uintptr_t)r->fields[i].s;
	return 1;
}
