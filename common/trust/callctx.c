/*
 * callctx.c - the context of a call, one way for the hook and for
 * `sbx policy check` (see callctx.h).
 */
#include <stdlib.h>
#include <string.h>

#include "common/trust/accept.h"
#include "common/trust/callctx.h"

int
call_ctx_load(struct call_ctx *cx, const char *folder, const char *config)
{
	const char *t = getenv("TMPDIR"), *h = getenv("HOME");

	memset(cx, 0, sizeof(*cx));
	/* the session's own temp dir, when the client names one: writes
	 * below it are allowed; without one, none is */
	cx->tmpdir = t != NULL && t[0] == '/' ? t : NULL;
	cx->home = h != NULL && h[0] == '/' ? h : NULL;
	cx->pol = policy_load_accepted(folder, config, cx->msg, sizeof(cx->msg));
	return cx->pol != NULL ? 0 : -1;
}

void
call_ctx_fill(const struct call_ctx *cx, struct policy_call *call)
{
	call->home = cx->home;
	call->tmpdir = cx->tmpdir;
}

void
call_ctx_free(struct call_ctx *cx)
{
	policy_free(cx->pol);
	cx->pol = NULL;
}
