/*
 * audit.h - the folder's audit log, FOLDER/.sandbox/audit.jsonl: sbxd is
 * its only writer, and this module the only code that writes it.
 *
 * Records are hash-chained (common/audit/audit_record.h); every string is
 * scrubbed of secrets (common/redact/redact.h) before it is encoded. The head
 * (sequence, hash, time) is signed with the daemon's Ed25519 key
 * regularly, at rotation and at shutdown; the signed head is kept in
 * state.db (table audit_head) and as a "checkpoint" record in the log.
 * The active segment rotates by size into audit.NNNNNN.jsonl; the first
 * record of a new segment ("segment") names the previous one and its
 * head.
 *
 * Durability: audit_append() writes the line (O_APPEND) at once;
 * audit_sync() makes everything written so far durable (fdatasync) and
 * is called before an action is reported (a command started, a result
 * written) and once per main-loop pass (group commit).
 *
 * Errors: functions return 0 / -1; the daemon logs a failed append on
 * stderr and keeps serving (refusing to serve would not undo the event),
 * but runs no command unless its decision and approval_consumed records
 * are durably in the log (audit_intent, audit_intents_flush).
 */
#ifndef SBX_AUDIT_H
#define SBX_AUDIT_H

#include <stdint.h>
#include <sys/stat.h>
#include <sqlite3.h>
#include <cjson/cJSON.h>

#include "common/audit/audit_record.h"
#include "common/base/util.h"

#define AUDIT_KEY_FILE      "daemon.key"    /* CONFIG/daemon.key, 0600 */
#define AUDIT_PUB_FILE      "daemon.pub"    /* CONFIG/daemon.pub: 64 hex */
#define AUDIT_SEGMENT_BYTES (16L * 1024 * 1024)
#define AUDIT_CHECKPOINT_EVERY 1000         /* records, at the latest */
#define AUDIT_CHECKPOINT_MS 5000            /* and when idle this long */

struct audit_key {
	unsigned char pk[32], sk[64];
	char key_id[17];
};

/* Loads CONFIG/daemon.key, creating the key pair (and daemon.pub) on
 * first start. Refuses a key file that others can read. */
int audit_key_load(const char *config, struct audit_key *k, struct sbx_err *err);
void audit_key_wipe(struct audit_key *k);

struct audit_opts {
	long segment_bytes;         /* rotate above this; 0: AUDIT_SEGMENT_BYTES */
	int checkpoint_every;       /* 0: AUDIT_CHECKPOINT_EVERY */
};

struct audit;

/*
 * Opens the log of the folder whose .sandbox is sbfd, and checks its
 * tail against the signed head in db: a log that ends before the head,
 * or differs from it, is refused (NULL, err says what to do). A torn
 * last line (a crash mid-write, never synced) is cut and recorded.
 * key is borrowed and must outlive the log.
 */
struct audit *audit_open(int sbfd, sqlite3 *db, const struct audit_key *key,
    const struct audit_opts *o, struct sbx_err *err);

/*
 * The log's tail as sbxd leaves it idle (every record synced and signed):
 * kept in sbxd's idle record of the folder (daemon/idle.h), so that the
 * next run's first event resumes the log without reading it.
 */
struct audit_tail {
	int64_t seq;                        /* the last record */
	unsigned char hash[AUDIT_HASH_LEN];
	int64_t head_seq;                   /* the signed head in state.db */
	unsigned char head_hash[AUDIT_HASH_LEN];
	int64_t head_off;                   /* where its line starts in audit.jsonl */
	int64_t size;                       /* audit.jsonl's size: the last line ends there */
	int64_t intents;                    /* the highest intent id the log holds */
	int64_t seg_no;                     /* the highest N of audit.NNNNNN.jsonl */
};

/*
 * audit_open with the tail sbxd recorded when it left the log (r->tail)
 * and what audit.jsonl was then (r->st: inode, size, times). When the
 * file opened is that one, state.db holds that signed head, the segments
 * are those, and the bytes from the head's line to the end are exactly
 * the recorded records, each intact and chained (one read of a few
 * hundred bytes): the log is resumed there without reading the rest
 * (r->used 1). Any difference (r->why) falls back to audit_open's full
 * read and checks, which decide as always. r NULL: audit_open.
 */
struct audit_resume {
	const struct audit_tail *tail;
	const struct stat *st;
	int used;
	char why[160];
};
struct audit *audit_open_resume(int sbfd, sqlite3 *db, const struct audit_key *key,
    const struct audit_opts *o, struct audit_resume *r, struct sbx_err *err);
/* The tail to record: 0, or -1 when the log is not idle (audit_idle) or
 * its head's line is not known to be in audit.jsonl (none recorded). */
int audit_tail(const struct audit *a, struct audit_tail *t);
/* What audit_close does before it frees: a checkpoint when records
 * wait, then a sync (so that audit_tail may be taken). */
void audit_settle(struct audit *a);

/* Checkpoints, syncs and frees. NULL is a no-op. */
void audit_close(struct audit *a);

/*
 * Appends one record. data (an object, may be NULL) is consumed. Every
 * string is redacted first. request and session may be NULL.
 */
int audit_append(struct audit *a, const char *event, const char *request,
    const char *session, const char *actor, cJSON *data);

/*
 * The same with the data given as typed (key, value) items, ended by
 * AU_END:
 *
 *   audit_log(a, "exec_started", id, session, "daemon",
 *       AU_I("pid", pid), AU_S("cwd", cwd), AU_B("auto", is_auto), AU_END);
 *
 * Each item carries its own type tag, and the helper functions below make
 * the compiler check each value's type: AU_S a string (NULL: null), AU_I
 * an integer, AU_B a boolean, AU_H a 32-byte hash (written as hex), AU_J
 * a cJSON item (consumed; NULL: null). a may be NULL (no-op).
 */
static inline const char *au_s(const char *v) { return v; }
static inline int64_t au_i(int64_t v) { return v; }
static inline int au_b(int v) { return v != 0; }
static inline const unsigned char *au_h(const unsigned char *v) { return v; }
static inline cJSON *au_j(cJSON *v) { return v; }
#define AU_S(k, v)  's', (const char *)(k), au_s(v)
#define AU_I(k, v)  'i', (const char *)(k), au_i(v)
#define AU_B(k, v)  'b', (const char *)(k), au_b(v)
#define AU_H(k, v)  'h', (const char *)(k), au_h(v)
#define AU_J(k, v)  'j', (const char *)(k), au_j(v)
#define AU_END      0

int audit_log(struct audit *a, const char *event, const char *request,
    const char *session, const char *actor, ...);

/*
 * The same items, recorded as an intent in state.db (table audit_intents)
 * instead of the log: call it inside the transaction that makes the
 * state change the record describes, then audit_intents_flush() after
 * the commit. So a crash between the commit and the append loses no
 * record: audit_open() writes what is left (marked "replayed"). Every
 * record written from an intent carries its id ("intent").
 */
int audit_intent(struct audit *a, const char *event, const char *request,
    const char *session, const char *actor, ...);
/* Appends every waiting intent, syncs, then deletes them. 0 when none is
 * left; -1 when some could not be written (they stay, for a retry). */
int audit_intents_flush(struct audit *a);
/* How many intents wait in db, or -1 (for `sbx audit verify`). */
int64_t audit_intents_pending(sqlite3 *db);

int audit_sync(struct audit *a);
int audit_checkpoint(struct audit *a);
/* Periodic work: a checkpoint when records wait and the last one is
 * older than AUDIT_CHECKPOINT_MS; a sync when anything is unsynced. */
void audit_tick(struct audit *a);
/* When audit_tick() has work next (mono_ms() clock): 0 when it has some
 * now, INT64_MAX when none until more is logged. sbxd sleeps until the
 * earliest of these and its other timers. */
int64_t audit_due(const struct audit *a);

/* 1 when hash differs from the last policy hash seen (and remembers it). */
int audit_policy_changed(struct audit *a, const unsigned char hash[32]);

/* How many records could not be written (disk full, I/O error) so far:
 * sbxd reports a change on stderr. The count is also kept in state.db
 * (table audit_failures, next to the signed head), for `sbx audit
 * verify`. Intents that wait for the log are not counted: they are kept. */
int64_t audit_failures(const struct audit *a);

/* The head: the last record's sequence number. */
int64_t audit_seq(const struct audit *a);

/*
 * A record held back (data consumed) until any other record is written,
 * then written just before it: sbxd's daemon_start, so that a folder
 * with nothing to do is not written at start. audit_deferred: 1 while
 * it is still held back (nothing was logged since).
 */
void audit_defer(struct audit *a, const char *event, cJSON *data);
int audit_deferred(const struct audit *a);

/*
 * An idle folder's database is closed and reopened later (daemon/folder.c):
 * audit_idle: 1 when nothing waits for the database or the disk (all
 * synced, signed, intents purged). audit_detach: forgets the database
 * (-1 when not idle, or the request index cannot be written); until
 * audit_attach, records are still appended, but nothing that needs
 * state.db is done (a checkpoint fails; an intent is refused).
 * audit_attach: takes the reopened database if it holds exactly the
 * signed head this process last read or stored, else -1 and why (it is
 * not the database sbxd closed: an older copy put back, or another).
 */
int audit_idle(const struct audit *a);
int audit_detach(struct audit *a);
int audit_attach(struct audit *a, sqlite3 *db, char *why, size_t whysz);

#endif
