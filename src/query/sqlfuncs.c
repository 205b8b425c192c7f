// SPDX-License-Identifier: GPL-2.0-only
/*
 * SQL functions for queries over a store.  SQLite has no regexp() of its own,
 * and grouping by "the same thread pool" or "the same wait" needs names
 * folded in ways SQL's string functions cannot express.
 */
#include <errno.h>
#include <math.h>
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "activity.h"
#include "ended_waits.h"
#include "fact_activity.h"
#include "value_names.h"
#include "sqlfuncs.h"
#include "tract/abi.h"
#include "util.h"

static void free_regex(void *p)
{
	regfree(p);
	free(p);
}

/* value REGEXP pattern calls regexp(pattern, value). */
static void sql_regexp(sqlite3_context *ctx, int argc, sqlite3_value **argv)
{
	regex_t *re = sqlite3_get_auxdata(ctx, 0);
	int cached = re != NULL, rc;
	const char *value;
	char msg[256];

	(void)argc;
	if (sqlite3_value_type(argv[0]) == SQLITE_NULL || sqlite3_value_type(argv[1]) == SQLITE_NULL)
		return;
	if (!re) {
		const char *pattern = (const char *)sqlite3_value_text(argv[0]);

		re = malloc(sizeof(*re));
		if (!pattern || !re) {
			free(re);
			sqlite3_result_error_nomem(ctx);
			return;
		}
		/* the same flags as the filter compiler's check in expr.c */
		rc = regcomp(re, pattern, REG_EXTENDED | REG_NOSUB);
		if (rc) {
			int n = snprintf(msg, sizeof(msg), "invalid regular expression: ");

			regerror(rc, re, msg + n, sizeof(msg) - n);
			free(re);
			sqlite3_result_error(ctx, msg, -1);
			return;
		}
	}
	value = (const char *)sqlite3_value_text(argv[1]);
	rc = value ? regexec(re, value, 0, NULL, 0) : REG_ESPACE;
	if (rc == 0 || rc == REG_NOMATCH) {
		sqlite3_result_int(ctx, rc == 0);
	} else {
		regerror(rc, re, msg, sizeof(msg));
		sqlite3_result_error(ctx, msg, -1);
	}
	/* last: SQLite may free the regex inside this call when it cannot keep it */
	if (!cached)
		sqlite3_set_auxdata(ctx, 0, re, free_regex);
}

/* The value's text, or NULL for SQL NULL and when out of memory (the result then says so). */
static const char *value_text(sqlite3_context *ctx, sqlite3_value *v, size_t *len)
{
	const char *s;

	if (sqlite3_value_type(v) == SQLITE_NULL)
		return NULL;
	s = (const char *)sqlite3_value_text(v);
	if (!s) {
		sqlite3_result_error_nomem(ctx);
		return NULL;
	}
	*len = sqlite3_value_bytes(v);
	return s;
}

static int is_digit(char c)
{
	return c >= '0' && c <= '9';
}

/* "kworker/1:2" and "kworker/3:0" are one pool: runs of digits become '*'. */
static void sql_fold_digits(sqlite3_context *ctx, int argc, sqlite3_value **argv)
{
	const char *s;
	size_t n, o = 0;
	char *out;

	(void)argc;
	s = value_text(ctx, argv[0], &n);
	if (!s)
		return;
	out = sqlite3_malloc64(n + 1);
	if (!out) {
		sqlite3_result_error_nomem(ctx);
		return;
	}
	/*
	 * A kernel worker's name marks whether it runs its workqueue now
	 * (kworker/u8:3+ext4) or ran it last (kworker/u8:3-ext4): one worker, one group.
	 */
	int kworker = n > 8 && !memcmp(s, "kworker/", 8), marked = 0;

	for (size_t i = 0; i < n;) {
		if (kworker && !marked && (s[i] == '+' || s[i] == '-')) {
			out[o++] = '-';
			marked = 1;
			i++;
			continue;
		}
		if (!is_digit(s[i])) {
			out[o++] = s[i++];
			continue;
		}
		out[o++] = '*';
		while (i < n && is_digit(s[i]))
			i++;
	}
	sqlite3_result_text64(ctx, out, o, sqlite3_free, SQLITE_UTF8);
}

/* dirname(3) of a path; sockets, pipes and the like are their own group, so pass through. */
static void sql_dir_name(sqlite3_context *ctx, int argc, sqlite3_value **argv)
{
	size_t end;
	const char *s = value_text(ctx, argv[0], &end);

	(void)argc;
	if (!s)
		return;
	if (s[0] != '/') {
		sqlite3_result_value(ctx, argv[0]);
		return;
	}
	while (end > 1 && s[end - 1] == '/')
		end--;
	while (end > 0 && s[end - 1] != '/')
		end--;
	while (end > 1 && s[end - 1] == '/')
		end--;
	sqlite3_result_text64(ctx, s, end, SQLITE_TRANSIENT, SQLITE_UTF8);
}

static void sql_file_ext(sqlite3_context *ctx, int argc, sqlite3_value **argv)
{
	static const char deleted[] = " (deleted)";
	const char *base, *dot;
	size_t len;
	const char *s = value_text(ctx, argv[0], &len);

	(void)argc;
	/* sockets and pipes have no extension, though "tcp 10.0.0.1:5->..." has dots */
	if (!s || s[0] != '/')
		return;
	/* d_path() marks an unlinked file's name so; it is not part of the extension */
	if (len >= sizeof(deleted) - 1 && !memcmp(s + len - (sizeof(deleted) - 1), deleted, sizeof(deleted) - 1))
		len -= sizeof(deleted) - 1;
	base = memrchr(s, '/', len) + 1;
	dot = memrchr(base, '.', s + len - base);
	/* a leading dot hides a file (.bashrc); it does not start an extension */
	if (!dot || dot == base || dot + 1 == s + len)
		return;
	sqlite3_result_text64(ctx, dot + 1, s + len - dot - 1, SQLITE_TRANSIENT, SQLITE_UTF8);
}

/*
 * Frames every blocked thread passes through on its way off the CPU; the
 * frame below them says what it waits for.  Matched on the name before any
 * '.', so compiler clones (schedule_timeout.constprop.0) match too.
 */
static const char *const scheduler_frames[] = {
	"__schedule", "schedule", "io_schedule", "__cond_resched", "schedule_preempt_disabled",
};
static const char *const scheduler_prefixes[] = {
	"schedule_timeout", "schedule_hrtimeout", "io_schedule_timeout", "preempt_schedule",
};

static int is_scheduler_frame(const char *name, size_t len)
{
	const char *dot = memchr(name, '.', len);

	if (dot)
		len = dot - name;
	for (size_t i = 0; i < ARRAY_SIZE(scheduler_frames); i++)
		if (strlen(scheduler_frames[i]) == len && !memcmp(name, scheduler_frames[i], len))
			return 1;
	for (size_t i = 0; i < ARRAY_SIZE(scheduler_prefixes); i++) {
		size_t n = strlen(scheduler_prefixes[i]);

		if (n <= len && !memcmp(name, scheduler_prefixes[i], n))
			return 1;
	}
	return 0;
}

/*
 * Frames innermost first, from either layout: one frame a line, innermost
 * first, or the store's folded "outer;...;inner", read backwards.
 */
struct frame_iter {
	const char *s;
	size_t n, pos;
	int folded, done;
};

static int next_frame(struct frame_iter *it, const char **frame, size_t *len)
{
	size_t start, end;

	if (it->done)
		return 0;
	if (!it->folded) {
		start = it->pos;
		for (end = start; end < it->n && it->s[end] != '\n'; end++)
			;
		it->pos = end + 1;
		it->done = end >= it->n;
	} else {
		end = it->pos;
		for (start = end; start > 0 && it->s[start - 1] != ';'; start--)
			;
		it->pos = start ? start - 1 : 0;
		it->done = start == 0;
	}
	*frame = it->s + start;
	*len = end - start;
	return 1;
}

/* "func+0x1a/0x80 [mod]" -> "func" */
static const char *frame_name(const char *frame, size_t len, size_t *name_len)
{
	size_t i = 0, n;

	while (i < len && (frame[i] == ' ' || frame[i] == '\t'))
		i++;
	for (n = 0; i + n < len && !strchr("+ \t\r", frame[i + n]); n++)
		;
	*name_len = n;
	return frame + i;
}

static void sql_top_frame(sqlite3_context *ctx, int argc, sqlite3_value **argv)
{
	struct frame_iter it = { 0 };
	const char *frame, *name, *first = NULL;
	size_t len, name_len, first_len = 0;

	(void)argc;
	it.s = value_text(ctx, argv[0], &it.n);
	if (!it.s)
		return;
	it.folded = !memchr(it.s, '\n', it.n);
	it.pos = it.folded ? it.n : 0;
	while (next_frame(&it, &frame, &len)) {
		name = frame_name(frame, len, &name_len);
		if (!name_len)
			continue;
		if (!first) {
			first = name;
			first_len = name_len;
		}
		if (!is_scheduler_frame(name, name_len)) {
			sqlite3_result_text64(ctx, name, name_len, SQLITE_TRANSIENT, SQLITE_UTF8);
			return;
		}
	}
	if (first)
		sqlite3_result_text64(ctx, first, first_len, SQLITE_TRANSIENT, SQLITE_UTF8);
}

/* Histogram bucket: floor(log2(n)), so bucket b holds [2^b, 2^(b+1)). */
static void sql_log2_bucket(sqlite3_context *ctx, int argc, sqlite3_value **argv)
{
	int exp;

	(void)argc;
	switch (sqlite3_value_numeric_type(argv[0])) {
	case SQLITE_INTEGER: {
		sqlite3_int64 v = sqlite3_value_int64(argv[0]);

		sqlite3_result_int(ctx, v > 0 ? 63 - __builtin_clzll(v) : 0);
		break;
	}
	case SQLITE_FLOAT: {
		double v = sqlite3_value_double(argv[0]);

		if (isnan(v) || isinf(v))
			break;
		/* frexp is exact where log2() may round 2^k - tiny up to k */
		frexp(v, &exp);
		sqlite3_result_int(ctx, v > 0 ? exp - 1 : 0);
		break;
	}
	default:
		/* NULL, or text that is not a number */
		break;
	}
}

static int64_t us_or_unknown(sqlite3_value *v)
{
	return sqlite3_value_type(v) == SQLITE_NULL ? -1 : sqlite3_value_int64(v);
}

/*
 * activity(state, syscall, sc_us, state_us, file, arg1, arg2, wait_class_id,
 * ender_class): see activity.h.  The class of what ended the wait, where it
 * has ended, before the class its site had when it was sampled.
 */
static void sql_activity(sqlite3_context *ctx, int argc, sqlite3_value **argv)
{
	const char *state, *syscall, *file, *ended;
	const char *what;
	size_t len;
	int wait_class;

	(void)argc;
	state = value_text(ctx, argv[0], &len);
	syscall = value_text(ctx, argv[1], &len);
	file = value_text(ctx, argv[4], &len);
	ended = value_text(ctx, argv[8], &len);
	wait_class = ended ? wait_class_id(ended) : TRACT_WAIT_UNKNOWN;
	if (wait_class == TRACT_WAIT_UNKNOWN)
		wait_class = (int)sqlite3_value_int64(argv[7]);
	what = activity_of(state, syscall, us_or_unknown(argv[2]), us_or_unknown(argv[3]), file,
			   sqlite3_value_int64(argv[5]), sqlite3_value_int64(argv[6]), wait_class);
	if (what)
		sqlite3_result_text(ctx, what, -1, SQLITE_STATIC);
}

/* wait_class_name(wait_class_id): "blocked", "sleeping", "input" or NULL */
static void sql_wait_class_name(sqlite3_context *ctx, int argc, sqlite3_value **argv)
{
	const char *name;

	(void)argc;
	if (sqlite3_value_type(argv[0]) == SQLITE_NULL)
		return;
	name = wait_class_name((int)sqlite3_value_int64(argv[0]));
	if (name)
		sqlite3_result_text(ctx, name, -1, SQLITE_STATIC);
}

int sqlfuncs_register(sqlite3 *db)
{
	static const struct {
		const char *name;
		int nargs;
		void (*func)(sqlite3_context *, int, sqlite3_value **);
	} funcs[] = {
		{ "regexp", 2, sql_regexp },
		{ "fold_digits", 1, sql_fold_digits },
		{ "dir_name", 1, sql_dir_name },
		{ "file_ext", 1, sql_file_ext },
		{ "top_frame", 1, sql_top_frame },
		{ "log2_bucket", 1, sql_log2_bucket },
		{ "activity", 9, sql_activity },
		{ "wait_class_name", 1, sql_wait_class_name },
	};
	struct ended_waits *e;
	int rc;

	for (size_t i = 0; i < ARRAY_SIZE(funcs); i++) {
		rc = sqlite3_create_function_v2(db, funcs[i].name, funcs[i].nargs,
						SQLITE_UTF8 | SQLITE_DETERMINISTIC | SQLITE_INNOCUOUS, NULL, funcs[i].func,
						NULL, NULL, NULL);
		if (rc != SQLITE_OK)
			return rc == SQLITE_NOMEM ? -ENOMEM : -EINVAL;
	}
	/* the ended waits of the file, read once for both functions that ask for them */
	e = ended_waits__new();
	if (!e)
		return -ENOMEM;
	rc = ended_waits_register(db, e) ?: fact_activity_register(db, e);
	ended_waits__release(e);
	return rc;
}
