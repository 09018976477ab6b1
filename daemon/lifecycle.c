/*
 * lifecycle.c - the request life cycle table (lifecycle.h). Pure data and
 * lookups: no I/O, so tests/unit/test_lifecycle.c checks it alone.
 */
#include <stddef.h>

#include "daemon/lifecycle.h"

struct life_rule {
	enum life_state from;
	enum life_event ev;
	enum life_state to;
	unsigned effects;
};

static const struct life_rule table[] = {
	{ LS_NEW, LE_INVALID, LS_REJECTED, LF_RECORD | LF_RESULT | LF_NOTIFY },
	{ LS_NEW, LE_ASK, LS_PENDING, LF_RECORD | LF_NOTIFY },
	{ LS_NEW, LE_RULE, LS_WAITING, LF_RECORD | LF_RULE_USE | LF_EXEC },
	{ LS_NEW, LE_RULE_OPENS, LS_APPROVED, LF_RECORD | LF_RULE_USE | LF_RESULT },
	{ LS_PENDING, LE_VOTE, LS_PENDING, LF_CONSUME },
	{ LS_PENDING, LE_APPROVE, LS_WAITING, LF_CONSUME | LF_UPDATE | LF_EXEC },
	{ LS_PENDING, LE_APPROVE_OPENS, LS_APPROVED, LF_CONSUME | LF_UPDATE | LF_RESULT },
	{ LS_PENDING, LE_DENY, LS_DENIED, LF_CONSUME | LF_UPDATE | LF_RESULT | LF_NOTIFY },
	{ LS_PENDING, LE_EXPIRE, LS_EXPIRED, LF_UPDATE | LF_RESULT },
	{ LS_WAITING, LE_START, LS_RUNNING, LF_UPDATE | LF_EXEC },
	{ LS_WAITING, LE_REFUSE, LS_REJECTED, LF_UPDATE | LF_RESULT },
	{ LS_RUNNING, LE_FORK_FAILED, LS_INTERRUPTED, LF_UPDATE | LF_RESULT },
	{ LS_RUNNING, LE_EXIT, LS_DONE, LF_UPDATE },
	{ LS_RUNNING, LE_LOST, LS_INTERRUPTED, LF_UPDATE | LF_RESULT },
};

int
lifecycle_step(enum life_state from, enum life_event ev, struct life_step *out)
{
	size_t i;

	for (i = 0; i < sizeof(table) / sizeof(table[0]); i++)
		if (table[i].from == from && table[i].ev == ev) {
			out->to = table[i].to;
			out->effects = table[i].effects;
			return 0;
		}
	return -1;
}

int
lifecycle_status(enum life_state s, enum req_status *out)
{
	static const int status[LS_COUNT] = {
		[LS_NEW] = -1, [LS_PENDING] = REQ_PENDING, [LS_WAITING] = REQ_RUNNING,
		[LS_RUNNING] = REQ_RUNNING, [LS_APPROVED] = REQ_APPROVED,
		[LS_DONE] = REQ_DONE, [LS_INTERRUPTED] = REQ_INTERRUPTED,
		[LS_DENIED] = REQ_DENIED, [LS_REJECTED] = REQ_REJECTED,
		[LS_EXPIRED] = REQ_EXPIRED,
	};

	if ((unsigned)s >= LS_COUNT || status[s] < 0)
		return -1;
	*out = (enum req_status)status[s];
	return 0;
}

int
lifecycle_final(enum life_state s)
{
	size_t i;

	for (i = 0; i < sizeof(table) / sizeof(table[0]); i++)
		if (table[i].from == s)
			return 0;
	return 1;
}

const char *
lifecycle_state_name(enum life_state s)
{
	static const char *const names[LS_COUNT] = {
		"new", "pending", "waiting", "running", "approved", "done", "interrupted",
		"denied", "rejected", "expired",
	};

	return (unsigned)s < LS_COUNT ? names[s] : "?";
}

const char *
lifecycle_event_name(enum life_event e)
{
	static const char *const names[LE_COUNT] = {
		"invalid", "ask", "rule", "rule_opens", "vote", "approve", "approve_opens",
		"deny", "expire", "start", "refuse", "fork_failed", "exit", "lost",
	};

	return (unsigned)e < LE_COUNT ? names[e] : "?";
}
