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

#include "common/util.h"

/* Only a pointer crosses this header: the policy engine's contract
 * (policy/policy.h) is the caller's to include. */
struct policy;

#define SBX_ACCEPTED_FILE "policy.accepted"

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

#endif
