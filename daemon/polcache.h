/*
 * polcache.h - a folder's verified policy, kept while what it was
 * verified from stays the same (internal to sbxd: daemon/folder.c).
 *
 * folder_policy() loaded policy.json, checked its acceptance (a trusted
 * key's signature over its hash, the rollback floors) and compiled it
 * for every request: about 55 system calls and an Ed25519 verification
 * between the claim and the commit. It now does that once per change of
 * its inputs:
 *
 *   .sandbox/policy.json, .sandbox/policy.accepted (the agent's user can
 *   write both), CONFIG/approvers/ and CONFIG/approvers/NAME.pub (the key
 *   that signed the acceptance), CONFIG/accepted/FLOOR (the rollback
 *   floor; its absence counts too).
 *
 * Each is compared by fstatat(AT_SYMLINK_NOFOLLOW) before every use:
 * device, inode, mode, links, size, mtime and ctime (nanoseconds). Why
 * that is sound against a process of the same user:
 * - Any change of a file's content or metadata, in place or by putting
 *   another file there (rename, unlink + create), sets the ctime of the
 *   inode the path then names to the current time; ctime cannot be set
 *   from user space (utimensat sets atime and mtime only), and the clock
 *   cannot be set back without CAP_SYS_TIME.
 * - The one hole is the clock's granularity: a change within the same
 *   tick as the ctime recorded could leave it equal. A policy is kept
 *   only when every input's ctime was at least PC_SETTLE_MS old when its
 *   verification began (git's "racily clean" rule), and every input was
 *   the same after the verification as before it (so what was verified
 *   is what the key describes); a change after that has a later ctime.
 * - The two files in .sandbox are kept open (O_PATH) while cached: their
 *   inodes cannot be freed, so no other file can take their numbers.
 * - A kept policy is dropped after PC_TTL_MS anyway (and when the folder
 *   is closed or its database closed idle): what compiling it read
 *   besides those files (the folder's and the home's path components)
 *   is read again at least that often.
 * A cache hit skips the rollback check against state.db's policy_seen:
 * policy.accepted is the one that check passed, unchanged. t267 swaps
 * and edits the policy in place between two requests.
 */
#ifndef SBX_POLCACHE_H
#define SBX_POLCACHE_H

#include "daemon/folder.h"

#define PC_SETTLE_MS 1000       /* an input younger than this: not kept */
#define PC_TTL_MS   10000       /* verified again at least this often */

struct policy;
struct polcache;

/* The policy kept for f, held (release with polcache_release), when its
 * inputs are unchanged and it is younger than PC_TTL_MS; else NULL (and
 * whatever was kept is dropped). */
struct policy *polcache_get(struct folder *f);
/* Around a full verification: polcache_begin() before (a snapshot of
 * the inputs, allocated: NULL without memory), then polcache_end() with
 * its result p (NULL: invalid): p is kept when the inputs were settled
 * and did not change meanwhile. Returns p held, whether kept or not. */
struct polcache *polcache_begin(struct folder *f);
struct policy *polcache_end(struct folder *f, struct polcache *snap, struct policy *p);
/* Gives back a policy from folder_policy(): freed unless it is kept. */
void polcache_release(struct policy *p);
/* Forgets what f kept (its files' fds closed). */
void polcache_drop(struct folder *f);

#endif
