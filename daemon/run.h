/*
 * run.h - a request after its decision: started, opened, closed unrun,
 * expired, finished; the executor's slots of a folder. Internal to sbxd
 * (daemon/request.c, daemon/decision.c, daemon/folder.c).
 *
 * Rules:
 * - MUST NOT start a command before its decision and approval_consumed
 *   records are durably in the audit log.
 * - MUST re-derive the command from the stored request and check its
 *   hash right before exec (run_start), and mark the row started before
 *   the fork: after a crash it is interrupted, never run again.
 */
#ifndef SBX_RUN_H
#define SBX_RUN_H

#include <stdint.h>

#include "common/protocol/queue.h"
#include "common/store/db.h"
#include "daemon/folder.h"

struct policy_limits;

/* Starts the executor for a waiting request (status running, started
 * 0) under limits (NULL: the folder's policy now, loaded once). */
void run_start(struct folder *f, const struct daemon_opts *o, const struct req_row *r,
    const char *approver, int is_auto, const struct policy_limits *limits);
/* The same for a request the caller marked started (store_request_start
 * with `started`) in the transaction that recorded it, when a slot was
 * free (run_free_slots): one commit fewer before the fork. Until the
 * fork, a step that cannot go on (the audit log cannot be written, the
 * stored request does not rebind) undoes the mark first, so the request
 * waits or is refused as in run_start; a crash after that commit leaves
 * it interrupted, never run. */
void run_start_marked(struct folder *f, const struct daemon_opts *o, const struct req_row *r,
    const char *approver, int is_auto, const struct policy_limits *limits,
    int64_t started);
/* Executor slots free in folder f. */
int run_free_slots(const struct folder *f);
/* A request that will not run: the record, then the result the agent
 * reads (status rejected, denied or expired). */
void run_close(struct folder *f, const char *id, const char *hash, enum req_status status,
    const char *approver, const char *reason);
/* A kind that opens, approved: the record and an "approved" result. */
void run_open(struct folder *f, const char *id, const char *hash, const char *session,
    const char *approver, int is_auto);
/* A pending request past its deadline: expired, and the agent told. */
void run_expire(struct folder *f, const char *id, const char *hash, int64_t now);
/* The executor of id is gone: its result into the row (or interrupted). */
void run_record(struct folder *f, const char *id);
/* A finished request without its result file gets one from the row. */
void run_repair(struct folder *f, const char *id);

#endif
