/*
 * retention.h - pruning the output of finished requests (issue 16).
 *
 * A request's files - done/ID.json and results/ID.{json,stdout,stderr} -
 * are kept until its result was delivered (or given up on: see
 * SBX_KEEP_UNDELIVERED) plus limits.keep_results_days of the policy, then
 * removed by sbxd in bounded batches. Its history stays: the row in
 * state.db and the audit log (which records the output hashes). Table
 * `retention (request, delivered, pruned)` in state.db says when each was
 * delivered and pruned; `sbx show ID` reads it to say "output pruned on
 * DATE". Written only by sbxd, with synchronous=NORMAL: a row lost in a
 * crash is re-created at the next start with a later time, so output is
 * never pruned early.
 */
#ifndef SBX_RETENTION_H
#define SBX_RETENTION_H

#include <stdint.h>
#include <sqlite3.h>

#define RETENTION_BATCH 256         /* requests pruned per pass, at most (~50 ms) */

/* Creates the table. 0 or -1. */
int retention_init(sqlite3 *db);
/* Records that request id was delivered (moved to done/) at when. */
void retention_delivered(sqlite3 *db, const char *id, int64_t when);
/* Records every request in done/ that has no row yet (older history, or
 * rows lost in a crash) as delivered now. Returns how many, or -1. */
int retention_adopt(sqlite3 *db, int sbfd, int64_t now);
/* Prunes at most batch requests delivered at least keep seconds before
 * now, oldest first, and only finished ones. Returns how many, or -1. */
int retention_prune(sqlite3 *db, int sbfd, int64_t keep, int64_t now, int batch);
/* The earliest delivery time after `after` of output not pruned yet, 0
 * when none: sbxd's next prune is due keep seconds after it. */
int64_t retention_next(sqlite3 *db, int64_t after);
/* When request id's output was pruned (seconds), 0 when it was not. */
int64_t retention_pruned_at(sqlite3 *db, const char *id);

#endif
