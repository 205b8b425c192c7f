// SPDX-License-Identifier: GPL-2.0-only
/*
 * CPython's own frames: 3.11's location table (co_linetable) decoded as
 * the interpreter does, checked against what Python 3.11 itself says of
 * the same code (co_lines()), tables that lie, Python frames merged into a
 * native stack in place of the eval calls that run them, and an
 * interpreter whose memory lies (a /proc laid out by the test, Debian's
 * python3.11 as its binary).
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <fcntl.h>
#include <gelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "python.h"
#include "tract/abi.h"

/*
 * def f(n):                        # line 2
 *     total = 0
 *     for i in range(n):
 *
 *         if i % 3 == 0:
 *             total += i * 2
 *         else:
 *             total -= 1
 *     try:
 *         x = [j for j in range(3)]
 *     except ValueError:
 *         pass
 *     return (total +
 *             len(x))
 *
 * f.__code__.co_linetable from Debian's python3.11, and the line of each
 * code unit from co_lines() (-1: none).
 */
static const uint8_t table[] = { 0x80, 0x00, 0xd8, 0x0c, 0x0d, 0x80, 0x45, 0xdd, 0x0d, 0x12, 0x90, 0x31, 0x89, 0x58, 0x8c, 0x58, 0xf0, 0x00, 0x05, 0x05, 0x17, 0xf0, 0x00, 0x05, 0x05, 0x17, 0x88, 0x01, 0xe0, 0x0b, 0x0c, 0x88, 0x71, 0x89, 0x35, 0x90, 0x41, 0x8a, 0x3a, 0x88, 0x3a, 0xd8, 0x0c, 0x11, 0x90, 0x51, 0x98, 0x11, 0x91, 0x55, 0x89, 0x4e, 0x88, 0x45, 0x88, 0x45, 0xe0, 0x0c, 0x11, 0x90, 0x51, 0x89, 0x4a, 0x88, 0x45, 0x88, 0x45, 0xf0, 0x02, 0x03, 0x05, 0x0d, 0xd8, 0x0c, 0x21, 0xd0, 0x0c, 0x21, 0x9d, 0x05, 0x98, 0x61, 0x99, 0x08, 0x9c, 0x08, 0xd0, 0x0c, 0x21, 0xd1, 0x0c, 0x21, 0xd4, 0x0c, 0x21, 0x88, 0x01, 0x88, 0x01, 0xf8, 0xdd, 0x0b, 0x15, 0xf0, 0x00, 0x01, 0x05, 0x0d, 0xf0, 0x00, 0x01, 0x05, 0x0d, 0xf0, 0x00, 0x01, 0x05, 0x0d, 0xd8, 0x08, 0x0c, 0x88, 0x04, 0xf0, 0x03, 0x01, 0x05, 0x0d, 0xf8, 0xf8, 0xf8, 0xe0, 0x0c, 0x11, 0xdd, 0x0c, 0x0f, 0x90, 0x01, 0x89, 0x46, 0x8c, 0x46, 0xf1, 0x03, 0x01, 0x0d, 0x13, 0xf0, 0x00, 0x01, 0x05, 0x14 };
static const int lines[] = { 2, 3, 3, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 6, 6, 6, 6, 6, 6, 6, 6, 6, 7, 7, 7, 7, 7, 7, 7, 7, 7, 9, 9, 9, 9, 9, 9, 10, 11, 11, 11, 11, 11, 11, 11, 11, 11, 11, 11, 11, 11, 11, 11, 11, 11, 11, 11, 11, 11, 11, 11, 11, 11, 11, -1, 12, 12, 12, 12, 12, 12, 12, 12, 12, 13, 13, 12, -1, -1, -1, 14, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 14, 14, 14 };

static void lines_as_python_says(void **state)
{
	(void)state;
	for (size_t u = 0; u < sizeof(lines) / sizeof(lines[0]); u++)
		assert_int_equal(python__line(table, sizeof(table), 2, (int64_t)u), lines[u]);
	/* past the end, and before the start (a frame not begun) */
	assert_int_equal(python__line(table, sizeof(table), 2, 100000), -1);
	assert_int_equal(python__line(table, sizeof(table), 2, -1), -1);
}

static void tables_that_lie(void **state)
{
	/* an entry's first byte has bit 7 set; a varint that never ends; an entry cut short */
	static const uint8_t unsynced[] = { 0x05, 0x80 };
	static const uint8_t endless[] = { 0xe8, 0x7f, 0x7f, 0x7f, 0x7f, 0x7f, 0x7f, 0x7f, 0x7f };
	static const uint8_t cut[] = { 0xf0, 0x00 };
	uint8_t noise[4096];

	(void)state;
	assert_int_equal(python__line(unsynced, sizeof(unsynced), 1, 0), -1);
	assert_int_equal(python__line(endless, sizeof(endless), 1, 5), -1);
	assert_int_equal(python__line(cut, sizeof(cut), 1, 0), -1);
	assert_int_equal(python__line(table, 0, 7, 0), -1);
	/* whatever bytes: an answer, never a read past the end */
	srand(1);
	for (int round = 0; round < 200; round++) {
		size_t n = (size_t)rand() % sizeof(noise);
		uint8_t *copy;

		for (size_t i = 0; i < n; i++)
			noise[i] = (uint8_t)(rand() | 0x80);
		copy = malloc(n ? n : 1);
		memcpy(copy, noise, n);
		(void)python__line(copy, n, 1, rand() % 5000);
		free(copy);
	}
}

static char *merged(const char *folded, int cut, size_t nr, ...)
{
	struct python_stack ps = { .nr = nr };
	va_list ap;
	char *out;

	va_start(ap, nr);
	for (size_t i = 0; i < nr; i++)
		ps.seg[i] = va_arg(ap, char *);
	va_end(ap);
	out = python__merge(folded, &ps, cut);
	return out;
}

static void merge_in_place_of_eval_calls(void **state)
{
	static const char native[] =
		"_start;__libc_start_main;Py_BytesMain;_PyEval_EvalFrameDefault;_PyFunction_Vectorcall;"
		"sorted;_PyEval_EvalFrameDefault;time_sleep;clock_nanosleep";
	char *out;

	(void)state;
	/* innermost call first: the one that runs key() */
	out = merged(native, 0, 2, "key (/app.py:3)", "<module> (/app.py:9);main (/app.py:6)");
	assert_string_equal(out, "_start;__libc_start_main;Py_BytesMain;<module> (/app.py:9);main (/app.py:6);"
				 "_PyFunction_Vectorcall;sorted;key (/app.py:3);time_sleep;clock_nanosleep");
	free(out);
	/* a count that disagrees is a chain read as it changed: native frames as they are */
	assert_null(merged(native, 0, 1, "key (/app.py:3)"));
	assert_null(merged(native, 0, 3, "a (/a.py:1)", "b (/a.py:2)", "c (/a.py:3)"));
	/* ... unless the native walk was cut: its outermost calls are the missing ones */
	out = merged("_PyEval_EvalFrameDefault;spin", 1, 3, "inner (/a.py:1)", "mid (/a.py:2)", "out (/a.py:3)");
	assert_string_equal(out, "inner (/a.py:1);spin");
	free(out);
	/* an eval call that runs no frame yet keeps its own name; a cold part is the same call */
	out = merged("main;_PyEval_EvalFrameDefault.cold;_PyEval_EvalFrameDefault", 0, 2, "", "f (/a.py:1)");
	assert_string_equal(out, "main;f (/a.py:1);_PyEval_EvalFrameDefault");
	free(out);
	/* no interpreter in the stack, or no Python frames */
	assert_null(merged("main;compute", 0, 1, "f (/a.py:1)"));
	assert_null(merged(native, 0, 0));
	assert_null(python__merge(native, NULL, 0));
	/* a frame that only begins like the eval function is not it */
	assert_null(merged("_PyEval_EvalFrameDefaultX;f", 0, 1, "g (/a.py:1)"));
}

/* Debian 12's python3.11: not position-independent, so its symbols' values are its addresses */
#define PY311 "/usr/bin/python3.11"
#define PID 4242

static uint64_t RUNTIME, VERSION, CODE_TYPE, UNICODE_TYPE, LOAD;
static int mem_fd;

/* The interpreter's symbols, as the recorder finds them, and where it loads; 0 when it is not there. */
static int py311_symbols(void)
{
	const char *want[] = { "_PyRuntime", "Py_Version", "PyCode_Type", "PyUnicode_Type" };
	uint64_t *vals[] = { &RUNTIME, &VERSION, &CODE_TYPE, &UNICODE_TYPE };
	int fd = open(PY311, O_RDONLY), found = 0;
	Elf_Scn *scn = NULL;
	GElf_Ehdr eh;
	Elf *elf;

	if (fd < 0)
		return 0;
	elf_version(EV_CURRENT);
	elf = elf_begin(fd, ELF_C_READ, NULL);
	while (elf && (scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		Elf_Data *data;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_DYNSYM || !(data = elf_getdata(scn, NULL)))
			continue;
		for (size_t i = 1; i < sh.sh_size / sh.sh_entsize; i++) {
			GElf_Sym sym;
			const char *name;

			if (!gelf_getsym(data, (int)i, &sym) || !(name = elf_strptr(elf, sh.sh_link, sym.st_name)))
				continue;
			for (size_t k = 0; k < 4; k++)
				if (!strcmp(name, want[k]) && sym.st_shndx != SHN_UNDEF) {
					*vals[k] = sym.st_value;
					found |= 1 << k;
				}
		}
	}
	for (size_t i = 0; elf && !LOAD && i < 16; i++) {
		GElf_Phdr ph;

		if (gelf_getphdr(elf, (int)i, &ph) && ph.p_type == PT_LOAD)
			LOAD = ph.p_vaddr & ~0xfffull;
	}
	found = found == 15 && LOAD && elf && gelf_getehdr(elf, &eh) && eh.e_type == ET_EXEC;
	if (elf)
		elf_end(elf);
	close(fd);
	return found;
}

static void put(uint64_t addr, const void *p, size_t n)
{
	assert_int_equal(pwrite(mem_fd, p, n, (off_t)addr), (ssize_t)n);
}

static void put64(uint64_t addr, uint64_t v)
{
	put(addr, &v, sizeof(v));
}

/* A str object at addr: compact, of kind (1, 2 or 4 bytes a character), claiming len characters. */
static void put_str(uint64_t addr, int kind, int64_t len, const void *chars, size_t bytes)
{
	uint32_t state = (uint32_t)kind << 2 | 1u << 5 | (kind == 1 ? 1u << 6 : 0);

	put64(addr + 8, UNICODE_TYPE);
	put64(addr + 16, (uint64_t)len);
	put(addr + 32, &state, sizeof(state));
	put(addr + (kind == 1 ? 48 : 72), chars, bytes);
}

/* The copy's count for a thread off its CPU since, 7 times on one (as put_task_file() says below) */
#define STILL_OFF (7 << 2 | TRACT_STILL_OFF)

/* /proc/PID/task/PID/NAME under dir, as text */
static void put_task_file(const char *dir, const char *name, const char *text)
{
	char path[160];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%d/task/%d/%s", dir, PID, PID, name);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

static void hostile_memory(void **state)
{
	char dir[] = "/tmp/tpy.XXXXXX", path[128];
	static const char *const members[] = { "co_filename", "co_name", "co_qualname", "co_firstlineno", "co_linetable" };
	static const uint64_t offsets[] = { 112, 120, 128, 72, 136 };
	uint64_t names = 0x2000000, code = 0x3000000, frame = 0x4000000, interp = 0x5000000, ts = 0x6000000;
	uint32_t wide[300];
	char longname[5000];
	struct python_stack ps = { 0 };
	struct python *py;
	FILE *f;
	size_t n;

	(void)state;
	if (!py311_symbols())
		skip();
	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/%d", dir, PID);
	assert_int_equal(mkdir(path, 0700), 0);
	snprintf(path, sizeof(path), "%s/%d/root", dir, PID);
	assert_int_equal(symlink("/", path), 0);
	snprintf(path, sizeof(path), "%s/%d/maps", dir, PID);
	f = fopen(path, "w");
	assert_non_null(f);
	fprintf(f, "%08llx-%08llx r--p 00000000 08:01 1 " PY311 "\n", (unsigned long long)LOAD,
		(unsigned long long)LOAD + 0x1000);
	fclose(f);
	/* the thread as the kernel counts its switches: 7 times on a CPU, 5 voluntary switches */
	snprintf(path, sizeof(path), "%s/%d/task", dir, PID);
	assert_int_equal(mkdir(path, 0700), 0);
	snprintf(path, sizeof(path), "%s/%d/task/%d", dir, PID, PID);
	assert_int_equal(mkdir(path, 0700), 0);
	put_task_file(dir, "schedstat", "1000 200 7\n");
	put_task_file(dir, "status", "Name:\tpython3\nState:\tR (running)\nvoluntary_ctxt_switches:\t5\n"
				     "nonvoluntary_ctxt_switches:\t9\n");
	snprintf(path, sizeof(path), "%s/%d/mem", dir, PID);
	mem_fd = open(path, O_RDWR | O_CREAT, 0600);
	assert_true(mem_fd >= 0);

	put64(VERSION, 0x030b02f0);
	/* the code objects' fields as PyCode_Type describes them */
	put64(CODE_TYPE + 32, 184);
	put64(CODE_TYPE + 240, names);
	for (size_t i = 0; i < 5; i++) {
		put64(names + 40 * i, names + 0x1000 + 32 * i);
		put64(names + 40 * i + 16, offsets[i]);
		put(names + 0x1000 + 32 * i, members[i], strlen(members[i]) + 1);
	}
	/* one interpreter, whose one thread state is the thread's, and points back at it */
	put64(RUNTIME + 40, interp);
	put64(interp + 16, ts);
	put64(ts + 16, interp);
	put64(ts + 160, PID);
	put64(ts + 56, ts + 0x1000);
	put64(ts + 0x1000 + 8, frame);
	/* a frame whose caller is itself, its code's name 2^40 characters long, its file wide with ';' and a surrogate */
	put64(frame + 32, code);
	put64(frame + 48, frame);
	put64(frame + 56, code + 184 + 10);
	put64(code + 8, CODE_TYPE);
	put64(code + 120, code + 0x1000);
	put64(code + 128, code + 0x1000);
	put64(code + 112, code + 0x2000);
	put64(code + 136, code + 0x3000);	/* not a bytes object: no line */
	memset(longname, 'x', sizeof(longname));
	put_str(code + 0x1000, 1, 1ll << 40, longname, sizeof(longname));
	for (size_t i = 0; i < 300; i++)
		wide[i] = i == 3 ? ';' : i == 4 ? 0xd800 : i == 5 ? '\n' : 0x1f600;
	put_str(code + 0x2000, 4, 300, wide, sizeof(wide));

	py = python__new(dir);
	n = python__read(py, PID, PID, STILL_OFF, &ps);
	/* the cycle ends at the bound: one segment of 256 frames, each name cut to 200 characters */
	assert_int_equal(n, 1);
	assert_null(strstr(ps.seg[0], "\n"));
	{
		size_t frames = 1;

		for (const char *c = ps.seg[0]; *c; c++)
			frames += *c == ';';
		assert_int_equal(frames, 256);
		assert_non_null(strstr(ps.seg[0], "\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80:??"));
		assert_int_equal(strspn(ps.seg[0], "x"), 200);
	}
	python_stack__clear(&ps);

	/*
	 * The same frames of a thread still in its user code since its copy;
	 * none of one that switched since (asleep, or on a CPU again) or that
	 * no count tells (in the kernel then): they would be of a later moment
	 */
	assert_int_equal(python__read(py, PID, PID, 5 << 2 | TRACT_STILL_USER, &ps), 1);
	python_stack__clear(&ps);
	assert_int_equal(python__read(py, PID, PID, 4 << 2 | TRACT_STILL_USER, &ps), 0);
	assert_int_equal(python__read(py, PID, PID, 9 << 2 | TRACT_STILL_USER, &ps), 0);
	assert_int_equal(python__read(py, PID, PID, 6 << 2 | TRACT_STILL_OFF, &ps), 0);
	assert_int_equal(python__read(py, PID, PID, 7 << 2 | TRACT_STILL_NONE, &ps), 0);
	/* the count's low 30 bits, as the copy carries it */
	put_task_file(dir, "schedstat", "1000 200 1073741831\n");
	assert_int_equal(python__read(py, PID, PID, STILL_OFF, &ps), 1);
	python_stack__clear(&ps);
	/* a thread gone, or a file that says nothing */
	put_task_file(dir, "status", "Name:\tpython3\n");
	assert_int_equal(python__read(py, PID, PID, 5 << 2 | TRACT_STILL_USER, &ps), 0);
	snprintf(path, sizeof(path), "%s/%d/task/%d/schedstat", dir, PID, PID);
	assert_int_equal(unlink(path), 0);
	assert_int_equal(python__read(py, PID, PID, STILL_OFF, &ps), 0);
	put_task_file(dir, "schedstat", "1000 200 7\n");

	/* a code object that is not one: the chain moved as it was read, nothing of it shown */
	put64(code + 8, UNICODE_TYPE);
	assert_int_equal(python__read(py, PID, PID, STILL_OFF, &ps), 0);
	/* a thread list that goes round, none of it the thread's: looked for within bounds */
	put64(code + 8, CODE_TYPE);
	put64(ts + 160, PID + 1);
	put64(ts + 8, ts);
	assert_int_equal(python__read(py, PID, PID + 7, STILL_OFF, &ps), 0);
	python__free(py);

	close(mem_fd);
	snprintf(path, sizeof(path), "rm -rf '%s'", dir);
	assert_int_equal(system(path), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(lines_as_python_says),
		cmocka_unit_test(tables_that_lie),
		cmocka_unit_test(merge_in_place_of_eval_calls),
		cmocka_unit_test(hostile_memory),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
