/*
 * audit_index.c - the request index of the audit log; see audit_index.h.
 *
 * Rules:
 * - MUST never let the index lead the log: rows are written after the
 *   log is synced, and the state only moves past what the rows cover.
 * - Correctness never depends on the index: readers check each indexed
 *   line and scan the log after the state's position.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/audit/audit_record.h"
#include "common/protocol/queue.h"
#include "common/store/audit_index.h"

#define MAX_NOTES 100000            /* unflushed rows; beyond, stop until restart */

struct note {
	char request[SBX_ID_LEN + 1];
	int64_t seq, off, len;
	int seg;
};

struct audit_index {
	sqlite3 *db;
	struct note *v;
	size_t n, cap;
	int64_t seq, off;           /* position after the last noted record */
	int64_t flushed;            /* seq that audit_index_state holds, -1 unknown */
	int seg;
	int stopped;                /* notes were dropped: the state stays behind */
};

static const char schema[] =
    "CREATE TABLE IF NOT EXISTS audit_index (request TEXT NOT NULL, seq INTEGER NOT NULL,"
    " seg INTEGER NOT NULL, off INTEGER NOT NULL, len INTEGER NOT NULL,"
    " PRIMARY KEY (request, seq)) WITHOUT ROWID;"
    "CREATE TABLE IF NOT EXISTS audit_index_state (id INTEGER PRIMARY KEY CHECK (id = 1),"
    " seq INTEGER NOT NULL, seg INTEGER NOT NULL, off INTEGER NOT NULL);";

/* The request id of a record line, when it names one. */
static int
line_request(const char *p, size_t n, char out[SBX_ID_LEN + 1])
{
	static const char key[] = "\",\"request\":\"";
	const char *k = memmem(p, n < 300 ? n : 300, key, sizeof(key) - 1);

	if (!k || (size_t)(k - p) + sizeof(key) - 1 + SBX_ID_LEN + 1 > n)
		return 0;
	k += sizeof(key) - 1;
	if (k[SBX_ID_LEN] != '"')
		return 0;
	memcpy(out, k, SBX_ID_LEN);
	out[SBX_ID_LEN] = '\0';
	return is_hex(out, SBX_ID_LEN);
}

void
audit_index_note(struct audit_index *x, const char *request, int64_t seq, int seg,
    int64_t off, int64_t len)
{
	struct note *nv;

	if (!x || x->stopped)
		return;
	if (request && is_hex(request, SBX_ID_LEN)) {
		if (x->n == x->cap) {
			if (x->cap >= MAX_NOTES ||
			    !(nv = realloc(x->v, (x->cap ? x->cap * 2 : 64) * sizeof(*nv)))) {
				x->stopped = 1;
				x->n = 0;
				return;
			}
			x->v = nv;
			x->cap = x->cap ? x->cap * 2 : 64;
		}
		memcpy(x->v[x->n].request, request, SBX_ID_LEN + 1);
		x->v[x->n].seq = seq;
		x->v[x->n].seg = seg;
		x->v[x->n].off = off;
		x->v[x->n].len = len;
		x->n++;
	}
	x->seq = seq;
	x->seg = seg;
	x->off = off + len;
}

int
audit_index_flush(struct audit_index *x)
{
	sqlite3_stmt *ins = NULL, *st = NULL;
	size_t i;
	int rc = -1;

	if (!x || x->stopped || !x->db || !sqlite3_get_autocommit(x->db))
		return 0;
	/* Nothing new since the last flush: no write (sbxd calls this once
	 * per pass of its loop, idle or not). */
	if (x->n == 0 && x->seq == x->flushed)
		return 0;
	/* A cache: no fsync of its own (the log was synced before this). */
	if (sqlite3_exec(x->db, "PRAGMA synchronous=NORMAL; BEGIN", NULL, NULL, NULL) != SQLITE_OK)
		goto restore;
	if (sqlite3_prepare_v2(x->db, "INSERT OR REPLACE INTO audit_index (request, seq, seg,"
	    " off, len) VALUES (?,?,?,?,?)", -1, &ins, NULL) != SQLITE_OK ||
	    sqlite3_prepare_v2(x->db, "INSERT OR REPLACE INTO audit_index_state (id, seq, seg,"
	    " off) VALUES (1,?,?,?)", -1, &st, NULL) != SQLITE_OK)
		goto rollback;
	for (i = 0; i < x->n; i++) {
		sqlite3_bind_text(ins, 1, x->v[i].request, -1, SQLITE_STATIC);
		sqlite3_bind_int64(ins, 2, x->v[i].seq);
		sqlite3_bind_int(ins, 3, x->v[i].seg);
		sqlite3_bind_int64(ins, 4, x->v[i].off);
		sqlite3_bind_int64(ins, 5, x->v[i].len);
		if (sqlite3_step(ins) != SQLITE_DONE)
			goto rollback;
		sqlite3_reset(ins);
	}
	sqlite3_bind_int64(st, 1, x->seq);
	sqlite3_bind_int(st, 2, x->seg);
	sqlite3_bind_int64(st, 3, x->off);
	if (sqlite3_step(st) != SQLITE_DONE ||
	    sqlite3_exec(x->db, "COMMIT", NULL, NULL, NULL) != SQLITE_OK)
		goto rollback;
	x->n = 0;
	x->flushed = x->seq;
	rc = 0;
	goto restore;
rollback:
	sqlite3_exec(x->db, "ROLLBACK", NULL, NULL, NULL);
restore:
	sqlite3_finalize(ins);
	sqlite3_finalize(st);
	sqlite3_exec(x->db, "PRAGMA synchronous=FULL", NULL, NULL, NULL);
	return rc;
}

/* Notes every record of segment file NAME (number seg) from byte off,
 * where record want must start (0: any). -2 when it does not: the index
 * belongs to another log. */
static int
catch_up_file(struct audit_index *x, int sbfd, const char *name, int seg, int64_t off,
    int64_t want)
{
	char id[SBX_ID_LEN + 1];
	struct audit_line l;
	const char *p, *end, *nl, *why;
	struct stat st;
	size_t len;
	char *buf;
	int fd;

	/* Only what lies past the indexed position is read: an index that
	 * is up to date costs no read of the log (the first event of a
	 * folder sbxd left idle opens it). */
	if ((fd = openat_nf(sbfd, name, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY, 0)) < 0)
		return errno == ENOENT ? 0 : -1;
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) || st.st_nlink != 1 ||
	    st.st_size > (1L << 30)) {
		close(fd);
		return -1;
	}
	if (off > (int64_t)st.st_size) {
		close(fd);
		return -2;
	}
	len = (size_t)(st.st_size - off);
	if (!(buf = malloc(len + 1)) || (len && pread(fd, buf, len, off) != (ssize_t)len)) {
		free(buf);
		close(fd);
		return -1;
	}
	close(fd);
	for (p = buf, end = buf + len; p < end; p = nl + 1) {
		if (!(nl = memchr(p, '\n', (size_t)(end - p))) ||
		    audit_line_check(p, (size_t)(nl - p), &l, &why) != 0)
			break;
		if (want && l.seq != want) {
			free(buf);
			return -2;
		}
		want = 0;
		audit_index_note(x, line_request(p, (size_t)(nl - p), id) ? id : NULL, l.seq,
		    seg, off + (int64_t)(p - buf), (int64_t)(nl + 1 - p));
		if (x->n >= 4096 && audit_index_flush(x) < 0)
			break;
	}
	free(buf);
	return 0;
}

struct audit_index *
audit_index_open(sqlite3 *db, int sbfd, int nseg, int64_t last_seq, struct sbx_err *err)
{
	struct audit_index *x;
	sqlite3_stmt *st;
	char *emsg = NULL, name[32];
	int seg = 1, k, have = 0, rc;
	int64_t off = 0, seq = 0;

	if (sqlite3_exec(db, schema, NULL, NULL, &emsg) != SQLITE_OK) {
		err_set(err, "state.db: %s", emsg ? emsg : "error");
		sqlite3_free(emsg);
		return NULL;
	}
	if (!(x = calloc(1, sizeof(*x)))) {
		err_set(err, "out of memory");
		return NULL;
	}
	x->db = db;
	x->flushed = -1;
	if (sqlite3_prepare_v2(db, "SELECT seq, seg, off FROM audit_index_state WHERE id = 1",
	    -1, &st, NULL) == SQLITE_OK) {
		if (sqlite3_step(st) == SQLITE_ROW) {
			seq = sqlite3_column_int64(st, 0);
			seg = sqlite3_column_int(st, 1);
			off = sqlite3_column_int64(st, 2);
			have = 1;
		}
		sqlite3_finalize(st);
	}
	/* A log started anew (moved aside) under an old index: rebuild. */
	if (have && (seg < 1 || seg > nseg + 1 || off < 0 || seq > last_seq)) {
rebuild:
		sqlite3_exec(db, "DELETE FROM audit_index; DELETE FROM audit_index_state", NULL,
		    NULL, NULL);
		seg = 1, off = 0, seq = 0;
		have = 0;
		x->n = 0;
		x->flushed = -1;
	}
	x->seq = seq;
	x->seg = seg;
	x->off = off;
	/* What the state row holds already is not written again: a start
	 * with nothing new to index writes nothing. */
	if (have)
		x->flushed = seq;
	for (k = seg; k <= nseg + 1; k++) {
		if (k <= nseg)
			snprintf(name, sizeof(name), "audit.%06d.jsonl", k);
		else
			snprintf(name, sizeof(name), "audit.jsonl");
		rc = catch_up_file(x, sbfd, name, k, k == seg ? off : 0, k == seg ? seq + 1 : 0);
		if (rc == -2 && have)
			goto rebuild;
		if (rc < 0)
			break;
	}
	if (audit_index_flush(x) < 0) {
		err_set(err, "state.db: cannot write the audit index");
		audit_index_close(x);
		return NULL;
	}
	return x;
}

void
audit_index_close(struct audit_index *x)
{
	if (!x)
		return;
	(void)audit_index_flush(x);
	free(x->v);
	free(x);
}

void
audit_index_set_db(struct audit_index *x, sqlite3 *db)
{
	if (x)
		x->db = db;
}
