/*
 * dialect.h - the Codex CLI and Cursor hook dialects of sbx-hook.
 *
 *   sbx-hook codex    Codex PreToolUse (Claude Code's layout; tool_name
 *                     Bash, apply_patch or mcp__srv__tool). Allow prints
 *                     nothing, deny prints permissionDecision "deny"
 *                     (Codex has no "ask").
 *   sbx-hook cursor   Cursor beforeShellExecution, beforeMCPExecution,
 *                     beforeReadFile: answers {permission, user_message,
 *                     agent_message}.
 *
 * Both read one JSON payload on stdin, go through hook_decide() and exit
 * 0 with their answer. Like `pre`, they MUST answer deny on any error
 * and before their own deadline (an alarm answers in the dialect).
 */
#ifndef SBX_DIALECT_H
#define SBX_DIALECT_H

/* name is "codex" or "cursor". Returns the exit code (0). */
int dialect_main(const char *name);

/* Rewrites the deny reason for a command sbxd ran so that it reads well
 * inside a client's "blocked" wrapper (Codex, Gemini CLI). */
void dialect_shape_executed(char **reason);

#endif
