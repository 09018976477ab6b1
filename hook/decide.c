/*
 * decide.c - classify one tool call and escalate it; see decide.h.
 *
 * MUST deny on every error (fail closed). MUST write only into
 * .sandbox/queue/ (through escalate()). MUST arm the alarm as soon as
 * the policy tells how long the wait may be.
 */
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/base/json.h"
#include "common/base/util.h"
#include "common/protocol/originals.h"
#include "common/protocol/queue.h"
#include "common/trust/accept.h"
#include "common/trust/callctx.h"
#include "hook/decide.h"
#include "hook/escalate.h"
#include "policy/policy.h"

__attribute__((format(printf, 2, 3)))
static void
set_deny(struct hook_decision *d, const char *fmt, ...)
{
	char reason[2048];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(reason, sizeof(reason), fmt, ap);
	va_end(ap);
	d->allow = 0;
	free(d->reason);
	d->reason = utf8_clean(reason, strlen(reason), sizeof(reason), NULL);
}

/* What the model should do instead when sbxd cannot run the tool. */
static const char *
instead(const char *tool)
{
	if (strcmp(tool, "WebFetch") == 0 || strcmp(tool, "WebSearch") == 0)
		return "use the sbx MCP tool fetch_url if you have it (it fetches the URL "
		    "outside the agent once a human approves), or ask the user";
	if (strcmp(tool, "Read") == 0 || strcmp(tool, "Glob") == 0 ||
	    strcmp(tool, "Grep") == 0 || strcmp(tool, "LS") == 0)
		return "use the sbx MCP tool request_path_access (mode \"read\") if you have "
		    "it (it reads the file outside the agent once a human approves), or ask "
		    "the user";
	if (strcmp(tool, "Write") == 0 || strcmp(tool, "Edit") == 0 ||
	    strcmp(tool, "MultiEdit") == 0 || strcmp(tool, "NotebookEdit") == 0 ||
	    strcmp(tool, "apply_patch") == 0)
		return "use the sbx MCP tool request_path_access (mode \"write\", with the "
		    "whole new content) if you have it (it writes the file outside the agent "
		    "once a human approves), or ask the user";
	return "ask the user to do it; sbx can only run shell commands for you (the sbx "
	    "MCP tool run_privileged)";
}

/*
 * The result of a call sbxd does not run (request_opens). "approved" is a
 * one-time allowance: escalate() consumed it (the delivery receipt, which
 * sbxd confirmed as this call's) for this exact call (tool, input,
 * folder, cwd: the request hash). It allows only while fresh (request_ttl_seconds). Returns 1 when
 * it decided (allow, or deny as stale), 0 for other results.
 */
static int
allowance(const cJSON *r, const struct policy_limits *lim, struct hook_decision *d)
{
	const char *status = json_str(r, "status"), *id = json_str(r, "id");
	const char *who = json_str(r, "approver");
	char msg[400];
	int64_t fin = 0, age;

	if (!status || strcmp(status, req_status_name(REQ_APPROVED)) != 0 || !id ||
	    json_int(r, "finished", &fin) < 0)
		return 0;
	age = now_ms() / 1000 - fin;
	if (age > lim->request_ttl_seconds || age < -300) {
		set_deny(d, "sbx: the approval of request %s is too old (%lld s) to use now; "
		    "repeat the call to ask a human again.", id, (long long)age);
		return 1;
	}
	snprintf(msg, sizeof(msg), "sbx: approved by %s as request %s; this identical call "
	    "is allowed once.", who && *who ? who : "an approver", id);
	d->allow = 1;
	free(d->reason);
	d->reason = strdup(msg);
	return 1;
}

/*
 * The request this call waited on finished, but its one delivery went to
 * another identical call that waited on it too, or could not be recorded
 * (escalate.h, ESC_TAKEN): a deny that says so. An approval that opens a
 * call is used once, by the caller with the receipt, never by this one.
 */
static void
taken(const struct hook_call *c, const struct esc_outcome *eo, struct hook_decision *d)
{
	int opens = !request_command(c->tool, c->input);

	if (eo->msg[0])
		set_deny(d, "sbx: request %s, which this call waited on, finished (%s), but %s, "
		    "so its result is not handed back%s. Do not run it again yourself; the user "
		    "can see it with `sbx show %s`.", eo->id, eo->status, eo->msg,
		    opens ? " and the call is not allowed" : "", eo->id);
	else if (opens && !strcmp(eo->status, req_status_name(REQ_APPROVED)))
		set_deny(d, "sbx: the approval of request %s was used by another identical call "
		    "that waited on it too: an approval allows one call, once. This call was not "
		    "allowed; repeat it to ask a human again.", eo->id);
	else
		set_deny(d, "sbx: request %s, which this call waited on, finished (%s) and its "
		    "result was handed to another identical call that waited on it too (a "
		    "result is delivered once). Do not run it again; the user can see it with "
		    "`sbx show %s`.", eo->id, eo->status, eo->id);
}

/*
 * Before an allowed Write/Edit/MultiEdit/NotebookEdit changes an existing
 * file, keeps its content (common/protocol/originals.h). -1 with msg when it
 * could not: the caller denies rather than lose the original.
 */
static int
keep_original(const char *folder, const char *cwd, const char *tool, const cJSON *input,
    const char *session, char *msg, size_t msgsz)
{
	char path[PATH_MAX], real[PATH_MAX];
	const char *target;
	struct sbx_err err = { "" };
	int sbfd, rc;

	if (strcmp(tool, "Write") && strcmp(tool, "Edit") && strcmp(tool, "MultiEdit") &&
	    strcmp(tool, "NotebookEdit"))
		return 0;
	target = json_str(input, strcmp(tool, "NotebookEdit") ? "file_path" : "notebook_path");
	if (!target || !*target)
		return 0;
	if (xsnprintf(path, sizeof(path), "%s%s%s", target[0] == '/' ? "" : cwd,
	    target[0] == '/' ? "" : "/", target) < 0) {
		snprintf(msg, msgsz, "the path is too long");
		return -1;
	}
	/* A write through a symlink changes its target: keep the target. */
	if (realpath(path, real))
		snprintf(path, sizeof(path), "%s", real);
	if ((sbfd = sandbox_open(folder, &err)) < 0) {
		snprintf(msg, msgsz, "%s", err.msg);
		return -1;
	}
	rc = originals_keep(sbfd, path, tool, session, &err);
	close(sbfd);
	if (rc < 0)
		snprintf(msg, msgsz, "could not keep the original of %.300s (%.200s)", path,
		    err.msg[0] ? err.msg : strerror(errno));
	return rc < 0 ? -1 : 0;
}

void
hook_decide(const struct hook_call *c, struct hook_decision *d)
{
	char folder[PATH_MAX], cwd[PATH_MAX], config[PATH_MAX], msg[600];
	struct call_ctx cx;
	struct policy_result pr;
	struct policy_call call;
	struct esc_request rq;
	struct esc_outcome eo;
	struct policy *pol = NULL;

	d->allow = 0;
	d->reason = NULL;
	/* The cwd is where a command would run: one that is missing,
	 * relative or gone is refused, never replaced by the project dir
	 * (where `rm -rf x` means something else). */
	if (!c->cwd || c->cwd[0] != '/') {
		set_deny(d, "sbx: the hook input has %s cwd; sbx cannot tell where the call "
		    "would run, so it was not run.", !c->cwd ? "no" : "a relative");
		return;
	}
	if (!realpath(c->cwd, cwd)) {
		set_deny(d, "sbx: the hook input's cwd %.300s does not resolve (%s); the call "
		    "was not run.", c->cwd, strerror(errno));
		return;
	}
	/* The folder: nearest .sandbox/ above cwd (resolved just above),
	 * else above the project dir. */
	if (find_folder_resolved(cwd, folder, sizeof(folder)) < 0 &&
	    (!c->project_dir || find_folder(c->project_dir, folder, sizeof(folder)) < 0)) {
		set_deny(d, "sbx: no .sandbox/ folder above %s; the user must run `sbx init` "
		    "in the project. The call was not run.", cwd);
		return;
	}
	if (config_dir(config, sizeof(config)) < 0) {
		set_deny(d, "sbx: cannot find the sbx config dir; the call was not run.");
		return;
	}
	/* the accepted policy, TMPDIR and HOME: as `sbx policy check` sees them */
	if (call_ctx_load(&cx, folder, config) < 0) {
		set_deny(d, "sbx: the sandbox policy is invalid or not accepted, so every call "
		    "is denied: %s. Ask the user to fix it.", cx.msg);
		return;
	}
	pol = cx.pol;
	/* The wait is bounded by the policy; the alarm stays just above it. */
	alarm((unsigned)policy_limits(pol)->hook_wait_seconds + 5);
	call = (struct policy_call){ .tool = c->tool, .input = c->input, .cwd = cwd,
		.folder = folder, .config_dir = config };
	call_ctx_fill(&cx, &call);
	policy_eval(pol, &call, &pr);
	if (pr.verdict == POLICY_ALLOW) {
		/* Keep what an allowed file tool is about to replace. */
		if (keep_original(folder, cwd, c->tool, c->input, c->session_id, msg,
		    sizeof(msg)) < 0) {
			set_deny(d, "sbx: %s; the change was not made.", msg);
			goto out;
		}
		d->allow = 1;
		d->reason = strdup(pr.reason);
		goto out;
	}
	if (pr.verdict != POLICY_ESCALATE) {
		set_deny(d, "sbx: denied by policy (%s): %s", pr.rule, pr.reason);
		goto out;
	}
	if (!request_command(c->tool, c->input) && !request_opens(c->tool)) {
		/* sbxd runs shell commands only: queueing this would only be
		 * rejected there. */
		set_deny(d, "sbx: this %s call needs a human's approval (%s) and was not run. "
		    "To do it anyway, %s.", c->tool, pr.reason, instead(c->tool));
		goto out;
	}
	rq = (struct esc_request){ .folder = folder, .cwd = cwd, .tool = c->tool,
		.input = c->input, .session_id = c->session_id,
		.tool_use_id = c->tool_use_id, .agent = c->agent, .why = &pr,
		.limits = policy_limits(pol),
		.wait_seconds = policy_limits(pol)->hook_wait_seconds };
	escalate(&rq, &eo);
	switch (eo.state) {
	case ESC_RESULT:
		/* A call sbxd does not run: an approval lets it run here, once. */
		if (!request_command(c->tool, c->input) &&
		    allowance(eo.result, policy_limits(pol), d)) {
			cJSON_Delete(eo.result);
			break;
		}
		d->reason = result_text(eo.result, folder, c->max_reason);
		if (!d->reason)
			set_deny(d, "sbx: request %s finished; see `sbx show %s`. Do not run it "
			    "again.", eo.id, eo.id);
		cJSON_Delete(eo.result);
		break;
	case ESC_TAKEN:
		taken(c, &eo, d);
		break;
	case ESC_PENDING:
		if (eo.no_daemon && eo.stopped) {
			set_deny(d, "sbx: this call needs a human's approval (%s), but sbxd is not "
			    "serving %s: sbxd (pid %ld) stopped serving this folder because %s. It "
			    "is queued as request %s, and nothing will run it until the user checks "
			    "the folder (`sbx -C %s doctor`), restores it and restarts sbxd. Tell "
			    "the user; do not work around it.", pr.reason, folder, eo.stopped, eo.msg,
			    eo.id, folder);
			break;
		}
		if (eo.no_daemon) {
			set_deny(d, "sbx: this call needs a human's approval (%s). No sbxd is "
			    "running for %s, so it is queued as request %s and will run only after "
			    "a human approves it, once sbxd runs. Tell the user to start it: "
			    "`sbxd %s` (then approve in `sbx watch -C %s`). Do not work around it: "
			    "repeat the exact same call later to receive its result.", pr.reason,
			    folder, eo.id, folder, folder);
			break;
		}
		if (!request_command(c->tool, c->input)) {
			set_deny(d, "sbx: this %s call needs a human's approval (%s) and is pending "
			    "as request %s. sbx does not run it for you: once a human approves it, "
			    "repeat the identical call once and it will be allowed (one time; a "
			    "changed call is asked again). Do not work around it; carry on with "
			    "other work meanwhile.", c->tool, pr.reason, eo.id);
			break;
		}
		set_deny(d, "sbx: this call needs a human's approval (%s) and is pending as "
		    "request %s. It will run outside the agent once approved. Do not work "
		    "around it: repeat the exact same call later to receive its result, or "
		    "carry on with other work.", pr.reason, eo.id);
		break;
	default:
		set_deny(d, "sbx: this call needs a human's approval (%s) but could not be "
		    "queued: %s. The call was not run.", pr.reason, eo.msg);
	}
out:
	policy_free(pol);
}
