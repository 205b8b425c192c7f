// SPDX-License-Identifier: GPL-2.0-only
#include <inttypes.h>
#include <string.h>
#include "ch_rows.h"
#include "columns.h"
#include "pass_tables.h"

void ch_tsv_text(struct strbuf *b, const char *s, size_t len)
{
	size_t from = 0;

	for (size_t i = 0; i < len; i++) {
		char c = s[i];
		const char *esc = c == '\\' ? "\\\\" : c == '\t' ? "\\t" : c == '\n' ? "\\n" : c == '\r' ? "\\r" :
				  c == '\0' ? "\\0" : NULL;

		if (!esc)
			continue;
		strbuf_addn(b, s + from, i - from);
		strbuf_addn(b, esc, 2);
		from = i + 1;
	}
	strbuf_addn(b, s + from, len - from);
}

static void field(struct strbuf *b, const struct column_value *v)
{
	switch (v->kind) {
	case VAL_NULL:
		strbuf_addn(b, "\\N", 2);
		break;
	case VAL_INT:
		strbuf_add_i64(b, v->i);
		break;
	case VAL_UINT:
		strbuf_add_u64(b, v->u);
		break;
	case VAL_TEXT:
		ch_tsv_text(b, v->s, v->len);
		break;
	}
}

size_t ch_rows__samples(struct strbuf *b, const char *host, uint64_t batch_id, const struct pass *p)
{
	size_t host_len = strlen(host);

	for (size_t i = 0; i < p->nr; i++) {
		ch_tsv_text(b, host, host_len);
		strbuf_addn(b, "\t", 1);
		strbuf_add_u64(b, batch_id);
		for (size_t c = 0; c < NR_SAMPLE_COLUMNS; c++) {
			struct column_value v;

			v.kind = VAL_NULL;
			sample_columns[c].value(p, &p->rows[i], &v);
			strbuf_addn(b, "\t", 1);
			field(b, &v);
		}
		strbuf_addn(b, "\n", 1);
	}
	return p->nr;
}

void ch_rows__stack(struct strbuf *b, const char *host, const struct kstack *s, uint64_t seen_us)
{
	ch_tsv_text(b, host, strlen(host));
	strbuf_addf(b, "\t%" PRId64 "\t%s\t", (int64_t)s->hash, s->kind);
	ch_tsv_text(b, s->frames, strlen(s->frames));
	strbuf_addf(b, "\t%" PRIu64 "\n", seen_us);
}

/*
 * A value as a field of a column of this type: a NULL where the column
 * takes none is its default, a stack's hash as the signed number the
 * column holds.
 */
static void typed_field(struct strbuf *b, const struct column_value *v, const char *type)
{
	if (v->kind == VAL_NULL && !ch_type_nullable(type))
		strbuf_add(b, strstr(type, "String") ? "" : "0");
	else if (v->kind == VAL_UINT && strstr(type, "Int64") && !strstr(type, "UInt64"))
		strbuf_add_i64(b, (int64_t)v->u);
	else
		field(b, v);
}

size_t ch_rows__pass_table(struct strbuf *b, enum pass_table_id id, const char *host, uint64_t batch_id,
			   const struct pass *p, void (*stack)(void *arg, const struct kstack *k), void *arg)
{
	const struct pass_table *t = &pass_tables[id];
	size_t rows = t->nrows(p), host_len = strlen(host);

	for (size_t r = 0; r < rows; r++) {
		const void *row = t->row(p, r);

		ch_tsv_text(b, host, host_len);
		strbuf_addn(b, "\t", 1);
		strbuf_add_u64(b, batch_id);
		if (!t->itself) {
			strbuf_addn(b, "\t", 1);
			strbuf_add_u64(b, p->ts_us);
		}
		for (size_t c = 0; c < t->ncolumns; c++) {
			struct column_value v = { 0 };

			t->columns[c].value(p, row, &v);
			strbuf_addn(b, "\t", 1);
			typed_field(b, &v, t->columns[c].ch_type);
			if (v.stack && stack)
				stack(arg, v.stack);
		}
		strbuf_addn(b, "\n", 1);
	}
	return rows;
}
