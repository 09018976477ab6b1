/*
 * callctx.h - the context a tool call is judged in, built the same way
 * for the hook and for `sbx policy check`: the accepted policy (none when
 * policy.json is invalid or not accepted: the hook then denies every
 * call), the session's temp dir ($TMPDIR when it is absolute, else none)
 * and the home directory ($HOME when absolute).
 */
#ifndef SBX_CALLCTX_H
#define SBX_CALLCTX_H

#include "policy/policy.h"

struct call_ctx {
	struct policy *pol;     /* the accepted policy (owned), or NULL */
	const char *tmpdir;     /* borrowed from the environment, or NULL */
	const char *home;       /* borrowed from the environment, or NULL */
	char msg[600];          /* why pol is NULL */
};

/*
 * Loads FOLDER's accepted policy and reads the environment. Returns 0, or
 * -1 with msg set when the policy is invalid or not accepted.
 */
int call_ctx_load(struct call_ctx *cx, const char *folder, const char *config);

/* Fills the context's part of a call: home and tmpdir. */
void call_ctx_fill(const struct call_ctx *cx, struct policy_call *call);

void call_ctx_free(struct call_ctx *cx);

#endif
