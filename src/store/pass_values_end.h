/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The end of one reading of pass_tables.def's value kinds (P_U64, P_SUM,
 * ...): pass_tables.c defines them for each thing it makes of a column and
 * includes this after each, so the next may define them again.
 */
#undef P_U64
#undef P_NONZERO
#undef P_WITH
#undef P_COUNT
#undef P_SUM
#undef P_WEIGHT
#undef P_TEXT
#undef P_NAME
#undef P_STACK
