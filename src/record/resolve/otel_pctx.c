// SPDX-License-Identifier: GPL-2.0-only
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "otel_pctx.h"
#include "util.h"

/* The payload's most: the OTEP expects kilobytes. */
#define PAYLOAD_MAX (1u << 20)

struct pb {
	const uint8_t *p, *end;
};

static int varint(struct pb *b, uint64_t *v)
{
	*v = 0;
	for (int shift = 0; shift < 64 && b->p < b->end; shift += 7) {
		uint8_t c = *b->p++;

		*v |= (uint64_t)(c & 0x7f) << shift;
		if (!(c & 0x80))
			return 0;
	}
	return -EINVAL;
}

/*
 * The next field: its number, and for a length-delimited one its bytes in
 * *sub; other wire types are skipped over.  1: a field, 0: the end,
 * -EINVAL: not protobuf.
 */
static int next_field(struct pb *b, uint32_t *field, struct pb *sub)
{
	uint64_t tag, v;

	if (b->p >= b->end)
		return 0;
	if (varint(b, &tag) || tag >> 3 == 0 || tag >> 3 > UINT32_MAX)
		return -EINVAL;
	*field = (uint32_t)(tag >> 3);
	*sub = (struct pb){ NULL, NULL };
	switch (tag & 7) {
	case 0:
		return varint(b, &v) ? -EINVAL : 1;
	case 1:
		if (b->end - b->p < 8)
			return -EINVAL;
		b->p += 8;
		return 1;
	case 2:
		if (varint(b, &v) || v > (uint64_t)(b->end - b->p))
			return -EINVAL;
		*sub = (struct pb){ b->p, b->p + v };
		b->p += v;
		return 1;
	case 5:
		if (b->end - b->p < 4)
			return -EINVAL;
		b->p += 4;
		return 1;
	default:
		return -EINVAL;
	}
}

/* An AnyValue's string_value (field 1) into out; 0 if it has one. */
static int any_string(struct pb v, char *out, size_t cap)
{
	struct pb sub;
	uint32_t f;
	int rc;

	while ((rc = next_field(&v, &f, &sub)) > 0)
		if (f == 1 && sub.p) {
			size_t n = (size_t)(sub.end - sub.p);

			if (n >= cap)
				n = cap - 1;
			memcpy(out, sub.p, n);
			out[n] = '\0';
			/* a name is text: a NUL would cut it anyway */
			for (size_t i = 0; i < n; i++)
				if (!out[i])
					out[i] = '?';
			return 0;
		}
	return -1;
}

/* An AnyValue's array_value (field 5) of strings into the key map. */
static void key_map(struct pb v, struct otel_keys *keys)
{
	struct pb arr, item;
	uint32_t f;

	keys->n = 0;
	while (next_field(&v, &f, &arr) > 0) {
		if (f != 5 || !arr.p)
			continue;
		while (next_field(&arr, &f, &item) > 0 && keys->n < OTEL_KEYS_MAX)
			if (f == 1 && item.p) {
				char *name = keys->names[keys->n++];

				if (any_string(item, name, OTEL_KEY_LEN))
					name[0] = '\0';
			}
		return;
	}
}

/* A KeyValue: the two threadlocal attributes tract reads; 1 if it was one. */
static int key_value(struct pb kv, struct otel_keys *keys)
{
	char key[64] = "";
	struct pb sub, value = { NULL, NULL };
	uint32_t f;
	int rc;

	while ((rc = next_field(&kv, &f, &sub)) > 0) {
		if (f == 1 && sub.p) {
			size_t n = (size_t)(sub.end - sub.p);

			if (n >= sizeof(key))
				return 0;
			memcpy(key, sub.p, n);
			key[n] = '\0';
		} else if (f == 2 && sub.p) {
			value = sub;
		}
	}
	if (rc < 0 || !value.p)
		return 0;
	if (!strcmp(key, "threadlocal.attribute_key_map")) {
		key_map(value, keys);
		return 1;
	}
	if (!strcmp(key, "threadlocal.schema_version")) {
		if (any_string(value, keys->schema, sizeof(keys->schema)))
			keys->schema[0] = '\0';
		return 1;
	}
	return 0;
}

/* A Resource: its attributes are field 1. */
static void resource(struct pb r, struct otel_keys *keys)
{
	struct pb sub;
	uint32_t f;

	while (next_field(&r, &f, &sub) > 0)
		if (f == 1 && sub.p)
			key_value(sub, keys);
}

int otel_pctx_decode(const uint8_t *p, size_t len, struct otel_keys *keys)
{
	struct pb b = { p, p + len }, sub;
	uint32_t f;
	int rc;

	keys->n = 0;
	keys->schema[0] = '\0';
	while ((rc = next_field(&b, &f, &sub)) > 0) {
		if (!sub.p)
			continue;
		/* ProcessContext: resource = 1, attributes = 2; an older payload was a Resource, attributes = 1 */
		if (f == 2)
			key_value(sub, keys);
		else if (f == 1 && !key_value(sub, keys))
			resource(sub, keys);
	}
	return rc < 0 ? -EINVAL : 0;
}

int otel_pctx_schema_ok(const struct otel_keys *keys)
{
	return !keys->schema[0] || !strcmp(keys->schema, "tlsdesc_v1_dev") || !strcmp(keys->schema, "tls_v1");
}

struct header {
	char signature[8];
	uint32_t version;
	uint32_t payload_size;
	uint64_t published_ns;
	uint64_t payload;
};

static int read_at(int mem, uint64_t addr, void *buf, size_t n)
{
	ssize_t got = pread(mem, buf, n, (off_t)addr);

	return got == (ssize_t)n ? 0 : -EFAULT;
}

/* The context at addr: the header, the payload, and the header again to see it did not change meanwhile. */
static int read_context(int mem, uint64_t addr, struct otel_keys *keys)
{
	struct header h, again;
	uint8_t *payload;
	int err;

	if (read_at(mem, addr, &h, sizeof(h)))
		return -EFAULT;
	if (memcmp(h.signature, "OTEL_CTX", 8) || (h.version != 1 && h.version != 2))
		return 0;
	/* 0: being written */
	if (!h.published_ns)
		return -EAGAIN;
	if (h.payload_size > PAYLOAD_MAX)
		return -E2BIG;
	payload = xcalloc(1, h.payload_size ? h.payload_size : 1);
	err = read_at(mem, h.payload, payload, h.payload_size);
	if (!err)
		err = read_at(mem, addr, &again, sizeof(again));
	/* changed while read: a size and an address of two publications would not go together */
	if (!err && memcmp(&again, &h, sizeof(h)))
		err = -EAGAIN;
	if (!err)
		err = otel_pctx_decode(payload, h.payload_size, keys);
	free(payload);
	keys->published_ns = h.published_ns;
	return err ? err : 1;
}

static int is_context_mapping(const char *name)
{
	return !strncmp(name, "[anon_shmem:OTEL_CTX]", 21) || !strncmp(name, "[anon:OTEL_CTX]", 15) ||
	       !strncmp(name, "/memfd:OTEL_CTX", 15);
}

int otel_pctx_read(const char *proc_root, uint32_t pid, struct otel_keys *keys)
{
	char path[PATH_MAX], line[PATH_MAX + 128];
	FILE *maps;
	int mem = -1, found = 0;

	snprintf(path, sizeof(path), "%s/%u/maps", proc_root, pid);
	maps = fopen(path, "re");
	if (!maps)
		return -errno;
	while (!found && fgets(line, sizeof(line), maps)) {
		unsigned long long start, end;
		char name[PATH_MAX] = "";

		if (sscanf(line, "%llx-%llx %*s %*s %*s %*s %4095[^\n]", &start, &end, name) < 3 ||
		    !is_context_mapping(name))
			continue;
		if (mem < 0) {
			snprintf(path, sizeof(path), "%s/%u/mem", proc_root, pid);
			mem = open(path, O_RDONLY | O_CLOEXEC);
			if (mem < 0) {
				found = -errno;
				break;
			}
		}
		found = read_context(mem, start, keys);
	}
	fclose(maps);
	if (mem >= 0)
		close(mem);
	return found;
}
