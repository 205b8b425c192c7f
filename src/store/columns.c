// SPDX-License-Identifier: GPL-2.0-only
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "columns.h"
#include "value_names.h"
#include "syscalls.h"
#include "util.h"

const char *const sample_join_sql[] = {
	" JOIN threads t ON t.id = f.thread",
	" JOIN states st ON st.id = f.state",
	" LEFT JOIN calls c ON c.id = f.call",
	" LEFT JOIN syscalls sc ON sc.nr = c.nr",
	" LEFT JOIN cgroups cg ON cg.id = t.cgroup",
	" LEFT JOIN files fl ON fl.id = f.file",
	" LEFT JOIN wakers wk ON wk.id = f.waker",
	" LEFT JOIN sample_io io ON io.fact = f.rowid",
	" LEFT JOIN stacks ks ON ks.id = f.kstack",
	" LEFT JOIN stacks us ON us.id = f.ustack",
	" LEFT JOIN traces tr ON tr.id = f.trace",
	" LEFT JOIN sample_blockers bk ON bk.fact = f.rowid",
	/* a thread's waits never overlap: the one begun last at or before the pass, if it had not ended */
	" LEFT JOIN temp.wait_ends_by_thread we ON we.rowid = (SELECT w.rowid FROM temp.wait_ends_by_thread w"
	" WHERE w.tid = t.tid AND w.start_us <= p.ts_us ORDER BY w.start_us DESC LIMIT 1) AND p.ts_us <= we.end_us",
	NULL,
};

/*
 * What a join needs made in a store file before a query uses it.  A wait's
 * samples find it by their time, a range no automatic index serves (it
 * would scan all of a thread's waits for each sample): the waits with
 * their enders joined (wait_ends is a view since schema 17), indexed by
 * thread and start, in memory, made only when a query asks.
 */
_Static_assert(JOIN_WAIT_END == 1 << 12 && ARRAY_SIZE(sample_join_sql) == 14, "the joins' bits");
const char *const sample_join_prepare[13] = {
	[12] = "CREATE TEMP TABLE IF NOT EXISTS wait_ends_by_thread AS"
	       " SELECT tid, start_us, end_us, ender_tid, ender_tgid, ender, wait_class FROM main.wait_ends;"
	       "CREATE INDEX IF NOT EXISTS temp.wait_ends_by_thread_start ON wait_ends_by_thread (tid, start_us);",
};

/* s, or NULL; with max, at most max bytes: names the kernel keeps need no NUL */
void column_text(struct column_value *v, const char *s, size_t max)
{
	v->kind = s ? VAL_TEXT : VAL_NULL;
	v->s = s;
	v->len = !s ? 0 : max ? strnlen(s, max) : strlen(s);
}

/* Bytes as lower-case hex, the way a trace id is printed, into v->buf. */
static void hex_value(struct column_value *v, int valid, const uint8_t *b, size_t n)
{
	static const char digits[] = "0123456789abcdef";

	v->kind = valid ? VAL_TEXT : VAL_NULL;
	for (size_t i = 0; valid && i < n && 2 * i + 1 < sizeof(v->buf); i++) {
		v->buf[2 * i] = digits[b[i] >> 4];
		v->buf[2 * i + 1] = digits[b[i] & 15];
	}
	v->s = v->buf;
	v->len = valid ? 2 * n : 0;
}

void column_uint(struct column_value *v, int valid, uint64_t u)
{
	v->kind = valid ? VAL_UINT : VAL_NULL;
	v->u = u;
}

/* The kinds of sample_columns.def, read from a sample into *v. */
#define V_PASS(f) column_uint(v, 1, p->f)
#define V_UINT(f) column_uint(v, 1, r->f)
#define V_NAME(f) column_text(v, r->f, sizeof(r->f))
#define V_TEXT(f) column_text(v, r->f, 0)
#define V_STATE(f) column_text(v, state_name(r->f), 0)
#define V_SYSCALL(f) column_text(v, r->f >= 0 ? syscall_name_or_number(r->f, v->buf, sizeof(v->buf)) : NULL, 0)
#define V_FLAGGED(flag, f) column_uint(v, r->flags & (flag), r->f)
#define V_SYSCALL_FLAGGED(flag, f) column_uint(v, r->syscall_nr >= 0 && (r->flags & (flag)), r->f)
#define V_STACK(f) column_uint(v, r->f != NULL, r->f ? r->f->hash : 0)
#define V_ARG(n) (v->kind = r->syscall_nr >= 0 ? VAL_INT : VAL_NULL, v->i = (int64_t)r->sc_args[n])
#define V_NONZERO(f) column_uint(v, r->f != 0, r->f)
#define V_WITH(has, f) column_uint(v, r->has, r->f)
/* a block request's, which io_op says the sample has (io_dev alone may be its file's device) */
#define V_IO_TEXT(f) column_text(v, r->io_op ? r->f : NULL, 0)
#define V_IO_UINT(f) column_uint(v, r->io_op != NULL, r->f)
#define V_IO_NONZERO(f) column_uint(v, r->io_op && r->f, r->f)
#define V_HEX(flag, f) hex_value(v, r->flags & (flag), r->f, sizeof(r->f))
#define V_BLOCKER(f) V_WITH(blocker_tid, f)

#define COLUMN(name, where, type, sql, joins, base, value, doc)				\
	static void value_##name(const struct pass *p, const struct sample *r, struct column_value *v) \
	{										\
		(void)p, (void)r;							\
		value;									\
	}
#include "sample_columns.def"
#undef COLUMN
#include "value_kinds_end.h"

/* Eight bytes into a hash: a multiply and a shift, as a row's values come. */
static inline uint64_t mix(uint64_t h, uint64_t x)
{
	h = (h ^ x) * 0x9e3779b97f4a7c15ULL;
	return h ^ (h >> 29);
}

/*
 * The kinds of sample_columns.def again, as what tells two samples' values
 * apart: whether there is one, and the number or the bytes it is made of
 * (a state's or a syscall's number, not its name), with no value made.
 */
#define V_PASS(f) (valid = 0)
#define V_UINT(f) (u = r->f)
#define V_NAME(f) (s = r->f, len = strnlen(r->f, sizeof(r->f)))
#define V_TEXT(f) (valid = r->f != NULL, s = r->f, len = s ? strlen(s) : 0)
#define V_STATE(f) (u = (uint64_t)r->f)
#define V_SYSCALL(f) (valid = r->f >= 0, u = (uint64_t)r->f)
#define V_FLAGGED(flag, f) (valid = !!(r->flags & (flag)), u = r->f)
#define V_SYSCALL_FLAGGED(flag, f) (valid = r->syscall_nr >= 0 && (r->flags & (flag)), u = r->f)
#define V_STACK(f) (valid = r->f != NULL, u = r->f ? r->f->hash : 0)
#define V_ARG(n) (valid = r->syscall_nr >= 0, u = r->sc_args[n])
#define V_NONZERO(f) (valid = r->f != 0, u = r->f)
#define V_WITH(has, f) (valid = !!r->has, u = r->f)
#define V_IO_TEXT(f) (valid = r->io_op && r->f, s = valid ? r->f : NULL, len = s ? strlen(s) : 0)
#define V_IO_UINT(f) (valid = r->io_op != NULL, u = r->f)
#define V_IO_NONZERO(f) (valid = r->io_op && r->f, u = r->f)
#define V_HEX(flag, f) (valid = !!(r->flags & (flag)), s = (const char *)r->f, len = sizeof(r->f))
#define V_BLOCKER(f) V_WITH(blocker_tid, f)

uint64_t column_mix_sample(const struct sample *r, uint64_t h)
{
	const char *s;
	uint64_t u;
	size_t len;
	int valid;

#define COLUMN(name, where, type, sql, joins, base, value, doc)					\
	valid = 1, s = NULL, u = 0, len = 0;							\
	value;											\
	if (where != PASS) {									\
		h = mix(h, (uint64_t)valid);							\
		/* a time so far: whether it is known, not how much */				\
		if (valid && __builtin_strncmp(sql, COARSE_US_OPEN, sizeof(COARSE_US_OPEN) - 1))	\
			h = s ? hash_words(s, len, h) : mix(h, u);					\
	}
#include "sample_columns.def"
#undef COLUMN
	return h;
}
#include "value_kinds_end.h"

int column_parse_u64(const struct csv_value *in, uint64_t *u)
{
	char *end;

	errno = 0;
	*u = strtoull(in->s, &end, 10);
	return in->len && *end == '\0' && !errno && in->s[0] != '-' ? 0 : -EINVAL;
}

static int parse_i64(const struct csv_value *in, int64_t *i)
{
	char *end;

	errno = 0;
	*i = strtoll(in->s, &end, 10);
	return in->len && *end == '\0' && !errno ? 0 : -EINVAL;
}

static int parse_state(const struct csv_value *in, int32_t *state)
{
	for (int i = 0; i < TRACT_STATE__COUNT; i++)
		if (!strcmp(in->s, state_name(i))) {
			*state = i;
			return 0;
		}
	return -EINVAL;
}

static int parse_syscall(const struct csv_value *in, struct sample *r)
{
	int nr = syscall_number(in->s), n = 0;

	if (nr < 0 && (sscanf(in->s, "syscall_%d%n", &nr, &n) != 1 || (size_t)n != in->len || nr < 0))
		return -EINVAL;
	r->syscall_nr = nr;
	r->flags |= TRACT_SF_IN_SYSCALL;
	return 0;
}

static int parse_hex(const struct csv_value *in, uint8_t *out, size_t n)
{
	if (in->len != 2 * n)
		return -EINVAL;
	for (size_t i = 0; i < 2 * n; i++) {
		char c = in->s[i];
		int d = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;

		if (d < 0)
			return -EINVAL;
		out[i / 2] = (uint8_t)(i % 2 ? out[i / 2] | d : d << 4);
	}
	return 0;
}

int column_parse_name(const struct csv_value *in, char *name, size_t cap)
{
	memset(name, 0, cap);
	memcpy(name, in->s, in->len < cap ? in->len : cap);
	return in->len <= cap ? 0 : -EINVAL;
}

/* The kinds again, set in a sample from text: a NULL leaves the field unset. */
#define U64(dst) ({ uint64_t u_; int e_ = column_parse_u64(in, &u_); if (!e_) dst = u_; e_; })
#define V_PASS(f) 0
#define V_UINT(f) U64(r->f)
#define V_NAME(f) column_parse_name(in, r->f, sizeof(r->f))
#define V_TEXT(f) (r->f = cr->keep(cr->arg, in->s, in->len), 0)
#define V_STATE(f) parse_state(in, &r->f)
#define V_SYSCALL(f) parse_syscall(in, r)
#define V_FLAGGED(flag, f) (r->flags |= (flag), U64(r->f))
#define V_SYSCALL_FLAGGED(flag, f) V_FLAGGED(flag, f)
#define V_STACK(f) ({ uint64_t h_; int e_ = column_parse_u64(in, &h_); \
		      e_ ? e_ : (r->f = cr->stack(cr->arg, h_)) ? 0 : -ENOENT; })
#define V_ARG(n) ({ int64_t i_; int e_ = parse_i64(in, &i_); if (!e_) r->sc_args[n] = (uint64_t)i_; e_; })
#define V_NONZERO(f) U64(r->f)
#define V_WITH(has, f) (r->has = 1, U64(r->f))
#define V_IO_TEXT(f) V_TEXT(f)
#define V_IO_UINT(f) U64(r->f)
#define V_IO_NONZERO(f) U64(r->f)
#define V_HEX(flag, f) (r->flags |= (flag), parse_hex(in, r->f, sizeof(r->f)))
#define V_BLOCKER(f) V_NONZERO(f)

#define COLUMN(name, where, type, sql, joins, base, value, doc)				\
	static int set_##name(struct sample *r, const struct csv_value *in, const struct column_reader *cr) \
	{										\
		(void)r, (void)cr;							\
		return in->null ? 0 : (value);						\
	}
#include "sample_columns.def"
#undef COLUMN

const struct sample_column sample_columns[NR_SAMPLE_COLUMNS] = {
#define COLUMN(name, where, type, sql, joins, base, value, doc) \
	{ #name, where, type, sql, joins, base, doc, value_##name, set_##name },
#include "sample_columns.def"
#undef COLUMN
};

int column_coarse_us(const struct sample_column *c)
{
	/* asked for every column of every row written: the first byte rules most out */
	return c->sql[0] == COARSE_US_OPEN[0] && !strncmp(c->sql, COARSE_US_OPEN, strlen(COARSE_US_OPEN));
}

int64_t coarse_us_stored(uint64_t us)
{
	/* from 8389000 on, not 2^23: whole milliseconds above every time kept as it is */
	return us < 8389000 ? (int64_t)us : -(int64_t)(us / 1000);
}

int64_t coarse_us_read(int64_t stored)
{
	return stored < 0 ? -1000 * stored : stored;
}

const char *column_stored_name(const struct sample_column *c)
{
	const char *dot = strchr(c->sql, '.');

	/* a coarse time is stored under its own name (COARSE_US) */
	return column_coarse_us(c) ? c->name : dot ? dot + 1 : c->sql;
}
