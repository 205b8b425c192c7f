// SPDX-License-Identifier: GPL-2.0-only
#include <string.h>
#include "columns.h"
#include "schema.h"
#include "syscalls.h"

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
	NULL,
};

/* The value macros of sample_columns.def: each sets *v from p and r. */
#define VALUE_UINT(x) (v->kind = VAL_UINT, v->u = (uint64_t)(x))
#define VALUE_OPT_UINT(valid, x) ((valid) ? VALUE_UINT(x) : (v->kind = VAL_NULL, 0))
#define VALUE_OPT_INT(valid, x) ((valid) ? (v->kind = VAL_INT, v->i = (int64_t)(x), 0) : (v->kind = VAL_NULL, 0))
#define VALUE_TEXT(x) text_value(v, (x), 0)
#define VALUE_NAME(a) text_value(v, (a), sizeof(a))
#define VALUE_SYSCALL(r) ((r)->syscall_nr >= 0 ? \
	VALUE_TEXT(syscall_name_or_number((r)->syscall_nr, v->buf, sizeof(v->buf))) : (v->kind = VAL_NULL, 0))

/* s, or NULL; with max, at most max bytes: names the kernel keeps need no NUL */
static int text_value(struct column_value *v, const char *s, size_t max)
{
	v->kind = s ? VAL_TEXT : VAL_NULL;
	v->s = s;
	v->len = !s ? 0 : max ? strnlen(s, max) : strlen(s);
	return 0;
}

#define COLUMN(name, where, type, sql, joins, base, value, doc)				\
	static void value_##name(const struct pass *p, const struct sample *r, struct column_value *v) \
	{										\
		(void)p, (void)r;							\
		(void)(value);								\
	}
#include "sample_columns.def"
#undef COLUMN

const struct sample_column sample_columns[NR_SAMPLE_COLUMNS] = {
#define COLUMN(name, where, type, sql, joins, base, value, doc) \
	{ #name, where, type, sql, joins, base, doc, value_##name },
#include "sample_columns.def"
#undef COLUMN
};

const char *column_stored_name(const struct sample_column *c)
{
	const char *dot = strchr(c->sql, '.');

	return dot ? dot + 1 : c->sql;
}
