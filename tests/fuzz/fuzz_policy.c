/*
 * fuzz_policy - policy.json loading: the input is the file's text,
 * through policy_load_buffer() (the parser policy_load() uses); a
 * policy it accepts is printed back (policy_to_json) and judges one
 * call of each trigger. A refusal must say why.
 */
#include "tests/fuzz/fuzz.h"
#include "policy/policy.h"

static const char *const calls[][2] = {
	{ "Bash", "{\"command\":\"git push origin main && rm -rf build\"}" },
	{ "Write", "{\"file_path\":\"src/a.c\",\"content\":\"x\"}" },
	{ "Read", "{\"file_path\":\"/etc/shadow\"}" },
	{ "WebFetch", "{\"url\":\"https://example.com/\"}" },
	{ "mcp__srv__tool", "{}" },
};

int
LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc; (void)argv;
	fuzz_tmp();
	return 0;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct policy_error err;
	struct policy_result res;
	struct policy_call call;
	char config[PATH_MAX + 16];
	struct policy *p;
	cJSON *o, *in;
	size_t i;

	snprintf(config, sizeof(config), "%s/config", fuzz_root);
	err.msg[0] = '\0';
	p = policy_load_buffer("policy.json", (const char *)data, size, fuzz_proj, config, &err);
	if (!p) {
		if (!err.msg[0])
			abort();
		return 0;
	}
	if ((o = policy_to_json(p)))
		cJSON_Delete(o);
	for (i = 0; i < sizeof(calls) / sizeof(calls[0]); i++) {
		in = cJSON_Parse(calls[i][1]);
		call = (struct policy_call){ .tool = calls[i][0], .input = in, .cwd = fuzz_proj,
			.folder = fuzz_proj, .home = getenv("HOME"), .config_dir = config };
		policy_eval(p, &call, &res);
		(void)policy_approvals_needed(p, &call, &res);
		cJSON_Delete(in);
	}
	(void)policy_limits(p);
	policy_free(p);
	return 0;
}
