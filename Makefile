# SPDX-License-Identifier: GPL-2.0-only
# tract: build, test, bench and install.  `make V=1` shows the commands.

OUT        ?= build
PREFIX     ?= /usr/local
DESTDIR    ?=
BINDIR     ?= $(PREFIX)/bin
MANDIR     ?= $(PREFIX)/share/man
DATADIR    ?= $(PREFIX)/share
UNITDIR    ?= $(PREFIX)/lib/systemd/system
VERSION    := $(shell cat VERSION)

CC         ?= cc
CLANG      ?= clang
BPFTOOL    ?= $(shell command -v bpftool 2>/dev/null || echo /usr/sbin/bpftool)
ARCH       := $(shell uname -m | sed -e 's/x86_64/x86/' -e 's/aarch64/arm64/')

WARNINGS   := -Wall -Wextra -Wshadow -Wstrict-prototypes -Wmissing-prototypes -Wformat=2
CFLAGS     ?= -O2 -g
CFLAGS     += -std=gnu11 $(WARNINGS) -fno-omit-frame-pointer -D_GNU_SOURCE \
              -DTRACT_VERSION='"$(VERSION)"' -Iinclude -Isrc -I$(OUT)
LIBS       := $(shell pkg-config --libs libbpf sqlite3 2>/dev/null || echo -lbpf -lelf -lz -lsqlite3) -ldw -lelf -lncursesw -ltinfo -lm -pthread
BPF_CFLAGS := -g -O2 -target bpf -D__TARGET_ARCH_$(ARCH) -Ibpf -Iinclude -Wall -Wno-unused-function

ifeq ($(SAN),1)
CFLAGS     += -fsanitize=address,undefined -fno-sanitize-recover=undefined
LDFLAGS    += -fsanitize=address,undefined
OUT        := build-san
endif

# libFuzzer targets: clang, with the sanitizers, in a tree of their own
ifeq ($(FUZZ),1)
CC         := clang
CFLAGS     += -fsanitize=fuzzer-no-link,address,undefined -fno-sanitize-recover=undefined
LDFLAGS    += -fsanitize=address,undefined
OUT        := build-fuzz
endif
FUZZ_SECONDS ?= 60
FUZZ_TARGETS := $(patsubst tests/fuzz/%.c,%,$(wildcard tests/fuzz/fuzz_*.c))

ifeq ($(V),1)
Q =
msg =
else
Q = @
msg = @printf '  %-8s %s\n' "$(1)" "$(2)";
endif

.DELETE_ON_ERROR:
.SECONDARY:
.PHONY: all deps run test test-unit test-san test-integration test-kernels test-fuzz fuzz fuzz-run bench install uninstall clean vmlinux

SRCS       := $(wildcard src/*.c)
LIB_SRCS   := $(filter-out src/main.c,$(SRCS))
LIB_OBJS   := $(LIB_SRCS:src/%.c=$(OUT)/obj/%.o)
SKELS      := $(OUT)/tract.skel.h
UNIT_TESTS := $(patsubst tests/unit/%.c,$(OUT)/tests/%,$(wildcard tests/unit/test_*.c))
BENCH_BINS := $(patsubst bench/%.c,$(OUT)/bench/%,$(wildcard bench/*.c))

all: $(OUT)/tract $(OUT)/workload $(OUT)/empty.bpf.o

deps:
	$(Q)./scripts/deps.sh

$(OUT)/%.bpf.o: bpf/%.bpf.c bpf/vmlinux.h include/tract/abi.h $(wildcard bpf/*.bpf.h) | $(OUT)
	$(call msg,BPF,$@)
	$(Q)$(CLANG) $(BPF_CFLAGS) -c $< -o $@

$(OUT)/%.skel.h: $(OUT)/%.bpf.o
	$(call msg,SKEL,$@)
	$(Q)$(BPFTOOL) gen skeleton $< name $*_bpf > $@

$(OUT)/syscall_names.h: scripts/gen-syscalls.sh | $(OUT)
	$(call msg,GEN,$@)
	$(Q)./scripts/gen-syscalls.sh > $@

$(OUT)/obj/%.o: src/%.c $(wildcard src/*.h) include/tract/abi.h $(SKELS) $(OUT)/syscall_names.h | $(OUT)
	$(call msg,CC,$@)
	$(Q)$(CC) $(CFLAGS) -c $< -o $@

$(OUT)/libtract.a: $(LIB_OBJS)
	$(call msg,AR,$@)
	$(Q)$(AR) rcs $@ $^

$(OUT)/tract: $(OUT)/obj/main.o $(OUT)/libtract.a
	$(call msg,LINK,$@)
	$(Q)$(CC) $(LDFLAGS) $^ $(LIBS) -o $@

$(OUT)/workload: tests/workload/workload.c | $(OUT)
	$(call msg,CC,$@)
	$(Q)$(CC) $(CFLAGS) -O1 -pthread $< -o $@

$(OUT)/tests/%: tests/unit/%.c $(OUT)/libtract.a | $(OUT)
	$(call msg,CC,$@)
	$(Q)$(CC) $(CFLAGS) $(LDFLAGS) $< $(OUT)/libtract.a $(LIBS) -lcmocka -o $@

$(OUT)/fuzz/%: tests/fuzz/%.c $(OUT)/libtract.a | $(OUT)
	$(call msg,FUZZ,$@)
	$(Q)mkdir -p $(OUT)/fuzz
	$(Q)$(CC) $(CFLAGS) -fsanitize=fuzzer $< $(OUT)/libtract.a $(LIBS) -o $@

# make fuzz: each target for FUZZ_SECONDS, its corpus kept in build-fuzz/corpus
fuzz:
	$(Q)$(MAKE) --no-print-directory FUZZ=1 fuzz-run

fuzz-run: $(FUZZ_TARGETS:%=$(OUT)/fuzz/%)
	$(Q)for t in $(FUZZ_TARGETS); do \
		mkdir -p $(OUT)/corpus/$$t; \
		cp -n tests/fuzz/seeds/$$t/* $(OUT)/corpus/$$t/ 2>/dev/null; \
		echo "  FUZZ     $$t for $(FUZZ_SECONDS) s"; \
		$(OUT)/fuzz/$$t -max_total_time=$(FUZZ_SECONDS) -timeout=10 -rss_limit_mb=2048 -close_fd_mask=2 \
			-artifact_prefix=$(OUT)/fuzz/$$t- $(OUT)/corpus/$$t > $(OUT)/fuzz/$$t.log 2>&1 || \
			{ tail -n 30 $(OUT)/fuzz/$$t.log; exit 1; }; \
	done

# a short bounded pass for make test
test-fuzz:
	$(Q)$(MAKE) --no-print-directory fuzz FUZZ_SECONDS=10

$(OUT)/bench/%: bench/%.c | $(OUT)
	$(call msg,CC,$@)
	$(Q)$(CC) $(CFLAGS) -pthread $< $(LIBS) -o $@

$(OUT):
	$(Q)mkdir -p $(OUT)/obj $(OUT)/tests $(OUT)/bench

vmlinux:
	$(BPFTOOL) btf dump file /sys/kernel/btf/vmlinux format c > bpf/vmlinux.h

run: deps all
	$(OUT)/tract record

test: deps
	$(Q)$(MAKE) --no-print-directory test-unit
	$(Q)$(MAKE) --no-print-directory test-san
	$(Q)$(MAKE) --no-print-directory test-integration
	$(Q)$(MAKE) --no-print-directory test-kernels
	$(Q)$(MAKE) --no-print-directory test-fuzz

test-unit: $(UNIT_TESTS)
	$(Q)set -e; for t in $(UNIT_TESTS); do $$t; done

test-san:
	$(Q)$(MAKE) --no-print-directory SAN=1 test-unit

test-integration: all
	$(Q)$(MAKE) --no-print-directory SAN=1 build-san/tract
	$(Q)TRACT=$(abspath $(OUT)/tract) WORKLOAD=$(abspath $(OUT)/workload) \
		TRACT_SAN=$(abspath build-san/tract) prove -v tests/integration/

# Debian 12's own kernel under qemu: tract must run on kernels older than the build host's
test-kernels: all
	$(Q)OUT=$(OUT) ./scripts/test-kernels.sh

bench: deps all $(BENCH_BINS)
	$(Q)OUT=$(abspath $(OUT)) ./bench/bench.sh

install: all
	install -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(MANDIR)/man8 \
		$(DESTDIR)$(DATADIR)/bash-completion/completions $(DESTDIR)$(UNITDIR)
	install -m 0755 $(OUT)/tract $(DESTDIR)$(BINDIR)/tract
	install -m 0644 doc/tract.8 $(DESTDIR)$(MANDIR)/man8/tract.8
	install -m 0644 contrib/tract.bash $(DESTDIR)$(DATADIR)/bash-completion/completions/tract
	sed 's|@BINDIR@|$(BINDIR)|g' contrib/tract.service > $(DESTDIR)$(UNITDIR)/tract.service
	chmod 0644 $(DESTDIR)$(UNITDIR)/tract.service

uninstall:
	rm -f $(DESTDIR)$(BINDIR)/tract $(DESTDIR)$(MANDIR)/man8/tract.8 \
		$(DESTDIR)$(DATADIR)/bash-completion/completions/tract $(DESTDIR)$(UNITDIR)/tract.service

clean:
	rm -rf build build-san build-fuzz
