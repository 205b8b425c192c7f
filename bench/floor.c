// SPDX-License-Identifier: GPL-2.0-only
/*
 * The floor: load empty BPF programs on the hooks tract uses and hold them
 * until SIGINT/SIGTERM.  Arguments name the programs to attach (default all).
 *
 * floor OBJECT --passes N: read the empty task iterator N times instead, as
 * the sampler reads its own, and print the median CPU time of a read in us
 * and the tasks it showed.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>
#include <bpf/bpf.h>
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

static double thread_cpu_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return ts.tv_sec * 1e6 + ts.tv_nsec / 1e3;
}

static int by_value(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* Reads of the empty task iterator, each to its end: what the sampler's pass costs before its program. */
static int iterate(struct bpf_object *obj, int passes)
{
	struct bpf_program *prog = bpf_object__find_program_by_name(obj, "floor_task_pass");
	struct bpf_map *bss = NULL, *map;
	struct bpf_link *link;
	double cpu[passes];
	unsigned long long tasks = 0;
	char buf[4096];
	int zero = 0;

	bpf_object__for_each_map(map, obj) {
		const char *name = bpf_map__name(map);

		if (strlen(name) >= 4 && !strcmp(name + strlen(name) - 4, ".bss"))
			bss = map;
	}
	link = prog ? bpf_program__attach_iter(prog, NULL) : NULL;
	if (!link || !bss) {
		fprintf(stderr, "floor: cannot attach the task iterator: %s\n", strerror(errno));
		return 1;
	}
	for (int i = 0; i < passes; i++) {
		double t0 = thread_cpu_us();
		int fd = bpf_iter_create(bpf_link__fd(link));

		if (fd < 0) {
			fprintf(stderr, "floor: cannot read the task iterator: %s\n", strerror(errno));
			return 1;
		}
		while (read(fd, buf, sizeof(buf)) > 0)
			;
		close(fd);
		cpu[i] = thread_cpu_us() - t0;
		usleep(100000);
	}
	/* the bss map's value holds floor_tasks alone */
	if (bpf_map_lookup_elem(bpf_map__fd(bss), &zero, &tasks)) {
		fprintf(stderr, "floor: cannot read the task count: %s\n", strerror(errno));
		return 1;
	}
	qsort(cpu, passes, sizeof(cpu[0]), by_value);
	printf("%.1f %llu\n", cpu[passes / 2], tasks / passes);
	bpf_link__destroy(link);
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
	if (argc == 4 && !strcmp(argv[2], "--passes")) {
		bpf_object__for_each_program(prog, obj)
			bpf_program__set_autoload(prog, !strcmp(bpf_program__name(prog), "floor_task_pass"));
		err = bpf_object__load(obj);
		if (err) {
			fprintf(stderr, "floor: cannot load: %s\n", strerror(-err));
			return 1;
		}
		return iterate(obj, atoi(argv[3]) > 0 ? atoi(argv[3]) : 1);
	}
	bpf_object__for_each_program(prog, obj)
		bpf_program__set_autoload(prog, wanted(bpf_program__name(prog), argc, argv) &&
						 strcmp(bpf_program__name(prog), "floor_task_pass"));
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
