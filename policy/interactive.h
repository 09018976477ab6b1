/*
 * interactive.h - commands that leave a program reading commands from
 * its input (internal to the shell analyser).
 *
 * Why: Codex's write_stdin sends text into a running exec_command
 * session without any PreToolUse call, so whatever starts a shell, an
 * interpreter's prompt or a debugger hands the agent an unchecked
 * channel. Such commands are escalated, even with a script named.
 */
#ifndef SBX_POLICY_INTERACTIVE_H
#define SBX_POLICY_INTERACTIVE_H

#include "policy/analyse.h"

/* Notes an escalation when v (program `name`) stays interactive: a REPL
 * flag, a shell reading its commands from stdin, a debugger prompt.
 * optarg: its short options that take a value (what follows one in a
 * cluster is the value). Never lowers a verdict. */
void an_interactive(struct ev *ev, struct cmdv *v, const char *name,
    const char *optarg);

#endif
