# memcg-lab: build, run, test and bench.  `make help` lists the targets.
#
# Sources are found by directory (lab/<area>/*.c), so adding a file needs no
# edit here.  Every lab/tests/*.c is a TAP program, every lab/tests/*.sh a
# TAP script; `make test` runs them all through prove.

PKGS    := libbpf libtracefs libtraceevent inih json-c hwloc libelf libdw liblzma libzstd libarchive
CC      ?= cc
CFLAGS  ?= -O2 -g
PKG_CFLAGS := $(shell pkg-config --cflags $(PKGS) 2>/dev/null)
PKG_LIBS   := $(shell pkg-config --libs $(PKGS) 2>/dev/null)
LAB_CFLAGS  = -std=gnu11 -Wall -Wextra -Werror -D_GNU_SOURCE -Ilab $(PKG_CFLAGS) -MMD -MP
LDLIBS      = $(PKG_LIBS) -lz -lm -lpthread

# Quiet build lines in the kernel's style; `make V=1` shows the commands.
ifeq ($(V),1)
Q :=
quiet = @true
else
Q := @
quiet = @printf '  %-6s %s\n'
endif

LIB_DIRS  := util kernel perf c2c lock layout report plot drivers drivers/* experiment cmd
LIB_SRCS  := $(wildcard $(LIB_DIRS:%=lab/%/*.c))
LIB_OBJS  := $(LIB_SRCS:%.c=build/obj/%.o)
# BPF programs (lab/bpf/<name>.bpf.c, <name> without dashes) are compiled by
# clang and linked into the binary as data (bpf_obj_<name>[] .. bpf_obj_<name>_end[]),
# so bin/memcg-lab stays one file that needs no object files at run time.
BPF_SRCS  := $(wildcard lab/bpf/*.bpf.c)
BPF_EMBED := $(BPF_SRCS:lab/bpf/%.bpf.c=build/obj/lab/bpf/%.bpf.embed.o)
# __TARGET_ARCH_* lets bpf_tracing.h read kprobe arguments from pt_regs.
BPF_ARCH  := $(shell uname -m | sed -e s/x86_64/x86/ -e s/aarch64/arm64/ -e s/ppc64le/powerpc/ \
                                   -e s/s390x/s390/ -e s/riscv64/riscv/)
# The multiarch headers (asm/types.h): clang's -dumpmachine is x86_64-pc-linux-gnu,
# not Debian's x86_64-linux-gnu, and clang 21 has no -print-multiarch.
BPF_MULTIARCH := $(or $(shell $(CC) -print-multiarch 2>/dev/null),$(shell gcc -print-multiarch 2>/dev/null))
BPF_CFLAGS = -O2 -g -target bpf -D__TARGET_ARCH_$(BPF_ARCH) -I/usr/include/$(BPF_MULTIARCH) -Ilab/bpf
LIB_OBJS  += $(BPF_EMBED)
TEST_SRCS := $(wildcard lab/tests/*.c)
TEST_BINS := $(TEST_SRCS:lab/tests/%.c=build/tests/%)
# The largest-guest run takes long: make scaletest only; so do the lines
# plugin's A/B pairs of the seeds' claims and the accuracy of lines predict
# against real builds: make linestest only.
SCALE_TESTS := lab/tests/vm-scale.sh
LINES_AB_TESTS := lab/tests/vm-lines-ab.sh lab/tests/vm-ab-patch.sh lab/tests/vm-lines-predict.sh
SH_TESTS  := $(sort $(filter-out $(SCALE_TESTS) $(LINES_AB_TESTS),$(wildcard lab/tests/*.sh)))
# Tools the tests run (lab/tests/tools/<name>.c -> build/tests/tools/<name>).
TOOL_SRCS := $(wildcard lab/tests/tools/*.c)
TOOL_BINS := $(TOOL_SRCS:lab/tests/tools/%.c=build/tests/tools/%)
# lines-truth's pair case in three layouts of one struct (TRUTH_GAP: the
# offset of truth_pair.b), and each build's BTF from its DWARF (pahole), for
# `lines predict` to replay one build's trace on another's layout.  Without
# pahole the BTF is not made and the tests that need it say so.
TRUTH_BUILDS := build/tests/tools/lines-truth-adjacent build/tests/tools/lines-truth-far
TRUTH_BTF := $(if $(shell command -v pahole),$(addsuffix .btf,build/tests/tools/lines-truth $(TRUTH_BUILDS)))
# The qemu TCG plugin that follows every cacheline between a guest's vCPUs
# (lab/c2c/plugin/ and the model lab/c2c/lines_model.c; lab/c2c/README),
# built as build/lines-plugin.so against the qemu-plugin.h of the installed
# qemu, which lab/scripts/qemu-plugin-header.sh fetches once from qemu's
# Debian source package.  Where that cannot be had, one line says why, it
# stays in build/lines-plugin.missing (the tests that need the plugin skip
# with it), and the rest builds.
PLUGIN      := build/lines-plugin.so
PLUGIN_SRCS := $(wildcard lab/c2c/plugin/*.c) lab/c2c/lines_model.c lab/c2c/lines_trace_write.c
PLUGIN_DEPS := $(PLUGIN_SRCS) lab/c2c/lines_model.h lab/c2c/lines_window.h lab/c2c/lines_trace.h \
	lab/c2c/lines_trace_write.h
PLUGIN_CFLAGS = -std=gnu11 -Wall -Wextra -Werror -D_GNU_SOURCE -Ilab -fPIC -shared -fvisibility=hidden
# qemu 8.x on: qemu-plugin.h includes <glib.h> (the header script checks it is there).
PLUGIN_CFLAGS += $(shell pkg-config --cflags glib-2.0 2>/dev/null)
# Unit tests (lab/tests/unit-*.c) are also built with ASan+UBSan (clang;
# LeakSanitizer on) and must run clean.
UNIT_SRCS := $(wildcard lab/tests/unit-*.c)
ASAN_BINS := $(UNIT_SRCS:lab/tests/%.c=build/asan/tests/%)
ASAN_OBJS := $(LIB_SRCS:%.c=build/asan/obj/%.o) $(BPF_EMBED)
SAN_CC    := clang
SAN_FLAGS := -O1 -g -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer
# Benchmarks: lab/bench/*.c are built into build/bench/<name>, and `make
# bench` runs every lab/bench/*.sh.
BENCH_SRCS := $(wildcard lab/bench/*.c)
BENCH_BINS := $(BENCH_SRCS:lab/bench/%.c=build/bench/%)
BENCH_SH   := $(sort $(wildcard lab/bench/*.sh))
# The real kernels' BTF the tests check against, kept compressed in git.
BTF_FILES := $(patsubst lab/tests/data/btf/%.xz,build/btf/%,$(wildcard lab/tests/data/btf/*.btf.xz))
DEPS_SH   := lab/scripts/deps.sh

# libFuzzer targets, one per parser: lab/tests/fuzz/fuzz-<name>.c, seeded
# from lab/tests/data/fuzz/<name>/ (and the recorded samples they name).
FUZZ_SRCS := $(wildcard lab/tests/fuzz/fuzz-*.c)
FUZZ_BINS := $(FUZZ_SRCS:lab/tests/fuzz/%.c=build/fuzz/%)
FUZZ_OBJS := $(LIB_SRCS:%.c=build/fuzz/obj/%.o) $(BPF_EMBED)
FUZZ_FLAGS := -O1 -g -fsanitize=fuzzer-no-link,address,undefined -fno-sanitize-recover=all
FUZZ_SECONDS ?= 60

.PHONY: all build deps test unit asan fuzz fuzz-smoke killtest run bench clean help vmtest scaletest linestest lab-kernel plugin \
	distcheck FORCE kmod man
.DEFAULT_GOAL := all
# Keep objects make would treat as intermediate (tests and fuzz targets).
.SECONDARY:

all:
	@$(DEPS_SH) ensure build
	@$(MAKE) --no-print-directory build

build: bin/memcg-lab $(TEST_BINS) $(TOOL_BINS) $(TRUTH_BUILDS) $(TRUTH_BTF) $(BENCH_BINS) $(BTF_FILES) plugin man

help:
	@echo "make          build bin/memcg-lab (installs missing build packages as root)"
	@echo "make run      the main job: the default experiment on the running kernel"
	@echo "make test     all tests (TAP through prove)"
	@echo "make vmtest   only the tests that boot real kernels under qemu (lab/tests/vm-*.sh)"
	@echo "make scaletest  every experiment at full size in a 128-vCPU guest (long)"
	@echo "make linestest  the seeds' A/B pairs as cacheline counts in guests, and lines predict"
	@echo "              against real builds (lines plugin; ~25 min)"
	@echo "make lab-kernel  build the lab's 7.3 kernel with the user-flush mutex (long; cached"
	@echo "              under /var/cache/memcg-lab; then: memcg-lab vm --kernel lab ...)"
	@echo "make kmod     the seed's kmem benchmark module (lab/kmod) for the running kernel, where"
	@echo "              /lib/modules/\$$(uname -r)/build has its headers (make run builds it too)"
	@echo "make bench    benchmarks, as ratios against the tools users would otherwise use"
	@echo "make unit     only the unit tests (lab/tests/unit-*), the gcc and the ASan+UBSan builds"
	@echo "make distcheck  a clone of HEAD through make deps, build and unit in chroots of other"
	@echo "              Debian suites ($(DISTCHECK_SUITES); cached under /var/cache/memcg-lab)"
	@echo "make deps     install every Debian package the lab uses"
	@echo "make man      the manual pages: doc/*.txt into build/man/man1/ (memcg-lab help CMD shows one)"
	@echo "make clean    remove bin/ and build/"

deps:
	@$(DEPS_SH) install all

build/obj/%.o: %.c
	@mkdir -p $(dir $@)
	$(quiet) CC $<
	$(Q)$(CC) $(LAB_CFLAGS) $(CFLAGS) -c -o $@ $<

build/bpf/%.bpf.o: lab/bpf/%.bpf.c $(wildcard lab/bpf/*.h)
	@mkdir -p $(dir $@)
	$(quiet) BPF $<
	$(Q)clang $(BPF_CFLAGS) -c -o $@ $<

build/obj/lab/bpf/%.bpf.embed.o: build/bpf/%.bpf.o
	@mkdir -p $(dir $@)
	$(quiet) EMBED $<
	$(Q)printf '\t.section .rodata\n\t.balign 8\n\t.global bpf_obj_%s\nbpf_obj_%s:\n\t.incbin "%s"\n\t.global bpf_obj_%s_end\nbpf_obj_%s_end:\n\t.section .note.GNU-stack,"",%%progbits\n' \
		$* $* $< $* $* | $(CC) -c -x assembler -o $@ -

build/btf/%: lab/tests/data/btf/%.xz
	@mkdir -p $(dir $@)
	$(Q)xz -dc $< > $@.tmp && mv $@.tmp $@

# Rebuilt from scratch: `ar r` never drops the member of a deleted source,
# which would then shadow its replacement at link time.
build/libmemcglab.a: $(LIB_OBJS)
	@mkdir -p $(dir $@)
	$(Q)rm -f $@ && $(AR) rcs $@ $^

# --version: git describe of this tree at build time, rewritten only when it
# changes (so an unchanged tree relinks nothing).
build/version.h: FORCE
	@mkdir -p build
	$(Q)v=$$(git describe --always --dirty 2>/dev/null || echo unknown); \
	printf '#define LAB_VERSION "%s"\n' "$$v" > $@.tmp; \
	if cmp -s $@.tmp $@; then rm -f $@.tmp; else mv $@.tmp $@; fi
build/obj/lab/memcg-lab.o: build/version.h
build/obj/lab/memcg-lab.o: LAB_CFLAGS += -Ibuild
FORCE:

bin/memcg-lab: build/obj/lab/memcg-lab.o build/libmemcglab.a
	@mkdir -p $(dir $@)
	$(quiet) LINK $@
	$(Q)$(CC) $(CFLAGS) -o $@ $^ $(LDLIBS)

# The header's directory (in the cache) is known once the script ran: a
# second make builds the plugin with it.
plugin:
	@mkdir -p build
	$(Q)if inc=$$(lab/scripts/qemu-plugin-header.sh 2>build/lines-plugin.err); then \
		cat build/lines-plugin.err >&2; rm -f build/lines-plugin.missing build/lines-plugin.err; \
		$(MAKE) -s --no-print-directory $(PLUGIN) QEMU_PLUGIN_INC="$$inc"; \
	else \
		sed -n '$$s/^memcg-lab-qemu-plugin-header: //p' build/lines-plugin.err > build/lines-plugin.missing; \
		rm -f $(PLUGIN) build/lines-plugin.err; \
		echo "memcg-lab: the lines plugin is not built: $$(cat build/lines-plugin.missing)" >&2; \
	fi

# The manual: doc/memcg-lab-NAME.txt (AsciiDoc, as perf's Documentation/) into
# build/man/man1/memcg-lab-NAME.1 by asciidoctor's manpage backend, which
# `memcg-lab help NAME` opens (man -l).  A page asciidoctor warns about fails
# the build.  Without asciidoctor one line says so, the rest builds, and help
# prints the .txt instead.
MAN_TXT   := $(wildcard doc/memcg-lab*.txt)
MAN_PAGES := $(MAN_TXT:doc/%.txt=build/man/man1/%.1)
man:
	$(Q)if command -v asciidoctor >/dev/null 2>&1; then \
		$(MAKE) -s --no-print-directory $(MAN_PAGES); \
	else \
		rm -f $(MAN_PAGES); \
		echo "memcg-lab: the man pages are not built: asciidoctor is missing (apt-get install asciidoctor;" \
			"memcg-lab help prints doc/*.txt instead)" >&2; \
	fi

build/man/man1/%.1: doc/%.txt
	@mkdir -p $(dir $@)
	$(quiet) MAN $<
	$(Q)asciidoctor -b manpage -d manpage --failure-level=WARN -a mansource=memcg-lab \
		-a manmanual='memcg-lab Manual' -o $@.tmp $< && mv $@.tmp $@

# What the plugin was built against, as a string it writes in its output.
build/lines-plugin-qemu.h: $(QEMU_PLUGIN_INC)/source
	$(Q)sed 's/["\\]/\\&/g; s/.*/#define LINES_QEMU_HEADER "&"/' $< > $@

$(PLUGIN): $(PLUGIN_DEPS) build/lines-plugin-qemu.h
	$(quiet) PLUGIN $@
	$(Q)$(CC) $(PLUGIN_CFLAGS) $(CFLAGS) -I$(QEMU_PLUGIN_INC) -include build/lines-plugin-qemu.h \
		-o $@ $(PLUGIN_SRCS) -lpthread

# The plugin's ground truth and window switch run inside guests: static,
# not PIE (the same addresses in every run), no lab library.
GUEST_TOOLS := build/tests/tools/lines-truth build/tests/tools/lines-window
$(GUEST_TOOLS): build/tests/tools/%: build/obj/lab/tests/tools/%.o
	@mkdir -p $(dir $@)
	$(Q)$(CC) $(CFLAGS) -static -no-pie -pthread -o $@ $^

# lines-truth's pair case in its other layouts (lab/tests/tools/lines-truth.c; below).
build/obj/lab/tests/tools/lines-truth-adjacent.o: lab/tests/tools/lines-truth.c
	@mkdir -p $(dir $@)
	$(quiet) CC $<
	$(Q)$(CC) $(LAB_CFLAGS) $(CFLAGS) -DTRUTH_GAP=64 -c -o $@ $<
build/obj/lab/tests/tools/lines-truth-far.o: lab/tests/tools/lines-truth.c
	@mkdir -p $(dir $@)
	$(quiet) CC $<
	$(Q)$(CC) $(LAB_CFLAGS) $(CFLAGS) -DTRUTH_GAP=128 -c -o $@ $<
$(TRUTH_BUILDS): build/tests/tools/%: build/obj/lab/tests/tools/%.o
	@mkdir -p $(dir $@)
	$(Q)$(CC) $(CFLAGS) -static -no-pie -pthread -o $@ $^
build/tests/tools/%.btf: build/tests/tools/%
	$(quiet) PAHOLE $@
	$(Q)pahole -J --btf_encode_detached=$@.tmp $< && mv $@.tmp $@

build/tests/tools/%: build/obj/lab/tests/tools/%.o build/libmemcglab.a
	@mkdir -p $(dir $@)
	$(Q)$(CC) $(CFLAGS) -o $@ $^ $(LDLIBS)

build/tests/%: build/obj/lab/tests/%.o build/libmemcglab.a
	@mkdir -p $(dir $@)
	$(Q)$(CC) $(CFLAGS) -o $@ $^ $(LDLIBS)

build/asan/obj/%.o: %.c
	@mkdir -p $(dir $@)
	$(quiet) ASAN $<
	$(Q)$(SAN_CC) $(LAB_CFLAGS) $(SAN_FLAGS) -c -o $@ $<

build/asan/libmemcglab.a: $(ASAN_OBJS)
	@mkdir -p $(dir $@)
	$(Q)rm -f $@ && $(AR) rcs $@ $^

build/asan/tests/%: build/asan/obj/lab/tests/%.o build/asan/libmemcglab.a
	@mkdir -p $(dir $@)
	$(Q)$(SAN_CC) $(SAN_FLAGS) -o $@ $^ $(LDLIBS)

asan: $(ASAN_BINS) $(BTF_FILES)

build/fuzz/obj/%.o: %.c
	@mkdir -p $(dir $@)
	$(quiet) FUZZ $<
	$(Q)$(SAN_CC) $(LAB_CFLAGS) $(FUZZ_FLAGS) -c -o $@ $<

build/fuzz/libmemcglab.a: $(FUZZ_OBJS)
	@mkdir -p $(dir $@)
	$(Q)rm -f $@ && $(AR) rcs $@ $^

build/fuzz/fuzz-%: build/fuzz/obj/lab/tests/fuzz/fuzz-%.o build/fuzz/libmemcglab.a
	$(Q)$(SAN_CC) -fsanitize=fuzzer,address,undefined -o $@ $^ $(LDLIBS)

# make fuzz: every target for FUZZ_SECONDS (default 60) with its corpus kept
# in build/fuzz/corpus/<name>; a crash leaves its input in build/fuzz/.
fuzz: $(FUZZ_BINS)
	@$(DEPS_SH) ensure test
	lab/scripts/fuzz.sh $(FUZZ_SECONDS) $(FUZZ_BINS)

# A short run of each target for CI (part of make test).
fuzz-smoke: $(FUZZ_BINS)
	lab/scripts/fuzz.sh 3 $(FUZZ_BINS)

build/bench/%: build/obj/lab/bench/%.o build/libmemcglab.a
	@mkdir -p $(dir $@)
	$(Q)$(CC) $(CFLAGS) -o $@ $^ $(LDLIBS)

ASAN_ENV := ASAN_OPTIONS=detect_leaks=1:abort_on_error=0 UBSAN_OPTIONS=print_stacktrace=1

# The guest files run beside the rest (lab/tests/lib/run-tests.sh: two
# queues, the ten slowest files and the time at the end).
test:
	@start=$$(date +%s); \
	$(DEPS_SH) ensure test && \
	$(MAKE) --no-print-directory build asan && \
	lab/tests/lib/run-tests.sh $(TEST_BINS) $(SH_TESTS) -- $(ASAN_BINS) && \
	$(MAKE) --no-print-directory fuzz-smoke; st=$$?; \
	s=$$(( $$(date +%s) - start )); \
	echo "make test: $$((s / 60)) min $$((s % 60)) s, $$([ $$st = 0 ] && echo passed || echo FAILED)"; \
	exit $$st

# The unit tests alone, gcc's build and the ASan+UBSan one (the few that need
# root, BPF or a memory controller skip without, saying so).
UNIT_BINS := $(UNIT_SRCS:lab/tests/%.c=build/tests/%)
unit:
	@$(DEPS_SH) ensure test
	@$(MAKE) --no-print-directory $(UNIT_BINS) $(BTF_FILES) asan
	prove --timer -f $(UNIT_BINS)
	$(ASAN_ENV) prove --timer -f $(ASAN_BINS)

# A fresh clone of HEAD through make deps, make build and make unit (and the
# apt lock test) in minimal chroots of other Debian suites, debootstrapped
# from this machine's mirror and cached (lab/scripts/distcheck.sh).
DISTCHECK_SUITES ?= trixie sid
distcheck:
	@$(DEPS_SH) ensure distcheck
	lab/scripts/distcheck.sh $(DISTCHECK_SUITES)

# SIGKILL of a run at random points, KILL_ITERATIONS times (default 100),
# then each signal storm (two SIGTERMs, SIGINT then SIGTERM, timeout around
# make run, Ctrl-C twice in tmux) as often, or STORM_ITERATIONS times; make
# test runs 5 of each (lab/tests/kill.sh's default).
killtest: build
	@$(DEPS_SH) ensure test
	KILL_ITERATIONS=$${KILL_ITERATIONS:-100} prove -v lab/tests/kill.sh

# Every lab/bench/*.sh: ratios against the tools users would otherwise use,
# then one table of every target (lab/bench/lib/run.sh); fails when a
# target is missed or a benchmark fails.
bench:
	@$(DEPS_SH) ensure run
	@$(MAKE) --no-print-directory build
	@lab/bench/lib/run.sh $(BENCH_SH)

# The guest tests alone: real kernels under qemu (Debian 5.10, 6.1, 6.12,
# 6.16 and 7.3 through every check, every line alias 5.10 .. 7.3 and -rt
# through probe, the A/B pairs, and the lab kernel when built); part of
# `make test` too.
vmtest:
	@$(DEPS_SH) ensure test
	@$(MAKE) --no-print-directory build
	prove --timer -v $(filter-out $(SCALE_TESTS) $(LINES_AB_TESTS),$(wildcard lab/tests/vm-*.sh))

# The largest guest that boots here within 5 minutes under TCG, every
# shipped experiment at full size in it (lab/tests/vm-scale.sh; SCALE_CPUS).
scaletest:
	@$(DEPS_SH) ensure test
	@$(MAKE) --no-print-directory build
	prove --timer -v $(SCALE_TESTS)

# The seeds' A/B pairs as cacheline counts in guests under the lines plugin
# (lab/tests/vm-lines-ab.sh: the stock on 6.12 and 6.16, the batch and the
# mutex on the lab kernels where built; vm-ab-patch.sh: ab's pairs) and
# lines predict's accuracy against real builds (vm-lines-predict.sh),
# about 25 minutes under TCG.
linestest:
	@$(DEPS_SH) ensure test
	@$(MAKE) --no-print-directory build
	prove --timer -v $(LINES_AB_TESTS)

# Not part of `make test`: the compile takes long on a small machine (it
# runs at nice 19); the result is cached outside the repository.
# LAB_KERNEL=7.3 (default) or 6.1 picks the source; LAB_KERNEL_PATCHES=none
# builds it without the patch (the other side of an A/B).
LAB_KERNEL ?= 7.3
lab-kernel:
	@$(DEPS_SH) ensure kernel
	LAB_KERNEL=$(LAB_KERNEL) lab/scripts/lab-kernel.sh

# The seed's kmem benchmark module (lab/kmod/kmem_bench.c) for the running
# kernel, against /lib/modules/$(uname -r)/build, into build/kmod/<release>/
# where charge's kmem mode looks for it; without those headers one line says
# so and the kmem mode runs its close()/open() stand-in.  A module that does
# not build is one line and exit 2 (lab/scripts/kmod.sh).
kmod:
	$(Q)lab/scripts/kmod.sh --running build/kmod >/dev/null

# RUN_EXP picks another experiment file (kill.sh's storms use a short one).
RUN_EXP ?= experiments/default.exp
run:
	@$(DEPS_SH) ensure run
	@$(MAKE) --no-print-directory build kmod
	bin/memcg-lab run $(RUN_EXP)

clean:
	rm -rf bin build

# The sanitizer and fuzz builds of the test programs track headers too: a
# struct that changed must not leave them compiled against the old layout.
-include $(LIB_OBJS:.o=.d) $(TEST_SRCS:lab/tests/%.c=build/obj/lab/tests/%.d) build/obj/lab/memcg-lab.d \
	$(TOOL_SRCS:lab/tests/tools/%.c=build/obj/lab/tests/tools/%.d) \
	$(ASAN_OBJS:.o=.d) $(FUZZ_OBJS:.o=.d) $(BENCH_SRCS:lab/bench/%.c=build/obj/lab/bench/%.d) \
	$(UNIT_SRCS:lab/tests/%.c=build/asan/obj/lab/tests/%.d) \
	$(FUZZ_SRCS:lab/tests/fuzz/%.c=build/fuzz/obj/lab/tests/fuzz/%.d)
