/*
 * glob.c - what a glob or a brace expansion in a path can reach.
 *
 * Rules:
 * - A glob anywhere in a path (~/.ss?/id_rsa, /e?c/shadow, /proc/STAR/environ)
 *   is compared, component by component, with every denyRead pattern: if
 *   some name could match both, the read is a secret read. The comparison
 *   over-approximates (two globs meet when either matches an example of
 *   the other), never under-approximates a literal component.
 * - Brace expansion ({a,b}, {1..3}) is expanded into its words, each judged
 *   on its own; one that is too large or nested escalates.
 * - Both are bounded: a step budget for the comparison, 64 words and
 *   4 KiB per expansion.
 */
#include "policy/analyse.h"

#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define BRACE_MAX_WORDS 64

static int
is_glob(const char *s, size_t n)
{
	size_t k;

	for (k = 0; k < n; k++)
		if (s[k] == '*' || s[k] == '?' || s[k] == '[')
			return 1;
	return 0;
}

/* An example name a glob matches: '*' as "" or "x", '?' as 'x', [..] as
 * its first member. */
static void
example(const char *g, size_t n, int star_x, char *out, size_t outsz)
{
	size_t k, o = 0;

	for (k = 0; k < n && o + 2 < outsz; k++) {
		if (g[k] == '*') {
			if (star_x)
				out[o++] = 'x';
		} else if (g[k] == '?') {
			out[o++] = 'x';
		} else if (g[k] == '[') {
			size_t e = k + 1;

			if (e < n && (g[e] == '!' || g[e] == '^'))
				e++;
			out[o++] = e < n && g[e] != ']' ? (g[e] == '!' ? 'x' : g[e]) : 'x';
			while (e < n && g[e] != ']')
				e++;
			k = e;
		} else {
			out[o++] = g[k];
		}
	}
	out[o] = '\0';
}

static int
comp_meet(const char *a, size_t an, const char *b, size_t bn)
{
	char pa[256], pb[256], ex[256];
	int ga = is_glob(a, an), gb = is_glob(b, bn), star;

	if (an >= sizeof(pa) || bn >= sizeof(pb))
		return 1;
	if (!ga && !gb)
		return an == bn && memcmp(a, b, an) == 0;
	memcpy(pa, a, an);
	pa[an] = '\0';
	memcpy(pb, b, bn);
	pb[bn] = '\0';
	if (!gb)
		return fnmatch(pa, pb, FNM_PERIOD) == 0;
	if (!ga)
		return fnmatch(pb, pa, FNM_PERIOD) == 0;
	for (star = 0; star < 2; star++) {
		example(pb, bn, star, ex, sizeof(ex));
		if (fnmatch(pa, ex, FNM_PERIOD) == 0)
			return 1;
		example(pa, an, star, ex, sizeof(ex));
		if (fnmatch(pb, ex, FNM_PERIOD) == 0)
			return 1;
	}
	return 0;
}

/* 1 if the absolute globs g and p can name a common path (p covers
 * everything below what it names; g naming a directory above p counts). */
static int
meet(const char *g, const char *p, long *budget)
{
	size_t gn, pn;

	if (--*budget < 0)
		return 1;       /* cannot tell: fail closed */
	while (*g == '/')
		g++;
	while (*p == '/')
		p++;
	if (*p == '\0')
		return 1;
	/* g names a directory above what p names: a fixed path below it
	 * counts; "any depth" patterns are left to the tree walkers */
	if (*g == '\0')
		return !(p[0] == '*' && p[1] == '*');
	gn = strcspn(g, "/");
	pn = strcspn(p, "/");
	if (pn == 2 && p[0] == '*' && p[1] == '*')
		return meet(g, p + pn, budget) || meet(g + gn, p, budget);
	if (gn == 2 && g[0] == '*' && g[1] == '*')
		return meet(g + gn, p, budget) || meet(g, p + pn, budget);
	if (!comp_meet(g, gn, p, pn))
		return 0;
	return meet(g + gn, p + pn, budget);
}

static int glob_secret(struct ev *ev, struct cmdv *v, const struct sh_word *w,
    int dry);

/*
 * A read through the glob word w: 1 (and an escalation) when it can reach
 * a denyRead path. A last component that is a bare star is not compared
 * with the patterns that hold at any depth (.env files anywhere): cat of
 * every file in src reads what a tree walker would, the project's own.
 */
int
an_glob_secret(struct ev *ev, struct cmdv *v, const struct sh_word *w)
{
	return glob_secret(ev, v, w, 0);
}

/* The same question, asked without a finding (for f in ~/.ssh/STAR). */
int
an_glob_secret_dry(struct ev *ev, const struct sh_word *w)
{
	return glob_secret(ev, NULL, w, 1);
}

static int
glob_secret(struct ev *ev, struct cmdv *v, const struct sh_word *w, int dry)
{
	char dir[SBX_PATH_MAX], res[SBX_PATH_MAX], abs[SBX_PATH_MAX * 2];
	char pat[SBX_PATH_MAX];
	const char *s = w->s, *g, *slash = NULL, *last;
	long budget = 4096;
	int k, bare;

	g = s + strcspn(s, "*?[");
	for (const char *q = s; q < g; q++)
		if (*q == '/')
			slash = q;
	if (slash == NULL)
		snprintf(dir, sizeof(dir), ".");
	else if (slash == s)
		snprintf(dir, sizeof(dir), "/");
	else
		snprintf(dir, sizeof(dir), "%.*s", (int)(slash - s), s);
	if ((dir[0] != '/' && dir[0] != '~' && !ev->cwd_known) ||
	    path_resolve_c(ev->pc, ev->cwd, ev->call->home, dir, res, sizeof(res)) < 0)
		return dry;     /* the directory read escalates on its own */
	if (dry && trig_is_secret(ev, res, 0))
		return 1;
	snprintf(abs, sizeof(abs), "%s/%s", strcmp(res, "/") == 0 ? "" : res,
	    slash ? slash + 1 : s);
	last = strrchr(abs, '/');
	last = last ? last + 1 : abs;
	bare = strcmp(last, "*") == 0 || strcmp(last, "**") == 0;
	for (k = 0; k < ev->p->deny_read.n; k++) {
		const char *e = ev->p->deny_read.v[k];
		const char *x = ev_pattern(ev, &ev->p->deny_read, k);

		if (x == NULL || strlen(x) >= sizeof(pat))
			continue;
		strcpy(pat, x);
		if (bare && strncmp(pat, "/**/", 4) == 0)
			continue;
		if (meet(abs, pat, &budget)) {
			if (dry)
				return 1;
			ev_factor(ev, F_SECRET);
			ev_note(ev, POLICY_ESCALATE, "read", "filesystem.denyRead",
			    "%s reads through the pattern %s, which can reach %s "
			    "(denyRead)", v->w[0].s, s, e);
			return 1;
		}
	}
	return 0;
}

/* ---- brace expansion -------------------------------------------------- */

struct bx {
	char *words[BRACE_MAX_WORDS];
	int n;
	int bad;
};

static void
bx_add(struct bx *b, const char *s, size_t n)
{
	if (b->n >= BRACE_MAX_WORDS || n > 4096) {
		b->bad = 1;
		return;
	}
	b->words[b->n] = malloc(n + 1);
	if (b->words[b->n] == NULL) {
		b->bad = 1;
		return;
	}
	memcpy(b->words[b->n], s, n);
	b->words[b->n][n] = '\0';
	b->n++;
}

static void bx_expand(struct bx *b, const char *s, int depth);

/* The brace that closes the group opened at o, or the end of the string
 * when none does; *comma: whether the group has a comma at its level. */
static const char *
brace_end(const char *o, int *comma)
{
	const char *c;
	int level = 0;

	*comma = 0;
	for (c = o; *c != '\0'; c++) {
		if (*c == '{')
			level++;
		else if (*c == '}' && --level == 0)
			break;
		else if (*c == ',' && level == 1)
			*comma = 1;
	}
	return c;
}

/* {from..to}: each value (a number, or a character with as_char) in
 * place of the group, the pre bytes of s before it and rest after it. */
static void
bx_range(struct bx *b, const char *s, int pre, const char *rest, long from, long to,
    int as_char, int depth)
{
	char buf[4200];
	long i;

	for (i = from; !b->bad; i += from <= to ? 1 : -1) {
		if (as_char)
			snprintf(buf, sizeof(buf), "%.*s%c%s", pre, s, (char)i, rest);
		else
			snprintf(buf, sizeof(buf), "%.*s%ld%s", pre, s, i, rest);
		bx_expand(b, buf, depth + 1);
		if (i == to)
			break;
	}
}

/* Expands the first {..} group of s into b (recursively for the rest). */
static void
bx_expand(struct bx *b, const char *s, int depth)
{
	const char *o, *c, *q;
	char buf[4200];
	int level, comma = 0;

	if (b->bad || depth > 8) {
		b->bad = 1;
		return;
	}
	for (o = s; (o = strchr(o, '{')) != NULL; o++) {
		c = brace_end(o, &comma);
		/* An unclosed { is literal, as in bash: "{f{a,b}" expands
		 * the group after it. */
		if (*c == '\0')
			continue;
		if (comma || (strstr(o, "..") != NULL && strstr(o, "..") < c))
			break;
	}
	if (o == NULL) {
		bx_add(b, s, strlen(s));
		return;
	}
	/* c: the brace that closes the group at o */
	if (!comma) {
		/* {a..e} or {1..9}: small ranges only */
		long from, to;
		char *end;
		const char *dots = strstr(o, "..");

		if (!dots || dots[2] == '\0')
			goto bad;
		from = strtol(o + 1, &end, 10);
		if (end == dots && (to = strtol(dots + 2, &end, 10), end == c) &&
		    labs(to - from) < BRACE_MAX_WORDS) {
			bx_range(b, s, (int)(o - s), c + 1, from, to, 0, depth);
			return;
		}
		if (dots == o + 2 && c == dots + 3) {
			bx_range(b, s, (int)(o - s), c + 1, o[1], dots[2], 1, depth);
			return;
		}
		goto bad;
	}
	/* {x,y,...}: split at top-level commas */
	level = 0;
	for (q = o + 1; q <= c && !b->bad; q++) {
		const char *start = q;

		level = 0;
		while (q < c && !(*q == ',' && level == 0)) {
			if (*q == '{')
				level++;
			else if (*q == '}')
				level--;
			q++;
		}
		if ((size_t)(o - s) + (size_t)(q - start) + strlen(c + 1) + 1 >=
		    sizeof(buf))
			goto bad;
		snprintf(buf, sizeof(buf), "%.*s%.*s%s", (int)(o - s), s,
		    (int)(q - start), start, c + 1);
		bx_expand(b, buf, depth + 1);
	}
	return;
bad:
	b->bad = 1;
}

/*
 * Calls fn for each word of the brace expansion of w. Returns 0, or -1
 * when w cannot be expanded (the caller escalates).
 */
int
an_brace_each(struct ev *ev, struct cmdv *v, const struct sh_word *w,
    void (*fn)(struct ev *, struct cmdv *, struct sh_word *))
{
	struct bx b;
	struct sh_word x;
	int k;

	if (w->flags & (SH_W_VAR | SH_W_SUBST))
		return -1;
	memset(&b, 0, sizeof(b));
	bx_expand(&b, w->s, 0);
	for (k = 0; k < b.n && !b.bad; k++) {
		x.s = b.words[k];
		x.len = strlen(x.s);
		x.flags = strpbrk(x.s, "*?[") != NULL ? SH_W_GLOB : SH_W_LITERAL;
		if (x.s[0] == '~')
			x.flags |= SH_W_TILDE;
		fn(ev, v, &x);
	}
	for (k = 0; k < b.n; k++)
		free(b.words[k]);
	return b.bad ? -1 : 0;
}
