// SPDX-License-Identifier: GPL-2.0-only
/*
 * By libiberty's demangler, the one binutils and perf use: C++ (Itanium),
 * Rust's legacy names (Itanium's, with a hash last) and its v0 names ("_R").
 * Like perf, without parameter lists: overloads share a frame, and frames
 * stay short enough to read in a flame graph.
 */
#define HAVE_DECL_BASENAME 1	/* glibc declares it: libiberty.h must not again */
#include <libiberty/demangle.h>
#include "demangle.h"

char *demangle(const char *name)
{
	char *readable;

	/* only mangled names: most symbols are C's, and the demangler need not see them */
	if (name[0] != '_' || (name[1] != 'Z' && name[1] != 'R'))
		return NULL;
	/*
	 * Rust first: its legacy names are Itanium ones with a hash last.
	 * Not cplus_demangle(), which brings libiberty's xmalloc() with it.
	 */
	readable = rust_demangle(name, DMGL_NO_OPTS);

	return readable ? readable : cplus_demangle_v3(name, DMGL_NO_OPTS);
}
