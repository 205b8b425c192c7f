/* SPDX-License-Identifier: GPL-2.0-only */
/* Parsing of option values; each returns 0 or -EINVAL and leaves *out alone on error. */
#ifndef TRACT_PARSE_H
#define TRACT_PARSE_H

#include <stddef.h>
#include <stdint.h>

int parse_u64(const char *s, uint64_t min, uint64_t max, uint64_t *out);
/* A decimal number of seconds ("10", "0.5") as nanoseconds, > 0. */
int parse_seconds(const char *s, uint64_t *out_ns);
/* A sampling frequency in Hz ("10", "0.5"), within (0, max]. */
int parse_hz(const char *s, double max, double *out);
/* "PID[,PID...]", each > 0, at most max of them. */
int parse_pid_list(const char *s, uint32_t *pids, size_t max, size_t *nr);

/* A duration with a unit: "90s", "15m", "12h", "7d", "2w"; as microseconds. */
int parse_duration(const char *s, uint64_t *out_us);
/* A size in bytes: "1000", "500K", "20M", "2G", "1T" (powers of 1024; "MiB" too). */
int parse_size(const char *s, uint64_t *out_bytes);

/*
 * The message for what getopt_long returned that no option takes: a missing
 * value (':') or an unknown option; always -EINVAL.
 */
int option_error(const char *cmd, int c, char **argv);

#endif
