/*
 * always_ask.c - commands that no remembered rule covers: a human
 * decides each one (force pushes, branch deletions, mirror pushes,
 * reset --hard ...). Built in, and extended by the policy's
 * "always_ask" list.
 *
 * An entry is words: the command's program and sub-command words, then
 * one pattern for any later word of the same simple command:
 *   "--force"  the word, or the word followed by "=..."
 *   "-f"       a single-dash cluster holding the letter (-f, -uf)
 *   else       an fnmatch(3) glob ("+*" matches the refspec "+main")
 * Commands are split like a shell would into simple commands (at ; & |
 * ( ) and newlines; quotes and backslashes removed), leading VAR=value
 * words are skipped, the program is compared by its base name, and the
 * options between program and sub-command (git -C DIR push) are skipped.
 * Matching errs towards asking: MUST never let a listed command through
 * because of quoting or spacing.
 *
 * Layer: tables (see docs/ARCHITECTURE.md). Includes policy/rules.h.
 */
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "policy/rules.h"

#define AA_MAX_WORDS 256

static const char *const builtin_always_ask[] = {
	"git push --force", "git push -f", "git push --force-with-lease",
	"git push --force-if-includes", "git push +*", "git push *:+*", "git push :*",
	"git push --delete", "git push -d", "git push --mirror", "git push --prune",
	"git reset --hard", "git branch -D", "git branch --delete",
	"gh repo delete", "gh release delete", "kubectl delete", "helm uninstall",
	"terraform destroy", "terraform apply -destroy", "npm unpublish",
	"docker system prune", "aws s3 rm", "aws s3 rb",
	NULL,
};

const char *const *
policy_always_ask_builtin(void)
{
	return builtin_always_ask;
}

int
always_ask_valid(const char *e)
{
	const char *last;
	int words = 0, in = 0;
	const char *p;

	if (!e || strlen(e) > 200 || e[0] == ' ' || strpbrk(e, ";&|$`<>()\n\r\t\\'\""))
		return 0;
	for (p = e; *p; p++) {
		if (*p == ' ') {
			if (!in)
				return 0;       /* two spaces in a row */
			in = 0;
		} else if (!in++) {
			words++;
		}
	}
	last = strrchr(e, ' ');
	if (words < 2 || p[-1] == ' ' || !last)
		return 0;
	/* Only the pattern (last word) may hold glob characters. */
	for (p = e; p < last; p++)
		if (strchr("*?[]", *p))
			return 0;
	return 1;
}

/* Splits s into words, shell-like; a separator (; & | ( ) newline) is
 * stored as the word "\n". Returns the count; words live in buf. */
static int
split(const char *s, char *buf, size_t bufsz, char **w, int max)
{
	size_t o = 0;
	int n = 0, in = 0;
	char q = 0;

	for (; *s && o + 3 < bufsz && n < max - 1; s++) {
		char c = *s;

		if (q) {
			if (c == q)
				q = 0;
			else if (c == '\\' && q == '"' && s[1])
				buf[o++] = *++s;
			else
				buf[o++] = c;
			continue;
		}
		if (c == '\'' || c == '"') {
			if (!in++)
				w[n++] = buf + o;
			q = c;
			continue;
		}
		if (c == '\\' && s[1]) {
			if (!in++)
				w[n++] = buf + o;
			buf[o++] = *++s;
			continue;
		}
		if (c == ' ' || c == '\t' || strchr(";&|()\n\r", c)) {
			if (in) {
				buf[o++] = '\0';
				in = 0;
			}
			if (c != ' ' && c != '\t' && n < max - 1) {
				w[n++] = buf + o;
				buf[o++] = '\n';
				buf[o++] = '\0';
			}
			continue;
		}
		if (!in++)
			w[n++] = buf + o;
		buf[o++] = c;
	}
	if (in)
		buf[o++] = '\0';
	return n;
}

static int
is_sep(const char *w)
{
	return w[0] == '\n';
}

/* Whether word matches the entry's pattern. */
static int
word_matches(const char *pat, const char *w)
{
	size_t n = strlen(pat);

	if (pat[0] == '-' && pat[1] == '-')
		return !strncmp(w, pat, n) && (w[n] == '\0' || w[n] == '=');
	if (pat[0] == '-' && pat[1] && !pat[2])
		return w[0] == '-' && w[1] != '-' && strchr(w + 1, pat[1]) != NULL;
	return fnmatch(pat, w, 0) == 0;
}

/* Global options of a program that take the next word as their value. */
static int
takes_value(const char *w)
{
	static const char *const opts[] = { "-C", "-c", "--git-dir", "--work-tree",
		"--namespace", "--exec-path", "-R", "--repo", "-n", "--namespace",
		"--context", "--kubeconfig", "--profile", "--region", "-chdir", NULL };
	int k;

	for (k = 0; opts[k]; k++)
		if (!strcmp(w, opts[k]))
			return 1;
	return 0;
}

/* Whether the simple command w[0..n) matches entry e. */
static int
simple_matches(char **w, int n, const char *e)
{
	char ebuf[256], *ew[32], *save = NULL, *t;
	const char *base;
	int ne = 0, i = 0, k;

	snprintf(ebuf, sizeof(ebuf), "%s", e);
	for (t = strtok_r(ebuf, " ", &save); t && ne < 32; t = strtok_r(NULL, " ", &save))
		ew[ne++] = t;
	while (i < n && strchr(w[i], '=') && w[i][0] != '-' && w[i][0] != '=')
		i++;                    /* VAR=value */
	if (i >= n || ne < 2)
		return 0;
	base = strrchr(w[i], '/') ? strrchr(w[i], '/') + 1 : w[i];
	if (strcmp(base, ew[0]) != 0)
		return 0;
	i++;
	for (k = 1; k < ne - 1; k++) {
		while (i < n && w[i][0] == '-') {
			if (takes_value(w[i]) && i + 1 < n)
				i++;
			i++;
		}
		if (i >= n || strcmp(w[i], ew[k]) != 0)
			return 0;
		i++;
	}
	for (; i < n; i++)
		if (word_matches(ew[ne - 1], w[i]))
			return 1;
	return 0;
}

static const char *
match_list(char **w, int n, const char *const *list, int count)
{
	int s, e, k;

	for (k = 0; k < count && list[k]; k++)
		for (s = 0; s < n; s = e + 1) {
			for (e = s; e < n && !is_sep(w[e]); e++)
				;
			if (simple_matches(w + s, e - s, list[k]))
				return list[k];
		}
	return NULL;
}

const char *
policy_always_ask(const struct policy *p, const char *command)
{
	char *buf, *w[AA_MAX_WORDS];
	const char *hit;
	size_t len;
	int n;

	if (!command)
		return NULL;
	len = strlen(command);
	if (!(buf = malloc(2 * len + 8)))
		return builtin_always_ask[0];   /* fail closed: ask */
	n = split(command, buf, 2 * len + 8, w, AA_MAX_WORDS);
	if (n >= AA_MAX_WORDS - 1) {
		free(buf);
		return "a command too long to check";
	}
	hit = match_list(w, n, builtin_always_ask, 1 << 30);
	if (!hit && p)
		hit = match_list(w, n, (const char *const *)p->always_ask.v, p->always_ask.n);
	free(buf);
	return hit;
}
