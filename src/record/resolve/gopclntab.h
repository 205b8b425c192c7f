/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Function names of a Go binary from its .gopclntab, the table Go's own
 * runtime reads for its tracebacks: it survives stripping (go build
 * -ldflags=-s, strip), so a Go program with no symbol table is named from
 * it.  The layouts of Go 1.2 to 1.15, 1.16 and 1.17, 1.18 and 1.19, and 1.20
 * and later are told apart by the table's magic; 64-bit little-endian only.
 * The table is written by whoever built the program tract watches: every
 * offset is checked against the section, counts and names are bounded,
 * and entries must run in order inside the text.
 */
#ifndef TRACT_GOPCLNTAB_H
#define TRACT_GOPCLNTAB_H

#include <stddef.h>
#include <stdint.h>

#define GOPCLNTAB_MAGIC_12	0xfffffffbu	/* Go 1.2 to 1.15 */
#define GOPCLNTAB_MAGIC_116	0xfffffffau	/* Go 1.16 and 1.17 */
#define GOPCLNTAB_MAGIC_118	0xfffffff0u	/* Go 1.18 and 1.19 */
#define GOPCLNTAB_MAGIC_120	0xfffffff1u	/* Go 1.20 and later */

/* Of one table, whatever its header claims; a Go program has some 10^4 functions. */
#define GOPCLNTAB_MAX_BYTES	(256u << 20)
#define GOPCLNTAB_MAX_FUNCS	(1u << 22)
/* a name longer than this names nothing: the table is not Go's */
#define GOPCLNTAB_MAX_NAME	1024u

/* One function: [entry, end) in ELF addresses, its name (not terminated), outermost: a goroutine's or thread's first frame. */
struct gopclntab_func {
	uint64_t entry, end;
	const char *name;
	uint32_t name_len;
	uint8_t outermost;
};

/* Called for each function, in address order; nonzero stops the reading. */
typedef int (*gopclntab_fn)(const struct gopclntab_func *f, void *arg);

/*
 * Reads the table data (size bytes, the section's contents).  text_lo and
 * text_hi: the ELF addresses of the .text section, which every function
 * must lie in; text_lo is also where Go 1.18's entry offsets count from in
 * a position-independent binary, whose table holds 0 there until it is
 * relocated.  Returns how many functions fn was given, or -EINVAL when the
 * table is not one (a bad magic, header or function table; fn may have
 * been called for functions before the fault).
 */
int gopclntab__read(const void *data, size_t size, uint64_t text_lo, uint64_t text_hi, gopclntab_fn fn, void *arg);

#endif
