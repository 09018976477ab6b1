/*
 * test_lifecycle.c - the request life cycle table (daemon/lifecycle.c)
 * on its own, without processes: every step sbxd takes, every step it
 * must refuse, and the status each state is stored as.
 */
#include <string.h>

#include "daemon/lifecycle.c"
#include "tests/tap.h"

struct want {
	enum life_state from;
	enum life_event ev;
	enum life_state to;
	unsigned effects;
};

/* The life cycle as daemon/lifecycle.h draws it. */
static const struct want steps[] = {
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
#define NSTEPS (sizeof(steps) / sizeof(steps[0]))

static const struct want *
expected(enum life_state s, enum life_event e)
{
	size_t i;

	for (i = 0; i < NSTEPS; i++)
		if (steps[i].from == s && steps[i].ev == e)
			return &steps[i];
	return NULL;
}

static void
diag_pair(int s, int e)
{
	printf("# unexpected: %s --%s-->\n", lifecycle_state_name((enum life_state)s),
	    lifecycle_event_name((enum life_event)e));
}

/* Every (state, event) pair: in the table exactly as drawn, or refused
 * with the output untouched. */
static void
test_every_pair(void)
{
	struct life_step got;
	const struct want *w;
	int s, e, bad = 0, refused = 0;

	for (s = 0; s < LS_COUNT; s++)
		for (e = 0; e < LE_COUNT; e++) {
			got = (struct life_step){ .to = LS_COUNT, .effects = 0xdead };
			w = expected((enum life_state)s, (enum life_event)e);
			if (lifecycle_step((enum life_state)s, (enum life_event)e, &got) == 0) {
				if (!w || got.to != w->to || got.effects != w->effects) {
					diag_pair(s, e);
					bad++;
				}
			} else {
				refused++;
				if (w || got.to != LS_COUNT || got.effects != 0xdead) {
					diag_pair(s, e);
					bad++;
				}
			}
		}
	is_int(bad, 0, "every (state, event) pair is the drawn step or refused");
	is_int(refused, LS_COUNT * LE_COUNT - (int)NSTEPS, "%d pairs refused",
	    LS_COUNT * LE_COUNT - (int)NSTEPS);
}

/* Final states take no event: nothing leaves done, denied, rejected... */
static void
test_final(void)
{
	static const enum life_state final[] = {
		LS_APPROVED, LS_DONE, LS_INTERRUPTED, LS_DENIED, LS_REJECTED, LS_EXPIRED,
	};
	size_t i;

	for (i = 0; i < sizeof(final) / sizeof(final[0]); i++)
		ok(lifecycle_final(final[i]), "%s is final", lifecycle_state_name(final[i]));
	ok(!lifecycle_final(LS_NEW) && !lifecycle_final(LS_PENDING) &&
	    !lifecycle_final(LS_WAITING) && !lifecycle_final(LS_RUNNING),
	    "new, pending, waiting and running are not");
}

/* Safety properties of the table, whatever its rows. */
static void
test_properties(void)
{
	struct life_step got;
	int s, e, exec_from_pending = 0, run_without_approval = 0, consume_outside = 0;
	int reach[LS_COUNT] = { 0 }, changed = 1, unreachable = 0;

	for (s = 0; s < LS_COUNT; s++)
		for (e = 0; e < LE_COUNT; e++) {
			if (lifecycle_step((enum life_state)s, (enum life_event)e, &got) < 0)
				continue;
			/* A command starts only from an approval or a rule. */
			if ((got.effects & LF_EXEC) && e != LE_APPROVE && e != LE_RULE &&
			    e != LE_START)
				run_without_approval++;
			/* Only a waiting request is started. */
			if (e == LE_START && s != LS_WAITING)
				exec_from_pending++;
			/* A decision is consumed only on a pending request. */
			if ((got.effects & LF_CONSUME) && s != LS_PENDING)
				consume_outside++;
		}
	is_int(run_without_approval, 0, "nothing runs without an approval or a rule");
	is_int(exec_from_pending, 0, "only a waiting request starts");
	is_int(consume_outside, 0, "decisions are consumed on pending requests only");
	/* Every state is reachable from new. */
	reach[LS_NEW] = 1;
	while (changed) {
		changed = 0;
		for (s = 0; s < LS_COUNT; s++)
			for (e = 0; reach[s] && e < LE_COUNT; e++)
				if (lifecycle_step((enum life_state)s, (enum life_event)e, &got) == 0 &&
				    !reach[got.to])
					reach[got.to] = changed = 1;
	}
	for (s = 0; s < LS_COUNT; s++)
		unreachable += !reach[s];
	is_int(unreachable, 0, "every state is reachable from new");
	/* Running is reached only through waiting: an approval never skips
	 * the audit-log check and the started mark. */
	for (s = 0, e = 0; s < LS_COUNT; s++)
		for (int ev = 0; ev < LE_COUNT; ev++)
			if (lifecycle_step((enum life_state)s, (enum life_event)ev, &got) == 0 &&
			    got.to == LS_RUNNING && s != LS_WAITING)
				e++;
	is_int(e, 0, "running is entered from waiting only");
}

/* The status each state is stored as (state.db, results/ID.json). */
static void
test_status(void)
{
	static const struct { enum life_state s; const char *name; } map[] = {
		{ LS_PENDING, "pending" }, { LS_WAITING, "running" }, { LS_RUNNING, "running" },
		{ LS_APPROVED, "approved" }, { LS_DONE, "done" },
		{ LS_INTERRUPTED, "interrupted" }, { LS_DENIED, "denied" },
		{ LS_REJECTED, "rejected" }, { LS_EXPIRED, "expired" },
	};
	enum req_status st;
	size_t i;

	ok(lifecycle_status(LS_NEW, &st) < 0, "new has no stored status");
	ok(lifecycle_status(LS_COUNT, &st) < 0, "an out-of-range state has none");
	for (i = 0; i < sizeof(map) / sizeof(map[0]); i++)
		is_str(lifecycle_status(map[i].s, &st) == 0 ? req_status_name(st) : "(none)",
		    map[i].name, "%s is stored as %s", lifecycle_state_name(map[i].s),
		    map[i].name);
	ok(lifecycle_step(LS_COUNT, LE_ASK, &(struct life_step){ 0 }) < 0 &&
	    lifecycle_step(LS_NEW, LE_COUNT, &(struct life_step){ 0 }) < 0,
	    "out-of-range states and events are refused");
	is_str(lifecycle_state_name(LS_COUNT), "?", "no name out of range");
	is_str(lifecycle_event_name(LE_COUNT), "?", "no event name out of range");
}

/* req_status names and their parse, both ways (common/protocol/queue.c). */
static void
test_req_status(void)
{
	enum req_status st;
	int i, bad = 0;

	for (i = 0; i < REQ_STATUS_COUNT; i++)
		if (req_status_parse(req_status_name((enum req_status)i), &st) < 0 || (int)st != i)
			bad++;
	is_int(bad, 0, "every status name parses back to itself");
	ok(req_status_parse("Pending", &st) < 0 && req_status_parse("", &st) < 0 &&
	    req_status_parse(NULL, &st) < 0 && req_status_parse("pending ", &st) < 0,
	    "case, empty, NULL and trailing space are no status");
	is_str(req_status_name(REQ_STATUS_COUNT), "unknown", "out of range is unknown");
}

int
main(void)
{
	test_every_pair();
	test_final();
	test_properties();
	test_status();
	test_req_status();
	return tap_done();
}
