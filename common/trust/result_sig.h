/*
 * result_sig.h - results signed by sbxd, checked by the hook.
 *
 * sbxd signs every results/ID.json with its Ed25519 key (the audit
 * log's, CONFIG/daemon.key): "sig" is the signature, in hex, of
 * "sbx-result-v1\n" followed by the canonical JSON (common/base/json.h) of
 * the document without "sig". The hook accepts a result only when it
 * verifies with CONFIG/daemon.pub and carries the request's hash, so a
 * result file forged by code in the agent's folder is never delivered.
 */
#ifndef SBX_RESULT_SIG_H
#define SBX_RESULT_SIG_H

#include <stddef.h>
#include <cjson/cJSON.h>

/* The signed bytes: the tag, then the canonical JSON of r without its
 * "sig". Caller frees; NULL on error. */
unsigned char *result_sig_message(const cJSON *r, size_t *len);
/* Adds "sig" to r (result_sign.c: sbxd only). 0 or -1. */
int result_sig_add(cJSON *r, const unsigned char sk[64]);
/* 1 when r carries a valid "sig" by pk, else 0. */
int result_sig_ok(const cJSON *r, const unsigned char pk[32]);
/* Reads CONFIG/NAME (daemon.pub, or daemon.UID.pub for the sbxd of another
 * user: deployment 3), 64 hex. 0 or -1. */
int result_pub_load(const char *config, const char *name, unsigned char pk[32]);

#endif
