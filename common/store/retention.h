/*
 * retention.h - pruning the output of finished requests (issue 16).
 *
 * A request's files - done/ID.json and results/ID.{json,stdout,stderr} -
 * are kept until its result was delivered (or given up on: see
 * SBX_KEEP_UNDELIVERED) plus limits.keep_results_days of the policy, then
 * removed by sbxd in bounded batches. A size cap (limits.keep_results_mb)
 * prunes delivered output earlier, oldest delivery first, when the
 * delivered output of the folder exceeds it; output not yet delivered is
 * never pruned (nor counted). Its history stays: the row in state.db and
 * the audit log (which records the output hashes). Table `retention
 * (request, delivered, pruned, bytes, why)` in state.db says when each was
 * delivered and pruned, how large its files were and which limit pruned
 * them ("days" or "size"); `sbx show ID` reads it to say "output pruned on
 * DATE". Written only by sbxd, with synchronous=NORMAL: a row lost in a
 * crash is re-created at the next start with a later time, so output is
 * never pruned early.
 */
#ifndef SBX_RETENTION_H
#define SBX_RETENTION_H

#include <stdint.h>
#include <sqlite3.h>

#define RETENTION_BATCH 256         /* requests pruned per pass, at most (~50 ms) */

/* What one pass pruned. */
struct retention_pass {
	int by_days;                /* requests past keep_results_days */
	int by_size;                /* requests past keep_results_mb */
	int64_t bytes;              /* their files' bytes */
	int64_t kept_bytes;         /* delivered output left (when a size cap is set) */
};

/* Creates the table (and adds the columns a table of an older sbxd
 * lacks). 0 or -1. */
int retention_init(sqlite3 *db);
/* Records that request id was delivered (moved to done/) at when, with
 * the size of its files under sbfd. */
void retention_delivered(sqlite3 *db, int sbfd, const char *id, int64_t when);
/* Records every request in done/ that has no row yet (older history, or
 * rows lost in a crash) as delivered now. Returns how many, or -1. */
int retention_adopt(sqlite3 *db, int sbfd, int64_t now);
/* Prunes at most batch requests, oldest delivery first and only finished
 * ones: those delivered at least keep seconds before now, then, when
 * cap_bytes > 0 and the delivered output left exceeds it, as many more as
 * bring it under the cap. Fills *out. Returns how many, or -1. */
int retention_prune(sqlite3 *db, int sbfd, int64_t keep, int64_t cap_bytes, int64_t now,
    int batch, struct retention_pass *out);
/* The earliest delivery time after `after` of output not pruned yet, 0
 * when none: sbxd's next prune is due keep seconds after it. */
int64_t retention_next(sqlite3 *db, int64_t after);
/* When request id's output was pruned (seconds), 0 when it was not; *why
 * (when not NULL) is set to "days" or "size" (static). */
int64_t retention_pruned_at(sqlite3 *db, const char *id, const char **why);

#endif
