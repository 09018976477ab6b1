/*
 * store.h - the statements sbxd runs on state.db (common/store/db.h opens it):
 * one definition of each, and the transactions that move a request.
 *
 * Rules:
 * - sbxd is the only writer (the hook never links this: no SQLite
 *   there); every write of a request's status goes through here.
 * - The approver (sbx) reads through the read-only view below: it opens
 *   state.db with store_open_ro() and never writes it.
 * - A decision is consumed (store_nonce_use) in the same transaction
 *   (store_begin .. store_commit) that changes the request's status.
 * - Functions return what they say, -1 on a database error (the message
 *   is sqlite3_errmsg(db)), -2 on a constraint (a replayed nonce, an id
 *   that exists). Strings passed in are copied; none are kept.
 */
#ifndef SBX_STORE_H
#define SBX_STORE_H

#include <stddef.h>
#include <stdint.h>
#include <sqlite3.h>

#include "common/base/util.h"
#include "common/protocol/queue.h"

struct audit_checkpoint;

/* The audit log's signed head (table audit_head, written by sbxd, read
 * by `sbx audit verify`): 1 and *c, 0 when there is none, -1 when it
 * cannot be read or is malformed. store_audit_head_set: 0 or -1. */
int store_audit_head(sqlite3 *db, struct audit_checkpoint *c);
int store_audit_head_set(sqlite3 *db, const struct audit_checkpoint *c);

/* The audit log's tables (audit_head, audit_intents, audit_failures),
 * created when missing: 0, or -1 with err. */
int store_audit_schema(sqlite3 *db, struct sbx_err *err);
/* A record committed with a state change, before it is in the log:
 * 0 or -1. data is the record's JSON text; time in ms. */
int store_intent_add(sqlite3 *db, const char *event, const char *request,
    const char *session, const char *actor, const char *data, int64_t time_ms);
/* One waiting record (strings borrowed for the callback). */
struct store_intent {
	int64_t id;
	const char *event, *request, *session, *actor, *data;
};
/* Calls fn for each record after id `after`, oldest first: 0, or -1 when
 * they cannot be read. */
int store_intents_each(sqlite3 *db, int64_t after,
    void (*fn)(void *ctx, const struct store_intent *in), void *ctx);
/* Deletes the records up to id `upto`: 0, or -1. */
int store_intents_purge(sqlite3 *db, int64_t upto);
/* Counts one record that could not be written, at time now_ms. */
void store_audit_failure(sqlite3 *db, int64_t now_ms);

/* ---- the read-only view (sbx) ------------------------------------- */

/* FOLDER/.sandbox/state.db opened read-only; NULL with err. Closed with
 * db_close(). */
sqlite3 *store_open_ro(const char *folder, struct sbx_err *err);

/* Requests whose id starts with prefix: how many (0, 1, or 2 for "more
 * than one"), the first into id; -1 on error. */
int store_request_by_prefix(sqlite3 *db, const char *prefix, char id[SBX_ID_LEN + 1]);

/* One remembered rule as `sbx rules` lists it (strings borrowed for the
 * callback). */
struct store_rule_info {
	int64_t id, created, expires, uses, last_used;
	const char *scope, *match, *tool, *approver;
	int risk;
	unsigned factors;
};
/* Calls fn for every rule, oldest first: the count, or -1. */
int store_rules_each(sqlite3 *db, void (*fn)(void *ctx, const struct store_rule_info *r),
    void *ctx);

/* The audit index (common/store/audit_index.h) for requests whose id starts
 * with req, in one read transaction: start() hears the segment number
 * and offset the index covers up to, then row() each indexed record in
 * order; either returns -1 to stop. 0 when all were heard, -1 when the
 * index cannot be read or a callback stopped. */
struct store_index_row {
	int64_t seq, off, len;
	int seg;
	const char *request;
};
int store_audit_index(sqlite3 *db, const char *req, int (*start)(void *ctx, int seg,
    int64_t off), int (*row)(void *ctx, const struct store_index_row *r), void *ctx);

/* Audit records that could not be written (audit_failures): 0 and the
 * count and last time (0 when none), or -1. */
int store_audit_failures(sqlite3 *db, int64_t *count, int64_t *last);
/* Records that wait in state.db for the audit log (audit_intents), or -1. */
int64_t store_intents_count(sqlite3 *db);
/* Of those, the ones with an id above id (the highest the log holds), or -1. */
int64_t store_intents_above(sqlite3 *db, int64_t id);

/* ---- sbxd ------------------------------------------------------------ */

/* Columns added since the first state.db (the rules' signed decision). */
void store_upgrade(sqlite3 *db);

/* BEGIN IMMEDIATE / COMMIT: 0 or -1; store_rollback never fails. */
int store_begin(sqlite3 *db);
int store_commit(sqlite3 *db);
void store_rollback(sqlite3 *db);
/* Group commit: SAVEPOINT / RELEASE / ROLLBACK TO (then RELEASE) for one
 * request inside the batch's transaction. 0 or -1; rollback never fails. */
int store_savepoint(sqlite3 *db);
int store_release(sqlite3 *db);
void store_rollback_to(sqlite3 *db);

/* A new request's row, with its first status. */
struct store_request {
	const char *id, *hash, *tool, *command, *input, *cwd, *session, *agent;
	const char *trigger, *rule, *reason;
	enum req_status status;
	const char *deny_reason, *approver;
	int64_t created, expires, decided;
	int is_auto, approvals_needed;
};
/* 1, -2 when the id exists, -1. */
int store_request_insert(sqlite3 *db, const struct store_request *r);

/* Requests created since `since` (at most limit counted), and pending
 * requests (at most limit): the rate limits, bounded work. -1 on error. */
int64_t store_count_recent(sqlite3 *db, int64_t since, int64_t limit);
int64_t store_count_pending(sqlite3 *db, int64_t limit);

/* The newest policy acceptance time sbxd used (policy_seen): 0 and *t
 * (-1 when none yet), or -1. store_policy_seen_set records a newer one. */
int store_policy_seen(sqlite3 *db, int64_t *t);
int store_policy_seen_set(sqlite3 *db, int64_t t);

/* A remembered rule as stored (strings owned: store_rule_free). */
struct store_rule {
	char *scope, *prefix, *hash, *approver, *decision, *tool, *command, *key_id;
	int64_t created, expires;
	int risk;
	unsigned factors;
};
/* 1 found, 0 not, -1. */
int store_rule_get(sqlite3 *db, int64_t id, struct store_rule *r);
void store_rule_free(struct store_rule *r);
/* A rule to add (strings may be NULL, borrowed). */
struct store_new_rule {
	const char *scope, *hash, *prefix, *tool, *command, *approver, *key_id;
	const char *decision;       /* the approver's signed decision (JSON) */
	int64_t created, expires;
	int risk;
	unsigned factors;
};
/* 1 or -1. */
int store_rule_add(sqlite3 *db, const struct store_new_rule *r);
/* 1 removed, 0 no such rule, -1. */
int store_rule_remove(sqlite3 *db, int64_t id);
/* Counts one use of a rule: 1 or -1. */
int store_rule_used(sqlite3 *db, int64_t id, int64_t now);

/* Consumes a decision's nonce: 1, -2 when it was used (replay), -1. */
int store_nonce_use(sqlite3 *db, const char *nonce, const char *request, int64_t now);
/* Dual control: one approval by a key: 1, -2 when that key approved
 * already, -1. store_approval_count: the approvals so far or -1. */
int store_approval_add(sqlite3 *db, const char *request, const char *key_id,
    const char *approver, int64_t now);
int store_approval_count(sqlite3 *db, const char *request);

/* 1 when the request is pending past its deadline, 0 if not, -1. */
int store_request_expired(sqlite3 *db, const char *id, int64_t now);

/* A pending request decided: its new status, approver(s), key, time and
 * the deny reason (NULL when approved). The number of rows changed (1
 * when it was pending) or -1. */
int store_request_decide(sqlite3 *db, const char *id, enum req_status status,
    const char *approvers, const char *key_id, int64_t now, const char *deny_reason);
/* Waiting (running, started 0) -> rejected with why: rows changed or -1. */
int store_request_refuse(sqlite3 *db, const char *id, int64_t now, const char *why);
/* Waiting -> started at now: rows changed (1) or -1. */
int store_request_start(sqlite3 *db, const char *id, int64_t now);
/* Undoes store_request_start(db, id, started) while nothing was forked:
 * the request waits to run again (started 0). 1 when the row changed. */
int store_request_unstart(sqlite3 *db, const char *id, int64_t started);
/* The final status of a request that ran; exit_code < 0 leaves it unset.
 * Rows changed or -1. */
int store_request_finish(sqlite3 *db, const char *id, enum req_status status,
    int64_t now, int64_t exit_code, int64_t sig, int64_t duration_ms);
/* Any -> status at now (a run that could not start): rows changed or -1. */
int store_request_close(sqlite3 *db, const char *id, enum req_status status, int64_t now);
/* Pending -> expired: rows changed (1 when it was pending) or -1. */
int store_request_expire(sqlite3 *db, const char *id, int64_t now);

/* 1 when the request needs no result yet (pending, or approved and not
 * started) or is unknown (nothing to repair), 0 when it needs one. */
int store_request_unfinished(sqlite3 *db, const char *id);

struct store_idhash {
	char id[SBX_ID_LEN + 1];
	char hash[2 * SBX_HASH_LEN + 1];
};
/* Every pending request past its deadline: the count and *out (caller
 * frees), or -1. Collected before any of them is changed. */
int store_expired_list(sqlite3 *db, int64_t now, struct store_idhash **out);
/* Up to max requests waiting to start, oldest decision first: count. */
int store_waiting_list(sqlite3 *db, int max, char ids[][SBX_ID_LEN + 1]);
/* The earliest expiry of a pending request (seconds), 0 when none. */
int64_t store_next_expiry(sqlite3 *db);
/* Gives back the connection's cache (sbxd, between wakes: 1,000 idle
 * folders then hold no pages). */
void store_release_memory(sqlite3 *db);
/* A pending request to announce as expiring (strings borrowed). */
struct store_expiring {
	const char *id, *tool, *what;
	int64_t expires;
};
/* Calls fn for each pending request whose expiry notice is due in
 * (since, now]: within warn seconds of its expiry and past half its time,
 * not expired yet. The count, or -1. */
int store_expiring_each(sqlite3 *db, int64_t warn, int64_t since, int64_t now,
    void (*fn)(void *ctx, const struct store_expiring *e), void *ctx);
/* The next such moment after `after` (seconds), 0 when none. */
int64_t store_expiring_next(sqlite3 *db, int64_t warn, int64_t after);

#endif
