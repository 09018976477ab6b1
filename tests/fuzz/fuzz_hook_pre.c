/* sbx-hook pre: its stdin payload (see hook_target.h). */
#define FUZZ_DIALECT "pre"
#include "tests/fuzz/hook_target.h"
