/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * A process's OpenTelemetry process context (OTEP 4719): a mapping named
 * OTEL_CTX that holds a header and a protobuf ProcessContext.  tract reads
 * from it what names the attributes of the process's thread contexts
 * (threadlocal.attribute_key_map) and which thread-context schema it
 * publishes (threadlocal.schema_version).
 */
#ifndef TRACT_OTEL_PCTX_H
#define TRACT_OTEL_PCTX_H

#include <stddef.h>
#include <stdint.h>

#define OTEL_KEYS_MAX 256		/* key indexes are a byte */
#define OTEL_KEY_LEN 128		/* longer names are cut */

struct otel_keys {
	size_t n;
	char names[OTEL_KEYS_MAX][OTEL_KEY_LEN];
	char schema[32];		/* threadlocal.schema_version; "" if none */
	uint64_t published_ns;		/* the header's published_at_ns: a change is a new context */
};

/*
 * Decodes a ProcessContext payload into keys: 0, or -EINVAL when it is not
 * protobuf.  The key map and the schema are looked for among the
 * context's attributes and its resource's (writers before the OTEP's
 * final text put them in the resource, which was the whole payload).
 */
int otel_pctx_decode(const uint8_t *p, size_t len, struct otel_keys *keys);
/*
 * Reads process pid's context under proc_root ("/proc"): 1 when it has one
 * (keys->n may still be 0), 0 when it publishes none, -errno when it
 * cannot be read or is being changed.
 */
int otel_pctx_read(const char *proc_root, uint32_t pid, struct otel_keys *keys);
/* Whether a process publishing schema (as in keys->schema) keeps thread records as OTEP 4947 has them. */
int otel_pctx_schema_ok(const struct otel_keys *keys);

#endif
