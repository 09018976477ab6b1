/*
 * test_store.c - common/store/store.c on a real state.db in a temp folder:
 * each statement sbxd and sbx use, the constraints that make a decision
 * single-use, the audit tables, and the read-only view (it cannot write).
 */
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/audit/audit_record.h"
#include "common/store/db.h"
#include "common/store/store.c"
#include "tests/tap.h"

static char dir[] = "/tmp/sbx-store.XXXXXX";

static struct store_request
req(const char *id, enum req_status st, int64_t created, int64_t expires)
{
	return (struct store_request){ .id = id, .hash = "ab", .tool = "Bash",
		.command = "make", .input = "{\"command\":\"make\"}", .cwd = dir,
		.status = st, .created = created, .expires = expires, .approvals_needed = 1 };
}

static void
count_intent(void *ctx, const struct store_intent *in)
{
	int64_t *ids = ctx;

	ids[ids[0] + 1] = in->id;
	ids[0]++;
}

static void
count_rule(void *ctx, const struct store_rule_info *r)
{
	int *n = ctx;

	*n += r->id > 0 && r->scope && !strcmp(r->scope, "prefix");
}

static void
test_requests(sqlite3 *db)
{
	struct store_request r = req("00000000000000a1", REQ_PENDING, 100, 200);
	char id[SBX_ID_LEN + 1];
	struct store_idhash *v;
	char ids[4][SBX_ID_LEN + 1];

	is_int(store_request_insert(db, &r), 1, "a request is recorded");
	is_int(store_request_insert(db, &r), -2, "the same id again is a constraint (-2)");
	r = req("00000000000000a2", REQ_PENDING, 100, 50);
	store_request_insert(db, &r);
	is_int(store_count_recent(db, 90, 10), 2, "two created since 90");
	is_int(store_count_recent(db, 90, 1), 1, "the count stops at its limit");
	is_int(store_count_pending(db, 10), 2, "two pending");
	is_int(store_request_by_prefix(db, "00000000000000a", id), 2, "a shared prefix: 2");
	is_int(store_request_by_prefix(db, "00000000000000a1", id), 1, "one id");
	is_str(id, "00000000000000a1", "and which");
	is_int(store_request_expired(db, "00000000000000a2", 60), 1, "a2 is past its deadline");
	is_int(store_request_expired(db, "00000000000000a1", 60), 0, "a1 is not");
	is_int(store_expired_list(db, 60, &v), 1, "one expired in the list");
	is_str(v ? v[0].id : "", "00000000000000a2", "a2");
	free(v);
	is_int(store_request_expire(db, "00000000000000a2", 60), 1, "pending -> expired");
	is_int(store_request_expire(db, "00000000000000a2", 60), 0, "only once");
	is_int(store_request_unfinished(db, "00000000000000a1"), 1, "pending needs no result");
	is_int(store_request_decide(db, "00000000000000a1", REQ_RUNNING, "alice", "k", 120,
	    NULL), 1, "pending -> running (waiting)");
	is_int(store_request_decide(db, "00000000000000a1", REQ_DENIED, "bob", "k", 121,
	    "no"), 0, "a decided request is not decided again");
	is_int(store_waiting_list(db, 4, ids), 1, "one waits for a slot");
	is_int(store_request_unfinished(db, "00000000000000a1"), 1, "waiting needs no result");
	is_int(store_request_start(db, "00000000000000a1", 130), 1, "waiting -> started");
	is_int(store_request_start(db, "00000000000000a1", 131), 0, "started once");
	is_int(store_request_refuse(db, "00000000000000a1", 131, "x"), 0,
	    "a started request is not refused");
	is_int(store_waiting_list(db, 4, ids), 0, "none waits");
	is_int(store_request_unfinished(db, "00000000000000a1"), 0, "running needs a result");
	is_int(store_request_finish(db, "00000000000000a1", REQ_DONE, 140, 0, 0, 5), 1,
	    "finished");
	is_int(store_request_unfinished(db, "00000000000000zz"), 1,
	    "an unknown id: nothing to repair");
}

static void
test_decisions(sqlite3 *db)
{
	struct store_new_rule nr = { .scope = "prefix", .prefix = "git push", .tool = "Bash",
		.approver = "alice", .key_id = "0123456789abcdef", .decision = "{}",
		.created = 1, .risk = 2, .factors = 4 };
	struct store_rule r;
	int n = 0;

	is_int(store_nonce_use(db, "n1", "00000000000000a1", 1), 1, "a nonce is consumed");
	is_int(store_nonce_use(db, "n1", "00000000000000a1", 2), -2, "a replay is refused");
	is_int(store_approval_add(db, "00000000000000a1", "k1", "alice", 1), 1, "approval 1");
	is_int(store_approval_add(db, "00000000000000a1", "k1", "alice", 2), -2,
	    "the same key twice is refused");
	is_int(store_approval_add(db, "00000000000000a1", "k2", "bob", 2), 1, "approval 2");
	is_int(store_approval_count(db, "00000000000000a1"), 2, "two approvals");
	is_int(store_rule_add(db, &nr), 1, "a rule is added");
	is_int(store_rule_get(db, 1, &r), 1, "and read back");
	ok(r.prefix && !strcmp(r.prefix, "git push") && r.risk == 2 && r.factors == 4 &&
	    r.approver && !strcmp(r.approver, "alice") && !r.hash, "as it was stored");
	store_rule_free(&r);
	is_int(store_rule_used(db, 1, 5), 1, "a use is counted");
	is_int(store_rules_each(db, count_rule, &n), 1, "one rule listed");
	is_int(n, 1, "with its scope");
	is_int(store_rule_remove(db, 1), 1, "removed");
	is_int(store_rule_remove(db, 1), 0, "once");
	is_int(store_rule_get(db, 1, &r), 0, "gone");
}

static void
test_audit(sqlite3 *db)
{
	struct audit_checkpoint c = { .seq = 7, .time = 9, .key_id = "0123456789abcdef" },
	    back;
	struct sbx_err err;
	int64_t ids[8] = { 0 }, cnt, last;

	is_int(store_audit_schema(db, &err), 0, "the audit tables");
	is_int(store_audit_head(db, &back), 0, "no head yet");
	memset(c.hash, 0xab, sizeof(c.hash));
	memset(c.sig, 0xcd, sizeof(c.sig));
	is_int(store_audit_head_set(db, &c), 0, "a head is stored");
	ok(store_audit_head(db, &back) == 1 && back.seq == 7 && back.time == 9 &&
	    !memcmp(back.hash, c.hash, sizeof(c.hash)) && !memcmp(back.sig, c.sig, 64) &&
	    !strcmp(back.key_id, c.key_id), "and read back whole");
	is_int(store_intent_add(db, "decision", "00000000000000a1", NULL, "daemon", "{}", 1),
	    0, "intent 1");
	store_intent_add(db, "request_received", NULL, "s", "hook", "{\"a\":1}", 2);
	store_intent_add(db, "exec_started", NULL, NULL, "daemon", "{}", 3);
	is_int(store_intents_count(db), 3, "three wait");
	is_int(store_intents_each(db, 1, count_intent, ids), 0, "read after id 1");
	ok(ids[0] == 2 && ids[1] == 2 && ids[2] == 3, "ids 2 and 3, in order");
	is_int(store_intents_purge(db, 2), 0, "purged up to 2");
	is_int(store_intents_count(db), 1, "one left");
	store_audit_failure(db, 10);
	store_audit_failure(db, 20);
	ok(store_audit_failures(db, &cnt, &last) == 0 && cnt == 2 && last == 20,
	    "two failures, the last at 20");
}

static int
count_busy(void *ctx, int n)
{
	(void)n;
	(*(int *)ctx)++;
	return 0;
}

/* The size of .sandbox/NAME, -1 when it does not exist. */
static long
side_size(const char *name)
{
	char p[128];
	struct stat st;

	snprintf(p, sizeof(p), "%s/.sandbox/%s", dir, name);
	return stat(p, &st) == 0 ? (long)st.st_size : -1;
}

/* sbxd closes an idle folder's database and reopens it later (db.h):
 * nothing it leaves may hold frames, a reopen never creates a database,
 * and a database moved away under an open connection is seen. */
static void
test_idle_close(void)
{
	char from[128], to[128];
	struct sbx_err err;
	sqlite3 *db, *ro;
	sqlite3_stmt *st;
	int64_t t = 0;
	int on = 1, busy = 0;

	ok((db = db_reopen(dir, &err)) != NULL, "an existing state.db reopens");
	(void)sqlite3_file_control(db, "main", SQLITE_FCNTL_PERSIST_WAL, &on);
	is_int(store_policy_seen_set(db, 43), 1, "a write: the WAL holds frames");
	ok(side_size("state.db-wal") > 0, "... %ld bytes of WAL", side_size("state.db-wal"));
	/* A statement still open: not closed, and still usable. */
	ok(sqlite3_prepare_v2(db, "SELECT 1", -1, &st, NULL) == SQLITE_OK, "a statement");
	is_int(db_close_idle(db), -1, "not closed while a statement is open");
	sqlite3_finalize(st);
	ok(store_begin(db) == 0, "a transaction");
	is_int(db_close_idle(db), -1, "not closed inside a transaction");
	store_rollback(db);
	/* A reader in the middle of a read transaction pins the frames. */
	ro = store_open_ro(dir, &err);
	ok(ro && sqlite3_exec(ro, "BEGIN; SELECT count(*) FROM requests", NULL, NULL, NULL) ==
	    SQLITE_OK, "a reader holds a snapshot");
	is_int(store_policy_seen_set(db, 44), 1, "a write after the reader's snapshot");
	/* Not waited for: a busy handler would stop sbxd's loop (5 s). */
	sqlite3_busy_handler(db, count_busy, &busy);
	is_int(db_close_idle(db), -1, "not closed while the reader holds frames back");
	is_int(busy, 0, "... and not waited for (no busy handler called)");
	ok(store_policy_seen_set(db, 45) == 1, "... the connection is still usable");
	sqlite3_exec(ro, "COMMIT", NULL, NULL, NULL);
	db_close(ro);
	is_int(db_close_idle(db), 0, "closed once idle");
	is_int(side_size("state.db-wal"), 0, "every frame is in state.db, the WAL is empty");
	/* Reopened: the data is there. */
	ok((db = db_reopen(dir, &err)) != NULL, "reopened");
	ok(store_policy_seen(db, &t) == 0 && t == 45, "what was written before the close is there");
	is_int(db_moved(db), 0, "the file open is the one at its path");
	snprintf(from, sizeof(from), "%s/.sandbox/state.db", dir);
	snprintf(to, sizeof(to), "%s/.sandbox/moved.db", dir);
	ok(rename(from, to) == 0, "state.db moved away under the connection");
	is_int(db_moved(db), 1, "db_moved sees it");
	is_int(db_close_idle(db), 0, "closed");
	ok(db_reopen(dir, &err) == NULL, "no state.db: a reopen fails, it does not create one");
	ok(access(from, F_OK) != 0, "... and made none");
	ok(rename(to, from) == 0, "put back");
}

int
main(void)
{
	char path[64];
	struct sbx_err err;
	struct store_new_rule nr = { .scope = "exact", .tool = "Bash", .decision = "{}" };
	sqlite3 *db, *ro;
	int64_t t = -5;

	if (!mkdtemp(dir) || snprintf(path, sizeof(path), "%s/.sandbox", dir) < 0 ||
	    mkdir(path, 0700) < 0 || !(db = db_open(dir, 1, &err)))
		return 1;
	is_int(one(db, "PRAGMA user_version", -1, ""), 1, "db_open marks the schema current");
	is_int(one(db, "SELECT count(*) FROM pragma_table_info('rules') WHERE name = 'decision'",
	    -1, ""), 1, "with the rules' decision column");
	db_close(db);
	ok((db = db_open(dir, 1, &err)) != NULL, "a current schema opens without being redone");
	store_upgrade(db);
	test_requests(db);
	test_decisions(db);
	test_audit(db);
	ok(store_policy_seen(db, &t) == 0 && t == -1, "no policy seen yet");
	store_policy_seen_set(db, 42);
	ok(store_policy_seen(db, &t) == 0 && t == 42, "the newest acceptance is kept");
	ok(store_begin(db) == 0 && store_nonce_use(db, "n2", "x", 1) == 1, "in a transaction");
	store_rollback(db);
	is_int(store_nonce_use(db, "n2", "x", 1), 1, "a rolled back consumption is undone");
	/* Group commit: a savepoint only inside the batch's transaction. One
	 * outside it would begin a transaction its release commits alone. */
	is_int(store_savepoint(db), -1, "no savepoint outside a transaction");
	ok(store_begin(db) == 0 && store_savepoint(db) == 0 && store_release(db) == 0 &&
	    store_commit(db) == 0, "a savepoint inside one, released, committed");
	ok(store_begin(db) == 0, "a batch begins");
	store_rollback(db);   /* as SQLite does by itself on SQLITE_FULL */
	is_int(store_savepoint(db), -1, "after the batch is rolled back, the next request fails too");
	/* The statement helper reads exactly one argument per parameter. */
	is_int(run(db, "DELETE FROM nonces WHERE nonce = ? AND used = ?", "t", "n2"), -1,
	    "fewer letters than parameters: refused, nothing read");
	is_int(run(db, "DELETE FROM nonces WHERE nonce = ?", "ti", "n2", (int64_t)1), -1,
	    "more letters than parameters: refused");
	is_int(one(db, "SELECT count(*) FROM nonces WHERE nonce = ?", -9, "tt", "a", "b"), -1,
	    "the same for one()");
	/* Kept statements (db_prepare_kept): parsed once, reset after each
	 * use (no read transaction left open), finalized at the close. */
	{
		sqlite3_stmt *k1, *k2;

		is_int(store_count_pending(db, 10), store_count_pending(db, 10),
		    "a kept statement gives the same answer twice");
		ok((k1 = sqlite3_next_stmt(db, NULL)) != NULL, "it is kept after its use");
		is_int(store_count_pending(db, 10), store_count_pending(db, 10), "used again");
		k2 = sqlite3_next_stmt(db, NULL);
		ok(k1 == k2, "the same statement, not parsed again");
		ok(sqlite3_get_autocommit(db) && !sqlite3_stmt_busy(k1),
		    "reset: no transaction left open by it");
	}
	ro = store_open_ro(dir, &err);
	ok(ro != NULL, "the read-only view opens");
	is_int(store_rule_add(ro, &nr), -1, "and cannot write");
	is_int(store_nonce_use(ro, "n3", "x", 1), -1, "not even a nonce");
	is_int(store_intents_count(ro), 1, "but reads");
	db_close(ro);
	db_close(db);
	test_idle_close();
	snprintf(path, sizeof(path), "rm -rf '%s'", dir);
	if (system(path) != 0)
		return 1;
	return tap_done();
}
