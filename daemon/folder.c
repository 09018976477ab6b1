/*
 * folder.c - serving one folder: claim, validate and record requests,
 * verify decisions, run approved commands, expire and recover.
 *
 * Rules:
 * - MUST claim a request by rename without replace (queue/new -> pending)
 *   before reading it, and read it only through read_untrusted().
 * - MUST verify a decision's signature against a trusted key, its
 *   binding to the request hash, its expiry and its nonce, and consume
 *   it in the same SQLite transaction that moves the request from
 *   pending to running: an approval can never run a command twice.
 * - MUST move bad files aside (never execute them) and keep running.
 * - MUST mark a request that was running when sbxd died as interrupted,
 *   never run it again.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <sodium.h>

#include "common/accept.h"
#include "common/db.h"
#include "common/display.h"
#include "common/json.h"
#include "common/keys.h"
#include "common/queue.h"
#include "common/redact.h"
#include "common/retention.h"
#include "common/wake.h"
#include "daemon/audit.h"
#include "daemon/exec.h"
#include "daemon/fault.h"
#include "daemon/folder.h"
#include "daemon/notify.h"
#include "policy/policy.h"

/* Rewrites control bytes (and DEL) in msg as \xNN, in place, as far as
 * the buffer allows. */
static void
escape_controls(char *msg, size_t cap)
{
	char out[2048 * 4];
	size_t i, n = 0;
	unsigned char c;

	for (i = 0; msg[i] && n + 5 < sizeof(out); i++) {
		c = (unsigned char)msg[i];
		if (c < 0x20 || c == 0x7f)
			n += (size_t)snprintf(out + n, sizeof(out) - n, "\\x%02x", c);
		else
			out[n++] = (char)c;
	}
	out[n] = '\0';
	n = n < cap - 1 ? n : cap - 1;
	memcpy(msg, out, n);
	msg[n] = '\0';
}

void
logf_folder(const struct folder *f, const char *fmt, ...)
{
	char ts[32], msg[2048], *clean;
	const char *safe;
	time_t t = time(NULL);
	struct tm tm;
	va_list ap;

	localtime_r(&t, &tm);
	strftime(ts, sizeof(ts), "%H:%M:%S", &tm);
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	/* One event, one line: a file name with a newline or an escape
	 * sequence cannot fake a log line or drive the terminal. */
	escape_controls(msg, sizeof(msg));
	/* The daemon's own log is scrubbed like the audit log. */
	clean = redact_str(msg, NULL);
	safe = display_tmp(clean ? clean : msg);
	fprintf(stderr, "sbxd %s [%s] %s\n", ts, f ? f->path : "-", safe);
	free(clean);
	fflush(stderr);
}

static int folder_identity(struct folder *f, int record, char *why, size_t whysz);

int
folder_open(struct folder *f, const char *path, const char *config,
    struct sbx_err *err)
{
	char pidbuf[32] = "";
	struct stat st;
	ssize_t n;
	int locked;

	memset(f, 0, sizeof(*f));
	f->sbfd = f->lockfd = -1;
	if (!realpath(path, f->path)) {
		err_set(err, "%s: %s", path, strerror(errno));
		return -1;
	}
	if (xsnprintf(f->config, sizeof(f->config), "%s", config) < 0) {
		err_set(err, "config path too long");
		return -1;
	}
	if ((f->sbfd = sandbox_open(f->path, err)) < 0) {
		err_set(err, "%s has no usable .sandbox/ (run `sbx init %s`)", f->path, f->path);
		return -1;
	}
	if (fstat(f->sbfd, &st) == 0 && (st.st_mode & 077)) {
		err_set(err, "%s/.sandbox is accessible by others (mode %03o); run "
		    "`chmod 700 %s/.sandbox`", f->path, st.st_mode & 0777, f->path);
		goto fail;
	}
	f->lockfd = openat(f->sbfd, "sbxd.lock", O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (f->lockfd < 0) {
		err_set(err, "cannot open %s/.sandbox/sbxd.lock: %s", f->path, strerror(errno));
		goto fail;
	}
	/* A hook's instant probe (daemon_serving) may hold a shared lock for
	 * a moment: try a few times before calling the folder taken. */
	for (n = 0; (locked = flock(f->lockfd, LOCK_EX | LOCK_NB) == 0) == 0 &&
	    errno == EWOULDBLOCK && n < 20; n++)
		usleep(10000);
	if (!locked) {
		n = pread(f->lockfd, pidbuf, sizeof(pidbuf) - 1, 0);
		pidbuf[n > 0 ? n : 0] = '\0';
		pidbuf[strcspn(pidbuf, "\n")] = '\0';
		err_set(err, "%s is already served by another sbxd (pid %s); stop it first",
		    f->path, *pidbuf ? pidbuf : "unknown");
		goto fail;
	}
	n = snprintf(pidbuf, sizeof(pidbuf), "%ld\n", (long)getpid());
	if (ftruncate(f->lockfd, 0) < 0 || pwrite(f->lockfd, pidbuf, (size_t)n, 0) != n) {
		err_set(err, "cannot write %s/.sandbox/sbxd.lock", f->path);
		goto fail;
	}
	if (sbxd_hold(f->lockfd) < 0) {
		err_set(err, "cannot lock %s/.sandbox/sbxd.lock: %s", f->path, strerror(errno));
		goto fail;
	}
	for (int i = 0; queue_dirs[i]; i++)
		if (mkdirat(f->sbfd, queue_dirs[i], 0700) < 0 && errno != EEXIST) {
			err_set(err, "cannot create %s/.sandbox/%s: %s", f->path, queue_dirs[i],
			    strerror(errno));
			goto fail;
		}
	if (!(f->db = db_open(f->path, 1, err)))
		goto fail;
	/* Remembered rules carry the approver's signed decision (verified on
	 * every use); state.db files from before get the column. */
	(void)sqlite3_exec(f->db, "ALTER TABLE rules ADD COLUMN decision TEXT", NULL, NULL, NULL);
	if (folder_identity(f, 1, NULL, 0) < 0) {
		err_set(err, "%s/.sandbox changed while sbxd opened it", f->path);
		goto fail;
	}
	return 0;
fail:
	folder_close(f);
	return -1;
}

/* What folder_check() compares; the first entries are directories. */
static const char *const identity_names[] = {
	"queue", "queue/new", "queue/events", "decisions", "decisions/new", "pending",
	"results", "state.db",
};

/* Records (record 1) or compares the identity of the tree; -1 and why
 * when it differs. */
static int
folder_identity(struct folder *f, int record, char *why, size_t whysz)
{
	struct stat st;
	size_t i, n = sizeof(identity_names) / sizeof(identity_names[0]);
	int fd;

	if (fstat(f->sbfd, &st) < 0 || st.st_nlink == 0) {
		snprintf(why, whysz, ".sandbox was removed");
		return -1;
	}
	if (record) {
		f->dev = st.st_dev;
		f->ino_sandbox = st.st_ino;
	}
	if (lstat(f->path, &st) < 0 || !S_ISDIR(st.st_mode)) {
		snprintf(why, whysz, "the folder was removed or is no longer a directory");
		return -1;
	}
	if (record)
		f->ino_folder = st.st_ino;
	else if (st.st_ino != f->ino_folder) {
		snprintf(why, whysz, "the folder was replaced by another directory");
		return -1;
	}
	fd = openat(AT_FDCWD, f->path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0 || fstatat(fd, ".sandbox", &st, AT_SYMLINK_NOFOLLOW) < 0 ||
	    !S_ISDIR(st.st_mode) || st.st_ino != f->ino_sandbox || st.st_dev != f->dev) {
		if (fd >= 0)
			close(fd);
		snprintf(why, whysz, ".sandbox was removed, moved or replaced");
		return -1;
	}
	close(fd);
	for (i = 0; i < n && i < sizeof(f->ino_sub) / sizeof(f->ino_sub[0]); i++) {
		if (fstatat(f->sbfd, identity_names[i], &st, AT_SYMLINK_NOFOLLOW) < 0 ||
		    (i + 1 < n ? !S_ISDIR(st.st_mode) : !S_ISREG(st.st_mode)) ||
		    (!record && st.st_ino != f->ino_sub[i])) {
			snprintf(why, whysz, ".sandbox/%s was removed, replaced or is a symlink",
			    identity_names[i]);
			return -1;
		}
		if (record)
			f->ino_sub[i] = st.st_ino;
	}
	return 0;
}

int
folder_check(struct folder *f)
{
	char why[160];

	if (f->dead)
		return -1;
	if (folder_identity(f, 0, why, sizeof(why)) == 0)
		return 0;
	f->dead = 1;
	logf_folder(f, "STOPPED SERVING THIS FOLDER: %s (by `git stash -u`, `git clean`, "
	    "rm or mv?). sbxd no longer reads or writes it, so requests there are not "
	    "processed and their records are not kept. Check it (`sbx doctor`), restore "
	    "or re-run `sbx init`, then restart sbxd.", why);
	return -1;
}

void
folder_close(struct folder *f)
{
	if (f->db)
		db_close(f->db);
	if (f->lockfd >= 0)
		close(f->lockfd);
	if (f->sbfd >= 0)
		close(f->sbfd);
	f->db = NULL;
	f->lockfd = f->sbfd = -1;
}

/* Moves DIR/NAME to rejected/ with a .why note; leaves it if it cannot. */
static void
reject_file(struct folder *f, const char *dir, const char *name, const char *why)
{
	char from[512], to[512], note[600], id[SBX_ID_LEN + 1];
	int64_t t = now_ms();

	logf_folder(f, "rejected %s/%s: %s", dir, name, why);
	audit_log(f->audit, "file_rejected", valid_request_name(name, id) ||
	    valid_decision_name(name, id) ? id : NULL, NULL, "daemon", AU_S("dir", dir),
	    AU_S("name", name), AU_S("why", why), AU_END);
	if (xsnprintf(from, sizeof(from), "%s/%s", dir, name) < 0 ||
	    xsnprintf(to, sizeof(to), "rejected/%lld-%s", (long long)t, name) < 0)
		return;
	/* renameat moves a symlink or a directory itself, never its target. */
	if (renameat(f->sbfd, from, f->sbfd, to) < 0) {
		logf_folder(f, "cannot move %s aside (%s); left in place", from, strerror(errno));
		return;
	}
	snprintf(note, sizeof(note), "%s\n", why);
	snprintf(to, sizeof(to), "rejected/%lld-%s.why", (long long)t, name);
	(void)write_atomic(f->sbfd, "work", to, note, strlen(note), 0600, 1);
}

/*
 * A request stays in pending/ until its result was handed to the agent
 * (a receipt in queue/delivered/) or has waited SBX_KEEP_UNDELIVERED;
 * then it moves to done/. So the hook only ever scans pending/ and
 * queue/new, which stay small, never the growing results/.
 */
static void
sweep_one(struct folder *f, const char *id, int64_t now)
{
	char from[64], to[64], res[64], rcpt[64];
	struct stat st;
	int delivered;

	snprintf(res, sizeof(res), "results/%s.json", id);
	if (fstatat(f->sbfd, res, &st, AT_SYMLINK_NOFOLLOW) < 0)
		return;
	snprintf(rcpt, sizeof(rcpt), "queue/delivered/%s", id);
	delivered = faccessat(f->sbfd, rcpt, F_OK, AT_SYMLINK_NOFOLLOW) == 0;
	if (!delivered && now - (int64_t)st.st_mtime < SBX_KEEP_UNDELIVERED)
		return;
	snprintf(from, sizeof(from), "pending/%s.json", id);
	snprintf(to, sizeof(to), "done/%s.json", id);
	if (renameat(f->sbfd, from, f->sbfd, to) == 0) {
		retention_delivered(f->db, id, now);
		audit_log(f->audit, delivered ? "result_delivered" : "result_unclaimed",
		    id, NULL, delivered ? "hook" : "daemon",
		    AU_I("result_time", (int64_t)st.st_mtime), AU_END);
		(void)unlinkat(f->sbfd, rcpt, 0);
	}
}

static int
exec_sql(struct folder *f, const char *sql)
{
	char *emsg = NULL;

	if (sqlite3_exec(f->db, sql, NULL, NULL, &emsg) != SQLITE_OK) {
		logf_folder(f, "database: %s", emsg ? emsg : "error");
		sqlite3_free(emsg);
		return -1;
	}
	return 0;
}

/* Runs an UPDATE/INSERT with text (t) and integer (i) arguments given
 * by a format like "ttii"; returns changes or -1. */
static int
sql_run(struct folder *f, const char *sql, const char *types, ...)
{
	sqlite3_stmt *st;
	va_list ap;
	int i, rc;

	if (sqlite3_prepare_v2(f->db, sql, -1, &st, NULL) != SQLITE_OK) {
		logf_folder(f, "database: %s", sqlite3_errmsg(f->db));
		return -1;
	}
	va_start(ap, types);
	for (i = 0; types[i]; i++) {
		if (types[i] == 't')
			sqlite3_bind_text(st, i + 1, va_arg(ap, const char *), -1, SQLITE_TRANSIENT);
		else
			sqlite3_bind_int64(st, i + 1, va_arg(ap, int64_t));
	}
	va_end(ap);
	rc = sqlite3_step(st);
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE)
		return rc == SQLITE_CONSTRAINT ? -2 : -1;
	return sqlite3_changes(f->db);
}

/* A count with one integer argument and a LIMIT (the second): bounded
 * work per request, however large the table grows. */
static int64_t
sql_count(struct folder *f, const char *sql, int64_t arg, int64_t limit)
{
	sqlite3_stmt *st;
	int64_t n = -1;

	if (sqlite3_prepare_v2(f->db, sql, -1, &st, NULL) != SQLITE_OK)
		return -1;
	sqlite3_bind_int64(st, 1, arg);
	sqlite3_bind_int64(st, 2, limit);
	if (sqlite3_step(st) == SQLITE_ROW)
		n = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	return n;
}

/*
 * Policy rollback: the acceptance's signed time only moves forward. sbxd
 * remembers (state.db, policy_seen) the newest acceptance it used, and
 * refuses an older one: an old policy.json put back with its old, validly
 * signed policy.accepted. 0 fine, -1 refused (msg says why).
 */
static int
policy_not_rolled_back(struct folder *f, char *msg, size_t msgsz)
{
	sqlite3_stmt *st;
	int64_t t = -1, seen = -1;
	size_t len;
	char *text = read_untrusted(f->sbfd, SBX_ACCEPTED_FILE, 64 * 1024, &len, NULL);
	cJSON *doc = text ? cJSON_ParseWithLength(text, len) : NULL;

	free(text);
	(void)json_int(doc, "time", &t);
	cJSON_Delete(doc);
	if (t < 0)
		return 0;       /* policy_load_accepted has refused it already */
	if (exec_sql(f, "CREATE TABLE IF NOT EXISTS policy_seen (id INTEGER PRIMARY KEY"
	    " CHECK (id = 1), time INTEGER NOT NULL)") < 0)
		return -1;
	if (sqlite3_prepare_v2(f->db, "SELECT time FROM policy_seen WHERE id = 1", -1, &st,
	    NULL) == SQLITE_OK) {
		if (sqlite3_step(st) == SQLITE_ROW)
			seen = sqlite3_column_int64(st, 0);
		sqlite3_finalize(st);
	}
	if (t < seen) {
		snprintf(msg, msgsz, "policy rollback: this policy was accepted at %lld, before "
		    "the one sbxd already used (accepted at %lld); an old policy.json and "
		    "policy.accepted were put back. Accept the policy again (`sbx policy "
		    "accept`) if this is intended", (long long)t, (long long)seen);
		return -1;
	}
	if (t > seen)
		(void)sql_run(f, "INSERT OR REPLACE INTO policy_seen (id, time) VALUES (1, ?)",
		    "i", t);
	return 0;
}

static struct policy *
load_policy(struct folder *f, struct policy_error *perr)
{
	struct policy *p = policy_load_accepted(f->path, f->config, perr->msg,
	    sizeof(perr->msg));
	unsigned char h[32] = { 0 };
	size_t len;
	char *text = read_untrusted(f->sbfd, "policy.json", 4 << 20, &len, NULL);

	if (p && policy_not_rolled_back(f, perr->msg, sizeof(perr->msg)) < 0) {
		policy_free(p);
		p = NULL;
		logf_folder(f, "%s", perr->msg);
	}

	/* The audit log records each policy version once: by its hash. */
	if (text)
		crypto_generichash(h, sizeof(h), (unsigned char *)text, len, NULL, 0);
	free(text);
	if (audit_policy_changed(f->audit, h))
		audit_log(f->audit, "policy_loaded", NULL, NULL, "daemon",
		    AU_H("hash", h), AU_B("valid", p != NULL),
		    AU_S("error", p ? NULL : perr->msg), AU_END);
	return p;
}

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

static void finish_unrun(struct folder *f, const char *id, const char *hash,
    const char *status, const char *approver, const char *reason);

/* Starts the executor for a request that is now "running". */
static void
start_run(struct folder *f, const struct daemon_opts *o, const struct req_row *r,
    const char *approver, int is_auto, const struct policy_limits *limits)
{
	struct policy_limits lim = *policy_limits(NULL);
	struct policy_error perr;
	struct policy *p = limits ? NULL : load_policy(f, &perr);
	struct exec_spec s;
	char why[200], *cmd;
	int slot;
	pid_t pid;

	if (limits)
		lim = *limits;
	if (p) {
		lim = *policy_limits(p);
		policy_free(p);
	}
	for (slot = 0; slot < SBX_MAX_RUNNING && f->run[slot].pid; slot++)
		;
	/* Every slot busy: the request stays approved and not started
	 * (status running, started 0) until folder_start_waiting() finds
	 * a free slot. The approval is never lost. */
	if (slot == SBX_MAX_RUNNING) {
		logf_folder(f, "request %s: approved; waiting for a free slot (%d commands "
		    "running)", r->id, SBX_MAX_RUNNING);
		return;
	}
	/* No command runs unless its decision and approval_consumed are
	 * durably in the audit log: until then it waits (started 0), and
	 * folder_start_waiting() tries again. */
	if (audit_intents_flush(f->audit) < 0 || audit_sync(f->audit) < 0) {
		logf_folder(f, "request %s: approved, NOT started: its approval is not yet in "
		    "the audit log (disk full or I/O error?); it starts once it can be written",
		    r->id);
		return;
	}
	FAULT("before-start");
	if (!(cmd = rebind_command(f, r, why, sizeof(why)))) {
		logf_folder(f, "request %s: NOT run: %s", r->id, why);
		if (sql_run(f, "UPDATE requests SET status='rejected', finished=?, deny_reason=?"
		    " WHERE id=? AND status='running' AND started=0", "itt", now_ms() / 1000,
		    why, r->id) == 1) {
			audit_log(f->audit, "exec_refused", r->id, r->session, "daemon",
			    AU_S("why", why), AU_END);
			finish_unrun(f, r->id, r->hash, "rejected", approver, why);
		}
		return;
	}
	/* Marked started before the fork: after a crash from here on, the
	 * request is interrupted, never run again. */
	if (sql_run(f, "UPDATE requests SET started=? WHERE id=? AND status='running' AND"
	    " started=0", "it", now_ms() / 1000, r->id) != 1) {
		logf_folder(f, "request %s: not started (no longer waiting to run)", r->id);
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
		logf_folder(f, "request %s: cannot start the command", r->id);
		result_write_status(f->sbfd, r->id, r->hash, "interrupted", approver,
		    "sbxd could not start the command (fork failed); it did not run");
		sql_run(f, "UPDATE requests SET status='interrupted', finished=? WHERE id=?",
		    "it", now_ms() / 1000, r->id);
		audit_log(f->audit, "exec_failed", r->id, r->session, "daemon",
		    AU_S("why", "fork failed"), AU_END);
		return;
	}
	audit_log(f->audit, "exec_started", r->id, r->session, "daemon",
	    AU_I("pid", (int64_t)pid),
	    AU_I("timeout_s", (int64_t)lim.exec_timeout_seconds),
	    AU_I("output_cap", (int64_t)lim.output_cap_bytes),
	    AU_I("cpu_s", (int64_t)lim.exec_cpu_seconds),
	    AU_I("memory_bytes", (int64_t)lim.exec_memory_bytes),
	    AU_I("max_processes", (int64_t)lim.exec_max_processes), AU_S("cwd", r->cwd),
	    AU_S("approver", approver), AU_B("auto", is_auto), AU_END);
	f->run[slot].pid = pid;
	memcpy(f->run[slot].id, r->id, sizeof(f->run[slot].id));
	logf_folder(f, "request %s: running (approved by %s%s), executor pid %ld", r->id,
	    approver, is_auto ? ", remembered" : "", (long)pid);
}

/* A request that will not run: record it and tell the agent why. */
static void
finish_unrun(struct folder *f, const char *id, const char *hash, const char *status,
    const char *approver, const char *reason)
{
	/* Recorded (and synced) before the agent can read the result. */
	audit_log(f->audit, "request_closed", id, NULL, "daemon", AU_S("status", status),
	    AU_S("approver", approver), AU_S("reason", reason), AU_END);
	(void)audit_sync(f->audit);
	if (result_write_status(f->sbfd, id, hash, status, approver, reason) < 0 &&
	    errno != EEXIST)
		logf_folder(f, "request %s: cannot write its result: %s", id, strerror(errno));
}

/*
 * A request of a kind that opens (request_opens: a network connection):
 * its approval was verified and consumed like any other, and the row is
 * already "approved"; nothing is executed. The result says approved, and
 * the agent-side process that asked (sbx-proxy) acts on it.
 */
static void
open_approved(struct folder *f, const char *id, const char *hash, const char *session,
    const char *approver, int is_auto)
{
	audit_log(f->audit, "request_closed", id, session, "daemon",
	    AU_S("status", "approved"), AU_S("approver", approver), AU_B("auto", is_auto),
	    AU_S("reason", "approved: opened, nothing executed"), AU_END);
	(void)audit_sync(f->audit);
	if (result_write_status(f->sbfd, id, hash, "approved", approver, is_auto ?
	    "approved by a remembered rule; nothing was executed" :
	    "approved; nothing was executed") < 0 && errno != EEXIST)
		logf_folder(f, "request %s: cannot write its result: %s", id, strerror(errno));
}

/* Validates a request document against its file name and this folder. */
static int
check_request(struct folder *f, const cJSON *doc, const char *id, struct sbx_err *err)
{
	unsigned char hash[SBX_HASH_LEN];
	char hex[2 * SBX_HASH_LEN + 1], real[PATH_MAX];
	const char *v_id = json_str(doc, "id"), *v_hash = json_str(doc, "hash");
	const char *tool = json_str(doc, "tool"), *folder = json_str(doc, "folder");
	const char *cwd = json_str(doc, "cwd");
	const cJSON *input = cJSON_GetObjectItemCaseSensitive(doc, "input");
	int64_t v, created;
	size_t n;

	if (json_int(doc, "v", &v) < 0 || v != 1 || json_int(doc, "created", &created) < 0) {
		err_set(err, "missing or unsupported version/created");
		return -1;
	}
	if (!v_id || strcmp(v_id, id) != 0 || !v_hash || !tool || !*tool ||
	    !cJSON_IsObject(input) || !folder || !cwd) {
		err_set(err, "missing or malformed id, hash, tool, input, folder or cwd");
		return -1;
	}
	if (strcmp(folder, f->path) != 0) {
		err_set(err, "request is for folder %s, not %s", folder, f->path);
		return -1;
	}
	n = strlen(f->path);
	if (!realpath(cwd, real) || strcmp(real, cwd) != 0 ||
	    (strcmp(cwd, f->path) != 0 && (strncmp(cwd, f->path, n) != 0 || cwd[n] != '/'))) {
		err_set(err, "cwd %s is not a resolved directory inside the folder", cwd);
		return -1;
	}
	if (request_hash(tool, input, folder, cwd, hash) < 0) {
		err_set(err, "cannot hash the request");
		return -1;
	}
	hex_encode(hex, hash, sizeof(hash));
	if (strcmp(hex, v_hash) != 0 || strncmp(id, hex, 8) != 0) {
		err_set(err, "request hash does not match its content");
		return -1;
	}
	if (!request_command(tool, input) && !request_opens(tool)) {
		err_set(err, "tool %s cannot be executed by sbxd yet (only Bash commands and "
		    "network requests)", tool);
		return -1;
	}
	return 0;
}

/*
 * Records a claimed request (pending/ID.json) after validating it and
 * classifying it again: the agent side is not trusted. One transaction
 * inserts it with its final first state: rejected, pending, or running
 * under a remembered approval.
 */
/*
 * A remembered rule is used only as its approver signed it: the stored
 * decision (remember=1 approval, or a "rule" decision) verifies with a
 * trusted key of that approver, and the row says what it says: scope,
 * prefix, exact hash, tool, expiry, approver. An inserted or edited row
 * (sqlite3 by code in the folder) is refused. 0 verified, -1 with why.
 */
static int
rule_verified(struct folder *f, int64_t rule, const char *hash, const char *tool,
    char *why, size_t whysz)
{
	const char *scope, *prefix, *rhash, *approver, *text;
	unsigned char *msg = NULL;
	char hex[2 * SBX_HASH_LEN + 1];
	struct trusted_key key;
	struct sbx_err err;
	struct decision d;
	sqlite3_stmt *st;
	int64_t expires;
	size_t mlen;
	int rc = -1;

	(void)hash;
	if (sqlite3_prepare_v2(f->db, "SELECT scope, prefix, hash, approver, expires, decision,"
	    " tool FROM rules WHERE id = ?", -1, &st, NULL) != SQLITE_OK) {
		snprintf(why, whysz, "database error");
		return -1;
	}
	sqlite3_bind_int64(st, 1, rule);
	if (sqlite3_step(st) != SQLITE_ROW) {
		snprintf(why, whysz, "no such rule");
		goto out;
	}
	scope = (const char *)sqlite3_column_text(st, 0);
	prefix = (const char *)sqlite3_column_text(st, 1);
	rhash = (const char *)sqlite3_column_text(st, 2);
	approver = (const char *)sqlite3_column_text(st, 3);
	expires = sqlite3_column_int64(st, 4);
	text = (const char *)sqlite3_column_text(st, 5);
	if (!text || decision_from_json(text, strlen(text), &d, &err) < 0) {
		snprintf(why, whysz, "it carries no signed decision (added outside sbx, or "
		    "before rules were signed: add it again with `sbx rules add` or approve "
		    "with --remember)");
		goto out;
	}
	if (trusted_key_find(f->config, d.key_id, &key, &err) != 1 ||
	    decision_message(&d, &msg, &mlen) < 0 ||
	    crypto_sign_verify_detached(d.sig, msg, mlen, key.pk) != 0 ||
	    strcmp(d.approver, key.name) != 0) {
		snprintf(why, whysz, "its signed decision does not verify with a trusted key");
		goto out;
	}
	hex_encode(hex, d.hash, SBX_HASH_LEN);
	if (!scope || strcmp(scope, d.scope) != 0 || !approver || strcmp(approver, key.name) ||
	    expires != d.rule_expires || strcmp(tool ? tool : "", (const char *)
	    sqlite3_column_text(st, 6) ? (const char *)sqlite3_column_text(st, 6) : "") ||
	    (!strcmp(d.verdict, "approve") ? !d.remember : strcmp(d.verdict, "rule") != 0) ||
	    (!strcmp(scope, "prefix") ? !prefix || strcmp(prefix, d.prefix) != 0
	    : !rhash || strcmp(rhash, hex) != 0)) {
		snprintf(why, whysz, "the stored rule differs from what %s signed (state.db "
		    "was edited?)", key.name);
		goto out;
	}
	rc = 0;
out:
	free(msg);
	sqlite3_finalize(st);
	return rc;
}

/*
 * Group commit: the requests of one batch (a burst found together, up to
 * SBX_BATCH) are recorded in one transaction (a savepoint each), their
 * records appended with one audit sync, and the results of those that
 * will not run written with one filesystem sync before any hook is woken.
 * What ingest decided waits here until its transaction committed.
 */
#define SBX_BATCH 64

struct settle {
	char id[SBX_ID_LEN + 1];
	cJSON *doc;                 /* the request; owns hash, tool, session ... */
	char *input_text, *who;
	char why[sizeof(((struct sbx_err *)0)->msg)];   /* rejected: the reason */
	char pr_reason[512], summary[600];
	struct policy_limits lim;
	int64_t rule;
	int needed, opens;
};

struct batch {
	struct policy *pol;         /* loaded and verified once per batch */
	struct policy_error perr;
	int loaded, open;           /* policy tried; BEGIN issued */
	size_t n;
	struct settle item[SBX_BATCH];
};

static void
settle_free(struct settle *s)
{
	cJSON_Delete(s->doc);
	free(s->input_text);
	free(s->who);
	memset(s, 0, sizeof(*s));
}

/* The command a person reads: the command, or "CONNECT host:port". */
static const char *
settle_cmd(const struct settle *s)
{
	const char *tool = json_str(s->doc, "tool");
	const char *cmd = request_command(tool,
	    cJSON_GetObjectItemCaseSensitive(s->doc, "input"));

	return cmd ? cmd : s->opens && s->summary[0] ? s->summary : NULL;
}

/* The status a settled request was recorded with. */
static const char *
settle_status(const struct settle *s)
{
	return s->why[0] ? "rejected" : s->who ? (s->opens ? "approved" : "running")
	    : "pending";
}

/* A request that will not run (rejected) or only opens: its closing
 * record (request_closed), before its result. */
static void
settle_closed_record(struct folder *f, const struct settle *s)
{
	audit_log(f->audit, "request_closed", s->id, json_str(s->doc, "session_id"), "daemon",
	    AU_S("status", settle_status(s)), AU_S("approver", s->who ? s->who : ""),
	    AU_B("auto", s->who != NULL),
	    AU_S("reason", s->why[0] ? s->why : "approved: opened, nothing executed"), AU_END);
}

static int
settle_closed_result(struct folder *f, const struct settle *s)
{
	int rc = result_write_status_deferred(f->sbfd, s->id, json_str(s->doc, "hash"),
	    settle_status(s), s->who ? s->who : "", s->why[0] ? s->why :
	    "approved by a remembered rule; nothing was executed");

	if (rc < 0 && errno != EEXIST)
		logf_folder(f, "request %s: cannot write its result: %s", s->id, strerror(errno));
	return rc;
}

/* Once recorded (and, in a batch, closed): say so, notify, run. */
static void
settle_announce(struct folder *f, const struct daemon_opts *o, struct settle *s)
{
	const char *tool = json_str(s->doc, "tool"), *cmd = settle_cmd(s);
	struct req_row row;

	if (s->why[0]) {
		logf_folder(f, "request %s rejected: %s", s->id, s->why);
		notify_event(!strncmp(s->why, "denied by policy", 16) ? "denied" :
		    !strncmp(s->why, "rate limit", 10) || strstr(s->why, "pending already")
		    ? "rate_limited" : "denied", f->path, s->id, tool, cmd ? cmd : s->input_text,
		    s->why);
	} else if (s->who && s->opens) {
		logf_folder(f, "request %s: %s `%s` opened by remembered rule %lld (by %s)",
		    s->id, tool, cmd, (long long)s->rule, s->who);
	} else if (s->who) {
		logf_folder(f, "request %s: %s `%s` auto-approved by remembered rule %lld (by %s)",
		    s->id, tool, cmd, (long long)s->rule, s->who);
		if (db_get(f->db, s->id, &row) == 1) {
			start_run(f, o, &row, s->who, 1, &s->lim);
			req_row_free(&row);
		}
	} else {
		logf_folder(f, "request %s pending: %s `%s` (%s)%s", s->id, tool, cmd,
		    s->pr_reason, s->needed > 1 ? " - needs two approvers" : "");
		notify_event("request", f->path, s->id, tool, cmd ? cmd : s->input_text,
		    json_str(s->doc, "reason"));
	}
}

/* One request, its transaction committed on its own (no batch). */
static void
settle_now(struct folder *f, const struct daemon_opts *o, struct settle *s)
{
	FAULT("request-committed");
	if (audit_intents_flush(f->audit) < 0)
		logf_folder(f, "request %s: its records wait in state.db until the audit log "
		    "can be written", s->id);
	if (s->why[0])
		finish_unrun(f, s->id, json_str(s->doc, "hash"), "rejected", "", s->why);
	else if (s->who && s->opens)
		open_approved(f, s->id, json_str(s->doc, "hash"), json_str(s->doc, "session_id"),
		    s->who, 1);
	settle_announce(f, o, s);
}

/* Ends a batch: one commit, one audit sync, one filesystem sync for the
 * results of the requests that will not run, then the wakes. */
static void
batch_end(struct folder *f, const struct daemon_opts *o, struct batch *b)
{
	size_t i, closing = 0;
	char name[SBX_ID_LEN + 6];

	if (b->open && exec_sql(f, "COMMIT") < 0) {
		exec_sql(f, "ROLLBACK");
		for (i = 0; i < b->n; i++) {
			snprintf(name, sizeof(name), "%s.json", b->item[i].id);
			reject_file(f, "pending", name, "database error");
			finish_unrun(f, b->item[i].id, json_str(b->item[i].doc, "hash"), "rejected",
			    "", "sbxd could not record the request (database error); ask the user "
			    "to check sbxd's log");
		}
		b->n = 0;
	}
	b->open = 0;
	if (b->n) {
		FAULT("request-committed");
		if (audit_intents_flush(f->audit) < 0)
			logf_folder(f, "%zu requests: their records wait in state.db until the "
			    "audit log can be written", b->n);
	}
	for (i = 0; i < b->n; i++)
		if (b->item[i].why[0] || (b->item[i].who && b->item[i].opens)) {
			settle_closed_record(f, &b->item[i]);
			closing++;
		}
	/* Recorded (and synced) before the agent can read the results. */
	if (closing) {
		(void)audit_sync(f->audit);
		for (i = 0; i < b->n; i++)
			if (b->item[i].why[0] || (b->item[i].who && b->item[i].opens))
				(void)settle_closed_result(f, &b->item[i]);
		if (syncfs(f->sbfd) < 0)
			logf_folder(f, "cannot sync the results of %zu requests: %s", closing,
			    strerror(errno));
		for (i = 0; i < b->n; i++)
			if (b->item[i].why[0] || (b->item[i].who && b->item[i].opens))
				wake_poke(f->sbfd, b->item[i].id);
	}
	for (i = 0; i < b->n; i++) {
		settle_announce(f, o, &b->item[i]);
		settle_free(&b->item[i]);
	}
	b->n = 0;
}

/* BEGIN for one request, or a savepoint inside the batch's transaction. */
static int
ingest_begin(struct folder *f, struct batch *b)
{
	if (!b)
		return exec_sql(f, "BEGIN IMMEDIATE");
	if (!b->open) {
		if (exec_sql(f, "BEGIN IMMEDIATE") < 0)
			return -1;
		b->open = 1;
	}
	return exec_sql(f, "SAVEPOINT ingest");
}

static int
ingest_commit(struct folder *f, struct batch *b, int ok)
{
	if (!b) {
		if (ok && exec_sql(f, "COMMIT") == 0)
			return 0;
		exec_sql(f, "ROLLBACK");
		return -1;
	}
	if (!ok)
		exec_sql(f, "ROLLBACK TO ingest");
	return exec_sql(f, "RELEASE ingest") < 0 || !ok ? -1 : 0;
}

/* Classifies s's request with the policy: s->why, s->lim, s->needed,
 * s->pr_reason; the policy result in *pr. */
static void
ingest_judge(struct folder *f, struct policy *pol, const char *perr, struct settle *s,
    struct policy_result *pr)
{
	const cJSON *input = cJSON_GetObjectItemCaseSensitive(s->doc, "input");
	int64_t now = now_ms() / 1000;
	struct policy_call call;

	if (!pol) {
		/* Fail closed, but keep the request on record. */
		s->lim = (struct policy_limits){ .request_ttl_seconds = 3600 };
		snprintf(s->why, sizeof(s->why), "the policy is invalid: %.400s", perr);
		return;
	}
	s->lim = *policy_limits(pol);
	call = (struct policy_call){ .tool = json_str(s->doc, "tool"), .input = input,
		.cwd = json_str(s->doc, "cwd"), .folder = f->path, .home = getenv("HOME"),
		.config_dir = f->config };
	policy_eval(pol, &call, pr);
	s->needed = policy_approvals_needed(pol, &call, pr);
	snprintf(s->pr_reason, sizeof(s->pr_reason), "%s", pr->reason);
	if (pr->verdict == POLICY_DENY)
		snprintf(s->why, sizeof(s->why), "denied by policy (%.150s): %.300s",
		    pr->rule, pr->reason);
	else if (sql_count(f, "SELECT count(*) FROM (SELECT 1 FROM requests WHERE"
	    " created >= ? LIMIT ?)", now - 60, s->lim.max_per_minute) >= s->lim.max_per_minute)
		snprintf(s->why, sizeof(s->why), "rate limit: %d requests in the last "
		    "minute; wait before escalating more", s->lim.max_per_minute);
	else if (sql_count(f, "SELECT count(*) FROM (SELECT 1 FROM requests WHERE"
	    " status = 'pending' AND created >= ? LIMIT ?)", 0, s->lim.max_pending)
	    >= s->lim.max_pending)
		snprintf(s->why, sizeof(s->why), "%d requests are pending already",
		    s->lim.max_pending);
}

/* Dual control is for every run: remembered rules never stand in. A
 * rule covers no call above the risk, or with a factor, it was approved
 * without, and no call on the always_ask list; and it is used only as
 * its approver signed it. Sets s->rule and s->who. */
static void
ingest_rule(struct folder *f, struct policy *pol, struct settle *s,
    const struct policy_result *pr)
{
	const char *hash = json_str(s->doc, "hash"), *tool = json_str(s->doc, "tool");
	const char *cmd = settle_cmd(s);

	if (s->why[0] || s->needed >= 2)
		return;
	{
		struct rule_query q = { .hash = hash, .tool = tool, .command = cmd,
			.now = now_ms() / 1000, .risk = (int)pr->risk, .factors = pr->factors,
			.always_ask = policy_always_ask(pol, cmd) };

		s->rule = db_rule_match(f->db, &q, &s->who, NULL, NULL);
	}
	if (s->rule && rule_verified(f, s->rule, hash, tool, s->why, sizeof(s->why)) < 0) {
		/* Not signed as stored: never an auto-approval; a human decides. */
		logf_folder(f, "request %s: remembered rule %lld NOT used: %s", s->id,
		    (long long)s->rule, s->why);
		audit_log(f->audit, "rule_refused", s->id, json_str(s->doc, "session_id"),
		    "daemon", AU_I("rule", s->rule), AU_S("why", s->why), AU_END);
		s->why[0] = '\0';
		free(s->who);
		s->who = NULL;
		s->rule = 0;
	}
}

/* The row, the rule's use and the intents of s, in the open transaction. */
static int
ingest_insert(struct folder *f, const struct settle *s)
{
	const cJSON *doc = s->doc, *input = cJSON_GetObjectItemCaseSensitive(doc, "input");
	const char *session = json_str(doc, "session_id"), *cmd = settle_cmd(s);
	int64_t now = now_ms() / 1000;
	int rc;

	rc = sql_run(f, "INSERT INTO requests (id, hash, tool, command, input, cwd, session,"
	    " agent, trigger, rule, reason, created, expires, status, deny_reason, approver,"
	    " auto, decided, started, approvals_needed)"
	    " VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)", "tttttttttttiitttiiii",
	    s->id, json_str(doc, "hash"), json_str(doc, "tool"), cmd, s->input_text,
	    json_str(doc, "cwd"), session, json_str(doc, "agent"), json_str(doc, "trigger"),
	    json_str(doc, "rule"), json_str(doc, "reason"), now,
	    now + s->lim.request_ttl_seconds, settle_status(s), s->why[0] ? s->why : NULL,
	    s->who, (int64_t)(s->who != NULL), s->who ? now : 0, (int64_t)0,
	    (int64_t)s->needed);
	if (rc >= 0 && s->who)
		rc = sql_run(f, "UPDATE rules SET uses = uses + 1, last_used = ? WHERE id = ?",
		    "ii", now, s->rule);
	/* The records go in with the row (intents): a crash after the commit
	 * cannot lose them. */
	if (rc >= 0)
		rc = audit_intent(f->audit, "request_received", s->id, session, "hook",
		    AU_S("tool", json_str(doc, "tool")), AU_S("command", cmd),
		    AU_S("cwd", json_str(doc, "cwd")),
		    AU_J("input", cJSON_Duplicate(input, 1)), AU_S("hash", json_str(doc, "hash")),
		    AU_S("agent", json_str(doc, "agent")),
		    AU_S("tool_use_id", json_str(doc, "tool_use_id")),
		    AU_S("trigger", json_str(doc, "trigger")),
		    AU_S("rule", json_str(doc, "rule")), AU_S("reason", json_str(doc, "reason")),
		    AU_S("status", settle_status(s)), AU_S("why", s->why[0] ? s->why : NULL),
		    AU_END);
	if (rc >= 0 && s->who)
		rc = audit_intent(f->audit, "decision", s->id, session, "daemon",
		    AU_S("verdict", "approve"), AU_S("approver", s->who),
		    AU_B("remembered", 1), AU_B("auto", 1), AU_I("rule", s->rule), AU_END);
	return rc;
}

/*
 * Records a claimed request (pending/ID.json) after validating it and
 * classifying it again: the agent side is not trusted. Its transaction
 * (or, in batch B, its savepoint) inserts it with its final first state:
 * rejected, pending, or running under a remembered approval.
 */
static void
ingest(struct folder *f, const struct daemon_opts *o, const char *id, const char *path,
    struct batch *b)
{
	struct policy_error perr;
	struct policy_result pr = { 0 };
	struct policy *pol = NULL;
	struct sbx_err err = { "" };
	struct settle one = { .rule = 0 }, *s = b ? &b->item[b->n] : &one;
	const cJSON *input;
	const char *tool, *name = path + strlen("pending/");
	size_t len;
	char *text;
	int rc;

	memset(s, 0, sizeof(*s));
	memcpy(s->id, id, sizeof(s->id));
	if (!(text = read_untrusted(f->sbfd, path, SBX_MAX_REQUEST, &len, &err))) {
		reject_file(f, "pending", name, err.msg);
		return;
	}
	s->doc = cJSON_ParseWithLength(text, len);
	free(text);
	if (!cJSON_IsObject(s->doc)) {
		reject_file(f, "pending", name, "not a JSON object");
		goto drop;
	}
	if (check_request(f, s->doc, id, &err) < 0) {
		reject_file(f, "pending", name, err.msg);
		/* The name was valid: let a waiting agent know. */
		result_write_status(f->sbfd, id, json_str(s->doc, "hash") ?
		    json_str(s->doc, "hash") : "", "rejected", "", err.msg);
		goto drop;
	}
	tool = json_str(s->doc, "tool");
	s->opens = request_opens(tool);
	input = cJSON_GetObjectItemCaseSensitive(s->doc, "input");
	/* What the human reads: the command, or "CONNECT host:port" for a
	 * kind that opens (never executed: see open_approved). */
	if (!request_command(tool, input) && s->opens &&
	    request_summary(tool, input, s->summary, sizeof(s->summary)) < 0)
		s->summary[0] = '\0';
	if (!(s->input_text = cJSON_PrintUnformatted(input))) {
		reject_file(f, "pending", name, "out of memory");
		goto drop;
	}
	if (b) {
		if (!b->loaded)
			b->pol = load_policy(f, &b->perr);
		b->loaded = 1;
		pol = b->pol;
	} else {
		pol = load_policy(f, &perr);
	}
	ingest_judge(f, pol, b ? b->perr.msg : perr.msg, s, &pr);
	ingest_rule(f, pol, s, &pr);
	rc = ingest_begin(f, b) < 0 ? -1 : ingest_insert(f, s);
	if (ingest_commit(f, b, rc >= 0) < 0) {
		reject_file(f, "pending", name,
		    rc == -2 ? "a request with this id exists already" : "database error");
		/* A waiting agent learns it was not recorded (never for a
		 * duplicate id: that result belongs to the first request). */
		if (rc != -2)
			finish_unrun(f, id, json_str(s->doc, "hash"), "rejected", "", "sbxd could "
			    "not record the request (database error); ask the user to check sbxd's "
			    "log");
		goto drop;
	}
	if (b) {
		b->n++;         /* settled by batch_end */
		return;
	}
	settle_now(f, o, s);
drop:
	if (!b)
		policy_free(pol);
	settle_free(s);
}

/* Claims queue/new/NAME: renamed to pending/, never over an existing
 * request. 1 claimed (id set), 0 not (gone already, or moved aside). */
static int
claim(struct folder *f, const char *name, char id[SBX_ID_LEN + 1])
{
	char from[512], to[512];

	if (name[0] == '.')
		return 0;
	if (!valid_request_name(name, id)) {
		reject_file(f, "queue/new", name, "not a request file name (want 16 hex digits + .json)");
		return 0;
	}
	snprintf(from, sizeof(from), "queue/new/%s", name);
	snprintf(to, sizeof(to), "pending/%s", name);
	/* The claim: atomic, and never over an existing request. */
	if (renameat2(f->sbfd, from, f->sbfd, to, RENAME_NOREPLACE) < 0) {
		if (errno == EEXIST)
			reject_file(f, "queue/new", name, "a request with this id exists already");
		else if (errno != ENOENT)
			logf_folder(f, "cannot claim %s: %s", from, strerror(errno));
		return 0;
	}
	return 1;
}

static void
claim_request(struct folder *f, const struct daemon_opts *o, const char *name,
    struct batch *b)
{
	char id[SBX_ID_LEN + 1], to[64];

	if (!claim(f, name, id))
		return;
	snprintf(to, sizeof(to), "pending/%s.json", id);
	ingest(f, o, id, to, b);
}

void
folder_requests(struct folder *f, const struct daemon_opts *o, char *const names[], size_t n)
{
	/* Without memory for a batch, one by one: slower, nothing lost. */
	struct batch *b = n > 1 ? calloc(1, sizeof(*b)) : NULL;
	size_t i;

	for (i = 0; i < n; i++) {
		claim_request(f, o, names[i], b);
		if (b && b->n == SBX_BATCH)
			batch_end(f, o, b);
	}
	if (b) {
		batch_end(f, o, b);
		policy_free(b->pol);
		free(b);
	}
}

/*
 * The request inotify named, and with it whatever else waits in queue/new
 * (a burst, several hooks at once): group commit without waiting for
 * their events, which then find their files claimed (one failed rename
 * each). Alone (the usual case: one read of an empty directory), it is
 * recorded on its own.
 */
void
folder_request(struct folder *f, const struct daemon_opts *o, const char *name)
{
	char id[SBX_ID_LEN + 1], to[64], *names[SBX_BATCH - 1];
	struct batch *b = NULL;
	struct dirent *de;
	size_t n = 0, i;
	DIR *d;

	if (!claim(f, name, id))
		return;
	snprintf(to, sizeof(to), "pending/%s.json", id);
	if ((d = opendir_at(f->sbfd, "queue/new"))) {
		while (n < SBX_BATCH - 1 && (de = readdir(d)))
			if (de->d_name[0] != '.' && (names[n] = strdup(de->d_name)))
				n++;
		closedir(d);
	}
	if (n > 0)
		b = calloc(1, sizeof(*b));
	ingest(f, o, id, to, b);
	for (i = 0; i < n; i++)
		claim_request(f, o, names[i], b);
	if (b) {
		batch_end(f, o, b);
		policy_free(b->pol);
		free(b);
	}
	for (i = 0; i < n; i++)
		free(names[i]);
}

static int
verify_decision(struct folder *f, const char *name, struct decision *d,
    struct trusted_key *key, struct sbx_err *err)
{
	char id[SBX_ID_LEN + 1], path[512];
	unsigned char *msg = NULL;
	size_t len, mlen;
	char *text;
	int64_t now = now_ms() / 1000;
	int found, rc = -1;

	if (!valid_decision_name(name, id)) {
		err_set(err, "not a decision file name (want ID.NONCE.json)");
		return -1;
	}
	snprintf(path, sizeof(path), "decisions/new/%s", name);
	/* Gone: a rescan consumed it before its inotify event came. */
	if (!(text = read_untrusted(f->sbfd, path, SBX_MAX_DECISION, &len, err)))
		return faccessat(f->sbfd, path, F_OK, AT_SYMLINK_NOFOLLOW) != 0 &&
		    errno == ENOENT ? -2 : -1;
	if (decision_from_json(text, len, d, err) < 0)
		goto out;
	if (strcmp(d->id, id) != 0 || strncmp(name + SBX_ID_LEN + 1, d->nonce,
	    2 * SBX_NONCE_LEN) != 0) {
		err_set(err, "file name does not match the decision's request or nonce");
		goto out;
	}
	found = trusted_key_find(f->config, d->key_id, key, err);
	if (found < 0)
		goto out;
	if (found == 0) {
		err_set(err, "signed by key %s, which is not a trusted approver key", d->key_id);
		goto out;
	}
	if (decision_message(d, &msg, &mlen) < 0) {
		err_set(err, "out of memory");
		goto out;
	}
	if (crypto_sign_verify_detached(d->sig, msg, mlen, key->pk) != 0) {
		err_set(err, "bad signature (key %s)", d->key_id);
		goto out;
	}
	if (strcmp(d->approver, key->name) != 0) {
		err_set(err, "approver \"%s\" does not match the key's name \"%s\"",
		    d->approver, key->name);
		goto out;
	}
	if (d->expires <= now) {
		err_set(err, "decision expired %lld s ago", (long long)(now - d->expires));
		goto out;
	}
	if (d->created > now + 300) {
		err_set(err, "decision created in the future");
		goto out;
	}
	rc = 0;
out:
	free(msg);
	free(text);
	return rc;
}

/*
 * How the policy rates a call now (input as JSON text, or a Bash
 * command): the risk and factors a remembered rule is approved at.
 * Returns 0, or -1 when the policy cannot be loaded.
 */
static int
rule_classify(struct folder *f, const char *tool, const char *input_text,
    const char *command, const char *cwd, struct policy_result *pr)
{
	struct policy_error perr;
	struct policy_call call;
	struct policy *pol = load_policy(f, &perr);
	cJSON *input;

	if (!pol)
		return -1;
	input = command ? cJSON_CreateObject() : cJSON_Parse(input_text ? input_text : "{}");
	if (command && input)
		cJSON_AddStringToObject(input, "command", command);
	call = (struct policy_call){ .tool = tool, .input = input, .cwd = cwd,
		.folder = f->path, .home = getenv("HOME"), .config_dir = f->config };
	policy_eval(pol, &call, pr);
	/* A call on the always_ask list is never remembered. */
	if (command || (command = request_command(tool, input)))
		pr->verdict = policy_always_ask(pol, command) ? POLICY_DENY : pr->verdict;
	cJSON_Delete(input);
	policy_free(pol);
	return 0;
}

/*
 * A signed rule change that names no request: "rule" adds a prefix rule,
 * "revoke" removes one. The nonce is consumed in the same transaction.
 */
static void
rule_decision(struct folder *f, const char *name, const struct decision *d,
    const struct trusted_key *key)
{
	static const unsigned char zero[SBX_HASH_LEN];
	struct policy_result pr = { .risk = POLICY_RISK_LOW };
	char path[512];
	int64_t now = now_ms() / 1000;
	int rc;

	if (strcmp(d->id, SBX_NO_REQUEST) != 0 || memcmp(d->hash, zero, sizeof(zero)) != 0) {
		reject_file(f, "decisions/new", name, "a rule change must name no request");
		return;
	}
	if (!strcmp(d->verdict, "rule") && (strcmp(d->scope, "prefix") != 0 ||
	    !prefix_valid(d->prefix))) {
		reject_file(f, "decisions/new", name, "a rule needs a prefix of at least two "
		    "words without shell syntax");
		return;
	}
	/* A rule made without a request covers what its prefix alone is
	 * rated: "git push" covers no force push. */
	if (!strcmp(d->verdict, "rule") && rule_classify(f, "Bash", NULL, d->prefix, f->path,
	    &pr) < 0) {
		reject_file(f, "decisions/new", name, "the policy is invalid or not accepted: "
		    "cannot rate the rule's prefix");
		return;
	}
	if (exec_sql(f, "BEGIN IMMEDIATE") < 0)
		return;
	rc = sql_run(f, "INSERT INTO nonces (nonce, request, used) VALUES (?,?,?)", "tti",
	    d->nonce, d->id, now);
	if (rc >= 0 && !strcmp(d->verdict, "rule")) {
		char *signed_d = decision_to_json(d);

		rc = !signed_d ? -1 : sql_run(f, "INSERT INTO rules (scope, prefix, tool, approver,"
		    " key_id, created, expires, risk, factors, decision) VALUES ('prefix', ?, 'Bash',"
		    " ?, ?, ?, ?, ?, ?, ?)", "tttiiiit", d->prefix, key->name, key->key_id, now,
		    d->rule_expires, (int64_t)pr.risk, (int64_t)pr.factors, signed_d);
		free(signed_d);
	}
	else if (rc >= 0)
		rc = sql_run(f, "DELETE FROM rules WHERE id = ?", "i", d->rule_id) == 1 ? 1 : -3;
	if (rc < 0 || exec_sql(f, "COMMIT") < 0) {
		exec_sql(f, "ROLLBACK");
		reject_file(f, "decisions/new", name, rc == -2 ? "replayed decision (nonce already "
		    "used)" : rc == -3 ? "no such rule" : "database error");
		return;
	}
	snprintf(path, sizeof(path), "approver:%s", key->name);
	audit_log(f->audit, !strcmp(d->verdict, "rule") ? "rule_added" : "rule_removed",
	    NULL, NULL, path,
	    AU_S("prefix", !strcmp(d->verdict, "rule") ? d->prefix : NULL),
	    AU_S("approver", key->name), AU_S("key_id", key->key_id),
	    AU_I("rule", d->rule_id), AU_I("expires", d->rule_expires),
	    AU_S("nonce", d->nonce), AU_END);
	snprintf(path, sizeof(path), "decisions/new/%s", name);
	(void)unlinkat(f->sbfd, path, 0);
	if (!strcmp(d->verdict, "rule"))
		logf_folder(f, "rule added by %s: Bash prefix \"%s\"%s", key->name, d->prefix,
		    d->rule_expires ? " (expires)" : "");
	else
		logf_folder(f, "rule %lld removed by %s", (long long)d->rule_id, key->name);
}

/* 1 when the request is pending past its deadline, 0 if not, -1 on error. */
static int
req_expired(struct folder *f, const char *id, int64_t now)
{
	sqlite3_stmt *st;
	int rc;

	if (sqlite3_prepare_v2(f->db, "SELECT 1 FROM requests WHERE id = ? AND"
	    " status = 'pending' AND expires <= ?", -1, &st, NULL) != SQLITE_OK)
		return -1;
	sqlite3_bind_text(st, 1, id, -1, SQLITE_STATIC);
	sqlite3_bind_int64(st, 2, now);
	rc = sqlite3_step(st);
	sqlite3_finalize(st);
	return rc == SQLITE_ROW ? 1 : rc == SQLITE_DONE ? 0 : -1;
}

static void expire_one(struct folder *f, const char *id, const char *hash, int64_t now);

static int
count_approvals(struct folder *f, const char *id)
{
	sqlite3_stmt *st;
	int n = -1;

	if (sqlite3_prepare_v2(f->db, "SELECT count(*) FROM approvals WHERE request = ?",
	    -1, &st, NULL) != SQLITE_OK)
		return -1;
	sqlite3_bind_text(st, 1, id, -1, SQLITE_STATIC);
	if (sqlite3_step(st) == SQLITE_ROW)
		n = sqlite3_column_int(st, 0);
	sqlite3_finalize(st);
	return n;
}

void
folder_decision(struct folder *f, const struct daemon_opts *o, const char *name)
{
	char hash[2 * SBX_HASH_LEN + 1], path[512], who[160], actor[80];
	struct trusted_key key;
	struct sbx_err err = { "" };
	struct decision d;
	struct req_row row = { 0 };
	struct policy_result rpr = { .risk = POLICY_RISK_LOW };
	int64_t now = now_ms() / 1000;
	int approve, rc, votes, opens;

	if (name[0] == '.')
		return;
	if ((rc = verify_decision(f, name, &d, &key, &err)) < 0) {
		if (rc != -2)
			reject_file(f, "decisions/new", name, err.msg);
		return;
	}
	hex_encode(hash, d.hash, SBX_HASH_LEN);
	if (!strcmp(d.verdict, "rule") || !strcmp(d.verdict, "revoke")) {
		rule_decision(f, name, &d, &key);
		return;
	}
	if ((rc = db_get(f->db, d.id, &row)) != 1) {
		reject_file(f, "decisions/new", name, rc == 0 ? "no such request"
		    : "database error");
		return;
	}
	if (strcmp(row.hash, hash) != 0) {
		reject_file(f, "decisions/new", name, "decision is bound to another request");
		goto out;
	}
	approve = strcmp(d.verdict, "approve") == 0;
	opens = request_opens(row.tool);
	/* Consume: nonce and state change in one transaction. */
	if (exec_sql(f, "BEGIN IMMEDIATE") < 0)
		goto out;
	/* An expired request never runs: checked here, in the consuming
	 * transaction, not only by the periodic expiry pass. */
	if ((rc = req_expired(f, d.id, now)) != 0) {
		exec_sql(f, "ROLLBACK");
		reject_file(f, "decisions/new", name, rc > 0 ? "the request expired before "
		    "this decision arrived; it will not run" : "database error");
		if (rc > 0)
			expire_one(f, row.id, row.hash, now);
		goto out;
	}
	rc = sql_run(f, "INSERT INTO nonces (nonce, request, used) VALUES (?,?,?)", "tti",
	    d.nonce, d.id, now);
	if (rc < 0) {
		exec_sql(f, "ROLLBACK");
		reject_file(f, "decisions/new", name, rc == -2 ? "replayed decision (nonce "
		    "already used)" : "database error");
		goto out;
	}
	/* Dual control: record this approval; run only at the second key. */
	if (approve && row.approvals_needed > 1) {
		rc = sql_run(f, "INSERT INTO approvals (request, key_id, approver, time)"
		    " VALUES (?,?,?,?)", "ttti", d.id, key.key_id, key.name, now);
		if (rc < 0) {
			exec_sql(f, "ROLLBACK");
			reject_file(f, "decisions/new", name, rc == -2 ? "this key approved "
			    "already; dual control needs a second, different approver"
			    : "database error");
			goto out;
		}
		if ((votes = count_approvals(f, d.id)) < row.approvals_needed) {
			snprintf(actor, sizeof(actor), "approver:%s", key.name);
			if (votes < 0 || audit_intent(f->audit, "decision", d.id, row.session, actor,
			    AU_S("verdict", "approve"), AU_S("approver", key.name),
			    AU_S("key_id", key.key_id), AU_I("approval", (int64_t)votes),
			    AU_I("approvals_needed", (int64_t)row.approvals_needed),
			    AU_S("nonce", d.nonce), AU_END) < 0 || exec_sql(f, "COMMIT") < 0) {
				exec_sql(f, "ROLLBACK");
				goto out;
			}
			(void)audit_intents_flush(f->audit);
			snprintf(path, sizeof(path), "decisions/new/%s", name);
			(void)unlinkat(f->sbfd, path, 0);
			logf_folder(f, "request %s: approval %d of %d, by %s; waiting for a "
			    "different approver", d.id, votes, row.approvals_needed, key.name);
			goto out;
		}
		snprintf(who, sizeof(who), "%s+%s", row.approved_by ? row.approved_by : "?",
		    key.name);
	} else {
		snprintf(who, sizeof(who), "%s", key.name);
	}
	/* A kind that opens is "approved" at once: it never runs. */
	rc = sql_run(f, "UPDATE requests SET status=?, approver=?, key_id=?, decided=?,"
	    " started=?, deny_reason=? WHERE id=? AND status='pending'", "tttiitt",
	    !approve ? "denied" : opens ? "approved" : "running", who, key.key_id, now,
	    (int64_t)0, approve ? NULL : d.reason, d.id);
	if (rc != 1) {
		exec_sql(f, "ROLLBACK");
		snprintf(err.msg, sizeof(err.msg), "request is %s, not pending", row.status);
		reject_file(f, "decisions/new", name, err.msg);
		goto out;
	}
	if (approve && d.remember && row.approvals_needed > 1) {
		logf_folder(f, "request %s: not remembered, it needs two approvers each time", d.id);
	} else if (approve && d.remember && (rule_classify(f, row.tool, row.input, NULL,
	    row.cwd, &rpr) < 0 || rpr.verdict == POLICY_DENY)) {
		logf_folder(f, "request %s: not remembered: it is on the always_ask list (or the "
		    "policy cannot rate it); a human decides each such call", d.id);
	} else if (approve && d.remember) {
		/* A prefix rule must cover this very request and stay narrow;
		 * kinds that open are remembered exactly (host and port). */
		if (!strcmp(d.scope, "prefix") && (opens || !prefix_covers(d.prefix,
		    row.command))) {
			exec_sql(f, "ROLLBACK");
			reject_file(f, "decisions/new", name, opens ? "a request that opens is "
			    "remembered exactly, never by prefix" : "the remembered prefix does not "
			    "cover this request, has fewer than two words, or the command has shell "
			    "syntax");
			goto out;
		}
		char *signed_d = decision_to_json(&d);

		if (!signed_d || sql_run(f, "INSERT INTO rules (scope, hash, prefix, tool, command,"
		    " approver, key_id, created, expires, risk, factors, decision)"
		    " VALUES (?,?,?,?,?,?,?,?,?,?,?,?)",
		    "tttttttiiiit", d.scope, hash, !strcmp(d.scope, "prefix") ? d.prefix : NULL,
		    row.tool, row.command, key.name, key.key_id, now, d.rule_expires,
		    (int64_t)rpr.risk, (int64_t)rpr.factors, signed_d) < 0) {
			free(signed_d);
			exec_sql(f, "ROLLBACK");
			goto out;
		}
		free(signed_d);
	}
	/* The decision and its consumption are recorded in the same
	 * transaction (intents), written to the log right after it, and no
	 * command starts before they are durably there (start_run). */
	snprintf(actor, sizeof(actor), "approver:%s", key.name);
	if (audit_intent(f->audit, "decision", d.id, row.session, actor,
	    AU_S("verdict", d.verdict), AU_S("approver", key.name),
	    AU_S("approvers", who), AU_S("key_id", key.key_id),
	    AU_B("remember", d.remember), AU_S("scope", d.scope),
	    AU_S("prefix", d.prefix), AU_S("reason", d.reason), AU_S("nonce", d.nonce),
	    AU_I("created", d.created), AU_I("expires", d.expires), AU_END) < 0 ||
	    (approve && audit_intent(f->audit, "approval_consumed", d.id, row.session, "daemon",
	    AU_S("nonce", d.nonce), AU_S("approver", who), AU_END) < 0) ||
	    exec_sql(f, "COMMIT") < 0) {
		exec_sql(f, "ROLLBACK");
		goto out;
	}
	FAULT("decision-committed");
	(void)audit_intents_flush(f->audit);
	snprintf(path, sizeof(path), "decisions/new/%s", name);
	(void)unlinkat(f->sbfd, path, 0);
	logf_folder(f, "request %s %s by %s%s%s%s", d.id, approve ? "approved" : "denied",
	    key.name, d.remember ? " (remembered: " : "", d.remember ? (!strcmp(d.scope,
	    "prefix") ? d.prefix : "this exact call") : "", d.remember ? ")" : "");
	if (approve && opens) {
		open_approved(f, d.id, row.hash, row.session, who, 0);
	} else if (approve) {
		start_run(f, o, &row, who, 0, NULL);
	} else {
		finish_unrun(f, d.id, row.hash, "denied", key.name, d.reason);
		notify_event("denied", f->path, d.id, row.tool, row.command ? row.command
		    : row.input, d.reason[0] ? d.reason : "no reason given");
	}
out:
	req_row_free(&row);
}

struct event_key {
	const char *key;
	int type;
};

/*
 * An event for the audit log: BOX/ID.json (16 hex digits), at most
 * SBX_MAX_EVENT bytes, read with read_untrusted(). BOX is queue/events
 * (the agent side: post_tool_use) or proxy/events (sbx-proxy, outside the
 * jail, which cannot write there: network_connection); each box takes
 * only its own kind. Only known keys of the right types are accepted, and
 * only they reach the log; anything else is moved to rejected/ like a
 * bad request.
 */
static void
event_from(struct folder *f, const char *box, const char *name)
{
	static const struct event_key post_keys[] = {
		{ "v", cJSON_Number }, { "kind", cJSON_String }, { "agent", cJSON_String },
		{ "session_id", cJSON_String }, { "tool_use_id", cJSON_String },
		{ "tool", cJSON_String }, { "cwd", cJSON_String }, { "time", cJSON_Number },
		{ "path", cJSON_String }, { "before", cJSON_String }, { "after", cJSON_String },
		{ "command", cJSON_String }, { "exit_code", cJSON_Number },
		{ "interrupted", cJSON_True | cJSON_False }, { "error", cJSON_String },
		{ NULL, 0 },
	};
	/* sbx-proxy: one per connection, allowed or not. */
	static const struct event_key net_keys[] = {
		{ "v", cJSON_Number }, { "kind", cJSON_String }, { "agent", cJSON_String },
		{ "session_id", cJSON_String }, { "time", cJSON_Number },
		{ "method", cJSON_String }, { "host", cJSON_String }, { "port", cJSON_Number },
		{ "verdict", cJSON_String }, { "rule", cJSON_String }, { "reason", cJSON_String },
		{ "request", cJSON_String }, { "bytes_up", cJSON_Number },
		{ "bytes_down", cJSON_Number }, { "duration_ms", cJSON_Number },
		{ "error", cJSON_String }, { NULL, 0 },
	};
	const struct event_key *keys;
	char id[SBX_ID_LEN + 1], path[512];
	struct sbx_err err = { "" };
	const char *kind, *h;
	cJSON *doc = NULL, *c, *data = NULL;
	size_t len, i;
	char *text;
	int64_t v;
	int is_net, from_proxy = strcmp(box, "proxy/events") == 0;

	if (name[0] == '.')
		return;
	if (!valid_request_name(name, id)) {
		reject_file(f, box, name, "not an event file name (want 16 hex digits"
		    " + .json)");
		return;
	}
	snprintf(path, sizeof(path), "%s/%s", box, name);
	if (!(text = read_untrusted(f->sbfd, path, SBX_MAX_EVENT, &len, &err))) {
		if (errno != ENOENT)
			reject_file(f, box, name, err.msg);
		return;
	}
	doc = cJSON_ParseWithLength(text, len);
	free(text);
	kind = json_str(doc, "kind");
	is_net = kind && strcmp(kind, "network_connection") == 0;
	if (!cJSON_IsObject(doc) || json_int(doc, "v", &v) < 0 || v != 1 || !kind ||
	    is_net != from_proxy || (is_net ? !json_str(doc, "verdict") ||
	    !json_str(doc, "host") : strcmp(kind, "post_tool_use") != 0 ||
	    !json_str(doc, "tool"))) {
		reject_file(f, box, name, from_proxy ? "not a proxy event (want an object "
		    "with v 1, kind \"network_connection\", host and verdict)" : "not an event "
		    "(want an object with v 1, kind \"post_tool_use\" and tool; connection "
		    "records come only from sbx-proxy's own drop box)");
		goto out;
	}
	keys = is_net ? net_keys : post_keys;
	for (c = doc->child; c; c = c->next) {
		for (i = 0; keys[i].key; i++)
			if (strcmp(c->string, keys[i].key) == 0)
				break;
		if (!keys[i].key || !(c->type & keys[i].type)) {
			snprintf(err.msg, sizeof(err.msg), "unknown key or wrong type: \"%.40s\"",
			    c->string);
			reject_file(f, box, name, err.msg);
			goto out;
		}
	}
	if (((h = json_str(doc, "before")) && !is_hex(h, 64)) ||
	    ((h = json_str(doc, "after")) && !is_hex(h, 64))) {
		reject_file(f, box, name, "before/after must be 64 hex digits");
		goto out;
	}
	/* A connection names the request that asked for it, if any. */
	if ((h = json_str(doc, "request")) && !valid_id(h)) {
		reject_file(f, box, name, "request must be 16 hex digits");
		goto out;
	}
	if (!(data = cJSON_Duplicate(doc, 1))) {
		reject_file(f, box, name, "out of memory");
		goto out;
	}
	cJSON_DeleteItemFromObjectCaseSensitive(data, "v");
	cJSON_DeleteItemFromObjectCaseSensitive(data, "kind");
	cJSON_DeleteItemFromObjectCaseSensitive(data, "session_id");
	cJSON_DeleteItemFromObjectCaseSensitive(data, "request");
	if ((c = cJSON_DetachItemFromObjectCaseSensitive(data, "time"))) {
		/* The agent's clock, not ours: kept under its own name. */
		cJSON_AddItemToObject(data, "agent_time", c);
	}
	if (audit_append(f->audit, kind, json_str(doc, "request"), json_str(doc, "session_id"),
	    is_net ? "proxy" : "hook", data) < 0)
		logf_folder(f, "cannot write an audit record for event %s", name);
	if (unlinkat(f->sbfd, path, 0) < 0)
		logf_folder(f, "cannot remove %s: %s", path, strerror(errno));
out:
	cJSON_Delete(doc);
}

void
folder_event(struct folder *f, const struct daemon_opts *o, const char *name)
{
	(void)o;
	event_from(f, "queue/events", name);
}

static void
proxy_event(struct folder *f, const struct daemon_opts *o, const char *name)
{
	(void)o;
	event_from(f, "proxy/events", name);
}

static void
scan(struct folder *f, const struct daemon_opts *o, const char *dir,
    void (*fn)(struct folder *, const struct daemon_opts *, const char *))
{
	struct dirent *de;
	char **names = NULL, **nn;
	size_t n = 0, cap = 0, i;
	DIR *d;

	if (!(d = opendir_at(f->sbfd, dir))) {
		logf_folder(f, "cannot read %s: %s", dir, strerror(errno));
		return;
	}
	/* Collect first: the handlers rename entries out of this directory. */
	while ((de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		if (n == cap) {
			cap = cap ? cap * 2 : 32;
			if (!(nn = realloc(names, cap * sizeof(*names))))
				break;
			names = nn;
		}
		if (!(names[n] = strdup(de->d_name)))
			break;
		n++;
	}
	closedir(d);
	for (i = 0; i < n; i++) {
		fn(f, o, names[i]);
		free(names[i]);
	}
	free(names);
}

static void record_result(struct folder *f, const char *id);

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
static void
result_repair(struct folder *f, const char *id)
{
	char path[64];
	struct req_row row;
	const char *why;

	sqlite3_stmt *st;
	int skip = 1;

	snprintf(path, sizeof(path), "results/%s.json", id);
	if (faccessat(f->sbfd, path, F_OK, AT_SYMLINK_NOFOLLOW) == 0)
		return;
	/* Cheap first: most requests without a result are simply pending. */
	if (sqlite3_prepare_v2(f->db, "SELECT status = 'pending' OR (status = 'running' AND"
	    " started = 0) FROM requests WHERE id = ?", -1, &st, NULL) == SQLITE_OK) {
		sqlite3_bind_text(st, 1, id, -1, SQLITE_STATIC);
		if (sqlite3_step(st) == SQLITE_ROW)
			skip = sqlite3_column_int(st, 0);
		sqlite3_finalize(st);
	}
	if (skip || db_get(f->db, id, &row) != 1)
		return;
	if (!strcmp(row.status, "pending") || (!strcmp(row.status, "running") &&
	    (row.started == 0 || is_running_here(f, id)))) {
		req_row_free(&row);
		return;
	}
	if (!strcmp(row.status, "running")) {
		record_result(f, id);
		req_row_free(&row);
		return;
	}
	why = row.deny_reason ? row.deny_reason : !strcmp(row.status, "expired")
	    ? "nobody decided before it expired" : !strcmp(row.status, "interrupted")
	    ? "interrupted; its result could not be written then (full disk?); the output "
	    "captured so far follows" : "";
	if (result_write_recovered(f->sbfd, id, row.hash, row.status, row.approver, why,
	    row.exit_code, row.signal) == 0)
		logf_folder(f, "request %s: its missing result (%s) is written now", id,
		    row.status);
	req_row_free(&row);
}

static void
sweep_entry(struct folder *f, const struct daemon_opts *o, const char *name)
{
	char id[SBX_ID_LEN + 1];

	(void)o;
	if (valid_request_name(name, id)) {
		result_repair(f, id);
		sweep_one(f, id, now_ms() / 1000);
	}
}

/* queue/new in batches (group commit): a burst found by a rescan (at
 * start, after an inotify overflow) is recorded SBX_BATCH at a time. */
static void
scan_requests(struct folder *f, const struct daemon_opts *o)
{
	struct dirent *de;
	char **names = NULL, **nn;
	size_t n = 0, cap = 0, i;
	DIR *d;

	if (!(d = opendir_at(f->sbfd, "queue/new"))) {
		logf_folder(f, "cannot read queue/new: %s", strerror(errno));
		return;
	}
	while ((de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		if (n == cap) {
			cap = cap ? cap * 2 : 64;
			if (!(nn = realloc(names, cap * sizeof(*names))))
				break;
			names = nn;
		}
		if (!(names[n] = strdup(de->d_name)))
			break;
		n++;
	}
	closedir(d);
	/* What did not fit in memory stays for the next pass. */
	for (i = 0; i < n; i += SBX_BATCH)
		folder_requests(f, o, names + i, n - i < SBX_BATCH ? n - i : SBX_BATCH);
	for (i = 0; i < n; i++)
		free(names[i]);
	free(names);
}

void
folder_rescan(struct folder *f, const struct daemon_opts *o)
{
	scan_requests(f, o);
	scan(f, o, "decisions/new", folder_decision);
	scan(f, o, "queue/events", folder_event);
	/* sbx-proxy's connection records: picked up by this pass (at start
	 * and every few seconds), never by the agent's drop box. */
	scan(f, o, "proxy/events", proxy_event);
}

void
folder_sweep(struct folder *f, const struct daemon_opts *o)
{
	scan(f, o, "pending", sweep_entry);
	folder_prune(f);
}

/*
 * Retention (common/retention.h): one bounded batch of finished, delivered
 * requests whose output is older than limits.keep_results_days. Nothing
 * is pruned while the policy is invalid.
 */
void
folder_prune(struct folder *f)
{
	struct policy_error perr;
	struct policy *p = load_policy(f, &perr);
	int64_t keep;
	int n;

	if (!p)
		return;
	keep = (int64_t)policy_limits(p)->keep_results_days * 86400;
	policy_free(p);
	if ((n = retention_prune(f->db, f->sbfd, keep, now_ms() / 1000, RETENTION_BATCH)) > 0)
		audit_log(f->audit, "output_pruned", NULL, NULL, "daemon",
		    AU_I("requests", (int64_t)n), AU_I("keep_results_days", keep / 86400),
		    AU_END);
	else if (n < 0)
		logf_folder(f, "retention: cannot prune finished output: %s",
		    sqlite3_errmsg(f->db));
}

static int64_t
json_num(const cJSON *doc, const char *key)
{
	int64_t v = 0;

	(void)json_int(doc, key, &v);
	return v;
}

/* 1 when PATH (under .sandbox) exists as anything, 0 when it does not. */
static int
path_exists(struct folder *f, const char *path)
{
	struct stat st;

	return fstatat(f->sbfd, path, &st, AT_SYMLINK_NOFOLLOW) == 0;
}

/* Updates the row from the executor's result file. */
static void
record_result(struct folder *f, const char *id)
{
	char path[64];
	struct sbx_err err;
	cJSON *doc = NULL;
	int64_t code = -1, sig = 0, ms = 0;
	const char *status;
	size_t len;
	char *text;

	snprintf(path, sizeof(path), "results/%s.json", id);
	text = read_untrusted(f->sbfd, path, SBX_MAX_RESULT, &len, &err);
	if (text)
		doc = cJSON_ParseWithLength(text, len);
	free(text);
	status = json_str(doc, "status");
	if (!status) {
		struct req_row row;

		logf_folder(f, "request %s: the executor left no readable result; marking it "
		    "interrupted", id);
		/* A torn result (a crash cut its write) is kept aside, not
		 * trusted, and replaced by one the agent can read. */
		if (path_exists(f, path))
			reject_file(f, "results", path + strlen("results/"), "unreadable result "
			    "(cut short by a crash or a full disk?)");
		if (db_get(f->db, id, &row) == 1) {
			result_write_recovered(f->sbfd, id, row.hash, "interrupted", row.approver,
			    "its result was lost (sbxd, the executor or the disk failed): it may "
			    "have run in whole or in part, its exit status is unknown; the output "
			    "captured so far follows", -1, 0);
			req_row_free(&row);
		}
		status = "interrupted";
	}
	json_int(doc, "exit_code", &code);
	json_int(doc, "signal", &sig);
	json_int(doc, "duration_ms", &ms);
	if (code >= 0)
		sql_run(f, "UPDATE requests SET status=?, finished=?, exit_code=?, signal=?,"
		    " duration_ms=? WHERE id=?", "tiiiit", status, now_ms() / 1000, code, sig,
		    ms, id);
	else
		sql_run(f, "UPDATE requests SET status=?, finished=?, signal=?, duration_ms=?"
		    " WHERE id=?", "tiiit", status, now_ms() / 1000, sig, ms, id);
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
		if (!f->dead)
			record_result(f, f->run[i].id);
		return 1;
	}
	return 0;
}

void
folder_start_waiting(struct folder *f, const struct daemon_opts *o)
{
	char ids[SBX_MAX_RUNNING][SBX_ID_LEN + 1];
	struct req_row row;
	sqlite3_stmt *st;
	int n = 0, i, free_slots = SBX_MAX_RUNNING - folder_running(f);
	const char *id;

	/* Records that wait for the log go first; nothing starts before. */
	if (audit_intents_flush(f->audit) < 0)
		return;
	if (free_slots <= 0 || sqlite3_prepare_v2(f->db, "SELECT id FROM requests WHERE"
	    " status = 'running' AND started = 0 ORDER BY decided, rowid LIMIT ?", -1, &st,
	    NULL) != SQLITE_OK)
		return;
	sqlite3_bind_int(st, 1, free_slots);
	while (n < free_slots && sqlite3_step(st) == SQLITE_ROW)
		if ((id = (const char *)sqlite3_column_text(st, 0)) && valid_id(id))
			snprintf(ids[n++], sizeof(ids[0]), "%s", id);
	sqlite3_finalize(st);
	for (i = 0; i < n; i++) {
		if (db_get(f->db, ids[i], &row) != 1)
			continue;
		start_run(f, o, &row, row.approver ? row.approver : "", row.is_auto, NULL);
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

/* Marks one pending request expired and tells the agent. */
static void
expire_one(struct folder *f, const char *id, const char *hash, int64_t now)
{
	if (sql_run(f, "UPDATE requests SET status='expired', finished=? WHERE id=? AND"
	    " status='pending'", "it", now, id) == 1) {
		finish_unrun(f, id, hash, "expired", "", "nobody decided before it expired");
		logf_folder(f, "request %s expired undecided", id);
	}
}

/* Every pending request past its deadline, however many there are. */
void
folder_expire(struct folder *f)
{
	sqlite3_stmt *st;
	int64_t now = now_ms() / 1000;
	char (*ids)[2][2 * SBX_HASH_LEN + 1] = NULL, (*nids)[2][2 * SBX_HASH_LEN + 1];
	size_t n = 0, cap = 0, i;
	const char *id, *hash;

	if (sqlite3_prepare_v2(f->db, "SELECT id, hash FROM requests WHERE status = 'pending'"
	    " AND expires <= ?", -1, &st, NULL) != SQLITE_OK)
		return;
	sqlite3_bind_int64(st, 1, now);
	/* Collect first: the updates below must not run under this cursor. */
	while (sqlite3_step(st) == SQLITE_ROW) {
		id = (const char *)sqlite3_column_text(st, 0);
		hash = (const char *)sqlite3_column_text(st, 1);
		if (!id || !hash)
			continue;
		if (n == cap) {
			cap = cap ? cap * 2 : 64;
			if (!(nids = realloc(ids, cap * sizeof(*ids))))
				break;
			ids = nids;
		}
		snprintf(ids[n][0], sizeof(ids[n][0]), "%s", id);
		snprintf(ids[n][1], sizeof(ids[n][1]), "%s", hash);
		n++;
	}
	sqlite3_finalize(st);
	for (i = 0; i < n; i++)
		expire_one(f, ids[i][0], ids[i][1], now);
	free(ids);
}

void
folder_recover(struct folder *f, const struct daemon_opts *o)
{
	struct req_row *rows, row;
	struct dirent *de;
	char id[SBX_ID_LEN + 1], path[64];
	char **orphans = NULL, **nn;
	size_t n_orphans = 0, i;
	int n, k, fd;
	DIR *d;

	/* Runs cut short by a crash: interrupted, never re-run. */
	n = db_list(f->db, "running", -1, &rows);
	for (k = 0; k < n; k++) {
		/* Approved, never started (waiting for a slot): it runs once
		 * folder_start_waiting() gives it one. */
		if (rows[k].started == 0)
			continue;
		snprintf(path, sizeof(path), "results/%s.json", rows[k].id);
		if (faccessat(f->sbfd, path, F_OK, AT_SYMLINK_NOFOLLOW) != 0) {
			result_write_recovered(f->sbfd, rows[k].id, rows[k].hash, "interrupted",
			    rows[k].approver, "sbxd stopped while the command ran; the output "
			    "captured so far follows", -1, 0);
			logf_folder(f, "request %s was running when sbxd stopped: interrupted, "
			    "not re-run", rows[k].id);
		}
		record_result(f, rows[k].id);
	}
	if (n > 0)
		db_rows_free(rows, n);
	/* Claimed files that never reached the database, or whose request is
	 * finished but not yet moved. */
	fd = openat(f->sbfd, "pending", O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd >= 0 && (d = fdopendir(fd))) {
		while ((de = readdir(d)))
			if (valid_request_name(de->d_name, id) && (nn = realloc(orphans,
			    (n_orphans + 1) * sizeof(*orphans))) && (orphans = nn) &&
			    (orphans[n_orphans] = strdup(id)))
				n_orphans++;
		closedir(d);
	} else if (fd >= 0) {
		close(fd);
	}
	for (i = 0; i < n_orphans; i++) {
		k = db_get(f->db, orphans[i], &row);
		snprintf(path, sizeof(path), "pending/%s.json", orphans[i]);
		if (k == 0)
			ingest(f, o, orphans[i], path, NULL);
		if (k == 1)
			req_row_free(&row);
		free(orphans[i]);
	}
	free(orphans);
	folder_expire(f);
	/* Finished requests without a retention row: delivered as of now. */
	if (retention_init(f->db) < 0 || retention_adopt(f->db, f->sbfd, now_ms() / 1000) < 0)
		logf_folder(f, "retention: cannot record finished requests: %s",
		    sqlite3_errmsg(f->db));
}
