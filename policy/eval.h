/*
 * eval.h - judges one tool call by its tool (internal).
 *
 * Layer: eval (see docs/ARCHITECTURE.md). May include policy/evidence.h
 * only; eval.c also includes policy/analyse.h for shell_eval().
 */
#ifndef SBX_POLICY_EVAL_H
#define SBX_POLICY_EVAL_H

#include "policy/evidence.h"

/* Judges ev->call into ev->res (through ev_note): never lowers a verdict. */
void eval_tool(struct ev *ev);

/* The trigger an allowed call of tool is reported under. */
const char *eval_default_trigger(const char *tool);

#endif
