/*
 * decision.c - a signed decision from decisions/new: verified, then
 * consumed in the transaction that moves its request (lifecycle.h:
 * pending --vote/approve/approve_opens/deny--> ...), or a rule change.
 *
 * Rules:
 * - MUST verify a decision's signature against a trusted key, its
 *   binding to the request hash, its expiry and its nonce, and consume
 *   it in the same SQLite transaction that moves the request from
 *   pending to running: an approval can never run a command twice.
 * - MUST NOT run a request that expired, even when its decision came
 *   before the expiry pass.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <sodium.h>

#include "common/store/db.h"
#include "common/store/store.h"
#include "common/trust/keys.h"
#include "daemon/audit.h"
#include "daemon/fault.h"
#include "daemon/lifecycle.h"
#include "daemon/polcache.h"
#include "daemon/notify.h"
#include "daemon/run.h"
#include "policy/policy.h"

/* "ID.NONCE" of a valid decision file name "ID.NONCE.json". */
static struct queue_path
decision_stem(const char *name)
{
	struct queue_path p = { "" };

	snprintf(p.s, sizeof(p.s), "%.*s", SBX_ID_LEN + 1 + 2 * SBX_NONCE_LEN, name);
	return p;
}

/* The signature, key, approver name, expiry and creation time of a
 * decision file. 0; -1 with err; -2 when the file is gone. */
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
	snprintf(path, sizeof(path), "%s", queue_path(QP_DECISION, decision_stem(name).s).s);
	/* Gone: a rescan consumed it before its inotify event came (-2,
	 * quiet); any other refusal is a rejection. */
	if (!(text = read_untrusted(f->sbfd, path, SBX_MAX_DECISION, &len, err)))
		return errno == ENOENT && folder_gone_quietly(f, "decisions/new", name) ? -2 : -1;
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
 * How the policy pol rates a call now (input as JSON text, or a Bash
 * command): the risk and factors a remembered rule is approved at.
 * Returns 0, or -1 when there is no valid policy.
 */
static int
rule_classify(struct folder *f, const struct policy *pol, const char *tool,
    const char *input_text, const char *command, const char *cwd, struct policy_result *pr)
{
	struct policy_call call;
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
	return 0;
}

static void
decision_done(struct folder *f, const char *name)
{
	(void)unlinkat_nf(f->sbfd, queue_path(QP_DECISION, decision_stem(name).s).s, 0);
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
	struct policy_error perr;
	struct policy *pol = NULL;
	int adds = !strcmp(d->verdict, "rule");
	char actor[80], *signed_d = NULL;
	int64_t now = now_ms() / 1000;
	int rc;

	if (strcmp(d->id, SBX_NO_REQUEST) != 0 || memcmp(d->hash, zero, sizeof(zero)) != 0) {
		folder_reject(f, "decisions/new", name, "a rule change must name no request");
		return;
	}
	if (adds && (strcmp(d->scope, "prefix") != 0 || !prefix_valid(d->prefix))) {
		folder_reject(f, "decisions/new", name, "a rule needs a prefix of at least two "
		    "words without shell syntax");
		return;
	}
	/* A rule made without a request covers what its prefix alone is
	 * rated: "git push" covers no force push. */
	if (adds && rule_classify(f, pol = folder_policy(f, &perr), "Bash", NULL, d->prefix,
	    f->path, &pr) < 0) {
		folder_reject(f, "decisions/new", name, "the policy is invalid or not accepted: "
		    "cannot rate the rule's prefix");
		return;
	}
	polcache_release(pol);
	if (store_begin(f->db) < 0)
		return;
	rc = store_nonce_use(f->db, d->nonce, d->id, now);
	if (rc >= 0 && adds) {
		struct store_new_rule r = { .scope = "prefix", .prefix = d->prefix,
			.tool = "Bash", .approver = key->name, .key_id = key->key_id,
			.created = now, .expires = d->rule_expires, .risk = (int)pr.risk,
			.factors = pr.factors, .decision = signed_d = decision_to_json(d) };

		rc = !signed_d ? -1 : store_rule_add(f->db, &r);
		free(signed_d);
	} else if (rc >= 0) {
		rc = store_rule_remove(f->db, d->rule_id) == 1 ? 1 : -3;
	}
	if (rc < 0 || store_commit(f->db) < 0) {
		store_rollback(f->db);
		folder_reject(f, "decisions/new", name, rc == -2 ? "replayed decision (nonce "
		    "already used)" : rc == -3 ? "no such rule" : "database error");
		return;
	}
	snprintf(actor, sizeof(actor), "approver:%s", key->name);
	audit_log(f->audit, adds ? "rule_added" : "rule_removed", NULL, NULL, actor,
	    AU_S("prefix", adds ? d->prefix : NULL),
	    AU_S("approver", key->name), AU_S("key_id", key->key_id),
	    AU_I("rule", d->rule_id), AU_I("expires", d->rule_expires),
	    AU_S("nonce", d->nonce), AU_END);
	decision_done(f, name);
	if (adds)
		logf_folder(f, "rule added by %s: Bash prefix \"%s\"%s", key->name, d->prefix,
		    d->rule_expires ? " (expires)" : "");
	else
		logf_folder(f, "rule %lld removed by %s", (long long)d->rule_id, key->name);
}

/* One decision for a request, on its way through. */
struct verdict {
	struct decision d;
	struct trusted_key key;
	struct req_row row;
	char hash[2 * SBX_HASH_LEN + 1], who[160], actor[80];
	const char *name;
	int approve, opens;
	struct policy *pol;         /* loaded once, when first needed */
	int pol_loaded;
	struct life_step step;
	enum req_status status;
	int64_t now;
};

/* The folder's policy for this decision: loaded and verified once. */
static const struct policy *
verdict_policy(struct folder *f, struct verdict *v)
{
	struct policy_error perr;

	if (!v->pol_loaded) {
		v->pol = folder_policy(f, &perr);
		v->pol_loaded = 1;
	}
	return v->pol;
}

static void
verdict_reject(struct folder *f, struct verdict *v, const char *why)
{
	store_rollback(f->db);
	folder_reject(f, "decisions/new", v->name, why);
}

/* In the transaction: the request has not expired, and the nonce is
 * consumed. 0, or -1 (rolled back, handled). */
static int
verdict_consume(struct folder *f, struct verdict *v)
{
	int rc;

	if (store_begin(f->db) < 0) {
		logf_folder(f, "database: %s", sqlite3_errmsg(f->db));
		return -1;
	}
	/* An expired request never runs: checked here, in the consuming
	 * transaction, not only by the periodic expiry pass. */
	if ((rc = store_request_expired(f->db, v->d.id, v->now)) != 0) {
		verdict_reject(f, v, rc > 0 ? "the request expired before this decision "
		    "arrived; it will not run" : "database error");
		if (rc > 0)
			run_expire(f, v->row.id, v->row.hash, v->now);
		return -1;
	}
	if ((rc = store_nonce_use(f->db, v->d.nonce, v->d.id, v->now)) < 0) {
		verdict_reject(f, v, rc == -2 ? "replayed decision (nonce already used)"
		    : "database error");
		return -1;
	}
	return 0;
}

/*
 * Dual control: records this approval; the request moves only at the
 * last one (pending --vote--> pending until then). 1 when this was a
 * vote and is done, 0 to go on (v->who says who approved), -1 failed.
 */
static int
verdict_vote(struct folder *f, struct verdict *v)
{
	int rc, votes;

	if (!v->approve || v->row.approvals_needed <= 1) {
		snprintf(v->who, sizeof(v->who), "%s", v->key.name);
		return 0;
	}
	rc = store_approval_add(f->db, v->d.id, v->key.key_id, v->key.name, v->now);
	if (rc < 0) {
		verdict_reject(f, v, rc == -2 ? "this key approved already; dual control "
		    "needs a second, different approver" : "database error");
		return -1;
	}
	if ((votes = store_approval_count(f->db, v->d.id)) >= v->row.approvals_needed) {
		snprintf(v->who, sizeof(v->who), "%s+%s", v->row.approved_by ?
		    v->row.approved_by : "?", v->key.name);
		return 0;
	}
	if (votes < 0 || lifecycle_step(LS_PENDING, LE_VOTE, &v->step) < 0 ||
	    audit_intent(f->audit, "decision", v->d.id, v->row.session, v->actor,
	    AU_S("verdict", "approve"), AU_S("approver", v->key.name),
	    AU_S("key_id", v->key.key_id), AU_I("approval", (int64_t)votes),
	    AU_I("approvals_needed", (int64_t)v->row.approvals_needed),
	    AU_S("nonce", v->d.nonce), AU_END) < 0 || store_commit(f->db) < 0) {
		store_rollback(f->db);
		return -1;
	}
	(void)audit_intents_flush(f->audit);
	decision_done(f, v->name);
	logf_folder(f, "request %s: approval %d of %d, by %s; waiting for a different "
	    "approver", v->d.id, votes, v->row.approvals_needed, v->key.name);
	return 1;
}

/* An approval with remember: the rule, in the same transaction. 0, or
 * -1 (rolled back). */
static int
verdict_remember(struct folder *f, struct verdict *v)
{
	struct policy_result rpr = { .risk = POLICY_RISK_LOW };
	struct store_new_rule r;
	char *signed_d;
	int prefix = !strcmp(v->d.scope, "prefix"), rc;

	if (!v->approve || !v->d.remember)
		return 0;
	if (v->row.approvals_needed > 1) {
		logf_folder(f, "request %s: not remembered, it needs two approvers each time",
		    v->d.id);
		return 0;
	}
	if (rule_classify(f, verdict_policy(f, v), v->row.tool, v->row.input, NULL,
	    v->row.cwd, &rpr) < 0 || rpr.verdict == POLICY_DENY) {
		logf_folder(f, "request %s: not remembered: it is on the always_ask list (or "
		    "the policy cannot rate it); a human decides each such call", v->d.id);
		return 0;
	}
	/* A prefix rule must cover this very request and stay narrow;
	 * kinds that open are remembered exactly (host and port). */
	if (prefix && (v->opens || !prefix_covers(v->d.prefix, v->row.command))) {
		verdict_reject(f, v, v->opens ? "a request that opens is remembered exactly, "
		    "never by prefix" : "the remembered prefix does not cover this request, has "
		    "fewer than two words, or the command has shell syntax");
		return -1;
	}
	if (!(signed_d = decision_to_json(&v->d))) {
		store_rollback(f->db);
		return -1;
	}
	r = (struct store_new_rule){ .scope = v->d.scope, .hash = v->hash,
		.prefix = prefix ? v->d.prefix : NULL, .tool = v->row.tool,
		.command = v->row.command, .approver = v->key.name, .key_id = v->key.key_id,
		.created = v->now, .expires = v->d.rule_expires, .risk = (int)rpr.risk,
		.factors = rpr.factors, .decision = signed_d };
	rc = store_rule_add(f->db, &r);
	free(signed_d);
	if (rc < 0) {
		store_rollback(f->db);
		return -1;
	}
	return 0;
}

/* pending --approve/approve_opens/deny--> its status, with the records
 * (intents) in the same transaction. 0, or -1 (rolled back). */
static int
verdict_decide(struct folder *f, struct verdict *v)
{
	char msg[160];
	enum life_event ev = !v->approve ? LE_DENY : v->opens ? LE_APPROVE_OPENS : LE_APPROVE;

	if (lifecycle_step(LS_PENDING, ev, &v->step) < 0 ||
	    lifecycle_status(v->step.to, &v->status) < 0) {
		store_rollback(f->db);
		return -1;
	}
	if (store_request_decide(f->db, v->d.id, v->status, v->who, v->key.key_id, v->now,
	    v->approve ? NULL : v->d.reason) != 1) {
		snprintf(msg, sizeof(msg), "request is %s, not pending", v->row.status);
		verdict_reject(f, v, msg);
		return -1;
	}
	if (verdict_remember(f, v) < 0)
		return -1;
	/* The decision and its consumption are recorded in the same
	 * transaction (intents), written to the log right after it, and no
	 * command starts before they are durably there (run_start). */
	if (audit_intent(f->audit, "decision", v->d.id, v->row.session, v->actor,
	    AU_S("verdict", v->d.verdict), AU_S("approver", v->key.name),
	    AU_S("approvers", v->who), AU_S("key_id", v->key.key_id),
	    AU_B("remember", v->d.remember), AU_S("scope", v->d.scope),
	    AU_S("prefix", v->d.prefix), AU_S("reason", v->d.reason),
	    AU_S("nonce", v->d.nonce), AU_I("created", v->d.created),
	    AU_I("expires", v->d.expires), AU_END) < 0 ||
	    (v->approve && audit_intent(f->audit, "approval_consumed", v->d.id,
	    v->row.session, "daemon", AU_S("nonce", v->d.nonce), AU_S("approver", v->who),
	    AU_END) < 0) || store_commit(f->db) < 0) {
		store_rollback(f->db);
		return -1;
	}
	return 0;
}

/* After the commit: the effects of the step (lifecycle.h). */
static void
verdict_effects(struct folder *f, const struct daemon_opts *o, struct verdict *v)
{
	const struct decision *d = &v->d;
	struct policy_limits lim;

	logf_folder(f, "request %s %s by %s%s%s%s", d->id, v->approve ? "approved" : "denied",
	    v->key.name, d->remember ? " (remembered: " : "", d->remember ?
	    (!strcmp(d->scope, "prefix") ? d->prefix : "this exact call") : "",
	    d->remember ? ")" : "");
	if (v->status == REQ_APPROVED) {
		run_open(f, d->id, v->row.hash, v->row.session, v->who, 0);
	} else if (v->step.effects & LF_EXEC) {
		lim = *policy_limits(verdict_policy(f, v));
		run_start(f, o, &v->row, v->who, 0, &lim);
	} else {
		run_close(f, d->id, v->row.hash, v->status, v->key.name, d->reason);
		if (v->step.effects & LF_NOTIFY)
			notify_event("denied", f->path, d->id, v->row.tool, v->row.command ?
			    v->row.command : v->row.input, d->reason[0] ? d->reason :
			    "no reason given");
	}
}

void
folder_decision(struct folder *f, const struct daemon_opts *o, const char *name)
{
	struct verdict v = { .name = name, .now = now_ms() / 1000 };
	struct sbx_err err = { "" };
	int rc;

	if (name[0] == '.')
		return;
	if ((rc = verify_decision(f, name, &v.d, &v.key, &err)) < 0) {
		if (rc != -2)
			folder_reject(f, "decisions/new", name, err.msg);
		return;
	}
	hex_encode(v.hash, v.d.hash, SBX_HASH_LEN);
	if (!strcmp(v.d.verdict, "rule") || !strcmp(v.d.verdict, "revoke")) {
		rule_decision(f, name, &v.d, &v.key);
		return;
	}
	if ((rc = db_get(f->db, v.d.id, &v.row)) != 1) {
		folder_reject(f, "decisions/new", name, rc == 0 ? "no such request"
		    : "database error");
		return;
	}
	if (strcmp(v.row.hash, v.hash) != 0) {
		folder_reject(f, "decisions/new", name, "decision is bound to another request");
		goto out;
	}
	v.approve = strcmp(v.d.verdict, "approve") == 0;
	v.opens = request_opens(v.row.tool);
	snprintf(v.actor, sizeof(v.actor), "approver:%s", v.key.name);
	/* Consume: nonce and state change in one transaction. */
	if (verdict_consume(f, &v) < 0 || verdict_vote(f, &v) != 0 ||
	    verdict_decide(f, &v) < 0)
		goto out;
	FAULT("decision-committed");
	(void)audit_intents_flush(f->audit);
	decision_done(f, name);
	verdict_effects(f, o, &v);
out:
	polcache_release(v.pol);
	req_row_free(&v.row);
}
