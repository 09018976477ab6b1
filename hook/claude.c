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

int
claude_call(struct hook_in *in, const char *no_tool, char *why, size_t whysz)
{
	const cJSON *p = in->payload;
	const char *tool = json_str(p, "tool_name");
	const cJSON *input = cJSON_GetObjectItemCaseSensitive(p, "tool_input");

	if (!tool || !*tool || (input && !cJSON_IsObject(input))) {
		snprintf(why, whysz, "%s", no_tool);
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
parse(struct hook_in *in, char *why, size_t whysz)
{
	if (strcmp(in->event, "PreToolUse") != 0) {
		snprintf(why, whysz, "sbx: sbx-hook pre got event \"%s\", not PreToolUse; check "
		    "the hook registration. The call was not run.",
		    json_str(in->payload, "hook_event_name") ? in->event : "(none)");
		return -1;
	}
	in->call.project_dir = getenv("CLAUDE_PROJECT_DIR");
	return claude_call(in, "sbx: the hook input has no tool_name or a malformed "
	    "tool_input; the call was not run.", why, whysz);
}

int
claude_answer(const struct hook_in *in, int allow, const char *reason)
{
	cJSON *o = cJSON_CreateObject(), *h;

	(void)in;
	return dialect_print(o, o && (h = cJSON_AddObjectToObject(o, "hookSpecificOutput")) &&
	    cJSON_AddStringToObject(h, "hookEventName", "PreToolUse") &&
	    cJSON_AddStringToObject(h, "permissionDecision", allow ? "allow" : "deny") &&
	    (!reason || cJSON_AddStringToObject(h, "permissionDecisionReason", reason)));
}

const struct dialect dialect_claude = {
	.name = "pre",
	.agent = "claude-code",
	.overrun = "{\"hookSpecificOutput\":{\"hookEventName\":\"PreToolUse\","
	    "\"permissionDecision\":\"deny\",\"permissionDecisionReason\":"
	    "\"sbx: the hook ran out of time; the call was not run. Try again.\"}}\n",
	.parse = parse,
	.answer = claude_answer,
};
