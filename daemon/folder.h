/*
 * folder.h - one folder served by sbxd: its lock, database and queue.
 *
 * sbxd is the only writer of state.db and of pending/, done/, results/,
 * rejected/ and work/. A folder is served by one sbxd at a time (an
 * exclusive flock on .sandbox/sbxd.lock).
 */
#ifndef SBX_FOLDER_H
#define SBX_FOLDER_H

#include <limits.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sqlite3.h>

#include "common/base/util.h"
#include "daemon/audit.h"

#define SBX_MAX_RUNNING 64
#define SBX_KEEP_UNDELIVERED (24 * 3600)   /* seconds a result waits in pending/ */
#define SBX_PRUNE_CAP_DELAY 1               /* seconds from a delivery to a look at the size cap */
#define SBX_PRUNE_CAP_STUCK 60              /* ... when over it with nothing prunable */

struct audit;

struct running {
	pid_t pid;                  /* executor; 0 when the slot is free */
	char id[17];
};

struct folder {
	char *path;                 /* resolved (owned: folder_free); "" until known */
	const char *config;         /* sbx config dir: trusted keys (sbxd's, kept by the caller) */
	int sbfd;                   /* FOLDER/.sandbox */
	int lockfd;
	sqlite3 *db;                /* NULL while closed (idle: folder_db_close) */
	/* What state.db was when sbxd closed it (folder_db_open compares). */
	struct stat db_closed;
	int64_t seen_closed;        /* policy_seen then */
	/* Served since start without its database or audit log ever opened:
	 * its idle record (daemon/idle.h) matched; audit.jsonl as recorded
	 * then (folder_db_open compares it too). */
	int lazy;
	struct stat audit_closed;
	/* The log's tail as sbxd left it (audit_tail): from the record for a
	 * lazy folder, or taken at a clean stop for the record to write. */
	struct audit_tail tail;
	int tail_ok;
	int64_t locked_since;       /* reopen found it locked (seconds), 0 not */
	int rescan;                 /* events may have been missed meanwhile */
	/* (its inotify watches are sbxd.c's: a table of wd -> folder) */
	int dead;                   /* removed or replaced: no longer served */
	dev_t dev;                  /* identity of the tree sbxd opened */
	ino_t ino_folder, ino_sandbox, ino_sub[12];
	struct audit *audit;        /* the folder's audit log (daemon/audit.h) */
	/* Timed work, in seconds since the epoch (0: none due): sbxd sleeps
	 * until the earliest of every folder's, with no periodic wake. */
	int64_t due_sweep;          /* an undelivered result's day is up */
	int64_t due_prune;          /* retention: the next output to prune */
	int64_t keep_s;             /* keep_results_days in seconds, as last read; -1 */
	int64_t cap_b;              /* keep_results_mb in bytes, as last read; 0 none */
	struct running run[SBX_MAX_RUNNING];
	/* Rejection notes written since the last folder_sync_rejected() (not
	 * synced yet: one sync of rejected/ for a pass, not two per file). */
	char **notes;
	size_t n_notes, cap_notes;
	struct polcache *pc;        /* the verified policy kept (polcache.h) */
	int wal_pages;              /* state.db's WAL after the last commit */
};

/* Daemon-wide settings shared by every folder. */
struct daemon_opts {
	char **env;                 /* clean environment for commands */
	const int *lock_fds;        /* every folder's lock fd, closed in executors */
	int n_lock_fds;
	int verbose;
};

/* Opens and locks a folder (its .sandbox, lock, queue directories);
 * folder_open_db then opens its database and records the tree's
 * identity. -1 with err set. config must outlive f (one string for
 * every folder: 1,000 folders). */
int folder_open(struct folder *f, const char *path, const char *config,
    struct sbx_err *err);
int folder_open_db(struct folder *f, struct sbx_err *err);
void folder_close(struct folder *f);
/* folder_close, then frees f (allocated by the caller) and its path. */
void folder_free(struct folder *f);

/* Crash recovery. lazy: the folder's idle record matched (sbxd left it
 * idle, with every finished request's retention recorded): done/ is not
 * walked for requests without a retention row. */
void folder_recover(struct folder *f, const struct daemon_opts *o, int lazy);
/* Processes everything waiting in queue/new and decisions/new. */
void folder_rescan(struct folder *f, const struct daemon_opts *o);
/* Moves requests whose result was delivered (or is old) to done/ and
 * writes results that are missing (a full disk). Sets due_sweep. (Old
 * finished output is pruned by folder_prune, on its own timer.) */
void folder_sweep(struct folder *f, const struct daemon_opts *o);
/* One batch of retention; sets due_prune (now when a full batch went). */
void folder_prune(struct folder *f);
/* A delivery receipt queue/delivered/NAME appeared: done/ at once. */
void folder_delivered(struct folder *f, const char *name);
/* The earliest expiry of a pending request (seconds), 0 when none. */
int64_t folder_next_expiry(struct folder *f);
/* Claims queue/new/NAME and records it; with it whatever else waits in
 * queue/new, up to 64 (group commit: daemon/request.c). */
void folder_request(struct folder *f, const struct daemon_opts *o, const char *name);
void folder_decision(struct folder *f, const struct daemon_opts *o, const char *name);
/* An agent-side event (queue/events/NAME) for the audit log. */
void folder_event(struct folder *f, const struct daemon_opts *o, const char *name);
/* Expires undecided requests past their deadline. */
void folder_expire(struct folder *f);
/* Handles a reaped executor; 1 if it belonged to this folder. */
int folder_reaped(struct folder *f, pid_t pid);
/* Sends sig to every running executor of the folder. */
void folder_signal_running(struct folder *f, int sig);
int folder_running(const struct folder *f);
/* Approved requests waiting to start (a slot, or their audit records). */
int folder_waiting(struct folder *f);
/*
 * Checks that the folder, its .sandbox and the queue directories and
 * state.db are still the ones sbxd opened (same inodes, not removed, not
 * symlinks). If not, marks the folder dead and says so loudly: sbxd
 * then neither reads nor writes it (a replaced tree is not ours to write
 * into). Returns 0 when intact, -1 when dead.
 */
int folder_check(struct folder *f);
/*
 * An idle folder's database is closed (SQLite's WAL-index, heap and
 * statements: ~60 KB each, 1,000 folders) and reopened on its next
 * event or timer; what is due next stays in memory (struct served).
 * folder_db_idle: 1 when the database could be closed now (open, no
 * command running or waiting, no transaction, the audit log idle).
 * folder_db_close: closes it (WAL checkpointed and cut to 0 bytes) and
 * remembers what state.db then is: 0, or -1 and it stays open.
 * folder_db_open: reopens it when closed, after checking that it is the
 * database sbxd closed - the same tree (folder_check), state.db the same
 * file, unchanged (inode, size, times), no WAL frames or links planted
 * beside it, the same signed audit head and policy_seen inside. Any
 * difference is TAMPERING: said loudly, and the folder is no longer
 * served (dead). 0 open, -1 dead.
 */
int folder_db_idle(struct folder *f);
/*
 * At start, before the database is opened: 0 when the folder's idle
 * record (daemon/idle.h) is intact and still describes it exactly, and
 * it has nothing to do (empty drop boxes and pending/, no retention due
 * now): the folder is then lazy, with what folder_db_open checks and
 * when its retention is due taken from the record. -1 (why says what
 * differs; "" when there is no record) for the full open.
 */
int folder_idle_load(struct folder *f, char *why, size_t whysz);
/* A lazy folder's audit log could not be opened: said as TAMPERING, its
 * database closed, no longer served. Always -1. */
int folder_tampered(struct folder *f, const char *why);
int folder_db_close(struct folder *f);
int folder_db_open(struct folder *f);
/* 1 when something waits in a drop box (queue/new, decisions/new,
 * queue/events, proxy/events) or pending/ (or one cannot be read), 0
 * when all are empty: a folder whose database is closed then has nothing
 * a rescan would do (nothing runs or waits to start there). */
int folder_inbox_busy(struct folder *f);
/* folder_db_open's -1 for a database another connection holds a lock
 * on (a reader, a sqlite3 shell): not tampering; the folder stays
 * served, the reopen is tried again at due_sweep (a second later) and
 * the folder rescanned then (rescan set). */
#define SBX_REOPEN_RETRY    1       /* seconds to the next try */
/* How many folders' databases are open now. */
int folder_db_count(void);
/* When a queue path was refused since the last call because a directory
 * on it is a symlink (or not a directory: common/base/util.h, *_nf), says so
 * loudly and returns 1: the caller then checks every folder
 * (folder_check), so the one whose tree was swapped stops at once. */
int folder_refusals(void);
/* Starts approved requests that wait for a free slot (at most
 * SBX_MAX_RUNNING run at once per folder; the rest wait, oldest first). */
void folder_start_waiting(struct folder *f, const struct daemon_opts *o);

__attribute__((format(printf, 2, 3)))
void logf_folder(const struct folder *f, const char *fmt, ...);

/* Internal to sbxd: shared by the steps of daemon/ (folder.c). */
struct policy;
struct policy_error;
/* Moves DIR/NAME to rejected/ with a .why note; leaves it if it cannot.
 * The note is made durable by the next folder_sync_rejected(). */
void folder_reject(struct folder *f, const char *dir, const char *name, const char *why);
/* Makes the rejections since the last call durable: each note's data,
 * then rejected/ once (the moves and the notes' names): at the end of
 * every pass of sbxd's loop, with its audit sync, and when the folder
 * is closed. */
void folder_sync_rejected(struct folder *f);
/* After a read of DIR/NAME failed with ENOENT (exact: read_untrusted()):
 * 1 when the file is simply gone (an earlier pass took it before its
 * inotify event arrived: normal, quiet); 0 when DIR itself is missing,
 * which is said, recorded, and the tree checked. */
int folder_gone_quietly(struct folder *f, const char *dir, const char *name);
/* The folder's accepted policy, verified (signature, not rolled back),
 * once per change of its inputs (daemon/polcache.h); NULL with perr when
 * it is invalid. The caller gives it back with polcache_release(). */
struct policy *folder_policy(struct folder *f, struct policy_error *perr);
/* sbxd, about to sleep: state.db's WAL checkpointed (passive) when it
 * holds SBX_WAL_PAGES or more, never inside a commit (db_wal_watch). */
#define SBX_WAL_PAGES 1000
void folder_checkpoint(struct folder *f);
/* Judges and records the claimed request pending/ID.json (request.c). */
void request_ingest(struct folder *f, const struct daemon_opts *o, const char *id);
/* A connection record from sbx-proxy (proxy/events/NAME). */
void folder_proxy_event(struct folder *f, const struct daemon_opts *o, const char *name);

#endif
