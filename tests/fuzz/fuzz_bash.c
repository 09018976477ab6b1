/*
 * fuzz_bash - the analyser: the input is the command of a Bash call,
 * judged by policy_eval() under the default policy (what `sbx init`
 * writes), in a temp project. It must always give a verdict, with a
 * rule and a reason, and never allow what it could not read.
 */
#include "tests/fuzz/fuzz.h"
#include "policy/policy.h"

static struct policy *pol;

int
LLVMFuzzerInitialize(int *argc, char ***argv)
{
	struct policy_error err;
	const char *text = policy_default_text();
	char config[PATH_MAX + 16];

	(void)argc; (void)argv;
	fuzz_tmp();
	snprintf(config, sizeof(config), "%s/config", fuzz_root);
	pol = policy_load_buffer("policy.json", text, strlen(text), fuzz_proj, config, &err);
	if (!pol) {
		fprintf(stderr, "fuzz_bash: default policy: %s\n", err.msg);
		abort();
	}
	return 0;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct policy_result res;
	struct policy_call call;
	char config[PATH_MAX + 16];
	cJSON *input;
	char *cmd;

	/* The hook refuses a NUL in its input; a C string ends there. */
	if (memchr(data, 0, size))
		return -1;
	if (!(cmd = malloc(size + 1)))
		return 0;
	memcpy(cmd, data, size);
	cmd[size] = '\0';
	input = cJSON_CreateObject();
	if (!input || !cJSON_AddStringToObject(input, "command", cmd)) {
		cJSON_Delete(input);
		free(cmd);
		return 0;
	}
	snprintf(config, sizeof(config), "%s/config", fuzz_root);
	call = (struct policy_call){ .tool = "Bash", .input = input, .cwd = fuzz_proj,
		.folder = fuzz_proj, .home = getenv("HOME"), .config_dir = config,
		.tmpdir = getenv("TMPDIR") };
	memset(&res, 0xa5, sizeof(res));
	policy_eval(pol, &call, &res);
	if (res.verdict != POLICY_ALLOW && res.verdict != POLICY_ESCALATE &&
	    res.verdict != POLICY_DENY)
		abort();
	if (!memchr(res.reason, 0, sizeof(res.reason)) || !memchr(res.rule, 0, sizeof(res.rule)))
		abort();
	if (res.verdict == POLICY_ALLOW && (res.factors & POLICY_F_UNKNOWN))
		abort();                /* unknown yet allowed: fails open */
	(void)policy_approvals_needed(pol, &call, &res);
	(void)policy_always_ask(pol, cmd);
	cJSON_Delete(input);
	free(cmd);
	return 0;
}
