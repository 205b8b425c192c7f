/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * User stack symbolization.  The sampler hands over bare instruction
 * addresses; they mean something only while their process lives, so the
 * recorder turns them into text at once.  A file's symbols are read once and
 * shared by every process that maps it, and every cache is bounded, because
 * this runs for as long as tract records.  Not thread-safe.
 */
#ifndef TRACT_USYMS_H
#define TRACT_USYMS_H

#include <stddef.h>
#include <stdint.h>
#include <elfutils/libdw.h>

struct usyms;

struct usyms_stats {
	uint64_t modules_loaded;	/* ELF files whose symbol tables were read */
	uint64_t modules_evicted;
	uint64_t modules;		/* symbol tables cached now */
	uint64_t symbol_bytes;		/* ... and their size */
	uint64_t maps_reads;		/* of /proc/PID/maps, re-reads included */
	uint64_t procs;			/* processes cached now */
	uint64_t jit_maps;		/* perf maps held now (a process's JIT code named) */
	uint64_t jit_bytes;		/* ... and their size */
	uint64_t jit_reads;		/* of perf maps, each one's new lines */
	uint64_t mapped_given_back;	/* bytes of mapped files whose pages were given back (mapped_pages.h) */
};

/* Keeps at most max_modules symbol tables (0: 512). */
struct usyms *usyms__new(unsigned int max_modules);
/* The same over proc_root laid out as /proc (NULL: /proc), for tests and fuzzers. */
struct usyms *usyms__new_at(unsigned int max_modules, const char *proc_root);
void usyms__free(struct usyms *u);

/*
 * The text of a user stack of process pid, innermost frame first: ips[0] is
 * the exact PC, the others are return addresses.  *out gets a malloc'd string
 * of n lines separated by '\n', each one of:
 *
 *   fsync+0x2b (libc.so.6)        a symbol and the offset into it
 *   0x10f3a2 (libc.so.6)          no symbol: the ELF address, as addr2line
 *                                 takes it (the same in every process)
 *   0x7f2c41a3e010 (libc.so.6)    the file could not be read: the address
 *   Load.compute+0x1f ([jit])     executable memory with no file (JIT code)
 *                                 that the process's perf map names
 *   0x7f2c41a3e010 ([jit])        ... and one it does not name
 *   0x7f2c41a3e010 ([unknown])    no executable mapping holds the address
 *
 * start_ns tells a reused pid from the process cached under it (0: trust the
 * pid).  Returns 0, or -ESRCH when the process is gone and nothing of it was
 * cached; *out is left alone then.
 */
int usyms__symbolize(struct usyms *u, int pid, uint64_t start_ns,
		     const uint64_t *ips, size_t n, char **out);

/*
 * Once per pass, with the monotonic time: forgets processes not seen for a
 * minute and paces the re-reads of maps that addresses outside every known
 * mapping trigger (at most one a second per process).
 */
void usyms__end_pass(struct usyms *u, uint64_t now_ns);
/* Process pid (started at start_ns, 0: any) ended: what was kept of its mappings goes now. */
void usyms__forget(struct usyms *u, int pid, uint64_t start_ns);

/*
 * The call frame information that covers addr in process pid: the module's
 * .eh_frame and .debug_frame tables (either may be NULL) and addr as the
 * ELF address they are indexed by.  mapped: some executable mapping holds
 * addr (JIT code has one, and no tables).  outermost: addr is in a function
 * that begins a stack and has no caller (Go's goexit, mstart and rt0_go,
 * as a Go binary's table marks them).  go: the module is a Go binary, whose
 * code keeps frame pointers.  Returns 0, or -ENOENT when no table covers
 * the module.  The tables stay valid until the next call.
 */
struct usyms_cfi {
	Dwarf_CFI *eh, *debug;
	uint64_t elf_addr;
	int mapped;
	int outermost;
	int go;
};

int usyms__cfi(struct usyms *u, int pid, uint64_t start_ns, uint64_t addr, struct usyms_cfi *out);

void usyms__stats(const struct usyms *u, struct usyms_stats *st);

/*
 * What process pid's perf map has told so far, as a number that changes
 * when the map was rewritten or its lines doubled (0: no map read): a stack
 * whose JIT frames it left unnamed is worth naming again when it changes.
 * Reads the map on, at most once a second.
 */
uint32_t usyms__jit_gen(struct usyms *u, int pid);

#endif
