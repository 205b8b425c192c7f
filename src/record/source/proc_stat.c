// SPDX-License-Identifier: GPL-2.0-only
#include <stdio.h>
#include <string.h>
#include "proc_stat.h"
#include "tract/abi.h"

static int state_of(char c)
{
	switch (c) {
	case 'R': return TRACT_STATE_RUN;
	case 'D': return TRACT_STATE_DISK;
	case 'T': return TRACT_STATE_STOPPED;
	case 't': return TRACT_STATE_TRACED;
	case 'Z': case 'X': return TRACT_STATE_ZOMBIE;
	case 'I': case 'P': return TRACT_STATE_IDLE;
	default: return TRACT_STATE_SLEEP;
	}
}

int proc_stat__parse(const char *buf, struct sample *s, uint32_t *flags, uint64_t *start)
{
	const char *open_paren, *close_paren, *field;
	unsigned long long v;
	int i;

	open_paren = strchr(buf, '(');
	/* a name may hold ')': the last one ends it */
	close_paren = strrchr(buf, ')');
	if (!open_paren || !close_paren || close_paren < open_paren || close_paren[1] != ' ')
		return -1;
	memset(s->comm, 0, sizeof(s->comm));
	memcpy(s->comm, open_paren + 1,
	       (size_t)(close_paren - open_paren - 1) < TRACT_COMM_LEN - 1 ?
	       (size_t)(close_paren - open_paren - 1) : TRACT_COMM_LEN - 1);
	s->state = state_of(close_paren[2]);
	field = close_paren + 2;
	/* fields from 3 (state) on are space-separated numbers */
	for (i = 3; field && *field; i++) {
		if (i > 3 && sscanf(field, "%llu", &v) == 1) {
			if (i == 9)
				*flags = (uint32_t)v;
			else if (i == 22)
				*start = v;
			else if (i == 39)
				s->cpu = (uint32_t)v;
		}
		field = strchr(field, ' ');
		if (field)
			field++;
	}
	return 0;
}
