/*
 * originals.h - recoverable originals: the content a file had before an
 * agent's Write/Edit replaced it, kept content-addressed under
 * .sandbox/queue/originals/ (the agent side's part of the queue):
 *
 *   objects/HASH            the bytes, named by their BLAKE2b-256
 *   index/MS-RAND.json      {"path", "hash", "size", "time", "tool",
 *                            "session", "skipped"?}
 *
 * The hook adds (originals_keep); sbxd prunes oldest-first to a size cap
 * (originals_prune); `sbx history` and `sbx restore` read them.
 */
#ifndef SBX_ORIGINALS_H
#define SBX_ORIGINALS_H

#include <stdint.h>

#include "common/base/util.h"

#define SBX_ORIGINALS_MAX_FILE  (10L * 1024 * 1024)    /* larger files: recorded as skipped */
#define SBX_ORIGINALS_CAP       (256L * 1024 * 1024)   /* store size before pruning */

struct original {
	char name[64];          /* index file name: sorts by time */
	char path[4096];
	char hash[65];          /* empty when skipped */
	char tool[64];
	char skipped[128];      /* why it was not kept, or empty */
	int64_t size, time_ms;
};

/*
 * Keeps the current content of PATH (absolute) if it is a regular file.
 * Returns 1 kept, 0 nothing to keep (no such file), 2 recorded as
 * skipped, -1 error (err set). Never follows a symlink at PATH.
 */
int originals_keep(int sbfd, const char *path, const char *tool, const char *session,
    struct sbx_err *err);

/* Every index entry, oldest first; *out freed by the caller. Count or -1. */
int originals_list(int sbfd, struct original **out);

/* Opens objects/HASH for reading after checking the name; fd or -1. */
int originals_open(int sbfd, const char *hash);

/* Deletes oldest entries (and unreferenced objects) until the objects
 * total at most cap bytes. Returns the number of entries removed. */
int originals_prune(int sbfd, int64_t cap);

#endif
