/*
 * retention.c - pruning the output of finished requests; see retention.h.
 *
 * Rules:
 * - MUST NOT remove anything of a request that is not in done/ and
 *   finished in state.db: a result the agent may still need stays.
 * - MUST bound the work of one pass (RETENTION_BATCH requests).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/queue.h"
#include "common/retention.h"

int
retention_init(sqlite3 *db)
{
	return sqlite3_exec(db, "CREATE TABLE IF NOT EXISTS retention (request TEXT PRIMARY KEY,"
	    " delivered INTEGER NOT NULL, pruned INTEGER);"
	    "CREATE INDEX IF NOT EXISTS retention_due ON retention(pruned, delivered);",
	    NULL, NULL, NULL) == SQLITE_OK ? 0 : -1;
}

/* One transaction without an fsync of its own (a lost row is re-created
 * later with a later time); 0 inside the caller's transaction, 1 begun,
 * -1 on error. */
static int
cheap_txn_begin(sqlite3 *db)
{
	if (!sqlite3_get_autocommit(db))
		return 0;               /* inside the caller's transaction */
	if (sqlite3_exec(db, "PRAGMA synchronous=NORMAL; BEGIN", NULL, NULL, NULL) != SQLITE_OK) {
		sqlite3_exec(db, "PRAGMA synchronous=FULL", NULL, NULL, NULL);
		return -1;
	}
	return 1;
}

static void
cheap_txn_end(sqlite3 *db, int began, int ok)
{
	if (began != 1)
		return;
	if (!ok || sqlite3_exec(db, "COMMIT", NULL, NULL, NULL) != SQLITE_OK)
		sqlite3_exec(db, "ROLLBACK", NULL, NULL, NULL);
	sqlite3_exec(db, "PRAGMA synchronous=FULL", NULL, NULL, NULL);
}

static int
insert_row(sqlite3_stmt *st, const char *id, int64_t when)
{
	int rc;

	sqlite3_bind_text(st, 1, id, -1, SQLITE_STATIC);
	sqlite3_bind_int64(st, 2, when);
	rc = sqlite3_step(st);
	sqlite3_reset(st);
	return rc == SQLITE_DONE ? 0 : -1;
}

void
retention_delivered(sqlite3 *db, const char *id, int64_t when)
{
	sqlite3_stmt *st;
	int began = cheap_txn_begin(db), ok = 0;

	if (began < 0)
		return;
	if (sqlite3_prepare_v2(db, "INSERT OR IGNORE INTO retention (request, delivered)"
	    " VALUES (?, ?)", -1, &st, NULL) == SQLITE_OK) {
		ok = insert_row(st, id, when) == 0;
		sqlite3_finalize(st);
	}
	cheap_txn_end(db, began, ok);
}

int
retention_adopt(sqlite3 *db, int sbfd, int64_t now)
{
	char id[SBX_ID_LEN + 1];
	sqlite3_stmt *st = NULL;
	struct dirent *de;
	int began, n = 0, ok = 1;
	DIR *d;

	if (!(d = opendir_at(sbfd, "done")))
		return -1;
	if ((began = cheap_txn_begin(db)) < 0) {
		closedir(d);
		return -1;
	}
	if (sqlite3_prepare_v2(db, "INSERT OR IGNORE INTO retention (request, delivered)"
	    " VALUES (?, ?)", -1, &st, NULL) != SQLITE_OK)
		ok = 0;
	while (ok && (de = readdir(d)))
		if (valid_request_name(de->d_name, id)) {
			if (insert_row(st, id, now) < 0)
				ok = 0;
			else
				n += sqlite3_changes(db);
		}
	sqlite3_finalize(st);
	closedir(d);
	cheap_txn_end(db, began, ok);
	return ok ? n : -1;
}

static void
remove_output(int sbfd, const char *id)
{
	static const enum queue_kind kinds[] = { QP_RESULT, QP_STDOUT, QP_STDERR, QP_DONE };
	size_t i;

	for (i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++)
		(void)unlinkat(sbfd, queue_path(kinds[i], id).s, 0);
}

int
retention_prune(sqlite3 *db, int sbfd, int64_t keep, int64_t now, int batch)
{
	char ids[RETENTION_BATCH][SBX_ID_LEN + 1];
	sqlite3_stmt *st = NULL;
	const char *id;
	int n = 0, i, began, ok = 0;

	if (batch > RETENTION_BATCH)
		batch = RETENTION_BATCH;
	/* Only requests that finished: never pending, running or unknown. */
	if (sqlite3_prepare_v2(db, "SELECT r.request FROM retention r JOIN requests q ON"
	    " q.id = r.request WHERE r.pruned IS NULL AND r.delivered <= ?1 AND q.status NOT IN"
	    " ('pending', 'running') ORDER BY r.delivered LIMIT ?2", -1, &st, NULL) != SQLITE_OK)
		return -1;
	sqlite3_bind_int64(st, 1, now - keep);
	sqlite3_bind_int(st, 2, batch);
	while (n < batch && sqlite3_step(st) == SQLITE_ROW)
		if ((id = (const char *)sqlite3_column_text(st, 0)) && valid_id(id))
			memcpy(ids[n++], id, SBX_ID_LEN + 1);
	sqlite3_finalize(st);
	st = NULL;
	for (i = 0; i < n; i++) {
		/* Still in pending/ (a race with a restart): not delivered, keep it. */
		if (faccessat(sbfd, queue_path(QP_PENDING, ids[i]).s, F_OK, AT_SYMLINK_NOFOLLOW) == 0)
			ids[i][0] = '\0';
		else
			remove_output(sbfd, ids[i]);
	}
	if (n == 0 || (began = cheap_txn_begin(db)) < 0)
		return n;
	if (sqlite3_prepare_v2(db, "UPDATE retention SET pruned = ? WHERE request = ?", -1, &st,
	    NULL) == SQLITE_OK) {
		ok = 1;
		for (i = 0; i < n && ok; i++) {
			if (!ids[i][0])
				continue;
			sqlite3_bind_int64(st, 1, now);
			sqlite3_bind_text(st, 2, ids[i], -1, SQLITE_STATIC);
			ok = sqlite3_step(st) == SQLITE_DONE;
			sqlite3_reset(st);
		}
		sqlite3_finalize(st);
	}
	cheap_txn_end(db, began, ok);
	return ok ? n : -1;
}

int64_t
retention_pruned_at(sqlite3 *db, const char *id)
{
	sqlite3_stmt *st;
	int64_t t = 0;

	if (sqlite3_prepare_v2(db, "SELECT pruned FROM retention WHERE request = ?", -1, &st,
	    NULL) != SQLITE_OK)
		return 0;
	sqlite3_bind_text(st, 1, id, -1, SQLITE_STATIC);
	if (sqlite3_step(st) == SQLITE_ROW)
		t = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	return t;
}
