/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The end of one reading of sample_columns.def's value kinds (V_UINT,
 * V_TEXT, ...): columns.c defines them for each thing it makes of a
 * column (its value, its part of a row's hash, its setting from text) and
 * includes this after each, so the next may define them again.
 */
#undef V_PASS
#undef V_UINT
#undef V_NAME
#undef V_TEXT
#undef V_STATE
#undef V_SYSCALL
#undef V_FLAGGED
#undef V_SYSCALL_FLAGGED
#undef V_STACK
#undef V_ARG
#undef V_NONZERO
#undef V_WITH
#undef V_IO_TEXT
#undef V_IO_UINT
#undef V_IO_NONZERO
#undef V_HEX
#undef V_BLOCKER
