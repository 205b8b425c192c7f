// SPDX-License-Identifier: GPL-2.0-only
#include <stdlib.h>
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

/* A share in percent, with a decimal where it is small, "<0.1%" rather than a 0 that is not. */
static void put_share(FILE *out, uint64_t part, uint64_t whole)
{
	double pct = whole ? 100.0 * (double)part / (double)whole : 0;

	if (part && pct < 0.1)
		fputs("<0.1%", out);
	else
		fprintf(out, pct < 10 ? "%.1f%%" : "%.0f%%", pct);
}

static int by_name(const char *a, size_t alen, const char *b, size_t blen)
{
	int c = memcmp(a, b, alen < blen ? alen : blen);

	return c ? c : alen < blen ? -1 : alen > blen;
}

static int by_blocked(const void *a, const void *b)
{
	const struct wake_edge *x = a, *y = b;
	int c;

	if (x->held_up_us != y->held_up_us)
		return x->held_up_us < y->held_up_us ? 1 : -1;
	if (x->count != y->count)
		return x->count < y->count ? 1 : -1;
	if ((c = by_name(x->waker, x->waker_len, y->waker, y->waker_len)) ||
	    (c = by_name(x->wakee, x->wakee_len, y->wakee, y->wakee_len)))
		return c;
	if (x->waker_tgid != y->waker_tgid)
		return x->waker_tgid < y->waker_tgid ? -1 : 1;
	return x->wakee_tgid < y->wakee_tgid ? -1 : x->wakee_tgid > y->wakee_tgid;
}

void wakegraph__rank(struct wake_edge *e, size_t n)
{
	if (n)
		qsort(e, n, sizeof(*e), by_blocked);
}

/*
 * The kernel's wakers, as the store names them: a timer, an interrupt the
 * kernel named as it ran it (an id ending in '/' is a kind: each of its
 * wakers a node of its own, by its name), and one it did not.  The label
 * says what kind of waker it is (NULL: its name), and the note what that
 * means.
 */
static const struct {
	const char *id, *label, *note;
} kernel_wakers[] = {
	{ "irq", "interrupt\\n(hardirq/softirq)",
	  "interrupt (hardirq/softirq): woken in an interrupt handler or a softirq, not by a thread:\\l"
	  "    one the kernel did not name as it ran it (an inter-processor call, irq_work, ...)" },
	{ "softirq/", NULL, "softirq/NAME: woken in that softirq (NET_RX: network receive, BLOCK: I/O completion, ...), not by a thread" },
	{ "irq/", NULL, "irq/N-HANDLER: woken in that hard interrupt's handler (/proc/interrupts), not by a thread" },
	{ "timer", "timer", "timer: a timeout or a sleep of the wakee's own ran out" },
};

static int is_kernel_waker(const struct wake_edge *e, const char *id)
{
	size_t n = strlen(id);

	if (e->waker_tgid >= 0 || e->waker_len < n || memcmp(e->waker, id, n))
		return 0;
	return e->waker_len == n || id[n - 1] == '/';
}

int wakegraph__write_dot(FILE *out, const struct wake_edge *e, size_t n, size_t max_edges, const char *title)
{
	size_t drawn = max_edges && n > max_edges ? max_edges : n;
	uint64_t max_blocked = 0, max_count = 1, blocked = 0, left_blocked = 0, left_count = 0;
	int kernel[sizeof(kernel_wakers) / sizeof(kernel_wakers[0])] = { 0 };

	for (size_t i = 0; i < n; i++) {
		blocked += e[i].held_up_us;
		if (i >= drawn) {
			left_blocked += e[i].held_up_us;
			left_count += e[i].count;
			continue;
		}
		if (e[i].held_up_us > max_blocked)
			max_blocked = e[i].held_up_us;
		if (e[i].count > max_count)
			max_count = e[i].count;
		for (size_t k = 0; k < sizeof(kernel) / sizeof(kernel[0]); k++)
			kernel[k] |= is_kernel_waker(&e[i], kernel_wakers[k].id);
	}
	/* the title, then what the picture leaves out or names in short, one line each */
	fputs("digraph wakes {\n\trankdir=LR;\n\tlabelloc=t;\n\tlabeljust=l;\n\tlabel=\"", out);
	dot_text(out, title, strlen(title));
	fputs("\\l", out);
	if (drawn < n) {
		fprintf(out, "and %zu more edge%s carrying ", n - drawn, n - drawn == 1 ? "" : "s");
		put_share(out, left_blocked, blocked);
		fprintf(out, " of the blocked time (%llu %s) not drawn\\l", (unsigned long long)left_count,
			e[0].holds ? "samples" : "wakeups");
	}
	for (size_t k = 0; k < sizeof(kernel) / sizeof(kernel[0]); k++)
		if (kernel[k])
			fprintf(out, "%s\\l", kernel_wakers[k].note);
	fputs("\";\n\tfontname=\"DejaVu Sans\";\n\tfontsize=12;\n"
	      "\tnode [shape=box, style=\"rounded,filled\", fillcolor=\"#f3efe4\", fontname=\"DejaVu Sans\", fontsize=11];\n"
	      "\tedge [fontname=\"DejaVu Sans\", fontsize=9, color=\"#b04030\", fontcolor=\"#503020\"];\n", out);
	/* the kernel's wakers look apart: each declared once, if it woke anyone drawn */
	for (size_t k = 0; k < sizeof(kernel) / sizeof(kernel[0]); k++)
		if (kernel[k] && kernel_wakers[k].label)
			fprintf(out, "\t\"%s\" [shape=ellipse, fillcolor=\"#dde8f4\", label=\"%s\"];\n",
				kernel_wakers[k].id, kernel_wakers[k].label);
	for (size_t i = 0; i < drawn; i++) {
		/* a named interrupt: a node of its own, as the kernel's wakers look */
		if (e[i].waker_tgid < 0 && (is_kernel_waker(&e[i], "softirq/") || is_kernel_waker(&e[i], "irq/"))) {
			fputc('\t', out);
			put_node_id(out, e[i].waker, e[i].waker_len, e[i].waker_tgid);
			fputs(" [shape=ellipse, fillcolor=\"#dde8f4\"];\n", out);
		}
	}
	for (size_t i = 0; i < drawn; i++) {
		/* as wide as the blocked time it ended; by wakeups where nothing was blocked */
		double width = 1 + 7 * (max_blocked ? (double)e[i].held_up_us / (double)max_blocked :
						      (double)e[i].count / (double)max_count);

		fputc('\t', out);
		put_node_id(out, e[i].waker, e[i].waker_len, e[i].waker_tgid);
		fputs(" -> ", out);
		put_node_id(out, e[i].wakee, e[i].wakee_len, e[i].wakee_tgid);
		if (e[i].holds) {
			fprintf(out, " [penwidth=%.2f, %slabel=\"%sheld up ", width,
				e[i].cycle ? "color=\"#e00000\", " : "", e[i].cycle ? "deadlock: " : "");
			put_us(out, e[i].held_up_us);
		} else {
			fprintf(out, " [penwidth=%.2f, label=\"%llu wakeups\\nrunq ", width, (unsigned long long)e[i].count);
			put_us(out, e[i].runq_us);
			fputs(", blocked ", out);
			put_us(out, e[i].held_up_us);
		}
		fputs(" (", out);
		put_share(out, e[i].held_up_us, blocked);
		/* an empty last line keeps the text clear of a wide edge */
		fputs(")\\n \"];\n", out);
	}
	fputs("}\n", out);
	return ferror(out) ? -1 : 0;
}

void wakegraph__free(struct wake_edge *e, size_t n)
{
	for (size_t i = 0; e && i < n; i++)
		free(e[i].owned);
	free(e);
}
