# pkttables — one non-recursive GNU make build.
#
#   make            build build/pkttables
#   make demo       install missing Debian packages, build, replay the shipped example
#   make check      install missing Debian packages, build, run every test (also under ASan/UBSan)
#   make bench      benchmarks (build/bench.csv, build/bench.png, build/bench-classify.csv)
#   make bench-table  the workshop's cost table: kernel (legacy, nft), pkttables live and in memory
#   make classify-sweep  the compiled classifier == the linear scan on every ClassBench set
#   make bench-failover  issue 19's failover figures, 3 rounds per pairing (build/failover.csv)
#   make SAN=1      build with AddressSanitizer + UndefinedBehaviorSanitizer into build-san/
#   make fuzz       libFuzzer targets (clang) into build-fuzz/, each run FUZZ_SECONDS (120)

CC       ?= gcc
SAN      ?=
PKGS     := libpcap libedit libmnl liburcu-memb cmocka libnetfilter_queue libsodium libxdp libbpf

ifeq ($(SAN),1)
B        := build-san
SANFLAGS := -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined
OPT      := -O1
else
B        := build
SANFLAGS :=
OPT      := -O2
endif

# pkg-config is asked only when a build actually runs, so `make deps` works before it exists.
# Hyperscan (libhyperscan-dev) is optional: textsearch's many-patterns engine uses it when
# pkg-config finds libhs, and its own Aho-Corasick automaton otherwise (or with NO_HYPERSCAN=1).
HS_PKG     = $(if $(NO_HYPERSCAN),,$(shell pkg-config --exists libhs 2>/dev/null && echo libhs))
PKG_CFLAGS = $(shell pkg-config --cflags $(PKGS) $(HS_PKG) 2>/dev/null) \
             $(if $(HS_PKG),-DPT_HAVE_HYPERSCAN)
PKG_LIBS   = $(shell pkg-config --libs $(PKGS) $(HS_PKG) 2>/dev/null)

CFLAGS   ?= $(OPT) -g
CFLAGS   += -std=c11 -D_GNU_SOURCE -Wall -Wextra -Werror -Wshadow -Wno-unused-parameter \
            -Wstrict-prototypes -Wmissing-prototypes -fno-strict-aliasing $(SANFLAGS)
CPPFLAGS += -Isrc -MMD -MP
LDLIBS   += -lm -lpthread
LDFLAGS  += $(SANFLAGS)

LIB_SRC  := $(sort $(wildcard src/*/*.c))
LIB_SRC  := $(filter-out src/cmd/%,$(LIB_SRC))
CMD_SRC  := $(sort $(wildcard src/cmd/*.c))
TEST_SRC := $(sort $(wildcard tests/unit/test_*.c))
# bench_acl links DPDK's rte_acl: built on its own rule below, only when pkg-config finds it
BENCH_SRC:= $(filter-out bench/bench_acl.c,$(sort $(wildcard bench/*.c)))

LIB_OBJ  := $(LIB_SRC:%.c=$(B)/obj/%.o)
CMD_OBJ  := $(CMD_SRC:%.c=$(B)/obj/%.o)
TESTS    := $(TEST_SRC:tests/unit/%.c=$(B)/tests/%)
BENCHES  := $(BENCH_SRC:bench/%.c=$(B)/bench/%)
# Programs link every library object directly, not through an archive: extensions are reached
# only through the registry table, and an archive keys members by base name (src/ct/table.o
# and src/set/table.o would replace each other).
LIB      := $(LIB_OBJ)
LINKLIB  := $(LIB_OBJ)
BIN      := $(B)/pkttables

# Quiet by default (one line per file); make V=1 shows the commands.
ifeq ($(V),1)
Q :=
else
Q := @
endif

.PHONY: all tests deps demo check check-fast bench bench-acl bench-table bench-failover clean fmt classify-sweep
.DEFAULT_GOAL := all

all: $(BIN)

tests: $(TESTS)

$(B)/obj/%.o: %.c
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  CC      $@")
	$(Q)$(CC) $(CPPFLAGS) $(PKG_CFLAGS) $(CFLAGS) -c $< -o $@

$(BIN): $(CMD_OBJ) $(LIB)
	@$(if $(Q),echo "  LD      $@")
	$(Q)$(CC) $(LDFLAGS) $(CMD_OBJ) $(LINKLIB) $(PKG_LIBS) $(LDLIBS) -o $@

$(B)/tests/%: $(B)/obj/tests/unit/%.o $(LIB)
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  LD      $@")
	$(Q)$(CC) $(LDFLAGS) $< $(LINKLIB) $(PKG_LIBS) $(LDLIBS) -o $@

$(B)/bench/%: $(B)/obj/bench/%.o $(LIB)
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  LD      $@")
	$(Q)$(CC) $(LDFLAGS) $< $(LINKLIB) $(PKG_LIBS) $(LDLIBS) -o $@

# DPDK's rte_acl for the classifier comparison (bench/bench_acl.c): the benchmark alone links
# it, and only when pkg-config knows libdpdk (tools/install-deps.sh --bench); pkttables and its
# tests never do. Without it bench/run.sh says rte_acl was not measured.
ifeq ($(shell pkg-config --exists libdpdk 2>/dev/null && echo y),y)
bench-acl: $(B)/bench/bench_acl
$(B)/bench/bench_acl: bench/bench_acl.c tests/unit/classbench.h
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  CC+LD   $@")
	$(Q)$(CC) -Isrc -std=gnu11 -O2 -Wall -Wextra -Werror -Wno-unused-parameter \
		$(shell pkg-config --cflags libdpdk) $< -o $@ $(shell pkg-config --libs libdpdk)
else
bench-acl:
	@echo "bench: no libdpdk (pkg-config): rte_acl not built"
endif

# Debian packages the build, the tests and the demo need; installed only when missing.
deps:
	@sh tools/install-deps.sh

demo: deps
	@$(MAKE) --no-print-directory all
	$(BIN) replay --rules examples/home-router.rules examples/home-router.pcap \
		-o build/home-router.out.pcap

# Everything: the normal build, then the sanitizer build, both through the same runner.
check: deps
	@$(MAKE) --no-print-directory all tests
	@$(MAKE) --no-print-directory SAN=1 all tests
	@sh tests/run.sh

# The normal build only, without sanitizers (quick iteration).
check-fast:
	@$(MAKE) --no-print-directory all tests
	@PT_NO_SAN=1 sh tests/run.sh

bench: deps
	@sh tools/install-deps.sh --bench
	@$(MAKE) --no-print-directory all $(BENCHES) bench-acl
	@sh bench/run.sh

# The workshop's table (docs/benchmark.md): netns sender, router, receiver; root for the live rows.
bench-table: deps
	@$(MAKE) --no-print-directory all $(B)/bench/bench_stack
	@sh bench/table.sh
	@sh bench/gen-vs-trafgen.sh

# The failover figures (docs/sync.md): pkttables and kernel+conntrackd pairs in netns, root.
bench-failover: deps
	@$(MAKE) --no-print-directory all
	@sh bench/failover.sh

# The compiled classifier against the linear scan on every ClassBench set (10k whole traces,
# 100k on a uniform trace); make check runs the 1k sets and a 10k sample only.
classify-sweep:
	@$(MAKE) --no-print-directory all tests
	@sh tests/classify/sweep.sh

# libFuzzer targets: `make fuzz`, `make fuzz-build` (tests/fuzz/fuzz.mk says more).
include tests/fuzz/fuzz.mk

fmt:
	clang-format -i $(LIB_SRC) $(CMD_SRC) $(TEST_SRC) $(wildcard src/*/*.h)

clean:
	rm -rf build build-san build-fuzz

-include $(LIB_OBJ:.o=.d) $(CMD_OBJ:.o=.d) $(TEST_SRC:%.c=$(B)/obj/%.d) $(BENCH_SRC:%.c=$(B)/obj/%.d)
