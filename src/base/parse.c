// SPDX-License-Identifier: GPL-2.0-only
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <getopt.h>
#include "parse.h"
#include "util.h"

int parse_u64(const char *s, uint64_t min, uint64_t max, uint64_t *out)
{
	unsigned long long v;
	char *end;

	/* strtoull accepts "-1" and leading spaces; option values must not */
	if (!s || !isdigit((unsigned char)s[0]))
		return -EINVAL;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno || *end || v < min || v > max)
		return -EINVAL;
	*out = v;
	return 0;
}

/*
 * A plain number at the start of s ("10", "0.5": digits and a point; no
 * sign, spaces, exponent or hex, which strtod would take); *end after it.
 */
static int leading_number(const char *s, double *v, char **end)
{
	size_t plain;

	if (!s || !(isdigit((unsigned char)s[0]) || s[0] == '.'))
		return -EINVAL;
	plain = strspn(s, "0123456789.");
	errno = 0;
	*v = strtod(s, end);
	if (*end > s + plain)
		*end = (char *)s + plain;
	return errno || !isfinite(*v) || memchr(s, '.', plain) != memrchr(s, '.', plain) ? -EINVAL : 0;
}

/* A plain decimal number within [min, max], and nothing after it. */
static int parse_decimal(const char *s, double min, double max, double *out)
{
	char *end;
	double v;

	if (leading_number(s, &v, &end) || *end || v < min || v > max)
		return -EINVAL;
	*out = v;
	return 0;
}

int parse_seconds(const char *s, uint64_t *out_ns)
{
	double v;

	/* a year is plenty; beyond that the nanoseconds would not fit */
	if (parse_decimal(s, 1e-9, 366.0 * 86400, &v))
		return -EINVAL;
	*out_ns = (uint64_t)(v * 1e9 + 0.5);
	return 0;
}

int parse_hz(const char *s, double max, double *out)
{
	/* below one pass a day the schedule stops making sense */
	return parse_decimal(s, 1.0 / 86400, max, out);
}

int parse_pid_list(const char *s, uint32_t *pids, size_t max, size_t *nr)
{
	uint32_t tmp[max ? max : 1];
	size_t n = 0;
	char *copy, *save = NULL;
	int err = 0;

	if (!s || !*s)
		return -EINVAL;
	copy = xstrdup(s);
	/* strtok would skip empty items; "1,,2" is a typo worth reporting */
	if (strstr(copy, ",,") || copy[0] == ',' || copy[strlen(copy) - 1] == ',')
		err = -EINVAL;
	for (char *tok = strtok_r(copy, ",", &save); !err && tok; tok = strtok_r(NULL, ",", &save)) {
		uint64_t v;

		if (n == max || parse_u64(tok, 1, 0x3fffffff, &v))
			err = -EINVAL;
		else
			tmp[n++] = v;
	}
	free(copy);
	if (err)
		return err;
	memcpy(pids, tmp, n * sizeof(*pids));
	*nr = n;
	return 0;
}

/* A number with one of n suffixes, scaled by its multiplier, within [1, max]. */
static int parse_scaled(const char *s, const char *const *suffixes, const double *mult, size_t n,
			double max, uint64_t *out)
{
	char *end;
	double v;

	if (leading_number(s, &v, &end) || v <= 0)
		return -EINVAL;
	for (size_t i = 0; i < n; i++) {
		if (strcmp(end, suffixes[i]))
			continue;
		v *= mult[i];
		if (v > max || v < 1)
			return -EINVAL;
		*out = (uint64_t)v;
		return 0;
	}
	return -EINVAL;
}

int parse_duration(const char *s, uint64_t *out_us)
{
	static const char *const units[] = { "s", "m", "h", "d", "w" };
	static const double us[] = { 1e6, 60e6, 3600e6, 86400e6, 604800e6 };

	return parse_scaled(s, units, us, ARRAY_SIZE(units), 100 * 365 * 86400e6, out_us);
}

int parse_size(const char *s, uint64_t *out_bytes)
{
	static const char *const units[] = { "", "K", "M", "G", "T", "KiB", "MiB", "GiB", "TiB" };
	static const double bytes[] = { 1, 1024.0, 1048576.0, 1073741824.0, 1099511627776.0,
					 1024.0, 1048576.0, 1073741824.0, 1099511627776.0 };

	return parse_scaled(s, units, bytes, ARRAY_SIZE(units), 1e18, out_bytes);
}

int option_error(const char *cmd, int c, char **argv)
{
	if (c == ':')
		return tract_usage_error(cmd, "option '%s' needs a value", argv[optind - 1]);
	return tract_usage_error(cmd, "unknown option '%s'", argv[optind - 1]);
}
