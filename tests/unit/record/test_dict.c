// SPDX-License-Identifier: GPL-2.0-only
/* Dictionaries, symbol lookup and folding behind the store's dimensions and stacks. */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include <cmocka.h>
#include "dict.h"
#include "ksyms.h"
#include "stackdict.h"
#include "usyms.h"

static void ids_are_dense_and_stable(void **state)
{
	struct dict *d = dict__new();
	int added;
	char key[32];

	(void)state;
	for (int i = 0; i < 10000; i++) {
		snprintf(key, sizeof(key), "key-%d", i);
		assert_int_equal(dict__intern(d, key, strlen(key), &added), i + 1);
		assert_true(added);
	}
	assert_int_equal(dict__intern(d, "key-5", 5, &added), 6);
	assert_false(added);
	assert_int_equal(dict__find(d, "key-9999", 8), 10000);
	assert_int_equal(dict__find(d, "nope", 4), 0);
	dict__clear(d);
	assert_int_equal(dict__size(d), 0);
	assert_int_equal(dict__intern(d, "key-9", 5, &added), 1);
	dict__free(d);
	dict__free(NULL);
}

/* keys of every length up to a few words, and keys that differ only in their last byte or their length */
static void keys_differing_in_any_byte_are_apart(void **state)
{
	struct dict *d = dict__new();
	unsigned char key[40] = { 0 };
	uint32_t want = 0;
	int added;

	(void)state;
	for (size_t len = 0; len <= sizeof(key); len++)
		assert_int_equal(dict__intern(d, key, len, &added), ++want);
	for (size_t len = 1; len <= sizeof(key); len++) {
		key[len - 1] = 1;
		assert_int_equal(dict__intern(d, key, len, &added), ++want);
		assert_true(added);
		key[len - 1] = 0;
	}
	for (size_t len = 0; len <= sizeof(key); len++)
		assert_int_equal(dict__find(d, key, len), len + 1);
	assert_int_equal(dict__size(d), want);
	dict__free(d);
}

static void values_and_string_pools(void **state)
{
	struct dict *d = dict__new();
	const char *a, *b;
	int added;
	uint32_t id;

	(void)state;
	id = dict__intern(d, "k", 1, &added);
	assert_int_equal(*dict__value(d, id), 0);
	*dict__value(d, id) = 42;
	/* values and stored keys survive the table growing */
	for (int i = 0; i < 5000; i++) {
		char key[16];

		snprintf(key, sizeof(key), "%d", i);
		dict__intern(d, key, strlen(key), &added);
	}
	assert_int_equal(*dict__value(d, id), 42);
	assert_memory_equal(dict__key(d, id), "k", 1);
	dict__free(d);

	d = dict__new();
	a = dict__intern_str(d, "/usr/bin/bash");
	b = dict__intern_str(d, "/usr/bin/bash");
	assert_ptr_equal(a, b);
	assert_string_equal(a, "/usr/bin/bash");
	assert_ptr_not_equal(dict__intern_str(d, "/usr/bin/ba"), a);
	dict__free(d);
}

static struct ksyms *fake_ksyms(void)
{
	char path[] = "/tmp/tract-ksyms-XXXXXX";
	int fd = mkstemp(path);
	FILE *f = fdopen(fd, "w");
	struct ksyms *ks;

	fputs("ffffffff81000000 T _stext\n"
	      "ffffffff81000100 t schedule\n"
	      "ffffffff81000200 T do_sys_poll\n"
	      "ffffffff81000300 D some_data\n"
	      "ffffffff81000400 T entry_SYSCALL_64\n", f);
	fclose(f);
	ks = ksyms__load(path);
	unlink(path);
	return ks;
}

static void kernel_symbols_resolve_to_their_function(void **state)
{
	struct ksyms *ks = fake_ksyms();
	uint64_t off;

	(void)state;
	assert_non_null(ks);
	assert_string_equal(ksyms__lookup(ks, 0xffffffff81000105, &off), "schedule");
	assert_int_equal(off, 5);
	/* data symbols are not functions */
	assert_string_equal(ksyms__lookup(ks, 0xffffffff81000310, NULL), "do_sys_poll");
	assert_null(ksyms__lookup(ks, 0x1000, NULL));
	ksyms__free(ks);
}

static void write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

/*
 * Past the end of the kernel's text is a module's or a BPF program's code:
 * named by its own symbol, listed once it is loaded, never by the kernel's
 * last one.
 */
static void code_past_the_kernels_text_names_itself(void **state)
{
	char path[] = "/tmp/tract-ksyms-XXXXXX";
	const char *text = "ffffffff81000000 T _stext\n"
			   "ffffffff81000100 t schedule\n"
			   "ffffffff82000000 T _etext\n"
			   "ffffffff83000000 T init_fn\n"
			   "ffffffff83100000 T _einittext\n";
	struct ksyms *ks;

	(void)state;
	close(mkstemp(path));
	write_file(path, text);
	ks = ksyms__load(path);
	assert_non_null(ks);
	assert_null(ksyms__lookup(ks, 0xffffffffc0026c20, NULL));
	assert_null(ksyms__lookup(ks, 0xffffffff82000010, NULL));
	assert_string_equal(ksyms__lookup(ks, 0xffffffff83000010, NULL), "init_fn");
	/* a program loaded since: listed after the kernel's, named once read again */
	write_file(path, "ffffffff81000000 T _stext\n"
			 "ffffffff81000100 t schedule\n"
			 "ffffffff82000000 T _etext\n"
			 "ffffffff83100000 T _einittext\n"
			 "ffffffffc0201000 t ftrace_trampoline\t[__builtin__ftrace]\n"
			 "ffffffffc0026c1c t bpf_prog_22c6550ab763b903_tract_block_rq_insert\t[bpf]\n");
	/* read a moment ago: not again for an address that names nothing */
	assert_null(ksyms__name(ks, 0xffffffffc0026c20));
	ksyms__reread(ks);
	assert_string_equal(ksyms__name(ks, 0xffffffffc0026c20), "bpf_prog_22c6550ab763b903_tract_block_rq_insert");
	assert_string_equal(ksyms__name(ks, 0xffffffff81000105), "schedule");
	unlink(path);
	ksyms__free(ks);
}

/*
 * Read by a thread of its own, the table is the same once waited for; code
 * the caller adds (its own BPF programs) is named, between what was there.
 */
static void symbols_read_meanwhile_and_code_added(void **state)
{
	char path[] = "/tmp/tract-ksyms-XXXXXX";
	const struct ksym_code own[] = {
		{ 0xffffffffc0026c1c, "bpf_prog_22c6550ab763b903_tract_block_rq_insert" },
		{ 0, "bpf_prog_0000000000000000_hidden" },
	};
	struct ksyms *ks;

	(void)state;
	close(mkstemp(path));
	write_file(path, "ffffffff81000000 T _stext\n"
			 "ffffffff81000100 t schedule\n"
			 "ffffffff82000000 T _etext\n"
			 "ffffffffc0020000 t some_module_fn\t[some_module]\n"
			 "ffffffffc0030000 t bpf_prog_0123456789abcdef_other\t[bpf]\n");
	ks = ksyms__load_async(path);
	assert_non_null(ks);
	assert_int_equal(ksyms__wait(ks), 0);
	assert_int_equal(ksyms__wait(ks), 0);
	assert_string_equal(ksyms__lookup(ks, 0xffffffff81000105, NULL), "schedule");
	assert_string_equal(ksyms__lookup(ks, 0xffffffffc0026c20, NULL), "some_module_fn");
	ksyms__add(ks, own, 2);
	assert_string_equal(ksyms__lookup(ks, 0xffffffffc0026c20, NULL), "bpf_prog_22c6550ab763b903_tract_block_rq_insert");
	assert_string_equal(ksyms__lookup(ks, 0xffffffffc0020010, NULL), "some_module_fn");
	assert_string_equal(ksyms__lookup(ks, 0xffffffffc0030010, NULL), "bpf_prog_0123456789abcdef_other");
	assert_string_equal(ksyms__lookup(ks, 0xffffffff81000105, NULL), "schedule");
	assert_int_equal(ksyms__address(ks, "bpf_prog_0000000000000000_hidden"), 0);
	ksyms__free(ks);
	/* one that cannot be read says why, names nothing, and never reads again */
	unlink(path);
	ks = ksyms__load_async(path);
	assert_int_equal(ksyms__wait(ks), -ENOENT);
	write_file(path, "ffffffff81000000 T _stext\nffffffff81000100 t schedule\n");
	assert_null(ksyms__name(ks, 0xffffffff81000105));
	unlink(path);
	ksyms__free(ks);
}

static void stacks_are_folded_outermost_first(void **state)
{
	struct ksyms *ks = fake_ksyms();
	struct stackdict *sd = stackdict__new(ks, NULL);
	const uint64_t ip[] = { 0xffffffff81000110, 0xffffffff81000210, 0xffffffff81000410 };
	const uint64_t ip2[] = { 0xffffffff81000120, 0xffffffff81000220, 0xffffffff81000420 };
	const struct kstack *a, *b;

	(void)state;
	a = stackdict__add(sd, 77, ip, 3);
	assert_string_equal(a->frames, "entry_SYSCALL_64;do_sys_poll;schedule");
	assert_string_equal(a->wait, "schedule");
	assert_ptr_equal(stackdict__get(sd, 77), a);
	assert_null(stackdict__get(sd, 78));
	/* other offsets in the same functions: another raw stack, the same text and hash */
	b = stackdict__add(sd, 78, ip2, 3);
	assert_int_equal(a->hash, b->hash);
	assert_true(a->hash <= INT64_MAX);
	stackdict__free(sd);
	ksyms__free(ks);
}

/* Out of line and not static, so that the binary's .symtab names it. */
int dict_test_leaf(void);
int dict_test_caller(void);
__attribute__((noinline)) int dict_test_leaf(void)
{
	return 7;
}

__attribute__((noinline)) int dict_test_caller(void)
{
	return dict_test_leaf() + 1;
}

int __libc_start_main(int (*main)(int, char **, char **), int argc, char **argv, void (*init)(void),
		      void (*fini)(void), void (*rtld_fini)(void), void *stack_end);

/*
 * A copied stack stopped at a function's first byte, called from code that
 * no table covers (JIT) and that keeps no frame pointer: the function comes
 * out by its name, its caller as module+address, and the stack says it was
 * cut where the tables ran out.
 */
static void user_frames_with_no_symbol_or_no_table(void **state)
{
	struct usyms *us = usyms__new(0);
	struct stackdict *sd = stackdict__new(NULL, us);
	struct tract_ustack_copy copy = { .kind = TRACT_REC_USTACK_COPY, .hash = TRACT_COPY_ID | 1,
					  .tgid = (uint32_t)getpid() };
	uint64_t bytes[8] = { 0 };
	void *jit = mmap(NULL, 4096, PROT_READ | PROT_EXEC, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	const struct kstack *s;
	char want[128];

	(void)state;
	assert_true(jit != MAP_FAILED);
	/* at a function's entry the return address is at the stack pointer */
	bytes[0] = (uint64_t)(uintptr_t)jit + 0x10;
	copy.len = sizeof(bytes);
	copy.regs[TRACT_UREG_SP] = 0x7ffd0000;
	copy.regs[TRACT_UREG_IP] = (uint64_t)(uintptr_t)dict_test_leaf;
	copy.regs[TRACT_UREG_BP] = 0;	/* nor a frame pointer to step by */
	s = stackdict__add_user_copy(sd, &copy, bytes);
	snprintf(want, sizeof(want), "[cut];[jit];dict_test_leaf");
	assert_string_equal(s->frames, want);
	assert_string_equal(s->wait, "dict_test_leaf");
	assert_ptr_equal(stackdict__get(sd, copy.hash), s);
	stackdict__free(sd);
	usyms__free(us);
	munmap(jit, 4096);
}

/*
 * A stack through JIT code seen before the runtime wrote its perf map:
 * "[jit]" then, and named once the map is there, though the same frames
 * come again under the same key; named alike after that.
 */
static void jit_frames_are_named_once_the_map_is_written(void **state)
{
	struct usyms *us = usyms__new(0);
	struct stackdict *sd = stackdict__new(NULL, us);
	char *jit = mmap(NULL, 4096, PROT_READ | PROT_EXEC, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	uint64_t ip[2];
	const struct kstack *s;
	char map[64];
	FILE *f;

	(void)state;
	assert_true(jit != MAP_FAILED);
	snprintf(map, sizeof(map), "/tmp/perf-%d.map", (int)getpid());
	unlink(map);
	ip[0] = (uint64_t)(uintptr_t)jit + 0x10;
	ip[1] = (uint64_t)(uintptr_t)jit + 0x110;
	s = stackdict__add_user(sd, 0x1234, (uint32_t)getpid(), ip, 2, 1);
	assert_string_equal(s->frames, "[cut];[jit];[jit]");
	f = fopen(map, "w");
	assert_non_null(f);
	fprintf(f, "%llx 80 Load.compute\n%llx 80 Load.main\n", (unsigned long long)(uintptr_t)jit,
		(unsigned long long)(uintptr_t)jit + 0x100);
	fclose(f);
	/* the map is looked at again a second on */
	usyms__end_pass(us, 2000000000ull);
	s = stackdict__add_user(sd, 0x1234, (uint32_t)getpid(), ip, 2, 1);
	assert_string_equal(s->frames, "[cut];Load.main;Load.compute");
	assert_ptr_equal(stackdict__add_user(sd, 0x1234, (uint32_t)getpid(), ip, 2, 1), s);
	unlink(map);
	stackdict__free(sd);
	usyms__free(us);
	munmap(jit, 4096);
}

/*
 * The kernel's walk does not say where it stopped: a stack that does not
 * begin where a process does reads as cut, as the same frames from a walk
 * that knows.
 */
static void a_walk_that_does_not_say_is_judged_by_its_outermost_frame(void **state)
{
	struct usyms *us = usyms__new(0);
	struct stackdict *sd = stackdict__new(NULL, us);
	uint64_t whole[2] = { (uint64_t)(uintptr_t)dict_test_leaf + 1, (uint64_t)(uintptr_t)__libc_start_main + 1 };
	uint64_t part[2] = { (uint64_t)(uintptr_t)dict_test_leaf + 1, (uint64_t)(uintptr_t)dict_test_caller + 1 };
	const struct kstack *s;

	(void)state;
	s = stackdict__add_user(sd, 1, (uint32_t)getpid(), whole, 2, -1);
	assert_non_null(strstr(s->frames, "__libc_start_main"));
	assert_true(strncmp(s->frames, "[cut]", 5));
	s = stackdict__add_user(sd, 2, (uint32_t)getpid(), part, 2, -1);
	assert_string_equal(s->frames, "[cut];dict_test_caller;dict_test_leaf");
	/* a walk that says so is taken at its word */
	s = stackdict__add_user(sd, 3, (uint32_t)getpid(), part, 2, 0);
	assert_string_equal(s->frames, "dict_test_caller;dict_test_leaf");
	stackdict__free(sd);
	usyms__free(us);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(ids_are_dense_and_stable),
		cmocka_unit_test(keys_differing_in_any_byte_are_apart),
		cmocka_unit_test(values_and_string_pools),
		cmocka_unit_test(kernel_symbols_resolve_to_their_function),
		cmocka_unit_test(code_past_the_kernels_text_names_itself),
		cmocka_unit_test(symbols_read_meanwhile_and_code_added),
		cmocka_unit_test(stacks_are_folded_outermost_first),
		cmocka_unit_test(user_frames_with_no_symbol_or_no_table),
		cmocka_unit_test(jit_frames_are_named_once_the_map_is_written),
		cmocka_unit_test(a_walk_that_does_not_say_is_judged_by_its_outermost_frame),
	};
	return cmocka_run_group_tests_name("dict", tests, NULL, NULL);
}
