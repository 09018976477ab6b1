/*
 * cmd_rules.c - `sbx rules list | add | rm`: the remembered approvals
 * sbxd applies without asking. The approver cannot write sbxd's
 * database: add and rm are signed decisions that name no request.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "approver/cmd.h"
#include "approver/sign.h"
#include "common/base/display.h"
#include "common/base/json.h"
#include "common/protocol/queue.h"
#include "common/store/db.h"
#include "common/store/store.h"
#include "common/trust/accept.h"
#include "policy/policy.h"

static const char use[] = "usage: sbx [-C DIR] rules list [--json] | add 'WORD WORD...' "
    "[--for DURATION] | rm RULE | test 'COMMAND' [--cwd DIR]\n";

static int
usage(int help)
{
	return sub_usage(use, help);
}

static int
rule_write(const struct sbx_ctx *c, const char *folder, const char *verdict,
    const char *prefix, long long expires, long long rule_id)
{
	struct approver_key key;
	struct decision d;
	struct sbx_err err;
	struct queue_path dst;
	char stem[64], *text = NULL;
	int sbfd, rc = 1;

	if (approver_key_load(c->config, &key, &err) < 0) {
		fprintf(stderr, "sbx: %s\n", err.msg);
		return 1;
	}
	memset(&d, 0, sizeof(d));
	snprintf(d.id, sizeof(d.id), "%s", SBX_NO_REQUEST);
	snprintf(d.verdict, sizeof(d.verdict), "%s", verdict);
	snprintf(d.scope, sizeof(d.scope), "prefix");
	snprintf(d.prefix, sizeof(d.prefix), "%s", prefix ? prefix : "");
	d.rule_expires = expires;
	d.rule_id = rule_id;
	rc = decision_sign(&d, &key, 1800) < 0 || !(text = decision_to_json(&d));
	approver_key_wipe(&key);
	if (rc) {
		fprintf(stderr, "sbx: cannot sign the rule change\n");
		return 1;
	}
	rc = 1;
	if ((sbfd = sandbox_open(folder, &err)) < 0) {
		fprintf(stderr, "sbx: %s\n", err.msg);
	} else {
		snprintf(stem, sizeof(stem), "%s.%s", d.id, d.nonce);
		dst = queue_path(QP_DECISION, stem);
		if (write_atomic(sbfd, "decisions/tmp", dst.s, text, strlen(text), 0600, 1) < 0)
			fprintf(stderr, "sbx: cannot write %s: %s\n", dst.s, strerror(errno));
		else
			rc = 0;
		close(sbfd);
	}
	free(text);
	return rc;
}

struct listing {
	cJSON *arr;
	int json;
	int64_t now;
};

static void
list_one(void *ctx, const struct store_rule_info *r)
{
	struct listing *l = ctx;
	char when[32], ftext[256];
	cJSON *o = cJSON_CreateObject();
	time_t t;

	policy_factors_text(r->factors, ftext, sizeof(ftext));
	cJSON_AddNumberToObject(o, "id", (double)r->id);
	cJSON_AddStringToObject(o, "scope", r->scope);
	cJSON_AddStringToObject(o, "match", r->match);
	cJSON_AddStringToObject(o, "tool", r->tool);
	cJSON_AddStringToObject(o, "approver", r->approver);
	cJSON_AddNumberToObject(o, "created", (double)r->created);
	cJSON_AddNumberToObject(o, "expires", (double)r->expires);
	cJSON_AddBoolToObject(o, "expired", r->expires && r->expires <= l->now);
	cJSON_AddNumberToObject(o, "uses", (double)r->uses);
	cJSON_AddNumberToObject(o, "last_used", (double)r->last_used);
	cJSON_AddStringToObject(o, "risk", policy_risk_name(r->risk));
	cJSON_AddStringToObject(o, "factors", ftext);
	cJSON_AddItemToArray(l->arr, o);
	if (l->json)
		return;
	if (r->expires) {
		t = (time_t)r->expires;
		strftime(when, sizeof(when), "%Y-%m-%d %H:%M", localtime(&t));
	} else {
		snprintf(when, sizeof(when), "never");
	}
	printf("%4lld  %-6s %-40s up to %s%s%s%s, by %-10s expires %s%s, used %lld "
	    "time(s)\n", (long long)r->id, display_tmp(r->scope),
	    display_tmp_width(r->match, 40), policy_risk_name(r->risk), ftext[0] ? " (" : "",
	    ftext, ftext[0] ? ")" : "", display_tmp(r->approver), when,
	    r->expires && r->expires <= l->now ? " (expired)" : "", (long long)r->uses);
}

static int
list(const char *folder, int json)
{
	struct sbx_err err;
	struct listing l = { .json = json, .now = now_ms() / 1000 };
	sqlite3 *db = store_open_ro(folder, &err);
	int n;

	if (!db) {
		fprintf(stderr, "sbx: %s (has sbxd run here yet?)\n", err.msg);
		return 1;
	}
	l.arr = cJSON_CreateArray();
	if ((n = store_rules_each(db, list_one, &l)) < 0) {
		fprintf(stderr, "sbx: database: %s\n", sqlite3_errmsg(db));
		cJSON_Delete(l.arr);
		db_close(db);
		return 1;
	}
	db_close(db);
	if (json) {
		char *s = cJSON_Print(l.arr);

		printf("%s\n", s ? s : "[]");
		free(s);
	} else if (n == 0) {
		printf("no remembered rules\n");
	}
	cJSON_Delete(l.arr);
	return 0;
}

static void
explain_rule(void *ctx, const struct rule_info *ri)
{
	char ftext[256];

	(void)ctx;
	policy_factors_text(ri->factors, ftext, sizeof(ftext));
	printf("  rule %lld (%s \"%s\", approved at %s%s%s): %s\n", (long long)ri->id,
	    ri->scope, display_tmp_width(ri->match, 60), policy_risk_name(ri->risk),
	    ftext[0] ? ": " : "", ftext, db_rule_verdict_text(ri->verdict));
}

/*
 * sbx rules test 'COMMAND' [--cwd DIR]: which remembered rule would
 * approve this Bash command now, and why each rule would or would not.
 * Exit 0 when a rule covers it, 1 when none does (a human is asked).
 */
static int
rules_test(const struct sbx_ctx *c, const char *folder, const char *cmd,
    const char *cwd_arg)
{
	char msg[600], cwd[PATH_MAX], ftext[256], hash_hex[2 * SBX_HASH_LEN + 1];
	unsigned char hash[SBX_HASH_LEN];
	struct policy_result pr;
	struct policy_call call;
	struct rule_query q;
	struct sbx_err err;
	struct policy *pol;
	const char *ask;
	char *who = NULL;
	cJSON *input;
	sqlite3 *db;
	int64_t rule;
	int needed;

	if (cwd_arg) {
		if (!realpath(cwd_arg, cwd)) {
			fprintf(stderr, "sbx: %s: %s\n", cwd_arg, strerror(errno));
			return 1;
		}
	} else {
		snprintf(cwd, sizeof(cwd), "%s", folder);
	}
	if (!(pol = policy_load_accepted(folder, c->config, msg, sizeof(msg)))) {
		fprintf(stderr, "sbx: %s\n", msg);
		return 1;
	}
	input = cJSON_CreateObject();
	cJSON_AddStringToObject(input, "command", cmd);
	call = (struct policy_call){ .tool = "Bash", .input = input, .cwd = cwd,
		.folder = folder, .home = getenv("HOME"), .config_dir = c->config };
	policy_eval(pol, &call, &pr);
	needed = policy_approvals_needed(pol, &call, &pr);
	ask = policy_always_ask(pol, cmd);
	policy_factors_text(pr.factors, ftext, sizeof(ftext));
	printf("command: %s\npolicy:  %s, risk %s%s%s%s\n", display_tmp(cmd),
	    policy_verdict_name(pr.verdict), policy_risk_name(pr.risk), ftext[0] ? " (" : "",
	    ftext, ftext[0] ? ")" : "");
	if (ask)
		printf("always_ask: matches \"%s\": no rule covers it\n", display_tmp(ask));
	if (pr.verdict != POLICY_ESCALATE || needed > 1) {
		printf("no rule applies: %s\n", pr.verdict == POLICY_ALLOW ? "the policy allows "
		    "it without asking" : pr.verdict == POLICY_DENY ? "the policy denies it; no "
		    "rule can approve it" : "it needs two approvers each time (two_approvers)");
		cJSON_Delete(input);
		policy_free(pol);
		return pr.verdict == POLICY_ALLOW ? 0 : 1;
	}
	if (request_hash("Bash", input, folder, cwd, hash) < 0) {
		fprintf(stderr, "sbx: cannot hash the command\n");
		cJSON_Delete(input);
		policy_free(pol);
		return 1;
	}
	hex_encode(hash_hex, hash, sizeof(hash));
	cJSON_Delete(input);
	if (!(db = store_open_ro(folder, &err))) {
		fprintf(stderr, "sbx: %s (has sbxd run here yet?)\n", err.msg);
		policy_free(pol);
		return 1;
	}
	q = (struct rule_query){ .hash = hash_hex, .tool = "Bash", .command = cmd,
		.now = now_ms() / 1000, .risk = (int)pr.risk, .factors = pr.factors,
		.always_ask = ask };
	rule = db_rule_match(db, &q, &who, explain_rule, NULL);
	if (rule)
		printf("covered by rule %lld (approved by %s): sbxd would run it without "
		    "asking\n", (long long)rule, display_tmp(who));
	else
		printf("no rule covers it: a human will be asked\n");
	free(who);
	db_close(db);
	policy_free(pol);
	return rule ? 0 : 1;
}

int
cmd_rules(struct sbx_ctx *c, int argc, char **argv)
{
	static const struct option opts[] = {
		SBX_OPTS_COMMON, { "json", no_argument, NULL, 'j' },
		{ "for", required_argument, NULL, 'f' }, { "cwd", required_argument, NULL, 'w' },
		{ NULL, 0, NULL, 0 },
	};
	char folder[PATH_MAX];
	long long dur = 0;
	const char *for_arg = NULL, *cwd_arg = NULL;
	char *end;
	long long id;
	int json = 0, quit;

	const struct sub_str strs[] = { { 'f', &for_arg }, { 'w', &cwd_arg }, { 0, NULL } };

	if ((quit = sub_opts_str(c, argc, argv, opts, strs, use, &json)) >= 0)
		return quit;
	/* The operands, as argv[1..]: the verb and its words. */
	argv += optind - 1;
	argc -= optind - 1;
	if (ctx_folder(c, folder, sizeof(folder)) < 0)
		return 1;
	if (argc < 2 || !strcmp(argv[1], "list"))
		return argc <= 2 && !for_arg ? list(folder, json) : usage(0);
	if (json)
		return usage(0);
	if (!strcmp(argv[1], "add") && argc == 3) {
		if (!prefix_valid(argv[2])) {
			fprintf(stderr, "sbx: a rule needs at least two words and no shell syntax "
			    "(\"git push\" yes, \"git\" no)\n");
			return 2;
		}
		if (for_arg && (dur = parse_duration(for_arg)) < 0)
			return usage(0);
		if (rule_write(c, folder, "rule", argv[2], dur ? now_ms() / 1000 + dur : 0, 0))
			return 1;
		printf("sent to sbxd: remember Bash commands starting with \"%s\"%s\n",
		    display_tmp(argv[2]),
		    dur ? " for a while" : "");
		return 0;
	}
	if (!strcmp(argv[1], "test") && argc == 3 && !for_arg)
		return rules_test(c, folder, argv[2], cwd_arg);
	if (cwd_arg)
		return usage(0);
	if (!strcmp(argv[1], "rm") && argc == 3 && !for_arg) {
		id = strtoll(argv[2], &end, 10);
		if (id <= 0 || *end)
			return usage(0);
		if (rule_write(c, folder, "revoke", NULL, 0, id))
			return 1;
		printf("sent to sbxd: forget rule %lld\n", id);
		return 0;
	}
	return usage(0);
}
