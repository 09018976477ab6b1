/*
 * idle.h - what sbxd remembers of a folder it left idle, in its own
 * private state: CONFIG/idle/NAME (NAME: a hash of the folder's path),
 * mode 0600 in a 0700 directory of sbxd's user, never inside the folder
 * (the agent's side, and the jail, cannot reach it).
 *
 * A record is written when sbxd closes a folder's database idle (nothing
 * waiting in its drop boxes or in pending/, nothing running) and removed
 * when sbxd opens that database again, before anything writes it. At the
 * next start, a folder whose record is intact (its keyed hash, made with
 * a key derived from sbxd's signing key) and still describes the folder
 * exactly (the same tree, state.db, its -wal and -shm, audit.jsonl,
 * policy.accepted and drop boxes, by inode, size and times: ctime moves
 * on any write, rename, chmod or link and cannot be set back) has
 * nothing to do: sbxd watches it and opens its database and log only
 * at its first event or timer, with the same checks (folder_db_open),
 * resuming the log at the tail recorded (last record, signed head, where
 * its line starts, size, segments, intents) when audit.jsonl ends with
 * exactly those records, else reading it in full.
 * A folder without one, or whose record differs in anything, gets the
 * full open and crash recovery, as always.
 */
#ifndef SBX_IDLE_H
#define SBX_IDLE_H

#include <stdint.h>
#include <sys/stat.h>

#include "daemon/audit.h"

/* queue/new decisions/new queue/events proxy/events pending queue/wake */
#define IDLE_BOXES 6

struct idle_rec {
	char magic[16];             /* "sbxd-idle" */
	char version[32];           /* SBX_VERSION of the sbxd that wrote it */
	unsigned char path_hash[32];
	dev_t dev;
	ino_t ino_folder, ino_sandbox, ino_sub[12];
	struct stat db;             /* state.db as sbxd left it */
	struct stat audit;          /* .sandbox/audit.jsonl */
	struct stat accepted;       /* .sandbox/policy.accepted; st_ino 0: none */
	struct stat boxes[IDLE_BOXES];  /* each empty when the record was written */
	int64_t seen;               /* policy_seen in state.db */
	int64_t due_prune, keep_s, cap_b;
	/* The audit log's tail as sbxd left it (daemon/audit.h): the first
	 * event resumes the log there (audit_open_resume) instead of reading
	 * the active segment; tail_ok 0: not known (read in full). */
	struct audit_tail tail;
	int64_t tail_ok;
	unsigned char mac[32];
};

extern const char *const idle_boxes[IDLE_BOXES];

/* Opens (making it) CONFIG/idle and derives the record key from sk.
 * -1 when it cannot: every folder then gets the full open (said). */
int idle_init(const char *config, const unsigned char sk[64]);
/* 0 and *r when path has an intact record; -1 when it has none, -2
 * when the one it has is refused (damaged, not ours, another version). */
int idle_load(const char *path, struct idle_rec *r);
/* Writes r for path (atomically; no sync: a record lost in a crash only
 * means a full open at the next start). -1 on error. */
int idle_save(const char *path, struct idle_rec *r);
/* Removes path's record (before its database is written again). */
void idle_forget(const char *path);

#endif
