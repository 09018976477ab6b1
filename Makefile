# sbx - run AI coding agents without handing them privileges.
#
#   make            build bin/sbx, bin/sbx-hook, bin/sbx-mcp, bin/sbxd (installs missing deps first)
#   make test       build and run every test (unit + integration), prints a TAP summary
#   make test-claude  the hooks with the real Claude Code CLI (npm) and a fake model API
#   make demo       run the whole approval loop in a temporary folder
#   make asan       build with ASan+UBSan into build/asan and run the tests there
#   make bench      whole-process benchmarks (figures go to docs/BENCHMARKS.md)
#   make chaos      kill -9 campaign against sbxd with invariant checks (CHAOS_SECONDS=60)
#   make install    PREFIX=/usr/local DESTDIR=

PREFIX  ?= /usr/local
DESTDIR ?=
BUILD   ?= build
BIN     ?= bin
CC      ?= cc

WARN    = -Wall -Wextra -Werror -Wformat=2 -Wshadow -Wvla -Wstrict-prototypes \
	  -Wmissing-prototypes
HARDEN  = -U_FORTIFY_SOURCE -D_FORTIFY_SOURCE=2 -fstack-protector-strong -fPIE
CFLAGS  ?= -O2 -g
ALL_CFLAGS = -std=c11 -D_GNU_SOURCE $(WARN) $(HARDEN) $(CFLAGS) \
	  -I. $(shell pkg-config --cflags libcjson libsodium sqlite3 2>/dev/null)
LDFLAGS_ALL = -pie -Wl,-z,relro,-z,now $(LDFLAGS)

ifeq ($(SAN),1)
HARDEN  = -fstack-protector-strong -fPIE
CFLAGS  = -O1 -g -fno-omit-frame-pointer -fsanitize=address,undefined \
	  -fno-sanitize-recover=all
LDFLAGS += -fsanitize=address,undefined
endif

LIB_JSON   = -lcjson
LIB_SODIUM = -lsodium
LIB_SQLITE = -lsqlite3
LIB_INOTIFY = -linotifytools

COMMON_SRC = $(wildcard common/*.c)
POLICY_SRC = $(wildcard policy/*.c)
HOOK_SRC   = $(filter-out hook/mcp%.c,$(wildcard hook/*.c))
# sbx-mcp: its own files and the shared escalation, nothing else of the hook.
MCP_SRC    = $(wildcard hook/mcp*.c) hook/escalate.c
DAEMON_SRC = $(wildcard daemon/*.c)
APPR_SRC   = $(wildcard approver/*.c)
UNIT_SRC   = $(wildcard tests/unit/test_*.c)

obj = $(patsubst %.c,$(BUILD)/%.o,$(1))
COMMON_OBJ = $(call obj,$(COMMON_SRC))
POLICY_OBJ = $(call obj,$(POLICY_SRC))
# One archive: each program links only the objects it uses, so the hook
# never pulls in SQLite code.
LIBSBX     = $(BUILD)/libsbx.a
UNIT_BIN   = $(patsubst tests/unit/%.c,$(BUILD)/tests/%,$(UNIT_SRC))

PROGS = $(BIN)/sbx $(BIN)/sbx-hook $(BIN)/sbx-mcp $(BIN)/sbxd

DEPS_STAMP = $(BUILD)/.deps-ok

all: $(PROGS)

# Missing libraries are installed by a script that says what it does.
$(DEPS_STAMP): contrib/install-deps.sh
	@sh contrib/install-deps.sh
	@mkdir -p $(BUILD) && touch $@

$(BUILD)/%.o: %.c $(DEPS_STAMP)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -MMD -MP -c $< -o $@

$(LIBSBX): $(COMMON_OBJ) $(POLICY_OBJ)
	rm -f $@
	$(AR) rcs $@ $^

$(BIN)/sbx-hook: $(call obj,$(HOOK_SRC)) $(LIBSBX)
	@mkdir -p $(BIN)
	$(CC) $(LDFLAGS_ALL) -o $@ $^ $(LIB_JSON) $(LIB_SODIUM) -lm

$(BIN)/sbx-mcp: $(call obj,$(MCP_SRC)) $(LIBSBX)
	@mkdir -p $(BIN)
	$(CC) $(LDFLAGS_ALL) -o $@ $^ $(LIB_JSON) $(LIB_SODIUM) -lm

$(BIN)/sbxd: $(call obj,$(DAEMON_SRC)) $(LIBSBX)
	@mkdir -p $(BIN)
	$(CC) $(LDFLAGS_ALL) -o $@ $^ $(LIB_JSON) $(LIB_SODIUM) $(LIB_SQLITE) $(LIB_INOTIFY) -lm

$(BIN)/sbx: $(call obj,$(APPR_SRC)) $(LIBSBX)
	@mkdir -p $(BIN)
	$(CC) $(LDFLAGS_ALL) -o $@ $^ $(LIB_JSON) $(LIB_SODIUM) $(LIB_SQLITE) -lm

# Unit tests may #include a module's .c to reach its statics; they link
# the rest from the archive.
$(BUILD)/tests/%: tests/unit/%.c $(LIBSBX) $(DEPS_STAMP)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) $(LDFLAGS_ALL) -MMD -MP -o $@ $< $(LIBSBX) \
		$(LIB_JSON) $(LIB_SODIUM) $(LIB_SQLITE) $(LIB_INOTIFY) -lm

# Test-only tools (not run as tests): forge signs arbitrary decisions.
$(BUILD)/tests/tools/forge: tests/tools/forge.c $(BUILD)/approver/sign.o $(LIBSBX)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) $(LDFLAGS_ALL) -o $@ $^ $(LIB_JSON) $(LIB_SODIUM) -lm

# rechain re-hashes an audit log without the daemon's key (tamper tests).
$(BUILD)/tests/tools/rechain: tests/tools/rechain.c $(LIBSBX)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) $(LDFLAGS_ALL) -o $@ $^ $(LIB_JSON) $(LIB_SODIUM) -lm

# sbxd with named crash points (daemon/fault.h): for the fault tests only,
# never installed.
FAULT_OBJ = $(patsubst %.c,$(BUILD)/faults/%.o,$(DAEMON_SRC))
$(BUILD)/faults/%.o: %.c $(DEPS_STAMP)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -DSBX_FAULTS -MMD -MP -c $< -o $@

$(BUILD)/tests/tools/sbxd-faults: $(FAULT_OBJ) $(LIBSBX)
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS_ALL) -o $@ $^ $(LIB_JSON) $(LIB_SODIUM) $(LIB_SQLITE) $(LIB_INOTIFY) -lm

TEST_TOOLS = $(BUILD)/tests/tools/forge $(BUILD)/tests/tools/rechain \
	$(BUILD)/tests/tools/sbxd-faults

test: $(PROGS) $(UNIT_BIN) $(TEST_TOOLS)
	@SBX_BIN=$(abspath $(BIN)) SBX_TESTS_BIN=$(abspath $(BUILD)/tests) \
		sh tests/run.sh

# The kill-and-restart campaign (tests/chaos/chaos.sh): CHAOS_SECONDS bounds it.
CHAOS_SECONDS ?= 60
chaos: $(PROGS) $(BUILD)/tests/tools/sbxd-faults
	@SBX_BIN=$(abspath $(BIN)) SBX_TESTS_BIN=$(abspath $(BUILD)/tests) \
		CHAOS_SECONDS=$(CHAOS_SECONDS) bash tests/chaos/chaos.sh

# The real Claude Code CLI against a scripted stand-in for the model API;
# installs it from npm into ~/.cache/sbx-test-npm once (tests/claude/run.sh).
test-claude: $(PROGS)
	@SBX_BIN=$(abspath $(BIN)) bash tests/claude/run.sh

asan:
	$(MAKE) BUILD=build/asan BIN=build/asan/bin SAN=1 test

demo: $(PROGS)
	@SBX_BIN=$(abspath $(BIN)) bash contrib/demo.sh

$(BUILD)/bench/spawn: tests/bench/spawn.c $(DEPS_STAMP)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) $(LDFLAGS_ALL) -o $@ $<

$(BUILD)/bench/policy_bench: tests/bench/policy_bench.c $(LIBSBX) $(DEPS_STAMP)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) $(LDFLAGS_ALL) -o $@ $< $(LIBSBX) $(LIB_JSON) -lm

$(BUILD)/bench/auditbench: tests/bench/auditbench.c $(LIBSBX) $(DEPS_STAMP)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) $(LDFLAGS_ALL) -o $@ $< $(LIBSBX) $(LIB_JSON) $(LIB_SODIUM) \
		$(LIB_SQLITE) -lm

$(BUILD)/bench/reqgen: tests/bench/reqgen.c $(LIBSBX) $(DEPS_STAMP)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) $(LDFLAGS_ALL) -o $@ $< $(LIBSBX) $(LIB_JSON) $(LIB_SODIUM) -lm

bench: $(PROGS) $(BUILD)/bench/spawn $(BUILD)/bench/policy_bench $(BUILD)/bench/auditbench \
	$(BUILD)/bench/reqgen
	@SBX_BIN=$(abspath $(BIN)) SBX_BENCH_BIN=$(abspath $(BUILD)/bench) \
		bash tests/bench/bench.sh

install: $(PROGS)
	install -d $(DESTDIR)$(PREFIX)/bin
	install -m 0755 $(PROGS) $(DESTDIR)$(PREFIX)/bin/

clean:
	rm -rf build bin

.PHONY: all test test-claude asan demo bench chaos install clean

-include $(shell find $(BUILD) -name '*.d' 2>/dev/null)
