/*
 * sign.h - the approver's key pair and decision signing. Human side
 * only: nothing agent-facing links this.
 *
 * CONFIG/approver.key (mode 0600) holds:
 *   sbx-approver-key-v1
 *   name NAME
 *   public HEX64
 *   secret HEX128
 * The secret is wiped from memory after use (approver_key_wipe).
 */
#ifndef SBX_SIGN_H
#define SBX_SIGN_H

#include "common/base/util.h"
#include "common/protocol/queue.h"

struct approver_key {
	char name[64];
	char key_id[17];
	unsigned char pk[32];
	unsigned char sk[64];
};

/* 0 loaded; -1 with err (missing, wrong mode, malformed). */
int approver_key_load(const char *config, struct approver_key *k, struct sbx_err *err);

/* Creates a key pair named name unless one exists; trusts its public
 * key (CONFIG/approvers/NAME.pub). 1 created, 0 existed, -1 error. */
int approver_key_create(const char *config, const char *name, struct sbx_err *err);

/* Fills d->approver, key_id, created, nonce and sig. */
int decision_sign(struct decision *d, const struct approver_key *k, int ttl_seconds);

void approver_key_wipe(struct approver_key *k);

#endif
