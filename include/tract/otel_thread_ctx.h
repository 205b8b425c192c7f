/* SPDX-License-Identifier: MIT */
/*
 * A writer of the OpenTelemetry thread context (OTEP 4947) for C and C++:
 * each thread publishes the trace and span it works for, and tract (or any
 * reader of the OTEP) sees them on every sample of the thread, on CPU and
 * off, so a request's whole wall time can be found: CPU, run queue, disk,
 * locks, network.
 *
 * Use: in exactly one .c file of the program or library, before any other
 * #include (the implementation asks for the system's POSIX and Linux calls),
 *
 *     #define OTEL_THREAD_CTX_IMPLEMENTATION
 *     #include <tract/otel_thread_ctx.h>
 *
 * and include it without the define anywhere else.  Then, on the thread
 * that works for a request:
 *
 *     otel_thread_ctx_attach(trace_id, span_id, flags);   16 and 8 bytes, W3C order
 *     ... the request's work ...
 *     otel_thread_ctx_detach();
 *
 * The variable a reader looks for, otel_thread_ctx_v1, must be in the
 * module's dynamic symbols: it is, in a shared library; an executable is
 * linked with -Wl,--export-dynamic-symbol=otel_thread_ctx_v1 (or -rdynamic).
 * Any TLS model works (a reader handles them all); -mtls-dialect=gnu2
 * (TLSDESC) is the OTEP's recommendation for libraries.
 *
 * Attributes (the request's route, its user, ...) go with the ids: once,
 * at start, the process publishes the names of its attribute keys (its
 * process context, OTEP 4719); then each thread sets values by key index:
 *
 *     static const char *const keys[] = { "http.route", "user.id" };
 *     otel_thread_ctx_publish_process("checkout", keys, 2);
 *     ...
 *     otel_thread_ctx_attach(trace_id, span_id, 1);
 *     otel_thread_ctx_set_attr(0, "/cart", 5);
 *
 * Publication follows the OTEP: only the thread itself writes its record,
 * marking it invalid while it changes, with compiler fences only (a reader
 * looks while the thread is stopped, or checks for a torn read).
 */
#ifndef TRACT_OTEL_THREAD_CTX_H
#define TRACT_OTEL_THREAD_CTX_H

/* memfd, madvise, CLOCK_BOOTTIME and syscall() under -std=c99 too: only where nothing came before */
#if defined(OTEL_THREAD_CTX_IMPLEMENTATION) && !defined(_DEFAULT_SOURCE)
#define _DEFAULT_SOURCE
#endif

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The record's fixed part: 28 bytes; attributes follow, up to the 640 bytes the OTEP recommends. */
#define OTEL_THREAD_CTX_SIZE 640
#define OTEL_THREAD_CTX_ATTRS (OTEL_THREAD_CTX_SIZE - 28)

struct otel_thread_ctx_record {
	uint8_t trace_id[16];		/* W3C byte order; all zero: none */
	uint8_t span_id[8];
	uint8_t valid;			/* 1: the record may be read */
	uint8_t trace_flags;		/* W3C flags (01: sampled) */
	uint16_t attrs_data_size;	/* native byte order */
	uint8_t attrs_data[OTEL_THREAD_CTX_ATTRS];	/* {u8 key index, u8 length, value}... */
} __attribute__((packed, aligned(2)));

/* Publishes the calling thread's trace and span: W3C byte order (as traceparent's hex reads). */
void otel_thread_ctx_attach(const uint8_t trace_id[16], const uint8_t span_id[8], uint8_t trace_flags);
/* The same from traceparent's hex: 32 and 16 hex digits; 0, or -1 if they are not hex. */
int otel_thread_ctx_attach_hex(const char *trace_id, const char *span_id, uint8_t trace_flags);
/* The thread works for no request now. */
void otel_thread_ctx_detach(void);
/*
 * Adds an attribute to the current record: key is an index into the
 * process context's threadlocal.attribute_key_map; 0, or -1 when there is
 * no room (the record keeps what fits).
 */
int otel_thread_ctx_set_attr(uint8_t key, const char *value, size_t len);
/*
 * Publishes the process context (OTEP 4719): service.name (or NULL) and
 * the names of the attribute keys, index 0 first (at most 256; the list
 * may only grow).  Called again, it replaces what it published (the
 * payload before stays until the next call: a reader may still be reading
 * it), also in a forked child, which publishes its own.  0, or -1 when the mapping cannot
 * be made.  Not thread-safe: call it from one thread.
 */
int otel_thread_ctx_publish_process(const char *service_name, const char *const keys[], size_t nkeys);

#ifdef OTEL_THREAD_CTX_IMPLEMENTATION

#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <time.h>
#include <unistd.h>

/* What readers find: the thread's record, or NULL before its first attach. */
__attribute__((visibility("default"))) __thread struct otel_thread_ctx_record *otel_thread_ctx_v1;

static __thread struct otel_thread_ctx_record otel_thread_ctx_mine;

#define OTEL_THREAD_CTX_FENCE() __atomic_signal_fence(__ATOMIC_SEQ_CST)

void otel_thread_ctx_attach(const uint8_t trace_id[16], const uint8_t span_id[8], uint8_t trace_flags)
{
	struct otel_thread_ctx_record *r = &otel_thread_ctx_mine;

	r->valid = 0;
	OTEL_THREAD_CTX_FENCE();
	memcpy(r->trace_id, trace_id, sizeof(r->trace_id));
	memcpy(r->span_id, span_id, sizeof(r->span_id));
	r->trace_flags = trace_flags;
	r->attrs_data_size = 0;
	OTEL_THREAD_CTX_FENCE();
	r->valid = 1;
	OTEL_THREAD_CTX_FENCE();
	/* the pointer is set once and stays: the record is toggled by valid */
	otel_thread_ctx_v1 = r;
}

static int otel_thread_ctx_hex(const char *hex, uint8_t *out, size_t n)
{
	for (size_t i = 0; i < 2 * n; i++) {
		char c = hex[i];
		int v = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 :
			c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;

		if (v < 0)
			return -1;
		out[i / 2] = (uint8_t)(i % 2 ? out[i / 2] | v : v << 4);
	}
	return hex[2 * n] ? -1 : 0;
}

int otel_thread_ctx_attach_hex(const char *trace_id, const char *span_id, uint8_t trace_flags)
{
	uint8_t t[16], s[8];

	if (otel_thread_ctx_hex(trace_id, t, sizeof(t)) || otel_thread_ctx_hex(span_id, s, sizeof(s)))
		return -1;
	otel_thread_ctx_attach(t, s, trace_flags);
	return 0;
}

void otel_thread_ctx_detach(void)
{
	otel_thread_ctx_mine.valid = 0;
	OTEL_THREAD_CTX_FENCE();
}

int otel_thread_ctx_set_attr(uint8_t key, const char *value, size_t len)
{
	struct otel_thread_ctx_record *r = &otel_thread_ctx_mine;
	size_t at = r->attrs_data_size;

	if (len > 255 || at + 2 + len > sizeof(r->attrs_data))
		return -1;
	/* the bytes past the end first, the new size last: a reader sees the old or the new */
	r->attrs_data[at] = key;
	r->attrs_data[at + 1] = (uint8_t)len;
	memcpy(r->attrs_data + at + 2, value, len);
	OTEL_THREAD_CTX_FENCE();
	r->attrs_data_size = (uint16_t)(at + 2 + len);
	OTEL_THREAD_CTX_FENCE();
	return 0;
}

/* The process context: a protobuf ProcessContext, encoded by hand (a few fields of strings). */
struct otel_thread_ctx_pb {
	uint8_t *p;
	size_t n, cap;
	int failed;
};

/* every field named: C++ warns of { 0 } */
#define OTEL_THREAD_CTX_PB_EMPTY { NULL, 0, 0, 0 }

static void otel_thread_ctx_pb_bytes(struct otel_thread_ctx_pb *b, const void *s, size_t n)
{
	if (!n)
		return;
	if (b->n + n > b->cap) {
		size_t cap = (b->n + n) * 2 + 64;
		uint8_t *p = (uint8_t *)realloc(b->p, cap);

		if (!p) {
			b->failed = 1;
			return;
		}
		b->p = p;
		b->cap = cap;
	}
	memcpy(b->p + b->n, s, n);
	b->n += n;
}

static void otel_thread_ctx_pb_varint(struct otel_thread_ctx_pb *b, uint64_t v)
{
	uint8_t c[10];
	size_t n = 0;

	do {
		c[n++] = (uint8_t)((v & 0x7f) | (v > 0x7f ? 0x80 : 0));
		v >>= 7;
	} while (v);
	otel_thread_ctx_pb_bytes(b, c, n);
}

/* A length-delimited field: its tag, its length, its bytes. */
static void otel_thread_ctx_pb_field(struct otel_thread_ctx_pb *b, uint32_t field, const void *s, size_t n)
{
	otel_thread_ctx_pb_varint(b, (uint64_t)field << 3 | 2);
	otel_thread_ctx_pb_varint(b, n);
	otel_thread_ctx_pb_bytes(b, s, n);
}

/* A KeyValue of a string (an AnyValue's string_value is field 1) into b as field. */
static void otel_thread_ctx_pb_string_kv(struct otel_thread_ctx_pb *b, uint32_t field, const char *key,
					 const char *value)
{
	struct otel_thread_ctx_pb any = OTEL_THREAD_CTX_PB_EMPTY, kv = OTEL_THREAD_CTX_PB_EMPTY;

	otel_thread_ctx_pb_field(&any, 1, value, strlen(value));
	otel_thread_ctx_pb_field(&kv, 1, key, strlen(key));
	otel_thread_ctx_pb_field(&kv, 2, any.p, any.n);
	otel_thread_ctx_pb_field(b, field, kv.p, kv.n);
	b->failed |= any.failed | kv.failed;
	free(any.p);
	free(kv.p);
}

struct otel_thread_ctx_process_header {
	char signature[8];		/* "OTEL_CTX", written last */
	uint32_t version;		/* 2 */
	uint32_t payload_size;
	uint64_t published_at_ns;	/* CLOCK_BOOTTIME; 0 while it changes */
	uint64_t payload;		/* where the ProcessContext is */
};

static struct otel_thread_ctx_process_header *otel_thread_ctx_process;
/* the payload published and the one before: a reader may still be reading that one */
static uint8_t *otel_thread_ctx_payload[2];
/* the process that mapped it: a fork's child has not the mapping (MADV_DONTFORK) and makes its own */
static pid_t otel_thread_ctx_process_pid;

int otel_thread_ctx_publish_process(const char *service_name, const char *const keys[], size_t nkeys)
{
	struct otel_thread_ctx_pb pb = OTEL_THREAD_CTX_PB_EMPTY, arr = OTEL_THREAD_CTX_PB_EMPTY, any = OTEL_THREAD_CTX_PB_EMPTY,
				  kv = OTEL_THREAD_CTX_PB_EMPTY, res = OTEL_THREAD_CTX_PB_EMPTY;
	struct otel_thread_ctx_process_header *h =
		otel_thread_ctx_process_pid == getpid() ? otel_thread_ctx_process : NULL;
	struct timespec ts;
	uint8_t *payload;
	size_t i;

	if (nkeys > 256)
		return -1;
	if (service_name) {
		struct otel_thread_ctx_pb attrs = OTEL_THREAD_CTX_PB_EMPTY;

		otel_thread_ctx_pb_string_kv(&attrs, 1, "service.name", service_name);
		otel_thread_ctx_pb_field(&pb, 1, attrs.p, attrs.n);
		res.failed |= attrs.failed;
		free(attrs.p);
	}
	otel_thread_ctx_pb_string_kv(&pb, 2, "threadlocal.schema_version", "tlsdesc_v1_dev");
	for (i = 0; i < nkeys; i++) {
		struct otel_thread_ctx_pb one = OTEL_THREAD_CTX_PB_EMPTY;

		otel_thread_ctx_pb_field(&one, 1, keys[i], strlen(keys[i]));
		otel_thread_ctx_pb_field(&arr, 1, one.p, one.n);
		arr.failed |= one.failed;
		free(one.p);
	}
	otel_thread_ctx_pb_field(&any, 5, arr.p, arr.n);
	otel_thread_ctx_pb_field(&kv, 1, "threadlocal.attribute_key_map", 29);
	otel_thread_ctx_pb_field(&kv, 2, any.p, any.n);
	otel_thread_ctx_pb_field(&pb, 2, kv.p, kv.n);
	pb.failed |= arr.failed | any.failed | kv.failed | res.failed;
	free(arr.p);
	free(any.p);
	free(kv.p);
	if (pb.failed || !pb.n) {
		free(pb.p);
		return -1;
	}
	payload = pb.p;
	if (!h) {
		long page = sysconf(_SC_PAGESIZE);
		int fd = (int)syscall(SYS_memfd_create, "OTEL_CTX", 1u /* MFD_CLOEXEC */);
		void *m;

		if (fd >= 0 && ftruncate(fd, page)) {
			close(fd);
			fd = -1;
		}
		m = fd >= 0 ? mmap(NULL, (size_t)page, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0) :
			      mmap(NULL, (size_t)page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (fd >= 0)
			close(fd);
		if (m == MAP_FAILED) {
			free(payload);
			return -1;
		}
		madvise(m, (size_t)page, MADV_DONTFORK);
		h = (struct otel_thread_ctx_process_header *)m;
		otel_thread_ctx_process = h;
		otel_thread_ctx_process_pid = getpid();
	}
	h->published_at_ns = 0;
	OTEL_THREAD_CTX_FENCE();
	h->version = 2;
	h->payload_size = (uint32_t)pb.n;
	h->payload = (uint64_t)(uintptr_t)payload;
	clock_gettime(CLOCK_BOOTTIME, &ts);
	OTEL_THREAD_CTX_FENCE();
	h->published_at_ns = (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
	OTEL_THREAD_CTX_FENCE();
	memcpy(h->signature, "OTEL_CTX", 8);
	/*
	 * The payload before last goes: a reader that began on it has seen
	 * published_at_ns change twice since, and reads again.
	 */
	free(otel_thread_ctx_payload[1]);
	otel_thread_ctx_payload[1] = otel_thread_ctx_payload[0];
	otel_thread_ctx_payload[0] = payload;
	/* PR_SET_VMA, PR_SET_VMA_ANON_NAME: names an anonymous mapping (5.17+); a memfd is named already */
	prctl(0x53564d41, 0, (unsigned long)h, (unsigned long)sysconf(_SC_PAGESIZE), (unsigned long)"OTEL_CTX");
	return 0;
}

#endif /* OTEL_THREAD_CTX_IMPLEMENTATION */

#ifdef __cplusplus
}
#endif

#endif
