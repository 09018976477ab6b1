/*
 * policy.c - the entry point: policy_eval() sets up the evidence of one
 * call, has eval.c judge it, and reports (see policy.h).
 *
 * Layer: entry (see docs/ARCHITECTURE.md). Includes policy/eval.h.
 *
 * Rules: policy_eval() never returns allow on an error: no policy, no
 * tool name or a malformed tool_input deny or escalate.
 */
#include "policy/eval.h"

#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* out = a b (a may be out), cut to outsz like snprintf. */
static void
cat(char *out, size_t outsz, const char *a, const char *b)
{
	size_t al = strnlen(a, outsz - 1), bl = strnlen(b, outsz - 1 - al);

	if (a != out)
		memmove(out, a, al);
	memcpy(out + al, b, bl);
	out[al + bl] = '\0';
}

void
policy_eval(const struct policy *p, const struct policy_call *call,
    struct policy_result *res)
{
	struct ev ev;
	struct path_cache pc;
	char fac[256];

	memset(res, 0, sizeof(*res));
	res->verdict = POLICY_ALLOW;
	if (p == NULL || call == NULL || call->tool == NULL ||
	    call->tool[0] == '\0') {
		res->verdict = POLICY_DENY;
		snprintf(res->trigger, sizeof(res->trigger), "tool");
		snprintf(res->rule, sizeof(res->rule), "builtin: input");
		snprintf(res->reason, sizeof(res->reason), "%s",
		    p == NULL ? "no valid policy: denied" : "no tool name: denied");
		res->risk = POLICY_RISK_HIGH;
		return;
	}
	memset(&ev, 0, offsetof(struct ev, cwd));
	ev.cwd[0] = ev.home[0] = ev.dflt_buf[0] = '\0';
	path_cache_init(&pc);
	ev.pc = &pc;
	ev.p = p;
	/* the home, resolved once: rules compare resolved paths */
	ev.callx = *call;
	if (call->home != NULL && call->home[0] == '/' &&
	    policy_home(p, call->home, ev.home, sizeof(ev.home)) == 0)
		ev.callx.home = ev.home;
	/* the folder's and the home's components: looked at once a policy */
	pc.seed = policy_seed(p);
	ev.call = &ev.callx;
	ev.res = res;
	ev.net_pipeline = -1;
	ev.list_pipeline = -1;
	ev.secret_pipeline = -1;
	ev.secret_out = -1;
	/* the real directory, as the folder is: a cwd reached through a
	 * symlink is still inside the project */
	if (call->cwd != NULL && p->folder != NULL &&
	    strcmp(call->cwd, p->folder) == 0 &&
	    strlen(p->folder) < sizeof(ev.cwd)) {
		strcpy(ev.cwd, p->folder);      /* resolved at load */
		ev.cwd_known = 1;
	} else if (call->cwd != NULL && call->cwd[0] == '/' &&
	    path_resolve_c(ev.pc, "/", NULL, call->cwd, ev.cwd, sizeof(ev.cwd)) == 0)
		ev.cwd_known = 1;
	else if (p->folder != NULL &&
	    path_resolve_c(ev.pc, "/", NULL, p->folder, ev.cwd, sizeof(ev.cwd)) == 0)
		ev.cwd_known = 1;
	eval_tool(&ev);
	if (ev.stack != ev.stack0) {
		free(ev.stack);
		free(ev.stack_known);
	}
	res->risk = rules_risk(res->factors);
	if (res->reason[0] == '\0') {
		/* the allow path, the most common one: no format machinery */
		cat(res->trigger, sizeof(res->trigger), "",
		    eval_default_trigger(call->tool));
		cat(res->rule, sizeof(res->rule), "", "builtin: defaults");
		policy_factors_text(res->factors, fac, sizeof(fac));
		cat(res->reason, sizeof(res->reason), "",
		    "allowed by the built-in defaults");
		if (fac[0] != '\0') {
			cat(res->reason, sizeof(res->reason), res->reason, ": ");
			cat(res->reason, sizeof(res->reason), res->reason, fac);
		}
	}
}
