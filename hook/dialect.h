/*
 * dialect.h - the hook dialects of sbx-hook: one table, one hook_run().
 *
 *   sbx-hook pre      Claude Code PreToolUse (hook/claude.c): answers
 *                     hookSpecificOutput.permissionDecision allow/deny.
 *   sbx-hook codex    Codex PreToolUse (Claude Code's layout; tool_name
 *                     Bash, apply_patch or mcp__srv__tool). Allow prints
 *                     nothing, deny prints permissionDecision "deny"
 *                     (Codex has no "ask").                hook/codex.c
 *   sbx-hook cursor   Cursor beforeShellExecution, beforeMCPExecution,
 *                     beforeReadFile: answers {permission, user_message,
 *                     agent_message}.                      hook/cursor.c
 *   sbx-hook gemini   Gemini CLI BeforeTool: {} on allow, {"decision":
 *                     "deny", "reason"} otherwise.         hook/gemini.c
 *
 * hook_run() is the one path every dialect takes: the alarm armed with
 * the dialect's overrun answer, stdin read within SBX_HOOK_MAX_STDIN,
 * the strict parse (hook/dialect.c), the dialect's parse, hook_decide(),
 * the dialect's answer. A dialect only maps its payload onto a
 * hook_call and prints its answer line.
 *
 * Contract (every dialect):
 * - exactly one answer (Codex: none on allow) and exit 0: a crash, a
 *   timeout or another exit status lets some clients run the tool;
 * - a deny with a reason the model can act on for every error, never an
 *   allow: unreadable, oversized or non-strict input, a wrong event, a
 *   missing tool or command;
 * - the answer before the deadline: the alarm prints the dialect's
 *   overrun line (a deny) and exits 0.
 */
#ifndef SBX_DIALECT_H
#define SBX_DIALECT_H

#include <limits.h>
#include <stddef.h>
#include <cjson/cJSON.h>

#include "hook/decide.h"

#define SBX_HOOK_MAX_STDIN  (4 * 1024 * 1024)
#define SBX_HOOK_MAX_REASON 8000    /* the clients inject about 10,000 characters */

/* One call as a dialect's parse step leaves it for hook_run(). */
struct hook_in {
	const cJSON *payload;       /* the strictly parsed stdin (hook_run owns it) */
	const char *event;          /* hook_event_name, "" when absent or not read */
	struct hook_call call;      /* agent and max_reason preset by hook_run */
	cJSON *owned;               /* an input object the dialect built (freed) */
	char name[512];             /* room for a tool name the dialect builds */
	char cwd[PATH_MAX * 2];     /* room for a cwd the dialect builds */
};

struct dialect {
	const char *name;           /* the sbx-hook mode: "pre", "codex", ... */
	const char *agent;          /* hook_call.agent, as the audit log names it */
	const char *overrun;        /* the alarm's answer: one whole line, a deny */
	int shape_executed;         /* the client wraps a deny as "blocked": see
	                               dialect_shape_executed() */
	/*
	 * Maps in->payload onto in->call (tool, input, cwd, ids). Returns 0
	 * to decide, 1 to allow without deciding (the client's own
	 * bookkeeping tools), -1 to deny with the sentence in why.
	 */
	int (*parse)(struct hook_in *in, char *why, size_t whysz);
	/*
	 * Prints the answer line (reason may be NULL on allow). -1 when it
	 * could not: hook_run then prints the overrun line.
	 */
	int (*answer)(const struct hook_in *in, int allow, const char *reason);
};

extern const struct dialect dialect_claude, dialect_codex, dialect_cursor,
    dialect_gemini;

/* The dialect sbx-hook's mode names, or NULL. */
const struct dialect *dialect_find(const char *mode);

/* Runs one hook call in dialect dl on stdin/stdout. Returns the exit
 * code (always 0). */
int hook_run(const struct dialect *dl);

/* Rewrites the deny reason for a command sbxd ran so that it reads well
 * inside a client's "blocked" wrapper (Codex, Gemini CLI). */
void dialect_shape_executed(char **reason);

/* Prints o as a line on stdout and frees it: 0, or -1 when o is NULL,
 * built is 0 (a field could not be added) or the write failed. */
int dialect_print(cJSON *o, int built);

/*
 * Claude Code's PreToolUse layout (hook/claude.c), which Codex shares.
 * claude_call: tool_name, tool_input (an object, or absent), cwd,
 * session_id and tool_use_id onto in->call; -1 with no_tool in why when
 * the tool is missing or tool_input is not an object. claude_answer:
 * hookSpecificOutput.permissionDecision allow or deny, with
 * permissionDecisionReason when reason is not NULL.
 */
int claude_call(struct hook_in *in, const char *no_tool, char *why, size_t whysz);
int claude_answer(const struct hook_in *in, int allow, const char *reason);

#endif
