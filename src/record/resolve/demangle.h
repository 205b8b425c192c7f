/* SPDX-License-Identifier: GPL-2.0-only */
/* Symbol names as their language writes them: C++, and Rust's both manglings. */
#ifndef TRACT_DEMANGLE_H
#define TRACT_DEMANGLE_H

/*
 * name demangled, without parameter lists or Rust's hashes
 * ("std::vector<int, std::allocator<int> >::push_back",
 * "core::ptr::drop_in_place::<alloc::string::String>"), for the caller to
 * free; NULL where it is not mangled (C) or not understood.
 */
char *demangle(const char *name);

#endif
