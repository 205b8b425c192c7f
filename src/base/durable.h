/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Files replaced whole or not at all, and so after a crash too: the new
 * content is written under another name and flushed, renamed over the old,
 * and the directory flushed, since a rename is only durable once the
 * directory that holds it is.
 */
#ifndef TRACT_DURABLE_H
#define TRACT_DURABLE_H

#include <stddef.h>
#include <stdio.h>

/* rename(2), then the directory of to flushed: 0 or -errno. */
int durable_rename(const char *from, const char *to);
/* f's buffered bytes written and flushed to the disk, then f closed (always): 0 or -errno. */
int durable_fclose(FILE *f);
/* path replaced by len bytes of text (through path.tmp, a regular file of the caller's umask): 0 or -errno. */
int durable_replace(const char *path, const char *text, size_t len);

#endif
