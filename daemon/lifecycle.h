/*
 * lifecycle.h - the life of one request in sbxd, as data: a table of
 * (state, event) -> (state, effects), as s6-supervise writes its own.
 *
 * The table knows no files, processes or SQL: daemon/request.c and
 * daemon/run.c ask it what a request becomes and which effects follow,
 * then carry them out. A pair that is not in the table is refused
 * (lifecycle_step returns -1): the request stays where it is.
 *
 *   new --invalid--> rejected              (bad, denied by policy, limits)
 *   new --ask--> pending                   (a human decides)
 *   new --rule--> waiting                  (a verified remembered rule)
 *   new --rule_opens--> approved           (same, for a kind that opens)
 *   pending --vote--> pending              (dual control: first approval)
 *   pending --approve--> waiting
 *   pending --approve_opens--> approved
 *   pending --deny--> denied
 *   pending --expire--> expired
 *   waiting --start--> running             (a free slot, approval logged)
 *   waiting --refuse--> rejected           (its stored request changed)
 *   running --fork_failed--> interrupted
 *   running --exit--> done                 (the executor's result)
 *   running --lost--> interrupted          (stopped, crashed, torn result)
 *
 * In state.db, waiting and running are both status "running" (started
 * 0 or a time); new has no row yet.
 */
#ifndef SBX_LIFECYCLE_H
#define SBX_LIFECYCLE_H

#include "common/protocol/queue.h"

enum life_state {
	LS_NEW,             /* claimed (pending/ID.json), not in state.db yet */
	LS_PENDING,
	LS_WAITING,         /* approved, executor not started */
	LS_RUNNING,         /* executor started */
	LS_APPROVED,        /* a kind that opens: approved, nothing runs */
	LS_DONE,
	LS_INTERRUPTED,
	LS_DENIED,
	LS_REJECTED,
	LS_EXPIRED,
	LS_COUNT
};

enum life_event {
	LE_INVALID,         /* refused on arrival */
	LE_ASK,             /* no rule covers it */
	LE_RULE,            /* a remembered rule approves it (it runs) */
	LE_RULE_OPENS,      /* a remembered rule approves it (it opens) */
	LE_VOTE,            /* one approval, more needed */
	LE_APPROVE,         /* the last approval (it runs) */
	LE_APPROVE_OPENS,   /* the last approval (it opens) */
	LE_DENY,
	LE_EXPIRE,
	LE_START,
	LE_REFUSE,
	LE_FORK_FAILED,
	LE_EXIT,
	LE_LOST,
	LE_COUNT
};

/* Effects, in the order they are carried out. */
#define LF_RECORD   0x01    /* insert the row (and its audit intents) */
#define LF_CONSUME  0x02    /* consume the decision's nonce, same transaction */
#define LF_RULE_USE 0x04    /* count a use of the remembered rule */
#define LF_UPDATE   0x08    /* change the row's status */
#define LF_RESULT   0x10    /* write the final result the agent reads */
#define LF_EXEC     0x20    /* start the executor */
#define LF_NOTIFY   0x40    /* tell the desktop */

struct life_step {
	enum life_state to;
	unsigned effects;
};

/* 0 and *out for a pair in the table; -1 (out untouched) otherwise. */
int lifecycle_step(enum life_state from, enum life_event ev, struct life_step *out);

/* The status stored for a state; LS_NEW has none (-1). */
int lifecycle_status(enum life_state s, enum req_status *out);

/* 1 when nothing leaves the state. */
int lifecycle_final(enum life_state s);

/* "pending", "waiting" ... and "invalid", "ask" ...: for logs and tests. */
const char *lifecycle_state_name(enum life_state s);
const char *lifecycle_event_name(enum life_event e);

#endif
