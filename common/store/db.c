/*
 * db.c - schema and read helpers for state.db; see db.h. The daemon's
 * writes live in daemon/state.c.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/protocol/queue.h"
#include "common/store/db.h"

#define DB_BUSY_MS SBX_DB_BUSY_MS     /* a lock held by another connection */
#define SBX_STR2(x) #x
#define SBX_STR(x) SBX_STR2(x)

static const char schema[] =
    "CREATE TABLE IF NOT EXISTS requests ("
    " id TEXT PRIMARY KEY, hash TEXT NOT NULL, tool TEXT NOT NULL,"
    " command TEXT, input TEXT NOT NULL, cwd TEXT NOT NULL, session TEXT,"
    " agent TEXT, trigger TEXT, rule TEXT, reason TEXT,"
    " created INTEGER NOT NULL, expires INTEGER NOT NULL,"
    " status TEXT NOT NULL, approver TEXT, key_id TEXT, auto INTEGER NOT NULL DEFAULT 0,"
    " decided INTEGER, deny_reason TEXT, started INTEGER, finished INTEGER,"
    " exit_code INTEGER, signal INTEGER, duration_ms INTEGER,"
    " approvals_needed INTEGER NOT NULL DEFAULT 1);"
    "CREATE TABLE IF NOT EXISTS approvals ("
    " request TEXT NOT NULL, key_id TEXT NOT NULL, approver TEXT NOT NULL,"
    " time INTEGER NOT NULL, PRIMARY KEY (request, key_id));"
    "CREATE INDEX IF NOT EXISTS requests_status ON requests(status);"
    "CREATE INDEX IF NOT EXISTS requests_created ON requests(created);"
    "CREATE TABLE IF NOT EXISTS nonces ("
    " nonce TEXT PRIMARY KEY, request TEXT NOT NULL, used INTEGER NOT NULL);"
    "CREATE TABLE IF NOT EXISTS rules ("
    " id INTEGER PRIMARY KEY AUTOINCREMENT, scope TEXT NOT NULL, hash TEXT,"
    " prefix TEXT, tool TEXT NOT NULL, command TEXT, approver TEXT NOT NULL,"
    " key_id TEXT, created INTEGER NOT NULL, expires INTEGER NOT NULL DEFAULT 0,"
    " uses INTEGER NOT NULL DEFAULT 0, last_used INTEGER, risk INTEGER, factors INTEGER);"
    "CREATE INDEX IF NOT EXISTS rules_hash ON rules(hash);";

/*
 * Rules made before they carried the risk they were approved at get the
 * columns, NULL: such a rule covers only low-risk calls without factors.
 */
static int
rules_migrate(sqlite3 *db, char **emsg)
{
	sqlite3_stmt *st;

	if (sqlite3_prepare_v2(db, "SELECT risk, factors FROM rules LIMIT 0", -1, &st,
	    NULL) == SQLITE_OK) {
		sqlite3_finalize(st);
		return 0;
	}
	return sqlite3_exec(db, "ALTER TABLE rules ADD COLUMN risk INTEGER;"
	    "ALTER TABLE rules ADD COLUMN factors INTEGER;", NULL, NULL, emsg) == SQLITE_OK
	    ? 0 : -1;
}

/* Opens FOLDER/.sandbox/state.db with flags (never through a symlink as
 * its last component); path gets its name. NULL with err set. */
static sqlite3 *
open_path(const char *folder, int flags, char *path, size_t pathsz, struct sbx_err *err)
{
	sqlite3 *db = NULL;

	if (xsnprintf(path, pathsz, "%s/.sandbox/state.db", folder) < 0) {
		err_set(err, "folder path too long");
		return NULL;
	}
	if (sqlite3_open_v2(path, &db, flags | SQLITE_OPEN_NOFOLLOW, NULL) != SQLITE_OK) {
		err_set(err, "cannot open %s: %s", path, db ? sqlite3_errmsg(db) : "out of memory");
		sqlite3_close(db);
		return NULL;
	}
	sqlite3_busy_timeout(db, DB_BUSY_MS);
	return db;
}

/* PRAGMA user_version once the schema above and its migrations are in
 * place: a start of 1,000 folders then parses none of it again. */
#define DB_SCHEMA_VERSION 1

static int
schema_version(sqlite3 *db)
{
	sqlite3_stmt *st;
	int v = -1;

	if (sqlite3_prepare_v2(db, "PRAGMA user_version", -1, &st, NULL) != SQLITE_OK)
		return -1;
	if (sqlite3_step(st) == SQLITE_ROW)
		v = sqlite3_column_int(st, 0);
	sqlite3_finalize(st);
	return v;
}

sqlite3 *
db_open(const char *folder, int writable, struct sbx_err *err)
{
	char path[4096];
	sqlite3 *db;
	char *emsg = NULL;
	int flags = writable ? SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE
	    : SQLITE_OPEN_READONLY;

	if (!(db = open_path(folder, flags, path, sizeof(path), err)))
		return NULL;
	if (writable &&
	    sqlite3_exec(db, "PRAGMA journal_mode=WAL; PRAGMA synchronous=FULL;",
	    NULL, NULL, &emsg) != SQLITE_OK)
		goto fail_exec;
	if (!writable || schema_version(db) == DB_SCHEMA_VERSION)
		return db;
	if (sqlite3_exec(db, schema, NULL, NULL, &emsg) != SQLITE_OK ||
	    rules_migrate(db, &emsg) < 0)
		goto fail_exec;
	/* Remembered rules carry the approver's signed decision (verified on
	 * every use); state.db files from before get the column. */
	(void)sqlite3_exec(db, "ALTER TABLE rules ADD COLUMN decision TEXT", NULL, NULL, NULL);
	if (sqlite3_exec(db, "PRAGMA user_version = " SBX_STR(DB_SCHEMA_VERSION), NULL, NULL,
	    &emsg) != SQLITE_OK)
		goto fail_exec;
	return db;
fail_exec:
	err_set(err, "%s: %s", path, emsg ? emsg : "error");
	sqlite3_free(emsg);
	sqlite3_close(db);
	return NULL;
}

static int
wal_pages(void *ctx, sqlite3 *db, const char *name, int pages)
{
	(void)db;
	(void)name;
	*(int *)ctx = pages;
	return SQLITE_OK;
}

void
db_wal_watch(sqlite3 *db, int *pages)
{
	/* Replaces the automatic checkpoint (sqlite3_wal_autocheckpoint). */
	sqlite3_wal_hook(db, wal_pages, pages);
}

int
db_checkpoint_passive(sqlite3 *db)
{
	return sqlite3_wal_checkpoint_v2(db, NULL, SQLITE_CHECKPOINT_PASSIVE, NULL, NULL) ==
	    SQLITE_OK ? 0 : -1;
}

sqlite3 *
db_reopen(const char *folder, struct sbx_err *err)
{
	char path[4096];
	sqlite3 *db;

	/* No CREATE: a database that is gone is an error, never a new one. */
	int e;

	if (!(db = open_path(folder, SQLITE_OPEN_READWRITE, path, sizeof(path), err)))
		return NULL;
	/* Another connection's lock: a short wait, never seconds. */
	sqlite3_busy_timeout(db, SBX_DB_REOPEN_BUSY_MS);
	if (sqlite3_exec(db, "PRAGMA synchronous=FULL", NULL, NULL, NULL) != SQLITE_OK) {
		e = sqlite3_errcode(db);
		err_set(err, "%s: %s", path, sqlite3_errmsg(db));
		sqlite3_close(db);
		errno = e == SQLITE_BUSY || e == SQLITE_LOCKED ? EBUSY : EIO;
		return NULL;
	}
	return db;
}

#define DB_KEPT 48
static struct {
	sqlite3 *db;
	const char *sql;
	sqlite3_stmt *st;
} kept_st[DB_KEPT];

sqlite3_stmt *
db_prepare_kept(sqlite3 *db, const char *sql, int *kept)
{
	sqlite3_stmt *st;
	int i, slot = -1;

	*kept = 0;
	for (i = 0; i < DB_KEPT; i++) {
		if (kept_st[i].db == db && kept_st[i].sql == sql) {
			*kept = 1;
			return kept_st[i].st;
		}
		if (!kept_st[i].db && slot < 0)
			slot = i;
	}
	if (sqlite3_prepare_v3(db, sql, -1, slot >= 0 ? SQLITE_PREPARE_PERSISTENT : 0, &st,
	    NULL) != SQLITE_OK)
		return NULL;
	if (slot >= 0) {
		kept_st[slot].db = db;
		kept_st[slot].sql = sql;
		kept_st[slot].st = st;
		*kept = 1;
	}
	return st;
}

void
db_done(sqlite3_stmt *st, int kept)
{
	if (!st)
		return;
	if (!kept) {
		sqlite3_finalize(st);
		return;
	}
	sqlite3_reset(st);
	sqlite3_clear_bindings(st);
}

/* Finalizes what db_prepare_kept kept for db (before it is closed). */
static void
forget_kept(sqlite3 *db)
{
	int i;

	for (i = 0; i < DB_KEPT; i++)
		if (kept_st[i].db == db) {
			sqlite3_finalize(kept_st[i].st);
			kept_st[i].db = NULL;
			kept_st[i].sql = NULL;
			kept_st[i].st = NULL;
		}
}

int
db_checkpoint_idle(sqlite3 *db)
{
	int log = -1, done = -1;
	sqlite3_stmt *st;

	if (!db || !sqlite3_get_autocommit(db))
		return -1;
	/* Kept statements go (prepared again if the close does not follow). */
	forget_kept(db);
	if (sqlite3_next_stmt(db, NULL))
		return -1;
	/* Every frame into the database and the WAL cut to nothing: what
	 * sbxd leaves behind is state.db alone (db.h, db_close_idle). */
	if (sqlite3_prepare_v2(db, "PRAGMA wal_checkpoint(TRUNCATE)", -1, &st, NULL) != SQLITE_OK)
		return -1;
	/* A reader in the way: later, never a wait (the checkpoint would
	 * call the busy handler, up to 5 s, with sbxd's loop stopped). */
	sqlite3_busy_timeout(db, 0);
	if (sqlite3_step(st) == SQLITE_ROW && sqlite3_column_int(st, 0) == 0) {
		log = sqlite3_column_int(st, 1);
		done = sqlite3_column_int(st, 2);
	}
	sqlite3_finalize(st);
	sqlite3_busy_timeout(db, DB_BUSY_MS);
	return log != done || log < 0 ? -1 : 0;
}

int
db_close_idle(sqlite3 *db)
{
	forget_kept(db);
	if (db_checkpoint_idle(db) < 0)
		return -1;
	return sqlite3_close(db) == SQLITE_OK ? 0 : -1;
}

int
db_moved(sqlite3 *db)
{
	int moved = -1;

	if (sqlite3_file_control(db, "main", SQLITE_FCNTL_HAS_MOVED, &moved) != SQLITE_OK)
		return -1;
	return moved != 0;
}

void
db_close_abandoned(sqlite3 *db)
{
	int on = 1;

	if (!db)
		return;
	/* Neither a checkpoint into the file nor an unlink of -wal/-shm by
	 * path: the tree may not be the one sbxd opened. */
	forget_kept(db);
	(void)sqlite3_db_config(db, SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE, 1, NULL);
	(void)sqlite3_file_control(db, "main", SQLITE_FCNTL_PERSIST_WAL, &on);
	sqlite3_close(db);
}

void
db_close(sqlite3 *db)
{
	forget_kept(db);
	sqlite3_close(db);
}

void
req_row_free(struct req_row *r)
{
	if (!r)
		return;
	free(r->id); free(r->hash); free(r->tool); free(r->command); free(r->input);
	free(r->cwd); free(r->session); free(r->agent); free(r->trigger); free(r->rule);
	free(r->reason); free(r->status); free(r->approver); free(r->key_id);
	free(r->deny_reason);
	free(r->approved_by);
	memset(r, 0, sizeof(*r));
}

#define COLS "id, hash, tool, command, input, cwd, session, agent, trigger, rule," \
	" reason, status, approver, key_id, deny_reason, created, expires, decided," \
	" started, finished, duration_ms, exit_code, signal, auto, approvals_needed," \
	" (SELECT group_concat(approver, '+') FROM approvals WHERE request = requests.id)"

static char *
col_str(sqlite3_stmt *st, int i)
{
	const unsigned char *t = sqlite3_column_text(st, i);

	return t ? strdup((const char *)t) : NULL;
}

static void
row_read(sqlite3_stmt *st, struct req_row *r)
{
	char **s[] = { &r->id, &r->hash, &r->tool, &r->command, &r->input, &r->cwd,
		&r->session, &r->agent, &r->trigger, &r->rule, &r->reason, &r->status,
		&r->approver, &r->key_id, &r->deny_reason };
	int64_t *n[] = { &r->created, &r->expires, &r->decided, &r->started,
		&r->finished, &r->duration_ms };
	size_t i;

	for (i = 0; i < sizeof(s) / sizeof(s[0]); i++)
		*s[i] = col_str(st, (int)i);
	for (i = 0; i < sizeof(n) / sizeof(n[0]); i++)
		*n[i] = sqlite3_column_int64(st, (int)(15 + i));
	r->exit_code = sqlite3_column_type(st, 21) == SQLITE_NULL ? -1
	    : sqlite3_column_int64(st, 21);
	r->signal = sqlite3_column_int64(st, 22);
	r->is_auto = sqlite3_column_int(st, 23);
	r->approvals_needed = sqlite3_column_int(st, 24);
	r->approved_by = col_str(st, 25);
}

int
db_get(sqlite3 *db, const char *id, struct req_row *r)
{
	sqlite3_stmt *st;
	int rc;

	memset(r, 0, sizeof(*r));
	if (sqlite3_prepare_v2(db, "SELECT " COLS " FROM requests WHERE id = ?",
	    -1, &st, NULL) != SQLITE_OK)
		return -1;
	sqlite3_bind_text(st, 1, id, -1, SQLITE_STATIC);
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW)
		row_read(st, r);
	sqlite3_finalize(st);
	return rc == SQLITE_ROW ? 1 : rc == SQLITE_DONE ? 0 : -1;
}

int
db_list(sqlite3 *db, const char *status, int limit, struct req_row **rows)
{
	sqlite3_stmt *st;
	struct req_row *v = NULL, *nv;
	int n = 0, cap = 0, rc;

	*rows = NULL;
	if (sqlite3_prepare_v2(db, status
	    ? "SELECT " COLS " FROM (SELECT * FROM requests WHERE status = ?1"
	      " ORDER BY created DESC, rowid DESC LIMIT ?2) AS requests ORDER BY created, rowid"
	    : "SELECT " COLS " FROM (SELECT * FROM requests"
	      " ORDER BY created DESC, rowid DESC LIMIT ?2) AS requests ORDER BY created, rowid",
	    -1, &st, NULL) != SQLITE_OK)
		return -1;
	if (status)
		sqlite3_bind_text(st, 1, status, -1, SQLITE_STATIC);
	sqlite3_bind_int(st, 2, limit);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		if (n == cap) {
			cap = cap ? cap * 2 : 16;
			if (!(nv = realloc(v, (size_t)cap * sizeof(*v)))) {
				rc = SQLITE_NOMEM;
				break;
			}
			v = nv;
		}
		row_read(st, &v[n++]);
	}
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE) {
		db_rows_free(v, n);
		return -1;
	}
	*rows = v;
	return n;
}

void
db_rows_free(struct req_row *rows, int n)
{
	int i;

	for (i = 0; i < n; i++)
		req_row_free(&rows[i]);
	free(rows);
}

const char *
db_rule_verdict_text(enum rule_verdict v)
{
	switch (v) {
	case RULE_COVERS: return "covers it";
	case RULE_EXPIRED: return "expired";
	case RULE_OTHER_TOOL: return "is for another tool";
	case RULE_OTHER_CALL: return "is for another exact call";
	case RULE_NOT_PREFIX: return "its prefix does not start the command, or the "
	    "command has shell syntax (; & | $ ` < > ( ) newline)";
	case RULE_RISK_ABOVE: return "the call's risk is above the one the rule was "
	    "approved at";
	case RULE_NEW_FACTOR: return "the call has a risk factor the approved one lacked";
	case RULE_ALWAYS_ASK: return "the call is on the always_ask list";
	}
	return "?";
}

int64_t
db_rule_match(sqlite3 *db, const struct rule_query *q, char **approver,
    void (*explain)(void *ctx, const struct rule_info *ri), void *ctx)
{
	struct rule_info ri;
	sqlite3_stmt *st;
	int64_t id = 0, expires;

	*approver = NULL;
	/* Exact rules first, then the longest prefix; each must also be
	 * approved at the call's risk or above, with all of its factors. */
	if (sqlite3_prepare_v2(db, "SELECT id, approver, scope, prefix, tool, hash, expires,"
	    " coalesce(risk, 0), coalesce(factors, 0), coalesce(prefix, command, '')"
	    " FROM rules ORDER BY scope = 'exact' DESC, length(prefix) DESC, id",
	    -1, &st, NULL) != SQLITE_OK)
		return 0;
	while (sqlite3_step(st) == SQLITE_ROW) {
		const char *scope = (const char *)sqlite3_column_text(st, 2);
		const char *prefix = (const char *)sqlite3_column_text(st, 3);
		const char *tool = (const char *)sqlite3_column_text(st, 4);
		const char *hash = (const char *)sqlite3_column_text(st, 5);
		int is_prefix = scope && strcmp(scope, "prefix") == 0;

		memset(&ri, 0, sizeof(ri));
		ri.id = sqlite3_column_int64(st, 0);
		ri.scope = scope ? scope : "";
		ri.match = (const char *)sqlite3_column_text(st, 9);
		ri.approver = (const char *)sqlite3_column_text(st, 1);
		ri.risk = sqlite3_column_int(st, 7);
		ri.factors = (unsigned)sqlite3_column_int64(st, 8);
		expires = sqlite3_column_int64(st, 6);
		if (expires && expires <= q->now)
			ri.verdict = RULE_EXPIRED;
		else if (!tool || strcmp(tool, q->tool) != 0)
			ri.verdict = RULE_OTHER_TOOL;
		else if (!is_prefix && (!hash || !q->hash || strcmp(hash, q->hash) != 0))
			ri.verdict = RULE_OTHER_CALL;
		else if (is_prefix && !prefix_covers(prefix, q->command))
			ri.verdict = RULE_NOT_PREFIX;
		else if (q->always_ask)
			ri.verdict = RULE_ALWAYS_ASK;
		else if (q->risk > ri.risk)
			ri.verdict = RULE_RISK_ABOVE;
		else if (q->factors & ~ri.factors)
			ri.verdict = RULE_NEW_FACTOR;
		else
			ri.verdict = RULE_COVERS;
		if (explain)
			explain(ctx, &ri);
		if (ri.verdict == RULE_COVERS && !*approver) {
			id = ri.id;
			*approver = col_str(st, 1);
			if (!explain)
				break;
		}
	}
	sqlite3_finalize(st);
	return *approver ? id : 0;
}

int
db_unique_prefix(sqlite3 *db, const char *id, int min)
{
	sqlite3_stmt *st;
	int len = (int)strlen(id), w, n = 2;

	if (sqlite3_prepare_v2(db, "SELECT count(*) FROM requests WHERE substr(id, 1, ?1) = "
	    "substr(?2, 1, ?1)", -1, &st, NULL) != SQLITE_OK)
		return len;
	for (w = min < len ? min : len; w < len; w++) {
		sqlite3_bind_int(st, 1, w);
		sqlite3_bind_text(st, 2, id, -1, SQLITE_STATIC);
		n = sqlite3_step(st) == SQLITE_ROW ? sqlite3_column_int(st, 0) : 2;
		sqlite3_reset(st);
		if (n <= 1)
			break;
	}
	sqlite3_finalize(st);
	return w;
}
