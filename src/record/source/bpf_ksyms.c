// SPDX-License-Identifier: GPL-2.0-only
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include "bpf_ksyms.h"
#include "ksyms.h"
#include "strbuf.h"
#include "util.h"

/* as long as the kernel's KSYM_NAME_LEN */
#define NAME_LEN 512

/* What the kernel tells of one program's functions: their addresses, tags and BTF types. */
struct prog_funcs {
	struct bpf_prog_info info;
	__u64 *addrs;
	__u8 (*tags)[BPF_TAG_SIZE];
	char *func_info;	/* info.nr_func_info records of info.func_info_rec_size */
};

/* 0, or -1 where the kernel says nothing of use (not JITed, addresses hidden). */
static int prog_funcs_read(int fd, struct prog_funcs *f)
{
	struct bpf_prog_info counts = { 0 };
	__u32 len = sizeof(counts);

	memset(f, 0, sizeof(*f));
	if (bpf_obj_get_info_by_fd(fd, &counts, &len) || !counts.nr_jited_ksyms)
		return -1;
	f->addrs = xcalloc(counts.nr_jited_ksyms, sizeof(*f->addrs));
	f->tags = xcalloc(counts.nr_prog_tags + 1, sizeof(*f->tags));
	f->func_info = xcalloc(counts.nr_func_info + 1, counts.func_info_rec_size ? counts.func_info_rec_size : 1);
	f->info.nr_jited_ksyms = counts.nr_jited_ksyms;
	f->info.jited_ksyms = (__u64)(uintptr_t)f->addrs;
	f->info.nr_prog_tags = counts.nr_prog_tags;
	f->info.prog_tags = (__u64)(uintptr_t)f->tags;
	f->info.nr_func_info = counts.nr_func_info;
	f->info.func_info_rec_size = counts.func_info_rec_size;
	f->info.func_info = (__u64)(uintptr_t)f->func_info;
	len = sizeof(f->info);
	return bpf_obj_get_info_by_fd(fd, &f->info, &len) ? -1 : 0;
}

static void prog_funcs_free(struct prog_funcs *f)
{
	free(f->addrs);
	free(f->tags);
	free(f->func_info);
}

/*
 * Function i's name, as the kernel makes it: its tag (the program's for
 * its first), then its name in the program's BTF where the program has
 * BTF for its functions, else the program's name (bpf_prog_ksym_set_name()).
 */
static void func_name(const struct prog_funcs *f, const struct btf *btf, __u32 i, char *out)
{
	const __u8 *tag = i && i < f->info.nr_prog_tags ? f->tags[i] : f->info.tag;
	const char *name = f->info.name;
	int n = snprintf(out, NAME_LEN, "bpf_prog_");

	for (int b = 0; b < BPF_TAG_SIZE; b++)
		n += snprintf(out + n, NAME_LEN - n, "%02x", tag[b]);
	if (i < f->info.nr_func_info) {
		const struct bpf_func_info *fi = (const void *)(f->func_info + (size_t)i * f->info.func_info_rec_size);
		const struct btf_type *t = btf ? btf__type_by_id(btf, fi->type_id) : NULL;

		name = t ? btf__name_by_offset(btf, t->name_off) : NULL;
	}
	if (name && name[0])
		snprintf(out + n, NAME_LEN - n, "_%s", name);
}

int bpf_ksyms__add_programs(struct bpf_object *obj, struct ksyms *ks)
{
	const struct btf *btf = bpf_object__btf(obj);
	struct ksym_code *code = NULL;
	char *names = NULL;
	size_t nr = 0, cap = 0;
	struct strbuf listed = { 0 };
	struct bpf_program *prog;
	struct prog_funcs f;
	int added = 0;

	bpf_object__for_each_program(prog, obj) {
		int fd = bpf_program__fd(prog);

		if (fd < 0 || prog_funcs_read(fd, &f)) {
			if (fd >= 0)
				prog_funcs_free(&f);
			continue;
		}
		for (__u32 i = 0; i < f.info.nr_jited_ksyms; i++) {
			size_t old = cap;

			ARRAY_GROW(code, nr, cap, 64);
			if (cap != old)
				names = xrealloc(names, cap * NAME_LEN);
			code[nr].addr = f.addrs[i];
			func_name(&f, btf, i, names + nr * NAME_LEN);
			nr++;
		}
		prog_funcs_free(&f);
	}
	/* the names' buffer may have moved as it grew: pointed to once it is whole */
	for (size_t i = 0; i < nr; i++) {
		code[i].name = names + i * NAME_LEN;
		if (code[i].addr) {
			strbuf_addf(&listed, " %s@%llx", code[i].name, (unsigned long long)code[i].addr);
			added++;
		}
	}
	if (added)
		tract_debug("tract's BPF functions in the kernel's symbols:%s", strbuf_str(&listed));
	ksyms__add(ks, code, nr);
	strbuf_free(&listed);
	free(code);
	free(names);
	return added;
}
