/*
 * sbx-hook - the agent-facing hook: classifies one tool call.
 *
 *   sbx-hook pre     Claude Code PreToolUse: JSON on stdin,
 *                    one JSON answer on stdout, exit 0.
 *   sbx-hook post    PostToolUse: hands sbxd an audit event (hook/post.h);
 *                    always answers {} and exits 0.
 *   sbx-hook codex   Codex CLI PreToolUse      } hook/dialect.c
 *   sbx-hook cursor  Cursor before* events     }
 *
 * MUST answer with exactly one JSON object on stdout and exit 0, or the
 * client may run the tool (a crash, timeout or other exit code fails
 * open there). Every error is a deny with a reason the model can act on.
 * MUST answer before its own deadline: an alarm answers "deny" if the
 * work ever overruns it.
 */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <sodium.h>

#include "common/json.h"
#include "common/queue.h"
#include "common/util.h"
#include "hook/decide.h"
#include "hook/dialect.h"
#include "hook/gemini.h"
#include "hook/post.h"
#include "hook/session.h"
#include "policy/policy.h"

#define SBX_MAX_STDIN  (4 * 1024 * 1024)
#define SBX_MAX_REASON 8000     /* the client injects about 10,000 characters */

static const char overrun_answer[] =
    "{\"hookSpecificOutput\":{\"hookEventName\":\"PreToolUse\","
    "\"permissionDecision\":\"deny\",\"permissionDecisionReason\":"
    "\"sbx: the hook ran out of time; the call was not run. Try again.\"}}\n";

static void
on_alarm(int sig)
{
	(void)sig;
	(void)!write(STDOUT_FILENO, overrun_answer, sizeof(overrun_answer) - 1);
	_exit(0);
}

/* Prints the PreToolUse answer. Returns the exit code (always 0). */
static int
answer(const char *decision, const char *reason)
{
	cJSON *o = cJSON_CreateObject(), *h;
	char *text;

	if (o && (h = cJSON_AddObjectToObject(o, "hookSpecificOutput"))) {
		cJSON_AddStringToObject(h, "hookEventName", "PreToolUse");
		cJSON_AddStringToObject(h, "permissionDecision", decision);
		if (reason)
			cJSON_AddStringToObject(h, "permissionDecisionReason", reason);
	}
	alarm(0);
	text = o ? json_print_line(o) : NULL;
	if (!text || write_all(STDOUT_FILENO, text, strlen(text)) < 0)
		(void)!write(STDOUT_FILENO, overrun_answer, sizeof(overrun_answer) - 1);
	free(text);
	cJSON_Delete(o);
	return 0;
}

__attribute__((format(printf, 1, 2)))
static int
deny(const char *fmt, ...)
{
	char reason[2048];
	char *clean;
	va_list ap;
	int rc;

	va_start(ap, fmt);
	vsnprintf(reason, sizeof(reason), fmt, ap);
	va_end(ap);
	clean = utf8_clean(reason, strlen(reason), sizeof(reason), NULL);
	rc = answer("deny", clean ? clean : "sbx: denied");
	free(clean);
	return rc;
}

static int
hook_pre(void)
{
	struct hook_decision d;
	struct hook_call c;
	const char *tool, *event;
	const cJSON *input;
	cJSON *payload = NULL;
	char *text, why[160];
	size_t len;
	int rc;

	text = fd_read_all(STDIN_FILENO, SBX_MAX_STDIN, &len);
	if (!text)
		return deny("sbx: could not read the hook input (%s); the call was not run.",
		    errno == EFBIG ? "larger than 4 MiB" : strerror(errno));
	/* cJSON ends a string at \u0000 while the client reads on: the hook
	 * would judge "ls" where the client runs "ls\u0000; rm -rf ~". */
	if (json_has_nul(text, len)) {
		free(text);
		return deny("sbx: the hook input contains a \\u0000 escape, which sbx cannot "
		    "judge safely; the call was not run.");
	}
	payload = cJSON_ParseWithLength(text, len);
	if (!cJSON_IsObject(payload)) {
		free(text);
		cJSON_Delete(payload);
		return deny("sbx: the hook input is not a JSON object; the call was not run.");
	}
	/* cJSON is lenient where the client may read differently: duplicate
	 * keys, raw control bytes, invalid UTF-8, trailing data. */
	if (json_strict_check(text, len, why, sizeof(why)) < 0) {
		free(text);
		cJSON_Delete(payload);
		return deny("sbx: the hook input is not strict JSON (%s), which sbx cannot judge "
		    "safely; the call was not run.", why);
	}
	free(text);
	event = json_str(payload, "hook_event_name");
	tool = json_str(payload, "tool_name");
	input = cJSON_GetObjectItemCaseSensitive(payload, "tool_input");
	if (!event || strcmp(event, "PreToolUse") != 0) {
		rc = deny("sbx: sbx-hook pre got event \"%s\", not PreToolUse; check the hook "
		    "registration. The call was not run.", event ? event : "(none)");
		goto out;
	}
	if (!tool || !*tool || (input && !cJSON_IsObject(input))) {
		rc = deny("sbx: the hook input has no tool_name or a malformed tool_input; "
		    "the call was not run.");
		goto out;
	}
	c = (struct hook_call){ .agent = "claude-code", .tool = tool, .input = input,
		.cwd = json_str(payload, "cwd"), .project_dir = getenv("CLAUDE_PROJECT_DIR"),
		.session_id = json_str(payload, "session_id"),
		.tool_use_id = json_str(payload, "tool_use_id"), .max_reason = SBX_MAX_REASON };
	hook_decide(&c, &d);
	if (!d.reason)
		rc = deny("sbx: out of memory; the call was not run.");
	else
		rc = answer(d.allow ? "allow" : "deny", d.reason);
	free(d.reason);
out:
	cJSON_Delete(payload);
	return rc;
}

static void
usage(FILE *f)
{
	fprintf(f, "usage: sbx-hook pre|post|session-start|codex|cursor|gemini < payload.json\n"
	    "  pre            Claude Code PreToolUse hook: answers allow, deny, or\n"
	    "                 escalates the call to a human through FOLDER/.sandbox/queue\n"
	    "  session-start  SessionStart hook: tells the model how sbx works and what\n"
	    "                 is pending or finished\n"
	    "  codex          the same as pre for Codex CLI (deny only, no output on allow)\n"
	    "  cursor         Cursor beforeShellExecution, beforeMCPExecution, beforeReadFile\n"
	    "  gemini         Gemini CLI BeforeTool ({} on allow, decision deny otherwise)\n"
	    "  post           PostToolUse hook: records what the tool did in the audit\n"
	    "                 log; always answers {}\n");
}

int
main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "help", no_argument, NULL, 'h' }, { "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 },
	};
	struct sigaction sa = { .sa_handler = on_alarm };
	int ch;

	signal(SIGPIPE, SIG_IGN);
	/* Options only before the mode; anything else is a usage error (2). */
	while ((ch = getopt_long(argc, argv, "+h", opts, NULL)) != -1) {
		if (ch == 'h') {
			usage(stdout);
			return 0;
		}
		if (ch == 'V') {
			printf("sbx-hook %s\n", SBX_VERSION);
			return 0;
		}
		usage(stderr);
		return 2;
	}
	argv += optind - 1;
	argc -= optind - 1;
	if (argc == 2 && strcmp(argv[1], "pre") == 0) {
		sigaction(SIGALRM, &sa, NULL);
		/* Safety net only; the normal path answers well before. */
		alarm(60);
		if (sodium_init() < 0)
			return deny("sbx: libsodium failed to initialise; the call was not run.");
		return hook_pre();
	}
	if (argc == 2 && strcmp(argv[1], "post") == 0)
		return hook_post();
	if (argc == 2 && strcmp(argv[1], "session-start") == 0)
		return hook_session_start();
	if (argc == 2 && (strcmp(argv[1], "codex") == 0 || strcmp(argv[1], "cursor") == 0))
		return dialect_main(argv[1]);
	if (argc == 2 && strcmp(argv[1], "gemini") == 0)
		return gemini_main();
	if (argc == 2 && (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0)) {
		usage(stdout);
		return 0;
	}
	if (argc == 2 && strcmp(argv[1], "--version") == 0) {
		printf("sbx-hook %s\n", SBX_VERSION);
		return 0;
	}
	usage(stderr);
	/* Exit 2 blocks the call in Claude Code: fail closed on misuse. */
	return 2;
}
