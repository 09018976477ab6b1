/*
 * mcp_tools.c - the tools of sbx-mcp; see mcp.h.
 *
 * Rules:
 * - MUST classify every request with the folder's policy before queueing
 *   it: a denied command stays denied, with the policy's reason.
 * - MUST queue only through escalate() (the same request, hash and
 *   attach-to-pending rules as the hooks), as a Bash command: the text
 *   the human approves is exactly what sbxd runs.
 * - MUST read queue files only with openat + O_NOFOLLOW + fstat
 *   (read_daemon_file) and ids only after valid_id(): no path from the
 *   model reaches a file name.
 * - MUST NOT read state.db or anything that could approve.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <sodium.h>

#include "common/base/json.h"
#include "common/base/util.h"
#include "common/protocol/queue.h"
#include "common/trust/accept.h"
#include "hook/escalate.h"
#include "hook/mcp.h"
#include "policy/policy.h"

#define MAX_COMMAND     (64 * 1024)
#define MAX_CONTENT     (192 * 1024)    /* the request file holds 256 KiB */
#define MAX_URL         4096
#define MAX_REASON_ARG  1000
#define RECENT_SECONDS  (24 * 3600)
#define RECENT_READS    200             /* result files read for the counts */

/* ---- results ------------------------------------------------------------ */

/* {content: [{type: text, text}], isError}; text is cleaned to UTF-8. */
static cJSON *
tool_result(const char *text, int is_error)
{
	cJSON *r = cJSON_CreateObject(), *c, *t;
	char *clean = utf8_clean(text, strlen(text), strlen(text) * 3 + 3, NULL);

	if (!r || !clean || !(c = cJSON_AddArrayToObject(r, "content")) ||
	    !(t = cJSON_CreateObject()) || !cJSON_AddItemToArray(c, t) ||
	    !cJSON_AddStringToObject(t, "type", "text") ||
	    !cJSON_AddStringToObject(t, "text", clean) ||
	    !cJSON_AddBoolToObject(r, "isError", is_error)) {
		free(clean);
		cJSON_Delete(r);
		return NULL;
	}
	free(clean);
	return r;
}

__attribute__((format(printf, 1, 2)))
static cJSON *
tool_error(const char *fmt, ...)
{
	char text[2048];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(text, sizeof(text), fmt, ap);
	va_end(ap);
	return tool_result(text, 1);
}

/* Attaches structuredContent (takes sc). */
static cJSON *
with_structured(cJSON *r, cJSON *sc)
{
	if (r && sc)
		cJSON_AddItemToObject(r, "structuredContent", sc);
	else
		cJSON_Delete(sc);
	return r;
}

/* ---- arguments ---------------------------------------------------------- */

/* NULL when every key of args is in known; else the first unknown key. */
static const char *
unknown_arg(const cJSON *args, const char *const *known)
{
	const cJSON *a;
	int k;

	cJSON_ArrayForEach(a, args) {
		for (k = 0; known[k]; k++)
			if (a->string && strcmp(a->string, known[k]) == 0)
				break;
		if (!known[k])
			return a->string ? a->string : "(unnamed)";
	}
	return NULL;
}

/* 1 present and a string, 0 absent, -1 present with another type. */
static int
arg_str(const cJSON *args, const char *key, const char **out)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(args, key);

	*out = NULL;
	if (!v)
		return 0;
	if (!cJSON_IsString(v))
		return -1;
	*out = v->valuestring;
	return 1;
}

/* Common checks; returns an error result, or NULL when args are fine. */
static cJSON *
check_args(const cJSON *args, const char *tool, const char *const *known)
{
	const char *bad;

	if (args && !cJSON_IsObject(args))
		return tool_error("%s: arguments must be an object.", tool);
	if ((bad = unknown_arg(args, known)))
		return tool_error("%s: unknown argument \"%.100s\". See the tool's inputSchema.",
		    tool, bad);
	return NULL;
}

/* ---- the escalation flow shared by the requesting tools ----------------- */

struct ask {
	const char *tool;           /* the MCP tool, for messages */
	const char *command;        /* exactly what sbxd would run */
	const char *cwd;            /* argument; NULL = the folder */
	const char *reason;         /* the model's reason; may be NULL */
	int64_t wait;               /* seconds; -1 = default */
	const char *if_allowed;     /* what to do when no approval is needed */
};

/* Resolves a cwd argument to a directory inside the folder. */
static int
resolve_cwd(const struct mcp_server *s, const char *arg, char out[PATH_MAX])
{
	char joined[PATH_MAX];
	size_t n = strlen(s->folder);
	struct stat st;

	if (!arg || !*arg)
		arg = ".";
	if (arg[0] == '/') {
		if (xsnprintf(joined, sizeof(joined), "%s", arg) < 0)
			return -1;
	} else if (xsnprintf(joined, sizeof(joined), "%s/%s", s->folder, arg) < 0) {
		return -1;
	}
	if (!realpath(joined, out) || stat(out, &st) < 0 || !S_ISDIR(st.st_mode))
		return -1;
	if (strcmp(out, s->folder) != 0 &&
	    (strncmp(out, s->folder, n) != 0 || out[n] != '/'))
		return -1;
	return 0;
}

/* Copies the result fields a program wants into structuredContent. */
static cJSON *
result_structured(const cJSON *res, const char *folder)
{
	static const char *const keys[] = {
		"id", "status", "approver", "reason", "auto", "exit_code", "signal",
		"timed_out", "duration_ms", "stdout_bytes", "stdout_truncated",
		"stderr_bytes", "stderr_truncated", NULL,
	};
	const char *id = json_str(res, "id"), *st = json_str(res, "status");
	cJSON *sc = cJSON_CreateObject();
	const cJSON *v;
	char path[PATH_MAX + 64];
	int k;

	if (!sc)
		return NULL;
	for (k = 0; keys[k]; k++)
		if ((v = cJSON_GetObjectItemCaseSensitive(res, keys[k])))
			cJSON_AddItemToObject(sc, keys[k], cJSON_Duplicate(v, 1));
	if (id && valid_id(id) && st && strcmp(st, req_status_name(REQ_DONE)) == 0) {
		snprintf(path, sizeof(path), "%s/.sandbox/%s", folder, queue_path(QP_STDOUT, id).s);
		cJSON_AddStringToObject(sc, "stdout_file", path);
		snprintf(path, sizeof(path), "%s/.sandbox/%s", folder, queue_path(QP_STDERR, id).s);
		cJSON_AddStringToObject(sc, "stderr_file", path);
	}
	return sc;
}

/* A finished result as a tool result; isError unless it ran and exited 0. */
static cJSON *
finished(const cJSON *res, const char *folder, int error_if_failed)
{
	const char *st = json_str(res, "status");
	int64_t code = -1, sig = 0;
	char *text = result_text(res, folder, SBX_MCP_MAX_TEXT);
	cJSON *r;
	int failed;

	json_int(res, "exit_code", &code);
	json_int(res, "signal", &sig);
	failed = !st || strcmp(st, req_status_name(REQ_DONE)) != 0 || code != 0 || sig != 0;
	r = tool_result(text ? text : "sbx: the request finished; see `sbx show`.",
	    error_if_failed && failed);
	free(text);
	return with_structured(r, result_structured(res, folder));
}

static cJSON *
ask_flow(struct mcp_server *s, const struct ask *a)
{
	char cwd[PATH_MAX];
	struct policy_error perr;
	struct policy_result pr;
	struct policy_call call;
	struct esc_request rq;
	struct esc_outcome eo;
	struct policy *pol = NULL;
	const struct policy_limits *lim;
	cJSON *input = NULL, *r = NULL, *sc;
	int wait;

	if (resolve_cwd(s, a->cwd, cwd) < 0)
		return tool_error("%s: cwd \"%.300s\" is not a directory inside the project %s.",
		    a->tool, a->cwd ? a->cwd : ".", s->folder);
	if (!(pol = policy_load_accepted(s->folder, s->config, perr.msg, sizeof(perr.msg))))
		return tool_error("sbx: the sandbox policy is invalid or not accepted, so "
		    "nothing can be requested: %s. Ask the user to fix it.", perr.msg);
	lim = policy_limits(pol);
	if (!(input = cJSON_CreateObject()) ||
	    !cJSON_AddStringToObject(input, "command", a->command) ||
	    (a->reason && *a->reason &&
	    !cJSON_AddStringToObject(input, "description", a->reason))) {
		r = tool_error("sbx: out of memory.");
		goto out;
	}
	call = (struct policy_call){ .tool = "Bash", .input = input, .cwd = cwd,
		.folder = s->folder, .home = getenv("HOME"), .config_dir = s->config };
	policy_eval(pol, &call, &pr);
	if (pr.verdict == POLICY_DENY) {
		r = tool_error("sbx: denied by policy (%s): %s. It was not queued and will not "
		    "run; do not try to get it done another way.", pr.rule, pr.reason);
		goto out;
	}
	if (pr.verdict == POLICY_ALLOW) {
		r = tool_error("sbx: nothing was queued or run: the policy allows this without "
		    "a human (%s). %s", pr.reason, a->if_allowed);
		goto out;
	}
	wait = a->wait < 0 ? (SBX_MCP_WAIT < lim->hook_wait_seconds ? SBX_MCP_WAIT
	    : lim->hook_wait_seconds) : a->wait > lim->hook_wait_seconds
	    ? lim->hook_wait_seconds : (int)a->wait;
	rq = (struct esc_request){ .folder = s->folder, .cwd = cwd, .tool = "Bash",
		.input = input, .agent = "mcp", .why = &pr, .limits = lim,
		.wait_seconds = wait };
	escalate(&rq, &eo);
	if (eo.state == ESC_RESULT) {
		r = finished(eo.result, s->folder, 1);
		cJSON_Delete(eo.result);
	} else if (eo.state == ESC_TAKEN) {
		char text[1400];

		/* Another identical call waited on it too and got its result. */
		snprintf(text, sizeof(text), "sbx: request %s finished (%s)%s%s. Its result was "
		    "not handed back here; call check_request with {\"id\": \"%s\"} to read it. "
		    "Do not run it again.", eo.id, eo.status, eo.msg[0] ? ", but " : " and was "
		    "handed to another identical call that waited on it too", eo.msg, eo.id);
		r = tool_result(text, 0);
	} else if (eo.state == ESC_PENDING) {
		char text[1400];

		snprintf(text, sizeof(text), "sbx: request %s is waiting for a human's approval "
		    "(%s). Nothing has run yet; it will run outside the agent once approved. "
		    "Call check_request with {\"id\": \"%s\"} later to get its status and output. "
		    "Do not try to do it another way.", eo.id, pr.reason, eo.id);
		r = tool_result(text, 0);
		if ((sc = cJSON_CreateObject())) {
			cJSON_AddStringToObject(sc, "id", eo.id);
			cJSON_AddStringToObject(sc, "status", req_status_name(REQ_PENDING));
		}
		r = with_structured(r, sc);
	} else {
		r = tool_error("sbx: this needs a human's approval (%s) but could not be "
		    "queued: %s. Nothing was run.", pr.reason, eo.msg);
	}
out:
	cJSON_Delete(input);
	policy_free(pol);
	return r;
}

static cJSON *
no_folder(const struct mcp_server *s)
{
	return tool_error("sbx: %s. Nothing can be requested until the user runs "
	    "`sbx init` in the project.", s->why[0] ? s->why : "no sandbox folder");
}

/* wait_seconds: absent -1; a whole number >= 0; else an error. */
static int
arg_wait(const cJSON *args, int64_t *out)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(args, "wait_seconds");

	*out = -1;
	if (!v)
		return 0;
	if (json_int(args, "wait_seconds", out) < 0 || *out < 0 || *out > 86400)
		return -1;
	return 0;
}

static cJSON *
tool_run_privileged(struct mcp_server *s, const cJSON *args)
{
	static const char *const known[] = { "command", "reason", "cwd", "wait_seconds", NULL };
	const char *cmd, *reason, *cwd;
	struct ask a;
	cJSON *err;

	if ((err = check_args(args, "run_privileged", known)))
		return err;
	if (arg_str(args, "command", &cmd) != 1 || !*cmd)
		return tool_error("run_privileged: \"command\" is required: the shell command "
		    "to run, as a non-empty string.");
	if (strlen(cmd) > MAX_COMMAND)
		return tool_error("run_privileged: the command is longer than %d bytes.",
		    MAX_COMMAND);
	if (arg_str(args, "reason", &reason) < 0 || (reason && strlen(reason) > MAX_REASON_ARG))
		return tool_error("run_privileged: \"reason\" must be a string of at most %d "
		    "bytes.", MAX_REASON_ARG);
	if (arg_str(args, "cwd", &cwd) < 0)
		return tool_error("run_privileged: \"cwd\" must be a string.");
	a = (struct ask){ .tool = "run_privileged", .command = cmd, .cwd = cwd,
		.reason = reason, .if_allowed = "Run it with your own shell tool." };
	if (arg_wait(args, &a.wait) < 0)
		return tool_error("run_privileged: \"wait_seconds\" must be a whole number of "
		    "seconds, 0 or more.");
	if (!s->folder[0])
		return no_folder(s);
	return ask_flow(s, &a);
}

/* ask_flow for a command the tool built (cmd NULL: it ran out of
 * memory); frees cmd. */
static cJSON *
ask_built(struct mcp_server *s, struct ask *a, char *cmd)
{
	cJSON *r;

	if (!cmd)
		return tool_error("sbx: out of memory.");
	a->command = cmd;
	r = ask_flow(s, a);
	free(cmd);
	return r;
}

/* An absolute path for a path argument: relative ones are in the folder. */
static int
abs_path(const struct mcp_server *s, const char *p, char out[PATH_MAX])
{
	if (p[0] == '/')
		return xsnprintf(out, PATH_MAX, "%s", p);
	return xsnprintf(out, PATH_MAX, "%s/%s", s->folder, p);
}

static cJSON *
tool_path_access(struct mcp_server *s, const cJSON *args)
{
	static const char *const known[] = { "path", "mode", "content", "reason",
		"wait_seconds", NULL };
	const char *path, *mode, *content, *reason;
	char full[PATH_MAX];
	char *qpath = NULL, *cmd = NULL;
	struct ask a;
	cJSON *r;
	size_t n;
	int write;

	if ((r = check_args(args, "request_path_access", known)))
		return r;
	if (arg_str(args, "path", &path) != 1 || !*path || strlen(path) >= PATH_MAX)
		return tool_error("request_path_access: \"path\" is required: the file to read "
		    "or write, absolute or relative to the project.");
	if (arg_str(args, "mode", &mode) != 1 || (strcmp(mode, "read") != 0 &&
	    strcmp(mode, "write") != 0))
		return tool_error("request_path_access: \"mode\" is required: \"read\" or "
		    "\"write\".");
	write = strcmp(mode, "write") == 0;
	if (arg_str(args, "content", &content) < 0 || (write && !content) ||
	    (!write && content))
		return tool_error("request_path_access: \"content\" (a string: the whole new "
		    "file) is required for mode \"write\" and not allowed for \"read\".");
	if (content && strlen(content) > MAX_CONTENT)
		return tool_error("request_path_access: content is larger than %d bytes.",
		    MAX_CONTENT);
	if (arg_str(args, "reason", &reason) < 0 || (reason && strlen(reason) > MAX_REASON_ARG))
		return tool_error("request_path_access: \"reason\" must be a string of at most "
		    "%d bytes.", MAX_REASON_ARG);
	a = (struct ask){ .tool = "request_path_access", .reason = reason,
		.if_allowed = write ? "Write the file with your own editing tool."
		: "Read the file with your own read tool." };
	if (arg_wait(args, &a.wait) < 0)
		return tool_error("request_path_access: \"wait_seconds\" must be a whole number "
		    "of seconds, 0 or more.");
	if (!s->folder[0])
		return no_folder(s);
	if (abs_path(s, path, full) < 0)
		return tool_error("request_path_access: the path is too long.");
	/* The human approves exactly this command, and sbxd runs it: a
	 * write intent (`sbx watch` shows it as a diff), or a cat. */
	if (write)
		cmd = write_intent_render(full, content);
	else if ((qpath = sh_quote(full, 0)) && (cmd = malloc((n = strlen(qpath) + 16))))
		snprintf(cmd, n, "cat -- %s", qpath);
	free(qpath);
	return ask_built(s, &a, cmd);
}

static cJSON *
tool_fetch_url(struct mcp_server *s, const cJSON *args)
{
	static const char *const known[] = { "url", "reason", "wait_seconds", NULL };
	const char *url, *reason;
	char *q = NULL, *cmd = NULL;
	struct ask a;
	cJSON *r;
	size_t n, i;

	if ((r = check_args(args, "fetch_url", known)))
		return r;
	if (arg_str(args, "url", &url) != 1 || (strncmp(url, "https://", 8) != 0 &&
	    strncmp(url, "http://", 7) != 0) || strlen(url) > MAX_URL)
		return tool_error("fetch_url: \"url\" is required: an http:// or https:// URL of "
		    "at most %d bytes.", MAX_URL);
	for (i = 0; url[i]; i++)
		if ((unsigned char)url[i] <= ' ' || url[i] == 0x7f)
			return tool_error("fetch_url: the URL contains a space or a control "
			    "character; percent-encode it.");
	if (arg_str(args, "reason", &reason) < 0 || (reason && strlen(reason) > MAX_REASON_ARG))
		return tool_error("fetch_url: \"reason\" must be a string of at most %d bytes.",
		    MAX_REASON_ARG);
	a = (struct ask){ .tool = "fetch_url", .reason = reason,
		.if_allowed = "Fetch it with your own web tool or curl." };
	if (arg_wait(args, &a.wait) < 0)
		return tool_error("fetch_url: \"wait_seconds\" must be a whole number of "
		    "seconds, 0 or more.");
	if (!s->folder[0])
		return no_folder(s);
	/* No redirects: the human approves one URL, not where it may lead. */
	if ((q = sh_quote(url, 0)) && (cmd = malloc((n = strlen(q) + 128))))
		snprintf(cmd, n, "curl -sS --fail-with-body --proto =http,https --max-time 60 "
		    "-- %s", q);
	free(q);
	return ask_built(s, &a, cmd);
}

/* ---- reading the queue ---------------------------------------------------- */

/* Whether the queue file of this kind exists (not following a link). */
static int
queue_has(int sbfd, enum queue_kind kind, const char *id)
{
	struct queue_path p = queue_path(kind, id);

	return p.s[0] && faccessat(sbfd, p.s, F_OK, AT_SYMLINK_NOFOLLOW) == 0;
}

/* The pid of the sbxd serving the folder, 0 when none, -1 unknown. */
static long
daemon_pid(int sbfd)
{
	return sbxd_holder(sbfd);
}

static cJSON *
tool_check_request(struct mcp_server *s, const cJSON *args)
{
	static const char *const known[] = { "id", NULL };
	const char *id, *status;
	struct sbx_err err;
	char text[1024], name[SBX_QUEUE_PATH_MAX];
	cJSON *r, *res, *sc;
	int sbfd, fd;

	if ((r = check_args(args, "check_request", known)))
		return r;
	if (arg_str(args, "id", &id) != 1 || !valid_id(id))
		return tool_error("check_request: \"id\" is required: the 16-hex-digit request "
		    "id that run_privileged, request_path_access or fetch_url returned.");
	if (!s->folder[0])
		return no_folder(s);
	if ((sbfd = sandbox_open(s->folder, &err)) < 0)
		return tool_error("sbx: %s", err.msg);
	if ((res = esc_read_json(sbfd, "results", id))) {
		/* The request may still wait for its delivery receipt: this
		 * hands it over, so sbxd can file it under done/. */
		if (queue_has(sbfd, QP_PENDING, id) &&
		    xsnprintf(name, sizeof(name), "%s", queue_path(QP_DELIVERED, id).s) >= 0 &&
		    (fd = openat(sbfd, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW |
		    O_CLOEXEC, 0600)) >= 0)
			close(fd);
		r = finished(res, s->folder, 0);
		cJSON_Delete(res);
		close(sbfd);
		return r;
	}
	if (queue_has(sbfd, QP_PENDING, id)) {
		status = req_status_name(queue_has(sbfd, QP_WORK_STDOUT, id) ? REQ_RUNNING :
		    REQ_PENDING);
	} else if (queue_has(sbfd, QP_NEW, id)) {
		status = req_status_name(REQ_PENDING);
	} else {
		close(sbfd);
		return tool_error("check_request: there is no request %s in %s.", id, s->folder);
	}
	if (strcmp(status, req_status_name(REQ_RUNNING)) == 0)
		snprintf(text, sizeof(text), "sbx: request %s was approved and is running outside "
		    "the agent now. Call check_request again shortly for its output.", id);
	else
		snprintf(text, sizeof(text), "sbx: request %s is pending: it waits for a human's "
		    "decision%s. Nothing has run yet. Call check_request again later.", id,
		    daemon_pid(sbfd) == 0 ? " (and sbxd, which runs approved requests, is not "
		    "running: tell the user)" : "");
	close(sbfd);
	r = tool_result(text, 0);
	if ((sc = cJSON_CreateObject())) {
		cJSON_AddStringToObject(sc, "id", id);
		cJSON_AddStringToObject(sc, "status", status);
	}
	return with_structured(r, sc);
}

/* Counts the unfinished request files of DIR; lists the first ten. */
static void
count_requests(int sbfd, const char *dir, int *pending, int *running, cJSON *list)
{
	char id[SBX_ID_LEN + 1];
	struct dirent *de;
	const char *cmd;
	cJSON *doc, *e;
	int64_t created;
	DIR *d;
	int run;

	if (!(d = opendir_at(sbfd, dir))) {
		return;
	}
	while ((de = readdir(d))) {
		if (!valid_request_name(de->d_name, id) || queue_has(sbfd, QP_RESULT, id))
			continue;
		run = queue_has(sbfd, QP_WORK_STDOUT, id);
		*(run ? running : pending) += 1;
		if (cJSON_GetArraySize(list) >= 10 || !(e = cJSON_CreateObject()))
			continue;
		cJSON_AddStringToObject(e, "id", id);
		cJSON_AddStringToObject(e, "status", req_status_name(run ? REQ_RUNNING : REQ_PENDING));
		if ((doc = esc_read_json(sbfd, dir, id))) {
			cmd = json_str(cJSON_GetObjectItemCaseSensitive(doc, "input"), "command");
			if (cmd) {
				char *c = utf8_clean(cmd, strlen(cmd), 200, NULL);

				if (c)
					cJSON_AddStringToObject(e, "command", c);
				free(c);
			}
			if (json_int(doc, "created", &created) == 0)
				cJSON_AddNumberToObject(e, "created", (double)created);
			cJSON_Delete(doc);
		}
		cJSON_AddItemToArray(list, e);
	}
	closedir(d);
}

/* Results of the last day by status, reading at most RECENT_READS. */
static void
count_recent(int sbfd, cJSON *by_status)
{
	char id[SBX_ID_LEN + 1];
	struct dirent *de;
	struct stat st;
	const char *status;
	cJSON *doc, *n;
	int64_t since = now_ms() / 1000 - RECENT_SECONDS;
	int reads = 0;
	DIR *d;

	if (!(d = opendir_at(sbfd, "results"))) {
		return;
	}
	while ((de = readdir(d)) && reads < RECENT_READS) {
		if (!valid_request_name(de->d_name, id) ||
		    fstatat(dirfd(d), de->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0 ||
		    (int64_t)st.st_mtime < since)
			continue;
		reads++;
		if (!(doc = esc_read_json(sbfd, "results", id)))
			continue;
		status = json_str(doc, "status");
		if (status && strlen(status) < 32) {
			if ((n = cJSON_GetObjectItemCaseSensitive(by_status, status)))
				cJSON_SetNumberValue(n, n->valuedouble + 1);
			else
				cJSON_AddNumberToObject(by_status, status, 1);
		}
		cJSON_Delete(doc);
	}
	closedir(d);
}

/* Adds up to max strings of the policy's list at path a.b to out. */
static cJSON *
first_of(const cJSON *pj, const char *a, const char *b, int max)
{
	const cJSON *l = cJSON_GetObjectItemCaseSensitive(pj, a), *v;
	cJSON *out = cJSON_CreateArray();
	int n = 0;

	if (b)
		l = cJSON_GetObjectItemCaseSensitive(l, b);
	cJSON_ArrayForEach(v, l) {
		if (!cJSON_IsString(v) || n++ >= max)
			continue;
		cJSON_AddItemToArray(out, cJSON_CreateString(v->valuestring));
	}
	return out;
}

static cJSON *
tool_sandbox_status(struct mcp_server *s, const cJSON *args)
{
	static const char *const known[] = { NULL };
	unsigned char h[SBX_HASH_LEN];
	char hex[2 * SBX_HASH_LEN + 1], *text = NULL, *ptext;
	struct policy_error perr;
	struct sbx_err err;
	struct policy *pol = NULL;
	const struct policy_limits *lim;
	cJSON *r, *sc = NULL, *reqs, *list, *recent, *p, *pj;
	int sbfd, pending = 0, running = 0;
	long pid;
	size_t len, tlen = PATH_MAX + 4096;

	if ((r = check_args(args, "sandbox_status", known)))
		return r;
	if (!s->folder[0])
		return no_folder(s);
	if ((sbfd = sandbox_open(s->folder, &err)) < 0)
		return tool_error("sbx: %s", err.msg);
	if (!(sc = cJSON_CreateObject()) || !(text = malloc(tlen)))
		goto oom;
	cJSON_AddStringToObject(sc, "folder", s->folder);
	pid = daemon_pid(sbfd);
	if (pid < 0)
		cJSON_AddNullToObject(sc, "daemon_running");
	else
		cJSON_AddBoolToObject(sc, "daemon_running", pid > 0);
	if (pid > 0)
		cJSON_AddNumberToObject(sc, "daemon_pid", (double)pid);
	reqs = cJSON_AddObjectToObject(sc, "requests");
	list = cJSON_CreateArray();
	count_requests(sbfd, "queue/new", &pending, &running, list);
	count_requests(sbfd, "pending", &pending, &running, list);
	cJSON_AddNumberToObject(reqs, "pending", pending);
	cJSON_AddNumberToObject(reqs, "running", running);
	recent = cJSON_AddObjectToObject(reqs, "finished_last_24h");
	count_recent(sbfd, recent);
	cJSON_AddItemToObject(reqs, "unfinished", list);

	p = cJSON_AddObjectToObject(sc, "policy");
	if ((ptext = read_daemon_file(sbfd, "policy.json", SBX_MAX_RESULT, &len, &err))) {
		crypto_generichash(h, sizeof(h), (unsigned char *)ptext, len, NULL, 0);
		hex_encode(hex, h, sizeof(h));
		cJSON_AddStringToObject(p, "blake2b", hex);
		free(ptext);
	}
	if (!(pol = policy_load_accepted(s->folder, s->config, perr.msg, sizeof(perr.msg)))) {
		cJSON_AddBoolToObject(p, "valid", 0);
		cJSON_AddStringToObject(p, "error", perr.msg);
	} else if ((pj = policy_to_json(pol))) {
		lim = policy_limits(pol);
		cJSON_AddBoolToObject(p, "valid", 1);
		cJSON_AddItemToObject(p, "escalate", first_of(pj, "escalate", NULL, 30));
		cJSON_AddItemToObject(p, "deny", first_of(pj, "deny", NULL, 30));
		cJSON_AddItemToObject(p, "allowedDomains",
		    first_of(pj, "network", "allowedDomains", 30));
		cJSON_AddNumberToObject(p, "wait_seconds", lim->hook_wait_seconds);
		cJSON_AddNumberToObject(p, "request_ttl_seconds", lim->request_ttl_seconds);
		cJSON_AddNumberToObject(p, "max_pending", lim->max_pending);
		cJSON_Delete(pj);
	}
	snprintf(text, tlen,
	    "sbx sandbox for %s\n"
	    "daemon (sbxd, runs approved requests): %s\n"
	    "requests: %d pending a human's decision, %d running\n"
	    "policy: %s%s\n"
	    "What is escalated to a human: sudo and other privilege changes, git push, "
	    "deploy and infrastructure tools, network access to hosts not in "
	    "allowedDomains, writes outside the project, reads of secrets, commands it "
	    "cannot analyse, plus the policy's own escalate rules (in structuredContent). "
	    "Writes to .sandbox/ and to the agents' hook configuration are always denied. "
	    "Use run_privileged, request_path_access or fetch_url to ask; check_request "
	    "to follow a request.",
	    s->folder, pid > 0 ? "running" : pid == 0 ? "NOT running: approved requests "
	    "will not run until the user starts `sbxd`" : "unknown", pending, running,
	    pol ? "valid" : "INVALID, every request is refused: ", pol ? "" : perr.msg);
	r = with_structured(tool_result(text, 0), sc);
	sc = NULL;
	goto out;
oom:
	r = tool_error("sbx: out of memory.");
out:
	policy_free(pol);
	cJSON_Delete(sc);
	free(text);
	close(sbfd);
	return r;
}

/* ---- the tool table ------------------------------------------------------- */

struct tool {
	const char *name;
	const char *description;
	const char *schema;         /* JSON text of inputSchema */
	cJSON *(*fn)(struct mcp_server *, const cJSON *);
};

static const struct tool tools[] = {
	{ "run_privileged",
	  "Ask a human to approve a shell command that this sandbox does not let you run "
	  "yourself (your shell tool was denied with a reason saying it needs approval, "
	  "e.g. sudo, git push, deploys, network access). If approved, the command runs "
	  "outside the agent with /bin/sh in the project (or cwd) and this tool returns "
	  "its exit status, stdout and stderr; isError is true when it failed, was denied "
	  "by the human or by policy. A command the policy denies stays denied. If nobody "
	  "decides within wait_seconds (default 45), you get the request id: call "
	  "check_request with it later instead of asking again. Never approve anything "
	  "yourself; give a short honest reason.",
	  "{\"type\":\"object\",\"properties\":{"
	  "\"command\":{\"type\":\"string\",\"description\":\"the exact shell command\"},"
	  "\"reason\":{\"type\":\"string\",\"description\":\"why it is needed, for the human\"},"
	  "\"cwd\":{\"type\":\"string\",\"description\":\"working directory inside the "
	  "project (default: the project)\"},"
	  "\"wait_seconds\":{\"type\":\"integer\",\"minimum\":0,\"description\":\"how long to "
	  "wait for the decision and the run (default 45, capped by the policy)\"}},"
	  "\"required\":[\"command\"],\"additionalProperties\":false}",
	  tool_run_privileged },
	{ "request_path_access",
	  "Ask a human to approve reading or writing one file outside what the sandbox "
	  "lets you touch (your read or edit tool was denied as needing approval). Mode "
	  "\"read\" returns the file's content; mode \"write\" replaces the whole file "
	  "with content. The human sees and approves the exact command, which runs "
	  "outside the agent. Results and waiting work as for run_privileged.",
	  "{\"type\":\"object\",\"properties\":{"
	  "\"path\":{\"type\":\"string\",\"description\":\"absolute, or relative to the project\"},"
	  "\"mode\":{\"type\":\"string\",\"enum\":[\"read\",\"write\"]},"
	  "\"content\":{\"type\":\"string\",\"description\":\"mode write: the whole new content\"},"
	  "\"reason\":{\"type\":\"string\"},"
	  "\"wait_seconds\":{\"type\":\"integer\",\"minimum\":0}},"
	  "\"required\":[\"path\",\"mode\"],\"additionalProperties\":false}",
	  tool_path_access },
	{ "fetch_url",
	  "Ask a human to approve fetching one http(s) URL from a host the sandbox does "
	  "not let you reach (your web fetch or curl was denied as needing approval). The "
	  "fetch runs outside the agent (curl, no redirects followed, 60 s limit) and "
	  "returns the response body. Results and waiting work as for run_privileged.",
	  "{\"type\":\"object\",\"properties\":{"
	  "\"url\":{\"type\":\"string\",\"description\":\"http:// or https:// URL\"},"
	  "\"reason\":{\"type\":\"string\"},"
	  "\"wait_seconds\":{\"type\":\"integer\",\"minimum\":0}},"
	  "\"required\":[\"url\"],\"additionalProperties\":false}",
	  tool_fetch_url },
	{ "check_request",
	  "The state of one request by its id (from run_privileged, request_path_access, "
	  "fetch_url or a hook's \"pending as request ID\" message): pending, running, "
	  "done, denied, expired, interrupted or rejected, and when it finished, its "
	  "output. Use it instead of asking again for something already requested.",
	  "{\"type\":\"object\",\"properties\":{"
	  "\"id\":{\"type\":\"string\",\"pattern\":\"^[0-9a-f]{16}$\"}},"
	  "\"required\":[\"id\"],\"additionalProperties\":false}",
	  tool_check_request },
	{ "sandbox_status",
	  "What this sandbox is: the project folder, whether the daemon that runs "
	  "approved requests is running, how many requests wait for a human or finished "
	  "lately, the policy's hash and what it escalates. Call it when unsure why "
	  "something was denied or whether a request can be served.",
	  "{\"type\":\"object\",\"properties\":{},\"additionalProperties\":false}",
	  tool_sandbox_status },
};

cJSON *
mcp_tools_list(void)
{
	cJSON *a = cJSON_CreateArray(), *t;
	size_t k;

	for (k = 0; a && k < sizeof(tools) / sizeof(tools[0]); k++) {
		if (!(t = cJSON_CreateObject()))
			break;
		cJSON_AddStringToObject(t, "name", tools[k].name);
		cJSON_AddStringToObject(t, "description", tools[k].description);
		cJSON_AddItemToObject(t, "inputSchema", cJSON_Parse(tools[k].schema));
		cJSON_AddItemToArray(a, t);
	}
	return a;
}

cJSON *
mcp_tool_call(struct mcp_server *s, const char *name, const cJSON *args)
{
	size_t k;
	cJSON *r;

	for (k = 0; k < sizeof(tools) / sizeof(tools[0]); k++)
		if (strcmp(tools[k].name, name) == 0) {
			r = tools[k].fn(s, args);
			return r ? r : tool_result("sbx: out of memory.", 1);
		}
	return NULL;
}
