/* sbx-hook session-start: its stdin payload (see hook_target.h). */
#define FUZZ_DIALECT "session-start"
#include "tests/fuzz/hook_target.h"
