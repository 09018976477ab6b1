# Fuzzing (docs/FUZZING.md): libFuzzer targets built with clang, ASan and
# UBSan into $(FUZZ_DIR); included by the Makefile.
#
#   make fuzz                          build every build/fuzz/fuzz_NAME
#   make fuzz-run FUZZ_SECONDS=20      run each for that long on its seeds;
#                                      fails on a crash, leak, timeout or OOM

FUZZ_CC      ?= clang
FUZZ_DIR      = $(BUILD)/fuzz
FUZZ_SECONDS ?= 20
FUZZ_SAN      = -fsanitize=address,undefined -fno-sanitize-recover=all
FUZZ_CFLAGS   = -std=c11 -D_GNU_SOURCE $(WARN) -O1 -g -fno-omit-frame-pointer \
		$(FUZZ_SAN) -fsanitize=fuzzer-no-link -I. \
		$(shell pkg-config --cflags libcjson libsodium 2>/dev/null)
FUZZ_SRC      = $(wildcard tests/fuzz/fuzz_*.c)
FUZZ_BIN      = $(patsubst tests/fuzz/%.c,$(FUZZ_DIR)/%,$(FUZZ_SRC))
# The libraries the targets reach: common/, policy/, the hook without
# its main() (hook_target.h includes sbx_hook.c) and sbx-mcp without its
# line reader.
FUZZ_LIB_SRC  = $(COMMON_SRC) $(POLICY_SRC) \
		$(filter-out hook/sbx_hook.c,$(HOOK_SRC)) \
		$(filter-out hook/mcp_main.c hook/escalate.c,$(MCP_SRC))
FUZZ_LIB      = $(FUZZ_DIR)/libsbx-fuzz.a
DEPS_FUZZ     = $(BUILD)/.deps-fuzz-ok

$(DEPS_FUZZ): contrib/install-deps.sh $(DEPS_STAMP)
	@sh contrib/install-deps.sh fuzz
	@mkdir -p $(BUILD) && touch $@

$(FUZZ_DIR)/obj/%.o: %.c $(DEPS_FUZZ)
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(FUZZ_CFLAGS) -MMD -MP -c $< -o $@

$(FUZZ_LIB): $(patsubst %.c,$(FUZZ_DIR)/obj/%.o,$(FUZZ_LIB_SRC))
	rm -f $@
	$(AR) rcs $@ $^

$(FUZZ_DIR)/fuzz_%: tests/fuzz/fuzz_%.c tests/fuzz/fuzz.h tests/fuzz/hook_target.h \
		$(FUZZ_LIB) $(DEPS_FUZZ)
	$(FUZZ_CC) $(FUZZ_CFLAGS) -fsanitize=fuzzer -MMD -MP -o $@ $< $(FUZZ_LIB) \
		$(LIB_JSON) $(LIB_SODIUM) -lm

fuzz: $(FUZZ_BIN)

# The hook targets run the real `sbx init` once, so they need bin/sbx.
fuzz-run: fuzz $(BIN)/sbx
	@SBX_BIN=$(abspath $(BIN)) FUZZ_DIR=$(abspath $(FUZZ_DIR)) \
		sh tests/fuzz/run.sh $(FUZZ_SECONDS) $(FUZZ)

.PHONY: fuzz fuzz-run
