/*
 * request.c - a claimed request becomes a row: judged again by the
 * policy (loaded and verified once for it), the rate limits and the
 * remembered rules, then recorded with its first state in one
 * transaction (daemon/lifecycle.h: new -> rejected, pending, waiting or
 * approved), and the effects of that step carried out.
 *
 * Rules:
 * - MUST NOT trust the agent side: the request is checked (claim.h) and
 *   classified again here.
 * - MUST use a remembered rule only as its approver signed it
 *   (rule_verified), and never in place of dual control.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <sodium.h>

#include "common/base/json.h"
#include "common/protocol/wake.h"
#include "common/store/db.h"
#include "common/store/store.h"
#include "common/trust/keys.h"
#include "daemon/audit.h"
#include "daemon/claim.h"
#include "daemon/exec.h"
#include "daemon/fault.h"
#include "daemon/lifecycle.h"
#include "daemon/polcache.h"
#include "daemon/notify.h"
#include "daemon/run.h"
#include "policy/policy.h"

/* One request on its way in. */
struct arrival {
	struct claimed c;
	const char *cmd;            /* what a person reads (borrowed) */
	char summary[600];
	char *input_text;
	struct policy *pol;
	struct policy_result pr;
	struct policy_limits lim;
	int needed;                 /* approvals */
	int64_t now, rule;
	int64_t marked;             /* started, in the recording transaction */
	char *who;                  /* the remembered rule's approver */
	struct sbx_err why;         /* set: refused */
	struct life_step step;
	enum req_status status;
};

/*
 * Group commit: the requests found together in queue/new (a burst,
 * several hooks at once; up to SBX_BATCH) are recorded in one
 * transaction, a savepoint each, with the policy loaded and verified
 * once; then one commit, one audit sync and, for those that will not
 * run, one filesystem sync for their results before any hook is woken.
 * An arrival waits here until the batch committed.
 */
#define SBX_BATCH 64

struct batch {
	struct policy *pol;         /* the batch's policy (NULL: invalid) */
	struct policy_error perr;
	int loaded, open;           /* policy tried; transaction begun */
	int marks;                  /* requests marked started (slots taken) */
	size_t n;
	struct arrival item[SBX_BATCH];
};

/*
 * A remembered rule is used only as its approver signed it: the stored
 * decision (remember=1 approval, or a "rule" decision) verifies with a
 * trusted key of that approver, and the row says what it says: scope,
 * prefix, exact hash, tool, expiry, approver. An inserted or edited row
 * (sqlite3 by code in the folder) is refused. 0 verified, -1 with why.
 */
static int
rule_verified(struct folder *f, int64_t rule, const char *tool, char *why, size_t whysz)
{
	unsigned char *msg = NULL;
	char hex[2 * SBX_HASH_LEN + 1];
	struct trusted_key key;
	struct store_rule r;
	struct sbx_err err;
	struct decision d;
	size_t mlen;
	int rc = -1, found;

	if ((found = store_rule_get(f->db, rule, &r)) != 1) {
		snprintf(why, whysz, found < 0 ? "database error" : "no such rule");
		return -1;
	}
	if (!r.decision || decision_from_json(r.decision, strlen(r.decision), &d, &err) < 0) {
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
	if (!r.scope || strcmp(r.scope, d.scope) != 0 || !r.approver ||
	    strcmp(r.approver, key.name) || r.expires != d.rule_expires ||
	    strcmp(tool ? tool : "", r.tool ? r.tool : "") ||
	    (!strcmp(d.verdict, "approve") ? !d.remember : strcmp(d.verdict, "rule") != 0) ||
	    (!strcmp(r.scope, "prefix") ? !r.prefix || strcmp(r.prefix, d.prefix) != 0
	    : !r.hash || strcmp(r.hash, hex) != 0)) {
		snprintf(why, whysz, "the stored rule differs from what %s signed (state.db "
		    "was edited?)", key.name);
		goto out;
	}
	rc = 0;
out:
	free(msg);
	store_rule_free(&r);
	return rc;
}

/* The policy's verdict, its limits and the rate limits: a.why set when
 * the request is refused. The policy is loaded and verified once. */
static void
arrival_judge(struct folder *f, struct arrival *a, struct batch *b)
{
	struct policy_error perr = { .msg = "" }, *pe = b ? &b->perr : &perr;
	struct policy_call call;

	if (b && !b->loaded) {
		b->pol = folder_policy(f, &b->perr);
		b->loaded = 1;
	}
	/* In a batch the policy is the batch's (borrowed, freed once). */
	if (!(a->pol = b ? b->pol : folder_policy(f, &perr))) {
		/* Fail closed, but keep the request on record. */
		a->lim = (struct policy_limits){ .request_ttl_seconds = 3600 };
		snprintf(a->why.msg, sizeof(a->why.msg), "the policy is invalid: %.400s",
		    pe->msg);
		return;
	}
	a->lim = *policy_limits(a->pol);
	call = (struct policy_call){ .tool = a->c.tool, .input = a->c.input, .cwd = a->c.cwd,
		.folder = f->path, .home = getenv("HOME"), .config_dir = f->config };
	/* each request of a batch looks at the trees it reads again */
	policy_forget_fs(a->pol);
	policy_eval(a->pol, &call, &a->pr);
	a->needed = policy_approvals_needed(a->pol, &call, &a->pr);
	if (a->pr.verdict == POLICY_DENY)
		snprintf(a->why.msg, sizeof(a->why.msg), "denied by policy (%.150s): %.300s",
		    a->pr.rule, a->pr.reason);
	else if (store_count_recent(f->db, a->now - 60, a->lim.max_per_minute) >=
	    a->lim.max_per_minute)
		snprintf(a->why.msg, sizeof(a->why.msg), "rate limit: %d requests in the last "
		    "minute; wait before escalating more", a->lim.max_per_minute);
	else if (store_count_pending(f->db, a->lim.max_pending) >= a->lim.max_pending)
		snprintf(a->why.msg, sizeof(a->why.msg), "%d requests are pending already",
		    a->lim.max_pending);
}

/* A remembered rule that approves it, verified as signed: a.who, a.rule. */
static void
arrival_rule(struct folder *f, struct arrival *a)
{
	struct rule_query q;

	/* Dual control is for every run: remembered rules never stand in.
	 * A rule covers no call above the risk, or with a factor, it was
	 * approved without, and no call on the always_ask list. */
	if (a->why.msg[0] || a->needed >= 2)
		return;
	q = (struct rule_query){ .hash = a->c.hash, .tool = a->c.tool, .command = a->cmd,
		.now = a->now, .risk = (int)a->pr.risk, .factors = a->pr.factors,
		.always_ask = policy_always_ask(a->pol, a->cmd) };
	if (!(a->rule = db_rule_match(f->db, &q, &a->who, NULL, NULL)))
		return;
	if (rule_verified(f, a->rule, a->c.tool, a->why.msg, sizeof(a->why.msg)) == 0)
		return;
	/* Not signed as stored: never an auto-approval; a human decides. */
	logf_folder(f, "request %s: remembered rule %lld NOT used: %s", a->c.id,
	    (long long)a->rule, a->why.msg);
	audit_log(f->audit, "rule_refused", a->c.id, a->c.session, "daemon",
	    AU_I("rule", a->rule), AU_S("why", a->why.msg), AU_END);
	a->why.msg[0] = '\0';
	free(a->who);
	a->who = NULL;
	a->rule = 0;
}

/* new --event--> first state: the row, the rule's use and the audit
 * intents in one transaction. 0, or -1 / -2 (the id exists). */
static int
arrival_record(struct folder *f, struct arrival *a, struct batch *b)
{
	const char *why = a->why.msg[0] ? a->why.msg : NULL;
	struct store_request r = { .id = a->c.id, .hash = a->c.hash, .tool = a->c.tool,
		.command = a->cmd, .input = a->input_text, .cwd = a->c.cwd,
		.session = a->c.session, .agent = a->c.agent, .trigger = a->c.trigger,
		.rule = a->c.rule, .reason = a->c.reason, .created = a->now,
		.expires = a->now + a->lim.request_ttl_seconds, .status = a->status,
		.deny_reason = why, .approver = a->who, .is_auto = a->who != NULL,
		.decided = a->who ? a->now : 0, .approvals_needed = a->needed };
	int rc;

	if (b && !b->open)
		b->open = store_begin(f->db) == 0;
	rc = (b ? !b->open || store_savepoint(f->db) < 0 : store_begin(f->db) < 0) ? -1 :
	    store_request_insert(f->db, &r);
	if (rc >= 0 && (a->step.effects & LF_RULE_USE))
		rc = store_rule_used(f->db, a->rule, a->now);
	/* The records go in with the row (intents): a crash after the commit
	 * cannot lose them. */
	if (rc >= 0)
		rc = audit_intent(f->audit, "request_received", a->c.id, a->c.session,
		    "hook", AU_S("tool", a->c.tool), AU_S("command", a->cmd),
		    AU_S("cwd", a->c.cwd), AU_J("input", cJSON_Duplicate(a->c.input, 1)),
		    AU_S("hash", a->c.hash), AU_S("agent", a->c.agent),
		    AU_S("tool_use_id", a->c.tool_use_id), AU_S("trigger", a->c.trigger),
		    AU_S("rule", a->c.rule), AU_S("reason", a->c.reason),
		    AU_S("status", req_status_name(a->status)), AU_S("why", why), AU_END);
	if (rc >= 0 && a->who)
		rc = audit_intent(f->audit, "decision", a->c.id, a->c.session, "daemon",
		    AU_S("verdict", "approve"), AU_S("approver", a->who),
		    AU_B("remembered", 1), AU_B("auto", 1), AU_I("rule", (int64_t)a->rule),
		    AU_END);
	/* A request that runs at once is marked started here, when a slot is
	 * free: the started commit before the fork is this one (run.h,
	 * run_start_marked). */
	a->marked = 0;
	if (rc >= 0 && (a->step.effects & LF_EXEC) &&
	    run_free_slots(f) > (b ? b->marks : 0)) {
		if (store_request_start(f->db, a->c.id, a->now) == 1)
			a->marked = a->now;
		else
			rc = -1;
	}
	if (b) {
		/* Only this request's savepoint goes; the batch's stays. */
		if (rc >= 0 && store_release(f->db) == 0) {
			b->marks += a->marked != 0;
			return 0;
		}
		if (rc != -2)
			logf_folder(f, "database: %s", sqlite3_errmsg(f->db));
		if (b->open)
			store_rollback_to(f->db);
		return rc == -2 ? -2 : -1;
	}
	if (rc < 0 || store_commit(f->db) < 0) {
		if (rc != -2)
			logf_folder(f, "database: %s", sqlite3_errmsg(f->db));
		store_rollback(f->db);
		return rc == -2 ? -2 : -1;
	}
	return 0;
}

/* The effects of the first step, after the commit. */
static void
arrival_effects(struct folder *f, const struct daemon_opts *o, struct arrival *a,
    int closed)
{
	struct req_row row;
	const char *shown = a->cmd ? a->cmd : a->input_text;

	if (a->status == REQ_REJECTED) {
		if (!closed)
			run_close(f, a->c.id, a->c.hash, a->status, "", a->why.msg);
		logf_folder(f, "request %s rejected: %s", a->c.id, a->why.msg);
		notify_event(!strncmp(a->why.msg, "denied by policy", 16) ? "denied" :
		    !strncmp(a->why.msg, "rate limit", 10) ||
		    strstr(a->why.msg, "pending already") ? "rate_limited" : "denied",
		    f->path, a->c.id, a->c.tool, shown, a->why.msg);
	} else if (a->status == REQ_APPROVED) {
		logf_folder(f, "request %s: %s `%s` opened by remembered rule %lld (by %s)",
		    a->c.id, a->c.tool, a->cmd, (long long)a->rule, a->who);
		if (!closed)
			run_open(f, a->c.id, a->c.hash, a->c.session, a->who, 1);
	} else if (a->step.effects & LF_EXEC) {
		logf_folder(f, "request %s: %s `%s` auto-approved by remembered rule %lld "
		    "(by %s)", a->c.id, a->c.tool, a->cmd, (long long)a->rule, a->who);
		if (db_get(f->db, a->c.id, &row) == 1) {
			run_start_marked(f, o, &row, a->who, 1, &a->lim, a->marked);
			req_row_free(&row);
		}
	} else {
		logf_folder(f, "request %s pending: %s `%s` (%s)%s", a->c.id, a->c.tool,
		    a->cmd, a->pr.reason, a->needed > 1 ? " - needs two approvers" : "");
		notify_event("request", f->path, a->c.id, a->c.tool, shown, a->c.reason);
	}
}

/* Its first step: refused, a rule approves it (it runs or opens), or a
 * human decides. 0, or -1 when the table has no such step. */
static int
arrival_step(struct arrival *a)
{
	int opens = request_opens(a->c.tool);
	enum life_event ev = a->why.msg[0] ? LE_INVALID : !a->who ? LE_ASK :
	    opens ? LE_RULE_OPENS : LE_RULE;

	if (lifecycle_step(LS_NEW, ev, &a->step) < 0 ||
	    lifecycle_status(a->step.to, &a->status) < 0)
		return -1;
	return 0;
}

static void
arrival_free(struct arrival *a, int own_policy)
{
	free(a->who);
	free(a->input_text);
	if (own_policy)
		polcache_release(a->pol);
	claim_free(&a->c);
	memset(a, 0, sizeof(*a));
}

/* A request that will not run or only opens: closed in the batch. */
static int
arrival_closing(const struct arrival *a)
{
	return a->status == REQ_REJECTED || a->status == REQ_APPROVED;
}

/* The results a batch wrote without a sync (result_write_status_deferred)
 * made durable: each file, then results/ once. Not syncfs(2): that
 * writes back the whole filesystem, which the agent can fill with dirty
 * pages to stall sbxd. 0, or -1 with errno from the first failure. */
static int
sync_results(struct folder *f, const struct batch *b)
{
	int rc = 0, e = 0;
	size_t i;

	for (i = 0; i < b->n; i++)
		if (arrival_closing(&b->item[i]) &&
		    fsync_at(f->sbfd, queue_path(QP_RESULT, b->item[i].c.id).s, 0) < 0 && !rc) {
			rc = -1;
			e = errno;
		}
	if (fsync_at(f->sbfd, "results", O_DIRECTORY) < 0 && !rc) {
		rc = -1;
		e = errno;
	}
	errno = e;
	return rc;
}


/* Ends a batch: one commit, the records with one audit sync, the results
 * of those that will not run with one filesystem sync, then the wakes and
 * the rest of the effects. */
static void
batch_end(struct folder *f, const struct daemon_opts *o, struct batch *b)
{
	char name[SBX_ID_LEN + 8];
	size_t i, closing = 0;
	struct arrival *a;

	if (b->open && store_commit(f->db) < 0) {
		logf_folder(f, "database: %s", sqlite3_errmsg(f->db));
		store_rollback(f->db);
		for (i = 0; i < b->n; i++) {
			a = &b->item[i];
			snprintf(name, sizeof(name), "%s.json", a->c.id);
			folder_reject(f, "pending", name, "database error");
			run_close(f, a->c.id, a->c.hash, REQ_REJECTED, "", "sbxd could not record "
			    "the request (database error); ask the user to check sbxd's log");
			arrival_free(a, 0);
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
	/* Recorded (and synced) before the agent can read the results. */
	for (i = 0; i < b->n; i++) {
		a = &b->item[i];
		if (!arrival_closing(a))
			continue;
		if (a->status == REQ_REJECTED)
			audit_log(f->audit, "request_closed", a->c.id, NULL, "daemon",
			    AU_S("status", req_status_name(a->status)), AU_S("approver", ""),
			    AU_S("reason", a->why.msg), AU_END);
		else
			audit_log(f->audit, "request_closed", a->c.id, a->c.session, "daemon",
			    AU_S("status", req_status_name(a->status)), AU_S("approver", a->who),
			    AU_B("auto", 1), AU_S("reason", "approved: opened, nothing executed"),
			    AU_END);
		closing++;
	}
	if (closing) {
		(void)audit_sync(f->audit);
		for (i = 0; i < b->n; i++) {
			a = &b->item[i];
			if (arrival_closing(a) && result_write_status_deferred(f->sbfd, a->c.id,
			    a->c.hash, req_status_name(a->status), a->who ? a->who : "",
			    a->status == REQ_REJECTED ? a->why.msg : "approved by a remembered "
			    "rule; nothing was executed") < 0 && errno != EEXIST)
				logf_folder(f, "request %s: cannot write its result: %s", a->c.id,
				    strerror(errno));
		}
		if (sync_results(f, b) < 0)
			logf_folder(f, "cannot sync the results of %zu requests: %s", closing,
			    strerror(errno));
		for (i = 0; i < b->n; i++)
			if (arrival_closing(&b->item[i]))
				wake_poke(f->sbfd, b->item[i].c.id);
	}
	for (i = 0; i < b->n; i++) {
		arrival_effects(f, o, &b->item[i], arrival_closing(&b->item[i]));
		arrival_free(&b->item[i], 0);
	}
	b->n = 0;
}

/* Records a claimed request, on its own (B NULL) or in batch B (settled
 * by batch_end). */
static void
ingest(struct folder *f, const struct daemon_opts *o, const char *id, struct batch *b)
{
	struct arrival one = { .needed = 1 }, *a = b ? &b->item[b->n] : &one;
	char name[SBX_ID_LEN + 8];
	int rc;

	memset(a, 0, sizeof(*a));
	a->needed = 1;
	a->now = now_ms() / 1000;
	snprintf(name, sizeof(name), "%s.json", id);
	if ((rc = claim_read(f->sbfd, f->path, id, &a->c, &a->why)) < 0) {
		folder_reject(f, "pending", name, a->why.msg);
		/* The name was valid: let a waiting agent know. */
		if (rc == -2)
			result_write_status(f->sbfd, id, a->c.hash, req_status_name(REQ_REJECTED), "",
			    a->why.msg);
		goto out;
	}
	/* What the human reads: the command, or "CONNECT host:port" for a
	 * kind that opens (never executed: see run_open). */
	a->cmd = request_command(a->c.tool, a->c.input);
	if (!a->cmd && request_opens(a->c.tool) &&
	    request_summary(a->c.tool, a->c.input, a->summary, sizeof(a->summary)) >= 0)
		a->cmd = a->summary;
	if (!(a->input_text = cJSON_PrintUnformatted(a->c.input))) {
		folder_reject(f, "pending", name, "out of memory");
		goto out;
	}
	arrival_judge(f, a, b);
	arrival_rule(f, a);
	if (arrival_step(a) < 0 || (rc = arrival_record(f, a, b)) < 0) {
		folder_reject(f, "pending", name, rc == -2 ? "a request with this id exists "
		    "already" : "database error");
		/* A waiting agent learns it was not recorded (never for a
		 * duplicate id: that result belongs to the first request). */
		if (rc != -2)
			run_close(f, id, a->c.hash, REQ_REJECTED, "", "sbxd could not record the "
			    "request (database error); ask the user to check sbxd's log");
		goto out;
	}
	if (b) {
		b->n++;         /* settled in place by batch_end */
		return;
	}
	FAULT("request-committed");
	if (audit_intents_flush(f->audit) < 0)
		logf_folder(f, "request %s: its records wait in state.db until the audit log "
		    "can be written", id);
	arrival_effects(f, o, a, 0);
out:
	arrival_free(a, !b);
}

void
request_ingest(struct folder *f, const struct daemon_opts *o, const char *id)
{
	ingest(f, o, id, NULL);
}

/* Claims queue/new/NAME: 1 claimed (id set), else 0 (handled). */
static int
take(struct folder *f, const char *name, char id[SBX_ID_LEN + 1])
{
	struct sbx_err err;
	int rc;

	if ((rc = claim_take(f->sbfd, name, id, &err)) == -1)
		folder_reject(f, "queue/new", name, err.msg);
	else if (rc == -2)
		logf_folder(f, "%s", err.msg);
	return rc == 1;
}

/*
 * The request inotify (or a rescan) named, and with it whatever else
 * waits in queue/new (a burst, several hooks at once), up to SBX_BATCH:
 * group commit without waiting for their events, which then find their
 * files claimed (one failed rename each). Alone (the usual case: one read
 * of an empty directory), it is recorded on its own.
 */
void
folder_request(struct folder *f, const struct daemon_opts *o, const char *name)
{
	char id[SBX_ID_LEN + 1], *names[SBX_BATCH - 1];
	struct batch *b = NULL;
	struct dirent *de;
	size_t n = 0, i;
	DIR *d;

	if (!take(f, name, id))
		return;
	if ((d = opendir_at(f->sbfd, "queue/new"))) {
		while (n < SBX_BATCH - 1 && (de = readdir(d)))
			if (de->d_name[0] != '.' && (names[n] = strdup(de->d_name)))
				n++;
		closedir(d);
	}
	/* Without memory for a batch, one by one: slower, nothing lost. */
	if (n > 0)
		b = calloc(1, sizeof(*b));
	ingest(f, o, id, b);
	for (i = 0; i < n; i++)
		if (take(f, names[i], id))
			ingest(f, o, id, b);
	if (b) {
		batch_end(f, o, b);
		polcache_release(b->pol);
		free(b);
	}
	for (i = 0; i < n; i++)
		free(names[i]);
}
