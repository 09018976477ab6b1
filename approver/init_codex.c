/*
 * init_codex.c - the Codex part of `sbx init --codex`: after the hook is
 * in .codex/hooks.json, make Codex trust the project and the hook in its
 * own config.toml, or say exactly what to add and fail (Codex skips an
 * untrusted hook without a word, so success must not be claimed then).
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "approver/codex_trust.h"
#include "approver/init_codex.h"
#include "approver/setup.h"

int
init_codex_trust(const char *folder, const char *bindir)
{
	char hook[PATH_MAX], q[2 * PATH_MAX], cmd[2 * PATH_MAX + 16], config[PATH_MAX];
	struct codex_hook h;
	struct sbx_err err = { "" };
	char *block;
	int r, created = 0, newline = 0;

	if (xsnprintf(hook, sizeof(hook), "%s/sbx-hook", bindir) < 0 ||
	    shell_quote(hook, q, sizeof(q)) < 0 ||
	    xsnprintf(cmd, sizeof(cmd), "%s codex", q) < 0) {
		fprintf(stderr, "sbx: path too long\n");
		return -1;
	}
	/* the exact command setup_add wrote, else any sbx-hook codex entry */
	if ((r = codex_hook_find(folder, cmd, &h, &err)) == 0)
		r = codex_hook_find(folder, NULL, &h, &err);
	if (r <= 0) {
		fprintf(stderr, "sbx: %s\n", r < 0 ? err.msg :
		    "sbx's hook is not in .codex/hooks.json after writing it");
		return -1;
	}
	if (codex_config_path(config, sizeof(config), &err) < 0 ||
	    (r = codex_trust_add(config, folder, &h, &created, &newline, &err)) < 0 ||
	    (r > 0 && setup_record_trust(folder, "codex-trust", config, created, newline, &err) < 0)) {
		fprintf(stderr, "sbx: %s\n", err.msg);
		fprintf(stderr, "sbx: Codex runs a project's hook only when the project and the "
		    "hook are trusted,\n     so until then Codex will NOT run sbx's hook in %s.\n"
		    "     Add these lines to %s yourself:\n\n", folder,
		    config[0] ? config : "~/.codex/config.toml");
		if ((block = codex_trust_block(folder, &h, 1, 1))) {
			fputs(block, stderr);
			free(block);
		}
		fprintf(stderr, "\n     (or trust them in codex's /hooks; a one-off run can "
		    "use `codex --dangerously-bypass-hook-trust`)\n");
		return -1;
	}
	printf(r ? "Codex trusts this folder and sbx's hook: wrote %s\n" :
	    "%s already trusts this folder and sbx's hook\n", config);
	printf("for Codex's MCP client add to %s (one sbx server per Codex home):\n"
	    "  [mcp_servers.sbx]\n  command = \"%s/sbx-mcp\"\n  args = [\"--folder\", \"%s\"]\n"
	    "  tool_timeout_sec = 600\n", config, bindir, folder);
	return 0;
}
