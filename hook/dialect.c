/*
 * dialect.c - Codex and Cursor payloads and answers; see dialect.h.
 *
 * MUST print exactly one answer (for Codex: none on allow) and exit 0.
 * MUST deny whatever it cannot parse: a wrong event, a missing command,
 * a tool_input that is neither an object nor JSON text of one.
 */
#include <errno.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <sodium.h>

#include "common/json.h"
#include "common/util.h"
#include "hook/decide.h"
#include "hook/dialect.h"

#define SBX_MAX_STDIN   (4 * 1024 * 1024)
#define SBX_MAX_REASON  8000
#define SBX_USER_MSG    300     /* Cursor shows user_message to the person */

enum dialect { D_CODEX, D_CURSOR };

static const char codex_overrun[] =
    "{\"hookSpecificOutput\":{\"hookEventName\":\"PreToolUse\","
    "\"permissionDecision\":\"deny\",\"permissionDecisionReason\":"
    "\"sbx: the hook ran out of time; the call was not run. Try again.\"}}\n";
static const char cursor_overrun[] =
    "{\"permission\":\"deny\",\"user_message\":\"sbx: the hook ran out of time\","
    "\"agent_message\":\"sbx: the hook ran out of time; the call was not run. "
    "Try again.\"}\n";
static volatile sig_atomic_t overrun_is_cursor;

static void
on_alarm(int sig)
{
	(void)sig;
	if (overrun_is_cursor)
		(void)!write(STDOUT_FILENO, cursor_overrun, sizeof(cursor_overrun) - 1);
	else
		(void)!write(STDOUT_FILENO, codex_overrun, sizeof(codex_overrun) - 1);
	_exit(0);
}

/* Prints an answer in the dialect; reason may be NULL on allow. */
static int
answer(enum dialect dl, const char *event, int allow, const char *reason)
{
	char user[SBX_USER_MSG + 1];
	cJSON *o = NULL, *h;
	char *text = NULL;
	size_t n;

	alarm(0);
	if (dl == D_CODEX && allow)
		return 0;       /* nothing printed: Codex goes on with the call */
	if (!(o = cJSON_CreateObject()))
		goto fail;
	if (dl == D_CODEX) {
		if (!(h = cJSON_AddObjectToObject(o, "hookSpecificOutput")) ||
		    !cJSON_AddStringToObject(h, "hookEventName", "PreToolUse") ||
		    !cJSON_AddStringToObject(h, "permissionDecision", "deny") ||
		    !cJSON_AddStringToObject(h, "permissionDecisionReason", reason))
			goto fail;
	} else {
		if (!cJSON_AddStringToObject(o, "permission", allow ? "allow" : "deny"))
			goto fail;
		/* beforeReadFile takes the permission only. */
		if (!allow && strcmp(event, "beforeReadFile") != 0) {
			n = strcspn(reason, "\n");
			if (n > SBX_USER_MSG)
				n = SBX_USER_MSG;
			memcpy(user, reason, n);
			user[n] = '\0';
			char *u = utf8_clean(user, n, n, NULL);
			if (!u || !cJSON_AddStringToObject(o, "user_message", u)) {
				free(u);
				goto fail;
			}
			free(u);
			if (!cJSON_AddStringToObject(o, "agent_message", reason))
				goto fail;
		}
	}
	if (!(text = json_print_line(o)) || write_all(STDOUT_FILENO, text, strlen(text)) < 0)
		goto fail;
	free(text);
	cJSON_Delete(o);
	return 0;
fail:
	free(text);
	cJSON_Delete(o);
	on_alarm(0);
	return 0;
}

__attribute__((format(printf, 3, 4)))
static int
deny(enum dialect dl, const char *event, const char *fmt, ...)
{
	char reason[2048];
	char *clean;
	va_list ap;
	int rc;

	va_start(ap, fmt);
	vsnprintf(reason, sizeof(reason), fmt, ap);
	va_end(ap);
	clean = utf8_clean(reason, strlen(reason), sizeof(reason), NULL);
	rc = answer(dl, event, 0, clean ? clean : "sbx: denied");
	free(clean);
	return rc;
}

/*
 * Cursor names an MCP tool without its server; the server is "sbx" when
 * the server's command is sbx-mcp, else "cursor" (so policy rules can
 * say mcp__cursor__*). Writes "mcp__SERVER__TOOL" into out.
 */
static int
cursor_mcp_name(const cJSON *payload, const char *tool, char *out, size_t outsz)
{
	const char *server = json_str(payload, "server");
	const char *cmd = json_str(payload, "command");
	char prog[256];
	const char *base;
	size_t n;

	if (!server && cmd) {
		n = strcspn(cmd, " \t");
		if (n < sizeof(prog)) {
			memcpy(prog, cmd, n);
			prog[n] = '\0';
			base = strrchr(prog, '/');
			if (strcmp(base ? base + 1 : prog, "sbx-mcp") == 0)
				server = "sbx";
		}
	}
	return xsnprintf(out, outsz, "mcp__%s__%s", server ? server : "cursor", tool);
}

/*
 * Codex shows a deny as "Command blocked by PreToolUse hook: REASON.
 * Command: CMD" (Gemini CLI as "Tool execution blocked: REASON"). For a
 * command sbxd ran, "blocked" alone would read as "it did not run": say
 * first that it was blocked here only because sbx already ran it, and
 * close the output with a line of its own so that Codex's ". Command: ..."
 * cannot be taken for part of it. Replaces *reason; leaves it as it is
 * when it is not such a result.
 */
void
dialect_shape_executed(char **reason)
{
	static const char lead[] = "sbx: approved by ";
	static const char pre[] = "it was blocked here only because sbx ALREADY RAN IT for "
	    "you, outside the agent: ";
	const char *id = strstr(*reason, " as request ");
	char idbuf[40] = "", tail[96], *out;
	size_t n, idn;

	if (strncmp(*reason, lead, strlen(lead)) != 0 || !strstr(*reason, "ALREADY EXECUTED"))
		return;
	if (id) {
		id += strlen(" as request ");
		idn = strspn(id, "0123456789abcdef");
		if (idn < sizeof(idbuf)) {
			memcpy(idbuf, id, idn);
			idbuf[idn] = '\0';
		}
	}
	snprintf(tail, sizeof(tail), "\n--- end of the result of sbx request %s ---", idbuf);
	n = strlen(pre) + strlen(*reason) - 5 + strlen(tail) + 1;
	if (!(out = malloc(n)))
		return;
	snprintf(out, n, "%s%s%s", pre, *reason + 5, tail);
	free(*reason);
	*reason = out;
}

static int
run(enum dialect dl)
{
	struct hook_decision d = { 0, NULL };
	struct hook_call c = { .max_reason = SBX_MAX_REASON };
	const char *event, *tool = NULL, *s;
	const cJSON *roots, *root0;
	cJSON *payload = NULL, *input = NULL, *owned = NULL;
	char mcp_name[512], why[160];
	char *text;
	size_t len;
	int rc;

	text = fd_read_all(STDIN_FILENO, SBX_MAX_STDIN, &len);
	if (!text)
		return deny(dl, "", "sbx: could not read the hook input (%s); the call was not "
		    "run.", errno == EFBIG ? "larger than 4 MiB" : strerror(errno));
	/* cJSON ends a string at \u0000 while the client reads on. */
	if (json_has_nul(text, len)) {
		free(text);
		return deny(dl, "", "sbx: the hook input contains a \\u0000 escape, which sbx "
		    "cannot judge safely; the call was not run.");
	}
	payload = cJSON_ParseWithLength(text, len);
	if (!cJSON_IsObject(payload)) {
		free(text);
		cJSON_Delete(payload);
		return deny(dl, "", "sbx: the hook input is not a JSON object; the call was not "
		    "run.");
	}
	if (json_strict_check(text, len, why, sizeof(why)) < 0) {
		free(text);
		cJSON_Delete(payload);
		return deny(dl, "", "sbx: the hook input is not strict JSON (%s), which sbx "
		    "cannot judge safely; the call was not run.", why);
	}
	free(text);
	event = json_str(payload, "hook_event_name");
	if (!event)
		event = "";
	c.cwd = json_str(payload, "cwd");
	if (dl == D_CODEX) {
		if (strcmp(event, "PreToolUse") != 0) {
			rc = deny(dl, event, "sbx: sbx-hook codex got event \"%s\", not PreToolUse; "
			    "check the hook registration. The call was not run.", event);
			goto out;
		}
		tool = json_str(payload, "tool_name");
		input = cJSON_GetObjectItemCaseSensitive(payload, "tool_input");
		c.agent = "codex";
		c.session_id = json_str(payload, "session_id");
		c.tool_use_id = json_str(payload, "tool_use_id");
	} else {
		c.agent = "cursor";
		c.session_id = json_str(payload, "conversation_id");
		c.tool_use_id = json_str(payload, "generation_id");
		roots = cJSON_GetObjectItemCaseSensitive(payload, "workspace_roots");
		root0 = cJSON_IsArray(roots) ? cJSON_GetArrayItem(roots, 0) : NULL;
		c.project_dir = cJSON_IsString(root0) ? root0->valuestring : NULL;
		if (!c.cwd)
			c.cwd = c.project_dir;
		owned = cJSON_CreateObject();
		if (!owned) {
			rc = deny(dl, event, "sbx: out of memory; the call was not run.");
			goto out;
		}
		if (strcmp(event, "beforeShellExecution") == 0) {
			tool = "Bash";
			if ((s = json_str(payload, "command")))
				cJSON_AddStringToObject(owned, "command", s);
			input = owned;
		} else if (strcmp(event, "beforeReadFile") == 0) {
			tool = "Read";
			if ((s = json_str(payload, "file_path")))
				cJSON_AddStringToObject(owned, "file_path", s);
			input = owned;
		} else if (strcmp(event, "beforeMCPExecution") == 0) {
			cJSON_Delete(owned);
			owned = NULL;
			input = cJSON_GetObjectItemCaseSensitive(payload, "tool_input");
			/* Cursor sends the arguments as JSON text or as an object. */
			if (cJSON_IsString(input)) {
				if (json_strict_check(input->valuestring, strlen(input->valuestring),
				    why, sizeof(why)) < 0) {
					rc = deny(dl, event, "sbx: the MCP tool_input is not strict "
					    "JSON (%s); the call was not run.", why);
					goto out;
				}
				owned = cJSON_ParseWithLength(input->valuestring,
				    strlen(input->valuestring));
				input = owned;
			}
			if ((s = json_str(payload, "tool_name")) && *s &&
			    cursor_mcp_name(payload, s, mcp_name, sizeof(mcp_name)) >= 0)
				tool = mcp_name;
		} else {
			rc = deny(dl, event, "sbx: sbx-hook cursor got event \"%s\"; it handles "
			    "beforeShellExecution, beforeMCPExecution and beforeReadFile. The call "
			    "was not run.", event);
			goto out;
		}
		if (input == owned && tool && strcmp(tool, "Bash") == 0 &&
		    !json_str(input, "command"))
			tool = NULL;
		if (input == owned && tool && strcmp(tool, "Read") == 0 &&
		    !json_str(input, "file_path"))
			tool = NULL;
	}
	if (!tool || !*tool || (input && !cJSON_IsObject(input))) {
		rc = deny(dl, event, "sbx: the hook input has no tool, command or path, or a "
		    "malformed tool_input; the call was not run.");
		goto out;
	}
	c.tool = tool;
	c.input = input;
	hook_decide(&c, &d);
	if (dl == D_CODEX && !d.allow && d.reason)
		dialect_shape_executed(&d.reason);
	rc = d.reason ? answer(dl, event, d.allow, d.reason)
	    : deny(dl, event, "sbx: out of memory; the call was not run.");
	free(d.reason);
out:
	cJSON_Delete(owned);
	cJSON_Delete(payload);
	return rc;
}

int
dialect_main(const char *name)
{
	struct sigaction sa = { .sa_handler = on_alarm };
	enum dialect dl = strcmp(name, "cursor") == 0 ? D_CURSOR : D_CODEX;

	overrun_is_cursor = dl == D_CURSOR;
	sigaction(SIGALRM, &sa, NULL);
	/* Safety net only; hook_decide re-arms it from the policy. */
	alarm(60);
	if (sodium_init() < 0)
		return deny(dl, "", "sbx: libsodium failed to initialise; the call was not run.");
	return run(dl);
}
