/*
 * cursor.c - the Cursor dialect (`sbx-hook cursor`): beforeShellExecution,
 * beforeMCPExecution, beforeReadFile; see dialect.h.
 *
 * MUST deny another event, a missing command or path, and MCP arguments
 * that are neither an object nor strict JSON text of one.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/base/json.h"
#include "common/base/util.h"
#include "hook/dialect.h"

#define SBX_USER_MSG 300        /* Cursor shows user_message to the person */

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

/* Cursor's beforeMCPExecution: the arguments come as JSON text or an object. */
static int
parse_mcp(struct hook_in *in, char *why, size_t whysz)
{
	const cJSON *input = cJSON_GetObjectItemCaseSensitive(in->payload, "tool_input");
	const char *s;
	char strict[160];

	if (cJSON_IsString(input)) {
		if (json_strict_check(input->valuestring, strlen(input->valuestring), strict,
		    sizeof(strict)) < 0) {
			snprintf(why, whysz, "sbx: the MCP tool_input is not strict JSON (%s); the "
			    "call was not run.", strict);
			return -1;
		}
		in->owned = cJSON_ParseWithLength(input->valuestring, strlen(input->valuestring));
		input = in->owned;
	}
	in->call.input = input;
	if ((s = json_str(in->payload, "tool_name")) && *s &&
	    cursor_mcp_name(in->payload, s, in->name, sizeof(in->name)) >= 0)
		in->call.tool = in->name;
	return 0;
}

static int
parse(struct hook_in *in, char *why, size_t whysz)
{
	const cJSON *p = in->payload, *roots, *root0;
	const char *s, *key;
	struct hook_call *c = &in->call;

	c->cwd = json_str(p, "cwd");
	c->session_id = json_str(p, "conversation_id");
	c->tool_use_id = json_str(p, "generation_id");
	roots = cJSON_GetObjectItemCaseSensitive(p, "workspace_roots");
	root0 = cJSON_IsArray(roots) ? cJSON_GetArrayItem(roots, 0) : NULL;
	c->project_dir = cJSON_IsString(root0) ? root0->valuestring : NULL;
	if (!c->cwd)
		c->cwd = c->project_dir;
	if (strcmp(in->event, "beforeMCPExecution") == 0) {
		if (parse_mcp(in, why, whysz) < 0)
			return -1;
	} else if (strcmp(in->event, "beforeShellExecution") == 0 ||
	    strcmp(in->event, "beforeReadFile") == 0) {
		/* the policy's view: Bash {command} or Read {file_path} */
		key = in->event[6] == 'S' ? "command" : "file_path";
		if (!(in->owned = cJSON_CreateObject())) {
			snprintf(why, whysz, "sbx: out of memory; the call was not run.");
			return -1;
		}
		if ((s = json_str(p, key))) {
			cJSON_AddStringToObject(in->owned, key, s);
			c->tool = in->event[6] == 'S' ? "Bash" : "Read";
		}
		c->input = in->owned;
	} else {
		snprintf(why, whysz, "sbx: sbx-hook cursor got event \"%s\"; it handles "
		    "beforeShellExecution, beforeMCPExecution and beforeReadFile. The call was "
		    "not run.", in->event);
		return -1;
	}
	if (!c->tool || !*c->tool || (c->input && !cJSON_IsObject(c->input))) {
		snprintf(why, whysz, "sbx: the hook input has no tool, command or path, or a "
		    "malformed tool_input; the call was not run.");
		return -1;
	}
	return 0;
}

static int
answer(const struct hook_in *in, int allow, const char *reason)
{
	char user[SBX_USER_MSG + 1], *u = NULL;
	cJSON *o = cJSON_CreateObject();
	int built, rc;
	size_t n;

	built = o && cJSON_AddStringToObject(o, "permission", allow ? "allow" : "deny");
	/* beforeReadFile takes the permission only. */
	if (built && !allow && strcmp(in->event, "beforeReadFile") != 0) {
		n = strcspn(reason, "\n");
		if (n > SBX_USER_MSG)
			n = SBX_USER_MSG;
		memcpy(user, reason, n);
		user[n] = '\0';
		built = (u = utf8_clean(user, n, n, NULL)) &&
		    cJSON_AddStringToObject(o, "user_message", u) &&
		    cJSON_AddStringToObject(o, "agent_message", reason);
	}
	rc = dialect_print(o, built);
	free(u);
	return rc;
}

const struct dialect dialect_cursor = {
	.name = "cursor",
	.agent = "cursor",
	.overrun = "{\"permission\":\"deny\",\"user_message\":\"sbx: the hook ran out of time\","
	    "\"agent_message\":\"sbx: the hook ran out of time; the call was not run. "
	    "Try again.\"}\n",
	.parse = parse,
	.answer = answer,
};
