# sbx - run AI coding agents without handing them privileges.
#
#   make            build bin/sbx, bin/sbx-hook, bin/sbx-mcp, bin/sbxd, bin/sbx-proxy,
#                   bin/sbx-jail-init (installs missing deps first)
#                   every target installs only what IT needs (contrib/install-deps.sh);
#                   SBX_NO_APT=1 never runs apt-get, it prints what is missing instead
#   make test       build and run every test (unit + integration), prints a TAP summary
#   make test-claude  the hooks with the real Claude Code CLI (npm) and a fake model API
#   make test-agents  the same with the real Codex and Gemini CLIs (npm) and fake model APIs
#   make demo       run the whole approval loop in a temporary folder
#   make asan       build with ASan+UBSan into build/asan and run the tests there
#   make fuzz       libFuzzer targets (clang) into build/fuzz; make fuzz-run
#                   FUZZ_SECONDS=N runs each for N s (tests/fuzz/fuzz.mk)
#   make lint       static check with cppcheck (suppressions, with reasons: .ci/cppcheck.supp)
#                   and the module rules of docs/ARCHITECTURE.md (tests/lint/*.sh)
#   make bench      whole-process benchmarks (figures go to docs/BENCHMARKS.md)
#   make bench-scale  only the scale part: 100k requests of history, 1,000 folders
#   make install    PREFIX=/usr/local DESTDIR=: programs, man pages, completions, systemd user unit
#   make uninstall  the exact inverse (same PREFIX and DESTDIR)
#   make test-deb   build the .deb, install it, run the demo with it, purge it (root)
#   make chaos      kill -9 campaign against sbxd with invariant checks (CHAOS_SECONDS=60)

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
# sbx-hook starts once per tool call: libsodium goes in statically
# (libsodium.a, from libsodium-dev), one shared object less to open, map
# and relocate at every start (docs/BENCHMARKS.md, hookstart). cJSON has no
# static archive in Debian and stays shared. Without libsodium.a (another
# distribution's split packages) the hook links it like the others.
SODIUM_A   = $(wildcard $(shell pkg-config --variable=libdir libsodium 2>/dev/null)/libsodium.a)
SODIUM_STATIC = -Wl,-Bstatic -lsodium -Wl,-Bdynamic
LIB_SODIUM_HOOK = $(if $(SODIUM_A),$(SODIUM_STATIC),$(LIB_SODIUM))
LIB_SECCOMP = -lseccomp

# common/ is one directory per module (docs/ARCHITECTURE.md).
COMMON_SRC = $(wildcard common/*.c common/*/*.c)
POLICY_SRC = $(wildcard policy/*.c)
HOOK_SRC   = $(filter-out hook/mcp%.c hook/jail%.c,$(wildcard hook/*.c))
# sbx-mcp: its own files and the shared escalation, nothing else of the hook.
MCP_SRC    = $(wildcard hook/mcp*.c) hook/escalate.c
DAEMON_SRC = $(filter-out daemon/proxy%.c,$(wildcard daemon/*.c))
# sbx-proxy: its own files and the shared escalation; no SQLite, no keys.
PROXY_SRC  = $(wildcard daemon/proxy*.c) hook/escalate.c
APPR_SRC   = $(wildcard approver/*.c)
UNIT_SRC   = $(wildcard tests/unit/test_*.c)

obj = $(patsubst %.c,$(BUILD)/%.o,$(1))
COMMON_OBJ = $(call obj,$(COMMON_SRC))
POLICY_OBJ = $(call obj,$(POLICY_SRC))
# One archive: each program links only the objects it uses, so the hook
# never pulls in SQLite code.
LIBSBX     = $(BUILD)/libsbx.a
UNIT_BIN   = $(patsubst tests/unit/%.c,$(BUILD)/tests/%,$(UNIT_SRC))

PROGS = $(BIN)/sbx $(BIN)/sbx-hook $(BIN)/sbx-mcp $(BIN)/sbxd $(BIN)/sbx-proxy \
	$(BIN)/sbx-jail-init

DEPS_STAMP = $(BUILD)/.deps-ok
DEPS_TEST  = $(BUILD)/.deps-test-ok
DEPS_DEMO  = $(BUILD)/.deps-demo-ok

all: $(PROGS)

# Missing libraries are installed by a script that says what it does;
# each target asks only for what it needs (openssh and tmux are test-only).
$(DEPS_STAMP): contrib/install-deps.sh
	@sh contrib/install-deps.sh build
	@mkdir -p $(BUILD) && touch $@

$(DEPS_TEST): contrib/install-deps.sh
	@sh contrib/install-deps.sh test
	@mkdir -p $(BUILD) && touch $@

$(DEPS_DEMO): contrib/install-deps.sh
	@sh contrib/install-deps.sh demo
	@mkdir -p $(BUILD) && touch $@

$(BUILD)/%.o: %.c $(DEPS_STAMP)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -MMD -MP -c $< -o $@

$(LIBSBX): $(COMMON_OBJ) $(POLICY_OBJ)
	rm -f $@
	$(AR) rcs $@ $^

# The link map's cross references (--cref) let tests/lint/modules.sh see
# which objects reference signing, now that nm -u no longer can for the
# static part.
$(BIN)/sbx-hook: $(call obj,$(HOOK_SRC)) $(LIBSBX)
	@mkdir -p $(BIN)
	$(CC) $(LDFLAGS_ALL) -Wl,-Map=$(BUILD)/sbx-hook.map,--cref -o $@ $^ $(LIB_JSON) \
		$(LIB_SODIUM_HOOK) -lm

$(BIN)/sbx-mcp: $(call obj,$(MCP_SRC)) $(LIBSBX)
	@mkdir -p $(BIN)
	$(CC) $(LDFLAGS_ALL) -o $@ $^ $(LIB_JSON) $(LIB_SODIUM) -lm

# The first program inside sbx jail: libc and libseccomp only.
$(BIN)/sbx-jail-init: $(BUILD)/hook/jail_init.o
	@mkdir -p $(BIN)
	$(CC) $(LDFLAGS_ALL) -o $@ $^ $(LIB_SECCOMP)

$(BIN)/sbxd: $(call obj,$(DAEMON_SRC)) $(LIBSBX)
	@mkdir -p $(BIN)
	$(CC) $(LDFLAGS_ALL) -o $@ $^ $(LIB_JSON) $(LIB_SODIUM) $(LIB_SQLITE) -lm

$(BIN)/sbx-proxy: $(call obj,$(PROXY_SRC)) $(LIBSBX)
	@mkdir -p $(BIN)
	$(CC) $(LDFLAGS_ALL) -pthread -o $@ $^ $(LIB_JSON) $(LIB_SODIUM) -lm

$(BIN)/sbx: $(call obj,$(APPR_SRC)) $(LIBSBX)
	@mkdir -p $(BIN)
	$(CC) $(LDFLAGS_ALL) -o $@ $^ $(LIB_JSON) $(LIB_SODIUM) $(LIB_SQLITE) -lm

# Unit tests may #include a module's .c to reach its statics; they link
# the rest from the archive.
$(BUILD)/tests/%: tests/unit/%.c $(LIBSBX) $(DEPS_STAMP)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) $(LDFLAGS_ALL) -MMD -MP -o $@ $< $(LIBSBX) \
		$(LIB_JSON) $(LIB_SODIUM) $(LIB_SQLITE) -lm

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
	$(CC) $(LDFLAGS_ALL) -o $@ $^ $(LIB_JSON) $(LIB_SODIUM) $(LIB_SQLITE) -lm

# reqgen (tests/bench) stages a burst of valid requests (t182, t183).
$(BUILD)/tests/tools/reqgen: tests/bench/reqgen.c $(LIBSBX) $(DEPS_STAMP)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) $(LDFLAGS_ALL) -o $@ $< $(LIBSBX) $(LIB_JSON) $(LIB_SODIUM) -lm

# idleforge reads, edits and re-keys sbxd's idle records with its key
# (what an agent that can read daemon.key can do: t315-t319).
$(BUILD)/tests/tools/idleforge: tests/tools/idleforge.c $(LIBSBX) $(DEPS_STAMP)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) $(LDFLAGS_ALL) -o $@ $< $(LIBSBX) $(LIB_JSON) $(LIB_SODIUM) -lm

TEST_TOOLS = $(BUILD)/tests/tools/forge $(BUILD)/tests/tools/rechain \
	$(BUILD)/tests/tools/sbxd-faults $(BUILD)/tests/tools/reqgen \
	$(BUILD)/tests/tools/idleforge

test: $(DEPS_TEST) $(PROGS) $(UNIT_BIN) $(TEST_TOOLS)
	@SBX_BIN=$(abspath $(BIN)) SBX_TESTS_BIN=$(abspath $(BUILD)/tests) \
		sh tests/run.sh

# The kill-and-restart campaign (tests/chaos/chaos.sh): CHAOS_SECONDS bounds it.
CHAOS_SECONDS ?= 60
chaos: $(PROGS) $(BUILD)/tests/tools/sbxd-faults
	@SBX_BIN=$(abspath $(BIN)) SBX_TESTS_BIN=$(abspath $(BUILD)/tests) \
		CHAOS_SECONDS=$(CHAOS_SECONDS) bash tests/chaos/chaos.sh

# The real Claude Code CLI against a scripted stand-in for the model API;
# installs it from npm into ~/.cache/sbx-test-npm once (tests/claude/run.sh).
# Without node, npm or the registry it prints SKIP and why, never a pass.
test-claude: $(PROGS)
	@SBX_BIN=$(abspath $(BIN)) bash tests/claude/run.sh
	@SBX_BIN=$(abspath $(BIN)) bash tests/claude/approve_retry.sh

# The real Codex CLI against a scripted stand-in for the Responses API
# (tests/agents/run.sh), then the real Gemini CLI against one for the
# Gemini API (tests/agents/gemini.sh); each installs its client from npm
# into ~/.cache/sbx-test-npm once and SKIPs when the registry does not answer.
test-agents: $(PROGS)
	@SBX_BIN=$(abspath $(BIN)) bash tests/agents/run.sh
	@SBX_BIN=$(abspath $(BIN)) bash tests/agents/gemini.sh

asan:
	$(MAKE) BUILD=build/asan BIN=build/asan/bin SAN=1 test

# cppcheck needs cJSON's header to know cJSON_ArrayForEach is a loop.
CJSON_H = $(firstword $(wildcard $(patsubst -I%,%/cJSON.h,$(shell pkg-config \
	  --cflags-only-I libcjson 2>/dev/null)) /usr/include/cjson/cJSON.h))
LINT_DIRS = common policy hook daemon approver tests/unit tests/tools tests/bench tests/fuzz

lint:
	@sh contrib/install-deps.sh lint
	sh tests/lint/includes.sh
	BIN=$(BIN) HOOK_MAP=$(BUILD)/sbx-hook.map sh tests/lint/modules.sh
	cppcheck -q --std=c11 --enable=warning,portability,performance \
		--inline-suppr --suppressions-list=.ci/cppcheck.supp \
		--error-exitcode=1 -D_GNU_SOURCE -I. \
		$(if $(CJSON_H),--include=$(CJSON_H)) $(LINT_DIRS)

demo: $(DEPS_DEMO) $(PROGS)
	@SBX_BIN=$(abspath $(BIN)) bash contrib/demo.sh

$(BUILD)/bench/spawn: tests/bench/spawn.c $(DEPS_STAMP)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) $(LDFLAGS_ALL) -o $@ $<

$(BUILD)/bench/policy_bench: tests/bench/policy_bench.c $(LIBSBX) $(DEPS_STAMP)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) $(LDFLAGS_ALL) -o $@ $< $(LIBSBX) $(LIB_JSON) $(LIB_SODIUM) -lm

$(BUILD)/bench/auditbench: tests/bench/auditbench.c $(LIBSBX) $(DEPS_STAMP)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) $(LDFLAGS_ALL) -o $@ $< $(LIBSBX) $(LIB_JSON) $(LIB_SODIUM) \
		$(LIB_SQLITE) -lm

$(BUILD)/bench/floor: tests/bench/floor.c $(DEPS_STAMP)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) $(LDFLAGS_ALL) -o $@ $<

# histfill clones a finished request to pre-fill history (scale benchmark).
$(BUILD)/bench/histfill: tests/bench/histfill.c $(LIBSBX) $(DEPS_STAMP)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) $(LDFLAGS_ALL) -o $@ $< $(LIBSBX) $(LIB_JSON) $(LIB_SODIUM) \
		$(LIB_SQLITE) -lm

SCALE_TOOLS = $(BUILD)/bench/spawn $(BUILD)/bench/floor $(BUILD)/bench/histfill

# cgmove: a child started in a pids cgroup, moved or cloned into it.
$(BUILD)/bench/cgmove: tests/bench/cgmove.c $(BUILD)/daemon/cgroup.o $(LIBSBX) $(DEPS_STAMP)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) $(LDFLAGS_ALL) -o $@ $< $(BUILD)/daemon/cgroup.o $(LIBSBX) $(LIB_SODIUM)

$(BUILD)/bench/reqgen: tests/bench/reqgen.c $(LIBSBX) $(DEPS_STAMP)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) $(LDFLAGS_ALL) -o $@ $< $(LIBSBX) $(LIB_JSON) $(LIB_SODIUM) -lm

bench: $(PROGS) $(BUILD)/bench/spawn $(BUILD)/bench/policy_bench $(BUILD)/bench/auditbench \
		$(SCALE_TOOLS) $(BUILD)/bench/reqgen $(BUILD)/bench/cgmove
	@SBX_BIN=$(abspath $(BIN)) SBX_BENCH_BIN=$(abspath $(BUILD)/bench) \
		bash tests/bench/bench.sh
	@SBX_BIN=$(abspath $(BIN)) SBX_BENCH_BIN=$(abspath $(BUILD)/bench) \
		bash tests/bench/scale.sh

# The scale benchmark alone (issue 16): history to 100k, 1,000 folders, verify.
bench-scale: $(PROGS) $(SCALE_TOOLS)
	@SBX_BIN=$(abspath $(BIN)) SBX_BENCH_BIN=$(abspath $(BUILD)/bench) \
		bash tests/bench/scale.sh

BINDIR      = $(PREFIX)/bin
MANDIR      = $(PREFIX)/share/man
BASHCOMPDIR = $(PREFIX)/share/bash-completion/completions
# zsh reads vendor-completions under /usr (Debian), site-functions elsewhere
ZSHCOMPDIR  = $(PREFIX)/share/zsh/$(if $(filter /usr,$(PREFIX)),vendor-completions,site-functions)
FISHCOMPDIR = $(PREFIX)/share/fish/vendor_completions.d
USERUNITDIR = $(PREFIX)/lib/systemd/user
PROG_NAMES  = $(notdir $(PROGS))
COMP_NAMES  = sbx sbx-hook sbx-mcp sbxd
MAN_PAGES   = docs/man/sbx.1 docs/man/sbx-hook.1 docs/man/sbx-mcp.1 docs/man/sbx-policy.5 \
	      docs/man/sbxd.8
FISH_FILES  = $(addprefix contrib/completions/,sbx.fish sbxd.fish sbx-hook.fish sbx-mcp.fish)
# Every file install writes, so that uninstall removes exactly these.
INSTALLED   = $(addprefix $(BINDIR)/,$(PROG_NAMES)) \
	      $(foreach m,$(MAN_PAGES),$(MANDIR)/man$(subst .,,$(suffix $(m)))/$(notdir $(m))) \
	      $(addprefix $(BASHCOMPDIR)/,$(COMP_NAMES)) $(ZSHCOMPDIR)/_sbx \
	      $(addprefix $(FISHCOMPDIR)/,$(notdir $(FISH_FILES))) $(USERUNITDIR)/sbxd.service
INSTALL_DIRS = $(BINDIR) $(MANDIR)/man1 $(MANDIR)/man5 $(MANDIR)/man8 $(BASHCOMPDIR) \
	      $(ZSHCOMPDIR) $(FISHCOMPDIR) $(USERUNITDIR)

install: $(PROGS)
	install -d $(addprefix $(DESTDIR),$(INSTALL_DIRS))
	install -m 0755 $(PROGS) $(DESTDIR)$(BINDIR)/
	for m in $(MAN_PAGES); do \
		s=$${m##*.}; install -m 0644 $$m $(DESTDIR)$(MANDIR)/man$$s/ || exit 1; \
	done
	for p in $(COMP_NAMES); do \
		install -m 0644 contrib/completions/sbx.bash $(DESTDIR)$(BASHCOMPDIR)/$$p || exit 1; \
	done
	install -m 0644 contrib/completions/_sbx $(DESTDIR)$(ZSHCOMPDIR)/_sbx
	install -m 0644 $(FISH_FILES) $(DESTDIR)$(FISHCOMPDIR)/
	sed 's|/usr/local/bin/sbxd|$(BINDIR)/sbxd|' contrib/systemd/sbxd.service \
		>$(DESTDIR)$(USERUNITDIR)/sbxd.service
	chmod 0644 $(DESTDIR)$(USERUNITDIR)/sbxd.service

# The inverse of install: its files, then the directories it made while
# they are empty, walking up to DESTDIR (or PREFIX), never past it.
uninstall:
	rm -f $(addprefix $(DESTDIR),$(INSTALLED))
	stop='$(if $(DESTDIR),$(DESTDIR:%/=%),$(PREFIX))'; \
	for d in $(INSTALL_DIRS); do \
		p='$(DESTDIR:%/=%)'"$$d"; \
		while [ "$${p#"$$stop"/}" != "$$p" ] && rmdir "$$p" 2>/dev/null; do \
			p=$${p%/*}; \
		done; \
	done

# Builds the .deb from a copy of the tree, installs it, runs the demo with
# the installed programs, purges it (needs root; tests/deb/run.sh).
test-deb:
	@sh contrib/install-deps.sh deb
	@bash tests/deb/run.sh

clean:
	rm -rf build bin

.PHONY: all test test-claude test-agents asan lint demo bench bench-scale chaos install uninstall test-deb clean

include tests/fuzz/fuzz.mk

-include $(shell find $(BUILD) -name '*.d' 2>/dev/null)
