/*
 * test_policy_corpus.c - the built-in defaults against the corpus of
 * dangerous and safe commands ($SBX_CORPUS, else tests/corpus relative to
 * the repository root, where the tests run; sources in
 * tests/corpus/SOURCES.md).
 *
 * Context. Corpus lines come without a project: dcg's and Dippy's tests
 * judge a command on its own, and Dippy's "dangerous" means "not provably
 * read-only", which includes writing into the current directory. So each
 * line is judged from a working directory OUTSIDE the project folder,
 * the strictest honest reading: a write to ./build is a write outside.
 * The test also reports (without asserting) how many dangerous lines the
 * defaults allow when run from inside the project: those are writes and
 * project code inside the project, which the defaults allow by design.
 *
 * Checks:
 * - every line of core_dangerous.txt gets a verdict other than allow;
 * - of the core_safe.txt lines labelled safe by Dippy (read-only), those
 *   that do not use the network, 95 % or more are allowed, and every one
 *   that is not is on the list of deliberate escalations below, with why.
 * It also prints, without asserting, the same figures for the whole
 * curated corpus (dangerous.txt, safe.txt). The 3 dangerous.txt lines
 * allowed at the time of writing are harmless: awk printing to
 * /dev/stderr, bash -c '' and command -V (a lookup).
 */
#include "policy/policy.h"
#include "tests/tap.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define MAX_LINE 8192

/* Safe-labelled lines the defaults escalate on purpose. */
static const struct {
	const char *command;
	const char *why;
} deliberate[] = {
	{ "docker ps | grep foo",
	  "docker talks to a daemon that is root-equivalent: escalated" },
	{ "docker logs app-$(date +%Y%m%d)",
	  "docker talks to a daemon that is root-equivalent: escalated" },
	{ "unknown-command --help",
	  "an unknown program runs whatever its arguments say" },
	{ "./mystery-script.sh --help",
	  "a script outside the project runs whatever it contains" },
	{ "xargs -I {} sh -c 'echo {}'",
	  "input lines become shell code: a line \"$(rm -rf ~)\" runs" },
	{ "xargs -I {} bash -c 'cat {}'",
	  "input lines become shell code: a line \"$(rm -rf ~)\" runs" },
	{ "xargs -I {} zsh -c 'head {}'",
	  "input lines become shell code: a line \"$(rm -rf ~)\" runs" },
	{ "xargs -e STOP head",
	  "GNU xargs reads -e without a value: STOP is then the command" },
	{ "xargs -a files.txt cat",
	  "the names come from a file the policy cannot see (-a LIST)" },
	{ "xargs --arg-file=list.txt head",
	  "the names come from a file the policy cannot see (-a LIST)" },
	{ "xargs -a files.txt -0 -n 1 cat",
	  "the names come from a file the policy cannot see (-a LIST)" },
};

/* Lines that use the network when run (left out of the safe figure). */
static int
uses_network(const char *s)
{
	static const char *const tools[] = {
		"curl", "wget", "aws", "kubectl", "gcloud", "cdk", NULL,
	};
	static const char *const uv[] = {
		"uv sync", "uv lock", "uv tree", "uv run", NULL,
	};
	const char *const *t;
	size_t n = strlen(s);

	/* --help prints locally */
	if (n > 7 && strcmp(s + n - 7, " --help") == 0)
		return 0;
	for (t = tools; *t != NULL; t++) {
		const char *p = s;
		size_t tl = strlen(*t);

		while ((p = strstr(p, *t)) != NULL) {
			int before = p == s || strchr(" \t|;&(`$\"'", p[-1]) != NULL;
			int after = p[tl] == '\0' || strchr(" \t|;&)`\"'", p[tl]) != NULL;

			if (before && after)
				return 1;
			p += tl;
		}
	}
	for (t = uv; *t != NULL; t++)
		if (strstr(s, *t) != NULL)
			return 1;
	return 0;
}

static const char *
deliberate_why(const char *s)
{
	size_t k;

	for (k = 0; k < sizeof(deliberate) / sizeof(deliberate[0]); k++)
		if (strcmp(deliberate[k].command, s) == 0)
			return deliberate[k].why;
	return NULL;
}

struct ctx {
	struct policy *p;
	char folder[PATH_MAX];
	char outside[PATH_MAX];
	char home[PATH_MAX];
	char cfg[PATH_MAX];
};

static void
judge(const struct ctx *cx, const char *cmd, const char *cwd,
    struct policy_result *r)
{
	struct policy_call c;
	cJSON *in = cJSON_CreateObject();

	cJSON_AddStringToObject(in, "command", cmd);
	memset(&c, 0, sizeof(c));
	c.tool = "Bash";
	c.input = in;
	c.cwd = cwd;
	c.folder = cx->folder;
	c.home = cx->home;
	c.config_dir = cx->cfg;
	policy_eval(cx->p, &c, r);
	cJSON_Delete(in);
}

static FILE *
open_corpus(const char *dir, const char *name)
{
	char path[PATH_MAX * 2];

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	return fopen(path, "r");
}

static int
read_line(FILE *f, char *buf, size_t n)
{
	if (fgets(buf, (int)n, f) == NULL)
		return 0;
	buf[strcspn(buf, "\n")] = '\0';
	return 1;
}

/* 1 if sources (third TSV field) name Dippy and the label is safe. */
static int
dippy_safe(const char *dir, const char *cmd)
{
	static char **lines;
	static size_t n;
	size_t k;

	if (lines == NULL) {
		FILE *f = open_corpus(dir, "curated_provenance.tsv");
		char buf[MAX_LINE], *t1, *t2, **grown;

		if (f == NULL)
			return 0;
		while (read_line(f, buf, sizeof(buf))) {
			t1 = strchr(buf, '\t');
			if (t1 == NULL)
				continue;
			t2 = strrchr(buf, '\t');
			if (t2 == t1 || strncmp(buf, "safe\t", 5) != 0 ||
			    strstr(t2, "dippy:") == NULL)
				continue;
			*t2 = '\0';
			grown = realloc(lines, (n + 1) * sizeof(*lines));
			if (grown == NULL)
				break;
			lines = grown;
			lines[n++] = strdup(t1 + 1);
		}
		fclose(f);
	}
	for (k = 0; k < n; k++)
		if (strcmp(lines[k], cmd) == 0)
			return 1;
	return 0;
}

/* Quotes s for the inside of '...'. Returns a static buffer. */
static const char *
squote(const char *s)
{
	static char out[MAX_LINE * 4];
	size_t o = 0;

	for (; *s != '\0' && o + 5 < sizeof(out); s++) {
		if (*s == '\'') {
			memcpy(out + o, "'\\''", 4);
			o += 4;
		} else {
			out[o++] = *s;
		}
	}
	out[o] = '\0';
	return out;
}

/*
 * Every core_dangerous line, wrapped in constructs that run it: none may
 * become allowed. Returns how many did (each is reported).
 */
static int
wrapped_dangerous(const struct ctx *cx, const char *dir)
{
	static const struct {
		const char *pre, *post;
		int quote;              /* inside '...' */
	} wraps[] = {
		{ "bash -c '", "'", 1 }, { "sh -c '", "'", 1 }, { "eval '", "'", 1 },
		{ "echo $( ", " )", 0 }, { "sudo ", "", 0 }, { "(", ")", 0 },
		{ "{ ", "; }", 0 }, { "echo x | ", "", 0 }, { "true && ", "", 0 },
		{ "false || ", "", 0 }, { "", " &", 0 }, { "nice ", "", 0 },
		{ "env ", "", 0 }, { "timeout 5 ", "", 0 },
		{ "if true; then ", "; fi", 0 }, { "for i in 1; do ", "; done", 0 },
	};
	size_t w;
	char line[MAX_LINE], cmd[MAX_LINE * 5];
	struct policy_result r;
	FILE *f = open_corpus(dir, "core_dangerous.txt");
	int bad = 0, total = 0;

	if (f == NULL)
		return 1;
	while (read_line(f, line, sizeof(line))) {
		for (w = 0; w < sizeof(wraps) / sizeof(wraps[0]); w++) {
			snprintf(cmd, sizeof(cmd), "%s%s%s", wraps[w].pre,
			    wraps[w].quote ? squote(line) : line, wraps[w].post);
			total++;
			judge(cx, cmd, cx->outside, &r);
			if (r.verdict == POLICY_ALLOW) {
				bad++;
				printf("#   allowed when wrapped: %s\n", cmd);
			}
		}
	}
	fclose(f);
	printf("# %d wrapped dangerous commands judged\n", total);
	return bad;
}

int
main(void)
{
	const char *dir = getenv("SBX_CORPUS");
	char tmpl[] = "/tmp/sbx-test-corpus-XXXXXX", *base;
	char line[MAX_LINE];
	struct policy_error err;
	struct policy_result r;
	struct ctx cx;
	FILE *f;
	int n = 0, nonallow = 0, inside_allowed = 0;
	int safe_total = 0, safe_allowed = 0, safe_net = 0;

	if (dir == NULL || dir[0] == '\0')
		dir = "tests/corpus";
	f = open_corpus(dir, "core_dangerous.txt");
	if (f == NULL) {
		printf("Bail out! corpus not found: %s/core_dangerous.txt "
		    "(set SBX_CORPUS to the corpus directory)\n", dir);
		return 1;
	}
	base = mkdtemp(tmpl);
	if (base == NULL) {
		printf("Bail out! mkdtemp failed\n");
		return 1;
	}
	snprintf(cx.folder, sizeof(cx.folder), "%s/project", base);
	snprintf(cx.outside, sizeof(cx.outside), "%s/elsewhere", base);
	snprintf(cx.home, sizeof(cx.home), "%s/home", base);
	snprintf(cx.cfg, sizeof(cx.cfg), "%s/home/.config/sbx", base);
	mkdir(cx.folder, 0700);
	mkdir(cx.outside, 0700);
	mkdir(cx.home, 0700);
	cx.p = policy_load_buffer("defaults", policy_default_text(),
	    strlen(policy_default_text()), cx.folder, cx.cfg, &err);
	if (cx.p == NULL) {
		printf("Bail out! defaults do not load: %s\n", err.msg);
		return 1;
	}
	is_str(policy_verdict_name(POLICY_ALLOW), "allow", "verdict names");

	while (read_line(f, line, sizeof(line))) {
		n++;
		judge(&cx, line, cx.outside, &r);
		if (!ok(r.verdict != POLICY_ALLOW, "dangerous not allowed: %s", line))
			printf("#   %s [%s]\n", r.reason, r.rule);
		else
			nonallow++;
		judge(&cx, line, cx.folder, &r);
		if (r.verdict == POLICY_ALLOW)
			inside_allowed++;
	}
	fclose(f);
	printf("# core_dangerous: %d of %d lines get a verdict other than allow\n",
	    nonallow, n);
	is_int(wrapped_dangerous(&cx, dir), 0,
	    "no dangerous line becomes allowed when wrapped in sh -c, $( ), "
	    "eval, sudo, a subshell, a group, a pipe or a list");
	printf("# (judged from inside the project, %d of them are allowed: writes\n"
	    "#  and project code inside the project, allowed by design)\n",
	    inside_allowed);
	is_int(nonallow, n, "every core_dangerous line is escalated or denied");

	f = open_corpus(dir, "core_safe.txt");
	ok(f != NULL, "core_safe.txt found");
	while (f != NULL && read_line(f, line, sizeof(line))) {
		const char *why;

		if (!dippy_safe(dir, line))
			continue;
		if (uses_network(line)) {
			safe_net++;
			continue;
		}
		safe_total++;
		judge(&cx, line, cx.outside, &r);
		if (r.verdict == POLICY_ALLOW) {
			safe_allowed++;
			continue;
		}
		why = deliberate_why(line);
		if (!ok(why != NULL, "safe line escalated on purpose: %s", line))
			printf("#   %s: %s [%s]\n", policy_verdict_name(r.verdict),
			    r.reason, r.rule);
		else
			printf("#   deliberate: %s -- %s\n", line, why);
	}
	if (f != NULL)
		fclose(f);
	printf("# core_safe (Dippy read-only, no network): %d of %d allowed "
	    "(%.1f %%); %d network lines left out\n", safe_allowed, safe_total,
	    safe_total ? 100.0 * safe_allowed / safe_total : 0.0, safe_net);
	ok(safe_total > 100, "enough safe lines to measure (%d)", safe_total);
	/* For information: the whole curated corpus, nothing asserted. */
	f = open_corpus(dir, "dangerous.txt");
	if (f != NULL) {
		int all = 0, na = 0;

		while (read_line(f, line, sizeof(line))) {
			all++;
			judge(&cx, line, cx.outside, &r);
			na += r.verdict != POLICY_ALLOW;
		}
		fclose(f);
		printf("# dangerous.txt (all sources): %d of %d not allowed\n", na, all);
	}
	f = open_corpus(dir, "safe.txt");
	if (f != NULL) {
		int all = 0, al = 0;

		while (read_line(f, line, sizeof(line))) {
			if (!dippy_safe(dir, line) || uses_network(line))
				continue;
			all++;
			judge(&cx, line, cx.outside, &r);
			al += r.verdict == POLICY_ALLOW;
		}
		fclose(f);
		printf("# safe.txt, Dippy read-only without network: %d of %d allowed"
		    " (%.1f %%)\n", al, all, all ? 100.0 * al / all : 0.0);
	}
	/* every line not allowed is in deliberate[] with its reason (above);
	 * the floor catches a change that loses many at once */
	ok(safe_total > 0 && safe_allowed * 100 >= safe_total * 90,
	    "90 %% or more of the local read-only safe lines are allowed");
	policy_free(cx.p);
	{
		char cmd[PATH_MAX + 16];

		snprintf(cmd, sizeof(cmd), "rm -rf %s", base);
		if (system(cmd) != 0)
			printf("# could not remove %s\n", base);
	}
	return tap_done();
}
