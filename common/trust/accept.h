/*
 * accept.h - the policy a human accepted. `sbx policy accept` (and
 * `sbx init`, `sbx policy edit`) sign the BLAKE2b-256 of policy.json's
 * bytes with the approver key into .sandbox/policy.accepted:
 *
 *   {"v": 1, "hash": HEX, "approver": NAME, "key_id": HEX16, "time": N, "sig": HEX}
 *
 * sig is Ed25519 over "sbx-policy-v1\0" then, length-prefixed (4-byte
 * big-endian): the raw hash, approver, key id, time (decimal), folder.
 * The hook and sbxd load the policy only through policy_load_accepted():
 * a policy.json changed without being accepted fails closed.
 */
#ifndef SBX_ACCEPT_H
#define SBX_ACCEPT_H

#include <stddef.h>
#include <stdint.h>

#include "common/base/util.h"

/* Only a pointer crosses this header: the policy engine's contract
 * (policy/policy.h) is the caller's to include. */
struct policy;

#define SBX_ACCEPTED_FILE "policy.accepted"

/*
 * The rollback floor. `sbx policy accept` signs times that only move
 * forward for a folder and records the newest in CONFIG/accepted/NAME
 * ({"folder": PATH, "time": N}), before it writes policy.accepted. The
 * config dir is outside the agent's write reach (read-only in the jail,
 * protected by the policy's self-protection, the approver key lives
 * there), where .sandbox/ is not: policy_load_accepted() refuses an
 * acceptance older than the record, so an old policy.json put back with
 * its old, validly signed policy.accepted fails closed in the hook, sbx
 * and sbxd alike. No record (a folder accepted before records existed)
 * is floor 0; an unreadable or foreign one fails closed.
 */
#define SBX_FLOOR_DIR "accepted"

/* NAME for folder: 32 hex digits of the BLAKE2b-128 of its path. */
void accept_floor_name(const char *folder, char name[33]);
/* 0 with *t (0 when there is no record), or -1 with why. */
int accept_floor_read(const char *config, const char *folder, int64_t *t, char *why,
    size_t whysz);

int accept_message(const unsigned char hash[32], const char *approver,
    const char *key_id, int64_t time, const char *folder, unsigned char **out,
    size_t *len);

/*
 * Loads FOLDER's policy and checks that a trusted approver accepted
 * exactly these bytes. NULL with msg set (a sentence that names the
 * command to run) when the policy is invalid or not accepted.
 */
struct policy *policy_load_accepted(const char *folder, const char *config,
    char *msg, size_t msgsz);
/* The same through SBFD, FOLDER/.sandbox open already (sbxd's own: what
 * it verifies is what it watches and what its policy cache describes). */
struct policy *policy_load_accepted_at(int sbfd, const char *folder, const char *config,
    char *msg, size_t msgsz);

#endif
