// SPDX-License-Identifier: GPL-2.0-only
#include <string.h>
#include "json.h"
#include "wakegraph.h"

/*
 * A DOT string's contents: quotes and backslashes escaped (a backslash
 * would start an escape such as \\N), control bytes and bytes that are not
 * UTF-8 as '?', so Graphviz neither errs nor reads a name as markup.  '&'
 * as "&amp;": Graphviz copies what looks like an entity ("&x;", "&#0;")
 * into its SVG as it is, which XML then rejects, and reads "&amp;" as '&'.
 */
static void dot_text(FILE *out, const char *str, size_t len)
{
	const unsigned char *s = (const unsigned char *)str;

	for (size_t i = 0; i < len;) {
		size_t n = utf8_len(s + i, len - i);

		if (!n || (n == 1 && (s[i] < 0x20 || s[i] == 0x7f))) {
			fputc('?', out);
			i++;
			continue;
		}
		if (n == 1 && s[i] == '&') {
			fputs("&amp;", out);
			i++;
			continue;
		}
		if (n == 1 && (s[i] == '"' || s[i] == '\\'))
			fputc('\\', out);
		fwrite(s + i, 1, n, out);
		i += n;
	}
}

static void put_node_id(FILE *out, const char *name, size_t len, int64_t tgid)
{
	fputc('"', out);
	dot_text(out, name, len);
	if (tgid >= 0)
		fprintf(out, " %lld", (long long)tgid);
	fputc('"', out);
}

static void put_us(FILE *out, uint64_t us)
{
	if (us >= 1000000)
		fprintf(out, "%.2f s", (double)us / 1e6);
	else
		fprintf(out, "%.1f ms", (double)us / 1e3);
}

int wakegraph__write_dot(FILE *out, const struct wake_edge *e, size_t n, size_t max_edges, const char *title)
{
	uint64_t max = n ? e[0].count : 1, left = 0;
	size_t drawn = n < max_edges ? n : max_edges;

	for (size_t i = drawn; i < n; i++)
		left += e[i].count;
	fputs("digraph wakes {\n\trankdir=LR;\n\tlabelloc=t;\n\tlabel=\"", out);
	dot_text(out, title, strlen(title));
	if (drawn < n)
		fprintf(out, "\\n%zu smaller edges (%llu wakeups) not drawn", n - drawn, (unsigned long long)left);
	fputs("\";\n\tfontname=\"DejaVu Sans\";\n"
	      "\tnode [shape=box, style=\"rounded,filled\", fillcolor=\"#f3efe4\", fontname=\"DejaVu Sans\", fontsize=11];\n"
	      "\tedge [fontname=\"DejaVu Sans\", fontsize=9, color=\"#b04030\", fontcolor=\"#503020\"];\n", out);
	/* the kernel's wakers look apart: each declared once, if it woke anyone */
	for (int k = 0; k < 2; k++) {
		const char *name = k ? "timer" : "irq";

		for (size_t i = 0; i < drawn; i++)
			if (e[i].waker_tgid < 0 && e[i].waker_len == strlen(name) && !memcmp(e[i].waker, name, e[i].waker_len)) {
				fprintf(out, "\t\"%s\" [shape=ellipse, fillcolor=\"#dde8f4\"];\n", name);
				break;
			}
	}
	for (size_t i = 0; i < drawn; i++) {
		double width = 1 + 7 * (double)e[i].count / (double)max;

		fputc('\t', out);
		put_node_id(out, e[i].waker, e[i].waker_len, e[i].waker_tgid);
		fputs(" -> ", out);
		put_node_id(out, e[i].wakee, e[i].wakee_len, e[i].wakee_tgid);
		fprintf(out, " [penwidth=%.2f, label=\"%llu wakeups\\nrunq ", width, (unsigned long long)e[i].count);
		put_us(out, e[i].runq_us);
		fputs(", blocked ", out);
		put_us(out, e[i].blocked_us);
		fputs("\"];\n", out);
	}
	fputs("}\n", out);
	return ferror(out) ? -1 : 0;
}
