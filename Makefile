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
LAB_CFLAGS  = -std=gnu11 -Wall -Wextra -Werror -D_GNU_SOURCE -Ilab $(PKG_CFLAGS) -MMD -MP
LDLIBS      = $(PKG_LIBS) -lz -lm -lpthread

LIB_SRCS  := $(wildcard lab/cmd/*.c lab/drivers/*.c lab/collect/*.c lab/analyze/*.c \
                        lab/kernel/*.c lab/util/*.c)
LIB_OBJS  := $(LIB_SRCS:%.c=build/obj/%.o)
TEST_SRCS := $(wildcard lab/tests/*.c)
TEST_BINS := $(TEST_SRCS:lab/tests/%.c=build/tests/%)
SH_TESTS  := $(sort $(wildcard lab/tests/*.sh))
# The real kernels' BTF the tests check against, kept compressed in git.
BTF_FILES := $(patsubst lab/tests/data/btf/%.xz,build/btf/%,$(wildcard lab/tests/data/btf/*.btf.xz))
DEPS_SH   := lab/scripts/deps.sh

.PHONY: all build deps test unit run bench clean help vmtest lab-kernel
.DEFAULT_GOAL := all

all:
	@$(DEPS_SH) ensure build
	@$(MAKE) --no-print-directory build

build: bin/memcg-lab $(TEST_BINS) $(BTF_FILES)

help:
	@echo "make          build bin/memcg-lab (installs missing build packages as root)"
	@echo "make run      the main job: the default experiment on the running kernel"
	@echo "make test     all tests (TAP through prove)"
	@echo "make vmtest   only the tests that boot real kernels under qemu (lab/tests/vm-*.sh)"
	@echo "make lab-kernel  build the lab's 6.1 kernel with the user-flush mutex (long; cached"
	@echo "              under /var/cache/memcg-lab; then: memcg-lab vm --kernel lab ...)"
	@echo "make bench    benchmarks, as ratios against the tools users would otherwise use"
	@echo "make deps     install every Debian package the lab uses"
	@echo "make clean    remove bin/ and build/"

deps:
	@$(DEPS_SH) install all

build/obj/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(LAB_CFLAGS) $(CFLAGS) -c -o $@ $<

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

# The guest tests alone: real kernels (Debian 5.10, 6.1, 6.12 and the lab
# kernel when built) under qemu; part of `make test` too.
vmtest:
	@$(DEPS_SH) ensure test
	@$(MAKE) --no-print-directory build
	prove --timer -v $(wildcard lab/tests/vm-*.sh)

# Not part of `make test`: the compile takes long on a small machine (it
# runs at nice 19); the result is cached outside the repository.
lab-kernel:
	@$(DEPS_SH) ensure kernel
	lab/scripts/lab-kernel.sh

run:
	@$(DEPS_SH) ensure run
	@$(MAKE) --no-print-directory build
	bin/memcg-lab probe --results default

clean:
	rm -rf bin build

-include $(LIB_OBJS:.o=.d) $(TEST_SRCS:lab/tests/%.c=build/obj/lab/tests/%.d) build/obj/lab/memcg-lab.d
