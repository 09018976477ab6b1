/*
 * sbx-hook - the agent-facing hook: classifies one tool call.
 *
 *   sbx-hook pre     Claude Code (and Codex) PreToolUse: JSON on stdin,
 *                    one JSON answer on stdout, exit 0.
 *
 * MUST answer with exactly one JSON object on stdout and exit 0, or the
 * client may run the tool (a crash, timeout or other exit code fails
 * open there). Every error is a deny with a reason the model can act on.
 * MUST answer before its own deadline: an alarm answers "deny" if the
 * work ever overruns it.
 */
#include <errno.h>
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
#include "common/accept.h"
#include "common/originals.h"
#include "hook/escalate.h"
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

/*
 * Before an allowed Write/Edit/MultiEdit/NotebookEdit changes an existing
 * file, keeps its content (common/originals.h). -1 with msg when it
 * could not: the caller denies rather than lose the original.
 */
static int
keep_original(const char *folder, const char *cwd, const char *tool, const cJSON *input,
    const char *session, char *msg, size_t msgsz)
{
	char path[PATH_MAX], real[PATH_MAX];
	const char *target;
	struct sbx_err err = { "" };
	int sbfd, rc;

	if (strcmp(tool, "Write") && strcmp(tool, "Edit") && strcmp(tool, "MultiEdit") &&
	    strcmp(tool, "NotebookEdit"))
		return 0;
	target = json_str(input, strcmp(tool, "NotebookEdit") ? "file_path" : "notebook_path");
	if (!target || !*target)
		return 0;
	if (xsnprintf(path, sizeof(path), "%s%s%s", target[0] == '/' ? "" : cwd,
	    target[0] == '/' ? "" : "/", target) < 0) {
		snprintf(msg, msgsz, "the path is too long");
		return -1;
	}
	/* A write through a symlink changes its target: keep the target. */
	if (realpath(path, real))
		snprintf(path, sizeof(path), "%s", real);
	if ((sbfd = sandbox_open(folder, &err)) < 0) {
		snprintf(msg, msgsz, "%s", err.msg);
		return -1;
	}
	rc = originals_keep(sbfd, path, tool, session, &err);
	close(sbfd);
	if (rc < 0)
		snprintf(msg, msgsz, "could not keep the original of %.300s (%.200s)", path,
		    err.msg[0] ? err.msg : strerror(errno));
	return rc < 0 ? -1 : 0;
}

static int
hook_pre(void)
{
	char folder[PATH_MAX], cwd[PATH_MAX], config[PATH_MAX], msg_buf[600];
	struct policy_result pr;
	struct policy_call call;
	struct esc_request rq;
	struct esc_outcome eo;
	struct policy *pol = NULL;
	const char *tool, *event, *cwd_in, *envdir, *home, *tmpdir;
	const cJSON *input;
	cJSON *payload = NULL;
	char *text, *msg;
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
	free(text);
	if (!cJSON_IsObject(payload)) {
		cJSON_Delete(payload);
		return deny("sbx: the hook input is not a JSON object; the call was not run.");
	}
	event = json_str(payload, "hook_event_name");
	tool = json_str(payload, "tool_name");
	input = cJSON_GetObjectItemCaseSensitive(payload, "tool_input");
	cwd_in = json_str(payload, "cwd");
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
	/* The folder: nearest .sandbox/ above cwd, else above CLAUDE_PROJECT_DIR. */
	envdir = getenv("CLAUDE_PROJECT_DIR");
	if (!cwd_in || !realpath(cwd_in, cwd)) {
		if (!envdir || !realpath(envdir, cwd)) {
			rc = deny("sbx: the hook input has no usable cwd; the call was not run.");
			goto out;
		}
	}
	if (find_folder(cwd, folder, sizeof(folder)) < 0 &&
	    (!envdir || find_folder(envdir, folder, sizeof(folder)) < 0)) {
		rc = deny("sbx: no .sandbox/ folder above %s; the user must run `sbx init` "
		    "in the project. The call was not run.", cwd);
		goto out;
	}
	if (config_dir(config, sizeof(config)) < 0) {
		rc = deny("sbx: cannot find the sbx config dir; the call was not run.");
		goto out;
	}
	if (!(pol = policy_load_accepted(folder, config, msg_buf, sizeof(msg_buf)))) {
		rc = deny("sbx: the sandbox policy is invalid or not accepted, so every call is "
		    "denied: %s. Ask the user to fix it.", msg_buf);
		goto out;
	}
	/* The wait is bounded by the policy; the alarm stays just above it. */
	alarm((unsigned)policy_limits(pol)->hook_wait_seconds + 5);
	home = getenv("HOME");
	tmpdir = getenv("TMPDIR");
	call = (struct policy_call){ .tool = tool, .input = input, .cwd = cwd,
		.folder = folder, .home = home, .config_dir = config,
		.tmpdir = tmpdir && *tmpdir == '/' ? tmpdir : "/tmp" };
	policy_eval(pol, &call, &pr);
	if (pr.verdict == POLICY_ALLOW) {
		/* Keep what an allowed file tool is about to replace. */
		if (keep_original(folder, cwd, tool, input,
		    json_str(payload, "session_id"), msg_buf, sizeof(msg_buf)) < 0) {
			rc = deny("sbx: %s; the change was not made.", msg_buf);
			goto out;
		}
		rc = answer("allow", pr.reason);
		goto out;
	}
	if (pr.verdict != POLICY_ESCALATE) {
		rc = deny("sbx: denied by policy (%s): %s", pr.rule, pr.reason);
		goto out;
	}
	rq = (struct esc_request){ .folder = folder, .cwd = cwd, .tool = tool,
		.input = input, .session_id = json_str(payload, "session_id"),
		.tool_use_id = json_str(payload, "tool_use_id"), .agent = "claude-code",
		.why = &pr, .limits = policy_limits(pol),
		.wait_seconds = policy_limits(pol)->hook_wait_seconds };
	escalate(&rq, &eo);
	switch (eo.state) {
	case ESC_RESULT:
		msg = result_text(eo.result, folder, SBX_MAX_REASON);
		rc = msg ? answer("deny", msg) : deny("sbx: request %s finished; see "
		    "`sbx show %s`. Do not run it again.", eo.id, eo.id);
		free(msg);
		cJSON_Delete(eo.result);
		break;
	case ESC_PENDING:
		rc = deny("sbx: this call needs a human's approval (%s) and is pending as "
		    "request %s. It will run outside the agent once approved. Do not work "
		    "around it: repeat the exact same call later to receive its result, or "
		    "carry on with other work.", pr.reason, eo.id);
		break;
	default:
		rc = deny("sbx: this call needs a human's approval (%s) but could not be "
		    "queued: %s. The call was not run.", pr.reason, eo.msg);
	}
out:
	policy_free(pol);
	cJSON_Delete(payload);
	return rc;
}

static void
usage(FILE *f)
{
	fprintf(f, "usage: sbx-hook MODE < payload.json\n"
	    "  pre            Claude Code / Codex PreToolUse hook: answers allow, deny, or\n"
	    "                 escalates the call to a human through FOLDER/.sandbox/queue\n"
	    "  session-start  SessionStart hook: tells the model how sbx works and what\n"
	    "                 is pending or finished\n");
}

int
main(int argc, char **argv)
{
	struct sigaction sa = { .sa_handler = on_alarm };

	signal(SIGPIPE, SIG_IGN);
	if (argc == 2 && strcmp(argv[1], "pre") == 0) {
		sigaction(SIGALRM, &sa, NULL);
		/* Safety net only; the normal path answers well before. */
		alarm(60);
		if (sodium_init() < 0)
			return deny("sbx: libsodium failed to initialise; the call was not run.");
		return hook_pre();
	}
	if (argc == 2 && strcmp(argv[1], "session-start") == 0)
		return hook_session_start();
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
