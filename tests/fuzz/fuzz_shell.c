/*
 * fuzz_shell - the shell parser (policy/shell.c): any bytes as one
 * command line. sh_parse() must return 0 or -1 (with a problem), never
 * crash, and everything it returns must be well formed.
 */
#include "tests/fuzz/fuzz.h"
#include "policy/shell.h"

int
LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc; (void)argv;
	return 0;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct sh_parse p;
	int rc, i, j;

	memset(&p, 0, sizeof(p));
	rc = sh_parse((const char *)data, size, 0, &p);
	if (rc != 0 && rc != -1)
		abort();
	if (rc == -1 && !p.problem[0])
		abort();                /* a refusal always says why */
	if (p.ncmds < 0 || p.ncmds > SH_MAX_CMDS + 2 * SH_MAX_DEPTH)
		abort();
	for (i = 0; i < p.ncmds; i++) {
		const struct sh_cmd *c = &p.cmds[i];

		for (j = 0; j < c->argc; j++)
			if (strlen(c->argv[j].s) > c->argv[j].len)
				abort();
		for (j = 0; j < c->nredir; j++)
			if (strlen(c->redir[j].target.s) > c->redir[j].target.len)
				abort();
	}
	sh_parse_free(&p);
	return 0;
}
