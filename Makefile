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
# -O1 under the sanitizers (as ASan advises: a quarter less to compile than
# -O2); the fuzz targets keep -O2, whose inputs run faster
OPT        ?= -O2
CFLAGS     ?= $(OPT) -g
CFLAGS     += -std=gnu11 $(WARNINGS) -fno-omit-frame-pointer -D_GNU_SOURCE \
              -DTRACT_VERSION='"$(VERSION)"' -Iinclude -Isrc -I$(OUT)
LIBS       := $(shell pkg-config --libs libbpf sqlite3 2>/dev/null || echo -lbpf -lelf -lz -lsqlite3) -ldw -lelf -liberty -lncursesw -ltinfo -lm -lcurl -lz -pthread
BPF_CFLAGS := -g -O2 -target bpf -D__TARGET_ARCH_$(ARCH) -Ibpf -Iinclude -Wall -Wno-unused-function

ifeq ($(SAN),1)
OPT        := -O1
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
.PHONY: all deps deps-test deb run test test-build test-guests test-kernels-boot test-san-record test-package test-busy test-unit test-layers test-nobpf test-san test-integration test-kernels test-fuzz fuzz fuzz-run fuzz-fixed bench soak install uninstall clean vmlinux

# Layers, one static library each, in link order: each uses only those after
# it (record: store and base only).  src/cmd holds the commands over them all.
LAYERS     := record top output query fleet store base
SRCS       := $(shell find src -name '*.c')
HDRS       := $(shell find src -name '*.h' -o -name '*.def')
INCDIRS    := $(patsubst %/,-I%,$(sort $(dir $(HDRS))))
layer_objs  = $(patsubst src/%.c,$(OUT)/obj/%.o,$(filter src/$(1)/%,$(SRCS)))
layer_libs  = $(foreach l,$(1),$(OUT)/lib/lib$(l).a)
CMD_OBJS   := $(call layer_objs,cmd)
LAYER_LIBS := $(call layer_libs,$(LAYERS))
SKELS      := $(OUT)/tract.skel.h
# what each layer's unit tests link: the layer and those below it
uses_base   := base
uses_store  := store base
uses_query  := query fleet store base
uses_output := output query fleet store base
uses_top    := top output query fleet store base
uses_record := record fleet store base
uses_fleet  := fleet store base
UNIT_TESTS := $(patsubst tests/unit/%.c,$(OUT)/tests/%,$(wildcard tests/unit/*/test_*.c))
# the layers whose tests must build where there is no clang or bpftool
NOBPF_TESTS = $(filter $(foreach l,base store query output top fleet,$(OUT)/tests/$(l)/%),$(UNIT_TESTS))
BENCH_BINS := $(patsubst bench/%.c,$(OUT)/bench/%,$(wildcard bench/*.c))

all: $(OUT)/tract $(OUT)/workload $(OUT)/workload-nofp $(OUT)/locks $(OUT)/waits $(OUT)/titled $(OUT)/empty.bpf.o

deps:
	$(Q)./scripts/deps.sh

deps-test:
	$(Q)./scripts/deps.sh --test

$(OUT)/%.bpf.o: bpf/%.bpf.c bpf/vmlinux.h include/tract/abi.h $(wildcard bpf/*.bpf.h) | $(OUT)
	$(call msg,BPF,$@)
	$(Q)$(CLANG) $(BPF_CFLAGS) -c $< -o $@

$(OUT)/%.skel.h: $(OUT)/%.bpf.o
	$(call msg,SKEL,$@)
	$(Q)$(BPFTOOL) gen skeleton $< name $*_bpf > $@

$(OUT)/syscall_names.h: scripts/gen-syscalls.sh | $(OUT)
	$(call msg,GEN,$@)
	$(Q)./scripts/gen-syscalls.sh > $@

$(OUT)/obj/%.o: src/%.c $(HDRS) include/tract/abi.h $(OUT)/syscall_names.h | $(OUT)
	$(call msg,CC,$@)
	$(Q)mkdir -p $(dir $@)
	$(Q)$(CC) $(CFLAGS) $(INCDIRS) -c $< -o $@

# only the record layer needs the BPF skeleton (clang and bpftool)
$(call layer_objs,record): $(SKELS)

.SECONDEXPANSION:
$(OUT)/lib/lib%.a: $$(call layer_objs,$$*)
	$(call msg,AR,$@)
	$(Q)mkdir -p $(dir $@)
	$(Q)rm -f $@ && $(AR) rcs $@ $^

$(OUT)/tract: $(CMD_OBJS) $(LAYER_LIBS)
	$(call msg,LINK,$@)
	$(Q)$(CC) $(LDFLAGS) $^ $(LIBS) -o $@

$(OUT)/workload: tests/workload/workload.c | $(OUT)
	$(call msg,CC,$@)
	$(Q)$(CC) $(CFLAGS) -O1 -pthread $< -o $@

# threads waiting for locks others hold, in known chains and cycles
$(OUT)/locks: tests/workload/locks.c | $(OUT)
	$(call msg,CC,$@)
	$(Q)$(CC) $(CFLAGS) -O1 -pthread $< -o $@

# threads whose waits end in known ways: a peer thread, a timer, another process
$(OUT)/waits: tests/workload/waits.c | $(OUT)
	$(call msg,CC,$@)
	$(Q)$(CC) $(CFLAGS) -O1 -pthread $< -o $@

# a process that rewrites its title (its command line), as servers do
$(OUT)/titled: tests/workload/titled.c | $(OUT)
	$(call msg,CC,$@)
	$(Q)$(CC) $(CFLAGS) -O1 $< -o $@

# the same workload as distributions build code: optimised, no frame pointers
$(OUT)/workload-nofp: tests/workload/workload.c | $(OUT)
	$(call msg,CC,$@)
	$(Q)$(CC) $(filter-out -fno-omit-frame-pointer,$(CFLAGS)) -O2 -fomit-frame-pointer -pthread $< -o $@

# Threads that publish OpenTelemetry thread contexts, the writer built every
# way the OTEP says a reader must handle: a library with TLSDESC, with
# general-dynamic, with initial-exec, the executable itself (local-exec),
# and a library dlopen'ed after the threads exist; and one that publishes garbage.
OTEL       := $(OUT)/otel
OTEL_CC     = $(CC) -O1 -g -Wall -Iinclude -pthread
OTEL_BINS  := $(addprefix $(OTEL)/,otel_desc otel_gd otel_ie otel_exe otel_dlopen otel_garbage libotel_dl.so)
$(OTEL)/libotel_%.so: tests/otel/otel_lib.c include/tract/otel_thread_ctx.h
	$(call msg,CC,$@)
	$(Q)mkdir -p $(OTEL)
	$(Q)$(OTEL_CC) -fPIC -shared $(OTEL_MODEL_$*) $< -o $@
OTEL_MODEL_desc := -mtls-dialect=gnu2
OTEL_MODEL_gd   := -mtls-dialect=gnu
OTEL_MODEL_ie   := -ftls-model=initial-exec
OTEL_MODEL_dl   := -mtls-dialect=gnu
$(OTEL)/otel_desc $(OTEL)/otel_gd $(OTEL)/otel_ie: $(OTEL)/otel_%: tests/otel/otel_threads.c $(OTEL)/libotel_%.so
	$(call msg,CC,$@)
	$(Q)$(OTEL_CC) $< -L$(OTEL) -lotel_$* -Wl,-rpath,$(abspath $(OTEL)) -o $@
$(OTEL)/otel_exe: tests/otel/otel_threads.c tests/otel/otel_lib.c include/tract/otel_thread_ctx.h
	$(call msg,CC,$@)
	$(Q)mkdir -p $(OTEL)
	$(Q)$(OTEL_CC) tests/otel/otel_threads.c tests/otel/otel_lib.c -Wl,--export-dynamic-symbol=otel_thread_ctx_v1 -o $@
$(OTEL)/otel_dlopen: tests/otel/otel_threads.c include/tract/otel_thread_ctx.h
	$(call msg,CC,$@)
	$(Q)mkdir -p $(OTEL)
	$(Q)$(OTEL_CC) -DDLOPEN_ONLY $< -ldl -o $@
$(OTEL)/otel_garbage: tests/otel/otel_garbage.c include/tract/otel_thread_ctx.h
	$(call msg,CC,$@)
	$(Q)mkdir -p $(OTEL)
	$(Q)$(OTEL_CC) $< -Wl,--export-dynamic-symbol=otel_thread_ctx_v1 -o $@

test_libs = $(call layer_libs,$(uses_$(firstword $(subst /, ,$(1)))))
$(OUT)/tests/%: tests/unit/%.c $$(call test_libs,$$*) | $(OUT)
	$(call msg,CC,$@)
	$(Q)mkdir -p $(dir $@)
	$(Q)$(CC) $(CFLAGS) $(INCDIRS) $(LDFLAGS) $< $(call test_libs,$*) $(LIBS) -lcmocka -o $@

FUZZ_LIBS := $(call layer_libs,$(uses_query))
# the thread-context decoders of the record layer, with what they use below it
FUZZ_OTEL_OBJS := $(OUT)/obj/record/resolve/otel_pctx.o $(OUT)/obj/record/resolve/otel_attrs.o
$(OUT)/fuzz/fuzz_otel: tests/fuzz/fuzz_otel.c $(FUZZ_OTEL_OBJS) $(FUZZ_LIBS) | $(OUT)
	$(call msg,FUZZ,$@)
	$(Q)mkdir -p $(OUT)/fuzz
	$(Q)$(CC) $(CFLAGS) $(INCDIRS) -fsanitize=fuzzer $< $(FUZZ_OTEL_OBJS) $(FUZZ_LIBS) $(LIBS) -o $@
# the record layer's parsers of what users supply (ELF files, /proc), with the layers below it
FUZZ_RECORD := fuzz_elf fuzz_cfi fuzz_ksyms fuzz_proc fuzz_perfmap fuzz_gopclntab fuzz_python
FUZZ_RECORD_LIBS := $(call layer_libs,$(uses_record))
$(FUZZ_RECORD:%=$(OUT)/fuzz/%): $(OUT)/fuzz/%: tests/fuzz/%.c tests/fuzz/scratch.h $(FUZZ_RECORD_LIBS) | $(OUT)
	$(call msg,FUZZ,$@)
	$(Q)mkdir -p $(OUT)/fuzz
	$(Q)$(CC) $(CFLAGS) $(INCDIRS) -fsanitize=fuzzer $< $(FUZZ_RECORD_LIBS) $(LIBS) $(FUZZ_LDFLAGS_$*) -o $@
# tract's calls of libdw's leaking dwarf_getscopes() go through the target's wrapper
FUZZ_LDFLAGS_fuzz_elf := -Wl,--wrap=dwarf_getscopes
$(OUT)/fuzz/%: tests/fuzz/%.c tests/fuzz/scratch.h $(FUZZ_LIBS) | $(OUT)
	$(call msg,FUZZ,$@)
	$(Q)mkdir -p $(OUT)/fuzz
	$(Q)$(CC) $(CFLAGS) $(INCDIRS) -fsanitize=fuzzer $< $(FUZZ_LIBS) $(LIBS) -o $@

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

# make test's fuzzing gives the same verdict for the same commit: every
# committed seed replayed, then FUZZ_RUNS inputs from a fixed random seed,
# starting from the seeds alone (never from a corpus this machine kept);
# the store target writes a file each input, so it tries fewer, and the
# spool's a dozen
FUZZ_RUNS ?= 20000
FUZZ_RUNS_fuzz_store ?= 1000
FUZZ_RUNS_fuzz_spool ?= 5000
test-fuzz:
	$(Q)$(MAKE) --no-print-directory FUZZ=1 fuzz-fixed

fuzz-fixed: $(FUZZ_TARGETS:%=$(OUT)/fuzz/%)
	$(Q)OUT=$(OUT) ./scripts/fuzz-fixed.sh \
		$(foreach t,$(FUZZ_TARGETS),$(t):$(or $(FUZZ_RUNS_$(t)),$(FUZZ_RUNS)))

$(OUT)/bench/%: bench/%.c include/tract/otel_thread_ctx.h | $(OUT)
	$(call msg,CC,$@)
	$(Q)$(CC) $(CFLAGS) -Iinclude -pthread $< $(LIBS) -Wl,--export-dynamic-symbol=otel_thread_ctx_v1 -o $@

$(OUT):
	$(Q)mkdir -p $(OUT)/obj $(OUT)/tests $(OUT)/bench

vmlinux:
	$(BPFTOOL) btf dump file /sys/kernel/btf/vmlinux format c > bpf/vmlinux.h

run: deps all
	$(OUT)/tract record

# every step, also after one fails; each one's log in $(OUT)/ci/, and a
# summary of what failed and why at the end
test: deps-test
	$(Q)OUT=$(OUT) MAKE="$(MAKE)" ./scripts/test-suite.sh

# the integration tests beside a busy loop on one CPU, as a noisy neighbour
# or a forgotten process would be
test-busy: deps-test all
	$(Q)OUT=$(OUT) MAKE="$(MAKE)" ./scripts/test-busy.sh

# every test binary runs, and each one's name heads its output
test-unit: $(UNIT_TESTS)
	$(Q)fail=0; for t in $(UNIT_TESTS); do echo "== $$t"; $$t || fail=1; done; exit $$fail

# each layer includes only the headers of the layers below it, and those
# above the recorder build and pass their tests without clang or bpftool
# (at -O0: the main build compiles them at -O2)
test-layers:
	$(Q)./scripts/check-layers.sh
	$(Q)CLANG=$(CLANG) ARCH=$(ARCH) ./scripts/check-bpf-headers.sh
	$(Q)$(MAKE) --no-print-directory OUT=build-nobpf OPT=-O0 CLANG=false BPFTOOL=false test-nobpf

test-nobpf: $(NOBPF_TESTS)
	$(Q)fail=0; for t in $(NOBPF_TESTS); do \
		out=$$($$t 2>&1) || { echo "== $$t"; echo "$$out"; fail=1; }; done; exit $$fail
	$(call msg,NOBPF,$(words $(NOBPF_TESTS)) unit tests without the BPF skeleton)

# the unit tests under ASan and UBSan, and the sanitized recorder built
# (test-san-record runs it)
test-san:
	$(Q)$(MAKE) --no-print-directory SAN=1 test-unit build-san/tract

# puppeteer-core from npm drives Debian's chromium in the picture tests; it never downloads a browser.
# Node trusts its own copy of the roots, not the system's: where the way to
# the registry presents a certificate only the system trusts (a proxy's), a
# plain environment fails every fetch, so the system's roots are added.
SYSTEM_CAS := /etc/ssl/certs/ca-certificates.crt
BROWSER_DIR := $(OUT)/browser
$(BROWSER_DIR)/node_modules/puppeteer-core/package.json: tests/browser/package.json
	$(call msg,NPM,puppeteer-core)
	$(Q)mkdir -p $(BROWSER_DIR) && cp $< $(BROWSER_DIR)/package.json
	$(Q)NODE_EXTRA_CA_CERTS=$${NODE_EXTRA_CA_CERTS:-$(SYSTEM_CAS)} \
		npm install --prefix $(BROWSER_DIR) --no-audit --no-fund --loglevel=error < /dev/null > $(BROWSER_DIR)/npm.log 2>&1 || \
		{ tail -n 20 $(BROWSER_DIR)/npm.log; exit 1; }
	$(Q)touch $@

# what the TAP tests are told: the binaries they run, the browser's modules
TEST_ENV = TRACT=$(abspath $(OUT)/tract) WORKLOAD=$(abspath $(OUT)/workload) \
	TRACT_SAN=$(abspath build-san/tract) NODE_PATH=$(abspath $(BROWSER_DIR)/node_modules) \
	BROWSER_TESTS=$(abspath tests/browser) OTEL=$(abspath $(OTEL))

# make test's first step: all the integration tests run, built before the
# steps beside them start to build
test-build: all $(OTEL_BINS) $(BROWSER_DIR)/node_modules/puppeteer-core/package.json

# tests/integration/: the recorder on real workloads, measured against the
# kernel, the peers and the workload's own counts
test-integration: test-build
	$(Q)$(TEST_ENV) prove -v --timer tests/integration/

# the whole recorder under ASan, UBSan and LeakSanitizer on a recording
test-san-record: all
	$(Q)$(MAKE) --no-print-directory SAN=1 build-san/tract
	$(Q)$(TEST_ENV) prove -v --timer tests/sanitized/

# make deb, with Debian's tools, and what it installs
test-package: all
	$(Q)$(TEST_ENV) prove -v --timer tests/package/

# Debian 12's own kernel under qemu: tract must run on kernels older than the build host's
test-kernels: all
	$(Q)OUT=$(OUT) ./scripts/test-kernels.sh
# the same in two steps: the kernels downloaded and the guests' user space
# built, then the guests booted
test-guests: all
	$(Q)OUT=$(OUT) ./scripts/test-kernels.sh --prepare
test-kernels-boot:
	$(Q)OUT=$(OUT) ./scripts/test-kernels.sh --boot

bench: deps-test all $(BENCH_BINS)
	$(Q)OUT=$(abspath $(OUT)) ./bench/bench.sh

# a busy host's day, shortened: SOAK_SECONDS (600) of churn beside the workload
soak: deps-test all
	$(Q)OUT=$(abspath $(OUT)) ./bench/soak.sh

install: all
	install -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(MANDIR)/man8 \
		$(DESTDIR)$(DATADIR)/bash-completion/completions $(DESTDIR)$(UNITDIR) $(DESTDIR)$(PREFIX)/include/tract
	install -m 0644 include/tract/otel_thread_ctx.h $(DESTDIR)$(PREFIX)/include/tract/otel_thread_ctx.h
	install -m 0755 $(OUT)/tract $(DESTDIR)$(BINDIR)/tract
	install -m 0644 doc/tract.8 $(DESTDIR)$(MANDIR)/man8/tract.8
	install -m 0644 contrib/tract.bash $(DESTDIR)$(DATADIR)/bash-completion/completions/tract
	sed 's|@BINDIR@|$(BINDIR)|g' contrib/tract.service > $(DESTDIR)$(UNITDIR)/tract.service
	chmod 0644 $(DESTDIR)$(UNITDIR)/tract.service
	@# the recorder's own user, on this machine only (a DESTDIR is another's)
	$(if $(DESTDIR),,getent passwd tract > /dev/null || useradd --system --user-group --no-create-home \
		--home-dir /nonexistent --shell /usr/sbin/nologin --comment "tract recorder" tract)

# A Debian package of the binary, man page, completion and unit, built by
# Debian's tools into $(OUT)/deb (dpkg-buildpackage writes next to the tree).
# Without this make's variables: debian/rules builds into debian/build,
# and cleans only that (an OUT given here would be its OUT, log and all).
deb: deps
	$(Q)test "$$(dpkg-parsechangelog -S Version)" = "$(VERSION)" || \
		{ echo "debian/changelog is not at version $(VERSION)" >&2; exit 1; }
	$(call msg,DEB,$(OUT)/deb/tract_$(VERSION)_$(shell dpkg --print-architecture).deb)
	$(Q)mkdir -p $(OUT) && env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL dpkg-buildpackage -b -us -uc -Jauto > $(OUT)/deb.log 2>&1 || \
		{ tail -n 30 $(OUT)/deb.log; exit 1; }
	$(Q)mkdir -p $(OUT)/deb && mv ../tract_$(VERSION)_* ../tract-dbgsym_$(VERSION)_* $(OUT)/deb/ 2>/dev/null; \
		test -f $(OUT)/deb/tract_$(VERSION)_$(shell dpkg --print-architecture).deb

uninstall:
	rm -f $(DESTDIR)$(BINDIR)/tract $(DESTDIR)$(MANDIR)/man8/tract.8 \
		$(DESTDIR)$(DATADIR)/bash-completion/completions/tract $(DESTDIR)$(UNITDIR)/tract.service

clean:
	rm -rf build build-san build-fuzz build-nobpf
