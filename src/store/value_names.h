/* SPDX-License-Identifier: GPL-2.0-only */
/* The names the store gives the kernel side's enumerated values: states, wait classes. */
#ifndef TRACT_VALUE_NAMES_H
#define TRACT_VALUE_NAMES_H

/* Names of enum tract_state values, as stored. */
const char *state_name(int state);
/* "blocked", "sleeping" or "input" for an enum tract_wait_class; NULL for none or another value */
const char *wait_class_name(int wait_class);
/* The enum tract_wait_class of such a name; TRACT_WAIT_UNKNOWN for another */
int wait_class_id(const char *name);

#endif
