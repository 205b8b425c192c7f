// SPDX-License-Identifier: GPL-2.0-only
/*
 * libFuzzer target: what a traced process puts in its memory, as tract
 * decodes it: a process context's protobuf payload, and a thread record's
 * attribute entries named by the key map it gave.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "otel_attrs.h"
#include "otel_pctx.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct otel_keys keys;
	char text[OTEL_ATTRS_TEXT_MAX + 1];
	size_t half = size / 2;
	int unknown = 0;

	otel_pctx_decode(data, half, &keys);
	if (keys.n > OTEL_KEYS_MAX)
		abort();
	/* the rest as a record's entries, at most what the sampler copies */
	if (otel_attrs_text(&keys, data + half, size - half > 256 ? 256 : size - half, size - half > 256,
			    text, &unknown) !=
	    strlen(text))
		abort();
	return 0;
}
