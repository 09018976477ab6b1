/*
 * cmd_policy.c - `sbx policy check` and `sbx policy show` (see
 * cmd_policy.h). People, tests and benchmarks use it to ask the engine
 * what it would decide, without an agent.
 *
 * Rules:
 * - MUST judge exactly as the hook does: the context comes from the same
 *   call_ctx_load() (the accepted policy, $TMPDIR, $HOME), and the same
 *   policy_eval() judges; the only difference is where the call comes
 *   from. A policy.json that is valid but not accepted gets what the hook
 *   gives every call then: deny (--unaccepted judges the file as written,
 *   and says so).
 * - Input is capped: CHECK_MAX_LINE bytes per --batch line (longer lines
 *   still get a verdict: escalate), CHECK_MAX_HOOK bytes of hook JSON.
 * - A malformed hook payload gets the verdict the hook would give it
 *   (deny), not an error: exit 0 whenever a verdict was printed.
 */
#include "approver/cmd_policy.h"
#include "common/base/json.h"
#include "common/trust/callctx.h"
#include "policy/policy.h"

#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define CHECK_MAX_LINE  ((size_t)2 << 20)       /* 2 MiB per batch line */
#define CHECK_MAX_HOOK  ((size_t)8 << 20)       /* 8 MiB hook payload */

struct check {
	struct policy *p;
	const char *folder;             /* NULL: none */
	const char *config_dir;
	char cwd[PATH_MAX];
	const char *home;
	const char *tmpdir;             /* as the hook sees it: $TMPDIR or none */
	char denied[700];               /* non-empty: the hook denies every call */
};

/* What the hook answers every call when the policy is not accepted. */
static int
denied_all(const struct check *ck, struct policy_result *r)
{
	if (ck->denied[0] == '\0')
		return 0;
	memset(r, 0, sizeof(*r));
	r->verdict = POLICY_DENY;
	r->risk = POLICY_RISK_HIGH;
	snprintf(r->trigger, sizeof(r->trigger), "tool");
	snprintf(r->rule, sizeof(r->rule), "builtin: policy not accepted");
	snprintf(r->reason, sizeof(r->reason), "the hook denies every call: %.400s",
	    ck->denied);
	return 1;
}

static void
usage(FILE *f)
{
	fprintf(f,
	    "usage: sbx [-C DIR] policy check [--json] [--cwd DIR] [--unaccepted] -- COMMAND...\n"
	    "       sbx [-C DIR] policy check [--unaccepted] --batch FILE|-\n"
	    "       sbx [-C DIR] policy check [--unaccepted] --hook-json FILE|-\n"
	    "       sbx [-C DIR] policy show\n"
	    "\n"
	    "  check        the verdict (allow, escalate, deny), the trigger, the\n"
	    "               rule that decided and why, for one shell command\n"
	    "  --batch      one JSON line per input line (each line a command)\n"
	    "  --hook-json  the verdict for a whole Claude Code hook payload\n"
	    "  --cwd DIR    judge as if run in DIR (default: the project folder)\n"
	    "  --unaccepted judge policy.json as written even when it is not\n"
	    "               accepted (the hook denies every call until it is)\n"
	    "  show         the effective policy: defaults, file, self-protection\n"
	    "\n"
	    "Exit: 0 a verdict was printed, 1 the policy or input cannot be read,\n"
	    "2 usage error.\n");
}

static cJSON *
result_json(const char *command, const char *tool, const struct policy_result *r)
{
	cJSON *o = cJSON_CreateObject(), *f;
	unsigned bit;

	if (o == NULL)
		return NULL;
	if (command != NULL && cJSON_AddStringToObject(o, "command", command) == NULL)
		goto fail;
	if (tool != NULL && cJSON_AddStringToObject(o, "tool", tool) == NULL)
		goto fail;
	if (cJSON_AddStringToObject(o, "verdict", policy_verdict_name(r->verdict)) ==
	    NULL || cJSON_AddStringToObject(o, "trigger", r->trigger) == NULL ||
	    cJSON_AddStringToObject(o, "rule", r->rule) == NULL ||
	    cJSON_AddStringToObject(o, "reason", r->reason) == NULL ||
	    cJSON_AddStringToObject(o, "risk", policy_risk_name(r->risk)) == NULL)
		goto fail;
	f = cJSON_AddArrayToObject(o, "factors");
	if (f == NULL)
		goto fail;
	for (bit = 1; bit != 0 && bit <= r->factors; bit <<= 1)
		if ((r->factors & bit) && policy_factor_name(bit) != NULL &&
		    !cJSON_AddItemToArray(f, cJSON_CreateString(policy_factor_name(bit))))
			goto fail;
	return o;
fail:
	cJSON_Delete(o);
	return NULL;
}

/* Prints o on one line (compact) or pretty; frees it. */
static int
print_json(cJSON *o, int pretty)
{
	char *s;

	if (o == NULL) {
		fprintf(stderr, "sbx: out of memory\n");
		return 1;
	}
	s = pretty ? cJSON_Print(o) : cJSON_PrintUnformatted(o);
	cJSON_Delete(o);
	if (s == NULL) {
		fprintf(stderr, "sbx: out of memory\n");
		return 1;
	}
	printf("%s\n", s);
	free(s);
	return 0;
}

/* What --batch prints for a line it cannot judge (too long, a NUL byte):
 * escalate, as the hook would. */
static int
print_unjudged(const char *line, const char *why)
{
	struct policy_result r;

	memset(&r, 0, sizeof(r));
	r.verdict = POLICY_ESCALATE;
	r.risk = POLICY_RISK_MEDIUM;
	r.factors = POLICY_F_UNKNOWN;
	snprintf(r.trigger, sizeof(r.trigger), "shell");
	snprintf(r.rule, sizeof(r.rule), "builtin: input");
	snprintf(r.reason, sizeof(r.reason), "%s", why);
	return print_json(result_json(line, NULL, &r), 0);
}

static void
eval_command(const struct check *ck, const char *command,
    struct policy_result *r)
{
	struct policy_call call;
	cJSON *in = cJSON_CreateObject();

	memset(&call, 0, sizeof(call));
	if (in == NULL || cJSON_AddStringToObject(in, "command", command) == NULL) {
		cJSON_Delete(in);
		memset(r, 0, sizeof(*r));
		r->verdict = POLICY_DENY;
		snprintf(r->trigger, sizeof(r->trigger), "shell");
		snprintf(r->reason, sizeof(r->reason), "out of memory");
		return;
	}
	call.tool = "Bash";
	call.input = in;
	call.cwd = ck->cwd;
	call.folder = ck->folder;
	call.home = ck->home;
	call.config_dir = ck->config_dir;
	call.tmpdir = ck->tmpdir;
	if (!denied_all(ck, r))
		policy_eval(ck->p, &call, r);
	cJSON_Delete(in);
}

static int
check_one(const struct check *ck, const char *command, int json)
{
	struct policy_result r;
	char fac[256];

	eval_command(ck, command, &r);
	if (json)
		return print_json(result_json(command, NULL, &r), 0);
	policy_factors_text(r.factors, fac, sizeof(fac));
	printf("verdict: %s\n", policy_verdict_name(r.verdict));
	printf("risk:    %s%s%s%s\n", policy_risk_name(r.risk), fac[0] ? " (" : "",
	    fac, fac[0] ? ")" : "");
	printf("trigger: %s\n", r.trigger);
	printf("rule:    %s\n", r.rule);
	printf("reason:  %s\n", r.reason);
	return 0;
}

/* Opens name ("-": stdin) with a buffer of cap + 1 bytes (*buf, the
 * caller frees); NULL, said on stderr, when either fails. */
static FILE *
open_input(const char *name, size_t cap, char **buf)
{
	FILE *f = strcmp(name, "-") == 0 ? stdin : fopen(name, "r");

	if (f == NULL) {
		fprintf(stderr, "sbx: %s: %s\n", name, strerror(errno));
		return NULL;
	}
	if ((*buf = malloc(cap + 1)) == NULL) {
		fprintf(stderr, "sbx: out of memory\n");
		if (f != stdin)
			fclose(f);
		return NULL;
	}
	return f;
}

/* One JSON line per input line; a line over the cap is escalated. */
static int
check_batch(const struct check *ck, const char *name)
{
	char *line = NULL;
	FILE *f = open_input(name, CHECK_MAX_LINE, &line);
	size_t len = 0;
	int c, over = 0, rc = 0, any = 0;

	if (f == NULL)
		return 1;
	for (;;) {
		c = getc(f);
		if (c != EOF && c != '\n') {
			if (len < CHECK_MAX_LINE)
				line[len++] = (char)c;
			else
				over = 1;
			any = 1;
			continue;
		}
		if (c == EOF && !any)
			break;
		line[len] = '\0';
		if (len > 0 && line[len - 1] == '\r')
			line[--len] = '\0';
		if (over) {
			char why[64];

			snprintf(why, sizeof(why), "command longer than %zu bytes", CHECK_MAX_LINE);
			line[64] = '\0';
			if (print_unjudged(line, why) != 0)
				rc = 1;
		} else if (memchr(line, '\0', len) != NULL) {
			if (print_unjudged(line, "command contains a NUL byte") != 0)
				rc = 1;
		} else if (check_one(ck, line, 1) != 0) {
			rc = 1;
		}
		len = 0;
		over = 0;
		any = 0;
		if (c == EOF)
			break;
	}
	if (ferror(f)) {
		fprintf(stderr, "sbx: %s: read error\n", name);
		rc = 1;
	}
	free(line);
	if (f != stdin)
		fclose(f);
	return rc;
}

static int
check_hook(const struct check *ck, const char *name)
{
	char *buf = NULL;
	FILE *f = open_input(name, CHECK_MAX_HOOK, &buf);
	size_t len = 0, n;
	cJSON *root = NULL;
	const cJSON *tool, *input, *cwd;
	enum json_bad bad = JSON_OK;
	struct policy_result r;
	struct policy_call call;
	char why[160];
	int rc = 0;

	if (f == NULL)
		return 1;
	while ((n = fread(buf + len, 1, CHECK_MAX_HOOK + 1 - len, f)) > 0) {
		len += n;
		if (len > CHECK_MAX_HOOK)
			break;
	}
	if (ferror(f)) {
		fprintf(stderr, "sbx: %s: read error\n", name);
		rc = 1;
		goto out;
	}
	memset(&r, 0, sizeof(r));
	memset(&call, 0, sizeof(call));
	/* Read as strictly as the hook does (json_parse_strict): what cJSON
	 * would judge after a \u0000, a duplicate key or trailing data is not
	 * what the client would run. Such a payload is malformed. */
	why[0] = '\0';
	if (len > CHECK_MAX_HOOK)
		root = NULL;
	else
		root = json_parse_strict(buf, len, &bad, why, sizeof(why));
	tool = cJSON_GetObjectItemCaseSensitive(root, "tool_name");
	input = cJSON_GetObjectItemCaseSensitive(root, "tool_input");
	cwd = cJSON_GetObjectItemCaseSensitive(root, "cwd");
	if (!cJSON_IsObject(root) || !cJSON_IsString(tool) ||
	    (input != NULL && !cJSON_IsObject(input))) {
		/* what the hook would answer */
		r.verdict = POLICY_DENY;
		r.risk = POLICY_RISK_HIGH;
		snprintf(r.trigger, sizeof(r.trigger), "tool");
		snprintf(r.rule, sizeof(r.rule), "builtin: input");
		if (len > CHECK_MAX_HOOK)
			snprintf(r.reason, sizeof(r.reason), "hook payload too large");
		else if (!root && bad != JSON_BAD_SYNTAX)
			snprintf(r.reason, sizeof(r.reason), "malformed hook payload: not strict "
			    "JSON (%s)", why);
		else
			snprintf(r.reason, sizeof(r.reason), "malformed hook payload");
		rc = print_json(result_json(NULL, NULL, &r), 0);
		goto out;
	}
	call.tool = tool->valuestring;
	call.input = input;
	call.cwd = cJSON_IsString(cwd) && cwd->valuestring[0] == '/' ?
	    cwd->valuestring : ck->cwd;
	call.folder = ck->folder;
	call.home = ck->home;
	call.config_dir = ck->config_dir;
	call.tmpdir = ck->tmpdir;
	if (!denied_all(ck, &r))
		policy_eval(ck->p, &call, &r);
	{
		const cJSON *cmd = cJSON_GetObjectItemCaseSensitive(input, "command");

		rc = print_json(result_json(cJSON_IsString(cmd) ? cmd->valuestring :
		    NULL, tool->valuestring, &r), 0);
	}
out:
	cJSON_Delete(root);
	free(buf);
	if (f != stdin)
		fclose(f);
	return rc;
}

/* Joins argv[from..] with spaces into a new string (caller frees). */
static char *
join_args(int argc, char **argv, int from)
{
	size_t len = 1, o = 0, n;
	char *s;
	int k;

	for (k = from; k < argc; k++)
		len += strlen(argv[k]) + 1;
	s = malloc(len);
	if (s == NULL)
		return NULL;
	for (k = from; k < argc; k++) {
		n = strlen(argv[k]);
		if (o > 0)
			s[o++] = ' ';
		memcpy(s + o, argv[k], n);
		o += n;
	}
	s[o] = '\0';
	return s;
}

/*
 * The policy and the context, as the hook builds them (call_ctx_load).
 * A valid policy.json that is not accepted: every check answers deny, as
 * the hook would, unless unaccepted (judge the file as written). An
 * invalid one is an error (exit 1): the hook denies every call with it.
 */
static int
load(struct check *ck, const char *folder, const char *config_dir,
    int unaccepted, int show)
{
	struct policy_error err;
	struct call_ctx cx;
	char here[PATH_MAX];

	ck->config_dir = config_dir;
	if (folder != NULL) {
		ck->folder = folder;
		snprintf(ck->cwd, sizeof(ck->cwd), "%s", folder);
		if (call_ctx_load(&cx, folder, config_dir) == 0) {
			ck->p = cx.pol;
			ck->tmpdir = cx.tmpdir;
			ck->home = cx.home;
			return 0;
		}
		ck->tmpdir = cx.tmpdir;
		ck->home = cx.home;
		ck->p = policy_load(folder, config_dir, &err);
		if (ck->p == NULL) {
			fprintf(stderr, "sbx: %s\n", err.msg);
			fprintf(stderr, "sbx: the hook denies every call until this "
			    "is fixed\n");
			return -1;
		}
		if (show)
			fprintf(stderr, "sbx: %s\n", cx.msg);
		else if (unaccepted)
			fprintf(stderr, "sbx: policy.json is not accepted: judging it "
			    "as written; the hook denies every call until it is "
			    "accepted\n");
		else
			snprintf(ck->denied, sizeof(ck->denied), "%s", cx.msg);
		return 0;
	}
	ck->tmpdir = getenv("TMPDIR");
	if (ck->tmpdir != NULL && ck->tmpdir[0] != '/')
		ck->tmpdir = NULL;
	ck->home = getenv("HOME");
	if (ck->home != NULL && ck->home[0] != '/')
		ck->home = NULL;
	if (getcwd(here, sizeof(here)) == NULL) {
		fprintf(stderr, "sbx: cannot find the current directory: %s\n",
		    strerror(errno));
		return -1;
	}
	fprintf(stderr, "sbx: no project folder found: using the built-in "
	    "defaults, with %s as the project\n", here);
	snprintf(ck->cwd, sizeof(ck->cwd), "%s", here);
	ck->folder = ck->cwd;
	ck->p = policy_load_buffer("built-in defaults", policy_default_text(),
	    strlen(policy_default_text()), ck->cwd, config_dir, &err);
	if (ck->p == NULL) {
		fprintf(stderr, "sbx: %s\n", err.msg);
		return -1;
	}
	return 0;
}

static int
cmd_check(int argc, char **argv, struct check *ck)
{
	static const struct option opts[] = {
		{ "help", no_argument, NULL, 'h' }, { "json", no_argument, NULL, 'j' },
		{ "batch", required_argument, NULL, 'b' },
		{ "hook-json", required_argument, NULL, 'k' },
		{ "cwd", required_argument, NULL, 'c' },
		{ "unaccepted", no_argument, NULL, 'u' }, { NULL, 0, NULL, 0 },
	};
	const char *batch = NULL, *hook = NULL, *cwd = NULL;
	int k, json = 0, rc;
	char *command;

	/* "+": the command's own words (rm -rf /) are never options */
	optind = 0;
	while ((k = getopt_long(argc, argv, "+h", opts, NULL)) != -1) {
		if (k == 'j')
			json = 1;
		else if (k == 'u')
			;	/* read by cmd_policy before the policy is loaded */
		else if (k == 'b')
			batch = optarg;
		else if (k == 'k')
			hook = optarg;
		else if (k == 'c')
			cwd = optarg;
		else if (k == 'h') {
			usage(stdout);
			return 0;
		} else {
			usage(stderr);
			return 2;
		}
	}
	k = optind;
	if ((batch != NULL) + (hook != NULL) + (k < argc) != 1) {
		fprintf(stderr, "sbx: policy check: give one of -- COMMAND, --batch "
		    "or --hook-json\n");
		usage(stderr);
		return 2;
	}
	if (cwd != NULL) {
		if (realpath(cwd, ck->cwd) == NULL) {
			fprintf(stderr, "sbx: %s: %s\n", cwd, strerror(errno));
			return 1;
		}
	}
	if (batch != NULL)
		return check_batch(ck, batch);
	if (hook != NULL)
		return check_hook(ck, hook);
	command = join_args(argc, argv, k);
	if (command == NULL) {
		fprintf(stderr, "sbx: out of memory\n");
		return 1;
	}
	rc = check_one(ck, command, json);
	free(command);
	return rc;
}

int
cmd_policy(int argc, char **argv, const char *folder, const char *config_dir)
{
	struct check ck;
	int rc;

	memset(&ck, 0, sizeof(ck));
	if (argc < 2) {
		usage(stderr);
		return 2;
	}
	if (strcmp(argv[1], "-h") == 0 || strcmp(argv[1], "--help") == 0 ||
	    strcmp(argv[1], "help") == 0) {
		usage(stdout);
		return 0;
	}
	if (strcmp(argv[1], "check") != 0 && strcmp(argv[1], "show") != 0) {
		fprintf(stderr, "sbx: policy: unknown sub-command \"%s\"\n", argv[1]);
		usage(stderr);
		return 2;
	}
	if (strcmp(argv[1], "show") == 0 && argc > 2) {
		fprintf(stderr, "sbx: policy show takes no arguments\n");
		return 2;
	}
	/* --help before loading the policy, which may say things on stderr */
	for (rc = 2; rc < argc && strcmp(argv[rc], "--"); rc++)
		if (!strcmp(argv[rc], "--help") || !strcmp(argv[rc], "-h")) {
			usage(stdout);
			return 0;
		}
	{
		int k, unaccepted = 0;

		for (k = 2; k < argc && strcmp(argv[k], "--") != 0; k++)
			if (strcmp(argv[k], "--unaccepted") == 0)
				unaccepted = 1;
		if (load(&ck, folder, config_dir, unaccepted,
		    strcmp(argv[1], "show") == 0) < 0)
			return 1;
	}
	if (strcmp(argv[1], "show") == 0)
		rc = print_json(policy_to_json(ck.p), 1);
	else
		rc = cmd_check(argc - 1, argv + 1, &ck);
	policy_free(ck.p);
	return rc;
}
