/*
 * queue.h - the folder queue: layout, file names and the documents that
 * travel through it. The folder is the bus: every message is one
 * immutable file that appears by atomic rename, and each actor writes
 * only its own part:
 *
 *   .sandbox/queue/{tmp,new}       agent side (sbx-hook, sbx-mcp): requests
 *   .sandbox/queue/delivered/      agent side: one receipt per result handed back
 *   .sandbox/queue/wake/           agent side: a waiting hook's wake FIFO (common/protocol/wake.h)
 *   .sandbox/queue/events/         agent side: events for the audit log (PostToolUse)
 *   .sandbox/proxy/{tmp,events}    sbx-proxy (outside the jail): connection records
 *   .sandbox/decisions/{tmp,new}   approver (sbx): signed decisions
 *   .sandbox/pending/ done/        sbxd: claimed requests, by state
 *   .sandbox/results/              sbxd: ID.json, ID.stdout, ID.stderr
 *   .sandbox/rejected/ work/       sbxd: bad files moved aside; temp files
 *   .sandbox/state.db sbxd.lock    sbxd only
 *
 * Request ids are 16 lowercase hex digits: the first 8 of the request
 * hash (so a repeated call finds its request by name) and 8 random.
 */
#ifndef SBX_QUEUE_H
#define SBX_QUEUE_H

#include <stddef.h>
#include <stdint.h>
#include <cjson/cJSON.h>

#include "common/base/util.h"

#define SBX_ID_LEN          16
#define SBX_HASH_LEN        32          /* BLAKE2b-256 */
#define SBX_NONCE_LEN       16
#define SBX_MAX_REQUEST     (256 * 1024)
#define SBX_MAX_DECISION    (16 * 1024)
#define SBX_MAX_RESULT      (1024 * 1024)
#define SBX_RESULT_HEAD     (16 * 1024) /* bytes of each stream kept in ID.json */
#define SBX_MAX_EVENT       (64 * 1024)
#define SBX_RECEIPT_LEN     32          /* hex digits of a delivery receipt's nonce */

/*
 * A request's status, as state.db stores it and results/ID.json says it
 * (docs/QUEUE.md). req_status_name: the stored string (static);
 * req_status_parse: 0 and *out, or -1 for a string that is none.
 */
enum req_status {
	REQ_PENDING, REQ_RUNNING, REQ_APPROVED, REQ_DONE, REQ_INTERRUPTED,
	REQ_DENIED, REQ_REJECTED, REQ_EXPIRED, REQ_STATUS_COUNT
};
const char *req_status_name(enum req_status s);
int req_status_parse(const char *name, enum req_status *out);

/*
 * The path of one queue file, relative to .sandbox/: the one place the
 * layout's file names are written. ID is a request id (16 hex digits);
 * for QP_DECISION it is "ID.NONCE"; for QP_REJECTED the moved file's
 * name. The path is in the returned struct (thread-safe, no allocation);
 * .s is "" when ID does not fit, so that every use of it fails.
 */
enum queue_kind {
	QP_NEW,             /* queue/new/ID.json       a request, as the agent drops it */
	QP_PENDING,         /* pending/ID.json         claimed by sbxd */
	QP_DONE,            /* done/ID.json            its result was delivered */
	QP_RESULT,          /* results/ID.json         the result document */
	QP_STDOUT,          /* results/ID.stdout       the full output */
	QP_STDERR,          /* results/ID.stderr */
	QP_WORK_STDOUT,     /* work/ID.stdout          output while it runs */
	QP_WORK_STDERR,     /* work/ID.stderr */
	QP_DELIVERED,       /* queue/delivered/ID      the agent's receipt */
	QP_EVENT,           /* queue/events/ID.json    an agent-side event */
	QP_PROXY_EVENT,     /* proxy/events/ID.json    a connection record */
	QP_DECISION,        /* decisions/new/ID.NONCE.json */
	QP_KIND_COUNT
};
#define SBX_QUEUE_PATH_MAX 128
struct queue_path {
	char s[SBX_QUEUE_PATH_MAX];
};
struct queue_path queue_path(enum queue_kind kind, const char *id);

/*
 * /bin/sh quoting: the one function for it. s in single quotes, each '
 * as '\''; with bare set, a word of only [A-Za-z0-9/._+-] stays as it is.
 * Caller frees; NULL when out of memory.
 */
char *sh_quote(const char *s, int bare);

/*
 * A write intent: the exact command sbx-mcp queues for
 * request_path_access (mode write), which `sbx watch` shows as a diff.
 * write_intent_render: "printf '%s' 'CONTENT' > 'PATH'" (caller frees),
 * NULL when out of memory. write_intent_parse: 1 with *path and
 * *content (caller frees both) when cmd is exactly such a command, 0
 * when it is not (or out of memory).
 */
char *write_intent_render(const char *path, const char *content);
int write_intent_parse(const char *cmd, char **path, char **content);

/* Every directory of the layout, relative to .sandbox/ (mode 0700). */
extern const char *const queue_dirs[];

/* Opens FOLDER/.sandbox as a directory fd after checking that it is a
 * real directory (not a symlink) owned by us, or, in a folder handed over
 * to sbxd's own user (deployment 3, common/protocol/users.h), owned by
 * the daemon's user that the root-owned .sandbox/users names together
 * with us as the agent. Anything else is refused with err. */
int sandbox_open(const char *folder, struct sbx_err *err);

/*
 * The request hash binds what would run: a domain tag, the tool name,
 * the canonical action (for Bash the command text; otherwise the
 * canonical tool_input less "description"), the folder and the cwd,
 * each length-prefixed.
 */
int request_hash(const char *tool, const cJSON *input, const char *folder,
    const char *cwd, unsigned char out[SBX_HASH_LEN]);

/* New id for a request with this hash: 8 hex of the hash + 8 random. */
void request_id_make(const unsigned char hash[SBX_HASH_LEN], char out[SBX_ID_LEN + 1]);

int valid_id(const char *s);
/* "ID.json" */
int valid_request_name(const char *name, char id[SBX_ID_LEN + 1]);
/* "ID.NONCE.json" with a 32-hex nonce */
int valid_decision_name(const char *name, char id[SBX_ID_LEN + 1]);

/* The command text of a Bash-like call, or NULL. Borrowed. */
const char *request_command(const char *tool, const cJSON *input);

/*
 * Kinds that an approval OPENS instead of executing: sbxd verifies and
 * consumes the signed decision as for a command, then writes a result
 * with status "approved" and runs nothing; the agent-side process that
 * asked acts on it: "network" (sbx-proxy: {"method": "CONNECT" or
 * "HTTP", "host": H, "port": N}), and every agent tool that is not a shell
 * command (Write, Edit, Read, WebFetch, another MCP server's tool ...):
 * the approval is a one-time allowance that the hook consumes when the
 * agent retries the identical call (approve-then-retry-once).
 */
int request_opens(const char *tool);

/* One line a person reads for a request: the command, or for a network
 * request "CONNECT host:port". -1 when there is none or it is too long. */
int request_summary(const char *tool, const cJSON *input, char *buf, size_t n);

/*
 * Drops an event for the audit log into BOX/events/ (random 16-hex name,
 * temp file in BOX/tmp, rename); sbxd records it. BOX is "queue" (the
 * agent side, as `sbx-hook post` does) or "proxy" (sbx-proxy's own,
 * read-only inside the jail). -1 with errno set (EFBIG over
 * SBX_MAX_EVENT, EINVAL for another box).
 */
int event_submit(int sbfd, const char *box, const cJSON *ev);

/*
 * The decision's signed bytes: "sbx-decision-v1\0" then, each as a
 * 4-byte big-endian length and the bytes: id, raw request hash,
 * verdict, remember ("0"/"1"), reason, approver, key id, created and
 * expires (decimal seconds), nonce, scope, prefix, rule expiry and rule
 * id (decimal). Caller frees *out.
 */
struct decision {
	char id[SBX_ID_LEN + 1];    /* all zeros for "rule" and "revoke" */
	unsigned char hash[SBX_HASH_LEN];
	char verdict[16];           /* "approve" | "deny" | "rule" | "revoke" */
	int remember;               /* approve: also remember (see scope) */
	char scope[8];              /* remember/rule: "exact" (this hash) | "prefix" */
	char prefix[256];           /* scope prefix: the command words it covers */
	int64_t rule_expires;       /* remember/rule: 0 never, else a time */
	int64_t rule_id;            /* revoke: the rule to remove */
	char reason[1024];
	char approver[64];
	char key_id[17];
	int64_t created, expires;
	char nonce[2 * SBX_NONCE_LEN + 1];
	unsigned char sig[64];
};

int decision_message(const struct decision *d, unsigned char **out, size_t *len);
/* JSON document for a decision (with sig); caller frees. */
char *decision_to_json(const struct decision *d);
/* Strict parse: unknown keys and wrong types are errors. */
int decision_from_json(const char *text, size_t len, struct decision *d,
    struct sbx_err *err);

/* The id used by decisions that name no request (rules). */
#define SBX_NO_REQUEST "0000000000000000"

/*
 * Whether a prefix rule may cover this command: the prefix has at least
 * two words, and the command is those words (then a space or the end),
 * with no shell syntax anywhere (; & | $ ` < > ( ) newline), so that a
 * rule for "git push" never covers "git push && rm -rf ~".
 */
int prefix_covers(const char *prefix, const char *command);
int prefix_valid(const char *prefix);

/*
 * Who serves a folder: the one protocol for it. sbxd takes the exclusive
 * flock on .sandbox/sbxd.lock (one sbxd per folder) and then, with
 * sbxd_hold(), an OFD write lock on the same file, which anyone can test
 * with F_OFD_GETLK on a read-only descriptor without taking a lock (so an
 * sbxd starting is never disturbed), from any PID namespace (inside
 * `sbx jail`, where /proc/locks hides sbxd's locks).
 *
 * sbxd_hold: 0, or -1 with errno set. sbxd_holder: the pid sbxd wrote in
 * the file (1 if it is unreadable) when an sbxd serves the folder of this
 * .sandbox fd, 0 when none does or sbxd never ran, -1 when it cannot be
 * told. daemon_serving: 1, 0 or -1 likewise (callers then assume it does).
 *
 * A folder sbxd stops serving (removed, replaced, tampered with:
 * daemon/folder.h folder_check) must not keep its hooks waiting:
 * sbxd_release() writes "PID\nstopped: WHY\n" into the lock file and
 * drops the OFD lock, so sbxd_holder() says 0 at once; the flock stays
 * until that sbxd exits, so no second sbxd takes the folder over while
 * the first (and the commands it still runs) lives. sbxd_stopped():
 * the pid of the sbxd that last stopped serving the folder this way (its
 * reason in why, printable ASCII, at most n - 1 bytes), 0 when the lock
 * file says nothing of it (a later sbxd rewrote it). The file is only a
 * note: who serves is the lock alone.
 */
int sbxd_hold(int lockfd);
long sbxd_holder(int sbfd);
int daemon_serving(int sbfd);
int sbxd_release(int lockfd, const char *why);
long sbxd_stopped(int sbfd, char *why, size_t n);
/* The same, from the lock file's open descriptor (folder_open). */
long sbxd_stopped_fd(int lockfd, char *why, size_t n);
/*
 * Who holds a flock on the file of FD, from /proc/locks (pids as this
 * PID namespace sees them): "pid N (user U, COMM, shared|exclusive)" for
 * at most 4 holders, "and K more" past them, in OUT; the first pid in
 * *first. 0 when none is named there (another PID namespace, or it just
 * went), else how many. For the messages of a lock that cannot be had:
 * the agent's user may hold a shared one on sbxd.lock (deployment 3).
 */
int sbxd_lock_holders(int fd, char *out, size_t n, long *first);

/* Key ids: the first 8 bytes of BLAKE2b-256(public key), in hex. */
void key_id_of(const unsigned char pk[32], char out[17]);

/* Safe name for an approver: [A-Za-z0-9._-], 1..63, not starting with '.'. */
int valid_name(const char *s);

#endif
