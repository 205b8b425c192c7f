// SPDX-License-Identifier: GPL-2.0-only
/*
 * The floor: load empty BPF programs on the hooks tract uses and hold them
 * until SIGINT/SIGTERM.  Arguments name the programs to attach (default all).
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <bpf/libbpf.h>

static volatile sig_atomic_t done;

static void on_signal(int sig)
{
	(void)sig;
	done = 1;
}

static int wanted(const char *name, int argc, char **argv)
{
	if (argc < 3)
		return 1;
	for (int i = 2; i < argc; i++)
		if (!strcmp(argv[i], name))
			return 1;
	return 0;
}

int main(int argc, char **argv)
{
	struct bpf_object *obj;
	struct bpf_program *prog;
	int err;

	if (argc < 2) {
		fprintf(stderr, "usage: floor OBJECT [PROGRAM...]\n");
		return 2;
	}
	obj = bpf_object__open_file(argv[1], NULL);
	if (!obj) {
		fprintf(stderr, "floor: cannot open '%s': %s\n", argv[1], strerror(errno));
		return 1;
	}
	bpf_object__for_each_program(prog, obj)
		bpf_program__set_autoload(prog, wanted(bpf_program__name(prog), argc, argv));
	err = bpf_object__load(obj);
	if (err) {
		fprintf(stderr, "floor: cannot load: %s\n", strerror(-err));
		return 1;
	}
	bpf_object__for_each_program(prog, obj) {
		if (!wanted(bpf_program__name(prog), argc, argv))
			continue;
		if (!bpf_program__attach(prog)) {
			fprintf(stderr, "floor: cannot attach %s: %s\n", bpf_program__name(prog), strerror(errno));
			return 1;
		}
	}
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	printf("ready\n");
	fflush(stdout);
	while (!done)
		pause();
	bpf_object__close(obj);
	return 0;
}
