/*
 * store.c - sbxd's statements on state.db (store.h). Each statement is
 * written once, here; callers pass values, never SQL.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/audit/audit_record.h"
#include "common/store/db.h"
#include "common/store/store.h"

/* SQL prepared (kept: db_prepare_kept; give it back with db_done), with
 * one text (t, NULL allowed) or integer (i) argument from AP per letter
 * of types; NULL on error, or when the letters do not match the
 * statement's parameters (then nothing is read from AP). */
static sqlite3_stmt *
prepare_bound(sqlite3 *db, const char *sql, const char *types, va_list ap, int *kept)
{
	sqlite3_stmt *st;
	int i;

	if (!(st = db_prepare_kept(db, sql, kept)))
		return NULL;
	if ((size_t)sqlite3_bind_parameter_count(st) != strlen(types)) {
		db_done(st, *kept);
		return NULL;
	}
	for (i = 0; types[i]; i++) {
		if (types[i] == 't')
			sqlite3_bind_text(st, i + 1, va_arg(ap, const char *), -1, SQLITE_TRANSIENT);
		else
			sqlite3_bind_int64(st, i + 1, va_arg(ap, int64_t));
	}
	return st;
}

/* Runs SQL with its arguments (prepare_bound) to its first step; *first
 * (when not NULL) gets the first column of a row. Returns the step's
 * code, SQLITE_ERROR when it could not be prepared. */
static int
step_bound(sqlite3 *db, const char *sql, int64_t *first, const char *types, va_list ap)
{
	int rc, kept;
	sqlite3_stmt *st = prepare_bound(db, sql, types, ap, &kept);

	if (!st)
		return SQLITE_ERROR;
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW && first)
		*first = sqlite3_column_int64(st, 0);
	db_done(st, kept);
	return rc;
}

/* Runs SQL with its arguments (prepare_bound): rows changed, -2 on a
 * constraint, -1 on another error. */
static int
run(sqlite3 *db, const char *sql, const char *types, ...)
{
	va_list ap;
	int rc;

	va_start(ap, types);
	rc = step_bound(db, sql, NULL, types, ap);
	va_end(ap);
	if (rc != SQLITE_DONE)
		return rc == SQLITE_CONSTRAINT ? -2 : -1;
	return sqlite3_changes(db);
}

/* The first column of the first row as an integer (arguments as for
 * prepare_bound); -1 on error, def when there is no row. */
static int64_t
one(sqlite3 *db, const char *sql, int64_t def, const char *types, ...)
{
	va_list ap;
	int64_t v = def;
	int rc;

	va_start(ap, types);
	rc = step_bound(db, sql, &v, types, ap);
	va_end(ap);
	return rc == SQLITE_ROW || rc == SQLITE_DONE ? v : -1;
}

/* SQL without arguments, run whole: 0, or -1 when it failed. */
static int
exec(sqlite3 *db, const char *sql)
{
	return sqlite3_exec(db, sql, NULL, NULL, NULL) == SQLITE_OK ? 0 : -1;
}

void
store_upgrade(sqlite3 *db)
{
	/* Remembered rules carry the approver's signed decision (verified
	 * on every use); state.db files from before get the column. */
	(void)sqlite3_exec(db, "ALTER TABLE rules ADD COLUMN decision TEXT", NULL, NULL, NULL);
}

int
store_begin(sqlite3 *db)
{
	return exec(db, "BEGIN IMMEDIATE");
}

int
store_commit(sqlite3 *db)
{
	return exec(db, "COMMIT");
}

void
store_rollback(sqlite3 *db)
{
	(void)exec(db, "ROLLBACK");
}

/* A savepoint inside the open transaction (group commit: one per
 * request of a batch): released into it, or rolled back alone. */
int
store_savepoint(sqlite3 *db)
{
	/* Outside a transaction a savepoint would begin one, and its release
	 * commit it alone: after SQLite rolled the batch back by itself
	 * (SQLITE_FULL, IOERR, NOMEM), the batch's later requests must fail
	 * with it, never be committed one by one. */
	if (sqlite3_get_autocommit(db))
		return -1;
	return exec(db, "SAVEPOINT request");
}

int
store_release(sqlite3 *db)
{
	return exec(db, "RELEASE request");
}

void
store_rollback_to(sqlite3 *db)
{
	(void)exec(db, "ROLLBACK TO request");
	(void)exec(db, "RELEASE request");
}

int
store_request_insert(sqlite3 *db, const struct store_request *r)
{
	return run(db, "INSERT INTO requests (id, hash, tool, command, input, cwd, session,"
	    " agent, trigger, rule, reason, created, expires, status, deny_reason, approver,"
	    " auto, decided, started, approvals_needed)"
	    " VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)", "tttttttttttiitttiiii",
	    r->id, r->hash, r->tool, r->command, r->input, r->cwd, r->session, r->agent,
	    r->trigger, r->rule, r->reason, r->created, r->expires,
	    req_status_name(r->status), r->deny_reason, r->approver, (int64_t)r->is_auto,
	    r->decided, (int64_t)0, (int64_t)r->approvals_needed);
}

int64_t
store_count_recent(sqlite3 *db, int64_t since, int64_t limit)
{
	return one(db, "SELECT count(*) FROM (SELECT 1 FROM requests WHERE created >= ?"
	    " LIMIT ?)", -1, "ii", since, limit);
}

int64_t
store_count_pending(sqlite3 *db, int64_t limit)
{
	return one(db, "SELECT count(*) FROM (SELECT 1 FROM requests WHERE status = ?"
	    " AND created >= 0 LIMIT ?)", -1, "ti", req_status_name(REQ_PENDING), limit);
}

int
store_policy_seen(sqlite3 *db, int64_t *t)
{
	if (sqlite3_exec(db, "CREATE TABLE IF NOT EXISTS policy_seen (id INTEGER PRIMARY KEY"
	    " CHECK (id = 1), time INTEGER NOT NULL)", NULL, NULL, NULL) != SQLITE_OK)
		return -1;
	*t = one(db, "SELECT time FROM policy_seen WHERE id = 1", -1, "");
	return 0;
}

int
store_policy_seen_set(sqlite3 *db, int64_t t)
{
	return run(db, "INSERT OR REPLACE INTO policy_seen (id, time) VALUES (1, ?)", "i", t);
}

static char *
col_dup(sqlite3_stmt *st, int i)
{
	const char *s = (const char *)sqlite3_column_text(st, i);

	return s ? strdup(s) : NULL;
}

int
store_rule_get(sqlite3 *db, int64_t id, struct store_rule *r)
{
	sqlite3_stmt *st;
	int rc;

	memset(r, 0, sizeof(*r));
	if (sqlite3_prepare_v2(db, "SELECT scope, prefix, hash, approver, expires, decision,"
	    " tool, command, key_id, created, risk, factors FROM rules WHERE id = ?", -1, &st,
	    NULL) != SQLITE_OK)
		return -1;
	sqlite3_bind_int64(st, 1, id);
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW) {
		r->scope = col_dup(st, 0);
		r->prefix = col_dup(st, 1);
		r->hash = col_dup(st, 2);
		r->approver = col_dup(st, 3);
		r->expires = sqlite3_column_int64(st, 4);
		r->decision = col_dup(st, 5);
		r->tool = col_dup(st, 6);
		r->command = col_dup(st, 7);
		r->key_id = col_dup(st, 8);
		r->created = sqlite3_column_int64(st, 9);
		r->risk = sqlite3_column_int(st, 10);
		r->factors = (unsigned)sqlite3_column_int64(st, 11);
	}
	sqlite3_finalize(st);
	return rc == SQLITE_ROW ? 1 : rc == SQLITE_DONE ? 0 : -1;
}

void
store_rule_free(struct store_rule *r)
{
	free(r->scope);
	free(r->prefix);
	free(r->hash);
	free(r->approver);
	free(r->decision);
	free(r->tool);
	free(r->command);
	free(r->key_id);
	memset(r, 0, sizeof(*r));
}

int
store_rule_add(sqlite3 *db, const struct store_new_rule *r)
{
	return run(db, "INSERT INTO rules (scope, hash, prefix, tool, command, approver,"
	    " key_id, created, expires, risk, factors, decision)"
	    " VALUES (?,?,?,?,?,?,?,?,?,?,?,?)", "tttttttiiiit", r->scope, r->hash, r->prefix,
	    r->tool, r->command, r->approver, r->key_id, r->created, r->expires,
	    (int64_t)r->risk, (int64_t)r->factors, r->decision);
}

int
store_rule_remove(sqlite3 *db, int64_t id)
{
	return run(db, "DELETE FROM rules WHERE id = ?", "i", id);
}

int
store_rule_used(sqlite3 *db, int64_t id, int64_t now)
{
	return run(db, "UPDATE rules SET uses = uses + 1, last_used = ? WHERE id = ?", "ii",
	    now, id);
}

int
store_nonce_use(sqlite3 *db, const char *nonce, const char *request, int64_t now)
{
	return run(db, "INSERT INTO nonces (nonce, request, used) VALUES (?,?,?)", "tti",
	    nonce, request, now);
}

int
store_approval_add(sqlite3 *db, const char *request, const char *key_id,
    const char *approver, int64_t now)
{
	return run(db, "INSERT INTO approvals (request, key_id, approver, time)"
	    " VALUES (?,?,?,?)", "ttti", request, key_id, approver, now);
}

int
store_approval_count(sqlite3 *db, const char *request)
{
	return (int)one(db, "SELECT count(*) FROM approvals WHERE request = ?", -1, "t",
	    request);
}

int
store_request_expired(sqlite3 *db, const char *id, int64_t now)
{
	return (int)one(db, "SELECT 1 FROM requests WHERE id = ? AND status = ? AND"
	    " expires <= ?", 0, "tti", id, req_status_name(REQ_PENDING), now);
}

int
store_request_decide(sqlite3 *db, const char *id, enum req_status status,
    const char *approvers, const char *key_id, int64_t now, const char *deny_reason)
{
	return run(db, "UPDATE requests SET status=?, approver=?, key_id=?, decided=?,"
	    " started=0, deny_reason=? WHERE id=? AND status=?", "tttittt",
	    req_status_name(status), approvers, key_id, now, deny_reason, id,
	    req_status_name(REQ_PENDING));
}

int
store_request_refuse(sqlite3 *db, const char *id, int64_t now, const char *why)
{
	return run(db, "UPDATE requests SET status=?, finished=?, deny_reason=?"
	    " WHERE id=? AND status=? AND started=0", "tittt", req_status_name(REQ_REJECTED),
	    now, why, id, req_status_name(REQ_RUNNING));
}

int
store_request_start(sqlite3 *db, const char *id, int64_t now)
{
	return run(db, "UPDATE requests SET started=? WHERE id=? AND status=? AND started=0",
	    "itt", now, id, req_status_name(REQ_RUNNING));
}

int
store_request_unstart(sqlite3 *db, const char *id, int64_t started)
{
	return run(db, "UPDATE requests SET started=0 WHERE id=? AND status=? AND started=?",
	    "tti", id, req_status_name(REQ_RUNNING), started);
}

int
store_request_finish(sqlite3 *db, const char *id, enum req_status status,
    int64_t now, int64_t exit_code, int64_t sig, int64_t duration_ms)
{
	if (exit_code >= 0)
		return run(db, "UPDATE requests SET status=?, finished=?, exit_code=?, signal=?,"
		    " duration_ms=? WHERE id=?", "tiiiit", req_status_name(status), now,
		    exit_code, sig, duration_ms, id);
	return run(db, "UPDATE requests SET status=?, finished=?, signal=?, duration_ms=?"
	    " WHERE id=?", "tiiit", req_status_name(status), now, sig, duration_ms, id);
}

int
store_request_close(sqlite3 *db, const char *id, enum req_status status, int64_t now)
{
	return run(db, "UPDATE requests SET status=?, finished=? WHERE id=?", "tit",
	    req_status_name(status), now, id);
}

int
store_request_expire(sqlite3 *db, const char *id, int64_t now)
{
	return run(db, "UPDATE requests SET status=?, finished=? WHERE id=? AND status=?",
	    "titt", req_status_name(REQ_EXPIRED), now, id, req_status_name(REQ_PENDING));
}

int
store_request_unfinished(sqlite3 *db, const char *id)
{
	/* An unknown id has nothing to repair either. */
	return one(db, "SELECT status = ? OR (status = ? AND started = 0) FROM requests"
	    " WHERE id = ?", 1, "ttt", req_status_name(REQ_PENDING),
	    req_status_name(REQ_RUNNING), id) == 1;
}

int
store_expired_list(sqlite3 *db, int64_t now, struct store_idhash **out)
{
	struct store_idhash *v = NULL, *nv;
	const char *id, *hash;
	sqlite3_stmt *st;
	size_t cap = 0;
	int n = 0;

	*out = NULL;
	if (sqlite3_prepare_v2(db, "SELECT id, hash FROM requests WHERE status = ?"
	    " AND expires <= ?", -1, &st, NULL) != SQLITE_OK)
		return -1;
	sqlite3_bind_text(st, 1, req_status_name(REQ_PENDING), -1, SQLITE_STATIC);
	sqlite3_bind_int64(st, 2, now);
	while (sqlite3_step(st) == SQLITE_ROW) {
		id = (const char *)sqlite3_column_text(st, 0);
		hash = (const char *)sqlite3_column_text(st, 1);
		if (!id || !hash)
			continue;
		if ((size_t)n == cap) {
			cap = cap ? cap * 2 : 64;
			if (!(nv = realloc(v, cap * sizeof(*v))))
				break;
			v = nv;
		}
		snprintf(v[n].id, sizeof(v[n].id), "%s", id);
		snprintf(v[n].hash, sizeof(v[n].hash), "%s", hash);
		n++;
	}
	sqlite3_finalize(st);
	*out = v;
	return n;
}

void
store_release_memory(sqlite3 *db)
{
	(void)sqlite3_db_release_memory(db);
}

int64_t
store_next_expiry(sqlite3 *db)
{
	sqlite3_stmt *st;
	int64_t t = 0;

	if (sqlite3_prepare_v2(db, "SELECT MIN(expires) FROM requests WHERE status = ?", -1,
	    &st, NULL) != SQLITE_OK)
		return 0;
	sqlite3_bind_text(st, 1, req_status_name(REQ_PENDING), -1, SQLITE_STATIC);
	if (sqlite3_step(st) == SQLITE_ROW)
		t = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	return t;
}

/* The moment a pending request is announced as expiring: within warn
 * seconds of its expiry, and once it used half its time. */
#define WARN_AT "MAX(expires - ?1, (created + expires + 1) / 2)"

int
store_expiring_each(sqlite3 *db, int64_t warn, int64_t since, int64_t now,
    void (*fn)(void *ctx, const struct store_expiring *e), void *ctx)
{
	struct store_expiring e;
	sqlite3_stmt *st;
	int n = 0;

	if (sqlite3_prepare_v2(db, "SELECT id, tool, COALESCE(command, input), expires FROM"
	    " requests WHERE status = ?4 AND expires > ?3 AND " WARN_AT " > ?2 AND "
	    WARN_AT " <= ?3", -1, &st, NULL) != SQLITE_OK)
		return -1;
	sqlite3_bind_int64(st, 1, warn);
	sqlite3_bind_int64(st, 2, since);
	sqlite3_bind_int64(st, 3, now);
	sqlite3_bind_text(st, 4, req_status_name(REQ_PENDING), -1, SQLITE_STATIC);
	while (sqlite3_step(st) == SQLITE_ROW) {
		e.id = (const char *)sqlite3_column_text(st, 0);
		e.tool = (const char *)sqlite3_column_text(st, 1);
		e.what = (const char *)sqlite3_column_text(st, 2);
		e.expires = sqlite3_column_int64(st, 3);
		fn(ctx, &e);
		n++;
	}
	sqlite3_finalize(st);
	return n;
}

int64_t
store_expiring_next(sqlite3 *db, int64_t warn, int64_t after)
{
	sqlite3_stmt *st;
	int64_t next = 0;

	if (sqlite3_prepare_v2(db, "SELECT MIN(" WARN_AT ") FROM requests WHERE status = ?3"
	    " AND " WARN_AT " > ?2 AND " WARN_AT " < expires", -1, &st, NULL) != SQLITE_OK)
		return 0;
	sqlite3_bind_int64(st, 1, warn);
	sqlite3_bind_int64(st, 2, after);
	sqlite3_bind_text(st, 3, req_status_name(REQ_PENDING), -1, SQLITE_STATIC);
	if (sqlite3_step(st) == SQLITE_ROW)
		next = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	return next;
}

int
store_waiting_list(sqlite3 *db, int max, char ids[][SBX_ID_LEN + 1])
{
	sqlite3_stmt *st;
	const char *id;
	int n = 0;

	if (max <= 0 || sqlite3_prepare_v2(db, "SELECT id FROM requests WHERE status = ?"
	    " AND started = 0 ORDER BY decided, rowid LIMIT ?", -1, &st, NULL) != SQLITE_OK)
		return 0;
	sqlite3_bind_text(st, 1, req_status_name(REQ_RUNNING), -1, SQLITE_STATIC);
	sqlite3_bind_int(st, 2, max);
	while (n < max && sqlite3_step(st) == SQLITE_ROW)
		if ((id = (const char *)sqlite3_column_text(st, 0)) && valid_id(id))
			snprintf(ids[n++], SBX_ID_LEN + 1, "%s", id);
	sqlite3_finalize(st);
	return n;
}

int
store_audit_head(sqlite3 *db, struct audit_checkpoint *c)
{
	sqlite3_stmt *st;
	const char *h, *k, *s;
	int rc = 0;

	if (sqlite3_prepare_v2(db, "SELECT seq, hash, time, key_id, sig FROM audit_head"
	    " WHERE id = 1", -1, &st, NULL) != SQLITE_OK)
		return -1;
	if (sqlite3_step(st) == SQLITE_ROW) {
		c->seq = sqlite3_column_int64(st, 0);
		c->time = sqlite3_column_int64(st, 2);
		h = (const char *)sqlite3_column_text(st, 1);
		k = (const char *)sqlite3_column_text(st, 3);
		s = (const char *)sqlite3_column_text(st, 4);
		rc = h && k && s && hex_decode(c->hash, 32, h) == 0 && is_hex(k, 16) &&
		    hex_decode(c->sig, 64, s) == 0 ? 1 : -1;
		if (rc == 1)
			memcpy(c->key_id, k, 17);
	}
	sqlite3_finalize(st);
	return rc;
}

int
store_audit_head_set(sqlite3 *db, const struct audit_checkpoint *c)
{
	char hash[65], sig[129];

	hex_encode(hash, c->hash, 32);
	hex_encode(sig, c->sig, 64);
	return run(db, "INSERT OR REPLACE INTO audit_head (id, seq, hash, time, key_id, sig)"
	    " VALUES (1, ?, ?, ?, ?, ?)", "ititt", c->seq, hash, c->time, c->key_id, sig) < 0
	    ? -1 : 0;
}

sqlite3 *
store_open_ro(const char *folder, struct sbx_err *err)
{
	return db_open(folder, 0, err);
}

int
store_request_by_prefix(sqlite3 *db, const char *prefix, char id[SBX_ID_LEN + 1])
{
	char pattern[SBX_ID_LEN + 2];
	sqlite3_stmt *st;
	int n = 0;

	if (xsnprintf(pattern, sizeof(pattern), "%s%%", prefix) < 0)
		return -1;
	if (sqlite3_prepare_v2(db, "SELECT id FROM requests WHERE id LIKE ? LIMIT 2", -1,
	    &st, NULL) != SQLITE_OK)
		return -1;
	sqlite3_bind_text(st, 1, pattern, -1, SQLITE_STATIC);
	while (sqlite3_step(st) == SQLITE_ROW)
		if (n++ == 0)
			snprintf(id, SBX_ID_LEN + 1, "%s", sqlite3_column_text(st, 0));
	sqlite3_finalize(st);
	return n;
}

int
store_rules_each(sqlite3 *db, void (*fn)(void *ctx, const struct store_rule_info *r),
    void *ctx)
{
	struct store_rule_info r;
	sqlite3_stmt *st;
	int n = 0;

	if (sqlite3_prepare_v2(db, "SELECT id, scope, coalesce(prefix, command, ''), tool,"
	    " approver, created, expires, uses, coalesce(last_used, 0), coalesce(risk, 0),"
	    " coalesce(factors, 0) FROM rules ORDER BY id", -1, &st, NULL) != SQLITE_OK)
		return -1;
	while (sqlite3_step(st) == SQLITE_ROW) {
		r = (struct store_rule_info){ .id = sqlite3_column_int64(st, 0),
			.scope = (const char *)sqlite3_column_text(st, 1),
			.match = (const char *)sqlite3_column_text(st, 2),
			.tool = (const char *)sqlite3_column_text(st, 3),
			.approver = (const char *)sqlite3_column_text(st, 4),
			.created = sqlite3_column_int64(st, 5),
			.expires = sqlite3_column_int64(st, 6),
			.uses = sqlite3_column_int64(st, 7),
			.last_used = sqlite3_column_int64(st, 8),
			.risk = sqlite3_column_int(st, 9),
			.factors = (unsigned)sqlite3_column_int64(st, 10) };
		fn(ctx, &r);
		n++;
	}
	sqlite3_finalize(st);
	return n;
}

int
store_audit_failures(sqlite3 *db, int64_t *count, int64_t *last)
{
	sqlite3_stmt *st;

	*count = *last = 0;
	/* Absent in old state.db files: none then. */
	if (sqlite3_prepare_v2(db, "SELECT count, last FROM audit_failures WHERE id = 1",
	    -1, &st, NULL) != SQLITE_OK)
		return -1;
	if (sqlite3_step(st) == SQLITE_ROW) {
		*count = sqlite3_column_int64(st, 0);
		*last = sqlite3_column_int64(st, 1);
	}
	sqlite3_finalize(st);
	return 0;
}

int64_t
store_intents_count(sqlite3 *db)
{
	return one(db, "SELECT count(*) FROM audit_intents", -1, "");
}

int64_t
store_intents_above(sqlite3 *db, int64_t id)
{
	return one(db, "SELECT count(*) FROM audit_intents WHERE id > ?", -1, "i", id);
}

int
store_audit_schema(sqlite3 *db, struct sbx_err *err)
{
	char *emsg = NULL;

	/* The signed head; records committed with a state change and not
	 * yet in the log (audit intents); the count of records lost. */
	if (sqlite3_exec(db, "CREATE TABLE IF NOT EXISTS audit_head (id INTEGER PRIMARY KEY"
	    " CHECK (id = 1), seq INTEGER NOT NULL, hash TEXT NOT NULL, time INTEGER NOT NULL,"
	    " key_id TEXT NOT NULL, sig TEXT NOT NULL);"
	    "CREATE TABLE IF NOT EXISTS audit_intents (id INTEGER PRIMARY KEY"
	    " AUTOINCREMENT, event TEXT NOT NULL, request TEXT, session TEXT, actor TEXT NOT NULL,"
	    " data TEXT NOT NULL, time INTEGER NOT NULL);"
	    "CREATE TABLE IF NOT EXISTS audit_failures (id INTEGER PRIMARY KEY CHECK (id = 1),"
	    " count INTEGER NOT NULL, last INTEGER NOT NULL)", NULL, NULL, &emsg) != SQLITE_OK) {
		err_set(err, "state.db: %s", emsg ? emsg : "error");
		sqlite3_free(emsg);
		return -1;
	}
	return 0;
}

int
store_intent_add(sqlite3 *db, const char *event, const char *request,
    const char *session, const char *actor, const char *data, int64_t time_ms)
{
	return run(db, "INSERT INTO audit_intents (event, request, session, actor, data, time)"
	    " VALUES (?,?,?,?,?,?)", "ttttti", event, request, session, actor, data,
	    time_ms) < 0 ? -1 : 0;
}

int
store_intents_each(sqlite3 *db, int64_t after,
    void (*fn)(void *ctx, const struct store_intent *in), void *ctx)
{
	struct store_intent in;
	sqlite3_stmt *st;

	if (sqlite3_prepare_v2(db, "SELECT id, event, request, session, actor, data"
	    " FROM audit_intents WHERE id > ? ORDER BY id", -1, &st, NULL) != SQLITE_OK)
		return -1;
	sqlite3_bind_int64(st, 1, after);
	while (sqlite3_step(st) == SQLITE_ROW) {
		in = (struct store_intent){ .id = sqlite3_column_int64(st, 0),
			.event = (const char *)sqlite3_column_text(st, 1),
			.request = (const char *)sqlite3_column_text(st, 2),
			.session = (const char *)sqlite3_column_text(st, 3),
			.actor = (const char *)sqlite3_column_text(st, 4),
			.data = (const char *)sqlite3_column_text(st, 5) };
		fn(ctx, &in);
	}
	sqlite3_finalize(st);
	return 0;
}

int
store_intents_purge(sqlite3 *db, int64_t upto)
{
	int own = sqlite3_get_autocommit(db), rc;

	/* On its own, without an fsync: a delete lost in a crash is repeated,
	 * and an intent already in the log is never appended again
	 * (docs/QUEUE.md, "Syncs"). Inside a transaction it commits with it. */
	if (own)
		(void)sqlite3_exec(db, "PRAGMA synchronous=NORMAL", NULL, NULL, NULL);
	rc = run(db, "DELETE FROM audit_intents WHERE id <= ?", "i", upto) < 0 ? -1 : 0;
	if (own)
		(void)sqlite3_exec(db, "PRAGMA synchronous=FULL", NULL, NULL, NULL);
	return rc;
}

void
store_audit_failure(sqlite3 *db, int64_t now_ms)
{
	(void)run(db, "INSERT INTO audit_failures (id, count, last) VALUES (1, 1, ?)"
	    " ON CONFLICT (id) DO UPDATE SET count = count + 1, last = excluded.last", "i",
	    now_ms);
}

int
store_audit_index(sqlite3 *db, const char *req, int (*start)(void *ctx, int seg,
    int64_t off), int (*row)(void *ctx, const struct store_index_row *r), void *ctx)
{
	char hi[SBX_ID_LEN + 2];
	struct store_index_row r;
	sqlite3_stmt *st = NULL;
	int rc = -1;

	if (xsnprintf(hi, sizeof(hi), "%s~", req) < 0 ||
	    sqlite3_exec(db, "BEGIN", NULL, NULL, NULL) != SQLITE_OK)
		return -1;
	if (sqlite3_prepare_v2(db, "SELECT seg, off FROM audit_index_state WHERE id = 1", -1,
	    &st, NULL) != SQLITE_OK || sqlite3_step(st) != SQLITE_ROW ||
	    start(ctx, sqlite3_column_int(st, 0), sqlite3_column_int64(st, 1)) < 0)
		goto out;
	sqlite3_finalize(st);
	st = NULL;
	if (sqlite3_prepare_v2(db, "SELECT seq, seg, off, len, request FROM audit_index"
	    " WHERE request >= ?1 AND request < ?2 ORDER BY seq", -1, &st, NULL) != SQLITE_OK)
		goto out;
	sqlite3_bind_text(st, 1, req, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 2, hi, -1, SQLITE_STATIC);
	while (sqlite3_step(st) == SQLITE_ROW) {
		r = (struct store_index_row){ .seq = sqlite3_column_int64(st, 0),
			.seg = sqlite3_column_int(st, 1), .off = sqlite3_column_int64(st, 2),
			.len = sqlite3_column_int64(st, 3),
			.request = (const char *)sqlite3_column_text(st, 4) };
		if (row(ctx, &r) < 0)
			goto out;
	}
	rc = 0;
out:
	sqlite3_finalize(st);
	sqlite3_exec(db, "COMMIT", NULL, NULL, NULL);
	return rc;
}
