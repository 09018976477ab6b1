/*
 * run.c - a request after its decision (run.h): started under its
 * limits, opened, closed unrun, expired or finished; the executor slots.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/base/json.h"
#include "common/store/store.h"
#include "daemon/audit.h"
#include "daemon/exec.h"
#include "daemon/fault.h"
#include "daemon/lifecycle.h"
#include "daemon/polcache.h"
#include "daemon/run.h"
#include "policy/policy.h"

/*
 * Defence in depth, right before exec: the command is re-derived from the
 * stored request (tool, input, folder, cwd), never taken from the
 * requests.command column, and the request hash is computed again and
 * must equal the hash the decision was checked against (and the id's
 * prefix). A row edited in state.db after the approval does not run.
 * Returns the command (caller frees) or NULL with why.
 */
static char *
rebind_command(struct folder *f, const struct req_row *r, char *why, size_t whysz)
{
	unsigned char h[SBX_HASH_LEN];
	char hex[2 * SBX_HASH_LEN + 1], *cmd = NULL;
	const char *c;
	cJSON *input;

	input = r->input ? cJSON_Parse(r->input) : NULL;
	if (!cJSON_IsObject(input) || !r->tool || !r->cwd ||
	    request_hash(r->tool, input, f->path, r->cwd, h) < 0) {
		snprintf(why, whysz, "its stored request cannot be read back");
		goto out;
	}
	hex_encode(hex, h, sizeof(h));
	if (!r->hash || strcmp(hex, r->hash) != 0 || strncmp(r->id, hex, 8) != 0) {
		snprintf(why, whysz, "its stored request no longer matches the approved hash "
		    "(state.db was edited?)");
		goto out;
	}
	if (!(c = request_command(r->tool, input))) {
		snprintf(why, whysz, "it is not a shell command");
		goto out;
	}
	if (r->command && strcmp(c, r->command) != 0) {
		snprintf(why, whysz, "its stored command differs from the approved request "
		    "(state.db was edited?)");
		goto out;
	}
	if (!(cmd = strdup(c)))
		snprintf(why, whysz, "out of memory");
out:
	cJSON_Delete(input);
	return cmd;
}

/* The status a request takes on ev from `from` (lifecycle.h); -1 when
 * the table has no such step. */
static int
step_status(enum life_state from, enum life_event ev, enum req_status *st)
{
	struct life_step s;

	if (lifecycle_step(from, ev, &s) < 0 || lifecycle_status(s.to, st) < 0)
		return -1;
	return 0;
}

/* waiting --refuse--> rejected: its stored request changed after the
 * approval. */
static void
run_refuse(struct folder *f, const struct req_row *r, const char *approver,
    const char *why)
{
	enum req_status st;

	logf_folder(f, "request %s: NOT run: %s", r->id, why);
	if (step_status(LS_WAITING, LE_REFUSE, &st) == 0 &&
	    store_request_refuse(f->db, r->id, now_ms() / 1000, why) == 1) {
		audit_log(f->audit, "exec_refused", r->id, r->session, "daemon",
		    AU_S("why", why), AU_END);
		run_close(f, r->id, r->hash, st, approver, why);
	}
}

/* running --fork_failed--> interrupted. */
static void
run_fork_failed(struct folder *f, const struct req_row *r, const char *approver)
{
	enum req_status st = REQ_INTERRUPTED;

	(void)step_status(LS_RUNNING, LE_FORK_FAILED, &st);
	logf_folder(f, "request %s: cannot start the command", r->id);
	result_write_status(f->sbfd, r->id, r->hash, req_status_name(st), approver,
	    "sbxd could not start the command (fork failed); it did not run");
	store_request_close(f->db, r->id, st, now_ms() / 1000);
	audit_log(f->audit, "exec_failed", r->id, r->session, "daemon",
	    AU_S("why", "fork failed"), AU_END);
}

/* A free executor slot, or -1. */
static int
run_slot(const struct folder *f)
{
	int slot;

	for (slot = 0; slot < SBX_MAX_RUNNING && f->run[slot].pid; slot++)
		;
	return slot < SBX_MAX_RUNNING ? slot : -1;
}

int
run_free_slots(const struct folder *f)
{
	int slot, n = 0;

	for (slot = 0; slot < SBX_MAX_RUNNING; slot++)
		n += !f->run[slot].pid;
	return n;
}

static void
run_started(struct folder *f, const struct req_row *r, const char *approver, int is_auto,
    const struct policy_limits *lim, pid_t pid)
{
	audit_log(f->audit, "exec_started", r->id, r->session, "daemon",
	    AU_I("pid", (int64_t)pid),
	    AU_I("timeout_s", (int64_t)lim->exec_timeout_seconds),
	    AU_I("output_cap", (int64_t)lim->output_cap_bytes),
	    AU_I("cpu_s", (int64_t)lim->exec_cpu_seconds),
	    AU_I("memory_bytes", (int64_t)lim->exec_memory_bytes),
	    AU_I("max_processes", (int64_t)lim->exec_max_processes), AU_S("cwd", r->cwd),
	    AU_S("approver", approver), AU_B("auto", is_auto), AU_END);
	logf_folder(f, "request %s: running (approved by %s%s), executor pid %ld", r->id,
	    approver, is_auto ? ", remembered" : "", (long)pid);
}

/* Undoes the caller's mark (run_start_marked) before a step that does
 * not fork: 0, or -1 when the row stays started (it is then never run:
 * interrupted at the next start). */
static int
run_unmark(struct folder *f, const struct req_row *r, int64_t marked)
{
	if (!marked || store_request_unstart(f->db, r->id, marked) == 1)
		return 0;
	logf_folder(f, "request %s: cannot mark it waiting again (database error); it will "
	    "not run", r->id);
	return -1;
}

static void
start(struct folder *f, const struct daemon_opts *o, const struct req_row *r,
    const char *approver, int is_auto, const struct policy_limits *limits, int64_t marked)
{
	struct policy_limits lim = *policy_limits(NULL);
	struct policy_error perr;
	struct policy *p = limits ? NULL : folder_policy(f, &perr);
	struct exec_spec s;
	char why[200], *cmd;
	int slot;
	pid_t pid;

	if (limits)
		lim = *limits;
	if (p) {
		lim = *policy_limits(p);
		polcache_release(p);
	}
	/* Every slot busy: the request stays approved and not started
	 * (status running, started 0) until folder_start_waiting() finds
	 * a free slot. The approval is never lost. */
	if ((slot = run_slot(f)) < 0) {
		if (run_unmark(f, r, marked) < 0)
			return;
		logf_folder(f, "request %s: approved; waiting for a free slot (%d commands "
		    "running)", r->id, SBX_MAX_RUNNING);
		return;
	}
	/* No command runs unless its decision and approval_consumed are
	 * durably in the audit log: until then it waits (started 0), and
	 * folder_start_waiting() tries again. */
	if (audit_intents_flush(f->audit) < 0 || audit_sync(f->audit) < 0) {
		if (run_unmark(f, r, marked) < 0)
			return;
		logf_folder(f, "request %s: approved, NOT started: its approval is not yet in "
		    "the audit log (disk full or I/O error?); it starts once it can be written",
		    r->id);
		return;
	}
	FAULT("before-start");
	if (!(cmd = rebind_command(f, r, why, sizeof(why)))) {
		if (run_unmark(f, r, marked) == 0)
			run_refuse(f, r, approver, why);
		return;
	}
	/* waiting --start--> running, marked started before the fork: after a
	 * crash from here on, the request is interrupted, never run again.
	 * (Marked already: in the transaction that recorded it.) */
	if (marked ? r->started != marked :
	    store_request_start(f->db, r->id, now_ms() / 1000) != 1) {
		logf_folder(f, "request %s: not started (no longer waiting to run)", r->id);
		free(cmd);
		return;
	}
	s = (struct exec_spec){ .sbfd = f->sbfd, .folder = f->path, .id = r->id,
		.hash = r->hash, .tool = r->tool, .command = cmd, .cwd = r->cwd,
		.approver = approver, .is_auto = is_auto, .timeout_s = lim.exec_timeout_seconds,
		.cap = lim.output_cap_bytes, .cpu_s = lim.exec_cpu_seconds,
		.mem_bytes = lim.exec_memory_bytes, .max_procs = lim.exec_max_processes,
		.env = o->env, .close_fds = o->lock_fds,
		.n_close_fds = o->n_lock_fds };
	pid = exec_start(&s);
	free(cmd);
	if (pid < 0) {
		run_fork_failed(f, r, approver);
		return;
	}
	run_started(f, r, approver, is_auto, &lim, pid);
	f->run[slot].pid = pid;
	memcpy(f->run[slot].id, r->id, sizeof(f->run[slot].id));
}

void
run_start(struct folder *f, const struct daemon_opts *o, const struct req_row *r,
    const char *approver, int is_auto, const struct policy_limits *limits)
{
	start(f, o, r, approver, is_auto, limits, 0);
}

void
run_start_marked(struct folder *f, const struct daemon_opts *o, const struct req_row *r,
    const char *approver, int is_auto, const struct policy_limits *limits,
    int64_t started)
{
	start(f, o, r, approver, is_auto, limits, started);
}

void
run_close(struct folder *f, const char *id, const char *hash, enum req_status status,
    const char *approver, const char *reason)
{
	/* Recorded (and synced) before the agent can read the result. */
	audit_log(f->audit, "request_closed", id, NULL, "daemon",
	    AU_S("status", req_status_name(status)), AU_S("approver", approver),
	    AU_S("reason", reason), AU_END);
	(void)audit_sync(f->audit);
	if (result_write_status(f->sbfd, id, hash, req_status_name(status), approver,
	    reason) < 0 && errno != EEXIST)
		logf_folder(f, "request %s: cannot write its result: %s", id, strerror(errno));
}

/*
 * A request of a kind that opens (request_opens: a network connection):
 * its approval was verified and consumed like any other, and the row is
 * already "approved"; nothing is executed. The result says approved, and
 * the agent-side process that asked (sbx-proxy) acts on it.
 */
void
run_open(struct folder *f, const char *id, const char *hash, const char *session,
    const char *approver, int is_auto)
{
	const char *st = req_status_name(REQ_APPROVED);

	audit_log(f->audit, "request_closed", id, session, "daemon",
	    AU_S("status", st), AU_S("approver", approver), AU_B("auto", is_auto),
	    AU_S("reason", "approved: opened, nothing executed"), AU_END);
	(void)audit_sync(f->audit);
	if (result_write_status(f->sbfd, id, hash, st, approver, is_auto ?
	    "approved by a remembered rule; nothing was executed" :
	    "approved; nothing was executed") < 0 && errno != EEXIST)
		logf_folder(f, "request %s: cannot write its result: %s", id, strerror(errno));
}

static int
is_running_here(const struct folder *f, const char *id)
{
	int i;

	for (i = 0; i < SBX_MAX_RUNNING; i++)
		if (f->run[i].pid && strcmp(f->run[i].id, id) == 0)
			return 1;
	return 0;
}

/*
 * Every terminal state gets a result the hook can deliver: one that is
 * missing (the disk was full when it was due, or a crash came first) is
 * written from the database, with the output that exists. A request
 * that says running with no executor behind it is interrupted.
 */
void
run_repair(struct folder *f, const char *id)
{
	char path[SBX_QUEUE_PATH_MAX];
	struct req_row row;
	enum req_status st;
	const char *why;

	snprintf(path, sizeof(path), "%s", queue_path(QP_RESULT, id).s);
	if (exists_nf(f->sbfd, path))
		return;
	/* Cheap first: most requests without a result are simply pending. */
	if (store_request_unfinished(f->db, id) || db_get(f->db, id, &row) != 1)
		return;
	if (req_status_parse(row.status, &st) < 0)
		st = REQ_STATUS_COUNT;
	if (st == REQ_PENDING || (st == REQ_RUNNING && (row.started == 0 ||
	    is_running_here(f, id)))) {
		req_row_free(&row);
		return;
	}
	if (st == REQ_RUNNING) {
		run_record(f, id);
		req_row_free(&row);
		return;
	}
	why = row.deny_reason ? row.deny_reason : st == REQ_EXPIRED
	    ? "nobody decided before it expired" : st == REQ_INTERRUPTED
	    ? "interrupted; its result could not be written then (full disk?); the output "
	    "captured so far follows" : "";
	if (result_write_recovered(f->sbfd, id, row.hash, row.status, row.approver, why,
	    row.exit_code, row.signal) == 0)
		logf_folder(f, "request %s: its missing result (%s) is written now", id,
		    row.status);
	req_row_free(&row);
}

static int64_t
json_num(const cJSON *doc, const char *key)
{
	int64_t v = 0;

	(void)json_int(doc, key, &v);
	return v;
}

/* running --lost--> interrupted: the executor left no readable result. */
static void
run_lost(struct folder *f, const char *id, const char *path)
{
	struct req_row row;
	struct stat st;

	logf_folder(f, "request %s: the executor left no readable result; marking it "
	    "interrupted", id);
	/* A torn result (a crash cut its write) is kept aside, not
	 * trusted, and replaced by one the agent can read. */
	if (fstatat_nf(f->sbfd, path, &st) == 0)
		folder_reject(f, "results", path + strlen("results/"), "unreadable result "
		    "(cut short by a crash or a full disk?)");
	if (db_get(f->db, id, &row) == 1) {
		result_write_recovered(f->sbfd, id, row.hash, req_status_name(REQ_INTERRUPTED),
		    row.approver,
		    "its result was lost (sbxd, the executor or the disk failed): it may "
		    "have run in whole or in part, its exit status is unknown; the output "
		    "captured so far follows", -1, 0);
		req_row_free(&row);
	}
}

void
run_record(struct folder *f, const char *id)
{
	char path[SBX_QUEUE_PATH_MAX];
	struct sbx_err err;
	cJSON *doc = NULL;
	int64_t code = -1, sig = 0, ms = 0;
	enum req_status st;
	const char *status;
	size_t len;
	char *text;

	snprintf(path, sizeof(path), "%s", queue_path(QP_RESULT, id).s);
	text = read_untrusted(f->sbfd, path, SBX_MAX_RESULT, &len, &err);
	if (text)
		doc = cJSON_ParseWithLength(text, len);
	free(text);
	status = json_str(doc, "status");
	/* running --exit--> done, or --lost--> interrupted: the executor
	 * writes "done", or "interrupted" when it was stopped. */
	if (!status || step_status(LS_RUNNING, !strcmp(status, req_status_name(REQ_DONE)) ?
	    LE_EXIT : LE_LOST, &st) < 0) {
		if (!status)
			run_lost(f, id, path);
		st = REQ_INTERRUPTED;
	}
	status = req_status_name(st);
	json_int(doc, "exit_code", &code);
	json_int(doc, "signal", &sig);
	json_int(doc, "duration_ms", &ms);
	store_request_finish(f->db, id, st, now_ms() / 1000, code, sig, ms);
	logf_folder(f, "request %s: %s, exit %lld, signal %lld, %lld ms", id, status,
	    (long long)code, (long long)sig, (long long)ms);
	audit_log(f->audit, "exec_finished", id, NULL, "daemon", AU_S("status", status),
	    AU_J("exit_code", code >= 0 ? cJSON_CreateNumber((double)code) : NULL),
	    AU_I("signal", sig), AU_B("timed_out", json_bool(doc, "timed_out") == 1),
	    AU_I("duration_ms", ms), AU_I("stdout_bytes", json_num(doc, "stdout_bytes")),
	    AU_S("stdout_blake2b", json_str(doc, "stdout_blake2b")),
	    AU_I("stderr_bytes", json_num(doc, "stderr_bytes")),
	    AU_S("stderr_blake2b", json_str(doc, "stderr_blake2b")),
	    AU_S("reason", json_str(doc, "reason")), AU_END);
	cJSON_Delete(doc);
}

int
folder_reaped(struct folder *f, pid_t pid)
{
	int i;

	for (i = 0; i < SBX_MAX_RUNNING; i++) {
		if (f->run[i].pid != pid)
			continue;
		f->run[i].pid = 0;
		FAULT("reaped");
		if (!f->dead) {
			run_record(f, f->run[i].id);
			/* Its receipt may have come first (folder_delivered);
			 * else the sweep looks at it when it is due unclaimed. */
			if (exists_nf(f->sbfd, queue_path(QP_DELIVERED, f->run[i].id).s))
				folder_delivered(f, f->run[i].id);
			else if (!f->due_sweep ||
			    now_ms() / 1000 + SBX_KEEP_UNDELIVERED < f->due_sweep)
				f->due_sweep = now_ms() / 1000 + SBX_KEEP_UNDELIVERED;
		}
		return 1;
	}
	return 0;
}

void
folder_start_waiting(struct folder *f, const struct daemon_opts *o)
{
	char ids[SBX_MAX_RUNNING][SBX_ID_LEN + 1];
	struct req_row row;
	int n, i;

	/* Records that wait for the log go first; nothing starts before. */
	if (audit_intents_flush(f->audit) < 0)
		return;
	n = store_waiting_list(f->db, SBX_MAX_RUNNING - folder_running(f), ids);
	for (i = 0; i < n; i++) {
		if (db_get(f->db, ids[i], &row) != 1)
			continue;
		run_start(f, o, &row, row.approver ? row.approver : "", row.is_auto, NULL);
		req_row_free(&row);
	}
}

int
folder_running(const struct folder *f)
{
	int i, n = 0;

	for (i = 0; i < SBX_MAX_RUNNING; i++)
		n += f->run[i].pid != 0;
	return n;
}

void
folder_signal_running(struct folder *f, int sig)
{
	int i;

	for (i = 0; i < SBX_MAX_RUNNING; i++)
		if (f->run[i].pid)
			kill(f->run[i].pid, sig);
}

/* pending --expire--> expired, and the agent told. */
void
run_expire(struct folder *f, const char *id, const char *hash, int64_t now)
{
	enum req_status st;

	if (step_status(LS_PENDING, LE_EXPIRE, &st) == 0 &&
	    store_request_expire(f->db, id, now) == 1) {
		run_close(f, id, hash, st, "", "nobody decided before it expired");
		logf_folder(f, "request %s expired undecided", id);
	}
}

int
folder_waiting(struct folder *f)
{
	char ids[1][SBX_ID_LEN + 1];

	return store_waiting_list(f->db, 1, ids);
}

int64_t
folder_next_expiry(struct folder *f)
{
	return store_next_expiry(f->db);
}

/* Every pending request past its deadline, however many there are. */
void
folder_expire(struct folder *f)
{
	struct store_idhash *v;
	int64_t now = now_ms() / 1000;
	int n, i;

	n = store_expired_list(f->db, now, &v);
	for (i = 0; i < n; i++)
		run_expire(f, v[i].id, v[i].hash, now);
	free(v);
}
