/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * A store whose truth is known, for the unit tests of the layers that read
 * it: 20 passes of 1 s from 2026-11-30 22:59:50 to 23:00:09 UTC (two hours),
 * written by tract's own SQLite or CSV store.  In every pass "spin" is RUN
 * in user mode and "db" is DISK in fsync on a file whose name has a comma;
 * 'a"b' sleeps in read in every other pass; "x\033y" (an escape in its
 * name) is RUNQ in the first.  So over the 20 s: RUN 1, DISK 1, SLEEP 0.5,
 * RUNQ 0.05 average active threads.
 */
#ifndef TRACT_STORE_FIXTURE_H
#define TRACT_STORE_FIXTURE_H

#include <stdlib.h>
#include <string.h>
#include "sink.h"

#define FIXTURE_FIRST_US 1796079590000000ull	/* 2026-11-30 22:59:50 UTC */
#define FIXTURE_PASSES 20
#define FIXTURE_FILE "/var/lib/db/wal,1"

static inline struct sample *fixture_row(struct pass *p, uint32_t tid, const char *comm, int state, int nr)
{
	struct sample *r = pass__add_row(p);

	*r = (struct sample){ .tid = tid, .tgid = 100, .state = state, .syscall_nr = nr, .cpu = tid % 2 };
	if (nr >= 0)
		r->flags |= TRACT_SF_IN_SYSCALL;
	memcpy(r->comm, comm, strnlen(comm, sizeof(r->comm)));
	memcpy(r->pcomm, "db", 3);
	return r;
}

/* Writes the fixture into dir with open (store_sqlite__open or store_csv__open); 0 or -errno. */
static inline int fixture_store(int (*open)(const struct store_config *, struct sink **), const char *dir)
{
	struct store_config cfg = { .dir = dir, .frequency_hz = 1, .source = "test", .gid = -1 };
	struct sink *s;
	int err = open(&cfg, &s);

	for (int i = 0; !err && i < FIXTURE_PASSES; i++) {
		struct pass p = { .seq = (uint64_t)i, .ts_us = FIXTURE_FIRST_US + (uint64_t)i * 1000000,
				  .weight_us = 1000000, .visited = 4 };

		fixture_row(&p, 1, "spin", TRACT_STATE_RUN, -1);
		fixture_row(&p, 2, "db", TRACT_STATE_DISK, 74 /* fsync */)->file = FIXTURE_FILE;
		if (i % 2 == 0)
			fixture_row(&p, 3, "a\"b", TRACT_STATE_SLEEP, 0 /* read */);
		if (i == 0)
			fixture_row(&p, 4, "x\033y", TRACT_STATE_RUNQ, -1);
		pass__count_load(&p);
		err = sink__write_pass(s, &p);
		pass__free_rows(&p);
	}
	if (!err)
		sink__close(s);
	return err;
}

/* A scratch directory, removed with its files by fixture_remove(). */
static inline char *fixture_dir(void)
{
	char *dir = strdup("/tmp/tract-fixture-XXXXXX");

	return mkdtemp(dir) ? dir : NULL;
}

static inline void fixture_remove(char *dir)
{
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	if (system(cmd))
		return;
	free(dir);
}

/* cmocka group setup and teardown: the fixture in both formats, and gone after. */
static char *fixture_sqlite, *fixture_csv;

static __attribute__((unused)) int fixture_setup(void **state)
{
	(void)state;
	fixture_sqlite = fixture_dir();
	fixture_csv = fixture_dir();
	return !fixture_sqlite || !fixture_csv || fixture_store(store_sqlite__open, fixture_sqlite) ||
	       fixture_store(store_csv__open, fixture_csv);
}

static __attribute__((unused)) int fixture_teardown(void **state)
{
	(void)state;
	fixture_remove(fixture_sqlite);
	fixture_remove(fixture_csv);
	return 0;
}

#endif
