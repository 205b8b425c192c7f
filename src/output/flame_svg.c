// SPDX-License-Identifier: GPL-2.0-only
/*
 * The flame graph as one SVG file that works opened straight from disk: the
 * frames are drawn at their exact widths (a frame's width is its time over
 * the selection's), and a short script in the file itself shows a frame's
 * time on hover, zooms into a frame on click and highlights the frames a
 * regular expression matches, with the share of time they cover.
 */
#include <stdlib.h>
#include <string.h>
#include "flame_tree.h"
#include "util.h"
#include "xml.h"

#define FRAME_H 16
#define TOP_H 70		/* title, subtitle, legend */
#define BOTTOM_H 30		/* the details line */
#define PAD_X 10
#define MIN_PX 1.0		/* narrower frames are not drawn: their time stays in the parent */

struct rgb {
	int r, g, b;
};

static const struct rgb state_rgb[] = {
	{ 226, 72, 60 },	/* RUN: on CPU, warm */
	{ 232, 204, 52 },	/* RUNQ: waiting for a CPU, yellow */
	{ 78, 124, 222 },	/* DISK: blue */
	{ 72, 196, 200 },	/* SLEEP: aqua */
	{ 164, 112, 214 },	/* anything else: purple */
};

static size_t state_index(const char *name)
{
	static const char *const names[] = { "RUN", "RUNQ", "DISK", "SLEEP" };

	for (size_t i = 0; i < 4; i++)
		if (!strcmp(name, names[i]))
			return i;
	return 4;
}

static unsigned int name_hash(const char *s)
{
	unsigned int h = 2166136261u;

	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 16777619u;
	return h;
}

/*
 * Code warm, varied by name so neighbours differ: user functions red to
 * orange, kernel functions orange to amber.  A state and what it waits on
 * take the state's colour, the wait's detail a lighter one.
 */
static struct rgb frame_rgb(const struct flame_node *n, size_t state)
{
	unsigned int h = name_hash(n->name);
	struct rgb c;

	switch (n->kind) {
	case FLAME_USER:
		return (struct rgb){ 214 + (int)(h % 32), 72 + (int)(h / 32 % 80), 50 + (int)(h / 4096 % 30) };
	case FLAME_KERNEL:
		return (struct rgb){ 222 + (int)(h % 28), 142 + (int)(h / 32 % 50), 36 + (int)(h / 4096 % 30) };
	case FLAME_ROOT:
	case FLAME_PROCESS:
		return (struct rgb){ 190, 190, 176 };
	case FLAME_STATE:
		return state_rgb[state_index(n->name)];
	default:
		c = state_rgb[state];
		return (struct rgb){ c.r + (255 - c.r) / 3, c.g + (255 - c.g) / 3, c.b + (255 - c.b) / 3 };
	}
}

static const char *const kind_names[] = {
	[FLAME_ROOT] = "all", [FLAME_PROCESS] = "process", [FLAME_USER] = "user", [FLAME_KERNEL] = "kernel",
	[FLAME_STATE] = "state", [FLAME_SYSCALL] = "syscall", [FLAME_FILE] = "file",
};

struct svg {
	const struct flame *f;
	const struct flame *base;	/* differential: the graph compared with */
	FILE *out;
	double width, px_per_us;
	unsigned int height;
};

/*
 * A frame's change in share, in points of the selection: red for growth,
 * blue for shrinking, full at 5 points, grey when it did not move.
 */
static struct rgb delta_rgb(double delta)
{
	double t = delta / 0.05;

	if (t > 1)
		t = 1;
	if (t < -1)
		t = -1;
	if (t >= 0)
		return (struct rgb){ 220, (int)(220 - 170 * t), (int)(220 - 170 * t) };
	return (struct rgb){ (int)(220 + 170 * t), (int)(220 + 120 * t), 220 };
}

/* A label cut to what fits the frame: 7 px a character at 12 px. */
static void put_label(FILE *out, const char *name, double width)
{
	size_t fits = width > 6 ? (size_t)((width - 6) / 7) : 0, len = strlen(name);

	if (fits < 3)
		return;
	if (len <= fits) {
		xml_text(out, name, len);
		return;
	}
	/* not inside a UTF-8 sequence */
	len = fits - 2;
	while (len && ((unsigned char)name[len] & 0xc0) == 0x80)
		len--;
	xml_text(out, name, len);
	fputs("..", out);
}

static void draw(struct svg *s, uint32_t node, uint32_t base, uint64_t start, size_t state)
{
	const struct flame_node *n = &s->f->nodes[node];
	double delta = 0;
	double x = PAD_X + (double)start * s->px_per_us, w = (double)n->total * s->px_per_us;
	unsigned int y = s->height - BOTTOM_H - (n->depth + 1) * FRAME_H;
	uint32_t *kids;
	size_t nkids;
	struct rgb c;

	if (w < MIN_PX)
		return;
	if (n->kind == FLAME_STATE)
		state = state_index(n->name);
	c = frame_rgb(n, state);
	if (s->base) {
		/* a frame the base does not have grew from nothing */
		double was = base != FLAME_NONE && flame__total(s->base) ?
				     (double)s->base->nodes[base].total / (double)flame__total(s->base) : 0;

		delta = (double)n->total / (double)flame__total(s->f) - was;
		c = delta_rgb(delta);
	}
	fprintf(s->out, "<g class=\"f\" data-s=\"%llu\" data-w=\"%llu\" data-d=\"%u\" data-k=\"%s\"",
		(unsigned long long)start, (unsigned long long)n->total, n->depth, kind_names[n->kind]);
	if (s->base)
		fprintf(s->out, " data-delta=\"%.5f\"", delta);
	fputs("><title>", s->out);
	xml_text(s->out, n->name, strlen(n->name));
	fprintf(s->out, "</title><rect x=\"%.2f\" y=\"%u\" width=\"%.2f\" height=\"%u\" fill=\"rgb(%d,%d,%d)\"/>"
		"<text x=\"%.2f\" y=\"%u\">", x, y, w > 1 ? w - 0.5 : w, FRAME_H - 1, c.r, c.g, c.b, x + 3,
		y + FRAME_H - 4);
	put_label(s->out, n->name, w);
	fputs("</text></g>\n", s->out);
	nkids = flame__children(s->f, node, &kids);
	for (size_t i = 0; i < nkids; i++) {
		const struct flame_node *k = &s->f->nodes[kids[i]];
		uint32_t b = s->base && base != FLAME_NONE ? flame__find_child(s->base, base, k->kind, k->name) : FLAME_NONE;

		draw(s, kids[i], b, start, state);
		start += k->total;
	}
	free(kids);
}

static const char *const legend[][2] = {
	{ "user code", "rgb(226,100,60)" }, { "kernel code", "rgb(236,166,50)" },
	{ "RUN", "rgb(226,72,60)" }, { "RUNQ", "rgb(232,204,52)" }, { "DISK", "rgb(78,124,222)" },
	{ "SLEEP", "rgb(72,196,200)" }, { "other", "rgb(164,112,214)" },
};

static const char script[] =
"<script type=\"text/ecmascript\"><![CDATA[\n"
"'use strict';\n"
"(function () {\n"
"  var svg = document.documentElement, W = +svg.getAttribute('data-width'), X0 = +svg.getAttribute('data-x0');\n"
"  var TOTAL = +svg.getAttribute('data-total'), TICKS = svg.getAttribute('data-unit') === 'ticks';\n"
"  var frames = Array.prototype.slice.call(document.querySelectorAll('g.f'));\n"
"  var details = document.getElementById('details'), matched = document.getElementById('matched');\n"
"  var reset = document.getElementById('reset'), idle = details.textContent, zoom = null, query = null;\n"
"  function num(g, a) { return +g.getAttribute(a); }\n"
"  function name(g) { return g.firstChild.textContent; }\n"
"  function time(us) {\n"
"    if (TICKS) return us + (us === 1 ? ' tick' : ' ticks');\n"
"    return us >= 1e6 ? (us / 1e6).toFixed(2) + ' s' : (us / 1e3).toFixed(1) + ' ms';\n"
"  }\n"
"  function share(us) { return (100 * us / TOTAL).toFixed(2) + '%'; }\n"
"  function label(g, width) {\n"
"    var n = name(g), fits = Math.floor((width - 6) / 7);\n"
"    return fits < 3 ? '' : n.length <= fits ? n : n.slice(0, fits - 2) + '..';\n"
"  }\n"
"  function layout(zs, zw, zd) {\n"
"    frames.forEach(function (g) {\n"
"      var s = num(g, 'data-s'), w = num(g, 'data-w'), d = num(g, 'data-d');\n"
"      var under = d >= zd && s >= zs && s + w <= zs + zw, above = d < zd && s <= zs && s + w >= zs + zw;\n"
"      var x = above ? 0 : (s - zs) / zw * W, width = above ? W : w / zw * W;\n"
"      if ((!under && !above) || width < 0.5) { g.style.display = 'none'; return; }\n"
"      g.style.display = '';\n"
"      g.style.opacity = above && d > 0 ? 0.6 : 1;\n"
"      var r = g.childNodes[1], t = g.childNodes[2];\n"
"      r.setAttribute('x', (X0 + x).toFixed(2)); r.setAttribute('width', Math.max(width - 0.5, 0.5).toFixed(2));\n"
"      t.setAttribute('x', (X0 + x + 3).toFixed(2)); t.textContent = label(g, width);\n"
"    });\n"
"  }\n"
"  function zoomTo(g) {\n"
"    zoom = g; layout(num(g, 'data-s'), num(g, 'data-w'), num(g, 'data-d'));\n"
"    reset.style.display = num(g, 'data-d') > 0 ? '' : 'none';\n"
"  }\n"
"  function search(re) {\n"
"    var spans = [];\n"
"    query = re;\n"
"    frames.forEach(function (g) {\n"
"      var r = g.childNodes[1];\n"
"      if (!r.hasAttribute('data-fill')) r.setAttribute('data-fill', r.getAttribute('fill'));\n"
"      var hit = re && num(g, 'data-d') > 0 && re.test(name(g));\n"
"      r.setAttribute('fill', hit ? 'rgb(230,0,230)' : r.getAttribute('data-fill'));\n"
"      if (hit) spans.push([num(g, 'data-s'), num(g, 'data-s') + num(g, 'data-w')]);\n"
"    });\n"
"    /* the time the matches cover, each instant once (a match may sit under another) */\n"
"    spans.sort(function (a, b) { return a[0] - b[0]; });\n"
"    var covered = 0, end = -1;\n"
"    spans.forEach(function (p) {\n"
"      if (p[1] <= end) return;\n"
"      covered += p[1] - Math.max(p[0], end); end = p[1];\n"
"    });\n"
"    matched.textContent = re ? 'Matched: ' + share(covered) + ' (' + time(covered) + ')' : '';\n"
"    return covered;\n"
"  }\n"
"  frames.forEach(function (g) {\n"
"    g.addEventListener('mouseover', function () {\n"
"      details.textContent = g.getAttribute('data-k') + ' ' + name(g) + ': ' + time(num(g, 'data-w')) +\n"
"        (TICKS ? ' on CPU, ' : ' of thread time, ') + share(num(g, 'data-w')) + ' of the selection' +\n"
"        (g.hasAttribute('data-delta') ? ', ' + (num(g, 'data-delta') >= 0 ? '+' : '') +\n"
"         (100 * num(g, 'data-delta')).toFixed(2) + ' points since the base window' : '');\n"
"    });\n"
"    g.addEventListener('mouseout', function () { details.textContent = idle; });\n"
"    g.addEventListener('click', function () { zoomTo(g); });\n"
"  });\n"
"  reset.addEventListener('click', function () { zoomTo(frames[0]); });\n"
"  document.getElementById('search').addEventListener('click', function () {\n"
"    var s = window.prompt('Highlight frames matching (a regular expression):', query ? query.source : '');\n"
"    if (s === null) return;\n"
"    try { search(s ? new RegExp(s) : null); } catch (e) { matched.textContent = 'Not a regular expression: ' + s; }\n"
"  });\n"
"  document.addEventListener('keydown', function (e) {\n"
"    if (e.key === 'Escape') { search(null); zoomTo(frames[0]); }\n"
"  });\n"
"  /* for tests and other scripts: window.tractFlame.search(/re/) and .zoom(frameIndex) */\n"
"  window.tractFlame = { search: search, zoom: function (i) { zoomTo(frames[i]); }, frames: frames };\n"
"  zoomTo(frames[0]);\n"
"})();\n"
"]]></script>\n";

int flame__write_svg(const struct flame *f, FILE *out, const struct flame_svg_opts *o)
{
	struct svg s = { .f = f, .base = o->base, .out = out };
	unsigned int width = o->width ? o->width : 1200;
	double lx = PAD_X;

	s.width = width - 2 * PAD_X;
	s.px_per_us = flame__total(f) ? s.width / (double)flame__total(f) : 0;
	s.height = TOP_H + (f->max_depth + 1) * FRAME_H + BOTTOM_H;
	fprintf(out, "<?xml version=\"1.0\" encoding=\"UTF-8\" standalone=\"no\"?>\n"
		"<svg version=\"1.1\" xmlns=\"http://www.w3.org/2000/svg\" width=\"%u\" height=\"%u\" "
		"viewBox=\"0 0 %u %u\" data-width=\"%.2f\" data-x0=\"%d\" data-total=\"%llu\" data-unit=\"%s\">\n",
		width, s.height, width, s.height, s.width, PAD_X, (unsigned long long)flame__total(f),
		o->ticks ? "ticks" : "us");
	fputs("<style>text { font: 12px Verdana, 'DejaVu Sans', sans-serif; fill: #000; }\n"
	      "g.f { cursor: pointer; } g.f:hover rect { stroke: #000; stroke-width: 0.5; }\n"
	      ".title { font-size: 17px; } .sub, .legend { font-size: 12px; fill: #444; }\n"
	      ".button { cursor: pointer; fill: #225; text-decoration: underline; }</style>\n", out);
	fprintf(out, "<rect x=\"0\" y=\"0\" width=\"%u\" height=\"%u\" fill=\"#f8f8f4\"/>\n", width, s.height);
	fprintf(out, "<text class=\"title\" x=\"%u\" y=\"22\" text-anchor=\"middle\">", width / 2);
	xml_text(out, o->title ? o->title : "", o->title ? strlen(o->title) : 0);
	fprintf(out, "</text>\n<text class=\"sub\" x=\"%u\" y=\"40\" text-anchor=\"middle\">", width / 2);
	xml_text(out, o->subtitle ? o->subtitle : "", o->subtitle ? strlen(o->subtitle) : 0);
	fputs("</text>\n", out);
	for (size_t i = 0; !o->base && i < sizeof(legend) / sizeof(legend[0]); i++) {
		fprintf(out, "<rect x=\"%.0f\" y=\"52\" width=\"10\" height=\"10\" fill=\"%s\"/>"
			"<text class=\"legend\" x=\"%.0f\" y=\"61\">%s</text>\n", lx, legend[i][1], lx + 14, legend[i][0]);
		lx += 14 + 7.5 * (double)strlen(legend[i][0]) + 14;
	}
	if (o->base)
		fputs("<rect x=\"10\" y=\"52\" width=\"10\" height=\"10\" fill=\"rgb(220,50,50)\"/><text class=\"legend\" "
		      "x=\"24\" y=\"61\">a larger share than in the base window</text><rect x=\"300\" y=\"52\" width=\"10\" "
		      "height=\"10\" fill=\"rgb(50,100,220)\"/><text class=\"legend\" x=\"314\" y=\"61\">a smaller one "
		      "(full colour: 5 points)</text>\n", out);
	fprintf(out, "<text id=\"reset\" class=\"button\" x=\"%u\" y=\"22\" style=\"display:none\">Reset zoom</text>\n"
		"<text id=\"search\" class=\"button\" x=\"%u\" y=\"22\" text-anchor=\"end\">Search</text>\n"
		"<text id=\"matched\" class=\"sub\" x=\"%u\" y=\"%u\" text-anchor=\"end\"></text>\n",
		PAD_X, width - PAD_X, width - PAD_X, s.height - 10);
	fprintf(out, "<text id=\"details\" class=\"sub\" x=\"%d\" y=\"%u\">Hover over a frame for its time; click to zoom"
		"</text>\n", PAD_X, s.height - 10);
	draw(&s, 0, 0, 0, 4);
	fputs(script, out);
	fputs("</svg>\n", out);
	return ferror(out) ? -1 : 0;
}
