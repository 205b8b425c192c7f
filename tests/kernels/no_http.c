// SPDX-License-Identifier: GPL-2.0-only
/*
 * The guest's static tract has no libcurl (its static archive needs a dozen
 * others): ClickHouse is not what the guest kernels test, so its HTTP
 * client is this one, which finds every server unreachable.  Linked ahead of
 * libfleet.a, it keeps ch_http.o out of the binary.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "ch_http.h"

struct ch_http {
	int unused;
};

struct ch_http *ch_http__new(const char *url, const char *user, const char *password, const char *ca_file)
{
	(void)url, (void)user, (void)password, (void)ca_file;
	return calloc(1, sizeof(struct ch_http));
}

void ch_http__free(struct ch_http *h)
{
	free(h);
}

void ch_http__abandon_at(struct ch_http *h, const uint64_t *deadline_ns)
{
	(void)h, (void)deadline_ns;
}

uint64_t ch_http__sent_bytes(const struct ch_http *h)
{
	(void)h;
	return 0;
}

enum ch_outcome ch_http__post(struct ch_http *h, const char *query, const char *body, size_t len, char **answer)
{
	(void)h, (void)query, (void)body, (void)len;
	*answer = strdup("this build has no HTTP client");
	return CH_UNREACHABLE;
}

enum ch_outcome ch_http__select(struct ch_http *h, const char *query, const char *settings, char **answer,
				size_t *len)
{
	(void)h, (void)query, (void)settings;
	*answer = strdup("this build has no HTTP client");
	if (len)
		*len = strlen(*answer);
	return CH_UNREACHABLE;
}

enum ch_outcome ch_http__insert(struct ch_http *h, const char *query, const char *query_id, const char *body,
				size_t len, char **answer)
{
	(void)query_id;
	return ch_http__post(h, query, body, len, answer);
}
