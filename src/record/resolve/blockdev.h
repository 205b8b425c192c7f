/* SPDX-License-Identifier: GPL-2.0-only */
/* Names of block devices and request operations, for the block I/O columns. */
#ifndef TRACT_BLOCKDEV_H
#define TRACT_BLOCKDEV_H

#include <stdint.h>

struct blockdevs;

struct blockdevs *blockdevs__new(const char *sys_root);
void blockdevs__free(struct blockdevs *bd);
/* "vda1" for a kernel dev_t (major << 20 | minor); "MAJ:MIN" if /sys does not say. Valid until free. */
const char *blockdevs__name(struct blockdevs *bd, uint32_t dev);
/* "read", "write", "flush", ... for REQ_OP_* values. */
const char *block_op_name(unsigned int op);

#endif
