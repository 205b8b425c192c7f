// SPDX-License-Identifier: GPL-2.0-only
/*
 * The OpenTelemetry process context (OTEP 4719) read back as tract's
 * writer publishes it, in this very process; protobuf that is not a
 * context; and the text a thread record's attributes make.
 */
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>
#define OTEL_THREAD_CTX_IMPLEMENTATION
#include "tract/otel_thread_ctx.h"
#include "otel_attrs.h"
#include "otel_pctx.h"

static struct otel_keys keys;

static void the_writers_context_reads_back(void **state)
{
	static const char *const names[] = { "http.route", "user.id", "a key with spaces" };
	static const char *const more[] = { "http.route", "user.id", "a key with spaces", "tenant" };
	uint64_t first;

	(void)state;
	assert_int_equal(otel_thread_ctx_publish_process("checkout", names, 3), 0);
	assert_int_equal(otel_pctx_read("/proc", (uint32_t)getpid(), &keys), 1);
	assert_int_equal(keys.n, 3);
	assert_string_equal(keys.names[0], "http.route");
	assert_string_equal(keys.names[2], "a key with spaces");
	assert_string_equal(keys.schema, "tlsdesc_v1_dev");
	assert_true(otel_pctx_schema_ok(&keys));
	first = keys.published_ns;
	/* published again, the map grown: the new one is read */
	assert_int_equal(otel_thread_ctx_publish_process(NULL, more, 4), 0);
	assert_int_equal(otel_pctx_read("/proc", (uint32_t)getpid(), &keys), 1);
	assert_int_equal(keys.n, 4);
	assert_string_equal(keys.names[3], "tenant");
	assert_true(keys.published_ns >= first);
}

/* A forked child has not its parent's mapping (MADV_DONTFORK): it publishes its own. */
static void a_forked_child_publishes_its_own(void **state)
{
	static const char *const names[] = { "worker.id" };
	int status = -1;
	pid_t child;

	(void)state;
	child = fork();
	if (child == 0) {
		struct otel_keys mine;

		if (otel_pctx_read("/proc", (uint32_t)getpid(), &mine) != 0)
			_exit(3);	/* the parent's came along */
		if (otel_thread_ctx_publish_process("worker", names, 1) ||
		    otel_pctx_read("/proc", (uint32_t)getpid(), &mine) != 1 || mine.n != 1 ||
		    strcmp(mine.names[0], "worker.id"))
			_exit(4);
		_exit(0);
	}
	assert_true(child > 0);
	assert_int_equal(waitpid(child, &status, 0), child);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 0);
}

/* tag, length, bytes */
static size_t field(uint8_t *out, uint32_t f, const void *s, size_t n)
{
	out[0] = (uint8_t)(f << 3 | 2);
	out[1] = (uint8_t)n;
	memcpy(out + 2, s, n);
	return n + 2;
}

static size_t string_kv(uint8_t *out, const char *k, const char *v)
{
	uint8_t any[64], kv[128];
	size_t a = field(any, 1, v, strlen(v)), n = field(kv, 1, k, strlen(k));

	n += field(kv + n, 2, any, a);
	return field(out, 1, kv, n);
}

/* Writers before the OTEP's last text published a Resource as the whole payload. */
static void a_bare_resource_is_read_too(void **state)
{
	uint8_t p[256], arr[64], any[80], kv[128], one[16];
	size_t n = string_kv(p, "threadlocal.schema_version", "go_pprof_labels_v1"), a, k, o;

	(void)state;
	o = field(one, 1, "route", 5);
	a = field(arr, 1, one, o);
	a = field(any, 5, arr, a);
	k = field(kv, 1, "threadlocal.attribute_key_map", 29);
	k += field(kv + k, 2, any, a);
	n += field(p + n, 1, kv, k);
	assert_int_equal(otel_pctx_decode(p, n, &keys), 0);
	assert_int_equal(keys.n, 1);
	assert_string_equal(keys.names[0], "route");
	/* and a schema tract does not read says so */
	assert_string_equal(keys.schema, "go_pprof_labels_v1");
	assert_false(otel_pctx_schema_ok(&keys));
}

static void what_is_not_protobuf_is_refused(void **state)
{
	static const uint8_t cut[] = { 0x12, 0x40, 0x0a };	/* a length past the end */
	static const uint8_t endless[] = { 0x12, 0xff, 0xff, 0xff };	/* a varint that does not end */
	static const uint8_t group[] = { 0x0b };	/* a wire type protobuf 3 has not */
	uint8_t noise[4096];

	(void)state;
	assert_int_equal(otel_pctx_decode(cut, sizeof(cut), &keys), -EINVAL);
	assert_int_equal(otel_pctx_decode(endless, sizeof(endless), &keys), -EINVAL);
	assert_int_equal(otel_pctx_decode(group, sizeof(group), &keys), -EINVAL);
	srand(7);
	for (int round = 0; round < 2000; round++) {
		size_t n = (size_t)rand() % sizeof(noise);

		for (size_t i = 0; i < n; i++)
			noise[i] = (uint8_t)rand();
		otel_pctx_decode(noise, n, &keys);
		assert_true(keys.n <= OTEL_KEYS_MAX);
	}
}

static void attributes_make_text(void **state)
{
	/* {key, length, value}...: a duplicate, an index past the map, an entry cut short */
	static const uint8_t d[] = { 1, 3, 'b', 'o', 'b', 0, 5, '/', 'c', 'a', 'r', 't', 1, 4, 'a', ' ', '\\', 'b',
				     9, 1, 'x', 2, 2, 'o', 'k', 0, 9, 'c', 'u', 't' };
	char out[OTEL_ATTRS_TEXT_MAX + 1];
	int unknown = 0;
	size_t n;

	(void)state;
	keys.n = 3;
	strcpy(keys.names[0], "http.route");
	strcpy(keys.names[1], "user.id");
	strcpy(keys.names[2], "odd=key");
	n = otel_attrs_text(&keys, d, sizeof(d), 0, out, &unknown);

	assert_int_equal(n, strlen(out));
	assert_string_equal(out, "http.route=/cart user.id=a\\x20\\x5cb odd\\x3dkey=ok");
	assert_int_equal(unknown, 1);
	unknown = 0;
	assert_int_equal(otel_attrs_text(&keys, d, 0, 0, out, &unknown), 0);
	assert_string_equal(out, "");
	assert_int_equal(unknown, 0);
	/* a record with more than the sampler copied says so */
	otel_attrs_text(&keys, d, 11, 1, out, &unknown);
	assert_string_equal(out, "user.id=bob ...");	/* the route's entry is the one cut */
}

static void long_attributes_are_cut_at_an_entry(void **state)
{
	uint8_t d[3 * 257];
	char out[OTEL_ATTRS_TEXT_MAX + 1];
	int unknown = 0;
	size_t n = 0;

	(void)state;
	keys.n = 3;
	strcpy(keys.names[0], "http.route");
	strcpy(keys.names[1], "user.id");
	strcpy(keys.names[2], "odd=key");
	for (uint8_t k = 0; k < 3; k++) {
		d[n++] = k;
		d[n++] = 255;
		/* the last of control bytes, each four in the text: it does not fit */
		memset(d + n, k < 2 ? 'a' : 1, 255);
		n += 255;
	}
	otel_attrs_text(&keys, d, n, 0, out, &unknown);
	assert_true(strlen(out) <= OTEL_ATTRS_TEXT_MAX);
	assert_non_null(strstr(out, "http.route=aaa"));
	assert_non_null(strstr(out, " user.id=aaa"));
	assert_null(strstr(out, "odd"));
	assert_string_equal(out + strlen(out) - 4, " ...");
}

static void each_threads_latest_text_is_kept(void **state)
{
	struct otel_attrs *a = otel_attrs__new();

	(void)state;
	assert_null(otel_attrs__get(a, 7));
	otel_attrs__set(a, 7, "http.route=/a");
	otel_attrs__set(a, 8, "http.route=/b");
	assert_string_equal(otel_attrs__get(a, 7), "http.route=/a");
	otel_attrs__set(a, 7, NULL);
	assert_null(otel_attrs__get(a, 7));
	assert_string_equal(otel_attrs__get(a, 8), "http.route=/b");
	otel_attrs__pass_end(a);
	otel_attrs__free(a);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(the_writers_context_reads_back),
		cmocka_unit_test(a_forked_child_publishes_its_own),
		cmocka_unit_test(a_bare_resource_is_read_too),
		cmocka_unit_test(what_is_not_protobuf_is_refused),
		cmocka_unit_test(attributes_make_text),
		cmocka_unit_test(long_attributes_are_cut_at_an_entry),
		cmocka_unit_test(each_threads_latest_text_is_kept),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
