/*
 * db.h - the state database, FOLDER/.sandbox/state.db (SQLite, WAL).
 *
 * sbxd is its only writer (db_open with writable=1); the approver CLI
 * opens it read-only. Status of a request:
 *
 *   pending -> running -> done | interrupted
 *   pending -> denied | expired
 *   (rejected: never accepted, e.g. over the rate limit or denied by policy)
 *
 * Strings in struct req_row are owned by the row: req_row_free().
 */
#ifndef SBX_DB_H
#define SBX_DB_H

#include <stdint.h>
#include <sqlite3.h>

#include "common/util.h"

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

void req_row_free(struct req_row *r);

/* 1 found, 0 not found, -1 error. */
int db_get(sqlite3 *db, const char *id, struct req_row *r);

/* Rows in a status ("pending"), or every row if status is NULL, newest
 * last; at most limit (negative: all of them). *rows is an array the caller frees with
 * db_rows_free. Returns the count or -1. */
int db_list(sqlite3 *db, const char *status, int limit, struct req_row **rows);
void db_rows_free(struct req_row *rows, int n);

/*
 * The remembered rule that approves this call now: an exact rule for its
 * hash, else the longest prefix rule that covers the command (see
 * prefix_covers). Returns the rule id and *approver (caller frees), or 0.
 */
int64_t db_rule_match(sqlite3 *db, const char *hash, const char *tool,
    const char *command, int64_t now, char **approver);

#endif
