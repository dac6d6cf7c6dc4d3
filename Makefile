# perfreport — plain Makefile.
#   make            build ./perfreport (BPF objects and skeletons included)
#   make deps       install missing Debian packages (no-op when all present)
#   make test       deps + build + every test, normal and ASan+UBSan builds;
#                   last line "N passed, N failed"
#   make test-fast  the suite with the normal build only
#   make bench      performance figures (design section 9)
#   make clean

SAN ?= 0
ifeq ($(SAN),1)
BUILD ?= build-asan
SANFLAGS := -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all
OPT := -O1
BIN := $(BUILD)/perfreport
else
BUILD ?= build
SANFLAGS :=
OPT := -O2
BIN := perfreport
endif

CC ?= cc
CLANG ?= clang
BPFTOOL ?= bpftool
ARCH := $(shell uname -m | sed -e 's/x86_64/x86/' -e 's/aarch64/arm64/')

WARN := -Wall -Wextra -Werror -Wshadow -Wformat=2 -Wno-format-nonliteral -Wvla
CFLAGS ?= $(OPT) -g
CFLAGS += -std=c11 -D_GNU_SOURCE $(WARN) $(SANFLAGS) -fno-omit-frame-pointer \
          -I$(BUILD)/gen -Isrc -MMD -MP
LDFLAGS += $(SANFLAGS)
LDLIBS := -lbpf -lelf -ldw -lcmark -liberty -larchive -lz -lm

SRC := $(sort $(shell find src -name '*.c'))
LIB_SRC := $(filter-out src/cmd/main.c,$(SRC))
OBJ := $(patsubst %.c,$(BUILD)/%.o,$(SRC))
LIB_OBJ := $(patsubst %.c,$(BUILD)/%.o,$(LIB_SRC))

BPF_SRC := $(sort $(wildcard bpf/*.bpf.c))
BPF_OBJ := $(patsubst bpf/%.bpf.c,$(BUILD)/bpf/%.bpf.o,$(BPF_SRC))
SKELS := $(patsubst bpf/%.bpf.c,$(BUILD)/gen/%.skel.h,$(BPF_SRC))
VMLINUX := $(BUILD)/gen/vmlinux.h
UNISTD ?= /usr/include/$(shell $(CC) -print-multiarch 2>/dev/null)/asm/unistd_64.h
SYSCALL_NAMES := $(BUILD)/gen/syscall_names.h

ASSETS := $(sort $(wildcard assets/*.css assets/*.js templates/*.html))
ASSETS_C := $(BUILD)/gen/assets.c
ASSETS_OBJ := $(BUILD)/gen/assets.o

UNIT_SRC := $(sort $(wildcard tests/unit/*.c))
UNIT_OBJ := $(patsubst %.c,$(BUILD)/%.o,$(UNIT_SRC))
UNIT_BIN := $(BUILD)/unit-tests

# tests/workloads/lib*.c are shared libraries, the rest executables.
WORKLOAD_LIB_SRC := $(sort $(wildcard tests/workloads/lib*.c))
WORKLOAD_SRC := $(filter-out $(WORKLOAD_LIB_SRC),$(sort $(wildcard tests/workloads/*.c)))
WORKLOAD_CXX_SRC := $(sort $(wildcard tests/workloads/*.cc))
WORKLOADS := $(patsubst tests/workloads/%.c,$(BUILD)/workloads/%,$(WORKLOAD_SRC)) \
             $(patsubst tests/workloads/%.c,$(BUILD)/workloads/%.so,$(WORKLOAD_LIB_SRC)) \
             $(patsubst tests/workloads/%.cc,$(BUILD)/workloads/%,$(WORKLOAD_CXX_SRC)) \
             $(BUILD)/workloads/allocator-static

# test-fast: the normal build only (while developing).
.PHONY: all deps test test-fast unit workloads bench clean
.DEFAULT_GOAL := all

all: $(BIN) $(BUILD)/perfreport.1

deps:
	@sh scripts/install-deps.sh

LIB_A := $(BUILD)/libperfreport.a

$(LIB_A): $(LIB_OBJ) $(ASSETS_OBJ)
	rm -f $@
	ar rcs $@ $^

$(BIN): $(BUILD)/src/cmd/main.o $(LIB_A)
	$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS)

$(BUILD)/%.o: %.c | $(SKELS) $(BUILD)/gen/assets.h
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -c -o $@ $<

$(ASSETS_C) $(BUILD)/gen/assets.h &: $(ASSETS) scripts/embed.sh
	@mkdir -p $(BUILD)/gen
	sh scripts/embed.sh $(BUILD)/gen/assets.c $(BUILD)/gen/assets.h $(ASSETS)

$(ASSETS_OBJ): $(ASSETS_C)
	$(CC) $(CFLAGS) -c -o $@ $<

# Syscall names of this architecture, from the uapi header (linux-libc-dev).
$(SYSCALL_NAMES): scripts/gen-syscalls.sh $(wildcard $(UNISTD))
	@mkdir -p $(dir $@)
	sh scripts/gen-syscalls.sh $(UNISTD) $@

$(VMLINUX):
	@mkdir -p $(dir $@)
	$(BPFTOOL) btf dump file /sys/kernel/btf/vmlinux format c > $@.tmp && mv $@.tmp $@

# clang -target bpf does not search the multiarch include directory, where
# Debian keeps <asm/...>; add it so BPF code may use uapi headers.
BPF_SYS_INC := -I/usr/include/$(shell $(CC) -print-multiarch 2>/dev/null)
BPF_CFLAGS := -g -O2 -Wall -target bpf -D__TARGET_ARCH_$(ARCH) -I$(BUILD)/gen -Ibpf $(BPF_SYS_INC)

$(BUILD)/bpf/%.bpf.o: bpf/%.bpf.c $(wildcard bpf/*.h) $(VMLINUX)
	@mkdir -p $(dir $@)
	$(CLANG) $(BPF_CFLAGS) -c $< -o $@

$(BUILD)/gen/%.skel.h: $(BUILD)/bpf/%.bpf.o
	$(BPFTOOL) gen skeleton $< name $(subst -,_,$*)_bpf > $@.tmp && mv $@.tmp $@

# Skeletons named only in a pattern rule would be "intermediate": deleted
# after the build and, once missing, never remade.  Naming them in an
# explicit rule makes them ordinary targets; the BPF objects are kept.
$(OBJ) $(UNIT_OBJ): | $(SKELS) $(SYSCALL_NAMES)
.SECONDARY: $(BPF_OBJ)

$(UNIT_BIN): $(UNIT_OBJ) $(LIB_A)
	$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS)

unit: $(UNIT_BIN)

$(BUILD)/workloads/%: tests/workloads/%.c
	@mkdir -p $(dir $@)
	$(CC) -std=gnu11 -O1 -g -fno-omit-frame-pointer -fno-inline -Wall -Wextra -Werror -o $@ $< -lpthread

# Statically linked: a command that maps no C library (the allocation
# profile's uprobes have nothing to attach to).
$(BUILD)/workloads/allocator-static: tests/workloads/allocator.c
	@mkdir -p $(dir $@)
	$(CC) -std=gnu11 -O1 -g -fno-omit-frame-pointer -fno-inline -Wall -Wextra -Werror -static -o $@ $<

# C++ workloads (demangled names in the profile)
$(BUILD)/workloads/%: tests/workloads/%.cc
	@mkdir -p $(dir $@)
	$(CXX) -std=gnu++17 -O1 -g -fno-omit-frame-pointer -fno-inline -Wall -Wextra -Werror -o $@ $<

# Linked at a non-zero base so that p_vaddr != p_offset (symbolizer tests).
$(BUILD)/workloads/lib%.so: tests/workloads/lib%.c
	@mkdir -p $(dir $@)
	$(CC) -std=gnu11 -O1 -g -fno-omit-frame-pointer -fno-inline -Wall -Wextra -Werror -shared -fPIC \
	    -Wl,-Ttext-segment=0x40000 -o $@ $<

workloads: $(WORKLOADS)

# The suite runs twice: the normal build and the ASan+UBSan build.
test: deps
	$(MAKE) all unit workloads
	$(MAKE) SAN=1 all unit
	sh tests/run.sh

test-fast: all unit workloads
	CONFIGS=build sh tests/run.sh

bench: all workloads
	sh bench/run.sh
	FLAMEGRAPH_DIR="$(FLAMEGRAPH_DIR)" sh bench/flame_bench.sh
	sh bench/profile_bench.sh
	sh bench/page_bench.sh
	sh bench/history_bench.sh
	sh bench/bundle_bench.sh
	sh bench/flame_hostile.sh
	sh bench/pagefault_bench.sh
	sh bench/alloc_bench.sh

# The man page, from its Markdown source through cmark's roff renderer.
VERSION := $(shell sed -n 's/^\#define PERFREPORT_VERSION "\(.*\)"/\1/p' src/version.h)
$(BUILD)/md2man: scripts/md2man.c
	@mkdir -p $(dir $@)
	$(CC) -std=c11 $(WARN) -O1 -o $@ $< -lcmark
$(BUILD)/perfreport.1: templates/perfreport.1.md $(BUILD)/md2man src/version.h
	$(BUILD)/md2man $< $(VERSION) > $@.tmp && mv $@.tmp $@

# make install [PREFIX=/usr/local] [DESTDIR=...]; make uninstall with the same.
PREFIX ?= /usr/local
BINDIR := $(DESTDIR)$(PREFIX)/bin
MANDIR := $(DESTDIR)$(PREFIX)/share/man/man1
COMPDIR := $(DESTDIR)$(PREFIX)/share/bash-completion/completions
DOCDIR := $(DESTDIR)$(PREFIX)/share/doc/perfreport
UNITDIR := $(DESTDIR)$(PREFIX)/lib/systemd/system
INSTALLED := $(BINDIR)/perfreport $(MANDIR)/perfreport.1 $(COMPDIR)/perfreport \
             $(UNITDIR)/perfreport.service $(UNITDIR)/perfreport.timer \
             $(DOCDIR)/thresholds.example $(DOCDIR)/README.md
.PHONY: install uninstall
install: $(BIN) $(BUILD)/perfreport.1
	install -d $(BINDIR) $(MANDIR) $(COMPDIR) $(DOCDIR) $(UNITDIR)
	install -m 0755 $(BIN) $(BINDIR)/perfreport
	install -m 0644 $(BUILD)/perfreport.1 $(MANDIR)/perfreport.1
	install -m 0644 examples/perfreport.bash-completion $(COMPDIR)/perfreport
	install -m 0644 examples/thresholds.example README.md $(DOCDIR)/
	sed 's|/usr/local/bin/perfreport|$(PREFIX)/bin/perfreport|g' examples/systemd/perfreport.service \
	    > $(UNITDIR)/perfreport.service && chmod 0644 $(UNITDIR)/perfreport.service
	install -m 0644 examples/systemd/perfreport.timer $(UNITDIR)/perfreport.timer
uninstall:
	rm -f $(INSTALLED)
	-rmdir $(DOCDIR) 2>/dev/null

# make deb: the Debian package, built by dpkg-buildpackage in a copy of the
# source tree under $(BUILD)/deb with examples/debian as its debian/.
DEB_TREE := $(BUILD)/deb/perfreport-$(VERSION)
.PHONY: deb
deb:
	rm -rf $(BUILD)/deb && mkdir -p $(DEB_TREE)
	cp -a Makefile README.md LICENSE src bpf templates assets scripts examples $(DEB_TREE)/
	cp -a examples/debian $(DEB_TREE)/debian
	cd $(DEB_TREE) && dpkg-buildpackage -us -uc -b
	@ls $(BUILD)/deb/*.deb

clean:
	rm -rf build build-asan perfreport

-include $(OBJ:.o=.d) $(UNIT_OBJ:.o=.d)

# ---- fuzzing (libFuzzer, clang) and valgrind --------------------------------
#   make fuzz              build every tests/fuzz/fuzz_*.c target in build-fuzz
#                          and run each for FUZZ_SECONDS (default 20) from its
#                          seed corpus tests/fuzz/corpus/<name>/; crash inputs
#                          go to build-fuzz/crashes/<name>/
#   make fuzz-build        only build them
#   make test-valgrind     build/unit-tests under valgrind
# The library is rebuilt by a recursive make with BUILD=build-fuzz, so the
# fuzz objects never mix with build/ or build-asan/.
FUZZ_BUILD := build-fuzz
FUZZ_SECONDS ?= 20
FUZZ_CC ?= clang
FUZZ_SAN := -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer
FUZZ_SRC := $(sort $(wildcard tests/fuzz/fuzz_*.c))
FUZZ_NAMES := $(patsubst tests/fuzz/fuzz_%.c,%,$(FUZZ_SRC))
FUZZ_BINS := $(patsubst %,$(FUZZ_BUILD)/fuzz/fuzz_%,$(FUZZ_NAMES))

.PHONY: fuzz fuzz-build test-valgrind

# Two steps: the library in its own build dir, then the targets linked
# against it (a file prerequisite, so an unchanged library relinks nothing).
fuzz-build:
	$(MAKE) BUILD=$(FUZZ_BUILD) CC=$(FUZZ_CC) OPT=-O1 \
	    SANFLAGS="-fsanitize=fuzzer-no-link $(FUZZ_SAN)" $(FUZZ_BUILD)/libperfreport.a
	$(MAKE) $(FUZZ_BINS)

$(FUZZ_BUILD)/fuzz/fuzz_%: tests/fuzz/fuzz_%.c tests/fuzz/fuzz.h $(FUZZ_BUILD)/libperfreport.a
	@mkdir -p $(dir $@)
	$(FUZZ_CC) -O1 -g -std=c11 -D_GNU_SOURCE $(WARN) -fsanitize=fuzzer $(FUZZ_SAN) \
	    -Isrc -o $@ $< $(FUZZ_BUILD)/libperfreport.a $(LDLIBS)

fuzz: fuzz-build
	FUZZ_SECONDS=$(FUZZ_SECONDS) sh tests/fuzz/run.sh $(FUZZ_NAMES)

test-valgrind: unit
	sh tests/valgrind/run.sh
