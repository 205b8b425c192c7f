// SPDX-License-Identifier: GPL-2.0-only
/*
 * CFI unwinding of a live stack: a thread of this test, on a stack of its
 * own, stops three named calls deep (built without frame pointers), takes
 * its registers and the bytes above its stack pointer as the sampler would,
 * and the unwinder must find every caller in order up to the thread's
 * start, and say where a copy too short cut it.  Stacks laid out by hand
 * through code with no tables: a return address outside all code is no
 * frame, and a chain of frame pointers to another stack (Go's, from the
 * system stack it calls the vdso on) goes on there, once.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include "unwind.h"
#include "usyms.h"

#define STACK_SIZE (256 * 1024)

struct capture {
	char *stack_end;		/* the top of the thread's stack */
	struct tract_ustack_copy copy;
	unsigned char bytes[TRACT_USTACK_COPY];
};

/* Byte by byte and unchecked: the copy crosses the sanitizer's redzones of live frames. */
__attribute__((no_sanitize_address, noinline)) static void copy_raw(unsigned char *to, const volatile unsigned char *from,
								  size_t n)
{
	for (size_t i = 0; i < n; i++)
		to[i] = from[i];
}

/* The registers here, and the stack above: what the sampler copies of a thread. */
#define CAPTURE(c)                                                                                          \
	do {                                                                                                \
		__u64 *r = (c)->copy.regs;                                                                  \
		__asm__ volatile("mov %%rsp, %0\n\tmov %%rbp, %1\n\tmov %%rbx, %2\n\tmov %%r12, %3\n\t"     \
				 "mov %%r13, %4\n\tmov %%r14, %5\n\tmov %%r15, %6\n\tlea 0(%%rip), %7"      \
				 : "=m"(r[TRACT_UREG_SP]), "=m"(r[TRACT_UREG_BP]), "=m"(r[3]), "=m"(r[12]), \
				   "=m"(r[13]), "=m"(r[14]), "=m"(r[15]), "=r"(r[TRACT_UREG_IP]));           \
	} while (0)

int unwind_test_inner(struct capture *c);
int unwind_test_middle(struct capture *c);
int unwind_test_outer(struct capture *c);

__attribute__((noinline, optimize("omit-frame-pointer"))) int unwind_test_inner(struct capture *c)
{
	size_t len;

	CAPTURE(c);
	len = (size_t)(c->stack_end - (char *)(uintptr_t)c->copy.regs[TRACT_UREG_SP]);
	if (len > TRACT_USTACK_COPY)
		len = TRACT_USTACK_COPY;
	c->copy.len = (uint32_t)(len & ~7ul);
	copy_raw(c->bytes, (const unsigned char *)(uintptr_t)c->copy.regs[TRACT_UREG_SP], c->copy.len);
	return 1;
}

/* Each uses its callee's result, so no call becomes a jump. */
__attribute__((noinline, optimize("omit-frame-pointer"))) int unwind_test_middle(struct capture *c)
{
	return unwind_test_inner(c) + 1;
}

__attribute__((noinline, optimize("omit-frame-pointer"))) int unwind_test_outer(struct capture *c)
{
	return unwind_test_middle(c) * 3;
}

static void *thread_main(void *arg)
{
	unwind_test_outer(arg);
	return NULL;
}

/* Runs the chain on a thread whose stack's end is known. */
static struct capture *capture_chain(void)
{
	struct capture *c = calloc(1, sizeof(*c));
	void *stack = mmap(NULL, STACK_SIZE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	pthread_attr_t attr;
	pthread_t t;

	assert_non_null(c);
	assert_true(stack != MAP_FAILED);
	c->stack_end = (char *)stack + STACK_SIZE;
	c->copy.tgid = (uint32_t)getpid();
	assert_int_equal(pthread_attr_init(&attr), 0);
	assert_int_equal(pthread_attr_setstack(&attr, stack, STACK_SIZE), 0);
	assert_int_equal(pthread_create(&t, &attr, thread_main, c), 0);
	assert_int_equal(pthread_join(t, NULL), 0);
	pthread_attr_destroy(&attr);
	munmap(stack, STACK_SIZE);
	return c;
}

static void the_callers_come_out_in_order(void **state)
{
	struct capture *c = capture_chain();
	struct usyms *u = usyms__new(0);
	struct unwind_stats st = { 0 };
	uint64_t ips[TRACT_USTACK_MAX];
	static const char *const chain[] = {
		"unwind_test_inner+", "\nunwind_test_middle+", "\nunwind_test_outer+", "\nthread_main+",
		"\nstart_thread+",
	};
	int cut = -1;
	size_t n;
	char *text = NULL;
	long last = -1;

	(void)state;
	n = unwind__copy(u, &c->copy, c->bytes, ips, TRACT_USTACK_MAX - 1, &cut, &st);
	/* the function names, innermost first, one a line */
	assert_int_equal(usyms__symbolize(u, getpid(), 0, ips, n, &text), 0);
	/* innermost first, each frame after the one before */
	for (size_t i = 0; i < sizeof(chain) / sizeof(chain[0]); i++) {
		const char *at = strstr(text, chain[i]);

		if (!at || at - text <= last || (i == 0 && at != text))
			fail_msg("no %s where the chain has it:\n%s", chain[i], text);
		last = at - text;
	}
	/* glibc's clone3 says it has no caller: the stack is whole */
	assert_int_equal(cut, 0);
	assert_int_equal(st.stacks, 1);
	assert_int_equal(st.frames, n);
	assert_int_equal(st.cut, 0);
	free(text);
	usyms__free(u);
	free(c);
}

static void a_copy_too_short_is_cut(void **state)
{
	struct capture *c = capture_chain();
	struct usyms *u = usyms__new(0);
	uint64_t ips[TRACT_USTACK_MAX];
	size_t whole, n;
	int cut = -1;

	(void)state;
	whole = unwind__copy(u, &c->copy, c->bytes, ips, TRACT_USTACK_MAX - 1, &cut, NULL);
	c->copy.len = 16;
	n = unwind__copy(u, &c->copy, c->bytes, ips, TRACT_USTACK_MAX - 1, &cut, NULL);
	assert_true(n >= 1 && n < whole);
	assert_int_equal(cut, 1);
	/* and a bound on frames cuts too */
	c->copy.len = TRACT_USTACK_COPY;
	n = unwind__copy(u, &c->copy, c->bytes, ips, 2, &cut, NULL);
	assert_int_equal(n, 2);
	assert_int_equal(cut, 1);
	usyms__free(u);
	free(c);
}

static void nonsense_registers_end_at_once(void **state)
{
	struct usyms *u = usyms__new(0);
	struct tract_ustack_copy copy = { .tgid = (uint32_t)getpid(), .len = 64 };
	unsigned char bytes[64] = { 0 };
	uint64_t ips[8];
	int cut = -1;

	(void)state;
	/* a PC no mapping holds */
	copy.regs[TRACT_UREG_IP] = 0x10000;
	copy.regs[TRACT_UREG_SP] = 0x7000;
	assert_int_equal(unwind__copy(u, &copy, bytes, ips, 8, &cut, NULL), 1);
	assert_int_equal(cut, 1);
	usyms__free(u);
}

/* A stack of frame pointers through code no table covers (as JIT code), laid out by hand. */
struct fp_stack {
	struct tract_ustack_copy copy;
	uint64_t words[64];	/* near: 16 words from sp; far: the rest */
	char *code;
};

static void fp_stack_init(struct fp_stack *f)
{
	memset(f, 0, sizeof(*f));
	f->code = mmap(NULL, 4096, PROT_READ | PROT_EXEC, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	assert_true(f->code != MAP_FAILED);
	f->copy.tgid = (uint32_t)getpid();
	f->copy.regs[TRACT_UREG_IP] = (uintptr_t)f->code + 0x10;
	f->copy.regs[TRACT_UREG_SP] = 0x7ffd0000;
	f->copy.len = 16 * 8;
}

static void a_return_address_outside_code_is_no_frame(void **state)
{
	struct usyms *u = usyms__new(0);
	struct fp_stack f;
	uint64_t ips[8];
	int cut = -1;

	(void)state;
	fp_stack_init(&f);
	/* bp at sp + 32: a caller in the code, whose frame returns to an address no mapping holds */
	f.copy.regs[TRACT_UREG_BP] = 0x7ffd0020;
	f.words[4] = 0x7ffd0040;
	f.words[5] = (uintptr_t)f.code + 0x20;
	f.words[8] = 0x7ffd0060;
	f.words[9] = 0x10000;
	assert_int_equal(unwind__copy(u, &f.copy, f.words, ips, 8, &cut, NULL), 2);
	assert_int_equal(ips[1], (uintptr_t)f.code + 0x20);
	assert_int_equal(cut, 1);
	usyms__free(u);
	munmap(f.code, 4096);
}

static void a_chain_to_another_stack_goes_on_there_once(void **state)
{
	struct usyms *u = usyms__new(0);
	struct fp_stack f;
	uint64_t ips[8], far = 0x7ffc0000;
	int cut = -1;

	(void)state;
	fp_stack_init(&f);
	/* the frame here links to a stack below this one (Go's goroutine, from its system stack) */
	f.copy.regs[TRACT_UREG_BP] = 0x7ffd0020;
	f.words[4] = far;
	f.words[5] = (uintptr_t)f.code + 0x20;
	/* none without its bytes */
	assert_int_equal(unwind__copy(u, &f.copy, f.words, ips, 8, &cut, NULL), 2);
	assert_int_equal(cut, 1);
	/* with them: two frames there, the second back to the first stack, refused */
	f.copy.far_sp = far;
	f.copy.near_len = 16 * 8;
	f.copy.len = 64 * 8;
	f.words[16] = far + 32;
	f.words[17] = (uintptr_t)f.code + 0x30;
	f.words[20] = 0x7ffd0040;
	f.words[21] = (uintptr_t)f.code + 0x40;
	f.words[8] = 0;
	f.words[9] = (uintptr_t)f.code + 0x50;
	assert_int_equal(unwind__copy(u, &f.copy, f.words, ips, 8, &cut, NULL), 4);
	assert_int_equal(ips[2], (uintptr_t)f.code + 0x30);
	assert_int_equal(ips[3], (uintptr_t)f.code + 0x40);
	assert_int_equal(cut, 1);
	usyms__free(u);
	munmap(f.code, 4096);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(the_callers_come_out_in_order),
		cmocka_unit_test(a_copy_too_short_is_cut),
		cmocka_unit_test(nonsense_registers_end_at_once),
		cmocka_unit_test(a_return_address_outside_code_is_no_frame),
		cmocka_unit_test(a_chain_to_another_stack_goes_on_there_once),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
