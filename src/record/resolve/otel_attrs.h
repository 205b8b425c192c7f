/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * A thread context's attributes as text: the record's {key index, length,
 * value} entries named by the process context's key map, "key=value"
 * separated by spaces, in key order.  And, by thread, the text its latest
 * read made, for the passes the sampler does not read it again (a thread
 * that has not run cannot have changed it).
 */
#ifndef TRACT_OTEL_ATTRS_H
#define TRACT_OTEL_ATTRS_H

#include <stddef.h>
#include <stdint.h>
#include "otel_pctx.h"

/* The longest text kept: the rest is cut at an entry, marked "...". */
#define OTEL_ATTRS_TEXT_MAX 1024

/*
 * The text of len bytes of entries into out (OTEL_ATTRS_TEXT_MAX + 1
 * bytes): its length, 0 for none.  An entry cut short ends them (the OTEP:
 * a reader stops there); text that is cut, here or in the entries already
 * (cut: the record had more than len), ends " ...".  Of a key given twice the last counts; a byte that
 * is not printable, a space, a backslash, and an = in a key are written
 * \xHH.  *unknown is set when an index is past the key map (it has grown
 * since it was read: the entry is left out).
 */
size_t otel_attrs_text(const struct otel_keys *keys, const uint8_t *data, size_t len, int cut, char *out,
		       int *unknown);

struct otel_attrs;

struct otel_attrs *otel_attrs__new(void);
void otel_attrs__free(struct otel_attrs *a);
/* A read of thread tid: its text (NULL: none). */
void otel_attrs__set(struct otel_attrs *a, uint32_t tid, const char *text);
/* The text of thread tid's latest read, or NULL. */
const char *otel_attrs__get(struct otel_attrs *a, uint32_t tid);
/* Once a pass: bounds what is kept, forgetting all past a limit of threads: 1 when it did. */
int otel_attrs__pass_end(struct otel_attrs *a);

#endif
