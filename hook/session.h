/*
 * session.h - the SessionStart hook: context for the model.
 */
#ifndef SBX_SESSION_H
#define SBX_SESSION_H

/* Reads the SessionStart payload on stdin, prints the answer; returns 0. */
int hook_session_start(void);

#endif
