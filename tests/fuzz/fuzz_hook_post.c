/* sbx-hook post: its stdin payload (see hook_target.h). */
#define FUZZ_DIALECT "post"
#include "tests/fuzz/hook_target.h"
