/*
 * load.c - reads policy.json over the built-in defaults (see policy.h),
 * and shows the effective policy as JSON.
 *
 * Layer: tables (see docs/ARCHITECTURE.md). Includes policy/rules.h only.
 *
 * Rules:
 * - A present policy file MUST be read strictly: empty, unreadable, not
 *   JSON, unknown or duplicate keys, wrong types, out-of-range limits and
 *   malformed rules are errors naming the file and line. Never a silent
 *   fall-back to the defaults.
 * - policy.json is opened with O_NOFOLLOW and checked with fstat on the
 *   same descriptor: a regular file of at most POLICY_MAX_FILE bytes.
 * - Self-protection rules are added on every load, after the file, and
 *   are checked before any rule the file can write.
 */
#include "policy/rules.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define POLICY_MAX_FILE         (256 * 1024)
#define POLICY_MAX_ENTRIES      1024    /* per list */

/* ---- the built-in defaults ------------------------------------------- */

/* Reads a careful user keeps from the agent (escalated). */
static const char *const builtin_deny_read[] = {
	"~/.ssh", "~/.aws", "~/.kube", "~/.gnupg", "~/.config/sbx",
	"~/.docker/config.json", "~/.netrc", "~/.git-credentials",
	"~/.config/gh/hosts.yml", "~/.pgpass", "~/.npmrc", "~/.pypirc",
	"/**/.env*", "/**/*.pem", "/**/*.key", "/**/id_rsa*", "/**/id_dsa*",
	"/**/id_ecdsa*", "/**/id_ed25519*", "/etc/shadow", "/etc/gshadow",
	"/etc/sudoers", "~/.claude/.credentials.json", "~/.codex/auth.json",
	"~/.config/gcloud", "~/.azure", "/**/auth.json", "/**/.credentials.json",
	"/**/.npmrc", "/**/.pypirc", "/**/.netrc", "/proc/*/environ",
	"/proc/*/mem", "/proc/*/task/*/environ", "/proc/*/task/*/mem",
	"/proc/thread-self/environ", "/proc/*/auxv",
	"~/.claude.json", "~/.config/git/credentials", "~/.cargo/credentials",
	"~/.cargo/credentials.toml", "~/.vault-token", "/etc/ssh/ssh_host_*_key",
	"/etc/shadow-", "/etc/gshadow-", "/etc/sudoers.d", "~/.config/rclone",
	"~/.terraform.d/credentials.tfrc.json", "~/.gem/credentials",
	"~/.m2/settings.xml", "~/.m2/settings-security.xml",
	"~/.config/github-copilot", "~/.config/hub", "~/.password-store",
	"~/.local/share/keyrings", "~/.gradle/gradle.properties",
	"~/.config/op", "~/.bash_history", "~/.zsh_history",
	"~/.python_history", "~/.node_repl_history", "~/.psql_history",
	"~/.mysql_history", "~/.config/Code/User/globalStorage", NULL,
};

/* Writes inside the project that run code later, for the agent or for the
 * human, are escalated: git hooks and config (and anything named .git),
 * direnv, husky, editor task
 * and settings files (.vscode, .idea), version managers' hooks (mise,
 * asdf), pre-commit, dev containers. The jail reads this list, the
 * self-protection list and denyRead (policy_to_json) to build its mounts. */
static const char *const builtin_deny_write[] = {
	"./.git/hooks", "./.git/config", "./.envrc", "./.husky",
	"./.vscode", "./.idea", "./.mise.toml", "./mise.toml", "./.mise",
	"./.config/mise", "./.tool-versions", "./.git/info",
	"/**/.git/config", "/**/.git/hooks",
	"./.pre-commit-config.yaml", "./.devcontainer",
	/* any .git: a gitfile ("gitdir: ../x") names a repository whose
	 * config git then obeys, and so do commondir and worktrees/ */
	"/**/.git", NULL,
};

/* Self-protection: writes by any tool are denied, whatever the file says. */
static const char *const builtin_self_write[] = {
	"./.sandbox", "./.claude/settings*.json", "./.mcp.json", "./.codex",
	"./.cursor/hooks.json", "./.cursor/mcp.json", "~/.claude/settings*.json",
	"~/.codex", "~/.cursor/hooks.json", "~/.cursor/mcp.json", "~/.config/sbx",
	"./.gemini/settings.json", "~/.gemini/settings.json", "~/.gemini/trustedFolders.json",
	"/**/bin/sbx",
	"/**/bin/sbx-hook", "/**/bin/sbx-mcp", "/**/bin/sbxd", NULL,
};

/* Tools of the agent itself that touch nothing outside its own state. */
static const char *const builtin_allow_tools[] = {
	"Task", "Agent", "TodoWrite", "TodoRead", "ExitPlanMode", "BashOutput",
	"KillShell", "KillBash", "mcp__sbx__*", NULL,
};

static const char default_text[] =
	"{\n"
	"  \"version\": 1,\n"
	"  \"comment\": \"sbx policy: see docs/POLICY.md. Built-in defaults and "
	"self-protection always apply.\",\n"
	"  \"allow\": [],\n"
	"  \"escalate\": [],\n"
	"  \"deny\": [],\n"
	"  \"filesystem\": {\n"
	"    \"denyRead\": [],\n"
	"    \"allowRead\": [],\n"
	"    \"allowWrite\": [],\n"
	"    \"denyWrite\": []\n"
	"  },\n"
	"  \"network\": {\n"
	"    \"allowedDomains\": [],\n"
	"    \"deniedDomains\": []\n"
	"  },\n"
	"  \"limits\": {\n"
	"    \"hook_wait_seconds\": 300,\n"
	"    \"max_pending\": 20,\n"
	"    \"max_per_minute\": 30,\n"
	"    \"request_ttl_seconds\": 3600,\n"
	"    \"exec_timeout_seconds\": 600,\n"
	"    \"output_cap_bytes\": 1048576\n"
	"  }\n"
	"}\n";

const char *
policy_default_text(void)
{
	return default_text;
}

/* ---- loading ------------------------------------------------------------ */

static void
plist_free(struct plist *l)
{
	int k;

	for (k = 0; k < l->n; k++)
		free(l->v[k]);
	free(l->v);
	l->v = NULL;
	l->n = 0;
}

static int
plist_add(struct plist *l, const char *s)
{
	char **nv, *d;

	d = strdup(s);
	if (d == NULL)
		return -1;
	/* room for 8, then doubled at each power of two: the built-in
	 * lists (about 100 entries a load) no longer cost a realloc each */
	if (l->n == 0 || (l->n >= 8 && (l->n & (l->n - 1)) == 0)) {
		nv = realloc(l->v, (size_t)(l->n == 0 ? 8 : 2 * l->n) * sizeof(*nv));
		if (nv == NULL) {
			free(d);
			return -1;
		}
		l->v = nv;
	}
	l->v[l->n++] = d;
	return 0;
}

/* Adds every string of the NULL-terminated v, then also (when not NULL). */
static int
plist_add_all(struct plist *l, const char *const *v, const char *also)
{
	for (; *v != NULL; v++)
		if (plist_add(l, *v) < 0)
			return -1;
	return also != NULL ? plist_add(l, also) : 0;
}

void
policy_free(struct policy *p)
{
	int k;

	if (p == NULL)
		return;
	policy_cache_free(p);
	for (k = 0; k < p->nrules; k++) {
		free(p->rules[k].text);
		free(p->rules[k].arg);
	}
	free(p->rules);
	plist_free(&p->deny_read);
	plist_free(&p->allow_read);
	plist_free(&p->allow_write);
	plist_free(&p->deny_write);
	plist_free(&p->allowed_domains);
	plist_free(&p->denied_domains);
	plist_free(&p->self_write);
	plist_free(&p->dual_bash);
	plist_free(&p->always_ask);
	free(p->name);
	free(p->folder);
	free(p->config_dir);
	free(p->rhome_in);
	free(p->rhome);
	free(p->seed);
	pol_walks_free(p);
	free(p);
}

int
policy_net_ask_timeout(const struct policy *p)
{
	return p != NULL ? p->net_ask_timeout : POLICY_NET_ASK_TIMEOUT;
}

const struct policy_limits *
policy_limits(const struct policy *p)
{
	static const struct policy_limits defaults = {
		300, 20, 30, 3600, 600, 1048576L, 600, 4294967296LL, 512, 30, 1024,
	};

	return p != NULL ? &p->limits : &defaults;
}

__attribute__((format(printf, 2, 3)))
static void
perr_set(struct policy_error *err, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(err->msg, sizeof(err->msg), fmt, ap);
	va_end(ap);
}

/* Load-time context: where messages point. */
struct ld {
	const char *name;
	const char *text;
	size_t len;
	struct policy_error *err;
};

static int
line_at(const struct ld *ld, size_t off)
{
	size_t k;
	int line = 1;

	for (k = 0; k < off && k < ld->len; k++)
		if (ld->text[k] == '\n')
			line++;
	return line;
}

/* Offset of "key": at or after from, or from if not found. */
static size_t
key_offset(const struct ld *ld, const char *key, size_t from)
{
	size_t kl = strlen(key), k, j;

	for (k = from; k + kl + 2 <= ld->len; k++) {
		if (ld->text[k] != '"' || memcmp(ld->text + k + 1, key, kl) != 0 ||
		    ld->text[k + 1 + kl] != '"')
			continue;
		for (j = k + kl + 2; j < ld->len && isspace((unsigned char)ld->text[j]); j++)
			;
		if (j < ld->len && ld->text[j] == ':')
			return k;
	}
	return from;
}

__attribute__((format(printf, 3, 4)))
static int
ld_fail(const struct ld *ld, size_t off, const char *fmt, ...)
{
	char m[400];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(m, sizeof(m), fmt, ap);
	va_end(ap);
	perr_set(ld->err, "%s line %d: %s", ld->name, line_at(ld, off), m);
	return -1;
}

static size_t
edit_distance(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b), i, j, prev, cur, tmp;
	size_t row[64];

	if (la >= 63 || lb >= 63)
		return 99;
	for (j = 0; j <= lb; j++)
		row[j] = j;
	for (i = 1; i <= la; i++) {
		prev = row[0];
		row[0] = i;
		for (j = 1; j <= lb; j++) {
			cur = row[j];
			tmp = prev + (tolower((unsigned char)a[i - 1]) !=
			    tolower((unsigned char)b[j - 1]));
			if (row[j] + 1 < tmp)
				tmp = row[j] + 1;
			if (row[j - 1] + 1 < tmp)
				tmp = row[j - 1] + 1;
			row[j] = tmp;
			prev = cur;
		}
	}
	return row[lb];
}

static const char *
suggest(const char *got, const char *const *known)
{
	const char *best = NULL;
	size_t d, bd = 3;

	for (; *known != NULL; known++) {
		d = edit_distance(got, *known);
		if (d < bd) {
			bd = d;
			best = *known;
		}
	}
	return best;
}

/* Rejects unknown and duplicate keys of obj. */
static int
check_keys(const struct ld *ld, const cJSON *obj, const char *where,
    const char *const *known, size_t from)
{
	const cJSON *c, *d;
	const char *const *k;
	const char *hint;

	for (c = obj->child; c != NULL; c = c->next) {
		for (k = known; *k != NULL; k++)
			if (strcmp(c->string, *k) == 0)
				break;
		if (*k == NULL) {
			hint = suggest(c->string, known);
			if (hint != NULL)
				return ld_fail(ld, key_offset(ld, c->string, from),
				    "unknown key \"%s\" in %s (did you mean \"%s\"?)",
				    c->string, where, hint);
			return ld_fail(ld, key_offset(ld, c->string, from),
			    "unknown key \"%s\" in %s", c->string, where);
		}
		for (d = c->next; d != NULL; d = d->next)
			if (strcmp(c->string, d->string) == 0)
				return ld_fail(ld, key_offset(ld, c->string,
				    key_offset(ld, c->string, from) + 1),
				    "duplicate key \"%s\" in %s", c->string, where);
	}
	return 0;
}

static int
add_rule(struct policy *p, enum policy_verdict v, enum rule_kind kind,
    enum rule_origin origin, const char *text, const char *arg, size_t arglen)
{
	struct rule *nr, *r;

	nr = realloc(p->rules, (size_t)(p->nrules + 1) * sizeof(*nr));
	if (nr == NULL)
		return -1;
	p->rules = nr;
	r = &p->rules[p->nrules];
	memset(r, 0, sizeof(*r));
	r->verdict = v;
	r->kind = kind;
	r->origin = origin;
	r->text = strdup(text);
	r->arg = strndup(arg, arglen);
	if (r->text == NULL || r->arg == NULL) {
		free(r->text);
		free(r->arg);
		return -1;
	}
	if (kind == RK_BASH && arglen >= 2 && strcmp(r->arg + arglen - 2, ":*") == 0) {
		r->prefix = 1;
		r->arg[arglen - 2] = '\0';
		/* trailing spaces before :* mean nothing */
		while (arglen > 2 && r->arg[arglen - 3] == ' ')
			r->arg[--arglen - 2] = '\0';
	}
	p->nrules++;
	p->nkind[kind][v]++;
	return 0;
}

static const char *const rule_tools[] = {
	"Bash", "Read", "Edit", "Write", "MultiEdit", "NotebookEdit", "Glob",
	"Grep", "LS", "WebFetch", "WebSearch", "Task", "Agent", "TodoWrite",
	"ExitPlanMode", "BashOutput", "KillShell", NULL,
};

/* Parses one Claude-Code permission rule. */
static int
parse_rule(const struct ld *ld, struct policy *p, enum policy_verdict v,
    const char *s, size_t off)
{
	const char *open, *tool_end, *arg;
	char tool[64];
	size_t tl, al;
	const char *const *k;
	const char *hint;
	enum rule_kind kind;

	if (s[0] == '\0')
		return ld_fail(ld, off, "empty rule");
	if (strlen(s) > POLICY_MAX_ENTRY)
		return ld_fail(ld, off, "rule longer than %d bytes", POLICY_MAX_ENTRY);
	open = strchr(s, '(');
	tool_end = open ? open : s + strlen(s);
	tl = (size_t)(tool_end - s);
	if (tl == 0 || tl >= sizeof(tool))
		return ld_fail(ld, off, "rule \"%s\" has no tool name", s);
	memcpy(tool, s, tl);
	tool[tl] = '\0';
	if (strncmp(tool, "mcp__", 5) == 0) {
		if (open != NULL)
			return ld_fail(ld, off, "rule \"%s\": MCP tools take no "
			    "argument (write mcp__server__tool or mcp__server__*)", s);
		return add_rule(p, v, RK_TOOL, RO_FILE, s, s, tl) < 0 ?
		    ld_fail(ld, off, "out of memory") : 0;
	}
	for (k = rule_tools; *k != NULL; k++)
		if (strcmp(tool, *k) == 0)
			break;
	if (*k == NULL) {
		hint = suggest(tool, rule_tools);
		if (hint != NULL)
			return ld_fail(ld, off, "unknown tool \"%s\" in rule \"%s\" "
			    "(did you mean \"%s\"?)", tool, s, hint);
		return ld_fail(ld, off, "unknown tool \"%s\" in rule \"%s\"",
		    tool, s);
	}
	if (open == NULL) {
		if (v == POLICY_ALLOW && (strcmp(tool, "Bash") == 0 ||
		    strcmp(tool, "Read") == 0 || strcmp(tool, "Edit") == 0 ||
		    strcmp(tool, "Write") == 0 || strcmp(tool, "MultiEdit") == 0 ||
		    strcmp(tool, "NotebookEdit") == 0 ||
		    strcmp(tool, "WebFetch") == 0 || strcmp(tool, "Glob") == 0 ||
		    strcmp(tool, "Grep") == 0 || strcmp(tool, "LS") == 0))
			return ld_fail(ld, off, "rule \"%s\" would allow every %s "
			    "call; write %s(...) with a pattern", s, tool, tool);
		return add_rule(p, v, RK_TOOL, RO_FILE, s, s, tl) < 0 ?
		    ld_fail(ld, off, "out of memory") : 0;
	}
	al = strlen(open + 1);
	if (al == 0 || open[al] != ')')
		return ld_fail(ld, off, "rule \"%s\" must end with \")\"", s);
	arg = open + 1;
	al--;
	if (al == 0)
		return ld_fail(ld, off, "rule \"%s\" has an empty pattern", s);
	if (strcmp(tool, "Bash") == 0) {
		kind = RK_BASH;
	} else if (strcmp(tool, "Read") == 0 || strcmp(tool, "Glob") == 0 ||
	    strcmp(tool, "Grep") == 0 || strcmp(tool, "LS") == 0) {
		kind = RK_READ;
	} else if (strcmp(tool, "Edit") == 0 || strcmp(tool, "Write") == 0 ||
	    strcmp(tool, "MultiEdit") == 0 || strcmp(tool, "NotebookEdit") == 0) {
		kind = RK_WRITE;
	} else if (strcmp(tool, "WebFetch") == 0) {
		if (strncmp(arg, "domain:", 7) != 0 || al == 7)
			return ld_fail(ld, off, "rule \"%s\": write "
			    "WebFetch(domain:example.com)", s);
		arg += 7;
		al -= 7;
		kind = RK_FETCH;
	} else {
		return ld_fail(ld, off, "rule \"%s\": %s takes no pattern", s, tool);
	}
	/* A pattern that could never match would be a silent hole in a deny
	 * rule: refuse what cannot be expanded. */
	if ((kind == RK_READ || kind == RK_WRITE) && arg[0] == '~' && al > 1 &&
	    arg[1] != '/')
		return ld_fail(ld, off, "rule \"%s\": ~user paths are not "
		    "supported; write the absolute path", s);
	if (kind == RK_FETCH && strcspn(arg, "/: ") < al)
		return ld_fail(ld, off, "rule \"%s\": write a host name "
		    "(domain:example.com or domain:*.example.com)", s);
	return add_rule(p, v, kind, RO_FILE, s, arg, al) < 0 ?
	    ld_fail(ld, off, "out of memory") : 0;
}

/* Reads an array of strings; each is handed to fn or stored in l. */
static int
read_strings(const struct ld *ld, const cJSON *arr, const char *where,
    size_t off, struct policy *p, enum policy_verdict v, struct plist *l,
    int domains)
{
	const cJSON *c;
	int n = 0;

	if (!cJSON_IsArray(arr))
		return ld_fail(ld, off, "%s must be an array of strings", where);
	for (c = arr->child; c != NULL; c = c->next) {
		if (++n > POLICY_MAX_ENTRIES)
			return ld_fail(ld, off, "%s has more than %d entries", where,
			    POLICY_MAX_ENTRIES);
		if (!cJSON_IsString(c) || c->valuestring == NULL)
			return ld_fail(ld, off, "%s must contain only strings", where);
		if (l == NULL) {
			if (parse_rule(ld, p, v, c->valuestring, off) < 0)
				return -1;
			continue;
		}
		if (c->valuestring[0] == '\0')
			return ld_fail(ld, off, "empty entry in %s", where);
		if (strlen(c->valuestring) > POLICY_MAX_ENTRY)
			return ld_fail(ld, off, "entry longer than %d bytes in %s",
			    POLICY_MAX_ENTRY, where);
		if (domains && !net_entry_valid(c->valuestring))
			return ld_fail(ld, off, "%s: \"%s\" is not a domain or host (write "
			    "example.com, *.example.com, an IP address, or any of them "
			    "with :PORT, e.g. 127.0.0.1:8080 or [::1]:8080)", where,
			    c->valuestring);
		if (!domains && c->valuestring[0] == '~' && c->valuestring[1] != '\0' &&
		    c->valuestring[1] != '/')
			return ld_fail(ld, off, "%s: \"%s\": ~user paths are not "
			    "supported", where, c->valuestring);
		if (plist_add(l, c->valuestring) < 0)
			return ld_fail(ld, off, "out of memory");
	}
	return 0;
}

static const char *const top_keys[] = {
	"version", "comment", "allow", "escalate", "deny", "filesystem",
	"network", "limits", "two_approvers", "always_ask", NULL,
};
static const char *const dual_keys[] = { "risk", "rules", NULL };
static const char *const fs_keys[] = {
	"denyRead", "allowRead", "allowWrite", "denyWrite", NULL,
};
static const char *const net_keys[] = {
	"allowedDomains", "deniedDomains", "ask_timeout_seconds", NULL,
};
static const char *const limit_keys[] = {
	"hook_wait_seconds", "max_pending", "max_per_minute",
	"request_ttl_seconds", "exec_timeout_seconds", "output_cap_bytes",
	"exec_cpu_seconds", "exec_memory_bytes", "exec_max_processes",
	"keep_results_days", "keep_results_mb", NULL,
};

/*
 * "two_approvers": {"risk": "critical", "rules": ["Bash(terraform apply:*)"]}:
 * which escalated requests sbxd runs only after two different approvers.
 */
static int
read_dual(const struct ld *ld, const cJSON *c, size_t from, struct policy *p)
{
	static const char *const risks[] = { "low", "medium", "high", "critical", NULL };
	const cJSON *r, *x;
	size_t n;
	int k;

	if (!cJSON_IsObject(c))
		return ld_fail(ld, from, "two_approvers must be an object");
	if (check_keys(ld, c, "two_approvers", dual_keys, from) < 0)
		return -1;
	r = cJSON_GetObjectItemCaseSensitive(c, "risk");
	if (r != NULL) {
		if (!cJSON_IsString(r))
			return ld_fail(ld, key_offset(ld, "risk", from),
			    "two_approvers.risk must be a string");
		for (k = 0; risks[k] && strcmp(risks[k], r->valuestring); k++)
			;
		if (!risks[k] && strcmp(r->valuestring, "none") != 0)
			return ld_fail(ld, key_offset(ld, "risk", from), "two_approvers.risk "
			    "must be none, low, medium, high or critical");
		p->dual_risk = risks[k] ? k : -1;
	}
	r = cJSON_GetObjectItemCaseSensitive(c, "rules");
	if (r == NULL)
		return 0;
	if (!cJSON_IsArray(r))
		return ld_fail(ld, key_offset(ld, "rules", from),
		    "two_approvers.rules must be an array of \"Bash(...)\" rules");
	cJSON_ArrayForEach(x, r) {
		if (!cJSON_IsString(x) || strncmp(x->valuestring, "Bash(", 5) != 0 ||
		    (n = strlen(x->valuestring)) < 7 || x->valuestring[n - 1] != ')')
			return ld_fail(ld, key_offset(ld, "rules", from),
			    "two_approvers.rules: each must be a \"Bash(...)\" rule");
		if (plist_add(&p->dual_bash, x->valuestring) < 0)
			return ld_fail(ld, from, "out of memory");
	}
	return 0;
}

/*
 * "always_ask": ["git push --no-verify", "make deploy-*"]: commands no
 * remembered rule covers, on top of the built-in ones (always_ask.c).
 */
static int
read_always_ask(const struct ld *ld, const cJSON *c, size_t from, struct policy *p)
{
	const cJSON *x;

	if (!cJSON_IsArray(c))
		return ld_fail(ld, from, "always_ask must be an array of strings such as "
		    "\"git push --force\"");
	if (cJSON_GetArraySize(c) > 64)
		return ld_fail(ld, from, "always_ask: at most 64 entries");
	cJSON_ArrayForEach(x, c) {
		if (!cJSON_IsString(x) || !always_ask_valid(x->valuestring))
			return ld_fail(ld, from, "always_ask: \"%.80s\" is not an entry: write "
			    "the program and sub-command words, then one pattern for a later word "
			    "(\"git push --force\", \"git push +*\"), single spaces, no shell "
			    "syntax, at most 200 bytes", cJSON_IsString(x) ? x->valuestring : "?");
		if (plist_add(&p->always_ask, x->valuestring) < 0)
			return ld_fail(ld, from, "out of memory");
	}
	return 0;
}

static int
read_limit(const struct ld *ld, const cJSON *lim, const char *key, size_t from,
    double lo, double hi, double *out)
{
	const cJSON *c = cJSON_GetObjectItemCaseSensitive(lim, key);
	size_t off;

	if (c == NULL)
		return 0;
	off = key_offset(ld, key, from);
	if (!cJSON_IsNumber(c))
		return ld_fail(ld, off, "limits.%s must be a number", key);
	/* range first: casting an out-of-range double is undefined */
	if (!(c->valuedouble >= lo && c->valuedouble <= hi))
		return ld_fail(ld, off, "limits.%s must be between %.0f and %.0f",
		    key, lo, hi);
	if (c->valuedouble != (double)(long long)c->valuedouble)
		return ld_fail(ld, off, "limits.%s must be a whole number", key);
	*out = c->valuedouble;
	return 0;
}

/* The limits, in the order they are read: the field, its range, and for
 * a resource limit the least value other than 0 (off) that lets a shell
 * start. */
static const struct limit_field {
	const char *key;
	size_t off;
	char type;                  /* the field: 'i' int, 'l' long, 'L' long long */
	double lo, hi, least;
	const char *too_small;      /* the message when below least */
} limit_fields[] = {
#define LIM(f) #f, offsetof(struct policy_limits, f)
	{ LIM(hook_wait_seconds), 'i', 1, 86400, 0, NULL },
	{ LIM(max_pending), 'i', 1, 100000, 0, NULL },
	{ LIM(max_per_minute), 'i', 1, 100000, 0, NULL },
	{ LIM(request_ttl_seconds), 'i', 10, 2592000, 0, NULL },
	{ LIM(exec_timeout_seconds), 'i', 1, 86400, 0, NULL },
	{ LIM(output_cap_bytes), 'l', 1024, 1073741824.0, 0, NULL },
	{ LIM(exec_cpu_seconds), 'i', 0, 86400, 0, NULL },
	{ LIM(exec_memory_bytes), 'L', 0, 1099511627776.0, 16777216.0,
	  "limits.exec_memory_bytes must be 0 (no limit) or at least 16777216 (16 MiB)" },
	{ LIM(exec_max_processes), 'i', 0, 1000000, 8,
	  "limits.exec_max_processes must be 0 (no limit) or at least 8" },
	{ LIM(keep_results_days), 'i', 0, 3650, 0, NULL },
	{ LIM(keep_results_mb), 'i', 0, 1048576, 0, NULL },
#undef LIM
};

static int
read_limits(const struct ld *ld, const cJSON *lim, size_t from,
    struct policy_limits *l)
{
	const struct limit_field *f;
	char *at;
	double v;

	if (!cJSON_IsObject(lim))
		return ld_fail(ld, from, "limits must be an object");
	if (check_keys(ld, lim, "limits", limit_keys, from) < 0)
		return -1;
	for (f = limit_fields; f < limit_fields + sizeof(limit_fields) / sizeof(*f); f++) {
		at = (char *)l + f->off;
		v = f->type == 'i' ? *(int *)(void *)at : f->type == 'l' ?
		    (double)*(long *)(void *)at : (double)*(long long *)(void *)at;
		if (read_limit(ld, lim, f->key, from, f->lo, f->hi, &v) < 0)
			return -1;
		/* 0 turns a resource limit off; small values would stop a
		 * shell from starting at all. */
		if (f->too_small && v != 0 && v < f->least)
			return ld_fail(ld, key_offset(ld, f->key, from), "%s", f->too_small);
		if (f->type == 'i')
			*(int *)(void *)at = (int)v;
		else if (f->type == 'l')
			*(long *)(void *)at = (long)v;
		else
			*(long long *)(void *)at = (long long)v;
	}
	return 0;
}

static int
add_builtins(struct policy *p)
{
	const char *const *s;

	if (plist_add_all(&p->deny_read, builtin_deny_read, p->config_dir) < 0 ||
	    plist_add_all(&p->deny_write, builtin_deny_write, NULL) < 0)
		return -1;
	for (s = builtin_allow_tools; *s != NULL; s++)
		if (add_rule(p, POLICY_ALLOW, RK_TOOL, RO_BUILTIN, *s, *s,
		    strlen(*s)) < 0)
			return -1;
	return 0;
}

/* Adds $NAME + SUFFIX to the self-protected paths when NAME is set to an
 * absolute path. */
static int
add_env_dir(struct policy *p, const char *name, const char *suffix)
{
	const char *v = getenv(name);
	char path[PATH_MAX];

	if (!v || v[0] != '/')
		return 0;
	if (snprintf(path, sizeof(path), "%s%s", v, suffix) >= (int)sizeof(path))
		return -1;
	return plist_add(&p->self_write, path);
}

/* Self-protection, added last on every load: the file cannot remove it. */
static int
add_self_protection(struct policy *p)
{
	if (plist_add_all(&p->self_write, builtin_self_write, p->config_dir) < 0)
		return -1;
	/* The agent's own client homes hold the trust records that make it run
	 * sbx's hook (Codex's config.toml, Gemini's trustedFolders.json); the
	 * agent's environment names them when they are not under ~. */
	if (add_env_dir(p, "CODEX_HOME", "") < 0 ||
	    add_env_dir(p, "GEMINI_CLI_HOME", "/.gemini") < 0)
		return -1;
	return 0;
}

/* "filesystem": the four path lists. */
static int
read_filesystem(const struct ld *ld, const cJSON *c, struct policy *p)
{
	static const char *const names[] = {
		"denyRead", "allowRead", "allowWrite", "denyWrite",
	};
	size_t from = key_offset(ld, "filesystem", 0), k;
	const cJSON *sub;
	struct plist *lists[4];

	lists[0] = &p->deny_read;
	lists[1] = &p->allow_read;
	lists[2] = &p->allow_write;
	lists[3] = &p->deny_write;
	if (!cJSON_IsObject(c)) {
		ld_fail(ld, from, "filesystem must be an object");
		return -1;
	}
	if (check_keys(ld, c, "filesystem", fs_keys, from) < 0)
		return -1;
	for (k = 0; k < 4; k++) {
		char where[64];

		sub = cJSON_GetObjectItemCaseSensitive(c, names[k]);
		snprintf(where, sizeof(where), "filesystem.%s", names[k]);
		if (sub != NULL && read_strings(ld, sub, where,
		    key_offset(ld, names[k], from), p, POLICY_ALLOW, lists[k],
		    0) < 0)
			return -1;
	}
	return 0;
}

/* "network": the domain lists. */
static int
read_network(const struct ld *ld, const cJSON *c, struct policy *p)
{
	size_t from = key_offset(ld, "network", 0);
	const cJSON *sub;

	if (!cJSON_IsObject(c)) {
		ld_fail(ld, from, "network must be an object");
		return -1;
	}
	if (check_keys(ld, c, "network", net_keys, from) < 0)
		return -1;
	sub = cJSON_GetObjectItemCaseSensitive(c, "allowedDomains");
	if (sub != NULL && read_strings(ld, sub, "network.allowedDomains",
	    key_offset(ld, "allowedDomains", from), p, POLICY_ALLOW,
	    &p->allowed_domains, 1) < 0)
		return -1;
	sub = cJSON_GetObjectItemCaseSensitive(c, "deniedDomains");
	if (sub != NULL && read_strings(ld, sub, "network.deniedDomains",
	    key_offset(ld, "deniedDomains", from), p, POLICY_ALLOW,
	    &p->denied_domains, 1) < 0)
		return -1;
	sub = cJSON_GetObjectItemCaseSensitive(c, "ask_timeout_seconds");
	if (sub != NULL && (!cJSON_IsNumber(sub) ||
	    !(sub->valuedouble >= 1 && sub->valuedouble <= 3600) ||
	    sub->valuedouble != (double)(int)sub->valuedouble)) {
		ld_fail(ld, key_offset(ld, "ask_timeout_seconds", from),
		    "network.ask_timeout_seconds must be a whole number of "
		    "seconds between 1 and 3600");
		return -1;
	}
	if (sub != NULL)
		p->net_ask_timeout = sub->valueint;
	return 0;
}

static int
parse_policy(const struct ld *ld, struct policy *p)
{
	const cJSON *root = NULL, *c, *sub;
	const char *end = NULL;
	size_t k, off;
	int rc = -1;

	for (k = 0; k < ld->len && isspace((unsigned char)ld->text[k]); k++)
		;
	if (k == ld->len)
		return ld_fail(ld, 0, "file is empty (write {} for the defaults, "
		    "or run sbx init)");
	for (k = 0; k + 6 <= ld->len; k++)
		if (memcmp(ld->text + k, "\\u0000", 6) == 0)
			return ld_fail(ld, k, "\\u0000 is not allowed in a policy");
	root = cJSON_ParseWithLengthOpts(ld->text, ld->len, &end, 0);
	if (root == NULL) {
		off = end != NULL && end >= ld->text ? (size_t)(end - ld->text) : 0;
		return ld_fail(ld, off, "not valid JSON");
	}
	for (off = (size_t)(end - ld->text); off < ld->len; off++)
		if (!isspace((unsigned char)ld->text[off])) {
			ld_fail(ld, off, "text after the JSON object");
			goto out;
		}
	if (!cJSON_IsObject(root)) {
		ld_fail(ld, 0, "the policy must be a JSON object");
		goto out;
	}
	if (check_keys(ld, root, "the policy", top_keys, 0) < 0)
		goto out;
	c = cJSON_GetObjectItemCaseSensitive(root, "version");
	if (c != NULL && (!cJSON_IsNumber(c) || c->valuedouble != 1)) {
		ld_fail(ld, key_offset(ld, "version", 0), "version must be 1");
		goto out;
	}
	c = cJSON_GetObjectItemCaseSensitive(root, "comment");
	if (c != NULL && !cJSON_IsString(c) && !cJSON_IsArray(c)) {
		ld_fail(ld, key_offset(ld, "comment", 0),
		    "comment must be a string or an array of strings");
		goto out;
	}
	if (cJSON_IsArray(c))
		for (sub = c->child; sub != NULL; sub = sub->next)
			if (!cJSON_IsString(sub)) {
				ld_fail(ld, key_offset(ld, "comment", 0),
				    "comment must be a string or an array of strings");
				goto out;
			}
	{
		static const struct {
			const char *key;
			enum policy_verdict v;
		} lists[] = {
			{ "deny", POLICY_DENY }, { "escalate", POLICY_ESCALATE },
			{ "allow", POLICY_ALLOW },
		};

		for (k = 0; k < 3; k++) {
			c = cJSON_GetObjectItemCaseSensitive(root, lists[k].key);
			if (c != NULL && read_strings(ld, c, lists[k].key,
			    key_offset(ld, lists[k].key, 0), p, lists[k].v, NULL, 0) < 0)
				goto out;
		}
	}
	c = cJSON_GetObjectItemCaseSensitive(root, "filesystem");
	if (c != NULL && read_filesystem(ld, c, p) < 0)
		goto out;
	c = cJSON_GetObjectItemCaseSensitive(root, "network");
	if (c != NULL && read_network(ld, c, p) < 0)
		goto out;
	c = cJSON_GetObjectItemCaseSensitive(root, "limits");
	if (c != NULL && read_limits(ld, c, key_offset(ld, "limits", 0),
	    &p->limits) < 0)
		goto out;
	c = cJSON_GetObjectItemCaseSensitive(root, "two_approvers");
	if (c != NULL && read_dual(ld, c, key_offset(ld, "two_approvers", 0), p) < 0)
		goto out;
	c = cJSON_GetObjectItemCaseSensitive(root, "always_ask");
	if (c != NULL && read_always_ask(ld, c, key_offset(ld, "always_ask", 0), p) < 0)
		goto out;
	rc = 0;
out:
	cJSON_Delete((cJSON *)root);
	return rc;
}

struct policy *
policy_load_buffer(const char *name, const char *text, size_t len,
    const char *folder, const char *config_dir, struct policy_error *err)
{
	struct policy *p;
	struct ld ld;
	char real[SBX_PATH_MAX];

	err->msg[0] = '\0';
	if (name == NULL)
		name = "policy";
	if (text == NULL) {
		perr_set(err, "%s: no text", name);
		return NULL;
	}
	if (len > POLICY_MAX_FILE) {
		perr_set(err, "%s: larger than %d bytes",
		    name, POLICY_MAX_FILE);
		return NULL;
	}
	if (folder != NULL && folder[0] != '/') {
		perr_set(err, "%s: project folder \"%s\" "
		    "is not absolute", name, folder);
		return NULL;
	}
	p = calloc(1, sizeof(*p));
	if (p == NULL)
		goto oom;
	p->limits = *policy_limits(NULL);
	p->net_ask_timeout = POLICY_NET_ASK_TIMEOUT;
	p->dual_risk = -1;
	p->name = strdup(name);
	/* rules compare resolved paths: keep the folder resolved too. What
	 * lstat says of its components becomes the seed policy_home() would
	 * build a moment later (it adds the home's); the config dir's walk
	 * reads it (their common parents: asked once) but is not kept. */
	if (folder != NULL && (p->seed = malloc(sizeof(*p->seed))) != NULL)
		path_cache_init(p->seed);
	if (folder != NULL && path_resolve_c(p->seed, "/", NULL, folder, real,
	    sizeof(real)) == 0)
		folder = real;
	p->folder = folder != NULL ? strdup(folder) : NULL;
	if (config_dir != NULL && config_dir[0] == '/') {
		struct path_cache cc;

		path_cache_init(&cc);
		cc.seed = p->seed;
		if (path_resolve_c(&cc, "/", NULL, config_dir, real, sizeof(real)) == 0)
			config_dir = real;
	}
	p->config_dir = config_dir != NULL ? strdup(config_dir) : NULL;
	if (p->name == NULL || (folder != NULL && p->folder == NULL) ||
	    (config_dir != NULL && p->config_dir == NULL))
		goto oom;
	if (add_builtins(p) < 0)
		goto oom;
	ld.name = name;
	ld.text = text;
	ld.len = len;
	ld.err = err;
	if (parse_policy(&ld, p) < 0) {
		policy_free(p);
		return NULL;
	}
	if (add_self_protection(p) < 0)
		goto oom;
	return p;
oom:
	policy_free(p);
	perr_set(err, "%s: out of memory", name);
	return NULL;
}

struct policy *
policy_load(const char *folder, const char *config_dir, struct policy_error *err)
{
	return policy_load_text(folder, config_dir, err, NULL, NULL);
}

struct policy *
policy_load_text(const char *folder, const char *config_dir, struct policy_error *err,
    char **textp, size_t *lenp)
{
	struct policy *p;
	int dfd = -1, sbfd = -1, e;

	err->msg[0] = '\0';
	if (folder == NULL || folder[0] != '/') {
		perr_set(err, "no absolute project folder");
		return NULL;
	}
	dfd = open(folder, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dfd >= 0)
		sbfd = openat(dfd, ".sandbox", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	e = errno;
	if (dfd >= 0)
		close(dfd);
	errno = e;
	p = policy_load_at(sbfd, folder, config_dir, err, textp, lenp);
	if (sbfd >= 0)
		close(sbfd);
	return p;
}

struct policy *
policy_load_at(int sbfd, const char *folder, const char *config_dir,
    struct policy_error *err, char **textp, size_t *lenp)
{
	char path[SBX_PATH_MAX];
	struct policy *p = NULL;
	struct stat st;
	char *text = NULL;
	size_t got = 0;
	ssize_t n;
	int fd = -1;

	err->msg[0] = '\0';
	if (folder == NULL || folder[0] != '/') {
		perr_set(err, "no absolute project folder");
		return NULL;
	}
	if ((size_t)snprintf(path, sizeof(path), "%s/.sandbox/policy.json",
	    folder) >= sizeof(path)) {
		perr_set(err, "project folder path too long");
		return NULL;
	}
	if (sbfd >= 0)
		fd = openat(sbfd, "policy.json",
		    O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0) {
		if (errno == ENOENT)
			perr_set(err, "%s: missing (run sbx "
			    "init in %s)", path, folder);
		else
			perr_set(err, "%s: cannot open: %s%s",
			    path, strerror(errno), errno == ELOOP ?
			    " (a symlink is not accepted)" : "");
		goto out;
	}
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		perr_set(err, "%s: not a regular file", path);
		goto out;
	}
	if (st.st_mode & S_IWOTH) {
		perr_set(err, "%s: writable by everyone; run chmod o-w on it", path);
		goto out;
	}
	if (st.st_size > POLICY_MAX_FILE) {
		perr_set(err, "%s: larger than %d bytes",
		    path, POLICY_MAX_FILE);
		goto out;
	}
	text = malloc((size_t)st.st_size + 1);
	if (text == NULL) {
		perr_set(err, "%s: out of memory", path);
		goto out;
	}
	while (got < (size_t)st.st_size) {
		n = read(fd, text + got, (size_t)st.st_size - got);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			perr_set(err, "%s: cannot read: %s",
			    path, strerror(errno));
			goto out;
		}
		if (n == 0)
			break;
		got += (size_t)n;
	}
	text[got] = '\0';
	p = policy_load_buffer(path, text, got, folder, config_dir, err);
	if (p != NULL && textp != NULL) {
		*textp = text;
		*lenp = got;
		text = NULL;
	}
out:
	if (fd >= 0)
		close(fd);
	free(text);
	return p;
}

/* ---- show ---------------------------------------------------------------- */

static int
json_list(cJSON *obj, const char *key, const struct plist *l)
{
	cJSON *a = cJSON_AddArrayToObject(obj, key);
	int k;

	if (a == NULL)
		return -1;
	for (k = 0; k < l->n; k++)
		if (!cJSON_AddItemToArray(a, cJSON_CreateString(l->v[k])))
			return -1;
	return 0;
}

cJSON *
policy_to_json(const struct policy *p)
{
	static const char *const vname[] = { "allow", "escalate", "deny" };
	cJSON *root, *arr[3], *o;
	int k;

	if (p == NULL)
		return NULL;
	root = cJSON_CreateObject();
	if (root == NULL)
		return NULL;
	if (cJSON_AddStringToObject(root, "source", p->name) == NULL ||
	    (p->folder && cJSON_AddStringToObject(root, "folder", p->folder) == NULL))
		goto fail;
	for (k = 0; k < 3; k++)
		if ((arr[k] = cJSON_AddArrayToObject(root, vname[k])) == NULL)
			goto fail;
	for (k = 0; k < p->nrules; k++)
		if (!cJSON_AddItemToArray(arr[p->rules[k].verdict],
		    cJSON_CreateString(p->rules[k].text)))
			goto fail;
	o = cJSON_AddObjectToObject(root, "filesystem");
	if (o == NULL || json_list(o, "denyRead", &p->deny_read) < 0 ||
	    json_list(o, "allowRead", &p->allow_read) < 0 ||
	    json_list(o, "allowWrite", &p->allow_write) < 0 ||
	    json_list(o, "denyWrite", &p->deny_write) < 0)
		goto fail;
	o = cJSON_AddObjectToObject(root, "network");
	if (o == NULL || json_list(o, "allowedDomains", &p->allowed_domains) < 0 ||
	    json_list(o, "deniedDomains", &p->denied_domains) < 0 ||
	    !cJSON_AddNumberToObject(o, "ask_timeout_seconds", p->net_ask_timeout))
		goto fail;
	if (json_list(root, "selfProtection", &p->self_write) < 0)
		goto fail;
	o = cJSON_AddObjectToObject(root, "limits");
	if (o == NULL ||
	    !cJSON_AddNumberToObject(o, "hook_wait_seconds", p->limits.hook_wait_seconds) ||
	    !cJSON_AddNumberToObject(o, "max_pending", p->limits.max_pending) ||
	    !cJSON_AddNumberToObject(o, "max_per_minute", p->limits.max_per_minute) ||
	    !cJSON_AddNumberToObject(o, "request_ttl_seconds",
	    p->limits.request_ttl_seconds) ||
	    !cJSON_AddNumberToObject(o, "exec_timeout_seconds",
	    p->limits.exec_timeout_seconds) ||
	    !cJSON_AddNumberToObject(o, "output_cap_bytes",
	    (double)p->limits.output_cap_bytes) ||
	    !cJSON_AddNumberToObject(o, "exec_cpu_seconds", p->limits.exec_cpu_seconds) ||
	    !cJSON_AddNumberToObject(o, "exec_memory_bytes",
	    (double)p->limits.exec_memory_bytes) ||
	    !cJSON_AddNumberToObject(o, "exec_max_processes", p->limits.exec_max_processes) ||
	    !cJSON_AddNumberToObject(o, "keep_results_days", p->limits.keep_results_days) ||
	    !cJSON_AddNumberToObject(o, "keep_results_mb", p->limits.keep_results_mb))
		goto fail;
	o = cJSON_AddObjectToObject(root, "two_approvers");
	if (o == NULL || !cJSON_AddStringToObject(o, "risk", p->dual_risk < 0 ? "none" :
	    policy_risk_name((enum policy_risk)p->dual_risk)) ||
	    json_list(o, "rules", &p->dual_bash) < 0)
		goto fail;
	{
		const char *const *b = policy_always_ask_builtin();
		cJSON *a = cJSON_AddArrayToObject(root, "always_ask_builtin");

		for (; a && *b; b++)
			if (!cJSON_AddItemToArray(a, cJSON_CreateString(*b)))
				goto fail;
		if (a == NULL || json_list(root, "always_ask", &p->always_ask) < 0)
			goto fail;
	}
	return root;
fail:
	cJSON_Delete(root);
	return NULL;
}
