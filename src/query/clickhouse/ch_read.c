// SPDX-License-Identifier: GPL-2.0-only
/*
 * The read back end of the fleet's ClickHouse: the passes' coverage,
 * totals and newest time over every host (or --host's); aggregate and --sql are
 * ch_aggregate.c's and ch_rawsql.c's.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include "ch_read.h"
#include "ch_store.h"
#include "strbuf.h"
#include "util.h"

/*
 * Each host's coverage as the hours' is, then added up as the fleet's
 * averages are: the hosts' threads summed over the most time any covered.
 */
static int ch_coverage(const struct store_reader *set, const struct coverage_window *w, double (*sums)[2])
{
	struct ch_store *s = ch_store__of(set);
	double (*host)[2] = xcalloc(w->nbuckets + 1, sizeof(*host)), *rate = xcalloc(w->nbuckets + 1, sizeof(*rate));
	struct strbuf sql = { 0 }, last = { 0 };
	struct ch_table tab;
	int err, rc = 0;

	strbuf_addf(&sql, "SELECT host, ts_us, weight_us, emitted FROM tract.passes WHERE ts_us >= %" PRIu64
		    " AND toInt64(ts_us) - toInt64(weight_us) < %" PRIu64, w->from_us, w->to_us);
	ch_store__host_filter(s, &sql);
	strbuf_add(&sql, " ORDER BY host, ts_us");
	err = ch_store__select(s, strbuf_str(&sql), &tab);
	strbuf_free(&sql);
	while (!err && rc >= 0) {
		rc = ch_table__next(&tab);
		/* a host's passes end: its rates join the fleet's */
		if (rc != 1 || last.len != tab.row[0].len || memcmp(strbuf_str(&last), tab.row[0].s, last.len)) {
			for (size_t b = 0; b < w->nbuckets; b++) {
				if (host[b][1] > 0)
					rate[b] += host[b][0] / host[b][1];
				if (host[b][1] > sums[b][1])
					sums[b][1] = host[b][1];
			}
			memset(host, 0, w->nbuckets * sizeof(*host));
			if (rc != 1)
				break;
			strbuf_free(&last);
			strbuf_addn(&last, tab.row[0].s ? tab.row[0].s : "", tab.row[0].len);
		}
		coverage_add_pass(w, (uint64_t)ch_field_int(&tab.row[1]), (uint64_t)ch_field_int(&tab.row[2]),
				  ch_field_real(&tab.row[3]), host);
	}
	for (size_t b = 0; b < w->nbuckets; b++)
		sums[b][0] = rate[b] * sums[b][1];
	strbuf_free(&last);
	ch_table__free(&tab);
	free(host);
	free(rate);
	return err;
}

/* The fleet's hosts, and what the range's passes cost them. */
static void ch_pass_totals(const struct store_reader *set, uint64_t from_us, uint64_t to_us, struct pass_totals *pt)
{
	struct ch_store *s = ch_store__of(set);
	struct strbuf sql = { 0 };
	struct ch_table t;

	strbuf_addf(&sql, "SELECT arrayStringConcat(arraySort(groupUniqArray(host)), ', '), sum(cpu_us), count(), "
		    "sum(dropped), ifNull(sum(bpf_us), 0), count(bpf_us), sumIf(weight_us, isNotNull(bpf_us)) "
		    "FROM tract.passes WHERE ts_us >= %" PRIu64 " AND ts_us < %" PRIu64, from_us, to_us);
	ch_store__host_filter(s, &sql);
	if (!ch_store__select(s, strbuf_str(&sql), &t) && ch_table__next(&t) == 1) {
		pass_totals__add_fact(pt, "hosts", t.row[0].s ? t.row[0].s : "", t.row[0].len);
		pt->cpu_us = (uint64_t)ch_field_int(&t.row[1]);
		pt->passes = (uint64_t)ch_field_int(&t.row[2]);
		pt->dropped = (uint64_t)ch_field_int(&t.row[3]);
		pt->bpf_us = (uint64_t)ch_field_int(&t.row[4]);
		pt->bpf_passes = (uint64_t)ch_field_int(&t.row[5]);
		pt->bpf_weight_us = (uint64_t)ch_field_int(&t.row[6]);
	}
	ch_table__free(&t);
	strbuf_free(&sql);
}

static int ch_newest_us(const struct store_reader *set, uint64_t *ts_us)
{
	struct ch_store *s = ch_store__of(set);
	struct strbuf sql = { 0 };
	struct ch_table t;
	int err;

	strbuf_add(&sql, "SELECT max(ts_us), count() FROM tract.passes WHERE 1");
	ch_store__host_filter(s, &sql);
	err = ch_store__select(s, strbuf_str(&sql), &t);
	strbuf_free(&sql);
	*ts_us = 0;
	if (!err && ch_table__next(&t) == 1 && ch_field_int(&t.row[1]) > 0)
		*ts_us = (uint64_t)ch_field_int(&t.row[0]);
	ch_table__free(&t);
	return err;
}

const struct read_backend read_clickhouse = {
	.aggregate = ch_aggregate,
	.run_sql = ch_run_sql,
	.coverage = ch_coverage,
	.pass_totals = ch_pass_totals,
	.newest_us = ch_newest_us,
};
