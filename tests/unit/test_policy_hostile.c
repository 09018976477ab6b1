/*
 * test_policy_hostile.c - hostile input: deep nesting, unclosed
 * everything, megabyte commands, NUL and invalid UTF-8 bytes, long
 * wrapper chains, random bytes. Each gets a verdict (never allow for what
 * cannot be read), never a crash or a hang. Run it under ASan/UBSan.
 * How long these take is measured in tests/bench, not asserted here.
 */
#include "policy/policy.h"
#include "policy/shell.h"
#include "tests/tap.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static struct policy *pol;

static struct policy_result
judge(const char *cmd)
{
	struct policy_result r;
	struct policy_call c;
	cJSON *in = cJSON_CreateObject();

	cJSON_AddStringToObject(in, "command", cmd);
	memset(&c, 0, sizeof(c));
	c.tool = "Bash";
	c.input = in;
	c.cwd = "/nonexistent-sbx/project";
	c.folder = "/nonexistent-sbx/project";
	c.home = "/nonexistent-sbx/home";
	c.config_dir = "/nonexistent-sbx/home/.config/sbx";
	policy_eval(pol, &c, &r);
	cJSON_Delete(in);
	return r;
}

/* prefix repeated n times, then middle, then suffix repeated n times */
static char *
nest(const char *prefix, const char *middle, const char *suffix, size_t n)
{
	size_t pl = strlen(prefix), ml = strlen(middle), sl = strlen(suffix), k;
	char *s = malloc(n * (pl + sl) + ml + 1), *o = s;

	if (s == NULL)
		exit(1);
	for (k = 0; k < n; k++, o += pl)
		memcpy(o, prefix, pl);
	memcpy(o, middle, ml);
	o += ml;
	for (k = 0; k < n; k++, o += sl)
		memcpy(o, suffix, sl);
	*o = '\0';
	return s;
}

static void
not_allowed(const char *what, char *cmd)
{
	struct policy_result r = judge(cmd);

	ok(r.verdict != POLICY_ALLOW, "%s: %s (%.80s)", what,
	    policy_verdict_name(r.verdict), r.reason);
	free(cmd);
}

static void
verdict_any(const char *what, char *cmd)
{
	struct policy_result r = judge(cmd);

	ok(r.verdict <= POLICY_DENY && r.reason[0] != '\0', "%s: %s", what,
	    policy_verdict_name(r.verdict));
	free(cmd);
}

int
main(void)
{
	struct policy_error err;
	size_t mib = (size_t)1 << 20, k;
	char *s;

	pol = policy_load_buffer("defaults", policy_default_text(),
	    strlen(policy_default_text()), "/nonexistent-sbx/project",
	    "/nonexistent-sbx/home/.config/sbx", &err);
	if (pol == NULL) {
		printf("Bail out! %s\n", err.msg);
		return 1;
	}
	is_str(policy_verdict_name(judge("ls").verdict), "allow", "sanity: ls");
	/* nesting 10,000 deep */
	not_allowed("10k $( )", nest("$(", "rm -rf /", ")", 10000));
	not_allowed("10k ( )", nest("(", "ls", ")", 10000));
	not_allowed("10k { }", nest("{ ", "rm -rf /", "; }", 10000));
	not_allowed("10k unclosed {", nest("{ ", "ls", "", 10000));
	not_allowed("10k unopened }", nest("", "ls", "; }", 10000));
	not_allowed("10k ${ }", nest("${a:-", "x", "}", 10000));
	not_allowed("10k \"$( )\"", nest("\"$(", "ls", ")\"", 10000));
	not_allowed("10k <( )", nest("cat <(", "ls", ")", 10000));
	not_allowed("10k $(( ))", nest("$((", "1", "))", 10000));
	not_allowed("10k if", nest("if true; then ", "rm -rf /", "; fi", 10000));
	not_allowed("10k backslashes before a backtick",
	    nest("\\", "`", "", 10000));
	not_allowed("10k bash -c", nest("bash -c '", "ls", "'", 10000));
	not_allowed("10k nice", nest("nice ", "rm -rf /", "", 10000));
	not_allowed("10k sudo", nest("sudo ", "ls", "", 10000));
	not_allowed("10k xargs", nest("xargs ", "ls", "", 10000));
	not_allowed("10k eval", nest("eval ", "ls", "", 10000));
	/* unclosed everything */
	not_allowed("unclosed '", strdup("echo 'abc"));
	not_allowed("unclosed \"", strdup("echo \"abc"));
	not_allowed("unclosed $(", strdup("echo $(ls"));
	not_allowed("unclosed `", strdup("echo `ls"));
	not_allowed("unclosed ${", strdup("echo ${x"));
	not_allowed("unclosed $((", strdup("echo $((1"));
	not_allowed("unclosed (", strdup("(ls"));
	not_allowed("unclosed $'", strdup("echo $'abc"));
	not_allowed("unclosed <(", strdup("cat <(ls"));
	not_allowed("unclosed here-doc", strdup("cat <<EOF\nabc"));
	not_allowed("dangling pipe", strdup("ls |"));
	not_allowed("dangling redirection", strdup("ls >"));
	not_allowed("all openers", strdup("'\"`$($((${(<(>({[[ "));
	not_allowed("lone backslash at the end of bash -c", strdup("bash -c 'ls\\"));
	/* 1 MiB commands */
	s = malloc(mib + 1);
	memset(s, 'a', mib);
	s[mib] = '\0';
	verdict_any("1 MiB word", s);
	s = malloc(mib + 1);
	for (k = 0; k < mib; k += 2) {
		s[k] = 'a';
		s[k + 1] = ';';
	}
	s[mib] = '\0';
	not_allowed("1 MiB of a; (too many commands)", s);
	s = malloc(mib + 1);
	for (k = 0; k < mib; k += 2) {
		s[k] = 'x';
		s[k + 1] = ' ';
	}
	s[mib] = '\0';
	not_allowed("1 MiB of words", s);
	s = malloc(mib + 2);
	s[0] = '\'';
	memset(s + 1, 'q', mib);
	s[mib + 1] = '\0';
	not_allowed("1 MiB unclosed quote", s);
	s = malloc(2 * mib + 1);
	memset(s, '(', 2 * mib);
	s[2 * mib] = '\0';
	not_allowed("2 MiB of (", s);
	s = malloc(mib + 16);
	strcpy(s, "echo ");
	memset(s + 5, '/', mib);
	s[mib + 5] = '\0';
	verdict_any("1 MiB of slashes", s);
	s = malloc(mib + 16);
	strcpy(s, "cat > ");
	memset(s + 6, '/', mib);
	s[mib + 6] = '\0';
	not_allowed("redirect to a 1 MiB path", s);
	s = nest("a/", "b", "", mib / 2);
	{
		char *c = malloc(strlen(s) + 8);

		sprintf(c, "rm -rf %s", s);
		free(s);
		not_allowed("rm of a 1 MiB path", c);
	}
	/* A variable assigned from itself: its old value is read while the
	 * new one is built (fuzz_bash found the overlap; ASan checks it). */
	verdict_any("f=$f self-assignment", strdup("f=abcdefgh; f=xy$f; f=$f$f$f; echo \"$f\""));
	not_allowed("self-assignment to a path outside", strdup("d=/etc; d=$d/../etc$d; rm -rf \"$d\""));
	/* invalid UTF-8 and control bytes */
	not_allowed("invalid UTF-8 name", strdup("\xff\xfe\xfd -rf /"));
	verdict_any("invalid UTF-8 argument", strdup("echo \xc3\x28 \xa0\xa1"));
	not_allowed("control bytes", strdup("r\x01m -rf /"));
	not_allowed("ANSI-C decoding to rm", strdup("$'\\x72\\x6d' -rf /"));
	not_allowed("ANSI-C decoding to a NUL", strdup("$'\\x00rm' -rf /"));
	{
		struct sh_parse p;
		static const char nul[] = "ls\0; rm -rf /";

		ok(sh_parse(nul, sizeof(nul) - 1, 0, &p) < 0, "NUL byte refused: %s",
		    p.problem);
		sh_parse_free(&p);
	}
	/* random bytes: a verdict every time */
	{
		unsigned long x = 12345;
		char buf[256];
		int i, j, crashed = 0;
		struct policy_result r;
		static const char alphabet[] =
		    " \t\n;&|()<>$`'\"\\{}[]*?~=#!-abcrmsudo/.0123456789x";

		for (i = 0; i < 20000; i++) {
			int n = (int)(x % 200);

			for (j = 0; j < n; j++) {
				x = x * 6364136223846793005UL + 1442695040888963407UL;
				buf[j] = alphabet[(x >> 33) % (sizeof(alphabet) - 1)];
			}
			buf[n] = '\0';
			x = x * 6364136223846793005UL + 1442695040888963407UL;
			r = judge(buf);
			if (r.reason[0] == '\0')
				crashed++;
		}
		is_int(crashed, 0, "20,000 random lines each got a verdict and reason");
	}
	/* hook payload shapes */
	{
		struct policy_result r;
		struct policy_call c;
		cJSON *in = cJSON_CreateObject();

		cJSON_AddNumberToObject(in, "command", 3);
		memset(&c, 0, sizeof(c));
		c.tool = "Bash";
		c.input = in;
		c.cwd = "relative";
		c.folder = "/nonexistent-sbx/project";
		policy_eval(pol, &c, &r);
		is_int(r.verdict, POLICY_DENY, "command of the wrong type denies");
		cJSON_Delete(in);
		c.input = NULL;
		c.tool = "Write";
		policy_eval(pol, &c, &r);
		is_int(r.verdict, POLICY_DENY, "Write without input denies");
	}
	policy_free(pol);
	return tap_done();
}
