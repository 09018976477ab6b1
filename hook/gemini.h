/*
 * gemini.h - the Gemini CLI hook dialect of sbx-hook.
 *
 *   sbx-hook gemini   Gemini CLI BeforeTool (settings.json "hooks"): reads
 *                     {hook_event_name, tool_name, tool_input, cwd,
 *                     session_id, mcp_context?}, maps Gemini's tools onto
 *                     the policy's vocabulary (run_shell_command -> Bash,
 *                     write_file -> Write, replace -> Edit, read_file ->
 *                     Read, ...), goes through hook_decide() and answers
 *                     {} on allow (Gemini goes on with its own checks) or
 *                     {"decision": "deny", "reason": "..."}.
 *
 * MUST answer deny on any error and before its own deadline, and exit 0:
 * Gemini treats any exit status but 0 and 2 as a warning and runs the
 * tool. An unknown tool goes to the policy by its own name (escalated,
 * so denied with a pointer to sbx-mcp).
 */
#ifndef SBX_GEMINI_H
#define SBX_GEMINI_H

/* Returns the exit code (0). */
int gemini_main(void);

#endif
