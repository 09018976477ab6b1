/*
 * decide.h - one tool call through the policy and, when it must be
 * escalated, through the queue: the part every hook dialect shares
 * (Claude Code, Codex, Cursor, Gemini CLI; hook/dialect.h). The dialects
 * only parse their payload and print their answer.
 *
 * Contract:
 * - hook_decide() always fills *d and never allows on error: a missing
 *   folder, an invalid policy, a full queue are denies with a reason.
 * - An escalated call that sbxd can execute (a shell command) is queued
 *   and waited for; the reason then carries the result. An escalated
 *   call sbxd cannot execute (a file write, a read, a fetch, an MCP
 *   tool) is denied at once, pointing the model at the sbx MCP tools.
 * - Once the policy is loaded it arms alarm() to its wait plus 5 s; the
 *   caller installs the SIGALRM handler that answers "deny".
 * - d->reason is owned by the caller (free); NULL only when out of
 *   memory, and the caller then denies with a fixed text.
 */
#ifndef SBX_DECIDE_H
#define SBX_DECIDE_H

#include <stddef.h>
#include <cjson/cJSON.h>

struct hook_call {
	const char *agent;          /* "claude-code", "codex", "cursor", "gemini" */
	const char *tool;           /* tool name in Claude Code's vocabulary */
	const cJSON *input;         /* tool input object; may be NULL */
	const char *cwd;            /* from the payload; may be NULL */
	const char *project_dir;    /* fallback for finding the folder; may be NULL */
	const char *session_id;     /* may be NULL */
	const char *tool_use_id;    /* may be NULL */
	size_t max_reason;          /* bytes of reason the client shows the model */
};

struct hook_decision {
	int allow;                  /* 1 allow, 0 deny */
	char *reason;               /* owned; see above */
};

void hook_decide(const struct hook_call *c, struct hook_decision *d);

#endif
