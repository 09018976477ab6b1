/*
 * retention.c - pruning the output of finished requests; see retention.h.
 *
 * Rules:
 * - MUST NOT remove anything of a request that is not in done/ and
 *   finished in state.db: a result the agent may still need stays.
 * - MUST bound the work of one pass (RETENTION_BATCH requests), for the
 *   size cap too: a folder far over it comes under it over several passes.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <sys/stat.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/base/util.h"
#include "common/protocol/queue.h"
#include "common/store/retention.h"

int
retention_init(sqlite3 *db)
{
	sqlite3_stmt *st;

	if (sqlite3_exec(db, "CREATE TABLE IF NOT EXISTS retention (request TEXT PRIMARY KEY,"
	    " delivered INTEGER NOT NULL, pruned INTEGER);"
	    "CREATE INDEX IF NOT EXISTS retention_due ON retention(pruned, delivered);",
	    NULL, NULL, NULL) != SQLITE_OK)
		return -1;
	/* Columns an older sbxd's table lacks: bytes NULL means not yet
	 * measured (retention_prune measures them). */
	if (sqlite3_prepare_v2(db, "SELECT bytes, why FROM retention LIMIT 0", -1, &st, NULL)
	    == SQLITE_OK) {
		sqlite3_finalize(st);
	} else if (sqlite3_exec(db, "ALTER TABLE retention ADD COLUMN bytes INTEGER;"
	    "ALTER TABLE retention ADD COLUMN why TEXT", NULL, NULL, NULL) != SQLITE_OK) {
		return -1;
	}
	return sqlite3_exec(db, "CREATE INDEX IF NOT EXISTS retention_size ON"
	    " retention(pruned, bytes)", NULL, NULL, NULL) == SQLITE_OK ? 0 : -1;
}

/* Bytes of request id's files (results/ID.*, done/ID.json). */
static int64_t
output_bytes(int sbfd, const char *id)
{
	static const enum queue_kind kinds[] = { QP_RESULT, QP_STDOUT, QP_STDERR, QP_DONE };
	struct stat st;
	int64_t n = 0;
	size_t i;

	for (i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++)
		if (fstatat_nf(sbfd, queue_path(kinds[i], id).s, &st) == 0 && S_ISREG(st.st_mode))
			n += (int64_t)st.st_size;
	return n;
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
insert_row(sqlite3_stmt *st, int sbfd, const char *id, int64_t when)
{
	int rc;

	sqlite3_bind_text(st, 1, id, -1, SQLITE_STATIC);
	sqlite3_bind_int64(st, 2, when);
	sqlite3_bind_int64(st, 3, output_bytes(sbfd, id));
	rc = sqlite3_step(st);
	sqlite3_reset(st);
	return rc == SQLITE_DONE ? 0 : -1;
}

void
retention_delivered(sqlite3 *db, int sbfd, const char *id, int64_t when)
{
	sqlite3_stmt *st;
	int began = cheap_txn_begin(db), ok = 0;

	if (began < 0)
		return;
	if (sqlite3_prepare_v2(db, "INSERT OR IGNORE INTO retention (request, delivered,"
	    " bytes) VALUES (?, ?, ?)", -1, &st, NULL) == SQLITE_OK) {
		ok = insert_row(st, sbfd, id, when) == 0;
		sqlite3_finalize(st);
	}
	cheap_txn_end(db, began, ok);
}

int
retention_adopt(sqlite3 *db, int sbfd, int64_t now)
{
	char id[SBX_ID_LEN + 1];
	sqlite3_stmt *st = NULL, *have = NULL;
	struct dirent *de;
	int began, n = 0, ok = 1, rc;
	DIR *d;

	if (!(d = opendir_at(sbfd, "done")))
		return -1;
	if ((began = cheap_txn_begin(db)) < 0) {
		closedir(d);
		return -1;
	}
	if (sqlite3_prepare_v2(db, "INSERT OR IGNORE INTO retention (request, delivered,"
	    " bytes) VALUES (?, ?, ?)", -1, &st, NULL) != SQLITE_OK ||
	    sqlite3_prepare_v2(db, "SELECT 1 FROM retention WHERE request = ?", -1, &have,
	    NULL) != SQLITE_OK)
		ok = 0;
	while (ok && (de = readdir(d)))
		if (valid_request_name(de->d_name, id)) {
			/* Most have their row (made at delivery): their files are
			 * not looked at again (four stats each, at every open). */
			sqlite3_bind_text(have, 1, id, -1, SQLITE_STATIC);
			rc = sqlite3_step(have);
			sqlite3_reset(have);
			if (rc == SQLITE_ROW)
				continue;
			if (rc != SQLITE_DONE || insert_row(st, sbfd, id, now) < 0)
				ok = 0;
			else
				n += sqlite3_changes(db);
		}
	sqlite3_finalize(have);
	sqlite3_finalize(st);
	closedir(d);
	cheap_txn_end(db, began, ok);
	return ok ? n : -1;
}

static void
remove_output(int sbfd, const char *id)
{
	static const enum queue_kind kinds[] = {
		QP_RESULT, QP_STDOUT, QP_STDERR, QP_DONE, QP_DELIVERED,
	};
	size_t i;

	for (i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++)
		(void)unlinkat_nf(sbfd, queue_path(kinds[i], id).s, 0);
}

/* Request ids from a query whose first column is the id (binds i64
 * parameters a, b, c, as many as it has); at most max of them. With
 * sbfd >= 0, an id still in pending/ (held back: see prune_ids) is
 * skipped, so held-back requests neither fill a batch nor count as
 * freed bytes; at most 4 * max held-back ones are skipped per query. */
static int
select_ids(sqlite3 *db, const char *sql, int64_t a, int64_t b, int64_t c,
    char (*ids)[SBX_ID_LEN + 1], int64_t *bytes, int max, int sbfd)
{
	sqlite3_stmt *st;
	const char *id;
	int n = 0, np, skipped = 0;

	if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK)
		return -1;
	np = sqlite3_bind_parameter_count(st);
	if (np >= 1)
		sqlite3_bind_int64(st, 1, a);
	if (np >= 2)
		sqlite3_bind_int64(st, 2, b);
	if (np >= 3)
		sqlite3_bind_int64(st, 3, c);
	while (n < max && skipped <= 4 * max && sqlite3_step(st) == SQLITE_ROW) {
		if (!(id = (const char *)sqlite3_column_text(st, 0)) || !valid_id(id))
			continue;
		if (sbfd >= 0 && exists_nf(sbfd, queue_path(QP_PENDING, id).s)) {
			skipped++;
			continue;
		}
		memcpy(ids[n], id, SBX_ID_LEN + 1);
		bytes[n++] = sqlite3_column_int64(st, 1);
	}
	sqlite3_finalize(st);
	return n;
}

/* Measures rows without a size (from an older sbxd), at most max. */
static int
measure_rows(sqlite3 *db, int sbfd, int max)
{
	char ids[RETENTION_BATCH][SBX_ID_LEN + 1];
	int64_t unused[RETENTION_BATCH];
	sqlite3_stmt *st;
	int n, i, ok = 1;

	n = select_ids(db, "SELECT request, 0 FROM retention WHERE pruned IS NULL AND bytes"
	    " IS NULL LIMIT ?1", max, 0, 0, ids, unused, max, -1);
	if (n <= 0)
		return n;
	if (sqlite3_prepare_v2(db, "UPDATE retention SET bytes = ? WHERE request = ?", -1, &st,
	    NULL) != SQLITE_OK)
		return -1;
	for (i = 0; i < n && ok; i++) {
		sqlite3_bind_int64(st, 1, output_bytes(sbfd, ids[i]));
		sqlite3_bind_text(st, 2, ids[i], -1, SQLITE_STATIC);
		ok = sqlite3_step(st) == SQLITE_DONE;
		sqlite3_reset(st);
	}
	sqlite3_finalize(st);
	return ok ? n : -1;
}

static int64_t
kept_bytes(sqlite3 *db)
{
	sqlite3_stmt *st;
	int64_t t = -1;

	if (sqlite3_prepare_v2(db, "SELECT coalesce(sum(bytes), 0) FROM retention WHERE"
	    " pruned IS NULL", -1, &st, NULL) != SQLITE_OK)
		return -1;
	if (sqlite3_step(st) == SQLITE_ROW)
		t = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	return t;
}

/* Removes the output of ids[0..n) (an id still in pending/ is kept and
 * blanked) and marks them pruned for why. 0 or -1. */
static int
prune_ids(sqlite3 *db, int sbfd, char (*ids)[SBX_ID_LEN + 1], int n, int64_t now,
    const char *why)
{
	sqlite3_stmt *st;
	int i, ok = 1;

	for (i = 0; i < n; i++) {
		/* Still in pending/ (a race with a restart): not delivered, keep it. */
		if (exists_nf(sbfd, queue_path(QP_PENDING, ids[i]).s))
			ids[i][0] = '\0';
		else
			remove_output(sbfd, ids[i]);
	}
	if (n == 0)
		return 0;
	if (sqlite3_prepare_v2(db, "UPDATE retention SET pruned = ?, why = ? WHERE request = ?",
	    -1, &st, NULL) != SQLITE_OK)
		return -1;
	for (i = 0; i < n && ok; i++) {
		if (!ids[i][0])
			continue;
		sqlite3_bind_int64(st, 1, now);
		sqlite3_bind_text(st, 2, why, -1, SQLITE_STATIC);
		sqlite3_bind_text(st, 3, ids[i], -1, SQLITE_STATIC);
		ok = sqlite3_step(st) == SQLITE_DONE;
		sqlite3_reset(st);
	}
	sqlite3_finalize(st);
	return ok ? 0 : -1;
}

/* Only requests that finished: never pending, running or unknown. */
#define FINISHED "JOIN requests q ON q.id = r.request WHERE r.pruned IS NULL AND" \
	" q.status NOT IN ('pending', 'running')"

int
retention_prune(sqlite3 *db, int sbfd, int64_t keep, int64_t cap_bytes, int64_t now,
    int batch, struct retention_pass *out)
{
	char ids[RETENTION_BATCH][SBX_ID_LEN + 1];
	int64_t bytes[RETENTION_BATCH], total;
	int n, i, m, began, ok = 0;

	memset(out, 0, sizeof(*out));
	out->kept_bytes = -1;
	if (batch > RETENTION_BATCH)
		batch = RETENTION_BATCH;
	if ((began = cheap_txn_begin(db)) < 0)
		return -1;
	/* Past the days of retention. */
	n = select_ids(db, "SELECT r.request, coalesce(r.bytes, 0) FROM retention r " FINISHED
	    " AND r.delivered <= ?1 ORDER BY r.delivered, r.rowid LIMIT ?2", now - keep,
	    5 * batch, 0, ids, bytes, batch, sbfd);
	if (n < 0 || prune_ids(db, sbfd, ids, n, now, "days") < 0)
		goto out;
	for (i = 0; i < n; i++)
		if (ids[i][0]) {
			out->by_days++;
			out->bytes += bytes[i];
		}
	/* Past the size cap: the oldest deliveries until under it. */
	if (cap_bytes > 0 && n < batch) {
		if (measure_rows(db, sbfd, batch - n) < 0 || (total = kept_bytes(db)) < 0)
			goto out;
		if (total > cap_bytes) {
			m = select_ids(db, "SELECT r.request, coalesce(r.bytes, 0) FROM retention r "
			    FINISHED " ORDER BY r.delivered, r.rowid LIMIT ?1", 5 * (batch - n), 0, 0,
			    ids, bytes, batch - n, sbfd);
			if (m < 0)
				goto out;
			for (i = 0; i < m && total > cap_bytes; i++)
				total -= bytes[i];
			m = i;
			if (prune_ids(db, sbfd, ids, m, now, "size") < 0)
				goto out;
			for (i = 0; i < m; i++)
				if (ids[i][0]) {
					out->by_size++;
					out->bytes += bytes[i];
				}
		}
		out->kept_bytes = kept_bytes(db);
	}
	ok = 1;
out:
	cheap_txn_end(db, began, ok);
	return ok ? out->by_days + out->by_size : -1;
}

int64_t
retention_next(sqlite3 *db, int64_t after)
{
	sqlite3_stmt *st;
	int64_t t = 0;

	if (sqlite3_prepare_v2(db, "SELECT MIN(delivered) FROM retention WHERE pruned IS NULL"
	    " AND delivered > ?", -1, &st, NULL) != SQLITE_OK)
		return 0;
	sqlite3_bind_int64(st, 1, after);
	if (sqlite3_step(st) == SQLITE_ROW)
		t = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	return t;
}

int64_t
retention_pruned_at(sqlite3 *db, const char *id, const char **why)
{
	sqlite3_stmt *st;
	const char *w;
	int64_t t = 0;

	if (why)
		*why = "days";
	if (sqlite3_prepare_v2(db, "SELECT pruned, why FROM retention WHERE request = ?", -1,
	    &st, NULL) != SQLITE_OK &&
	    sqlite3_prepare_v2(db, "SELECT pruned, NULL FROM retention WHERE request = ?", -1,
	    &st, NULL) != SQLITE_OK)
		return 0;
	sqlite3_bind_text(st, 1, id, -1, SQLITE_STATIC);
	if (sqlite3_step(st) == SQLITE_ROW) {
		t = sqlite3_column_int64(st, 0);
		w = (const char *)sqlite3_column_text(st, 1);
		if (why && w && !strcmp(w, "size"))
			*why = "size";
	}
	sqlite3_finalize(st);
	return t;
}
