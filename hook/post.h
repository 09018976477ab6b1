/*
 * post.h - `sbx-hook post`: the PostToolUse hook. It records what the
 * agent actually did by handing sbxd an event file for the audit log
 * (.sandbox/queue/events/ID.json, written by atomic rename): for file
 * tools the path and BLAKE2b-256 hashes of the file before (from the
 * original content the client reports, else from the original that
 * `sbx-hook pre` kept in queue/originals/) and after the change; for Bash
 * the command, exit status (when reported) and `interrupted`.
 *
 * MUST never block for long (an alarm bounds it) and never fail the tool:
 * always prints "{}" and exits 0, whatever happens.
 * MUST write only into .sandbox/queue/.
 */
#ifndef SBX_POST_H
#define SBX_POST_H

/* Returns the exit code: always 0. */
int hook_post(void);

#endif
