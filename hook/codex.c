/*
 * codex.c - the Codex CLI PreToolUse dialect (`sbx-hook codex`); see
 * dialect.h.
 *
 * Claude Code's payload layout; Codex has no "ask" and takes no answer
 * as allow. MUST deny a wrong event, a missing tool_name and a
 * tool_input that is not an object.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/base/json.h"
#include "hook/dialect.h"

static int
parse(struct hook_in *in, char *why, size_t whysz)
{
	const cJSON *p = in->payload;
	const char *tool;
	const cJSON *input;

	if (strcmp(in->event, "PreToolUse") != 0) {
		snprintf(why, whysz, "sbx: sbx-hook codex got event \"%s\", not PreToolUse; "
		    "check the hook registration. The call was not run.", in->event);
		return -1;
	}
	tool = json_str(p, "tool_name");
	input = cJSON_GetObjectItemCaseSensitive(p, "tool_input");
	if (!tool || !*tool || (input && !cJSON_IsObject(input))) {
		snprintf(why, whysz, "sbx: the hook input has no tool, command or path, or a "
		    "malformed tool_input; the call was not run.");
		return -1;
	}
	in->call.tool = tool;
	in->call.input = input;
	in->call.cwd = json_str(p, "cwd");
	in->call.session_id = json_str(p, "session_id");
	in->call.tool_use_id = json_str(p, "tool_use_id");
	return 0;
}

static int
answer(const struct hook_in *in, int allow, const char *reason)
{
	cJSON *o, *h;
	int rc = -1;

	(void)in;
	if (allow)
		return 0;       /* nothing printed: Codex goes on with the call */
	if ((o = cJSON_CreateObject()) && (h = cJSON_AddObjectToObject(o, "hookSpecificOutput")) &&
	    cJSON_AddStringToObject(h, "hookEventName", "PreToolUse") &&
	    cJSON_AddStringToObject(h, "permissionDecision", "deny") &&
	    cJSON_AddStringToObject(h, "permissionDecisionReason", reason))
		rc = dialect_print(o);
	cJSON_Delete(o);
	return rc;
}

const struct dialect dialect_codex = {
	.name = "codex",
	.agent = "codex",
	.overrun = "{\"hookSpecificOutput\":{\"hookEventName\":\"PreToolUse\","
	    "\"permissionDecision\":\"deny\",\"permissionDecisionReason\":"
	    "\"sbx: the hook ran out of time; the call was not run. Try again.\"}}\n",
	.shape_executed = 1,
	.parse = parse,
	.answer = answer,
};
