// SPDX-License-Identifier: GPL-2.0-only
/*
 * User stack symbolization against live processes: this test binary (PIE),
 * the libc and vdso it runs on, a child that shares them, a copy of the
 * binary mapped elsewhere and deleted, and processes that are gone.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include <link.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>
#include "sample.h"
#include "stackdict.h"
#include "usyms.h"

#define SEC 1000000000ull
/* mapped by nothing in this process, yet not low enough to be skipped as junk */
#define UNMAPPED 0x10000ull

/* Out of line and not static, so that the binary's .symtab names it. */
int usyms_test_target(int n);
__attribute__((noinline)) int usyms_test_target(int n)
{
	volatile int sum = 0;

	for (int i = 0; i < n; i++)
		sum += i;
	return sum;
}

static uint64_t target(void)
{
	return (uint64_t)(uintptr_t)usyms_test_target;
}

/* From libc itself: under ASan a plain &fn may be the sanitizer's interceptor. */
static uint64_t libc_fn(const char *name)
{
	void *libc = dlopen("libc.so.6", RTLD_NOW | RTLD_NOLOAD);
	void *fn;

	assert_non_null(libc);
	fn = dlsym(libc, name);
	assert_non_null(fn);
	dlclose(libc);
	return (uint64_t)(uintptr_t)fn;
}

static const char *exe_name(void)
{
	static char path[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", path, sizeof(path) - 1);

	assert_true(n > 0);
	path[n] = '\0';
	return basename(path);
}

static char *symbolize(struct usyms *u, int pid, const uint64_t *ips, size_t n)
{
	char *text = NULL;

	assert_int_equal(usyms__symbolize(u, pid, 0, ips, n, &text), 0);
	assert_non_null(text);
	return text;
}

static void expect_text(struct usyms *u, int pid, const uint64_t *ips, size_t n, const char *want)
{
	char *text = symbolize(u, pid, ips, n);

	assert_string_equal(text, want);
	free(text);
}

static void functions_of_the_binary_and_libc(void **state)
{
	struct usyms *u = usyms__new(0);
	/* innermost is the exact PC, the rest are return addresses: looked up one byte back */
	uint64_t ips[] = { target() + 1, target() + 1, libc_fn("getpid") + 1, libc_fn("fsync") + 0x2b };
	char want[512];

	(void)state;
	snprintf(want, sizeof(want),
		 "usyms_test_target+0x1 (%s)\n"
		 "usyms_test_target+0x1 (%s)\n"
		 "getpid+0x1 (libc.so.6)\n"
		 "fsync+0x2b (libc.so.6)", exe_name(), exe_name());
	expect_text(u, getpid(), ips, 4, want);
	usyms__free(u);
}

static void return_addresses_are_looked_up_one_byte_back(void **state)
{
	struct usyms *u = usyms__new(0);
	uint64_t ips[] = { libc_fn("getpid"), libc_fn("getpid") };
	char *text;

	(void)state;
	text = symbolize(u, getpid(), ips, 2);
	/* the first names getpid; the second returns to its first byte, so a call ended just before */
	assert_memory_equal(text, "getpid+0x0 (libc.so.6)\n", 23);
	assert_null(strstr(text + 23, "getpid"));
	free(text);
	usyms__free(u);
}

static void vdso_by_its_image(void **state)
{
	void *vdso = dlopen("linux-vdso.so.1", RTLD_NOW | RTLD_NOLOAD);
	struct usyms *u;
	uint64_t ip;

	(void)state;
	if (!vdso || !dlsym(vdso, "__vdso_clock_gettime"))
		skip();
	ip = (uint64_t)(uintptr_t)dlsym(vdso, "__vdso_clock_gettime") + 1;
	u = usyms__new(0);
	expect_text(u, getpid(), &ip, 1, "clock_gettime+0x1 ([vdso])");
	usyms__free(u);
}

static void unmapped_addresses_are_unknown(void **state)
{
	struct usyms *u = usyms__new(0);
	uint64_t ips[] = { UNMAPPED, 0, target() + 1 };
	char want[256];

	(void)state;
	snprintf(want, sizeof(want), "0x10000 ([unknown])\n0x0 ([unknown])\nusyms_test_target+0x1 (%s)",
		 exe_name());
	expect_text(u, getpid(), ips, 3, want);
	expect_text(u, getpid(), ips, 0, "");
	usyms__free(u);
}

/*
 * A caller in no mapping is where a walk by frame pointers went astray
 * (through code that keeps none): the stack stops below it and says it
 * was cut, never an address as a frame; an innermost one is where the
 * thread ran, and stays.
 */
static void a_caller_in_no_mapping_cuts_the_stack(void **state)
{
	struct usyms *u = usyms__new(0);
	struct stackdict *sd = stackdict__new(NULL, u);
	uint64_t astray[] = { target() + 1, UNMAPPED, target() + 1 }, ran[] = { UNMAPPED, target() + 1 };
	const struct kstack *s;

	(void)state;
	s = stackdict__add_user(sd, 1, getpid(), astray, 3, 0);
	assert_string_equal(s->frames, "[cut];usyms_test_target");
	s = stackdict__add_user(sd, 2, getpid(), ran, 2, 0);
	assert_string_equal(s->frames, "usyms_test_target;[unknown]+0x10000");
	stackdict__free(sd);
	usyms__free(u);
}

static void a_process_that_is_gone_fails_cleanly(void **state)
{
	struct usyms *u = usyms__new(0);
	uint64_t ip = target();
	char *untouched = (char *)"untouched";
	char *text = untouched;
	pid_t child;

	(void)state;
	child = fork();
	assert_true(child >= 0);
	if (!child)
		_exit(0);
	assert_int_equal(waitpid(child, NULL, 0), child);
	assert_int_equal(usyms__symbolize(u, child, 0, &ip, 1, &text), -ESRCH);
	assert_ptr_equal(text, untouched);
	usyms__free(u);
}

static void another_process_shares_the_symbol_tables(void **state)
{
	struct usyms *u = usyms__new(0);
	uint64_t ips[] = { target() + 3, libc_fn("getpid") + 1, libc_fn("fsync") + 5 };
	struct usyms_stats before, after;
	char *mine, *theirs, c;
	int pipefd[2];
	pid_t child;

	(void)state;
	assert_int_equal(pipe(pipefd), 0);
	child = fork();
	assert_true(child >= 0);
	if (!child) {
		/* the same binary and libraries at the same addresses, until the parent lets go */
		close(pipefd[1]);
		while (read(pipefd[0], &c, 1) > 0)
			;
		_exit(0);
	}
	close(pipefd[0]);
	mine = symbolize(u, getpid(), ips, 3);
	usyms__stats(u, &before);
	theirs = symbolize(u, child, ips, 3);
	usyms__stats(u, &after);
	close(pipefd[1]);
	assert_int_equal(waitpid(child, NULL, 0), child);

	assert_string_equal(theirs, mine);
	assert_non_null(strstr(theirs, "usyms_test_target+0x3 ("));
	assert_non_null(strstr(theirs, "fsync+0x5 (libc.so.6)"));
	/* its maps were read, but no file's symbols again */
	assert_int_equal(after.maps_reads, before.maps_reads + 1);
	assert_int_equal(after.modules_loaded, before.modules_loaded);
	assert_true(after.modules_loaded >= 2);
	assert_int_equal(after.procs, 2);
	free(mine);
	free(theirs);
	usyms__free(u);
}

struct exec_segment {
	uint64_t fn_vaddr;
	const ElfW(Phdr) *ph;
};

static int find_exec_segment(struct dl_phdr_info *info, size_t size, void *data)
{
	struct exec_segment *seg = data;

	(void)size;
	/* the main program comes first */
	seg->fn_vaddr = target() - info->dlpi_addr;
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];

		if (ph->p_type == PT_LOAD && (ph->p_flags & PF_X) && seg->fn_vaddr >= ph->p_vaddr &&
		    seg->fn_vaddr - ph->p_vaddr < ph->p_filesz)
			seg->ph = ph;
	}
	return 1;
}

/*
 * A copy of this binary mapped at another address and deleted: found through
 * map_files, placed through its program headers, and recognised by build-id.
 */
static void a_deleted_copy_mapped_elsewhere(void **state)
{
	struct usyms *u = usyms__new(0);
	struct usyms_stats before, after;
	struct exec_segment seg = { 0 };
	char exe[PATH_MAX], copy[PATH_MAX + 16], buf[65536], want[PATH_MAX + 64];
	uint64_t ip, file_off, map_off, len;
	long page = sysconf(_SC_PAGESIZE);
	int in, out;
	ssize_t n;
	void *map;

	(void)state;
	snprintf(want, sizeof(want), "usyms_test_target+0x0 (%s)", exe_name());
	expect_text(u, getpid(), (uint64_t[]){ target() }, 1, want);
	dl_iterate_phdr(find_exec_segment, &seg);
	assert_non_null(seg.ph);
	n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	assert_true(n > 0);
	exe[n] = '\0';
	/* next to the binary: /tmp may be mounted noexec */
	snprintf(copy, sizeof(copy), "%s.copy-XXXXXX", exe);
	out = mkstemp(copy);
	assert_true(out >= 0);
	in = open("/proc/self/exe", O_RDONLY);
	assert_true(in >= 0);
	while ((n = read(in, buf, sizeof(buf))) > 0)
		assert_int_equal(write(out, buf, n), n);
	close(in);

	file_off = seg.fn_vaddr - seg.ph->p_vaddr + seg.ph->p_offset;
	map_off = seg.ph->p_offset & ~(uint64_t)(page - 1);
	len = seg.ph->p_offset + seg.ph->p_filesz - map_off;
	map = mmap(NULL, len, PROT_READ | PROT_EXEC, MAP_PRIVATE, out, map_off);
	close(out);
	unlink(copy);
	if (map == MAP_FAILED)
		skip();	/* a noexec mount */
	ip = (uint64_t)(uintptr_t)map + (file_off - map_off) + 2;
	assert_true(ip != target() + 2);

	usyms__stats(u, &before);
	snprintf(want, sizeof(want), "usyms_test_target+0x2 (%s)", basename(copy));
	/* mapped after maps was read: the miss makes it read again */
	expect_text(u, getpid(), &ip, 1, want);
	usyms__stats(u, &after);
	assert_int_equal(after.maps_reads, before.maps_reads + 1);
	assert_int_equal(after.modules_loaded, before.modules_loaded);
	munmap(map, len);
	usyms__free(u);
}

static void new_code_is_found_and_junk_is_paced(void **state)
{
	struct usyms *u = usyms__new(0);
	uint64_t ip = target(), junk = UNMAPPED;
	struct usyms_stats st;
	char want[64];
	void *jit;

	(void)state;
	free(symbolize(u, getpid(), &ip, 1));
	jit = mmap(NULL, 4096, PROT_READ | PROT_EXEC, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	assert_true(jit != MAP_FAILED);
	ip = (uint64_t)(uintptr_t)jit + 0x10;
	snprintf(want, sizeof(want), "0x%llx ([jit])", (unsigned long long)ip);
	expect_text(u, getpid(), &ip, 1, want);
	usyms__stats(u, &st);
	assert_int_equal(st.maps_reads, 2);

	/* an address in no mapping re-reads maps at most once a second */
	expect_text(u, getpid(), &junk, 1, "0x10000 ([unknown])");
	expect_text(u, getpid(), &junk, 1, "0x10000 ([unknown])");
	usyms__stats(u, &st);
	assert_int_equal(st.maps_reads, 2);
	usyms__end_pass(u, 2 * SEC);
	expect_text(u, getpid(), &junk, 1, "0x10000 ([unknown])");
	usyms__stats(u, &st);
	assert_int_equal(st.maps_reads, 3);
	munmap(jit, 4096);
	usyms__free(u);
}

static void jit_code_is_named_by_the_perf_map(void **state)
{
	struct usyms *u = usyms__new(0);
	struct usyms_stats st;
	char map[64], want[64];
	uint64_t ips[2];
	char *jit;
	FILE *f;

	(void)state;
	jit = mmap(NULL, 8192, PROT_READ | PROT_EXEC, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	assert_true(jit != MAP_FAILED);
	snprintf(map, sizeof(map), "/tmp/perf-%d.map", (int)getpid());
	f = fopen(map, "w");
	assert_non_null(f);
	fprintf(f, "%llx 100 Load.compute\n", (unsigned long long)(uintptr_t)jit);
	fclose(f);
	ips[0] = (uint64_t)(uintptr_t)jit + 0x10;
	ips[1] = (uint64_t)(uintptr_t)jit + 0x1000;
	snprintf(want, sizeof(want), "Load.compute+0x10 ([jit])\n0x%llx ([jit])", (unsigned long long)ips[1]);
	expect_text(u, getpid(), ips, 2, want);

	/* the runtime compiles more: read within a second, the "0x" form too */
	f = fopen(map, "a");
	assert_non_null(f);
	fprintf(f, "0x%016llx 0x80 int Load.more(int)\n", (unsigned long long)ips[1]);
	fclose(f);
	usyms__end_pass(u, 2 * SEC);
	ips[0] = ips[1] + 0x20;
	expect_text(u, getpid(), ips, 1, "int Load.more(int)+0x20 ([jit])");
	usyms__stats(u, &st);
	assert_int_equal(st.jit_maps, 1);
	assert_int_equal(st.jit_reads, 2);
	assert_true(st.jit_bytes > 0);

	/* the process's map goes with it */
	usyms__forget(u, getpid(), 0);
	usyms__stats(u, &st);
	assert_int_equal(st.jit_maps, 0);
	assert_int_equal(st.jit_bytes, 0);
	unlink(map);
	munmap(jit, 8192);
	usyms__free(u);
}

static void reused_pids_and_idle_processes_are_forgotten(void **state)
{
	struct usyms *u = usyms__new(0);
	uint64_t ip = target();
	struct usyms_stats st;
	char *text;

	(void)state;
	assert_int_equal(usyms__symbolize(u, getpid(), 100, &ip, 1, &text), 0);
	free(text);
	assert_int_equal(usyms__symbolize(u, getpid(), 100, &ip, 1, &text), 0);
	free(text);
	usyms__stats(u, &st);
	assert_int_equal(st.maps_reads, 1);
	/* another start time: another process under the same pid */
	assert_int_equal(usyms__symbolize(u, getpid(), 200, &ip, 1, &text), 0);
	free(text);
	usyms__stats(u, &st);
	assert_int_equal(st.maps_reads, 2);
	assert_int_equal(st.procs, 1);

	usyms__end_pass(u, 1 * SEC);
	usyms__end_pass(u, 30 * SEC);
	usyms__stats(u, &st);
	assert_int_equal(st.procs, 1);
	/* last seen in the pass ending at 1 s */
	usyms__end_pass(u, 62 * SEC);
	usyms__stats(u, &st);
	assert_int_equal(st.procs, 0);
	usyms__free(u);
	usyms__free(NULL);
}

static void modules_no_stack_went_through_for_a_minute_go(void **state)
{
	struct usyms *u = usyms__new(0);
	uint64_t mine = target() + 1;
	struct usyms_stats st, before;
	struct usyms_cfi cfi;
	char want[256];

	(void)state;
	snprintf(want, sizeof(want), "usyms_test_target+0x1 (%s)", exe_name());
	usyms__end_pass(u, 1 * SEC);
	expect_text(u, getpid(), &mine, 1, want);
	usyms__stats(u, &before);
	assert_true(before.modules >= 1);
	/* what libdw reads of a module's call frame information is counted with it */
	assert_int_equal(usyms__cfi(u, getpid(), 0, mine, &cfi), 0);
	usyms__stats(u, &st);
	assert_true(st.symbol_bytes > before.symbol_bytes);
	/* while a process that maps it is cached, it stays */
	usyms__end_pass(u, 62 * SEC);
	usyms__stats(u, &st);
	assert_int_equal(st.modules, before.modules);
	/* the process ended: a minute later, no stack having gone through them since, its modules go */
	usyms__forget(u, getpid(), 0);
	usyms__end_pass(u, 100 * SEC);
	usyms__stats(u, &st);
	assert_int_equal(st.modules, before.modules);
	usyms__end_pass(u, 123 * SEC);
	usyms__stats(u, &st);
	assert_int_equal(st.modules, 0);
	assert_int_equal(st.symbol_bytes, 0);
	assert_int_equal(st.modules_evicted, st.modules_loaded);
	/* and read again when a stack goes through it again */
	expect_text(u, getpid(), &mine, 1, want);
	usyms__stats(u, &st);
	assert_true(st.modules >= 1);
	assert_true(st.modules_loaded > before.modules_loaded);
	usyms__free(u);
}

static void evicted_modules_come_back(void **state)
{
	struct usyms *u = usyms__new(1);
	uint64_t mine = target() + 1, theirs = libc_fn("getpid") + 1;
	struct usyms_stats st;
	char want[256];

	(void)state;
	snprintf(want, sizeof(want), "usyms_test_target+0x1 (%s)", exe_name());
	for (int i = 0; i < 2; i++) {
		expect_text(u, getpid(), &mine, 1, want);
		expect_text(u, getpid(), &theirs, 1, "getpid+0x1 (libc.so.6)");
	}
	usyms__stats(u, &st);
	assert_int_equal(st.modules, 1);
	assert_int_equal(st.modules_loaded, 4);
	assert_int_equal(st.modules_evicted, 3);
	usyms__free(u);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(functions_of_the_binary_and_libc),
		cmocka_unit_test(return_addresses_are_looked_up_one_byte_back),
		cmocka_unit_test(vdso_by_its_image),
		cmocka_unit_test(unmapped_addresses_are_unknown),
		cmocka_unit_test(a_caller_in_no_mapping_cuts_the_stack),
		cmocka_unit_test(a_process_that_is_gone_fails_cleanly),
		cmocka_unit_test(another_process_shares_the_symbol_tables),
		cmocka_unit_test(a_deleted_copy_mapped_elsewhere),
		cmocka_unit_test(new_code_is_found_and_junk_is_paced),
		cmocka_unit_test(jit_code_is_named_by_the_perf_map),
		cmocka_unit_test(reused_pids_and_idle_processes_are_forgotten),
		cmocka_unit_test(modules_no_stack_went_through_for_a_minute_go),
		cmocka_unit_test(evicted_modules_come_back),
	};
	return cmocka_run_group_tests_name("usyms", tests, NULL, NULL);
}
