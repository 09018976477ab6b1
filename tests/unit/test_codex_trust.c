/*
 * test_codex_trust.c - the TOML structure scanner and the hook hash
 * behind `sbx init --codex` (approver/codex_trust.c, included for its
 * statics). The hash vector was checked against the real Codex 0.171.0:
 * with it in config.toml, Codex ran the hook; with one digit changed, it
 * skipped it (tests/agents/run.sh does that end to end).
 */
#include "approver/codex_trust.c"
#include "tests/tap.h"

static int
scans(const char *text)
{
	struct scan sc = { .s = text, .len = strlen(text) };

	return scan_toml(&sc);
}

/* What look_at finds for folder /p and key K in text. */
static int
look(const char *text, struct codex_trust_state *st, struct look *L)
{
	struct sbx_err err = { "" };

	return look_at(text, strlen(text), "/p", "K", st, L, &err, "config.toml");
}

int
main(void)
{
	static const char *const good[] = {
		"",
		"# only a comment\n",
		"a = 1\nb = \"x\" # c\n[t]\nc = [1, 2,\n 3]\n",
		"[a.\"b.c\".'d']\nx = { y = 1, z = [ { w = 2 } ] }\n",
		"s = \"\"\"\nmulti [not.a.table]\n\"\"\"\nt = '''\n'''\n",
		"s = \"\"\"a\"\"\"\"\nu = \"\\u00e9\\U0001F600\"\n",
		"d = 1979-05-27 07:32:00Z\ne = 1979-05-27T07:32:00-08:00\nf = +inf\n",
		"[[arr]]\nx = 1\n[[arr]]\nx = 2\n",
		"k = 1\r\n[t]\r\nv = \"w\"\r\n",
		"\xEF\xBB\xBF" "bom = true\n",
		"no_final_newline = 1",
	};
	static const char *const bad[] = {
		"a = \"unclosed\n",
		"s = \"\"\"\nnever closed\n",
		"x = [1, 2\n",
		"[table\n",
		"just words\n",
		"a = 1 b = 2\n",
		"a = \"\\q\"\n",
		"a = \"\\u12\"\n",
		"= 1\n",
		"a = \n",
		"a = { b = 1\n",
	};
	char h[CODEX_HASH_LEN], deep[4096];
	struct codex_trust_state st;
	struct look L;
	unsigned seed = 17;
	size_t i, k;

	for (i = 0; i < sizeof(good) / sizeof(good[0]); i++)
		ok(scans(good[i]) == 0, "good[%zu] scans", i);
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		ok(scans(bad[i]) < 0, "bad[%zu] is refused", i);

	/* nesting beyond the cap is refused, not recursed into */
	memset(deep, '[', sizeof(deep) - 8);
	memcpy(deep, "a = ", 4);
	deep[sizeof(deep) - 8] = '\0';
	ok(scans(deep) < 0, "4000 nested arrays are refused");

	/* random bytes and random TOML-ish soup never crash the scanner */
	for (k = 0; k < 20000; k++) {
		static const char alphabet[] = "[]{}\"'=.#,\n \\abc1-:";
		char buf[64];
		size_t n = 1 + (seed = seed * 1103515245 + 12345) % 63;

		for (i = 0; i < n; i++) {
			seed = seed * 1103515245 + 12345;
			buf[i] = k % 2 ? alphabet[(seed >> 16) % (sizeof(alphabet) - 1)] :
			    (char)(1 + (seed >> 16) % 255);
		}
		buf[n] = '\0';
		(void)scans(buf);
	}
	ok(1, "20000 random inputs scanned without a crash");

	/* the hash Codex computes (verified with codex-cli 0.171.0) */
	ok(codex_hook_hash("pre_tool_use", NULL, "/work/wt/codex/bin/sbx-hook codex", 330, 0,
	    NULL, h) == 0, "hash computed");
	is_str(h, "sha256:66bccaea92ead906a4f75dc0254a43f0037ddf052411040f6fa259f42fc50275",
	    "the hash of sbx's hook declaration, as Codex 0.171.0 computes it");
	codex_hook_hash("pre_tool_use", NULL, "/work/wt/codex/bin/sbx-hook codex", 331, 0, NULL, h);
	ok(strcmp(h, "sha256:66bccaea92ead906a4f75dc0254a43f0037ddf052411040f6fa259f42fc50275"),
	    "another timeout, another hash");

	/* clashes and the user's own records */
	ok(look("[projects.\"/p\"]\ntrust_level = \"trusted\"\n", &st, &L) == 0 && !L.clash &&
	    L.proj_user && !strcmp(st.trust_level, "trusted"), "the user's own trusted project");
	ok(look("[projects]\n\"/p\" = { trust_level = \"trusted\" }\n", &st, &L) == 0 && L.clash,
	    "an inline table for the project clashes");
	ok(look("projects.\"/p\".trust_level = \"trusted\"\n", &st, &L) == 0 && L.clash,
	    "dotted keys for the project clash");
	ok(look("[projects.\"/p\".sub]\nx = 1\n", &st, &L) == 0 && L.clash,
	    "a sub-table of the project clashes");
	ok(look("[projects]\n\"/other\".trust_level = \"trusted\"\n[hooks]\nPreToolUse = []\n",
	    &st, &L) == 0 && !L.clash && !L.proj_user, "other projects and hooks do not clash");
	ok(look("hooks = { state = {} }\n", &st, &L) == 0 && L.clash,
	    "hooks as an inline table clashes");
	ok(look("[hooks.state.K]\nenabled = false\n", &st, &L) == 0 && !L.clash &&
	    L.state_user && st.hook_disabled, "the user's disabled hook is seen");
	ok(look("[mcp_servers.sbx]\ncommand = \"/bin/sbx-mcp\"\nargs = [\"--folder\", \"/p\"]\n",
	    &st, &L) == 0 && !strcmp(st.mcp_command, "/bin/sbx-mcp"), "the MCP server's command");
	ok(look("x = 1\n# >>> sbx codex trust: /p\n[projects.\"/p\"]\ntrust_level = \"trusted\"\n",
	    &st, &L) < 0, "a begin marker without its end is an error");
	return tap_done();
}
