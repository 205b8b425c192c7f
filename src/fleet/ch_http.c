// SPDX-License-Identifier: GPL-2.0-only
#include <curl/curl.h>
#include <zlib.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "ch_http.h"
#include "ch_login.h"
#include "clock.h"
#include "strbuf.h"
#include "util.h"

struct ch_http {
	CURL *curl;
	uint64_t sent_bytes;		/* request bodies sent, as they went (compressed) */
	const uint64_t *abandon_at;	/* a mono_ns() past which a request in flight is given up, 0 for none */
	char *url;
	struct curl_slist *headers, *gzip_headers;
};

/* A body in gzip, which ClickHouse takes with Content-Encoding: rows are text and shrink several times. */
static unsigned char *gzip(const char *data, size_t len, size_t *out_len)
{
	z_stream z = { 0 };
	size_t cap = len / 2 + 1024;
	unsigned char *out = xcalloc(1, cap);
	int rc;

	if (deflateInit2(&z, 1, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK) {
		free(out);
		return NULL;
	}
	z.next_in = (unsigned char *)data;
	z.avail_in = (uInt)len;
	do {
		if (z.total_out == cap) {
			cap *= 2;
			out = xrealloc(out, cap);
		}
		z.next_out = out + z.total_out;
		z.avail_out = (uInt)(cap - z.total_out);
		rc = deflate(&z, Z_FINISH);
	} while (rc == Z_OK || (rc == Z_BUF_ERROR && z.avail_out == 0));
	*out_len = z.total_out;
	deflateEnd(&z);
	if (rc != Z_STREAM_END) {
		free(out);
		return NULL;
	}
	return out;
}

static pthread_once_t curl_once = PTHREAD_ONCE_INIT;

static void curl_init(void)
{
	curl_global_init(CURL_GLOBAL_DEFAULT);
}

struct ch_http *ch_http__new(const char *url, const char *user, const char *password, const char *ca_file)
{
	struct ch_http *h = xcalloc(1, sizeof(*h));
	struct strbuf b = { 0 };

	pthread_once(&curl_once, curl_init);
	h->curl = curl_easy_init();
	h->url = xstrdup(url);
	if (user) {
		strbuf_addf(&b, "X-ClickHouse-User: %s", user);
		h->headers = curl_slist_append(h->headers, strbuf_str(&b));
		strbuf_free(&b);
	}
	if (password) {
		if (ch_url_in_the_clear(url))
			tract_warn("the ClickHouse password goes to %s in plain http: anyone on the way can read it "
				   "(https:// keeps it secret)", url);
		strbuf_addf(&b, "X-ClickHouse-Key: %s", password);
		h->headers = curl_slist_append(h->headers, strbuf_str(&b));
		strbuf_free(&b);
	}
	/* no "Expect: 100-continue" round trip before each batch */
	h->headers = curl_slist_append(h->headers, "Expect:");
	for (struct curl_slist *l = h->headers; l; l = l->next)
		h->gzip_headers = curl_slist_append(h->gzip_headers, l->data);
	h->gzip_headers = curl_slist_append(h->gzip_headers, "Content-Encoding: gzip");
	curl_easy_setopt(h->curl, CURLOPT_HTTPHEADER, h->headers);
	curl_easy_setopt(h->curl, CURLOPT_CONNECTTIMEOUT_MS, 2000L);
	curl_easy_setopt(h->curl, CURLOPT_TIMEOUT_MS, 15000L);
	curl_easy_setopt(h->curl, CURLOPT_NOSIGNAL, 1L);
	curl_easy_setopt(h->curl, CURLOPT_TCP_KEEPALIVE, 1L);
	if (ca_file)
		curl_easy_setopt(h->curl, CURLOPT_CAINFO, ca_file);
	return h;
}

/* libcurl's progress callback, also called about once a second while nothing moves */
static int past_deadline(void *arg, curl_off_t dltotal, curl_off_t dlnow, curl_off_t ultotal, curl_off_t ulnow)
{
	const struct ch_http *h = arg;
	uint64_t at = __atomic_load_n(h->abandon_at, __ATOMIC_RELAXED);

	(void)dltotal, (void)dlnow, (void)ultotal, (void)ulnow;
	return at && mono_ns() >= at;
}

void ch_http__abandon_at(struct ch_http *h, const uint64_t *deadline_ns)
{
	h->abandon_at = deadline_ns;
	curl_easy_setopt(h->curl, CURLOPT_XFERINFOFUNCTION, past_deadline);
	curl_easy_setopt(h->curl, CURLOPT_XFERINFODATA, h);
	curl_easy_setopt(h->curl, CURLOPT_NOPROGRESS, 0L);
}

uint64_t ch_http__sent_bytes(const struct ch_http *h)
{
	return h->sent_bytes;
}

void ch_http__free(struct ch_http *h)
{
	if (!h)
		return;
	curl_easy_cleanup(h->curl);
	curl_slist_free_all(h->headers);
	curl_slist_free_all(h->gzip_headers);
	free(h->url);
	free(h);
}

struct answer {
	struct strbuf text;
	size_t limit;		/* bytes kept; beyond them the transfer stops */
	int over;		/* it went beyond */
};

static size_t take_answer(char *data, size_t size, size_t n, void *arg)
{
	struct answer *a = arg;
	size_t len = size * n;

	if (a->text.len + len > a->limit) {
		a->over = 1;
		return 0;
	}
	strbuf_addn(&a->text, data, len);
	return len;
}

/* ClickHouse's error codes that mean the data, not the connection: sending it again cannot help. */
static int bad_data(const char *answer)
{
	static const int codes[] = { 6, 26, 27, 32, 33, 38, 41, 49, 53, 69, 70, 72, 117, 130, 131 };
	const char *c = strstr(answer, "Code: ");
	int code = c ? atoi(c + 6) : 0;

	for (size_t i = 0; i < sizeof(codes) / sizeof(codes[0]); i++)
		if (code == codes[i])
			return 1;
	return 0;
}

/* The outcome of a request that was performed, from curl's code, the status and the answer. */
static enum ch_outcome outcome(CURLcode rc, long status, curl_off_t sent, const char *answer)
{
	if (rc == CURLE_COULDNT_CONNECT || rc == CURLE_COULDNT_RESOLVE_HOST || (rc != CURLE_OK && sent == 0))
		return CH_UNREACHABLE;
	if (rc != CURLE_OK)
		return CH_UNKNOWN;
	if (status == 200)
		return CH_OK;
	if (status == 401 || status == 403 || strstr(answer, "Code: 192") || strstr(answer, "Code: 193") ||
	    strstr(answer, "Code: 194") || strstr(answer, "Code: 164"))
		return CH_AUTH;
	return bad_data(answer) ? CH_BAD_DATA : CH_ERROR;
}

/* Sends what the caller set up to url; the answer is kept to limit bytes. */
static enum ch_outcome perform(struct ch_http *h, const char *url, size_t limit, char **answer, size_t *answer_len)
{
	struct answer got = { .limit = limit };
	enum ch_outcome out;
	curl_off_t sent = 0;
	long status = 0;
	CURLcode rc;

	curl_easy_setopt(h->curl, CURLOPT_URL, url);
	curl_easy_setopt(h->curl, CURLOPT_WRITEFUNCTION, take_answer);
	curl_easy_setopt(h->curl, CURLOPT_WRITEDATA, &got);
	rc = curl_easy_perform(h->curl);
	curl_easy_getinfo(h->curl, CURLINFO_RESPONSE_CODE, &status);
	curl_easy_getinfo(h->curl, CURLINFO_SIZE_UPLOAD_T, &sent);
	h->sent_bytes += (uint64_t)sent;
	/* an answer cut at the limit is an answer too: an error's text, or rows the caller refuses */
	if (got.over && rc == CURLE_WRITE_ERROR)
		rc = CURLE_OK;
	if (answer_len)
		*answer_len = got.text.len;
	*answer = strbuf_take(&got.text);
	out = outcome(rc, status, sent, *answer);
	if (out == CH_OK && got.over) {
		free(*answer);
		*answer = xstrdup("the answer is larger than tract reads (narrow the query)");
		out = CH_ERROR;
	}
	/* no answer (refused, timed out, cut): curl's reason */
	if (out != CH_OK && rc != CURLE_OK && !**answer) {
		free(*answer);
		*answer = xstrdup(curl_easy_strerror(rc));
	}
	return out;
}

enum ch_outcome ch_http__insert(struct ch_http *h, const char *query, const char *query_id, const char *body,
				size_t len, char **answer)
{
	struct strbuf url = { 0 };
	unsigned char *packed = NULL;
	size_t packed_len = 0;
	enum ch_outcome out;
	char *q = curl_easy_escape(h->curl, query, 0);

	curl_easy_setopt(h->curl, CURLOPT_ACCEPT_ENCODING, NULL);
	/* enable_http_compression lets the server read a gzip body */
	strbuf_addf(&url, "%s/?enable_http_compression=1&query=%s", h->url, q);
	curl_free(q);
	if (query_id) {
		q = curl_easy_escape(h->curl, query_id, 0);
		strbuf_addf(&url, "&query_id=%s", q);
		curl_free(q);
	}
	packed = len > 4096 ? gzip(body, len, &packed_len) : NULL;
	curl_easy_setopt(h->curl, CURLOPT_HTTPHEADER, packed ? h->gzip_headers : h->headers);
	curl_easy_setopt(h->curl, CURLOPT_POSTFIELDS, packed ? (const char *)packed : body);
	curl_easy_setopt(h->curl, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)(packed ? packed_len : len));
	/* error answers are short: 64 KiB of one is plenty */
	out = perform(h, strbuf_str(&url), 65536, answer, NULL);
	strbuf_free(&url);
	free(packed);
	return out;
}

enum ch_outcome ch_http__post(struct ch_http *h, const char *query, const char *body, size_t len, char **answer)
{
	struct strbuf url = { 0 };
	enum ch_outcome out;

	if (body)
		return ch_http__insert(h, query, NULL, body, len, answer);
	curl_easy_setopt(h->curl, CURLOPT_HTTPHEADER, h->headers);
	curl_easy_setopt(h->curl, CURLOPT_ACCEPT_ENCODING, NULL);
	strbuf_addf(&url, "%s/", h->url);
	curl_easy_setopt(h->curl, CURLOPT_POSTFIELDS, query);
	curl_easy_setopt(h->curl, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)strlen(query));
	out = perform(h, strbuf_str(&url), 65536, answer, NULL);
	strbuf_free(&url);
	return out;
}

enum ch_outcome ch_http__select(struct ch_http *h, const char *query, const char *settings, char **answer,
				size_t *len)
{
	struct strbuf url = { 0 };
	enum ch_outcome out;

	curl_easy_setopt(h->curl, CURLOPT_HTTPHEADER, h->headers);
	/* the rows come compressed; an error found mid-stream is a 500, not rows with the error appended */
	curl_easy_setopt(h->curl, CURLOPT_ACCEPT_ENCODING, "");
	strbuf_addf(&url, "%s/%s%s", h->url, settings ? "?" : "", settings ? settings : "");
	curl_easy_setopt(h->curl, CURLOPT_POSTFIELDS, query);
	curl_easy_setopt(h->curl, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)strlen(query));
	out = perform(h, strbuf_str(&url), CH_SELECT_MAX, answer, len);
	strbuf_free(&url);
	return out;
}
