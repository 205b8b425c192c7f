// SPDX-License-Identifier: GPL-2.0-only
#include <stdio.h>
#include <string.h>
#include "flame_select.h"
#include "render.h"
#include "timespec.h"

/* The columns a path is made of, in order from the root. */
static const char flame_group[] = "pcomm,ustack,kstack,state,syscall,file";
/* the profile's ticks have stacks only */
static const char profile_group[] = "pcomm,ustack,kstack";
enum { COL_PCOMM, COL_USTACK, COL_KSTACK, COL_STATE, COL_SYSCALL, COL_FILE, NCOLS };

/* Appends the frames of a folded stack ("outer;...;inner") of one kind. */
static size_t add_stack(struct flame_frame *fr, size_t n, size_t max, enum flame_kind kind,
			const struct agg_value *v)
{
	const char *s = v->text, *end = v->text + v->len;

	if (v->type != SQLITE_TEXT || !v->len)
		return n;
	while (s < end && n < max) {
		const char *semi = memchr(s, ';', (size_t)(end - s));
		size_t len = semi ? (size_t)(semi - s) : (size_t)(end - s);

		if (len)
			fr[n++] = (struct flame_frame){ .kind = kind, .name = s, .len = len };
		s += len + 1;
	}
	return n;
}

static size_t add_one(struct flame_frame *fr, size_t n, enum flame_kind kind, const struct agg_value *v)
{
	if (v->type == SQLITE_NULL || (v->type == SQLITE_TEXT && !v->len))
		return n;
	fr[n] = (struct flame_frame){ .kind = kind, .name = v->type == SQLITE_TEXT ? v->text : "?",
				      .len = v->type == SQLITE_TEXT ? v->len : 1 };
	return n + 1;
}

/* The selection's paths into a flame graph. */
static struct flame *build(const struct agg_result *res)
{
	enum { MAX_FRAMES = 2 * 128 + 8 };
	struct flame *f = flame__new();
	struct flame_frame fr[MAX_FRAMES];
	struct agg_value vals[AGG_MAX_GROUP];

	for (size_t i = 0; i < res->nrows; i++) {
		size_t n = 0;

		agg_result__values(res, &res->rows[i], vals);
		if (vals[COL_PCOMM].type == SQLITE_TEXT && vals[COL_PCOMM].len)
			n = add_one(fr, n, FLAME_PROCESS, &vals[COL_PCOMM]);
		else
			fr[n++] = (struct flame_frame){ .kind = FLAME_PROCESS, .name = "[unknown]", .len = 9 };
		n = add_stack(fr, n, MAX_FRAMES - 3, FLAME_USER, &vals[COL_USTACK]);
		n = add_stack(fr, n, MAX_FRAMES - 3, FLAME_KERNEL, &vals[COL_KSTACK]);
		if (res->ncols == NCOLS) {
			n = add_one(fr, n, FLAME_STATE, &vals[COL_STATE]);
			n = add_one(fr, n, FLAME_SYSCALL, &vals[COL_SYSCALL]);
			n = add_one(fr, n, FLAME_FILE, &vals[COL_FILE]);
		}
		flame__add(f, fr, n, res->rows[i].measure);
	}
	return f;
}


int flame__select(const struct store_reader *set, const struct flame_selection *sel, struct flame **out,
		  struct agg_result *res)
{
	struct agg_query q = { .cat = sel->profile ? &catalog_profile : &catalog_samples,
			       .group = sel->profile ? profile_group : flame_group, .filter = sel->filter,
			       .from_us = sel->from_us, .to_us = sel->to_us, .strict = sel->strict };
	int err = aggregate(set, &q, res);

	*out = NULL;
	if (err)
		return err;
	/* children in the order of their values: the same picture from any store */
	agg_result__sort_by_values(res);
	if (res->total)
		*out = build(res);
	return 0;
}

void flame__describe(const struct agg_result *res, int profile, char *buf, size_t len)
{
	char from[64], to[64];

	timespec_format(res->first_us, from, sizeof(from));
	timespec_format(res->last_us, to, sizeof(to));
	if (profile)
		snprintf(buf, len, "%s .. %s %s, %llu ticks", from, to, timespec_zone(res->last_us),
			 (unsigned long long)res->total);
	else
		snprintf(buf, len, "%s .. %s %s, %.2f average active threads, %llu passes", from, to,
			 timespec_zone(res->last_us), render_avg(res, res->total), (unsigned long long)res->passes);
}
