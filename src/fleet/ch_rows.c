// SPDX-License-Identifier: GPL-2.0-only
#include <inttypes.h>
#include <string.h>
#include "ch_rows.h"
#include "columns.h"

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

void ch_rows__pass(struct strbuf *b, const char *host, uint64_t batch_id, const struct pass *p)
{
	ch_tsv_text(b, host, strlen(host));
	strbuf_addf(b, "\t%" PRIu64 "\t%" PRIu64 "\t%" PRIu64 "\t%" PRIu64 "\t%zu\t%" PRIu64 "\t%" PRIu64 "\t%" PRIu64
		    "\t%" PRIu64 "\t%" PRIu64 "\t%" PRIu64 "\t%" PRIu64 "\t%" PRIu64 "\t",
		    batch_id, p->ts_us, p->weight_us, p->visited, p->nr, p->dropped, p->duration_us, p->cpu_us,
		    p->hist_lost, p->displaced, p->unsampled_us, p->load_rows, p->moment_read);
	if (p->has_bpf_us)
		strbuf_add_u64(b, p->bpf_us);
	else
		strbuf_addn(b, "\\N", 2);
	strbuf_addn(b, "\n", 1);
}

void ch_rows__stack(struct strbuf *b, const char *host, const struct kstack *s, uint64_t seen_us)
{
	ch_tsv_text(b, host, strlen(host));
	strbuf_addf(b, "\t%" PRId64 "\t%s\t", (int64_t)s->hash, s->kind);
	ch_tsv_text(b, s->frames, strlen(s->frames));
	strbuf_addf(b, "\t%" PRIu64 "\n", seen_us);
}

/* Text that may be missing, as a field: \N for NULL. */
static void text_or_null(struct strbuf *b, const char *s)
{
	if (s)
		ch_tsv_text(b, s, strlen(s));
	else
		strbuf_addn(b, "\\N", 2);
}

/* What every row of a pass's tables begins with: host, batch, pass time. */
static void row_head(struct strbuf *b, const char *host, uint64_t batch_id, const struct pass *p)
{
	ch_tsv_text(b, host, strlen(host));
	strbuf_addf(b, "\t%" PRIu64 "\t%" PRIu64 "\t", batch_id, p->ts_us);
}

size_t ch_rows__hist(struct strbuf *b, enum ch_hist kind, const char *host, uint64_t batch_id, const struct pass *p)
{
	const struct hist_rows *h = kind == CH_HIST_IO ? &p->io_hist : kind == CH_HIST_SYSCALL ? &p->sc_hist :
									   &p->runq_hist;

	for (size_t i = 0; i < h->nr; i++) {
		const struct hist_row *r = &h->rows[i];

		row_head(b, host, batch_id, p);
		if (kind == CH_HIST_IO) {
			text_or_null(b, r->name);
			strbuf_addn(b, "\t", 1);
			text_or_null(b, r->what);
		} else {
			strbuf_addf(b, "%u\t", r->tgid);
			text_or_null(b, r->name);
			if (kind == CH_HIST_SYSCALL) {
				strbuf_addn(b, "\t", 1);
				text_or_null(b, r->what);
			}
		}
		strbuf_addf(b, "\t%" PRIu64 "\t%" PRIu64 "\t%" PRIu64 "\n", r->le_us, r->count, r->sum_us);
	}
	return h->nr;
}

size_t ch_rows__wakeups(struct strbuf *b, const char *host, uint64_t batch_id, const struct pass *p)
{
	for (size_t i = 0; i < p->wakeups.nr; i++) {
		const struct wakeup_row *r = &p->wakeups.rows[i];

		row_head(b, host, batch_id, p);
		if (r->waker_tgid)
			strbuf_addf(b, "%u\t", r->waker_tgid);
		else
			strbuf_addn(b, "\\N\t", 3);
		text_or_null(b, r->waker);
		strbuf_addf(b, "\t%u\t", r->wakee_tgid);
		text_or_null(b, r->wakee);
		strbuf_addf(b, "\t%" PRIu64 "\t%" PRIu64 "\t%" PRIu64 "\n", r->count, r->runq_us, r->blocked_us);
	}
	return p->wakeups.nr;
}

static void stack_or_null(struct strbuf *b, const struct kstack *k)
{
	if (k)
		strbuf_add_i64(b, (int64_t)k->hash);
	else
		strbuf_addn(b, "\\N", 2);
}

size_t ch_rows__profile(struct strbuf *b, const char *host, uint64_t batch_id, const struct pass *p)
{
	for (size_t i = 0; i < p->profile.nr; i++) {
		const struct profile_row *r = &p->profile.rows[i];

		row_head(b, host, batch_id, p);
		strbuf_addf(b, "%u\t%u\t", r->tid, r->tgid);
		ch_tsv_text(b, r->comm, strnlen(r->comm, sizeof(r->comm)));
		strbuf_addn(b, "\t", 1);
		ch_tsv_text(b, r->pcomm, strnlen(r->pcomm, sizeof(r->pcomm)));
		strbuf_addn(b, "\t", 1);
		stack_or_null(b, r->kstack);
		strbuf_addn(b, "\t", 1);
		stack_or_null(b, r->ustack);
		strbuf_addf(b, "\t%" PRIu64 "\n", r->ticks);
	}
	return p->profile.nr;
}
