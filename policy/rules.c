/*
 * rules.c - the names of verdicts, risks and factors, and how the rules
 * of a loaded policy match a command, a path, a domain or a tool.
 *
 * Layer: tables (see docs/ARCHITECTURE.md). Includes policy/rules.h only.
 *
 * Rules: a glob that runs out of its step budget matches deny and
 * escalate rules and never allow rules (fail closed).
 */
#include "policy/rules.h"

#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

const char *
policy_verdict_name(enum policy_verdict v)
{
	switch (v) {
	case POLICY_ALLOW:
		return "allow";
	case POLICY_ESCALATE:
		return "escalate";
	case POLICY_DENY:
		return "deny";
	}
	return "deny";
}

const char *
policy_risk_name(enum policy_risk r)
{
	switch (r) {
	case POLICY_RISK_LOW:
		return "low";
	case POLICY_RISK_MEDIUM:
		return "medium";
	case POLICY_RISK_HIGH:
		return "high";
	case POLICY_RISK_CRITICAL:
		return "critical";
	}
	return "critical";
}

static const struct {
	unsigned bit;
	const char *name;
} factor_names[] = {
	{ POLICY_F_CATASTROPHIC, "catastrophic" },
	{ POLICY_F_PRIVILEGE, "privilege change" },
	{ POLICY_F_PROTECTED, "touches sbx's own files" },
	{ POLICY_F_SECRET_READ, "secret read" },
	{ POLICY_F_NETWORK, "network egress" },
	{ POLICY_F_NETWORK_CODE, "code from the network" },
	{ POLICY_F_DESTRUCTIVE, "destructive operation" },
	{ POLICY_F_WRITE_OUTSIDE, "write outside the project" },
	{ POLICY_F_RUNS_CODE, "runs project code" },
	{ POLICY_F_UNKNOWN, "not analysable" },
};

const char *
policy_factor_name(unsigned bit)
{
	size_t k;

	for (k = 0; k < sizeof(factor_names) / sizeof(factor_names[0]); k++)
		if (factor_names[k].bit == bit)
			return factor_names[k].name;
	return NULL;
}

char *
policy_factors_text(unsigned factors, char *buf, size_t bufsz)
{
	size_t k, o = 0, sl, nl, room, x, y;
	const char *sep, *name;

	if (bufsz == 0)
		return buf;
	buf[0] = '\0';
	for (k = 0; k < sizeof(factor_names) / sizeof(factor_names[0]); k++) {
		if ((factors & factor_names[k].bit) == 0)
			continue;
		sep = o ? ", " : "";
		name = factor_names[k].name;
		sl = strlen(sep);
		nl = strlen(name);
		room = bufsz - o - 1;
		/* what fits, as snprintf would cut it; a cut name ends it */
		x = sl < room ? sl : room;
		y = nl < room - x ? nl : room - x;
		memcpy(buf + o, sep, x);
		memcpy(buf + o + x, name, y);
		buf[o + x + y] = '\0';
		if (sl + nl > room)
			break;
		o += sl + nl;
	}
	return buf;
}

enum policy_risk
rules_risk(unsigned f)
{
	if (f & (F_CATASTROPHIC | F_NETCODE))
		return POLICY_RISK_CRITICAL;
	if ((f & F_SECRET) && (f & F_NETWORK))
		return POLICY_RISK_CRITICAL;
	if (f & (F_PRIV | F_DESTRUCTIVE | F_PROTECTED | F_SECRET))
		return POLICY_RISK_HIGH;
	if (f & (F_WRITE_OUT | F_NETWORK | F_UNKNOWN | F_CODE))
		return POLICY_RISK_MEDIUM;
	return POLICY_RISK_LOW;
}


int
policy_approvals_needed(const struct policy *p, const struct policy_call *call,
    const struct policy_result *res)
{
	const char *cmd = NULL;
	char pat[POLICY_MAX_ENTRY + 8];
	const cJSON *c;
	size_t n;
	int k;

	if (p->dual_risk >= 0 && (int)res->risk >= p->dual_risk)
		return 2;
	if (call->tool && !strcmp(call->tool, "Bash") && cJSON_IsObject(call->input) &&
	    cJSON_IsString(c = cJSON_GetObjectItemCaseSensitive(call->input, "command")))
		cmd = c->valuestring;
	for (k = 0; cmd && k < p->dual_bash.n; k++) {
		/* "Bash(X:*)": X, then a space or the end; "Bash(X)": exactly X. */
		n = strlen(p->dual_bash.v[k]) - 6;
		if (n >= sizeof(pat))
			continue;
		memcpy(pat, p->dual_bash.v[k] + 5, n);
		pat[n] = '\0';
		if (n >= 2 && !strcmp(pat + n - 2, ":*")) {
			pat[n - 2] = '\0';
			if (!strncmp(cmd, pat, n - 2) && (cmd[n - 2] == '\0' || cmd[n - 2] == ' '))
				return 2;
		} else if (!strcmp(cmd, pat)) {
			return 2;
		}
	}
	return 1;
}
/* ---- rules ------------------------------------------------------------- */

int
domain_match(const char *pattern, const char *host)
{
	size_t pl, hl;

	if (strcasecmp(pattern, host) == 0)
		return 1;
	if (pattern[0] == '*' && pattern[1] == '.') {
		pl = strlen(pattern + 1);       /* ".example.com" */
		hl = strlen(host);
		return hl > pl && strcasecmp(host + hl - pl, pattern + 1) == 0;
	}
	return 0;
}

int
pattern_expand(const char *pat, int claude_form, const char *folder,
    const char *home, char *out, size_t outsz)
{
	char tmp[SBX_PATH_MAX * 2];
	int n;

	if (pat[0] == '~' && (pat[1] == '/' || pat[1] == '\0')) {
		if (home == NULL || home[0] != '/')
			return -1;
		n = snprintf(tmp, sizeof(tmp), "%s/%s", home, pat + 1);
	} else if (pat[0] == '/') {
		if (claude_form && pat[1] == '/') {
			n = snprintf(tmp, sizeof(tmp), "%s", pat + 1);
		} else if (claude_form) {
			/* Claude Code: /x is relative to the project root */
			if (folder == NULL)
				return -1;
			n = snprintf(tmp, sizeof(tmp), "%s%s", folder, pat);
		} else {
			n = snprintf(tmp, sizeof(tmp), "%s", pat);
		}
	} else {
		if (folder == NULL)
			return -1;
		if (pat[0] == '.' && pat[1] == '/')
			n = snprintf(tmp, sizeof(tmp), "%s/%s", folder, pat + 2);
		else if (claude_form && strchr(pat, '/') == NULL)
			/* a bare name matches at any depth, like .gitignore */
			n = snprintf(tmp, sizeof(tmp), "%s/**/%s", folder, pat);
		else
			n = snprintf(tmp, sizeof(tmp), "%s/%s", folder, pat);
	}
	if (n < 0 || (size_t)n >= sizeof(tmp))
		return -1;
	return path_normalize(tmp, out, outsz);
}

/*
 * Bash rule text match: "*" matches any run of characters. Returns 1, 0,
 * or -1 when the step budget ran out (callers fail closed).
 */
static int
text_glob(const char *p, const char *s)
{
	const char *sp = NULL, *ss = NULL;
	long budget = 200000;

	while (*s != '\0') {
		if (--budget < 0)
			return -1;
		if (*p == '*') {
			sp = ++p;
			ss = s;
		} else if (*p == *s) {
			p++;
			s++;
		} else if (sp != NULL) {
			p = sp;
			s = ++ss;
		} else {
			return 0;
		}
	}
	while (*p == '*')
		p++;
	return *p == '\0';
}

/* 1 if r matches s; an exhausted glob budget matches deny and escalate
 * rules and never allow rules (fail closed). */
static int
rule_matches(const struct rule *r, const char *s, const struct policy *p,
    const struct policy_call *call)
{
	char pat[SBX_PATH_MAX];
	size_t n;
	int m;

	switch (r->kind) {
	case RK_BASH:
		if (r->prefix && strchr(r->arg, '*') == NULL) {
			n = strlen(r->arg);
			return strncmp(s, r->arg, n) == 0 &&
			    (s[n] == '\0' || s[n] == ' ');
		}
		if (r->prefix) {
			char tmp[POLICY_MAX_ENTRY + 4];

			snprintf(tmp, sizeof(tmp), "%s *", r->arg);
			m = text_glob(r->arg, s);
			if (m == 0)
				m = text_glob(tmp, s);
		} else {
			m = text_glob(r->arg, s);
		}
		break;
	case RK_READ:
	case RK_WRITE:
		if (pattern_expand(r->arg, 1, p->folder, call ? call->home : NULL,
		    pat, sizeof(pat)) < 0)
			return r->verdict != POLICY_ALLOW;      /* fail closed */
		m = path_match(pat, s);
		break;
	case RK_FETCH:
		return domain_match(r->arg, s);
	case RK_TOOL:
		return fnmatch(r->arg, s, 0) == 0;
	default:
		return 0;
	}
	if (m < 0)
		return r->verdict != POLICY_ALLOW;
	return m;
}

const struct rule *
rule_find(const struct policy *p, enum rule_kind kind, enum policy_verdict v,
    const char *s, const struct policy_call *call)
{
	int k;

	if ((unsigned)kind < RK_N && (unsigned)v < 3 && p->nkind[kind][v] == 0)
		return NULL;    /* no rule of this kind and verdict */
	for (k = 0; k < p->nrules; k++)
		if (p->rules[k].kind == kind && p->rules[k].verdict == v &&
		    rule_matches(&p->rules[k], s, p, call))
			return &p->rules[k];
	return NULL;
}

int
policy_home(const struct policy *cp, const char *home, char *out,
    size_t outsz)
{
	struct policy *p = (struct policy *)cp;         /* the cache only */
	char res[SBX_PATH_MAX];

	if (p->rhome_in == NULL || strcmp(p->rhome_in, home) != 0) {
		/* the first home: the seed policy_load_buffer() left (the
		 * folder's components) gets this home's; another home later:
		 * a new seed, the folder's and that home's */
		if (p->rhome_in != NULL) {
			free(p->seed);
			p->seed = NULL;
		}
		free(p->rhome_in);
		free(p->rhome);
		p->rhome = NULL;
		if ((p->rhome_in = strdup(home)) == NULL)
			return -1;
		/* the seed: what resolving the folder and the home asked */
		if (p->seed == NULL && (p->seed = malloc(sizeof(*p->seed))) != NULL) {
			path_cache_init(p->seed);
			if (p->folder != NULL)
				(void)path_resolve_c(p->seed, "/", NULL,
				    p->folder, res, sizeof(res));
		}
		if (path_resolve_c(p->seed, "/", NULL, home, res,
		    sizeof(res)) == 0 && (p->rhome = strdup(res)) == NULL) {
			free(p->rhome_in);
			p->rhome_in = NULL;
			return -1;
		}
	}
	if (p->rhome == NULL || strlen(p->rhome) >= outsz)
		return -1;
	strcpy(out, p->rhome);
	return 0;
}

const struct path_cache *
policy_seed(const struct policy *p)
{
	return p->seed;
}

/* Frees the expanded path lists of p (see ev_pattern in trigger.c). */
void
policy_cache_free(struct policy *p)
{
	int j, k;

	for (j = 0; j < p->nxl; j++) {
		for (k = 0; k < p->xl[j].n; k++) {
			free(p->xl[j].e[k].v);
			free(p->xl[j].e[k].place);
			free(p->xl[j].e[k].need);
		}
		free(p->xl[j].e);
	}
	p->nxl = 0;
	free(p->xhome);
	p->xhome = NULL;
}
