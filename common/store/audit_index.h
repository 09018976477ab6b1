/*
 * audit_index.h - where each request's audit records are, kept in
 * state.db by sbxd (the single writer) so that `sbx audit show --request
 * ID` reads those lines and the unindexed tail, never the whole log.
 *
 * Tables (see docs/AUDIT.md):
 *   audit_index (request, seq, seg, off, len)  one row per record that
 *       names a request; seg is the segment number the record's file has
 *       or will have when rotated (audit.NNNNNN.jsonl; the active
 *       audit.jsonl is the highest), off/len its bytes in that file.
 *   audit_index_state (id = 1, seq, seg, off)  the log is indexed up to
 *       record seq, which ends at byte off of segment seg.
 *
 * Rows are kept in memory and written in one transaction when the log is
 * synced (group commit), with synchronous=NORMAL: the index is a cache
 * and may lag the log after a crash, never lead it. audit_index_open()
 * catches up on the log at start (rebuilds it when missing); readers
 * scan the log after the state's position, and check every indexed line.
 */
#ifndef SBX_AUDIT_INDEX_H
#define SBX_AUDIT_INDEX_H

#include <stdint.h>
#include <sqlite3.h>

#include "common/base/util.h"

struct audit_index;

/* Creates the tables and indexes what the log holds past the state
 * (every segment when there is none, or when the state does not fit this
 * log: then it is rebuilt): sbfd is .sandbox, nseg the highest rotated
 * segment number, last_seq the log's last record. NULL with err on a
 * database error. */
struct audit_index *audit_index_open(sqlite3 *db, int sbfd, int nseg,
    int64_t last_seq, struct sbx_err *err);
/* Notes one record just written (request may be NULL: only the position
 * moves). */
void audit_index_note(struct audit_index *x, const char *request, int64_t seq,
    int seg, int64_t off, int64_t len);
/* Writes what was noted; 0 or -1 (kept for the next flush). Skipped while
 * the connection is inside a transaction. */
int audit_index_flush(struct audit_index *x);
void audit_index_close(struct audit_index *x);
/* The connection to write to from now on (NULL: none, while sbxd has the
 * database closed; notes wait in memory). */
void audit_index_set_db(struct audit_index *x, sqlite3 *db);

#endif
