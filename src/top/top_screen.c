// SPDX-License-Identifier: GPL-2.0-only
/*
 * tract top's ncurses screen: a header with the window and its timeline,
 * the grouped rows with a selection, and the keys that regroup, drill down,
 * filter, zoom and pan, and peek at the stacks of a group.  The terminal is
 * restored on every way out: quitting, a signal, or a crash.
 */
#include <errno.h>
#include <limits.h>
#include <time.h>
#include <fcntl.h>
#include <ncurses.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sqlite3.h>
#include "clock.h"
#include "flame_select.h"
#include "render.h"
#include "top_layout.h"
#include "top_screen.h"
#include "timespec.h"
#include "util.h"
#include "width.h"

#define KEY_ESCAPE 27

enum { PAIR_HEADER = 1, PAIR_BAR, PAIR_SELECTED, PAIR_SPARK, PAIR_MESSAGE };

static volatile sig_atomic_t quit_requested;
static int screen_active;
static int saved_stderr = -1;

/* Messages would scribble over the screen: they go to the message line instead. */
static void hide_stderr(void)
{
	int null = open("/dev/null", O_WRONLY | O_CLOEXEC);

	fflush(stderr);
	saved_stderr = dup(STDERR_FILENO);
	if (null >= 0) {
		dup2(null, STDERR_FILENO);
		close(null);
	}
}

static void restore_terminal(void)
{
	if (screen_active) {
		screen_active = 0;
		endwin();
	}
	if (saved_stderr >= 0) {
		dup2(saved_stderr, STDERR_FILENO);
		close(saved_stderr);
		saved_stderr = -1;
	}
}

static void on_quit_signal(int sig)
{
	(void)sig;
	quit_requested = 1;
}

/* What next_key() returns when top must quit: asked to, or its terminal is gone. */
#define KEY_QUIT (KEY_MAX + 1)

/*
 * The terminal hung up (its window closed, its ssh session dropped): every
 * read then fails at once, and a loop that waits for keys would spin.
 */
static int terminal_gone(void)
{
	struct pollfd p = { .fd = STDIN_FILENO, .events = POLLIN };

	return poll(&p, 1, 0) == 1 && (p.revents & (POLLHUP | POLLERR | POLLNVAL));
}

/* A key, ERR when the wait set by timeout() passed, or KEY_QUIT. */
static int next_key(void)
{
	int ch = quit_requested ? ERR : getch();

	if (!quit_requested && ch == ERR && terminal_gone())
		quit_requested = 1;
	return quit_requested ? KEY_QUIT : ch;
}

/* A crash must not leave the terminal raw: restore it, then die as before. */
static void on_crash_signal(int sig)
{
	restore_terminal();
	signal(sig, SIG_DFL);
	raise(sig);
}

static void install_handlers(void)
{
	struct sigaction quit = { .sa_handler = on_quit_signal };
	const int crashes[] = { SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT };

	sigemptyset(&quit.sa_mask);
	sigaction(SIGINT, &quit, NULL);
	sigaction(SIGTERM, &quit, NULL);
	sigaction(SIGHUP, &quit, NULL);
	for (size_t i = 0; i < ARRAY_SIZE(crashes); i++)
		signal(crashes[i], on_crash_signal);
	atexit(restore_terminal);
}

static void start_screen(void)
{
	hide_stderr();
	initscr();
	screen_active = 1;
	cbreak();
	noecho();
	keypad(stdscr, TRUE);
	curs_set(0);
	if (has_colors()) {
		start_color();
		use_default_colors();
		init_pair(PAIR_HEADER, COLOR_CYAN, -1);
		init_pair(PAIR_BAR, COLOR_GREEN, -1);
		init_pair(PAIR_SELECTED, COLOR_BLACK, COLOR_CYAN);
		init_pair(PAIR_SPARK, COLOR_YELLOW, -1);
		init_pair(PAIR_MESSAGE, COLOR_RED, -1);
	}
}

/* At most width columns of s at (y, x); the rest of the line is left alone. */
static void put_clipped(int y, int x, const char *s, int width)
{
	move(y, x);
	/* in cells: a wide character takes two, and is not cut in half */
	addnstr(s, (int)text_fit(s, width > 0 ? (size_t)width : 0));
}

static void sparkline(const struct top *t, int y, int x, int width, int utf8)
{
	double max = top__timeline_max(t);
	char glyph[8];

	attron(COLOR_PAIR(PAIR_SPARK));
	move(y, x);
	for (int i = 0; i < width && (size_t)i < t->ntimeline; i++)
		addstr(top__spark(t->timeline[i], max, utf8, glyph));
	attroff(COLOR_PAIR(PAIR_SPARK));
	mvprintw(y, x + width + 1, "max %.1f", max);
}

static void header(const struct top *t, int utf8)
{
	char from[32], to[32], line[512];
	int w = COLS;
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);
	const struct top_level *l = &t->levels[t->depth];

	timespec_format(t->end_us - t->span_us, from, sizeof(from));
	timespec_format(t->end_us, to, sizeof(to));
	attron(A_BOLD | COLOR_PAIR(PAIR_HEADER));
	snprintf(line, sizeof(line), "tract top - %s   %s .. %s %s (%.0f s%s)   %ld CPUs", t->mode, from, to + 11,
		 timespec_zone(t->end_us), (double)t->span_us / 1e6, t->follow ? ", following" : "", cpus);
	put_clipped(0, 0, line, w);
	attroff(A_BOLD | COLOR_PAIR(PAIR_HEADER));
	if (t->have_res) {
		char steal[160], waiting[96];
		int n = snprintf(line, sizeof(line), "%.2f average active threads, %llu passes",
				 render_avg(&t->res, t->res.total), (unsigned long long)t->res.passes);

		if (render_waiting(waiting, sizeof(waiting), &t->res) && n > 0 && (size_t)n < sizeof(line))
			n += snprintf(line + n, sizeof(line) - (size_t)n, "; %s", waiting);
		if (render_steal(steal, sizeof(steal), &t->res) && n > 0 && (size_t)n < sizeof(line))
			snprintf(line + n, sizeof(line) - (size_t)n, "; %s", steal);
		put_clipped(1, 0, line, w);
		if (t->res.dropped) {
			attron(COLOR_PAIR(PAIR_MESSAGE) | A_BOLD);
			printw("   %llu rows DROPPED", (unsigned long long)t->res.dropped);
			attroff(COLOR_PAIR(PAIR_MESSAGE) | A_BOLD);
		}
	}
	sparkline(t, 2, 0, w - 12 > 0 ? w - 12 : 0, utf8);
	snprintf(line, sizeof(line), "group: %s   filter: %s   sort: %s%s", l->group,
		 l->filter ? l->filter : "-", t->by_values ? "name" : "size", t->depth ? "   (Backspace: back)" : "");
	put_clipped(3, 0, line, w);
}

static void bar(double share, int utf8)
{
	char buf[4 * TOP_BAR_COLS + 1];

	attron(COLOR_PAIR(PAIR_BAR));
	addstr(render_bar(buf, sizeof(buf), share, TOP_BAR_COLS, utf8));
	attroff(COLOR_PAIR(PAIR_BAR));
}

/* Two spaces, then text in width cells: cut visibly, a stack keeping its innermost frames. */
static void put_column(const char *text, int width, int stack, int utf8)
{
	char *cut = text_cut(text, (size_t)width, stack, utf8);

	addstr("  ");
	addstr(cut);
	for (int pad = (int)text_cells(cut, strlen(cut)); pad < width; pad++)
		addch(' ');
	free(cut);
}

static void put_cell(const struct agg_value *v, const struct catalog_column *c, int width, int utf8)
{
	char *whole = render_cell_whole(v);

	put_column(whole, width, catalog_is_stack(c), utf8);
	free(whole);
}

/* The layout of the rows on screen: each column as wide as its widest cell shown, fitted to COLS. */
static void lay_out(const struct top *t, size_t first, size_t last, struct top_layout *lay)
{
	struct agg_value vals[AGG_MAX_GROUP];
	int want[AGG_MAX_GROUP];

	for (size_t c = 0; c < t->res.ncols; c++)
		want[c] = (int)strlen(catalog_heading(t->res.cols[c]));
	for (size_t i = first; i < last; i++) {
		agg_result__values(&t->res, &t->res.rows[i], vals);
		for (size_t c = 0; c < t->res.ncols; c++) {
			char *cell = render_cell_whole(&vals[c]);
			int n = (int)text_cells(cell, strlen(cell));

			want[c] = n > want[c] ? n : want[c];
			free(cell);
		}
	}
	top_layout(want, t->res.ncols, COLS, lay);
}

/* Rows from y0 to the line above the key help, scrolled to show the selection. */
static void rows(struct top *t, int y0, int utf8)
{
	struct top_level *l = top__level(t);
	int height = LINES - y0 - 2;
	struct agg_value vals[AGG_MAX_GROUP];
	struct top_layout lay;
	size_t first, last;

	if (!t->have_res || height <= 0)
		return;
	first = l->selected >= (size_t)height ? l->selected - (size_t)height + 1 : 0;
	last = first + (size_t)height < t->res.nrows ? first + (size_t)height : t->res.nrows;
	lay_out(t, first, last, &lay);
	attron(A_BOLD);
	mvprintw(y0, 0, "%8s %6s %-*s", "avg_thr", "share", lay.bar, "");
	move(y0, TOP_FIGURES_COLS + lay.bar);
	for (int c = 0; c < lay.shown; c++)
		put_column(catalog_heading(t->res.cols[c]), lay.width[c], 0, utf8);
	attroff(A_BOLD);
	for (size_t i = first; i < last; i++) {
		const struct agg_row *r = &t->res.rows[i];
		double share = agg_result__share(&t->res, r);
		int y = y0 + 1 + (int)(i - first);

		if (i == l->selected)
			attron(COLOR_PAIR(PAIR_SELECTED) | A_BOLD);
		mvprintw(y, 0, "%8.2f %5.1f%% ", agg_result__avg(&t->res, r), share * 100);
		if (lay.bar)
			bar(share, utf8);
		agg_result__values(&t->res, r, vals);
		for (int c = 0; c < lay.shown; c++)
			put_cell(&vals[c], t->res.cols[c], lay.width[c], utf8);
		if (i == l->selected) {
			for (int x = getcurx(stdscr); x < COLS; x++)
				addch(' ');
			attroff(COLOR_PAIR(PAIR_SELECTED) | A_BOLD);
		}
	}
	if (!t->res.nrows)
		mvprintw(y0 + 1, 0, "no samples in this window");
}

static void footer(const struct top *t)
{
	if (t->message[0]) {
		/* the rows may reach this line: the message takes it whole */
		move(LINES - 2, 0);
		clrtoeol();
		attron(COLOR_PAIR(PAIR_MESSAGE) | A_BOLD);
		put_clipped(LINES - 2, 0, t->message, COLS);
		attroff(COLOR_PAIR(PAIR_MESSAGE) | A_BOLD);
	}
	attron(A_REVERSE);
	put_clipped(LINES - 1, 0,
		    " q quit  g group  Enter drill  Bksp back  / filter  p peek  H hist  F flame  +/- zoom  </> pan  f follow  s sort  ? help ",
		    COLS);
	attroff(A_REVERSE);
}

static void draw(struct top *t, int utf8)
{
	erase();
	header(t, utf8);
	rows(t, 5, utf8);
	footer(t);
	refresh();
}

/* A line of input at the bottom, started with initial; NULL when cancelled. */
static char *prompt(const char *label, const char *initial)
{
	char buf[512];
	size_t len;
	int ch;

	snprintf(buf, sizeof(buf), "%s", initial ? initial : "");
	len = strlen(buf);
	curs_set(1);
	for (;;) {
		move(LINES - 1, 0);
		clrtoeol();
		attron(A_BOLD);
		printw("%s: ", label);
		attroff(A_BOLD);
		addnstr(buf, COLS - (int)strlen(label) - 3);
		refresh();
		ch = next_key();
		if (ch == '\n' || ch == KEY_ENTER)
			break;
		if (ch == KEY_ESCAPE || ch == KEY_QUIT) {
			curs_set(0);
			return NULL;
		}
		if ((ch == KEY_BACKSPACE || ch == 127 || ch == 8) && len)
			buf[--len] = '\0';
		else if (ch == 21) /* ^U */
			buf[len = 0] = '\0';
		else if (ch >= 32 && ch < 256 && len + 1 < sizeof(buf))
			buf[len++] = (char)ch, buf[len] = '\0';
	}
	curs_set(0);
	return xstrdup(buf);
}

/* A full-screen text, scrolled with the arrows, closed with q, Esc or the key that opened it. */
static void pager(const char *title, char *const *lines, size_t n, int close_key)
{
	size_t top = 0;
	int ch;

	timeout(-1);
	for (;;) {
		erase();
		attron(A_BOLD | COLOR_PAIR(PAIR_HEADER));
		put_clipped(0, 0, title, COLS);
		attroff(A_BOLD | COLOR_PAIR(PAIR_HEADER));
		for (int y = 1; y < LINES - 1 && top + (size_t)y - 1 < n; y++)
			put_clipped(y, 0, lines[top + (size_t)y - 1], COLS);
		attron(A_REVERSE);
		put_clipped(LINES - 1, 0, " Up/Down PgUp/PgDn scroll   q or Esc: back ", COLS);
		attroff(A_REVERSE);
		refresh();
		ch = next_key();
		if (ch == 'q' || ch == KEY_ESCAPE || ch == close_key || ch == KEY_QUIT)
			break;
		if ((ch == KEY_DOWN || ch == 'j') && top + 1 < n)
			top++;
		else if ((ch == KEY_UP || ch == 'k') && top)
			top--;
		else if (ch == KEY_NPAGE)
			top = top + (size_t)LINES < n ? top + (size_t)LINES - 2 : top;
		else if (ch == KEY_PPAGE)
			top = top > (size_t)LINES - 2 ? top - (size_t)LINES + 2 : 0;
	}
}

static void free_lines(char **lines, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(lines[i]);
	free(lines);
}

static void add_line(char ***lines, size_t *n, const char *s)
{
	*lines = xrealloc(*lines, (*n + 1) * sizeof(**lines));
	(*lines)[(*n)++] = xstrdup(s);
}

/* One group-by of the window's samples that meet filter, sorted; 0, or an error. */
static int window_query(struct top *t, const char *group, const char *filter, struct agg_result *r)
{
	struct agg_query q = { .cat = t->q.cat, .group = group, .filter = filter,
			       .from_us = t->end_us - t->span_us, .to_us = t->end_us };
	struct store_reader set;
	int err = query_open_store(&t->q, &set);

	if (err)
		return err;
	err = aggregate(&set, &q, r);
	store_reader__free(&set);
	if (!err)
		agg_result__sort(r);
	return err;
}

/* A thread's name as its samples in the window have it, into buf ("" if it has none there). */
static const char *thread_name(struct top *t, int64_t tid, char *buf, size_t size)
{
	struct agg_result r;
	struct agg_value v;
	char filter[48];

	buf[0] = '\0';
	snprintf(filter, sizeof(filter), "tid = %lld", (long long)tid);
	if (window_query(t, "comm", filter, &r))
		return buf;
	if (r.nrows) {
		agg_result__values(&r, &r.rows[0], &v);
		if (v.type == SQLITE_TEXT)
			snprintf(buf, size, " %.*s", (int)v.len, v.text);
	}
	agg_result__free(&r);
	return buf;
}

/*
 * Who holds the selected group's threads up, where a lock's holder was
 * named: each holder, the chain's root behind it, and a deadlock marked.
 */
static void add_blockers(struct top *t, const char *filter, char ***lines, size_t *n)
{
	struct agg_result r;
	struct agg_value v[3];
	char line[512], holder[32], root[32];
	int said = 0;

	if (window_query(t, "blocker_tid,chain_root_tid,chain_cycle", filter, &r))
		return;
	for (size_t i = 0; i < r.nrows && said < 10; i++) {
		agg_result__values(&r, &r.rows[i], v);
		if (v[0].type != SQLITE_INTEGER)
			continue;
		if (!said++)
			add_line(lines, n, "blocked by (the thread holding the lock it waits for):");
		snprintf(line, sizeof(line), "  %.2f threads, %.1f%% of the group: blocked by %lld%s",
			 agg_result__avg(&r, &r.rows[i]), 100.0 * agg_result__share(&r, &r.rows[i]), (long long)v[0].i,
			 thread_name(t, v[0].i, holder, sizeof(holder)));
		add_line(lines, n, line);
		if (v[2].type == SQLITE_INTEGER && v[2].i)
			snprintf(line, sizeof(line), "      a deadlock: the chain closes on itself (its lowest tid %lld%s)",
				 (long long)v[1].i, thread_name(t, v[1].i, root, sizeof(root)));
		else if (v[1].type == SQLITE_INTEGER && v[1].i != v[0].i)
			snprintf(line, sizeof(line), "      whose chain ends at %lld%s", (long long)v[1].i,
				 thread_name(t, v[1].i, root, sizeof(root)));
		else
			continue;
		add_line(lines, n, line);
	}
	if (said)
		add_line(lines, n, "");
	agg_result__free(&r);
}

/* The top stacks of the selected group: frames innermost first, as a debugger shows them. */
static void peek(struct top *t)
{
	static const char *const kinds[] = { "kstack", "ustack" };
	char *terms = top__row_filter(t), *filter, line[1024], title[512];
	char **lines = NULL;
	size_t n = 0;

	if (!terms)
		return;
	filter = top__and_filters(top__level(t)->filter, terms);
	add_blockers(t, filter, &lines, &n);
	for (size_t k = 0; k < ARRAY_SIZE(kinds); k++) {
		struct agg_query q = { .cat = t->q.cat, .group = kinds[k], .filter = filter,
				       .from_us = t->end_us - t->span_us, .to_us = t->end_us };
		struct agg_result r;
		struct agg_value v;
		struct store_reader set;

		if (query_open_store(&t->q, &set))
			break;
		if (aggregate(&set, &q, &r)) {
			store_reader__free(&set);
			break;
		}
		agg_result__sort(&r);
		snprintf(line, sizeof(line), "%s stacks (%s):", k ? "user" : "kernel", kinds[k]);
		add_line(&lines, &n, line);
		for (size_t i = 0; i < r.nrows && i < 10; i++) {
			agg_result__values(&r, &r.rows[i], &v);
			snprintf(line, sizeof(line), "  %.2f threads, %.1f%% of the group%s", agg_result__avg(&r, &r.rows[i]),
				 100.0 * agg_result__share(&r, &r.rows[i]),
				 v.type == SQLITE_NULL ? ": no stack (on CPU, or not taken)" : "");
			add_line(&lines, &n, line);
			/* folded "outer;...;inner": print from the innermost */
			for (size_t end = v.len; v.type == SQLITE_TEXT && end > 0;) {
				size_t start = end;

				while (start > 0 && v.text[start - 1] != ';')
					start--;
				snprintf(line, sizeof(line), "      %.*s", (int)(end - start), v.text + start);
				add_line(&lines, &n, line);
				end = start ? start - 1 : 0;
			}
		}
		add_line(&lines, &n, "");
		agg_result__free(&r);
		store_reader__free(&set);
	}
	snprintf(title, sizeof(title), "holders and stacks of %s", terms);
	pager(title, lines, n, 'p');
	free_lines(lines, n);
	free(filter);
	free(terms);
}

/*
 * The flame graph of the selected row's samples in the window, into a new
 * file in the current directory (else the temporary one); the message line
 * says where.
 */
static void write_flame(struct top *t)
{
	char *terms = top__row_filter(t), *filter, path[320], title[700], sub[256], stamp[32], cwd[256];
	const char *dir = access(".", W_OK) || !getcwd(cwd, sizeof(cwd)) ? (getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp")
									  : cwd;
	struct store_reader set;
	struct agg_result res;
	struct flame *f = NULL;
	time_t now = time(NULL);
	FILE *out;

	if (!terms)
		return;
	filter = top__and_filters(top__level(t)->filter, terms);
	strftime(stamp, sizeof(stamp), "%Y%m%d-%H%M%S", localtime(&now));
	if ((size_t)snprintf(path, sizeof(path), "%s/tract-flame-%s.svg", dir, stamp) >= sizeof(path))
		snprintf(path, sizeof(path), "/tmp/tract-flame-%s.svg", stamp);
	if (query_open_store(&t->q, &set)) {
		snprintf(t->message, sizeof(t->message), "cannot open the store");
	} else {
		if (!flame__select(&set, &(struct flame_selection){ .filter = filter, .from_us = t->end_us - t->span_us,
								    .to_us = t->end_us, .strict = t->q.strict },
				   &f, &res)) {
			if (!f) {
				snprintf(t->message, sizeof(t->message), "no samples of %s to draw", terms);
			} else if (!(out = fopen(path, "wx"))) {
				snprintf(t->message, sizeof(t->message), "cannot write %s: %s", path, strerror(errno));
			} else {
				snprintf(title, sizeof(title), "Thread time: %s", filter);
				flame__describe(&res, 0, sub, sizeof(sub));
				if (flame__write_svg(f, out, &(struct flame_svg_opts){ .title = title, .subtitle = sub }) |
				    fclose(out))
					snprintf(t->message, sizeof(t->message), "cannot write %s", path);
				else
					snprintf(t->message, sizeof(t->message), "flame graph of %s written to %s", terms, path);
			}
			flame__free(f);
			agg_result__free(&res);
		}
		store_reader__free(&set);
	}
	free(filter);
	free(terms);
}

/*
 * The latency histograms of the selected row, as text: its process's (and
 * syscall's, if the row has one) syscall latency, its process's waits for a
 * CPU, and the block I/O of its device, from the histograms the recorder
 * keeps (waits for a CPU only with record --runq-latency).
 */
static void histograms(struct top *t)
{
	static const struct {
		const struct catalog *cat;
		const char *title;
		const char *names[2], *as[2];
		size_t n;
	} kinds[] = {
		{ &catalog_syscall, "syscall latency", { "pcomm", "syscall" }, { "pcomm", "syscall" }, 2 },
		{ &catalog_runq, "waits for a CPU (record --runq-latency)", { "pcomm" }, { "pcomm" }, 1 },
		{ &catalog_io, "block I/O latency", { "io_dev", "io_op" }, { "dev", "op" }, 2 },
	};
	struct render_opts ro = { .format = RENDER_TABLE };
	char **lines = NULL, group[128], line[1024];
	size_t n = 0;
	struct store_reader set;

	if (query_open_store(&t->q, &set))
		return;
	for (size_t k = 0; k < ARRAY_SIZE(kinds); k++) {
		char *terms = top__row_terms(t, kinds[k].names, kinds[k].as, kinds[k].n), *text = NULL;
		struct agg_query q = { .cat = kinds[k].cat, .group = group, .filter = *terms ? terms : NULL,
				       .from_us = t->end_us - t->span_us, .to_us = t->end_us, .strict = t->q.strict };
		struct agg_result r;
		size_t len = 0;
		FILE *mem;

		snprintf(group, sizeof(group), "%s,le_us", kinds[k].cat->default_group);
		snprintf(line, sizeof(line), "%s%s%s:", kinds[k].title, *terms ? ", " : "", terms);
		add_line(&lines, &n, line);
		if (!aggregate(&set, &q, &r)) {
			if (!r.nrows) {
				add_line(&lines, &n, "  none in the window");
			} else if ((mem = open_memstream(&text, &len))) {
				render_hists(mem, &r, &ro);
				fclose(mem);
				for (char *l = text, *nl; l && *l; l = nl ? nl + 1 : NULL) {
					nl = strchr(l, '\n');
					if (nl)
						*nl = '\0';
					snprintf(line, sizeof(line), "  %s", l);
					add_line(&lines, &n, line);
				}
				free(text);
			}
			agg_result__free(&r);
		}
		add_line(&lines, &n, "");
		free(terms);
	}
	store_reader__free(&set);
	pager("latency histograms of the selected row", lines, n, 'H');
	free_lines(lines, n);
}

static void help(const struct top *t)
{
	char **lines = NULL, line[256];
	size_t n = 0;
	static const char *const keys[] = {
		"Up/Down, PgUp/PgDn, Home/End   select a row",
		"Enter        drill into the selected row: its values become a filter, and the",
		"             grouping goes on: processes, threads (comm,title,state,syscall), wait, kstack",
		"Backspace    back to the view before the last drill-down",
		"g            choose the columns to group by (comma-separated)",
		"t            the process title (command line) in the grouping, or out again",
		"/            edit the filter (e.g. state=DISK and comm~\"^kworker\")",
		"p            peek: the kernel and user stacks of the selected row",
		"F            write the selected row's flame graph (SVG) to a file, and say where",
		"H            the selected row's latency histograms: syscall, CPU wait, block I/O",
		"+ / -        zoom the time window in / out",
		"< / >        pan the window back / forward (Left/Right too)",
		"f            follow: the window ends at the newest sample",
		"s            sort by size or by name",
		"q            quit",
		"",
		"Columns to group and filter by:",
	};

	for (size_t i = 0; i < ARRAY_SIZE(keys); i++)
		add_line(&lines, &n, keys[i]);
	for (size_t i = 0; i < t->q.cat->ncolumns; i++) {
		snprintf(line, sizeof(line), "  %-14s %s", t->q.cat->columns[i].name, t->q.cat->columns[i].doc);
		add_line(&lines, &n, line);
	}
	pager("tract top: keys", lines, n, '?');
	free_lines(lines, n);
}

/* One key; returns 1 when the data must be read again. */
static int handle_key(struct top *t, int ch)
{
	struct top_level *l = top__level(t);
	size_t n = t->have_res ? t->res.nrows : 0;
	char *s;

	t->message[0] = '\0';
	switch (ch) {
	case KEY_DOWN: case 'j':
		if (l->selected + 1 < n)
			l->selected++;
		return 0;
	case KEY_UP: case 'k':
		if (l->selected)
			l->selected--;
		return 0;
	case KEY_NPAGE:
		l->selected = l->selected + (size_t)LINES < n ? l->selected + (size_t)LINES - 8 : (n ? n - 1 : 0);
		return 0;
	case KEY_PPAGE:
		l->selected = l->selected > (size_t)LINES - 8 ? l->selected - (size_t)LINES + 8 : 0;
		return 0;
	case KEY_HOME:
		l->selected = 0;
		return 0;
	case KEY_END:
		l->selected = n ? n - 1 : 0;
		return 0;
	case '\n': case KEY_ENTER:
		return !top__drill(t);
	case KEY_BACKSPACE: case 127: case 8:
		return top__back(t);
	case 'g':
		s = prompt("group by", l->group);
		if (s)
			top__set_group(t, s);
		free(s);
		return 1;
	case 't':
		top__toggle_title(t);
		return 1;
	case '/':
		s = prompt("filter", l->filter);
		if (s)
			top__set_filter(t, s);
		free(s);
		return 1;
	case 'F':
		write_flame(t);
		return 0;
	case 'H':
		histograms(t);
		return 1;
	case 'p':
		peek(t);
		return 1;
	case '+': case '=':
		top__zoom(t, 0.5);
		return 1;
	case '-':
		top__zoom(t, 2);
		return 1;
	case '<': case KEY_LEFT:
		top__pan(t, -0.5);
		return 1;
	case '>': case KEY_RIGHT:
		top__pan(t, 0.5);
		return 1;
	case 'f':
		t->follow = 1;
		return 1;
	case 's':
		t->by_values = !t->by_values;
		return 1;
	case '?': case 'h':
		help(t);
		return 0;
	case 'q': case 'Q':
		quit_requested = 1;
		return 0;
	default:
		return 0;
	}
}

int top_screen_run(struct top *t, unsigned int interval_ms, int utf8)
{
	uint64_t next = 0;

	install_handlers();
	start_screen();
	while (!quit_requested) {
		int ch;

		if (mono_ns() >= next) {
			top__refresh(t, (size_t)(COLS > 12 ? COLS - 12 : 0));
			next = mono_ns() + (uint64_t)interval_ms * 1000000;
		}
		draw(t, utf8);
		timeout((int)interval_ms);
		ch = next_key();
		if (ch == KEY_QUIT)
			break;
		if (ch == ERR || ch == KEY_RESIZE)
			continue;
		if (handle_key(t, ch))
			next = 0;
	}
	restore_terminal();
	return 0;
}
