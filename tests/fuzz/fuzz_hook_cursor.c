/* sbx-hook cursor: its stdin payload (see hook_target.h). */
#define FUZZ_DIALECT "cursor"
#include "tests/fuzz/hook_target.h"
