/* SPDX-License-Identifier: GPL-2.0-only */
/* XML text and attribute values from bytes that need not be UTF-8 (thread names, paths). */
#ifndef TRACT_XML_H
#define TRACT_XML_H

#include <stddef.h>
#include <stdio.h>

/*
 * s escaped for XML text or a quoted attribute: & < > " ' as entities;
 * bytes that are not UTF-8 and control characters, which XML 1.0 cannot
 * hold, as U+FFFD.  A name can never end an element or start a script.
 */
void xml_text(FILE *f, const char *s, size_t len);

#endif
