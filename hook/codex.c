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
	if (strcmp(in->event, "PreToolUse") != 0) {
		snprintf(why, whysz, "sbx: sbx-hook codex got event \"%s\", not PreToolUse; "
		    "check the hook registration. The call was not run.", in->event);
		return -1;
	}
	return claude_call(in, "sbx: the hook input has no tool, command or path, or a "
	    "malformed tool_input; the call was not run.", why, whysz);
}

/* A deny as Claude Code's; an allow prints nothing: Codex goes on with
 * the call. */
static int
answer(const struct hook_in *in, int allow, const char *reason)
{
	return allow ? 0 : claude_answer(in, 0, reason);
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
