/* sbx-hook codex: its stdin payload (see hook_target.h). */
#define FUZZ_DIALECT "codex"
#include "tests/fuzz/hook_target.h"
