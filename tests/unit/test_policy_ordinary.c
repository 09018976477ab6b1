/*
 * test_policy_ordinary.c - ordinary work passes at once: every line of
 * tests/unit/ordinary_commands.txt ($SBX_ORDINARY) is allowed by the
 * built-in defaults, judged from the root of a project that has the usual
 * directories, with a session temp dir in force.
 */
#include "policy/policy.h"
#include "tests/tap.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static char base[256], folder[PATH_MAX], home[PATH_MAX], cfg[PATH_MAX];
static char tmp[PATH_MAX];

static struct policy_result
judge(const struct policy *p, const char *cmd)
{
	struct policy_result r;
	struct policy_call c;
	cJSON *in = cJSON_CreateObject();

	cJSON_AddStringToObject(in, "command", cmd);
	memset(&c, 0, sizeof(c));
	c.tool = "Bash";
	c.input = in;
	c.cwd = folder;
	c.folder = folder;
	c.home = home;
	c.config_dir = cfg;
	c.tmpdir = tmp;
	policy_eval(p, &c, &r);
	cJSON_Delete(in);
	return r;
}

/* "\n" in a line stands for a newline. */
static void
unescape(char *s)
{
	char *o = s;

	for (; *s != '\0'; s++) {
		if (s[0] == '\\' && s[1] == 'n') {
			*o++ = '\n';
			s++;
		} else {
			*o++ = *s;
		}
	}
	*o = '\0';
}

int
main(void)
{
	char tmpl[] = "/tmp/sbx-test-ordinary-XXXXXX", *b = mkdtemp(tmpl);
	static const char *const dirs[] = {
		"proj", "proj/.sandbox", "proj/.git", "proj/src", "proj/build",
		"proj/build/out", "proj/tests", "proj/docs", "proj/sub",
		"proj/scripts", "proj/.venv", "proj/.venv/bin", "home", "tmp", NULL,
	};
	const char *name = getenv("SBX_ORDINARY");
	char line[8192], shown[8192], p2[PATH_MAX * 2];
	struct policy_error err;
	struct policy_result r;
	struct policy *p;
	FILE *f;
	int k, n = 0, allowed = 0;

	if (b == NULL) {
		printf("Bail out! mkdtemp\n");
		return 1;
	}
	snprintf(base, sizeof(base), "%s", b);
	for (k = 0; dirs[k] != NULL; k++) {
		snprintf(p2, sizeof(p2), "%s/%s", base, dirs[k]);
		mkdir(p2, 0700);
	}
	snprintf(folder, sizeof(folder), "%s/proj", base);
	snprintf(home, sizeof(home), "%s/home", base);
	snprintf(cfg, sizeof(cfg), "%s/home/.config/sbx", base);
	snprintf(tmp, sizeof(tmp), "%s/tmp", base);
	if (name == NULL)
		name = "tests/unit/ordinary_commands.txt";
	f = fopen(name, "r");
	if (f == NULL) {
		printf("Bail out! cannot open %s (run from the repository root or "
		    "set SBX_ORDINARY)\n", name);
		return 1;
	}
	p = policy_load_buffer("defaults", policy_default_text(),
	    strlen(policy_default_text()), folder, cfg, &err);
	if (p == NULL) {
		printf("Bail out! %s\n", err.msg);
		return 1;
	}
	while (fgets(line, sizeof(line), f) != NULL) {
		line[strcspn(line, "\n")] = '\0';
		if (line[0] == '\0' || line[0] == '#')
			continue;
		snprintf(shown, sizeof(shown), "%s", line);
		unescape(line);
		n++;
		r = judge(p, line);
		allowed += r.verdict == POLICY_ALLOW;
		ok(r.verdict == POLICY_ALLOW, "ordinary: %s -> %s (%s)", shown,
		    policy_verdict_name(r.verdict), r.reason);
	}
	fclose(f);
	ok(n >= 200, "the ordinary set has %d commands (200 or more)", n);
	printf("# ordinary commands allowed: %d of %d\n", allowed, n);
	policy_free(p);
	snprintf(p2, sizeof(p2), "rm -rf %s", base);
	if (system(p2) != 0)
		printf("# could not remove %s\n", base);
	return tap_done();
}
