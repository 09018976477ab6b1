/*
 * claude.c - the Claude Code PreToolUse dialect (`sbx-hook pre`); see
 * dialect.h.
 *
 * MUST deny a wrong event, a missing tool_name and a tool_input that is
 * not an object. Answers allow and deny alike with permissionDecision
 * and its reason (the model reads both).
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
	const char *tool = json_str(p, "tool_name");
	const cJSON *input = cJSON_GetObjectItemCaseSensitive(p, "tool_input");

	if (strcmp(in->event, "PreToolUse") != 0) {
		snprintf(why, whysz, "sbx: sbx-hook pre got event \"%s\", not PreToolUse; check "
		    "the hook registration. The call was not run.",
		    json_str(p, "hook_event_name") ? in->event : "(none)");
		return -1;
	}
	if (!tool || !*tool || (input && !cJSON_IsObject(input))) {
		snprintf(why, whysz, "sbx: the hook input has no tool_name or a malformed "
		    "tool_input; the call was not run.");
		return -1;
	}
	in->call.tool = tool;
	in->call.input = input;
	in->call.cwd = json_str(p, "cwd");
	in->call.project_dir = getenv("CLAUDE_PROJECT_DIR");
	in->call.session_id = json_str(p, "session_id");
	in->call.tool_use_id = json_str(p, "tool_use_id");
	return 0;
}

static int
answer(const struct hook_in *in, int allow, const char *reason)
{
	cJSON *o = cJSON_CreateObject(), *h;
	int rc = -1;

	(void)in;
	if (o && (h = cJSON_AddObjectToObject(o, "hookSpecificOutput")) &&
	    cJSON_AddStringToObject(h, "hookEventName", "PreToolUse") &&
	    cJSON_AddStringToObject(h, "permissionDecision", allow ? "allow" : "deny") &&
	    (!reason || cJSON_AddStringToObject(h, "permissionDecisionReason", reason)))
		rc = dialect_print(o);
	cJSON_Delete(o);
	return rc;
}

const struct dialect dialect_claude = {
	.name = "pre",
	.agent = "claude-code",
	.overrun = "{\"hookSpecificOutput\":{\"hookEventName\":\"PreToolUse\","
	    "\"permissionDecision\":\"deny\",\"permissionDecisionReason\":"
	    "\"sbx: the hook ran out of time; the call was not run. Try again.\"}}\n",
	.parse = parse,
	.answer = answer,
};
