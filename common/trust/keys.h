/*
 * keys.h - approver public keys: where they live and how they are read.
 *
 *   CONFIG/approver.key          this approver's key pair (0600, JSON)
 *   CONFIG/approvers/NAME.pub    public keys sbxd trusts: 64 hex digits
 *
 * Only public keys here; signing lives in approver/ so that nothing
 * agent-facing links it.
 */
#ifndef SBX_KEYS_H
#define SBX_KEYS_H

#include "common/base/util.h"

#define SBX_KEY_FILE     "approver.key"
#define SBX_TRUSTED_DIR  "approvers"

struct trusted_key {
	char name[64];
	char key_id[17];
	unsigned char pk[32];
};

/*
 * Finds the trusted key with this id in CONFIG/approvers/. Returns 1 and
 * fills *out when found, 0 when no trusted key has that id, -1 on error
 * (unreadable directory, malformed key file) with err set.
 */
int trusted_key_find(const char *config, const char *key_id,
    struct trusted_key *out, struct sbx_err *err);
/*
 * The same for a signature that names its approver: reads only
 * CONFIG/approvers/NAME.pub (the key an approver NAME signs with; no scan
 * of the others). 1 and *out when that file holds the key with this id,
 * 0 when NAME is not a valid approver name, has no key file or another
 * key, -1 on error (unreadable directory, a key file that is a symlink,
 * not ours or malformed) with err set.
 */
int trusted_key_named(const char *config, const char *name, const char *key_id,
    struct trusted_key *out, struct sbx_err *err);

/* Reads a .pub file's 32-byte key. */
int key_read_public(int dirfd, const char *name, unsigned char pk[32],
    struct sbx_err *err);

#endif
