/* sbx-hook gemini: its stdin payload (see hook_target.h). */
#define FUZZ_DIALECT "gemini"
#include "tests/fuzz/hook_target.h"
