/*
 * cmd_queue.c - `sbx pending`, `show`, `approve`, `deny`: the approver's
 * commands for scripts and for SSH. They read state.db read-only and
 * write only signed decision files into .sandbox/decisions/.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <time.h>
#include <unistd.h>

#include "approver/cmd.h"
#include "approver/sign.h"
#include "common/base/display.h"
#include "common/base/json.h"
#include "common/protocol/queue.h"
#include "common/store/db.h"
#include "common/store/retention.h"
#include "common/store/store.h"

int
ctx_folder(const struct sbx_ctx *c, char *out, unsigned long outsz)
{
	const char *start = c->dir ? c->dir : ".";

	if (find_folder(start, out, outsz) < 0) {
		fprintf(stderr, "sbx: no .sandbox/ at or above %s (run `sbx init DIR`, or "
		    "use -C DIR)\n", start);
		return -1;
	}
	return 0;
}

static sqlite3 *
open_db(const char *folder)
{
	struct sbx_err err;
	sqlite3 *db = store_open_ro(folder, &err);

	if (!db)
		fprintf(stderr, "sbx: %s (has sbxd run for %s yet? start `sbxd %s`)\n",
		    err.msg, folder, folder);
	return db;
}

/* 1 when an sbxd serves the folder (sbxd_holder, the one test of it). */
static int
sbxd_serves(const char *folder)
{
	struct sbx_err err;
	int sbfd = sandbox_open(folder, &err), held;

	if (sbfd < 0)
		return 0;
	held = sbxd_holder(sbfd) > 0;
	close(sbfd);
	return held;
}

/* Resolves a full id or a unique prefix of at least 4 digits. */
static int
resolve_id(sqlite3 *db, const char *folder, const char *arg, char id[SBX_ID_LEN + 1])
{
	int n;

	if (strlen(arg) < 4 || strlen(arg) > SBX_ID_LEN || !is_hex(arg, strlen(arg))) {
		fprintf(stderr, "sbx: \"%s\" is not a request id (16 hex digits, or a unique "
		    "prefix of 4 or more)\n", arg);
		return -1;
	}
	if ((n = store_request_by_prefix(db, arg, id)) < 0) {
		fprintf(stderr, "sbx: database: %s\n", sqlite3_errmsg(db));
		return -1;
	}
	if (n == 0 && sbxd_serves(folder))
		fprintf(stderr, "sbx: no such request: %s (see `sbx pending`)\n", arg);
	else if (n == 0)
		fprintf(stderr, "sbx: no request %s known to sbxd, and sbxd is not running "
		    "for %s: start `sbxd %s`, then see `sbx pending`\n", arg, folder, folder);
	else if (n > 1)
		fprintf(stderr, "sbx: %s matches several requests; give more digits\n", arg);
	return n == 1 ? 0 : -1;
}

static cJSON *
row_json(const struct req_row *r)
{
	cJSON *o = cJSON_CreateObject();

	if (!o)
		return NULL;
	cJSON_AddStringToObject(o, "id", r->id);
	cJSON_AddStringToObject(o, "status", r->status);
	cJSON_AddStringToObject(o, "tool", r->tool);
	if (r->command)
		cJSON_AddStringToObject(o, "command", r->command);
	cJSON_AddItemToObject(o, "input", cJSON_Parse(r->input ? r->input : "{}"));
	cJSON_AddStringToObject(o, "cwd", r->cwd ? r->cwd : "");
	cJSON_AddStringToObject(o, "reason", r->reason ? r->reason : "");
	cJSON_AddStringToObject(o, "rule", r->rule ? r->rule : "");
	cJSON_AddStringToObject(o, "trigger", r->trigger ? r->trigger : "");
	cJSON_AddStringToObject(o, "session", r->session ? r->session : "");
	cJSON_AddStringToObject(o, "agent", r->agent ? r->agent : "");
	cJSON_AddStringToObject(o, "hash", r->hash);
	cJSON_AddNumberToObject(o, "created", (double)r->created);
	cJSON_AddNumberToObject(o, "expires", (double)r->expires);
	cJSON_AddBoolToObject(o, "auto_approved", r->is_auto);
	cJSON_AddNumberToObject(o, "approvals_needed", r->approvals_needed ? r->approvals_needed : 1);
	if (r->approved_by)
		cJSON_AddStringToObject(o, "approved_by", r->approved_by);
	if (r->approver)
		cJSON_AddStringToObject(o, "approver", r->approver);
	if (r->deny_reason)
		cJSON_AddStringToObject(o, "deny_reason", r->deny_reason);
	if (r->finished) {
		if (r->exit_code >= 0)
			cJSON_AddNumberToObject(o, "exit_code", (double)r->exit_code);
		cJSON_AddNumberToObject(o, "signal", (double)r->signal);
		cJSON_AddNumberToObject(o, "duration_ms", (double)r->duration_ms);
		cJSON_AddNumberToObject(o, "finished", (double)r->finished);
	}
	return o;
}

static void
print_json(cJSON *v)
{
	char *s = cJSON_Print(v);

	if (s)
		printf("%s\n", s);
	free(s);
	cJSON_Delete(v);
}

static const char *
what(const struct req_row *r)
{
	return r->command ? r->command : r->input ? r->input : "";
}

/* Requests dropped by agents that sbxd has not claimed yet. */
static int
unclaimed(const char *folder)
{
	char path[PATH_MAX + 32], id[SBX_ID_LEN + 1];
	struct dirent *de;
	DIR *d;
	int n = 0;

	snprintf(path, sizeof(path), "%s/.sandbox/queue/new", folder);
	if (!(d = opendir(path)))
		return 0;
	while ((de = readdir(d)))
		n += valid_request_name(de->d_name, id);
	closedir(d);
	return n;
}

#define AUTO_LOOK 200

int
cmd_pending(struct sbx_ctx *c, int argc, char **argv)
{
	char folder[PATH_MAX];
	struct req_row *rows;
	sqlite3 *db;
	int json = 0, n, i, queued;
	int64_t now = now_ms() / 1000;
	cJSON *arr;

	static const char use[] = "usage: sbx [-C DIR] pending [--json]\n";

	if ((i = sub_opts_json(c, argc, argv, use, &json)) >= 0)
		return i;
	if (optind < argc)
		return sub_usage(use, 0);
	if (ctx_folder(c, folder, sizeof(folder)) < 0 || !(db = open_db(folder)))
		return 1;
	n = db_list(db, req_status_name(REQ_PENDING), -1, &rows);
	if (n < 0) {
		fprintf(stderr, "sbx: database: %s\n", sqlite3_errmsg(db));
		db_close(db);
		return 1;
	}
	queued = unclaimed(folder);
	if (json) {
		arr = cJSON_CreateArray();
		for (i = 0; i < n; i++)
			cJSON_AddItemToArray(arr, row_json(&rows[i]));
		print_json(arr);
	} else {
		if (n == 0)
			printf("no pending requests in %s\n", folder);
		for (i = 0; i < n; i++) {
			printf("%s  %4llds ago  %-8s %s\n", rows[i].id,
			    (long long)(now - rows[i].created), display_tmp(rows[i].tool),
			    display_tmp(what(&rows[i])));
			printf("%16s  why: %s\n", "", display_tmp(rows[i].reason));
			if (request_opens(rows[i].tool))
				printf("%16s  %s: %s, session %s (%s)\n", "",
				    display_tmp(rows[i].tool), display_tmp(what(&rows[i])),
				    rows[i].session ? display_tmp(rows[i].session) : "-",
				    strcmp(rows[i].tool, "network") ? "approving lets the agent's "
				    "identical retry run once; sbxd runs nothing" : "approving opens "
				    "it; nothing runs");
			if (rows[i].approvals_needed > 1)
				printf("%16s  needs two approvers; approved so far by: %s\n", "",
				    rows[i].approved_by ? display_tmp(rows[i].approved_by) : "nobody");
		}
		db_rows_free(rows, n);
		/* The quieter list: what remembered approvals ran lately, among
		 * the latest AUTO_LOOK requests (said when it may be more). */
		n = db_list(db, NULL, AUTO_LOOK, &rows);
		for (int k = 0, shown = 0; k < n; k++) {
			if (!rows[k].is_auto || now - rows[k].created > 3600)
				continue;
			if (!shown++)
				printf("\nauto-approved in the last hour (remembered):\n");
			printf("%s  %-11s %-8s %s\n", rows[k].id, rows[k].status,
			    display_tmp(rows[k].tool), display_tmp(what(&rows[k])));
		}
		if (n == AUTO_LOOK && now - rows[0].created <= 3600)
			printf("(only the latest %d requests were looked at; `sbx history` has "
			    "them all)\n", AUTO_LOOK);
	}
	if (n > 0)
		db_rows_free(rows, n);
	if (queued)
		fprintf(stderr, "sbx: %d request(s) not yet picked up by sbxd; is `sbxd %s` "
		    "running?\n", queued, folder);
	db_close(db);
	return 0;
}

int
cmd_show(struct sbx_ctx *c, int argc, char **argv)
{
	char folder[PATH_MAX], id[SBX_ID_LEN + 1], path[PATH_MAX + 64];
	struct req_row r;
	struct sbx_err err;
	const char *arg = NULL;
	sqlite3 *db;
	cJSON *o, *res = NULL;
	size_t len;
	char *text;
	int json = 0, i, rc = 1, sbfd;
	int64_t pruned;
	const char *pruned_why = "days";

	static const char use[] = "usage: sbx [-C DIR] show ID [--json]\n";

	if ((i = sub_opts_json(c, argc, argv, use, &json)) >= 0)
		return i;
	if (optind != argc - 1)
		return sub_usage(use, 0);
	arg = argv[optind];
	if (ctx_folder(c, folder, sizeof(folder)) < 0 || !(db = open_db(folder)))
		return 1;
	if (resolve_id(db, folder, arg, id) < 0 || db_get(db, id, &r) != 1)
		goto out;
	if ((sbfd = sandbox_open(folder, &err)) >= 0) {
		snprintf(path, sizeof(path), "%s", queue_path(QP_RESULT, id).s);
		if ((text = read_daemon_file(sbfd, path, SBX_MAX_RESULT, &len, &err))) {
			res = cJSON_ParseWithLength(text, len);
			free(text);
		}
		close(sbfd);
	}
	pruned = res ? 0 : retention_pruned_at(db, id, &pruned_why);
	if (json) {
		o = row_json(&r);
		if (res)
			cJSON_AddItemToObject(o, "result", res);
		if (pruned) {
			cJSON_AddNumberToObject(o, "output_pruned", (double)pruned);
			cJSON_AddStringToObject(o, "output_pruned_by", !strcmp(pruned_why, "size")
			    ? "keep_results_mb" : "keep_results_days");
		}
		print_json(o);
	} else {
		/* Everything the agent wrote is shown through common/base/display. */
		printf("request  %s\nstatus   %s%s\nfolder   %s\ncwd      %s\ntool     %s\n",
		    r.id, r.status, r.is_auto ? " (auto-approved: remembered)" : "",
		    display_tmp(folder), display_tmp(r.cwd), display_tmp(r.tool));
		if (!strcmp(r.status, req_status_name(REQ_RUNNING)) && r.started == 0)
			printf("         approved; waiting for a free slot (sbxd runs at most 64 "
			    "commands at once per folder)\n");
		printf("%s  %s\n", r.command ? "command " : "input   ", display_tmp(what(&r)));
		printf("why      %s\nrule     %s\n", display_tmp(r.reason), display_tmp(r.rule));
		if (r.approver)
			printf("decided  by %s\n", display_tmp(r.approver));
		if (r.deny_reason)
			printf("reason   %s\n", display_tmp(r.deny_reason));
		if (res) {
			int64_t code = -1, sig = 0, ms = 0;

			json_int(res, "exit_code", &code);
			json_int(res, "signal", &sig);
			json_int(res, "duration_ms", &ms);
			if (request_opens(r.tool))
				printf("result   %s (nothing is executed for a %s request)\n",
				    json_str(res, "status") ? display_tmp(json_str(res, "status")) : "?",
				    display_tmp(r.tool));
			else
				printf("result   %s, exit %lld, signal %lld, %lld ms\n",
				    json_str(res, "status") ? display_tmp(json_str(res, "status")) : "?",
				    (long long)code, (long long)sig, (long long)ms);
			if (json_str(res, "stdout") && *json_str(res, "stdout"))
				printf("--- stdout ---\n%s\n", display_tmp_lines(json_str(res, "stdout")));
			if (json_str(res, "stderr") && *json_str(res, "stderr"))
				printf("--- stderr ---\n%s\n", display_tmp_lines(json_str(res, "stderr")));
			cJSON_Delete(res);
		}
		if (pruned) {
			time_t t = (time_t)pruned;
			char when[32];

			strftime(when, sizeof(when), "%Y-%m-%d %H:%M:%S", localtime(&t));
			printf("output   pruned on %s (limits.%s); the audit log keeps its hashes: "
			    "sbx audit show --request %s\n", when, !strcmp(pruned_why, "size")
			    ? "keep_results_mb: the oldest delivered output goes first" :
			    "keep_results_days", id);
		}
	}
	req_row_free(&r);
	rc = 0;
out:
	db_close(db);
	return rc;
}

int
cmd_decide(struct sbx_ctx *c, int argc, char **argv)
{
	char folder[PATH_MAX], id[SBX_ID_LEN + 1];
	int approve = !strcmp(argv[0], "approve");
	struct sbx_err err;
	struct req_row r = { 0 };
	const char *arg = NULL, *reason = "";
	sqlite3 *db = NULL;
	int i, remember = 0, ttl = 1800, rc = 1, quit;
	const char *prefix = NULL;
	long long dur = 0;

	static const struct option opts_approve[] = {
		SBX_OPTS_COMMON, { "remember", no_argument, NULL, 'r' },
		{ "prefix", required_argument, NULL, 'p' }, { "for", required_argument, NULL, 'f' },
		{ "ttl", required_argument, NULL, 't' }, { NULL, 0, NULL, 0 },
	}, opts_deny[] = {
		SBX_OPTS_COMMON, { "reason", required_argument, NULL, 'R' },
		{ "ttl", required_argument, NULL, 't' }, { NULL, 0, NULL, 0 },
	};
	const char *use = approve ? "usage: sbx [-C DIR] approve ID [--remember [--prefix "
	    "'WORD WORD...'] [--for DURATION]] [--ttl SECONDS]\n"
	    : "usage: sbx [-C DIR] deny ID [--reason TEXT] [--ttl SECONDS]\n";

	while ((i = getopt_long(argc, argv, "C:h", approve ? opts_approve : opts_deny,
	    NULL)) != -1) {
		if (i == 'r')
			remember = 1;
		else if (i == 'p')
			prefix = optarg, remember = 1;
		else if (i == 'f' && (dur = parse_duration(optarg)) >= 0)
			;
		else if (i == 'R')
			reason = optarg;
		else if (i == 't' && (ttl = atoi(optarg)) > 0)
			;
		else if ((quit = sub_opt_common(c, i, use)) >= 0)
			return quit;
	}
	if (optind != argc - 1)
		return sub_usage(use, 0);
	arg = argv[optind];
	if (strlen(reason) >= sizeof(((struct decision *)0)->reason)) {
		fprintf(stderr, "sbx: the reason is too long (at most %zu bytes)\n",
		    sizeof(((struct decision *)0)->reason) - 1);
		return 2;
	}
	if (ctx_folder(c, folder, sizeof(folder)) < 0 || !(db = open_db(folder)))
		return 1;
	if (resolve_id(db, folder, arg, id) < 0 || db_get(db, id, &r) != 1)
		goto out;
	if (strcmp(r.status, req_status_name(REQ_PENDING)) != 0) {
		fprintf(stderr, "sbx: request %s is %s, not pending\n", id, r.status);
		goto out;
	}
	if (decision_write(c->config, folder, &r, approve, remember, prefix,
	    remember && dur ? now_ms() / 1000 + dur : 0, reason, ttl, &err) < 0) {
		fprintf(stderr, "sbx: %s\n", err.msg);
		goto out;
	}
	printf("%s %s%s%s%s: %s\n", approve ? "approved" : "denied", id,
	    !remember ? "" : prefix ? " (remembered: commands starting with \"" :
	    " (remembered: the same call will run without asking)",
	    prefix ? display_tmp(prefix) : "",
	    remember && prefix ? "\" will run without asking)" : "", display_tmp(what(&r)));
	rc = 0;
out:
	req_row_free(&r);
	db_close(db);
	return rc;
}

/* Whether name is one of the "+"-separated approvers in list. */
static int
approved_by_name(const char *list, const char *name)
{
	size_t n = strlen(name);
	const char *p = list;

	while (p && *p) {
		if (!strncmp(p, name, n) && (p[n] == '+' || p[n] == '\0'))
			return 1;
		p = strchr(p, '+');
		p = p ? p + 1 : NULL;
	}
	return 0;
}

long long
parse_duration(const char *s)
{
	char *end;
	long long v;

	if (!s || !*s)
		return -1;
	v = strtoll(s, &end, 10);
	if (v <= 0 || end == s)
		return -1;
	switch (*end) {
	case '\0': case 's': break;
	case 'm': v *= 60; break;
	case 'h': v *= 3600; break;
	case 'd': v *= 86400; break;
	default: return -1;
	}
	return *end && end[1] ? -1 : v;
}

int
decision_write(const char *config, const char *folder, const struct req_row *r,
    int approve, int remember, const char *prefix, long long rule_expires,
    const char *reason, int ttl, struct sbx_err *err)
{
	struct approver_key key;
	struct decision d;
	struct queue_path dst;
	char stem[64], *text = NULL;
	int sbfd, rc = -1;

	/* sbxd's expiry pass may not have run yet: an expired request is
	 * never decided (sbxd refuses it too, when it consumes a decision). */
	if (r->expires <= now_ms() / 1000) {
		err_set(err, "request %s expired %llds ago, not pending; it will not run",
		    r->id, (long long)(now_ms() / 1000 - r->expires));
		return -1;
	}
	if (approver_key_load(config, &key, err) < 0)
		return -1;
	if (approve && r->approvals_needed > 1 && approved_by_name(r->approved_by, key.name)) {
		err_set(err, "%s approved request %s already; dual control needs a second, "
		    "different approver", key.name, r->id);
		approver_key_wipe(&key);
		return -1;
	}
	memset(&d, 0, sizeof(d));
	snprintf(d.id, sizeof(d.id), "%s", r->id);
	if (hex_decode(d.hash, SBX_HASH_LEN, r->hash) < 0) {
		err_set(err, "request %s has a malformed hash in the database", r->id);
		approver_key_wipe(&key);
		return -1;
	}
	snprintf(d.verdict, sizeof(d.verdict), "%s", approve ? "approve" : "deny");
	d.remember = remember;
	snprintf(d.scope, sizeof(d.scope), "%s", prefix ? "prefix" : "exact");
	d.rule_expires = rule_expires;
	if (prefix && request_opens(r->tool)) {
		err_set(err, "a %s request is remembered exactly (this very call); "
		    "a prefix is for shell commands", r->tool);
		approver_key_wipe(&key);
		return -1;
	}
	if (xsnprintf(d.prefix, sizeof(d.prefix), "%s", prefix ? prefix : "") < 0 ||
	    (prefix && !prefix_covers(prefix, r->command))) {
		err_set(err, "the prefix \"%s\" must be at least two words that start the "
		    "command, and the command must have no shell syntax (; & | $ ...)",
		    prefix ? prefix : "");
		approver_key_wipe(&key);
		return -1;
	}
	if (xsnprintf(d.reason, sizeof(d.reason), "%s", reason ? reason : "") < 0) {
		err_set(err, "the reason is too long");
		approver_key_wipe(&key);
		return -1;
	}
	rc = decision_sign(&d, &key, ttl);
	approver_key_wipe(&key);
	if (rc < 0 || !(text = decision_to_json(&d))) {
		err_set(err, "cannot sign the decision");
		return -1;
	}
	rc = -1;
	if ((sbfd = sandbox_open(folder, err)) >= 0) {
		snprintf(stem, sizeof(stem), "%s.%s", r->id, d.nonce);
		dst = queue_path(QP_DECISION, stem);
		if (write_atomic(sbfd, "decisions/tmp", dst.s, text, strlen(text), 0600, 1) < 0)
			err_set(err, "cannot write %s/.sandbox/%s: %s", folder, dst.s, strerror(errno));
		else
			rc = 0;
		close(sbfd);
	}
	free(text);
	return rc;
}
