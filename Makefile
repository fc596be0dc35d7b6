# memcg-lab: build, run, test and bench.  `make help` lists the targets.
#
# Sources are found by directory (lab/<area>/*.c), so adding a file needs no
# edit here.  Every lab/tests/*.c is a TAP program, every lab/tests/*.sh a
# TAP script; `make test` runs them all through prove.

PKGS    := libbpf libtracefs libtraceevent inih json-c hwloc libelf
CC      ?= cc
CFLAGS  ?= -O2 -g
PKG_CFLAGS := $(shell pkg-config --cflags $(PKGS) 2>/dev/null)
PKG_LIBS   := $(shell pkg-config --libs $(PKGS) 2>/dev/null)
LAB_CFLAGS  = -std=gnu11 -Wall -Wextra -Werror -D_GNU_SOURCE -Ilab -Ibuild/bpf $(PKG_CFLAGS) -MMD -MP
LDLIBS      = $(PKG_LIBS) -lz -lm -lpthread

LIB_SRCS  := $(wildcard lab/cmd/*.c lab/drivers/*.c lab/collect/*.c lab/analyze/*.c \
                        lab/kernel/*.c lab/util/*.c)
LIB_OBJS  := $(LIB_SRCS:%.c=build/obj/%.o)
# BPF programs (lab/collect/bpf/*.bpf.c) are compiled with clang and turned
# into libbpf skeleton headers (build/bpf/<name>.skel.h) that C code includes.
BPF_SRCS  := $(wildcard lab/collect/bpf/*.bpf.c)
BPF_SKELS := $(BPF_SRCS:lab/collect/bpf/%.bpf.c=build/bpf/%.skel.h)
BPF_ARCH  := $(shell uname -m | sed -e s/x86_64/x86/ -e s/aarch64/arm64/ -e s/ppc64le/powerpc/ \
                                   -e s/s390x/s390/ -e s/riscv64/riscv/)
BPF_CFLAGS = -g -O2 -target bpf -D__TARGET_ARCH_$(BPF_ARCH) \
             -I/usr/include/$(shell $(CC) -dumpmachine) -Ilab/collect/bpf
# Benchmark helpers: lab/bench/*.c -> build/bench/<name>.
BENCH_SRCS := $(wildcard lab/bench/*.c)
BENCH_BINS := $(BENCH_SRCS:lab/bench/%.c=build/bench/%)
TEST_SRCS := $(wildcard lab/tests/*.c)
TEST_BINS := $(TEST_SRCS:lab/tests/%.c=build/tests/%)
SH_TESTS  := $(sort $(wildcard lab/tests/*.sh))
# The real kernels' BTF the tests check against, kept compressed in git.
BTF_FILES := $(patsubst lab/tests/data/btf/%.xz,build/btf/%,$(wildcard lab/tests/data/btf/*.btf.xz))
DEPS_SH   := lab/scripts/deps.sh

.PHONY: all build deps test unit run bench clean help
.DEFAULT_GOAL := all

all:
	@$(DEPS_SH) ensure build
	@$(MAKE) --no-print-directory build

build: $(BPF_SKELS) bin/memcg-lab $(TEST_BINS) $(BTF_FILES) $(BENCH_BINS)

help:
	@echo "make          build bin/memcg-lab (installs missing build packages as root)"
	@echo "make run      the main job: the default experiment on the running kernel"
	@echo "make test     all tests (TAP through prove)"
	@echo "make bench    benchmarks, as ratios against the tools users would otherwise use"
	@echo "make deps     install every Debian package the lab uses"
	@echo "make clean    remove bin/ and build/"

deps:
	@$(DEPS_SH) install all

build/obj/%.o: %.c | $(BPF_SKELS)
	@mkdir -p $(dir $@)
	$(CC) $(LAB_CFLAGS) $(CFLAGS) -c -o $@ $<

# Static pattern rules: explicit, so the empty rules that -MP writes into
# the .d files for generated headers cannot shadow them.
$(BPF_SKELS:.skel.h=.bpf.o): build/bpf/%.bpf.o: lab/collect/bpf/%.bpf.c $(wildcard lab/collect/bpf/*.h)
	@mkdir -p $(dir $@)
	clang $(BPF_CFLAGS) -c -o $@ $<

$(BPF_SKELS): build/bpf/%.skel.h: build/bpf/%.bpf.o
	bpftool gen skeleton $< name $* > $@.tmp && mv $@.tmp $@

# Generated headers are inputs of C files, not throw-away intermediates.
.SECONDARY: $(BPF_SKELS) $(BPF_SKELS:.skel.h=.bpf.o)

build/bench/%: build/obj/lab/bench/%.o build/libmemcglab.a
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -o $@ $^ $(LDLIBS)

build/btf/%: lab/tests/data/btf/%.xz
	@mkdir -p $(dir $@)
	xz -dc $< > $@.tmp && mv $@.tmp $@

build/libmemcglab.a: $(LIB_OBJS)
	@mkdir -p $(dir $@)
	$(AR) rcs $@ $^

bin/memcg-lab: build/obj/lab/memcg-lab.o build/libmemcglab.a
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -o $@ $^ $(LDLIBS)

build/tests/%: build/obj/lab/tests/%.o build/libmemcglab.a
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -o $@ $^ $(LDLIBS)

test:
	@$(DEPS_SH) ensure test
	@$(MAKE) --no-print-directory build
	prove --timer -f $(TEST_BINS) $(SH_TESTS)

# Benchmarks: every lab/bench/*.sh, each printing ratios against the tool a
# user would otherwise run, measured in the same run.
bench:
	@$(DEPS_SH) ensure test
	@$(MAKE) --no-print-directory build
	@for b in $(sort $(wildcard lab/bench/*.sh)); do echo "== $$b"; $$b || exit 1; done

run:
	@$(DEPS_SH) ensure run
	@$(MAKE) --no-print-directory build
	bin/memcg-lab probe --runtime --results default

clean:
	rm -rf bin build

-include $(LIB_OBJS:.o=.d) $(TEST_SRCS:lab/tests/%.c=build/obj/lab/tests/%.d) build/obj/lab/memcg-lab.d \
	$(BENCH_SRCS:lab/bench/%.c=build/obj/lab/bench/%.d)
