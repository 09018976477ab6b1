/*
 * escalate.h - the agent side of an escalation: drop a request into the
 * folder queue, or attach to the same pending request, and wait for its
 * result. Used by sbx-hook (and sbx-mcp).
 *
 * MUST write only into .sandbox/queue/ (temp name, rename; no sync:
 * docs/QUEUE.md, "Syncs").
 * MUST answer before the deadline; a timeout is "pending", never allow.
 * MUST NOT wait when no sbxd serves the folder (daemon_serving): the
 * request stays queued and the caller says so at once.
 * MUST hand a result over only with its delivery receipt
 * (queue/delivered/ID, made exclusively: O_EXCL, or the link of one made
 * ahead while waiting, which fails when the name exists): callers waiting
 * on one request (identical calls attach to it) get it once; the others
 * get ESC_TAKEN.
 * MUST hand an approved result (a one-time allowance) over only once sbxd
 * confirmed this caller's receipt (its nonce in the signed result): the
 * agent can delete receipts, never make sbxd confirm twice.
 */
#ifndef SBX_ESCALATE_H
#define SBX_ESCALATE_H

#include <cjson/cJSON.h>

#include "common/protocol/queue.h"
#include "policy/policy.h"

enum esc_state {
	ESC_RESULT,     /* result document available in out->result */
	ESC_PENDING,    /* deadline passed; the request stays queued */
	ESC_REFUSED,    /* not queued: too many pending, or an error; see msg */
	ESC_TAKEN,      /* finished, but its result is not this caller's: another
	                   caller waiting on the same request took its one
	                   delivery (msg ""), or the delivery could not be
	                   recorded (msg says why); out->status says how it
	                   ended. Never deliver or allow on it. */
};

struct esc_request {
	const char *folder;         /* resolved project folder */
	const char *cwd;            /* resolved working directory */
	const char *tool;
	const cJSON *input;
	const char *session_id;     /* may be NULL */
	const char *tool_use_id;    /* may be NULL */
	const char *agent;          /* "claude-code", "codex", "mcp", ... */
	const struct policy_result *why;
	const struct policy_limits *limits;
	int wait_seconds;           /* how long to wait for the result */
};

struct esc_outcome {
	enum esc_state state;
	char id[SBX_ID_LEN + 1];
	cJSON *result;              /* ESC_RESULT: owned; free with cJSON_Delete */
	char status[16];            /* ESC_TAKEN: the result's status ("done" ...) */
	int no_daemon;              /* ESC_PENDING because no sbxd serves the
	                               folder: queued, nothing runs it yet */
	long stopped;               /* no_daemon: the pid of an sbxd that stopped
	                               serving the folder (its reason in msg), 0 */
	char msg[512];
};

/*
 * DIR/ID.json (DIR relative to the sandbox fd sbfd: "pending", "results"),
 * a file sbxd writes, read within SBX_MAX_RESULT bytes and parsed: a JSON
 * object the caller frees (cJSON_Delete), or NULL when it is missing, too
 * large or not an object.
 */
cJSON *esc_read_json(int sbfd, const char *dir, const char *id);

/* Always fills *out; never returns an allow. */
void escalate(const struct esc_request *rq, struct esc_outcome *out);

/*
 * The text the model receives for a result document, at most max bytes
 * of valid UTF-8, starting with one line that says what happened.
 * Caller frees.
 */
char *result_text(const cJSON *result, const char *folder, size_t max);

#endif
