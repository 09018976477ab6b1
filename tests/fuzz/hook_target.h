/*
 * hook_target.h - one sbx-hook dialect as a libFuzzer target: the input
 * is the payload on stdin, and the real sbx-hook main() runs with
 * argv[1] = FUZZ_DIALECT in a project that `sbx init` made in a temp
 * dir (no sbxd: escalations are queued and answered at once, and the
 * queue is emptied after each input). The answer goes to /dev/null.
 */
#include "tests/fuzz/fuzz.h"

#define main sbx_hook_main
int sbx_hook_main(int argc, char **argv);
#include "hook/sbx_hook.c"
#undef main

int
LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc; (void)argv;
	fuzz_init_project();
	return 0;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *args[] = { "sbx-hook", FUZZ_DIALECT, NULL };

	if (!fuzz_cwd_is_ours(data, size))
		return -1;      /* not added to the corpus */
	fuzz_stdio(data, size);
	(void)sbx_hook_main(2, args);
	alarm(0);
	signal(SIGALRM, SIG_DFL);
	fuzz_empty("queue/new");
	fuzz_empty("queue/tmp");
	fuzz_empty("queue/events");
	fuzz_empty("queue/originals/index");
	fuzz_empty("queue/originals/objects");
	return 0;
}
