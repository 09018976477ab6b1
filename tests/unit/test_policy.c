/*
 * test_policy.c - policy loading, defaults, self-protection and the
 * verdicts of the four triggers.
 */
#include "policy/policy.h"
#include "tests/tap.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static char folder[PATH_MAX];   /* a real temporary project */
static char home[PATH_MAX];     /* a fake home next to it */
static char cfg[PATH_MAX];

static struct policy *
load_text(const char *text, struct policy_error *err)
{
	return policy_load_buffer("policy.json", text, strlen(text), folder, cfg,
	    err);
}

static void
write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	if (f == NULL) {
		perror(path);
		exit(1);
	}
	fputs(text, f);
	fclose(f);
}

static struct policy_result
eval_tool(const struct policy *p, const char *tool, const char *key,
    const char *val, const char *cwd)
{
	struct policy_result r;
	struct policy_call c;
	cJSON *in = cJSON_CreateObject();

	if (key != NULL)
		cJSON_AddStringToObject(in, key, val);
	memset(&c, 0, sizeof(c));
	c.tool = tool;
	c.input = in;
	c.cwd = cwd ? cwd : folder;
	c.folder = folder;
	c.home = home;
	c.config_dir = cfg;
	policy_eval(p, &c, &r);
	cJSON_Delete(in);
	return r;
}

static enum policy_verdict
sh(const struct policy *p, const char *cmd)
{
	return eval_tool(p, "Bash", "command", cmd, NULL).verdict;
}

#define SH(p, cmd, want) \
	is_str(policy_verdict_name(sh(p, cmd)), policy_verdict_name(want), \
	    "%s: %s", policy_verdict_name(want), cmd)

static void
test_loading(void)
{
	struct policy_error err;
	struct policy *p;
	char dir[PATH_MAX + 32], path[PATH_MAX + 64];

	p = load_text(policy_default_text(), &err);
	ok(p != NULL, "the default text validates (%s)", err.msg);
	policy_free(p);

	p = load_text("{}", &err);
	ok(p != NULL, "{} is a valid policy");
	is_int(policy_limits(p)->hook_wait_seconds, 300, "default hook wait");
	is_int(policy_limits(p)->max_pending, 20, "default max_pending");
	is_int(policy_limits(p)->max_per_minute, 30, "default max_per_minute");
	is_int(policy_limits(p)->request_ttl_seconds, 3600, "default ttl");
	is_int(policy_limits(p)->exec_timeout_seconds, 600, "default exec timeout");
	is_int(policy_limits(p)->output_cap_bytes, 1048576, "default output cap");
	policy_free(p);

	p = load_text("", &err);
	ok(p == NULL && strstr(err.msg, "empty") != NULL, "empty text: %s", err.msg);
	p = load_text("  \n ", &err);
	ok(p == NULL && strstr(err.msg, "empty") != NULL, "blank text is empty");
	p = load_text("{\n  \"allow\": [\n  ,\n]}", &err);
	ok(p == NULL && strstr(err.msg, "not valid JSON") != NULL &&
	    strstr(err.msg, "line 3") != NULL, "bad JSON names the line: %s",
	    err.msg);
	p = load_text("[]", &err);
	ok(p == NULL && strstr(err.msg, "object") != NULL, "array rejected");
	p = load_text("{\n\"filesystem\": {\n  \"allowWirte\": []\n}}", &err);
	ok(p == NULL, "unknown key rejected");
	ok(strstr(err.msg, "line 3") != NULL, "unknown key: line 3: %s", err.msg);
	ok(strstr(err.msg, "did you mean \"allowWrite\"") != NULL,
	    "unknown key: hint");
	ok(strstr(err.msg, "policy.json") != NULL, "message names the file");
	p = load_text("{\"alow\": []}", &err);
	ok(p == NULL && strstr(err.msg, "\"allow\"") != NULL, "top-level hint: %s",
	    err.msg);
	p = load_text("{\"zzzzzzzz\": 1}", &err);
	ok(p == NULL && strstr(err.msg, "did you mean") == NULL,
	    "no hint when nothing is close");
	p = load_text("{\"allow\": \"Bash(ls)\"}", &err);
	ok(p == NULL && strstr(err.msg, "array") != NULL, "wrong type: %s", err.msg);
	p = load_text("{\"allow\": [1]}", &err);
	ok(p == NULL && strstr(err.msg, "strings") != NULL, "number in a rule list");
	p = load_text("{\"limits\": {\"max_pending\": \"5\"}}", &err);
	ok(p == NULL && strstr(err.msg, "number") != NULL, "limit type: %s", err.msg);
	p = load_text("{\"limits\": {\"max_pending\": 2.5}}", &err);
	ok(p == NULL && strstr(err.msg, "whole") != NULL, "limit fraction");
	p = load_text("{\"limits\": {\"max_pending\": 0}}", &err);
	ok(p == NULL && strstr(err.msg, "between") != NULL, "limit range");
	p = load_text("{\"limits\": {\"max_pending\": 1e999}}", &err);
	ok(p == NULL && strstr(err.msg, "between") != NULL, "limit overflow");
	p = load_text("{\"limits\": {\"max_pending\": -1e999}}", &err);
	ok(p == NULL, "limit -inf");
	p = load_text("{\"limits\": {\"max_pendnig\": 3}}", &err);
	ok(p == NULL && strstr(err.msg, "max_pending") != NULL, "limit hint");
	p = load_text("{\"limits\": {\"max_pending\": 5, \"hook_wait_seconds\": 60,"
	    "\"output_cap_bytes\": 4096}}", &err);
	ok(p != NULL, "limits read");
	is_int(policy_limits(p)->max_pending, 5, "max_pending set");
	is_int(policy_limits(p)->hook_wait_seconds, 60, "hook wait set");
	is_int(policy_limits(p)->output_cap_bytes, 4096, "output cap set");
	is_int(policy_limits(p)->max_per_minute, 30, "others keep defaults");
	policy_free(p);
	p = load_text("{\"allow\": [], \"allow\": []}", &err);
	ok(p == NULL && strstr(err.msg, "duplicate") != NULL, "duplicate key");
	p = load_text("{\"deny\": [\"Bash(a\\u0000b)\"]}", &err);
	ok(p == NULL && strstr(err.msg, "u0000") != NULL, "\\u0000 rejected");
	p = load_text("{\"version\": 2}", &err);
	ok(p == NULL, "unknown version rejected");
	p = load_text("{} x", &err);
	ok(p == NULL, "trailing text rejected");
	/* rules */
	p = load_text("{\"allow\": [\"Bsh(ls)\"]}", &err);
	ok(p == NULL && strstr(err.msg, "did you mean \"Bash\"") != NULL,
	    "unknown tool hint: %s", err.msg);
	p = load_text("{\"allow\": [\"Bash(ls\"]}", &err);
	ok(p == NULL && strstr(err.msg, ")") != NULL, "unclosed rule");
	p = load_text("{\"allow\": [\"Bash\"]}", &err);
	ok(p == NULL && strstr(err.msg, "every") != NULL, "bare Bash allow refused");
	p = load_text("{\"allow\": [\"WebFetch(github.com)\"]}", &err);
	ok(p == NULL && strstr(err.msg, "domain:") != NULL, "WebFetch needs domain:");
	p = load_text("{\"network\": {\"allowedDomains\": [\"https://x.com\"]}}", &err);
	ok(p == NULL && strstr(err.msg, "domain") != NULL, "URL is not a domain");
	p = load_text("{\"allow\": [\"Bash()\"]}", &err);
	ok(p == NULL, "empty pattern rejected");
	p = load_text("{\"deny\": [\"Read(~bob/.ssh/**)\"]}", &err);
	ok(p == NULL && strstr(err.msg, "~user") != NULL,
	    "a deny rule that could never match is refused: %s", err.msg);
	p = load_text("{\"deny\": [\"WebFetch(domain:https://x.com)\"]}", &err);
	ok(p == NULL && strstr(err.msg, "host name") != NULL, "domain: takes a host");
	p = load_text("{\"allow\": [\"Bash(npm run test:*)\", \"Read(./.env)\","
	    "\"Edit(/src/**)\", \"WebFetch(domain:github.com)\", \"mcp__srv__tool\","
	    "\"WebSearch\"], \"escalate\": [\"Bash(git push:*)\"],"
	    "\"deny\": [\"Bash(rm -rf:*)\"], \"comment\": \"x\"}", &err);
	ok(p != NULL, "all rule forms load (%s)", err.msg);
	policy_free(p);

	/* policy_load: from disk */
	snprintf(dir, sizeof(dir), "%s/.sandbox", folder);
	snprintf(path, sizeof(path), "%s/policy.json", dir);
	unlink(path);
	p = policy_load(folder, cfg, &err);
	ok(p == NULL && strstr(err.msg, "missing") != NULL, "missing file: %s",
	    err.msg);
	write_file(path, "");
	p = policy_load(folder, cfg, &err);
	ok(p == NULL && strstr(err.msg, "empty") != NULL &&
	    strstr(err.msg, ".sandbox/policy.json") != NULL, "empty file: %s",
	    err.msg);
	write_file(path, "{\n\"deny\": [\"Bash(curl:*)\"],\n\"network\": 3\n}\n");
	p = policy_load(folder, cfg, &err);
	ok(p == NULL && strstr(err.msg, "line 3") != NULL &&
	    strstr(err.msg, "object") != NULL, "wrong type from disk: %s", err.msg);
	write_file(path, policy_default_text());
	chmod(path, 0666);
	p = policy_load(folder, cfg, &err);
	ok(p == NULL && strstr(err.msg, "everyone") != NULL,
	    "world-writable policy refused: %s", err.msg);
	chmod(path, 0644);
	p = policy_load(folder, cfg, &err);
	ok(p != NULL, "default text loads from disk");
	policy_free(p);
	unlink(path);
	if (symlink("/etc/hostname", path) == 0) {
		p = policy_load(folder, cfg, &err);
		ok(p == NULL && strstr(err.msg, "symlink") != NULL,
		    "symlinked policy refused: %s", err.msg);
		unlink(path);
	}
	p = policy_load("relative", cfg, &err);
	ok(p == NULL, "relative folder refused");
	write_file(path, policy_default_text());
}

static void
test_defaults(void)
{
	struct policy_error err;
	struct policy *p = load_text(policy_default_text(), &err);
	struct policy_result r;
	char path[PATH_MAX * 2];

	/* tools */
	r = eval_tool(p, "Read", "file_path", "src/main.c", NULL);
	is_int(r.verdict, POLICY_ALLOW, "Read in the project");
	is_str(r.trigger, "read", "Read trigger");
	r = eval_tool(p, "Read", "file_path", "/etc/hostname", NULL);
	is_int(r.verdict, POLICY_ALLOW, "Read outside the project is a read");
	r = eval_tool(p, "Read", "file_path", "~/.ssh/id_rsa", NULL);
	is_int(r.verdict, POLICY_ESCALATE, "Read ~/.ssh escalates");
	ok(r.factors & POLICY_F_SECRET_READ, "secret-read factor");
	r = eval_tool(p, "Read", "file_path", ".env.local", NULL);
	is_int(r.verdict, POLICY_ESCALATE, "Read .env* escalates");
	r = eval_tool(p, "Read", "file_path", "deploy/server.pem", NULL);
	is_int(r.verdict, POLICY_ESCALATE, "Read a private key escalates");
	snprintf(path, sizeof(path), "%s/keys/x", cfg);
	r = eval_tool(p, "Read", "file_path", path, NULL);
	is_int(r.verdict, POLICY_ESCALATE, "Read the config dir escalates");
	r = eval_tool(p, "Glob", "pattern", "**/*.c", NULL);
	is_int(r.verdict, POLICY_ALLOW, "Glob in the project");
	is_str(r.trigger, "read", "Glob is a read");
	r = eval_tool(p, "Edit", "file_path", "a.c", NULL);
	is_str(r.trigger, "write", "Edit is a write");
	r = eval_tool(p, "Bash", "command", "ls", NULL);
	is_str(r.trigger, "shell", "Bash is the shell");
	r = eval_tool(p, "Grep", "path", "~/.aws", NULL);
	is_int(r.verdict, POLICY_ESCALATE, "Grep in ~/.aws escalates");
	r = eval_tool(p, "Grep", "glob", ".env*", NULL);
	is_int(r.verdict, POLICY_ESCALATE, "Grep with a glob for .env escalates");
	r = eval_tool(p, "Grep", "glob", "*.py", NULL);
	is_int(r.verdict, POLICY_ALLOW, "Grep with a glob for *.py passes");
	r = eval_tool(p, "Write", "file_path", "notes.md", NULL);
	is_int(r.verdict, POLICY_ALLOW, "Write in the project");
	snprintf(path, sizeof(path), "%s/src/new/file.c", folder);
	r = eval_tool(p, "Edit", "file_path", path, NULL);
	is_int(r.verdict, POLICY_ALLOW, "Edit an absolute path in the project");
	r = eval_tool(p, "Write", "file_path", "/etc/passwd", NULL);
	is_int(r.verdict, POLICY_ESCALATE, "Write outside escalates");
	ok(r.factors & POLICY_F_WRITE_OUTSIDE, "write-outside factor");
	{
		struct policy_call c;
		cJSON *in = cJSON_Parse("{\"file_path\": \"/var/tmp/sbx-t/x\"}");

		memset(&c, 0, sizeof(c));
		c.tool = "Write";
		c.input = in;
		c.cwd = folder;
		c.folder = folder;
		c.home = home;
		policy_eval(p, &c, &r);
		is_int(r.verdict, POLICY_ESCALATE, "no temp dir given: outside");
		c.tmpdir = "/var/tmp";
		policy_eval(p, &c, &r);
		is_int(r.verdict, POLICY_ALLOW, "Write in the session's temp dir");
		cJSON_Delete(in);
		in = cJSON_Parse("{\"file_path\": \"/var/tmp/../etc/x\"}");
		c.input = in;
		policy_eval(p, &c, &r);
		is_int(r.verdict, POLICY_ESCALATE, "the temp dir does not lead out");
		cJSON_Delete(in);
	}
	r = eval_tool(p, "Write", "file_path", "../other/x", NULL);
	is_int(r.verdict, POLICY_ESCALATE, "Write via .. escalates");
	r = eval_tool(p, "Write", "file_path", ".git/hooks/pre-commit", NULL);
	is_int(r.verdict, POLICY_ESCALATE, "Write .git/hooks escalates");
	r = eval_tool(p, "Edit", "file_path", ".git/config", NULL);
	is_int(r.verdict, POLICY_ESCALATE, "Edit .git/config escalates");
	/* a gitfile names the repository (and config) git obeys */
	r = eval_tool(p, "Write", "file_path", "sub/.git", NULL);
	is_int(r.verdict, POLICY_ESCALATE, "Write sub/.git (a gitfile) escalates");
	r = eval_tool(p, "Write", "file_path", "x/.git/commondir", NULL);
	is_int(r.verdict, POLICY_ESCALATE, "Write x/.git/commondir escalates");
	r = eval_tool(p, "Write", "file_path", NULL, NULL);
	is_int(r.verdict, POLICY_DENY, "Write without a path denies");
	r = eval_tool(p, "Bash", NULL, NULL, NULL);
	is_int(r.verdict, POLICY_DENY, "Bash without a command denies");
	{
		struct policy_call c;
		cJSON *in = cJSON_Parse("{\"command\": [\"bash\", \"-lc\", "
		    "\"rm -rf /\"]}");

		memset(&c, 0, sizeof(c));
		c.tool = "Bash";
		c.input = in;
		c.cwd = folder;
		c.folder = folder;
		c.home = home;
		policy_eval(p, &c, &r);
		is_int(r.verdict, POLICY_DENY, "argv array: bash -lc 'rm -rf /'");
		cJSON_Delete(in);
		in = cJSON_Parse("{\"command\": [\"echo\", \"it's; rm -rf /\"]}");
		c.input = in;
		policy_eval(p, &c, &r);
		is_int(r.verdict, POLICY_ALLOW, "argv array: words are not code");
		cJSON_Delete(in);
		in = cJSON_Parse("{\"command\": [\"ls\", 3]}");
		c.input = in;
		policy_eval(p, &c, &r);
		is_int(r.verdict, POLICY_DENY, "argv array with a number denies");
		cJSON_Delete(in);
	}
	r = eval_tool(p, "WebFetch", "url", "https://example.com/x", NULL);
	is_int(r.verdict, POLICY_ESCALATE, "WebFetch unknown host escalates");
	is_str(r.trigger, "network", "WebFetch trigger");
	r = eval_tool(p, "WebSearch", "query", "x", NULL);
	is_int(r.verdict, POLICY_ESCALATE, "WebSearch escalates by default");
	r = eval_tool(p, "FrobnicateTool", NULL, NULL, NULL);
	is_int(r.verdict, POLICY_ESCALATE, "unknown tool escalates");
	r = eval_tool(p, "mcp__other__do", NULL, NULL, NULL);
	is_int(r.verdict, POLICY_ESCALATE, "unknown MCP tool escalates");
	r = eval_tool(p, "mcp__sbx__run_privileged", NULL, NULL, NULL);
	is_int(r.verdict, POLICY_ALLOW, "sbx's own MCP tools pass");
	r = eval_tool(p, "TodoWrite", NULL, NULL, NULL);
	is_int(r.verdict, POLICY_ALLOW, "TodoWrite passes");
	{
		struct policy_call c;
		cJSON *in = cJSON_Parse("{\"file_path\": \"/root/.ssh/id_rsa\"}");

		memset(&c, 0, sizeof(c));
		c.tool = "Read";
		c.input = in;
		c.cwd = folder;
		c.folder = folder;
		policy_eval(p, &c, &r);
		is_int(r.verdict, POLICY_ESCALATE, "no home: ~ rules fail closed");
		cJSON_Delete(in);
		in = cJSON_Parse("{\"file_path\": \"src/a.c\"}");
		c.input = in;
		c.tool = "Write";
		policy_eval(p, &c, &r);
		is_int(r.verdict, POLICY_DENY, "no home: ~/.claude protection holds");
		cJSON_Delete(in);
	}
	r = eval_tool(NULL, "Read", "file_path", "x", NULL);
	is_int(r.verdict, POLICY_DENY, "no policy denies");
	r = eval_tool(p, "", NULL, NULL, NULL);
	is_int(r.verdict, POLICY_DENY, "empty tool name denies");
	r = eval_tool(p, "apply_patch", "command",
	    "*** Begin Patch\n*** Update File: src/a.c\n@@\n-x\n+y\n*** End Patch\n",
	    NULL);
	is_int(r.verdict, POLICY_ALLOW, "apply_patch in the project");
	r = eval_tool(p, "apply_patch", "command",
	    "*** Begin Patch\n*** Add File: .mcp.json\n+{}\n*** End Patch\n", NULL);
	is_int(r.verdict, POLICY_DENY, "apply_patch on .mcp.json denied");

	/* shell: harmless, writes, privilege, catastrophes */
	SH(p, "ls -la", POLICY_ALLOW);
	SH(p, "git status", POLICY_ALLOW);
	SH(p, "cat README.md | grep foo | wc -l", POLICY_ALLOW);
	SH(p, "echo hi > out.txt", POLICY_ALLOW);
	SH(p, "echo hi >> /tmp/../etc/profile", POLICY_ESCALATE);
	SH(p, "sudo ls", POLICY_ESCALATE);
	SH(p, "su -c ls", POLICY_ESCALATE);
	SH(p, "doas ls", POLICY_ESCALATE);
	SH(p, "pkexec ls", POLICY_ESCALATE);
	SH(p, "chmod u+s ./tool", POLICY_ESCALATE);
	SH(p, "setcap cap_net_raw+ep ./tool", POLICY_ESCALATE);
	SH(p, "rm -rf /", POLICY_DENY);
	SH(p, "rm -rf /*", POLICY_DENY);
	SH(p, "rm -fr ~", POLICY_DENY);
	SH(p, "sudo rm -rf --no-preserve-root /", POLICY_DENY);
	SH(p, "mkfs.ext4 /dev/sda1", POLICY_DENY);
	SH(p, ":(){ :|:& };:", POLICY_DENY);
	SH(p, "dd if=/dev/zero of=/dev/sda", POLICY_DENY);
	SH(p, "frobnicate --all", POLICY_ESCALATE);
	SH(p, "rm -rf build", POLICY_ALLOW);
	r = eval_tool(p, "Bash", "command", "rm -rf build", NULL);
	ok(r.factors & POLICY_F_DESTRUCTIVE, "rm -r is marked destructive");
	policy_free(p);
}

static void
test_self_protection(void)
{
	struct policy_error err;
	struct policy *p;
	struct policy_result r;
	char path[PATH_MAX * 2];

	/* even a file that allows everything cannot lift it */
	p = load_text("{\"allow\": [\"Edit(/**)\", \"Bash(rm:*)\","
	    "\"Bash(echo:*)\"], \"filesystem\": {\"allowWrite\": [\"/\"]}}", &err);
	ok(p != NULL, "permissive policy loads (%s)", err.msg);
	r = eval_tool(p, "Write", "file_path", ".sandbox/policy.json", NULL);
	is_int(r.verdict, POLICY_DENY, "Write .sandbox denied");
	ok(r.factors & POLICY_F_PROTECTED, "protected factor");
	is_str(r.rule, "self-protection", "rule names self-protection");
	r = eval_tool(p, "Edit", "file_path", ".claude/settings.local.json", NULL);
	is_int(r.verdict, POLICY_DENY, "Edit .claude/settings.local.json denied");
	r = eval_tool(p, "Write", "file_path", ".claude/settings.json", NULL);
	is_int(r.verdict, POLICY_DENY, "Write .claude/settings.json denied");
	r = eval_tool(p, "Write", "file_path", ".claude/commands/x.md", NULL);
	is_int(r.verdict, POLICY_ALLOW, "other .claude files are writable");
	r = eval_tool(p, "Write", "file_path", ".mcp.json", NULL);
	is_int(r.verdict, POLICY_DENY, "Write .mcp.json denied");
	r = eval_tool(p, "Write", "file_path", ".codex/hooks.json", NULL);
	is_int(r.verdict, POLICY_DENY, "Write .codex/** denied");
	r = eval_tool(p, "Write", "file_path", ".cursor/hooks.json", NULL);
	is_int(r.verdict, POLICY_DENY, "Write .cursor/hooks.json denied");
	snprintf(path, sizeof(path), "%s/approver.key", cfg);
	r = eval_tool(p, "Write", "file_path", path, NULL);
	is_int(r.verdict, POLICY_DENY, "Write into the config dir denied");
	r = eval_tool(p, "Write", "file_path", "/usr/local/bin/sbx-hook", NULL);
	is_int(r.verdict, POLICY_DENY, "Write the sbx binaries denied");
	r = eval_tool(p, "Write", "file_path", "~/.claude/settings.json", NULL);
	is_int(r.verdict, POLICY_DENY, "Write user Claude settings denied");
	SH(p, "echo x > .sandbox/policy.json", POLICY_DENY);
	SH(p, "rm -rf .sandbox", POLICY_DENY);
	SH(p, "rm .mcp.json", POLICY_DENY);
	SH(p, "cp /tmp/x .claude/settings.json", POLICY_DENY);
	SH(p, "mv evil.json .cursor/hooks.json", POLICY_DENY);
	SH(p, "sed -i s/a/b/ .claude/settings.json", POLICY_DENY);
	SH(p, "tee .codex/hooks.json < x", POLICY_DENY);
	SH(p, "cd .sandbox && rm -f policy.json", POLICY_DENY);
	SH(p, "rm -rf .s*", POLICY_DENY);
	SH(p, "echo ok", POLICY_ALLOW);
	policy_free(p);
	/* an explicit file rule cannot allow the shell to reach it either */
	p = load_text("{\"allow\": [\"Bash(cat:*)\"]}", &err);
	SH(p, "cat x > .mcp.json", POLICY_DENY);
	policy_free(p);
}

static void
test_paths(void)
{
	struct policy_error err;
	struct policy *p = load_text("{}", &err);
	struct policy_result r;
	char link[PATH_MAX * 2], cmd[PATH_MAX * 3];

	snprintf(link, sizeof(link), "%s/link-to-etc", folder);
	unlink(link);
	ok(symlink("/etc", link) == 0, "symlink planted");
	r = eval_tool(p, "Write", "file_path", "link-to-etc/passwd", NULL);
	is_int(r.verdict, POLICY_ESCALATE, "write through a symlink to /etc");
	ok(strstr(r.reason, "/etc/passwd") != NULL, "reason names the real path: %s",
	    r.reason);
	r = eval_tool(p, "Write", "file_path", "link-to-etc/not-yet/new", NULL);
	is_int(r.verdict, POLICY_ESCALATE, "new file under a symlinked dir");
	snprintf(cmd, sizeof(cmd), "echo x > link-to-etc/cron.d/job");
	SH(p, cmd, POLICY_ESCALATE);
	SH(p, "mkdir -p fresh && echo x > fresh/../link-to-etc/passwd",
	    POLICY_ESCALATE);
	SH(p, "cp -a link-to-etc newlink && echo x > newlink/passwd",
	    POLICY_ESCALATE);
	SH(p, "mv link-to-etc moved && echo x > moved/passwd", POLICY_ESCALATE);
	snprintf(link, sizeof(link), "%s/link-to-sandbox", folder);
	unlink(link);
	snprintf(cmd, sizeof(cmd), "%s/.sandbox", folder);
	ok(symlink(cmd, link) == 0, "symlink to .sandbox planted");
	r = eval_tool(p, "Write", "file_path", "link-to-sandbox/policy.json", NULL);
	is_int(r.verdict, POLICY_DENY, "write through a symlink into .sandbox");
	r = eval_tool(p, "Write", "file_path", "sub/../../outside", NULL);
	is_int(r.verdict, POLICY_ESCALATE, "dot-dot out of the project");
	r = eval_tool(p, "Write", "file_path", "/dev/null", NULL);
	is_int(r.verdict, POLICY_ALLOW, "/dev/null is harmless");
	{
		char alias[PATH_MAX * 2];

		/* the agent's cwd reached through a symlink to the project */
		snprintf(alias, sizeof(alias), "%s/../proj-alias", folder);
		unlink(alias);
		ok(symlink(folder, alias) == 0, "symlink to the project planted");
		r = eval_tool(p, "Bash", "command", "make && echo x > out.txt", alias);
		is_int(r.verdict, POLICY_ALLOW, "cwd through a symlink is inside");
		{
			/* and a policy loaded with the symlinked folder */
			struct policy *q = policy_load_buffer("x", "{}", 2, alias, cfg,
			    &err);
			struct policy_result r2;
			struct policy_call c;
			cJSON *in = cJSON_Parse("{\"command\": \"echo x > o.txt\"}");

			memset(&c, 0, sizeof(c));
			c.tool = "Bash";
			c.input = in;
			c.cwd = alias;
			c.folder = alias;
			c.home = home;
			policy_eval(q, &c, &r2);
			is_int(r2.verdict, POLICY_ALLOW,
			    "folder given through a symlink still holds its files");
			cJSON_Delete(in);
			policy_free(q);
		}
		unlink(alias);
	}
	{
		char halias[PATH_MAX * 2], secret[PATH_MAX * 2];
		struct policy_call c;
		cJSON *in;

		/* a home given through a symlink still protects the real one */
		snprintf(halias, sizeof(halias), "%s/../home-alias", folder);
		snprintf(secret, sizeof(secret), "{\"file_path\": \"%s/.ssh/id_rsa\"}",
		    home);
		unlink(halias);
		ok(symlink(home, halias) == 0, "symlink to the home planted");
		in = cJSON_Parse(secret);
		memset(&c, 0, sizeof(c));
		c.tool = "Read";
		c.input = in;
		c.cwd = folder;
		c.folder = folder;
		c.home = halias;
		policy_eval(p, &c, &r);
		is_int(r.verdict, POLICY_ESCALATE, "home through a symlink: ~/.ssh");
		cJSON_Delete(in);
		unlink(halias);
	}
	policy_free(p);
}

int
main(void)
{
	char tmpl[] = "/tmp/sbx-test-policy-XXXXXX";
	char *base = mkdtemp(tmpl);
	char sb[PATH_MAX + 16];

	if (base == NULL) {
		perror("mkdtemp");
		return 1;
	}
	snprintf(folder, sizeof(folder), "%s/proj", base);
	snprintf(home, sizeof(home), "%s/home", base);
	snprintf(cfg, sizeof(cfg), "%s/home/.config/sbx", base);
	mkdir(folder, 0700);
	mkdir(home, 0700);
	snprintf(sb, sizeof(sb), "%s/.sandbox", folder);
	mkdir(sb, 0700);
	test_loading();
	test_defaults();
	test_self_protection();
	test_paths();
	{
		char cmd[PATH_MAX + 16];

		snprintf(cmd, sizeof(cmd), "rm -rf %s", base);
		if (system(cmd) != 0)
			printf("# could not remove %s\n", base);
	}
	return tap_done();
}
