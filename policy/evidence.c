/*
 * evidence.c - the findings of one call: the worst verdict wins, and the
 * risk factors add up.
 *
 * Layer: evidence (see docs/ARCHITECTURE.md). Includes policy/evidence.h.
 *
 * Rules: ev_note() only ever raises a verdict; nothing can lower one.
 */
#include "policy/evidence.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

void
ev_factor(struct ev *ev, unsigned f)
{
	ev->res->factors |= f;
}

/* As snprintf(out, outsz, "%s", s), without the format machinery. */
static void
copy(char *out, size_t outsz, const char *s)
{
	size_t n = strnlen(s, outsz - 1);

	memcpy(out, s, n);
	out[n] = '\0';
}

void
ev_note(struct ev *ev, enum policy_verdict v, const char *trigger,
    const char *rule, const char *fmt, ...)
{
	struct policy_result *r = ev->res;
	int rank = (int)rules_risk(r->factors);
	va_list ap;

	/* The worst verdict wins; among equals, the finding made when the
	 * risk had grown (curl | sh: the pipe, not the download). */
	if (v < r->verdict || (v == r->verdict && r->reason[0] != '\0' &&
	    rank <= ev->rank))
		return;
	ev->rank = rank;
	r->verdict = v;
	copy(r->trigger, sizeof(r->trigger), trigger);
	copy(r->rule, sizeof(r->rule), rule);
	va_start(ap, fmt);
	vsnprintf(r->reason, sizeof(r->reason), fmt, ap);
	va_end(ap);
	/* variable markers of the shell reader read as "$" */
	for (char *q = r->reason; *q != '\0'; q++)
		if (*q == SH_VAR_MARK)
			*q = '$';
}
