// SPDX-License-Identifier: GPL-2.0-only
#include <string.h>
#include "value_names.h"
#include "tract/abi.h"

static const char *const state_names[TRACT_STATE__COUNT] = {
	[TRACT_STATE_RUN] = "RUN",
	[TRACT_STATE_RUNQ] = "RUNQ",
	[TRACT_STATE_DISK] = "DISK",
	[TRACT_STATE_SLEEP] = "SLEEP",
	[TRACT_STATE_STOPPED] = "STOPPED",
	[TRACT_STATE_TRACED] = "TRACED",
	[TRACT_STATE_ZOMBIE] = "ZOMBIE",
	[TRACT_STATE_IDLE] = "IDLE",
};

const char *wait_class_name(int wait_class)
{
	static const char *const names[] = {
		[TRACT_WAIT_BLOCKED] = "blocked",
		[TRACT_WAIT_SLEEPING] = "sleeping",
		[TRACT_WAIT_INPUT] = "input",
	};

	return wait_class > 0 && wait_class < (int)(sizeof(names) / sizeof(names[0])) ? names[wait_class] : NULL;
}

int wait_class_id(const char *name)
{
	for (int c = TRACT_WAIT_BLOCKED; c <= TRACT_WAIT_INPUT; c++)
		if (!strcmp(name, wait_class_name(c)))
			return c;
	return TRACT_WAIT_UNKNOWN;
}

const char *state_name(int state)
{
	if (state < 0 || state >= TRACT_STATE__COUNT)
		return "?";
	return state_names[state];
}
