// SPDX-License-Identifier: GPL-2.0-only
/* Process titles: command lines cleaned, read at most once a second per process, and never NULL. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "proctitle.h"
#include "sample.h"

#define SEC 1000000000ull

static size_t clean(const char *raw, size_t len, char *out)
{
	memset(out, 'X', PROCTITLE_MAX + 1);
	return proctitle_clean(raw, len, out);
}

static void arguments_are_joined_by_spaces(void **state)
{
	char out[PROCTITLE_MAX + 1];
	static const char argv[] = "/usr/bin/python3\0-u\0serve.py\0--port\0" "8080";

	(void)state;
	/* the kernel gives each argument its NUL, the last one too */
	assert_int_equal(clean(argv, sizeof(argv), out), strlen("/usr/bin/python3 -u serve.py --port 8080"));
	assert_string_equal(out, "/usr/bin/python3 -u serve.py --port 8080");
	/* a title written over argv, its area padded with NULs (PostgreSQL's) or spaces */
	static const char padded[] = "postgres: checkpointer \0\0\0\0\0\0\0\0";
	assert_int_equal(clean(padded, sizeof(padded), out), strlen("postgres: checkpointer"));
	assert_string_equal(out, "postgres: checkpointer");
	/* an empty argument is a space of its own: the bytes are the process's */
	assert_int_equal(clean("a\0\0b\0", 5, out), 4);
	assert_string_equal(out, "a  b");
}

static void control_characters_are_replaced(void **state)
{
	char out[PROCTITLE_MAX + 1];
	static const char raw[] = "evil\ntitle\r\twith\x1b[31mcolour\x7f";

	(void)state;
	assert_int_equal(clean(raw, sizeof(raw) - 1, out), sizeof(raw) - 1);
	assert_string_equal(out, "evil?title??with?[31mcolour?");
	for (const char *c = out; *c; c++)
		assert_true((unsigned char)*c >= 0x20 && *c != 0x7f);
	/* bytes past ASCII are kept as they are, like every name (not always UTF-8) */
	assert_int_equal(clean("caf\xc3\xa9 \xff", 7, out), 7);
	assert_string_equal(out, "caf\xc3\xa9 \xff");
}

static void long_titles_are_cut(void **state)
{
	char raw[PROCTITLE_MAX + 64], out[PROCTITLE_MAX + 1];

	(void)state;
	memset(raw, 'a', sizeof(raw));
	assert_int_equal(clean(raw, sizeof(raw), out), PROCTITLE_MAX);
	assert_int_equal(strlen(out), PROCTITLE_MAX);
	/* a two-byte character across the cut goes whole */
	memset(raw, 'a', sizeof(raw));
	raw[PROCTITLE_MAX - 1] = '\xc3';
	raw[PROCTITLE_MAX] = '\xa9';
	assert_int_equal(clean(raw, sizeof(raw), out), PROCTITLE_MAX - 1);
	assert_int_equal(out[PROCTITLE_MAX - 2], 'a');
	/* a cut that leaves a space last drops it */
	raw[PROCTITLE_MAX - 1] = ' ';
	raw[PROCTITLE_MAX] = 'b';
	assert_int_equal(clean(raw, sizeof(raw), out), PROCTITLE_MAX - 1);
}

static void empty_command_lines_give_nothing(void **state)
{
	char out[PROCTITLE_MAX + 1];

	(void)state;
	/* a kernel thread's or a zombie's */
	assert_int_equal(clean("", 0, out), 0);
	assert_string_equal(out, "");
	assert_int_equal(clean("\0\0 \0", 4, out), 0);
	assert_string_equal(out, "");
}

/* A fake /proc: each process a directory with its cmdline. */
struct fake {
	char root[64];
};

static void write_cmdline(struct fake *f, unsigned pid, const char *bytes, size_t len)
{
	char path[128];
	FILE *fp;

	snprintf(path, sizeof(path), "%s/%u", f->root, pid);
	mkdir(path, 0755);
	snprintf(path, sizeof(path), "%s/%u/cmdline", f->root, pid);
	fp = fopen(path, "w");
	assert_non_null(fp);
	assert_int_equal(fwrite(bytes, 1, len, fp), len);
	fclose(fp);
}

static void row(struct pass *p, uint32_t tid, uint32_t tgid, const char *pcomm, uint32_t flags)
{
	struct sample *r = pass__add_row(p);

	r->tid = tid;
	r->tgid = tgid;
	r->flags = flags;
	strncpy(r->pcomm, pcomm, sizeof(r->pcomm) - 1);
	strncpy(r->comm, pcomm, sizeof(r->comm) - 1);
}

static void a_pass_of(struct proctitles *t, struct pass *p, uint64_t now_ns)
{
	pass__reset(p);
	row(p, 100, 100, "postgres", 0);
	row(p, 101, 101, "postgres", 0);
	row(p, 200, 200, "java", 0);
	row(p, 201, 200, "java", 0);
	row(p, 7, 7, "kworker/0:1", TRACT_SF_KTHREAD);
	row(p, 300, 300, "zombie", 0);
	row(p, 999, 999, "gone", 0);
	proctitles__fill(t, p, now_ns);
}

static void rows_get_their_processes_titles(void **state)
{
	struct fake f;
	struct pass p = { 0 };
	struct proctitles *t;
	struct proctitles_stats st;
	static const char ckpt[] = "postgres: checkpointer \0\0\0\0";
	static const char idle[] = "postgres: app shop [local] idle\0\0\0";
	static const char update[] = "postgres: app shop [local] UPDATE waiting\0";
	static const char java[] = "java\0-jar\0app.jar";

	(void)state;
	snprintf(f.root, sizeof(f.root), "/tmp/tract-proctitle-XXXXXX");
	assert_non_null(mkdtemp(f.root));
	write_cmdline(&f, 100, ckpt, sizeof(ckpt));
	write_cmdline(&f, 101, idle, sizeof(idle));
	write_cmdline(&f, 200, java, sizeof(java));
	write_cmdline(&f, 300, "", 0);
	t = proctitles__new(f.root);

	a_pass_of(t, &p, 10 * SEC);
	/* two processes of one name told apart */
	assert_string_equal(p.rows[0].title, "postgres: checkpointer");
	assert_string_equal(p.rows[1].title, "postgres: app shop [local] idle");
	assert_string_equal(p.rows[2].title, "java -jar app.jar");
	/* a process's threads share its title, one copy */
	assert_ptr_equal(p.rows[3].title, p.rows[2].title);
	/* as ps shows them: a kernel thread's name in brackets, read from nowhere */
	assert_string_equal(p.rows[4].title, "[kworker/0:1]");
	assert_string_equal(p.rows[5].title, "[zombie]");
	/* gone before it was read: its name, never NULL */
	assert_string_equal(p.rows[6].title, "gone");
	proctitles__stats(t, &st);
	assert_int_equal(st.reads, 5);

	/* the backend runs a statement: not read again within the second */
	write_cmdline(&f, 101, update, sizeof(update));
	a_pass_of(t, &p, 10 * SEC + SEC / 2);
	assert_string_equal(p.rows[1].title, "postgres: app shop [local] idle");
	proctitles__stats(t, &st);
	assert_int_equal(st.reads, 5);
	/* ... and a second after the last read, it is */
	a_pass_of(t, &p, 11 * SEC);
	assert_string_equal(p.rows[1].title, "postgres: app shop [local] UPDATE waiting");
	proctitles__stats(t, &st);
	assert_int_equal(st.reads, 10);

	/* a process that ends keeps the title it had */
	snprintf(p.rows[0].comm, sizeof(p.rows[0].comm), "x");
	{
		char path[128];

		snprintf(path, sizeof(path), "%s/100/cmdline", f.root);
		unlink(path);
		snprintf(path, sizeof(path), "%s/100", f.root);
		rmdir(path);
	}
	a_pass_of(t, &p, 12 * SEC);
	assert_string_equal(p.rows[0].title, "postgres: checkpointer");

	/* an exec (a new name) is read at once */
	pass__reset(&p);
	row(&p, 200, 200, "python3", 0);
	write_cmdline(&f, 200, "python3\0x.py", 12);
	proctitles__fill(t, &p, 12 * SEC + 1);
	assert_string_equal(p.rows[0].title, "python3 x.py");

	/* processes no pass had for a minute are forgotten */
	pass__reset(&p);
	proctitles__fill(t, &p, 100 * SEC);
	proctitles__stats(t, &st);
	assert_int_equal(st.cached, 0);

	proctitles__free(t);
	pass__free_rows(&p);
	{
		char cmd[128];

		snprintf(cmd, sizeof(cmd), "rm -rf %s", f.root);
		assert_int_equal(system(cmd), 0);
	}
}

/* Thousands of processes: a pass reads each new one, and a bounded number of the others again, each in turn. */
static void reads_again_are_bounded_per_pass(void **state)
{
	enum { N = PROCTITLE_REFRESHES_PER_PASS + 40 };
	struct fake f;
	struct pass p = { 0 };
	struct proctitles *t;
	struct proctitles_stats st;
	static const uint64_t at[] = { 10 * SEC, 11 * SEC, 11 * SEC + SEC / 2, 12 * SEC, 12 * SEC + SEC / 2 };
	uint64_t reads = 0;
	char cmd[128];

	(void)state;
	snprintf(f.root, sizeof(f.root), "/tmp/tract-proctitle-XXXXXX");
	assert_non_null(mkdtemp(f.root));
	for (unsigned pid = 1000; pid < 1000 + N; pid++)
		write_cmdline(&f, pid, "worker\0", 7);
	t = proctitles__new(f.root);
	for (int pass = 0; pass < 5; pass++) {
		pass__reset(&p);
		for (unsigned pid = 1000; pid < 1000 + N; pid++)
			row(&p, pid, pid, "worker", 0);
		proctitles__fill(t, &p, at[pass]);
		for (size_t i = 0; i < p.nr; i++)
			assert_string_equal(p.rows[i].title, "worker");
		proctitles__stats(t, &st);
		/*
		 * all at first; a second on, the budget; half a second on, the
		 * 40 it left (the others are not a second old); and so on in turn
		 */
		assert_int_equal(st.reads - reads, pass == 0 ? N : pass % 2 ? PROCTITLE_REFRESHES_PER_PASS : 40);
		reads = st.reads;
	}
	/* once a second, every title a second old each pass: each gets its turn, none starves */
	for (unsigned pid = 1000; pid < 1000 + N; pid++)
		write_cmdline(&f, pid, "worker\0two", 10);
	for (int pass = 0; pass < 2; pass++) {
		size_t seen = 0;

		pass__reset(&p);
		for (unsigned pid = 1000; pid < 1000 + N; pid++)
			row(&p, pid, pid, "worker", 0);
		proctitles__fill(t, &p, 13 * SEC + SEC / 2 + (uint64_t)pass * SEC);
		for (size_t i = 0; i < p.nr; i++)
			seen += !strcmp(p.rows[i].title, "worker two");
		assert_int_equal(seen, pass ? N : PROCTITLE_REFRESHES_PER_PASS);
	}
	proctitles__free(t);
	pass__free_rows(&p);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", f.root);
	assert_int_equal(system(cmd), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(arguments_are_joined_by_spaces),
		cmocka_unit_test(control_characters_are_replaced),
		cmocka_unit_test(long_titles_are_cut),
		cmocka_unit_test(empty_command_lines_give_nothing),
		cmocka_unit_test(rows_get_their_processes_titles),
		cmocka_unit_test(reads_again_are_bounded_per_pass),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
