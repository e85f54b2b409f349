# SPDX-License-Identifier: GPL-2.0-or-later
# libFuzzer targets, included by the top Makefile (which defines LIB_SRC, CPPFLAGS, PKG_*).
#
#   make fuzz             build tests/fuzz/fuzz_*.c with clang into build-fuzz/, run each for
#                         FUZZ_SECONDS (default 120) on tests/fuzz/corpus/NAME/ (new inputs
#                         go to build-fuzz/corpus/NAME/, crashes to build-fuzz/crash-*)
#   make fuzz-build       only build them (tests/fuzz/run-fuzz.sh, inside `make check`)
#
# The library is compiled again with coverage instrumentation (fuzzer-no-link) and ASan+UBSan;
# UBSan reports abort, so the fuzzer treats them as crashes. Warnings are those of the normal
# build but not errors: clang warns about things gcc does not, and that is not a fuzzing failure.

FUZZ_CC      ?= clang
FUZZ_SECONDS ?= 120
FUZZ_B       := build-fuzz
FUZZ_SAN     := -fsanitize=address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer
FUZZ_CFLAGS  := -O1 -g -std=c11 -D_GNU_SOURCE -Wall -Wextra -Wno-unused-parameter \
                -fno-strict-aliasing $(FUZZ_SAN)
FUZZ_SRC     := $(sort $(wildcard tests/fuzz/fuzz_*.c))
FUZZ_BINS    := $(FUZZ_SRC:tests/fuzz/%.c=$(FUZZ_B)/%)
FUZZ_LIB_OBJ := $(LIB_SRC:%.c=$(FUZZ_B)/obj/%.o)

.PHONY: fuzz fuzz-build

fuzz-build: $(FUZZ_BINS)

$(FUZZ_B)/obj/%.o: %.c
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(CPPFLAGS) $(PKG_CFLAGS) $(FUZZ_CFLAGS) -fsanitize=fuzzer-no-link -c $< -o $@

$(FUZZ_BINS): $(FUZZ_B)/%: $(FUZZ_B)/obj/tests/fuzz/%.o $(FUZZ_LIB_OBJ)
	$(FUZZ_CC) $(FUZZ_SAN) -fsanitize=fuzzer $< $(FUZZ_LIB_OBJ) $(PKG_LIBS) $(LDLIBS) -o $@

fuzz: $(FUZZ_BINS)
	@for t in $(FUZZ_BINS); do \
		n=$${t##*/}; \
		mkdir -p $(FUZZ_B)/corpus/$$n tests/fuzz/corpus/$$n; \
		echo "== $$n for $(FUZZ_SECONDS)s"; \
		$$t -max_total_time=$(FUZZ_SECONDS) -rss_limit_mb=2048 -print_final_stats=1 \
			-artifact_prefix=$(FUZZ_B)/ $(FUZZ_B)/corpus/$$n tests/fuzz/corpus/$$n \
			|| exit 1; \
	done

-include $(FUZZ_LIB_OBJ:.o=.d) $(FUZZ_SRC:%.c=$(FUZZ_B)/obj/%.d)
