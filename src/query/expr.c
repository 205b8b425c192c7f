// SPDX-License-Identifier: GPL-2.0-only
/*
 * The filter compiler: a recursive descent parser that writes SQL as it goes.
 * Only fixed SQL words, '?' and the column list's SQL reach the output, so no
 * filter can change the shape of the query it is put in.
 */
#include <errno.h>
#include <locale.h>
#include <regex.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include "expr.h"
#include "strbuf.h"
#include "util.h"

/*
 * Bounds on hostile input, and on what SQLite will take.  Its parser has a
 * fixed stack of 100 entries (YYSTACKDEPTH in 3.40), and the worst shape,
 * "a or b and not (...)" nested, uses about four per level; 16 levels of '('
 * and 'not' leave room for the query around the filter.  A long flat chain of
 * 'or' costs no parser stack but one level of SQLite's expression tree each,
 * limited to 1000 (SQLITE_MAX_EXPR_DEPTH).
 */
#define MAX_DEPTH 16
#define MAX_COMPARISONS 256
#define MAX_PARAMS 1000

enum token_kind { TOK_END, TOK_WORD, TOK_STRING, TOK_LPAREN, TOK_RPAREN, TOK_COMMA, TOK_OP };

enum op { OP_EQ, OP_NE, OP_LT, OP_LE, OP_GT, OP_GE, OP_MATCH, OP_NOMATCH };

/*
 * The SQL a dialect writes around a column: "col OP value" is before, col,
 * after.  Each comes out true or false, never NULL, for a NULL column too
 * (doc/filter.md says why): SQLite has IS NOT and IS NOT TRUE for that,
 * ClickHouse ifNull().
 */
struct expr_dialect {
	struct {
		const char *before, *after;
	} op[8], null_test[2];		/* null_test: [0] plain, [1] negated */
	struct {
		const char *before, *open, *close;	/* before col, col, open, the values, close */
	} in[2];
	/* between: before col low [col] high, col again where both bounds are compared apart */
	struct {
		const char *before, *low, *high;
		int col_twice;
	} between[2];
	const char *not_before, *not_after;
};

const struct expr_dialect expr_sqlite = {
	.op = {
		[OP_EQ] = { "(", " = ?)" },
		[OP_NE] = { "(", " IS NOT ?)" },
		[OP_LT] = { "(", " < ?)" },
		[OP_LE] = { "(", " <= ?)" },
		[OP_GT] = { "(", " > ?)" },
		[OP_GE] = { "(", " >= ?)" },
		[OP_MATCH] = { "(", " REGEXP ?)" },
		[OP_NOMATCH] = { "((", " REGEXP ?) IS NOT TRUE)" },
	},
	.in = { { "(", " IN (", "))" }, { "((", " IN (", ")) IS NOT TRUE)" } },
	.between = { { "(", " BETWEEN ? AND ?)", "", 0 }, { "((", " BETWEEN ? AND ?) IS NOT TRUE)", "", 0 } },
	.null_test = { { "(", " IS NULL)" }, { "(", " IS NOT NULL)" } },
	.not_before = "(", .not_after = " IS NOT TRUE)",
};

/* ClickHouse: a comparison with NULL is NULL, which ifNull() makes false; match() is RE2. */
const struct expr_dialect expr_clickhouse = {
	.op = {
		[OP_EQ] = { "ifNull(", " = ?, 0)" },
		[OP_NE] = { "(NOT ifNull(", " = ?, 0))" },
		[OP_LT] = { "ifNull(", " < ?, 0)" },
		[OP_LE] = { "ifNull(", " <= ?, 0)" },
		[OP_GT] = { "ifNull(", " > ?, 0)" },
		[OP_GE] = { "ifNull(", " >= ?, 0)" },
		/* match() takes text: an enum or a number is matched as it prints */
		[OP_MATCH] = { "ifNull(match(toString(", "), ?), 0)" },
		[OP_NOMATCH] = { "(NOT ifNull(match(toString(", "), ?), 0))" },
	},
	.in = { { "ifNull(", " IN (", "), 0)" }, { "(NOT ifNull(", " IN (", "), 0))" } },
	/* spelled out as SQL defines it: the same in every ClickHouse version */
	.between = { { "ifNull((", " >= ?) AND (", " <= ?), 0)", 1 },
		     { "(NOT ifNull((", " >= ?) AND (", " <= ?), 0))", 1 } },
	.null_test = { { "isNull(", ")" }, { "isNotNull(", ")" } },
	.not_before = "(NOT ", .not_after = ")",
};

struct token {
	enum token_kind kind;
	size_t pos, len;	/* the token's bytes in the source */
	enum op op;		/* TOK_OP */
	char *text;		/* TOK_STRING: the contents, escapes undone */
};


struct parser {
	const struct expr_dialect *d;
	const char *src;
	const struct expr_column *cols;
	const struct expr_column *col;	/* the column being compared, for its values' type */
	size_t ncols;
	size_t next_pos;	/* first byte after tok */
	struct token tok;	/* the one token of lookahead */
	struct strbuf sql;
	struct expr_param *params;
	size_t nparams, params_cap;
	int depth, comparisons;
	uint64_t used;		/* bit i: cols[i] is named */
	struct expr_error *err;
};

/* Quote source bytes for a message; control bytes are escaped so they cannot drive a terminal. */
static const char *quote_bytes(const char *s, size_t len, char *buf, size_t size)
{
	size_t o = 0, max = 32;

	buf[o++] = '\'';
	for (size_t i = 0; i < len && i < max && o + 8 < size; i++) {
		unsigned char c = s[i];

		if (c >= 0x20 && c < 0x7f)
			buf[o++] = c;
		else
			o += snprintf(buf + o, size - o, "\\x%02x", c);
	}
	if (len > max && o + 8 < size)
		o += snprintf(buf + o, size - o, "...");
	buf[o++] = '\'';
	buf[o] = '\0';
	return buf;
}

static const char *describe(const struct parser *p, const struct token *t, char *buf, size_t size)
{
	if (t->kind == TOK_END)
		return "the end of the filter";
	return quote_bytes(p->src + t->pos, t->len, buf, size);
}

__attribute__((format(printf, 3, 4)))
static int fail(struct parser *p, size_t pos, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (!p->err)
		return -1;
	p->err->pos = pos;
	n = snprintf(p->err->msg, sizeof(p->err->msg), "position %zu: ", pos);
	va_start(ap, fmt);
	vsnprintf(p->err->msg + n, sizeof(p->err->msg) - n, fmt, ap);
	va_end(ap);
	return -1;
}

static int is_word_char(char c)
{
	/* spelled out: isalnum() would follow the locale into bytes above 0x7f */
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
	       (c && strchr("_./:*-", c));
}

static int lex_string(struct parser *p, size_t start)
{
	const char *s = p->src;
	char quote = s[start];
	size_t i = start + 1, o = 0;
	char *text = xcalloc(1, strlen(s + i) + 1);

	for (; s[i] != quote; i++) {
		if (!s[i] || (s[i] == '\\' && !s[i + 1])) {
			free(text);
			return fail(p, start, "unterminated string");
		}
		/* only the quote and backslash are escapes, so "\." reaches a regex as written */
		if (s[i] == '\\' && (s[i + 1] == quote || s[i + 1] == '\\'))
			i++;
		text[o++] = s[i];
	}
	p->tok.kind = TOK_STRING;
	p->tok.text = text;
	p->next_pos = i + 1;
	return 0;
}

static int lex_op(struct parser *p, size_t start)
{
	const char *s = p->src + start;
	struct token *t = &p->tok;

	t->kind = TOK_OP;
	t->len = 1;
	switch (s[0]) {
	case '=':
		t->op = OP_EQ;
		break;
	case '~':
		t->op = OP_MATCH;
		break;
	case '<':
		t->op = s[1] == '=' ? OP_LE : OP_LT;
		break;
	case '>':
		t->op = s[1] == '=' ? OP_GE : OP_GT;
		break;
	case '!':
		if (s[1] != '=' && s[1] != '~')
			return fail(p, start, "expected '!=' or '!~'");
		t->op = s[1] == '=' ? OP_NE : OP_NOMATCH;
		break;
	}
	if (t->op == OP_LE || t->op == OP_GE || t->op == OP_NE || t->op == OP_NOMATCH)
		t->len = 2;
	p->next_pos = start + t->len;
	return 0;
}

/* Read the next token into p->tok. */
static int next(struct parser *p)
{
	const char *s = p->src;
	size_t i = p->next_pos;
	char buf[16];

	free(p->tok.text);
	memset(&p->tok, 0, sizeof(p->tok));
	while (s[i] == ' ' || s[i] == '\t' || s[i] == '\n' || s[i] == '\r')
		i++;
	p->tok.pos = i;
	p->next_pos = i + 1;
	switch (s[i]) {
	case '\0':
		p->tok.kind = TOK_END;
		p->next_pos = i;
		break;
	case '(':
		p->tok.kind = TOK_LPAREN;
		break;
	case ')':
		p->tok.kind = TOK_RPAREN;
		break;
	case ',':
		p->tok.kind = TOK_COMMA;
		break;
	case '"':
	case '\'':
		if (lex_string(p, i))
			return -1;
		break;
	case '=': case '~': case '<': case '>': case '!':
		if (lex_op(p, i))
			return -1;
		break;
	default:
		if (!is_word_char(s[i]))
			return fail(p, i, "unexpected character %s", quote_bytes(s + i, 1, buf, sizeof(buf)));
		p->tok.kind = TOK_WORD;
		while (is_word_char(s[p->next_pos]))
			p->next_pos++;
		break;
	}
	p->tok.len = p->next_pos - i;
	return 0;
}

static int is_keyword(const struct parser *p, const char *kw)
{
	return p->tok.kind == TOK_WORD && p->tok.len == strlen(kw) &&
	       !strncasecmp(p->src + p->tok.pos, kw, p->tok.len);
}

static int is_any_keyword(const struct parser *p)
{
	return is_keyword(p, "and") || is_keyword(p, "or") || is_keyword(p, "not") ||
	       is_keyword(p, "in") || is_keyword(p, "is") || is_keyword(p, "null") ||
	       is_keyword(p, "between");
}

static const struct expr_column *find_column(const struct parser *p)
{
	if (p->tok.kind != TOK_WORD)
		return NULL;
	for (size_t i = 0; i < p->ncols; i++)
		if (strlen(p->cols[i].name) == p->tok.len &&
		    !strncasecmp(p->cols[i].name, p->src + p->tok.pos, p->tok.len))
			return &p->cols[i];
	return NULL;
}

static int unknown_column(struct parser *p)
{
	char name[160], list[320];
	size_t n = 0;

	list[0] = '\0';
	for (size_t i = 0; i < p->ncols; i++) {
		const char *sep = i ? ", " : "";

		/* leave room to end in ", ..." rather than mid-name */
		if (n + strlen(sep) + strlen(p->cols[i].name) + sizeof(", ...") > sizeof(list)) {
			snprintf(list + n, sizeof(list) - n, ", ...");
			break;
		}
		n += snprintf(list + n, sizeof(list) - n, "%s%s", sep, p->cols[i].name);
	}
	return fail(p, p->tok.pos, "unknown column %s (columns: %s)",
		    quote_bytes(p->src + p->tok.pos, p->tok.len, name, sizeof(name)), list);
}

/* "-12" or "3.5" or ".5": the only words that are numbers rather than text. */
static int classify_number(const char *s, size_t len, int *is_decimal)
{
	size_t i = s[0] == '-', digits = 0, dots = 0;

	for (; i < len; i++) {
		if (s[i] >= '0' && s[i] <= '9')
			digits++;
		else if (s[i] == '.')
			dots++;
		else
			return 0;
	}
	*is_decimal = dots == 1;
	return digits && dots <= 1;
}

static int add_param(struct parser *p, struct expr_param param)
{
	if (p->nparams == MAX_PARAMS) {
		if (param.kind == EXPR_PARAM_TEXT)
			free(param.text);
		return fail(p, p->tok.pos, "too many values (at most %d)", MAX_PARAMS);
	}
	ARRAY_GROW(p->params, p->nparams, p->params_cap, 8);
	p->params[p->nparams++] = param;
	return 0;
}

static int number_param(struct parser *p, struct expr_param *param)
{
	char word[64], *end;
	int is_decimal;

	if (!classify_number(p->src + p->tok.pos, p->tok.len, &is_decimal))
		return 0;
	if (p->tok.len >= sizeof(word))
		return fail(p, p->tok.pos, "number too long");
	memcpy(word, p->src + p->tok.pos, p->tok.len);
	word[p->tok.len] = '\0';
	if (is_decimal) {
		/* strtod would follow LC_NUMERIC and read "0.5" as 0 under a decimal comma */
		locale_t c_locale = newlocale(LC_NUMERIC_MASK, "C", (locale_t)0);

		if (!c_locale)
			return fail(p, p->tok.pos, "cannot read number: %s", strerror(errno));
		param->kind = EXPR_PARAM_REAL;
		errno = 0;
		param->r = strtod_l(word, &end, c_locale);
		freelocale(c_locale);
	} else {
		param->kind = EXPR_PARAM_INT;
		errno = 0;
		param->i = strtoll(word, &end, 10);
	}
	if (errno == ERANGE || *end)
		return fail(p, p->tok.pos, "number out of range: %s", word);
	return 1;
}

/*
 * The literal at p->tok as a param: a quoted string is text, a number word a
 * number, another bare word text.  what names the place for messages.
 * Returns 1 with *param set, or -1.
 */
static int literal(struct parser *p, const char *what, int numbers, struct expr_param *param)
{
	const struct token *t = &p->tok;
	char buf[160];
	int rc;

	if (t->kind == TOK_STRING) {
		param->kind = EXPR_PARAM_TEXT;
		param->text = t->text;
		p->tok.text = NULL;
		return 1;
	}
	if (t->kind != TOK_WORD)
		return fail(p, t->pos, "expected %s, found %s", what, describe(p, t, buf, sizeof(buf)));
	if (is_keyword(p, "null"))
		return fail(p, t->pos, "null is not a value: use 'is null' or 'is not null'");
	if (is_any_keyword(p))
		return fail(p, t->pos, "expected %s, found %s", what, describe(p, t, buf, sizeof(buf)));
	/* a column on the right is refused rather than guessed: quote it to mean the text */
	if (find_column(p))
		return fail(p, t->pos, "%s is a column name; quote it to use it as text",
			    describe(p, t, buf, sizeof(buf)));
	if (numbers) {
		rc = number_param(p, param);
		if (rc)
			return rc;
	}
	param->kind = EXPR_PARAM_TEXT;
	param->text = strndup(p->src + t->pos, t->len);
	if (!param->text)
		abort();
	return 1;
}

/* 250us, 10ms, 1.5s, 2m, 1h, or a plain number: microseconds. */
static int duration_us(const char *s, size_t len, double *us)
{
	static const struct { const char *unit; double us; } units[] = {
		{ "us", 1 }, { "ms", 1e3 }, { "s", 1e6 }, { "m", 60e6 }, { "h", 3600e6 },
	};
	char word[64], *end;
	locale_t c_locale;

	/* digits first: strtod() would also take "inf", "nan" and hex floats */
	if (!len || len >= sizeof(word) || !(s[0] == '.' || (s[0] >= '0' && s[0] <= '9')))
		return -1;
	memcpy(word, s, len);
	word[len] = '\0';
	c_locale = newlocale(LC_NUMERIC_MASK, "C", (locale_t)0);
	if (!c_locale)
		return -1;
	*us = strtod_l(word, &end, c_locale);
	freelocale(c_locale);
	if (end == word || *us < 0)
		return -1;
	for (size_t i = 0; *end && i < sizeof(units) / sizeof(units[0]); i++)
		if (!strcmp(end, units[i].unit)) {
			*us *= units[i].us;
			end += strlen(end);
		}
	/* at most a century: what a long long of microseconds holds, with room */
	return *end || !(*us <= 3.2e15) ? -1 : 0;
}

/* A literal as the compared column takes it: numbers for numbers, a unit for times, a known choice. */
static int typed_literal(struct parser *p, const char *what, struct expr_param *param)
{
	const struct expr_column *col = p->col;
	size_t pos = p->tok.pos;
	char buf[160], list[256] = "";
	double us;
	int rc;

	if (!col || col->type == EXPR_TEXT) {
		rc = literal(p, what, 1, param);
		/* a number compared with text: as SQLite's text affinity would make it */
		param->text_column = col != NULL;
		return rc;
	}
	if (col->type == EXPR_INT || col->type == EXPR_DURATION) {
		rc = p->tok.kind == TOK_WORD ? literal(p, what, 1, param) : -2;
		if (rc == 1 && param->kind != EXPR_PARAM_TEXT)
			return 1;
		if (rc == 1 && col->type == EXPR_DURATION && !duration_us(param->text, strlen(param->text), &us)) {
			free(param->text);
			param->kind = EXPR_PARAM_INT;
			param->i = (long long)(us + 0.5);
			return 1;
		}
		if (rc == 1)
			free(param->text);
		if (rc == -1)
			return -1;
		return fail(p, pos, "%s takes %s, found %s", col->name,
			    col->type == EXPR_DURATION ? "microseconds or a duration such as 250us, 10ms or 1.5s" :
							 "a number",
			    describe(p, &p->tok, buf, sizeof(buf)));
	}
	/*
	 * EXPR_CHOICE: any case, stored as the choices spell it.  A bare word
	 * that is one of them is that choice, also where it names a column
	 * too (activity in (cpu, runq, disk)): it cannot mean the column here.
	 */
	if (p->tok.kind == TOK_WORD)
		for (size_t i = 0; col->choices[i]; i++)
			if (strlen(col->choices[i]) == p->tok.len &&
			    !strncasecmp(p->src + p->tok.pos, col->choices[i], p->tok.len)) {
				param->kind = EXPR_PARAM_TEXT;
				param->text = xstrdup(col->choices[i]);
				return 1;
			}
	if (literal(p, what, 0, param) < 0)
		return -1;
	for (size_t i = 0; col->choices[i]; i++)
		if (!strcasecmp(param->text, col->choices[i])) {
			free(param->text);
			param->text = xstrdup(col->choices[i]);
			return 1;
		}
	for (size_t i = 0; col->choices[i]; i++)
		snprintf(list + strlen(list), sizeof(list) - strlen(list), "%s%s", i ? ", " : "", col->choices[i]);
	free(param->text);
	return fail(p, pos, "%s is one of %s, found %s", col->name, list, describe(p, &p->tok, buf, sizeof(buf)));
}

#define REGEX_MAX 256

/*
 * glibc's regcomp() takes exponential time on stacked repetitions such as
 * "a++++++" (found by fuzzing): a filter must not hang tract query or top.
 * Outside brackets, a repetition operator may not follow another, and
 * intervals ({n,m}, which regcomp() expands) are few and small.
 */
static int regex_costly(const char *re)
{
	int in_bracket = 0, prev_repeat = 0, intervals = 0;

	if (strlen(re) > REGEX_MAX)
		return 1;
	for (const char *c = re; *c; c++) {
		int repeat = 0;

		/* inside brackets a backslash is itself (POSIX): "[\\]" ends at its ']' */
		if (in_bracket) {
			if (*c == ']')
				in_bracket = 0;
		} else if (*c == '\\' && c[1]) {
			c++;
		} else if (*c == '[') {
			in_bracket = 1;
			/* a ']' right after '[' or '[^' is a literal */
			if (c[1] == '^')
				c++;
			if (c[1] == ']')
				c++;
		} else if (*c == '{') {
			char *end;

			if (prev_repeat || ++intervals > 2)
				return 1;
			/* both bounds, when given, at most 100 */
			for (const char *n = c + 1; *n && *n != '}'; n++)
				if (*n >= '0' && *n <= '9' && strtol(n, &end, 10) > 100)
					return 1;
		} else if (*c == '*' || *c == '+' || *c == '?' || *c == '}') {
			repeat = 1;
			if (prev_repeat)
				return 1;
		}
		prev_repeat = repeat;
	}
	return 0;
}

static int pattern(struct parser *p, const struct token *op)
{
	struct expr_param param = { 0 };
	char what[32], buf[160];
	regex_t re;
	int rc;

	snprintf(what, sizeof(what), "a pattern after '%.*s'", (int)op->len, p->src + op->pos);
	if (literal(p, what, 0, &param) < 0)
		return -1;
	if (regex_costly(param.text)) {
		free(param.text);
		return fail(p, p->tok.pos, "regular expression too long or with stacked repetitions "
			    "(such as '++'); at most %d bytes", REGEX_MAX);
	}
	/* the same flags as regexp() in sqlfuncs.c, so what compiles here runs there */
	rc = regcomp(&re, param.text, REG_EXTENDED | REG_NOSUB);
	if (rc) {
		regerror(rc, &re, buf, sizeof(buf));
		free(param.text);
		return fail(p, p->tok.pos, "invalid regular expression: %s", buf);
	}
	regfree(&re);
	return add_param(p, param);
}

static int value_list(struct parser *p, const char *col_sql, int negated)
{
	struct expr_param param = { 0 };
	char buf[160];

	if (p->tok.kind != TOK_LPAREN)
		return fail(p, p->tok.pos, "expected '(' after 'in', found %s",
			    describe(p, &p->tok, buf, sizeof(buf)));
	strbuf_addf(&p->sql, "%s%s%s", p->d->in[negated].before, col_sql, p->d->in[negated].open);
	for (int n = 0;; n++) {
		if (next(p) || typed_literal(p, "a value in the list", &param) < 0 || add_param(p, param))
			return -1;
		strbuf_addf(&p->sql, "%s?", n ? ", " : "");
		if (next(p))
			return -1;
		if (p->tok.kind == TOK_RPAREN)
			break;
		if (p->tok.kind != TOK_COMMA)
			return fail(p, p->tok.pos, "expected ',' or ')' in the list, found %s",
				    describe(p, &p->tok, buf, sizeof(buf)));
	}
	strbuf_addf(&p->sql, "%s", p->d->in[negated].close);
	return next(p);
}

/* Column SQL that is not a plain name gets parentheses, so "a || b" cannot bind to our operator. */
static const char *column_sql(const struct expr_column *col, char **owned)
{
	size_t plain = strspn(col->sql, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.");

	*owned = NULL;
	if (plain && !col->sql[plain])
		return col->sql;
	if (asprintf(owned, "(%s)", col->sql) < 0)
		abort();
	return *owned;
}

/* low and high, both inclusive, as SQL's BETWEEN: its 'and' is its own, not a chain's. */
static int between(struct parser *p, const char *col_sql, int negated)
{
	struct expr_param param = { 0 };
	char buf[160];

	if (next(p) || typed_literal(p, "the lower bound after 'between'", &param) < 0 || add_param(p, param))
		return -1;
	if (next(p))
		return -1;
	if (!is_keyword(p, "and"))
		return fail(p, p->tok.pos, "expected 'and' after the lower bound of 'between', found %s",
			    describe(p, &p->tok, buf, sizeof(buf)));
	memset(&param, 0, sizeof(param));
	if (next(p) || typed_literal(p, "the upper bound after 'and'", &param) < 0 || add_param(p, param))
		return -1;
	strbuf_addf(&p->sql, "%s%s%s%s%s", p->d->between[negated].before, col_sql, p->d->between[negated].low,
		 p->d->between[negated].col_twice ? col_sql : "", p->d->between[negated].high);
	return next(p);
}

/* The words a column must be followed by: in, not in, between, not between, is null, is not null. */
static int keyword_comparison(struct parser *p, const char *sql)
{
	char buf[160];
	int negated;

	if (is_keyword(p, "in"))
		return next(p) ? -1 : value_list(p, sql, 0);
	if (is_keyword(p, "between"))
		return between(p, sql, 0);
	if (is_keyword(p, "not")) {
		if (next(p))
			return -1;
		if (is_keyword(p, "between"))
			return between(p, sql, 1);
		if (!is_keyword(p, "in"))
			return fail(p, p->tok.pos, "expected 'in' or 'between' after 'not', found %s",
				    describe(p, &p->tok, buf, sizeof(buf)));
		return next(p) ? -1 : value_list(p, sql, 1);
	}
	/* the caller saw 'is' */
	if (next(p))
		return -1;
	negated = is_keyword(p, "not");
	if (negated && next(p))
		return -1;
	if (!is_keyword(p, "null"))
		return fail(p, p->tok.pos, "expected 'null' after '%s', found %s",
			    negated ? "is not" : "is", describe(p, &p->tok, buf, sizeof(buf)));
	strbuf_addf(&p->sql, "%s%s%s", p->d->null_test[negated].before, sql, p->d->null_test[negated].after);
	return next(p);
}

static int operator_comparison(struct parser *p, const char *sql)
{
	struct token op = p->tok;
	struct expr_param param = { 0 };
	char what[32];
	int rc;

	if (next(p))
		return -1;
	if (op.op == OP_MATCH || op.op == OP_NOMATCH) {
		rc = pattern(p, &op);
	} else {
		snprintf(what, sizeof(what), "a value after '%.*s'", (int)op.len, p->src + op.pos);
		rc = typed_literal(p, what, &param) < 0 ? -1 : add_param(p, param);
	}
	if (rc)
		return rc;
	strbuf_addf(&p->sql, "%s%s%s", p->d->op[op.op].before, sql, p->d->op[op.op].after);
	return next(p);
}

static int comparison(struct parser *p)
{
	const struct expr_column *col = find_column(p);
	struct token column = p->tok;
	char buf[160], name[160], *owned;
	const char *sql;
	int rc, is_decimal;

	if (col && col - p->cols < 64)
		p->used |= 1ull << (col - p->cols);
	if (!col) {
		if (p->tok.kind != TOK_WORD || is_any_keyword(p) ||
		    classify_number(p->src + p->tok.pos, p->tok.len, &is_decimal))
			return fail(p, p->tok.pos, "expected a column name or '(', found %s",
				    describe(p, &p->tok, buf, sizeof(buf)));
		return unknown_column(p);
	}
	if (++p->comparisons > MAX_COMPARISONS)
		return fail(p, p->tok.pos, "too many comparisons (at most %d)", MAX_COMPARISONS);
	p->col = col;
	if (next(p))
		return -1;
	sql = column_sql(col, &owned);
	if (p->tok.kind == TOK_OP)
		rc = operator_comparison(p, sql);
	else if (is_keyword(p, "in") || is_keyword(p, "not") || is_keyword(p, "is") || is_keyword(p, "between"))
		rc = keyword_comparison(p, sql);
	else
		rc = fail(p, p->tok.pos, "expected an operator after %s, found %s",
			  quote_bytes(p->src + column.pos, column.len, name, sizeof(name)),
			  describe(p, &p->tok, buf, sizeof(buf)));
	free(owned);
	return rc;
}

static int parse_or(struct parser *p);

static int enter(struct parser *p)
{
	if (++p->depth > MAX_DEPTH)
		return fail(p, p->tok.pos, "too deeply nested (at most %d levels)", MAX_DEPTH);
	return 0;
}

static int primary(struct parser *p)
{
	size_t open = p->tok.pos;
	char buf[160];

	if (p->tok.kind != TOK_LPAREN)
		return comparison(p);
	if (enter(p) || next(p) || parse_or(p))
		return -1;
	if (p->tok.kind != TOK_RPAREN)
		return fail(p, p->tok.pos, "expected ')' to close '(' at position %zu, found %s",
			    open, describe(p, &p->tok, buf, sizeof(buf)));
	p->depth--;
	/* the inner expression brought its own parentheses */
	return next(p);
}

static int unary(struct parser *p)
{
	if (!is_keyword(p, "not"))
		return primary(p);
	if (enter(p) || next(p))
		return -1;
	/* NULL (unknown) counts as false, so 'not' is the exact complement */
	strbuf_addf(&p->sql, "%s", p->d->not_before);
	if (unary(p))
		return -1;
	strbuf_addf(&p->sql, "%s", p->d->not_after);
	p->depth--;
	return 0;
}

/* operand (KEYWORD operand)*, one pair of parentheses around a chain of two or more */
static int chain(struct parser *p, const char *keyword, const char *sql_op, int (*operand)(struct parser *))
{
	size_t start = p->sql.len;
	int n = 0;

	if (operand(p))
		return -1;
	for (; is_keyword(p, keyword); n++) {
		if (next(p))
			return -1;
		if (!n)
			strbuf_insert(&p->sql, start, "(");
		strbuf_addf(&p->sql, " %s ", sql_op);
		if (operand(p))
			return -1;
	}
	if (n)
		strbuf_addf(&p->sql, ")");
	return 0;
}

static int parse_and(struct parser *p)
{
	return chain(p, "and", "AND", unary);
}

static int parse_or(struct parser *p)
{
	return chain(p, "or", "OR", parse_and);
}

static void free_params(struct expr_param *params, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (params[i].kind == EXPR_PARAM_TEXT)
			free(params[i].text);
	free(params);
}

int expr_compile(const char *src, const struct expr_column *cols, size_t ncols,
		 struct expr_sql *out, struct expr_error *err)
{
	return expr_compile_in(&expr_sqlite, src, cols, ncols, out, err);
}

int expr_compile_in(const struct expr_dialect *d, const char *src, const struct expr_column *cols, size_t ncols,
		    struct expr_sql *out, struct expr_error *err)
{
	struct parser p = { .d = d, .src = src ? src : "", .cols = cols, .ncols = ncols, .err = err };
	char buf[160];
	int rc = -EINVAL;

	if (next(&p))
		goto cleanup;
	if (p.tok.kind == TOK_END) {
		fail(&p, 0, "empty filter");
		goto cleanup;
	}
	if (parse_or(&p))
		goto cleanup;
	if (p.tok.kind == TOK_RPAREN) {
		fail(&p, p.tok.pos, "unmatched ')'");
		goto cleanup;
	}
	if (p.tok.kind != TOK_END) {
		fail(&p, p.tok.pos, "expected 'and', 'or' or the end of the filter, found %s",
		     describe(&p, &p.tok, buf, sizeof(buf)));
		goto cleanup;
	}
	out->sql = strbuf_take(&p.sql);
	out->params = p.params;
	out->nparams = p.nparams;
	out->used = p.used;
	p.params = NULL;
	p.nparams = 0;
	rc = 0;
cleanup:
	free(p.tok.text);
	strbuf_free(&p.sql);
	free_params(p.params, p.nparams);
	return rc;
}

void expr_sql_free(struct expr_sql *e)
{
	if (!e)
		return;
	free(e->sql);
	free_params(e->params, e->nparams);
	memset(e, 0, sizeof(*e));
}

int expr_bind(sqlite3_stmt *stmt, int first_index, const struct expr_sql *e)
{
	int idx = first_index;

	for (size_t i = 0; i < e->nparams; i++, idx++) {
		const struct expr_param *param = &e->params[i];
		int rc = SQLITE_MISUSE;

		switch (param->kind) {
		case EXPR_PARAM_TEXT:
			rc = sqlite3_bind_text(stmt, idx, param->text, -1, SQLITE_TRANSIENT);
			break;
		case EXPR_PARAM_INT:
			rc = sqlite3_bind_int64(stmt, idx, param->i);
			break;
		case EXPR_PARAM_REAL:
			rc = sqlite3_bind_double(stmt, idx, param->r);
			break;
		}
		if (rc == SQLITE_NOMEM)
			return -ENOMEM;
		if (rc == SQLITE_RANGE)
			return -ERANGE;
		if (rc != SQLITE_OK)
			return -EINVAL;
	}
	return idx;
}
