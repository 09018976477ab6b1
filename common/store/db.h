/*
 * db.h - the state database, FOLDER/.sandbox/state.db (SQLite, WAL).
 *
 * sbxd is its only writer (db_open with writable=1); the approver CLI
 * opens it read-only. Status of a request:
 *
 *   pending -> running -> done | interrupted
 *   pending -> approved       (kinds that open instead of executing:
 *                              request_opens(), e.g. network)
 *   pending -> denied | expired
 *   (rejected: never accepted, e.g. over the rate limit or denied by policy)
 *
 * Strings in struct req_row are owned by the row: req_row_free().
 */
#ifndef SBX_DB_H
#define SBX_DB_H

/* How long a statement waits for a lock another connection holds; a
 * reopen (db_reopen) waits less: sbxd's other folders wait meanwhile. */
#define SBX_DB_BUSY_MS          5000
#define SBX_DB_REOPEN_BUSY_MS   200

#include <stdint.h>
#include <sqlite3.h>

#include "common/base/util.h"

struct req_row {
	char *id, *hash, *tool, *command, *input, *cwd, *session, *agent;
	char *trigger, *rule, *reason, *status, *approver, *key_id, *deny_reason;
	int64_t created, expires, decided, started, finished, duration_ms;
	int64_t exit_code, signal;  /* exit_code -1 when none */
	int is_auto;
	int approvals_needed;       /* 2 under dual control */
	char *approved_by;          /* "alice+bob": approvals so far, or NULL */
};

/* NULL with err set on failure. */
sqlite3 *db_open(const char *folder, int writable, struct sbx_err *err);
void db_close(sqlite3 *db);
/*
 * Statements kept prepared, per connection: store.c's run() and one()
 * parsed their SQL at every call (SQLite's parser was about a sixth of
 * sbxd's CPU per request). db_prepare_kept() returns the statement for
 * sql (the same pointer: a string literal) with *kept 1 when it is kept
 * (give it back with db_done(), which resets it), 0 when the table is
 * full (db_done() finalizes it). Every db_close*() finalizes what was
 * kept for that connection.
 */
sqlite3_stmt *db_prepare_kept(sqlite3 *db, const char *sql, int *kept);
void db_done(sqlite3_stmt *st, int kept);
/*
 * sbxd closes an idle folder's database and reopens it on its next event
 * (daemon/folder.c, folder_db_close / folder_db_open):
 * db_reopen opens an existing state.db read-write (never creates one, no
 * schema work); NULL with err.
 * db_close_idle checkpoints every WAL frame into state.db, cuts the WAL
 * to 0 bytes (PRAGMA wal_checkpoint(TRUNCATE)) and closes: 0, or -1 and
 * the connection stays open and usable (a transaction or statement is
 * open, or a reader holds frames back: try later). So a closed database
 * is state.db alone, with at most an empty -wal and a -shm: a -wal with
 * frames found at reopen was written by someone else.
 * db_checkpoint_idle is its first half, without the close: 0 when the
 * WAL is empty and nothing is open (the caller may then look at the file
 * before it closes it), -1 as above.
 * db_reopen's connection waits at most SBX_DB_REOPEN_BUSY_MS for another
 * connection's lock (the caller sets SBX_DB_BUSY_MS once it is checked);
 * locked, it fails with errno EBUSY: try again later.
 * db_moved: 1 when the file db has open is no longer the one at its path
 * (renamed, unlinked, replaced), 0 when it is, -1 unknown.
 * db_close_abandoned closes without a checkpoint and without removing
 * -wal or -shm (a tampered or replaced folder: nothing written there).
 */
sqlite3 *db_reopen(const char *folder, struct sbx_err *err);
int db_close_idle(sqlite3 *db);
int db_checkpoint_idle(sqlite3 *db);
/*
 * sbxd: no checkpoint inside a commit. SQLite's default runs one in the
 * commit that takes the WAL past 1,000 pages (every 60 round trips or so:
 * the copy and two more syncs, 1.5-2 ms, often in a claim's commit, on
 * the way of a request: its p99). With db_wal_watch, *pages gets the
 * WAL's size after each commit and nothing is checkpointed then; sbxd
 * runs db_checkpoint_passive() when it is about to sleep, which never
 * waits for a reader or a writer (it copies what it can; the next writer
 * starts the WAL over once all of it was copied). 0 or -1.
 */
void db_wal_watch(sqlite3 *db, int *pages);
int db_checkpoint_passive(sqlite3 *db);
int db_moved(sqlite3 *db);
void db_close_abandoned(sqlite3 *db);

void req_row_free(struct req_row *r);

/* 1 found, 0 not found, -1 error. */
int db_get(sqlite3 *db, const char *id, struct req_row *r);

/* Rows in a status ("pending"), or every row if status is NULL, newest
 * last; at most limit (negative: all of them). *rows is an array the caller frees with
 * db_rows_free. Returns the count or -1. */
int db_list(sqlite3 *db, const char *status, int limit, struct req_row **rows);
void db_rows_free(struct req_row *rows, int n);

/* What a call brings to the rule check (sbxd classifies it first). */
struct rule_query {
	const char *hash, *tool, *command;
	int64_t now;
	int risk;                   /* enum policy_risk of the call now */
	unsigned factors;           /* its POLICY_F_* bits */
	const char *always_ask;     /* the always_ask entry it matches, or NULL */
};

enum rule_verdict {
	RULE_COVERS, RULE_EXPIRED, RULE_OTHER_TOOL, RULE_OTHER_CALL, RULE_NOT_PREFIX,
	RULE_ALWAYS_ASK, RULE_RISK_ABOVE, RULE_NEW_FACTOR,
};

/* One rule as judged for a call (strings borrowed for the callback). */
struct rule_info {
	int64_t id;
	const char *scope, *match, *approver;
	int risk;                   /* the risk it was approved at */
	unsigned factors;           /* the factors the approved call had */
	enum rule_verdict verdict;
};

/*
 * The remembered rule that approves this call now: an exact rule for its
 * hash, else the longest prefix rule that covers the command (see
 * prefix_covers); in both cases only when the call is not on the
 * always_ask list, its risk is not above the rule's and it has no factor
 * the rule's approved call lacked. A rule never widens. Returns the rule
 * id and *approver (caller frees), or 0. explain (may be NULL) hears
 * every rule with its verdict, in the order they are tried.
 */
int64_t db_rule_match(sqlite3 *db, const struct rule_query *q, char **approver,
    void (*explain)(void *ctx, const struct rule_info *ri), void *ctx);

/* "covers it", "expired", ... for a verdict (static storage). */
const char *db_rule_verdict_text(enum rule_verdict v);

/* The shortest prefix of id, at least min digits, that names no other
 * request in the database: what a human can type to `sbx approve`. */
int db_unique_prefix(sqlite3 *db, const char *id, int min);

#endif
