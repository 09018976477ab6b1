/*
 * eval.c - judges one tool call by its tool, from one table of tools
 * (tools[]: the tool, its trigger, its handler): shells go to the analyser,
 * file tools to the write and read triggers, fetches to the network
 * trigger, anything else to the tool rules.
 *
 * Layer: eval (see docs/ARCHITECTURE.md). Includes policy/eval.h and
 * policy/analyse.h (for shell_eval).
 *
 * Rules: a malformed tool_input denies; an unknown tool escalates.
 */
#include "policy/eval.h"
#include "policy/analyse.h"

#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *
str_field(const cJSON *input, const char *key)
{
	const cJSON *c;

	if (!cJSON_IsObject(input))
		return NULL;
	c = cJSON_GetObjectItemCaseSensitive(input, key);
	return cJSON_IsString(c) ? c->valuestring : NULL;
}

/* Codex apply_patch: every file the patch names is a write. */
static void
eval_patch(struct ev *ev, const char *text)
{
	static const char *const marks[] = {
		"*** Add File: ", "*** Update File: ", "*** Delete File: ",
		"*** Move to: ", NULL,
	};
	const char *line = text, *nl;
	char path[SBX_PATH_MAX];
	size_t n;
	int k, files = 0;

	while (line != NULL && *line != '\0') {
		nl = strchr(line, '\n');
		n = nl ? (size_t)(nl - line) : strlen(line);
		for (k = 0; marks[k] != NULL; k++) {
			size_t ml = strlen(marks[k]);

			if (n > ml && strncmp(line, marks[k], ml) == 0) {
				if (n - ml >= sizeof(path)) {
					ev_note(ev, POLICY_ESCALATE, "write", "builtin: patch",
					    "patch names a path that is too long");
					break;
				}
				memcpy(path, line + ml, n - ml);
				path[n - ml] = '\0';
				while (n - ml > 0 && (path[n - ml - 1] == '\r' ||
				    path[n - ml - 1] == ' '))
					path[--n - ml] = '\0';
				trig_write(ev, path, "patch");
				files++;
			}
		}
		line = nl ? nl + 1 : NULL;
	}
	if (files == 0)
		ev_note(ev, POLICY_ESCALATE, "write", "builtin: patch",
		    "apply_patch text names no file");
}

/*
 * A command given as an argument vector (["bash", "-lc", "..."], as Codex
 * can send it) runs without a shell: it is judged as the shell line that
 * would run exactly those words, each single-quoted.
 */
static void
eval_argv_array(struct ev *ev, const cJSON *arr)
{
	const cJSON *c;
	char *line = NULL, *nl;
	size_t len = 0, cap = 0, n, k;

	for (c = arr->child; c != NULL; c = c->next) {
		if (!cJSON_IsString(c)) {
			ev_note(ev, POLICY_DENY, "shell", "builtin: input",
			    "command array holds something that is not a string");
			goto out;
		}
		n = strlen(c->valuestring);
		if (len + n * 4 + 4 > (size_t)SH_MAX_INPUT) {
			ev_factor(ev, F_UNKNOWN);
			ev_note(ev, POLICY_ESCALATE, "shell", "builtin: input",
			    "command longer than %ld bytes", SH_MAX_INPUT);
			goto out;
		}
		if (len + n * 4 + 4 > cap) {
			cap = (len + n * 4 + 4) * 2;
			nl = realloc(line, cap);
			if (nl == NULL) {
				ev_note(ev, POLICY_DENY, "shell", "builtin: memory",
				    "out of memory");
				goto out;
			}
			line = nl;
		}
		if (len > 0)
			line[len++] = ' ';
		line[len++] = '\'';
		for (k = 0; k < n; k++) {
			if (c->valuestring[k] == '\'') {
				memcpy(line + len, "'\\''", 4);
				len += 4;
			} else {
				line[len++] = c->valuestring[k];
			}
		}
		line[len++] = '\'';
	}
	if (line == NULL) {
		ev_note(ev, POLICY_DENY, "shell", "builtin: input",
		    "empty command array");
		goto out;
	}
	shell_eval(ev, line, len);
out:
	free(line);
}

/*
 * Codex's shell tool runs its command in "workdir" (also
 * "working_directory"), relative to the session's cwd: the command is
 * judged there. A workdir that is not a string or cannot be resolved
 * leaves the directory unknown.
 */
static void
shell_workdir(struct ev *ev, const cJSON *input)
{
	static const char *const keys[] = { "workdir", "working_directory", NULL };
	const cJSON *w;
	char res[SBX_PATH_MAX];
	int k;

	for (k = 0; keys[k] != NULL; k++) {
		w = cJSON_GetObjectItemCaseSensitive(input, keys[k]);
		if (w == NULL || cJSON_IsNull(w))
			continue;
		if (!cJSON_IsString(w) || w->valuestring[0] == '\0' ||
		    (w->valuestring[0] != '/' && !ev->cwd_known) ||
		    path_resolve_c(ev->pc, ev->cwd, ev->call->home, w->valuestring, res,
		    sizeof(res)) < 0) {
			ev->cwd_known = 0;
			continue;
		}
		memcpy(ev->cwd, res, sizeof(res));
		ev->cwd_known = 1;
	}
}

/* The tool handlers: each judges the input of one kind of tool. -1: the
 * input is malformed and was judged so; the tool rules are not looked
 * at again. */
static int
tool_shell(struct ev *ev, const char *tool)
{
	const cJSON *input = ev->call->input;
	const char *s;

	(void)tool;
	shell_workdir(ev, input);
	s = str_field(input, "command");
	if (s == NULL && cJSON_IsArray(cJSON_GetObjectItemCaseSensitive(input,
	    "command"))) {
		eval_argv_array(ev, cJSON_GetObjectItemCaseSensitive(input,
		    "command"));
		return -1;
	}
	if (s == NULL) {
		ev_note(ev, POLICY_DENY, "shell", "builtin: input",
		    "Bash call without a command string");
		return -1;
	}
	shell_eval(ev, s, strlen(s));
	if (cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(input,
	    "dangerouslyDisableSandbox")))
		ev_note(ev, POLICY_ESCALATE, "shell", "builtin: sandbox",
		    "the call asks to disable the sandbox");
	return 0;
}

static int
tool_patch(struct ev *ev, const char *tool)
{
	const char *s;

	(void)tool;
	s = str_field(ev->call->input, "command");
	if (s == NULL)
		s = str_field(ev->call->input, "patch");
	if (s == NULL) {
		ev_note(ev, POLICY_DENY, "write", "builtin: input",
		    "apply_patch call without patch text");
		return -1;
	}
	eval_patch(ev, s);
	return 0;
}

static int
tool_write(struct ev *ev, const char *tool)
{
	const char *s;

	s = str_field(ev->call->input, strcmp(tool, "NotebookEdit") == 0 ?
	    "notebook_path" : "file_path");
	if (s == NULL || s[0] == '\0') {
		ev_note(ev, POLICY_DENY, "write", "builtin: input",
		    "%s call without a file path", tool);
		return -1;
	}
	trig_write(ev, s, tool);
	return 0;
}

static int
tool_read(struct ev *ev, const char *tool)
{
	const char *s;

	s = str_field(ev->call->input, "file_path");
	if (s == NULL || s[0] == '\0') {
		ev_note(ev, POLICY_DENY, "read", "builtin: input",
		    "Read call without a file path");
		return -1;
	}
	trig_read(ev, s, tool);
	return 0;
}

/* Glob: a pattern that names where to look (absolute, ~, or with ..). */
static void
glob_pattern_dir(struct ev *ev, const char *s, const char *tool)
{
	char dir[SBX_PATH_MAX];
	size_t n = strcspn(s, "*?[{");

	while (n > 0 && s[n - 1] != '/')
		n--;
	if (n == 0 || n >= sizeof(dir)) {
		trig_read(ev, ".", tool);
	} else {
		memcpy(dir, s, n);
		dir[n] = '\0';
		trig_read(ev, dir, tool);
		if (strchr(s + n, '/') != NULL || strstr(s, "**"))
			trig_read(ev, s, tool);
	}
}

/* Grep: a glob that picks secret files by name. */
static void
grep_glob_secret(struct ev *ev, const char *s)
{
	static const char *const secrets[] = {
		".env", ".env.local", "id_rsa", "id_ed25519",
		"server.pem", "server.key", "credentials.json", NULL,
	};
	const char *base = strrchr(s, '/') ? strrchr(s, '/') + 1 : s;
	int k;

	for (k = 0; secrets[k] != NULL; k++)
		if (fnmatch(base, secrets[k], FNM_PERIOD) == 0 &&
		    strcmp(base, "*") != 0) {
			ev_factor(ev, F_SECRET);
			ev_note(ev, POLICY_ESCALATE, "read",
			    "filesystem.denyRead", "Grep searches files "
			    "matching %s, which can match secret files such "
			    "as %s", s, secrets[k]);
			break;
		}
}

static int
tool_search(struct ev *ev, const char *tool)
{
	const cJSON *input = ev->call->input;
	const char *s;

	s = str_field(input, "path");
	if (strcmp(tool, "Grep") == 0)
		/* it reads the files below path, as grep -r does */
		an_grep_tool(ev, s != NULL && s[0] != '\0' ? s : ".",
		    str_field(input, "glob"), str_field(input, "type"));
	else
		trig_read(ev, s != NULL && s[0] != '\0' ? s : ".", tool);
	s = str_field(input, "pattern");
	if (strcmp(tool, "Glob") == 0 && s != NULL &&
	    (s[0] == '/' || s[0] == '~' || strstr(s, "..") != NULL))
		glob_pattern_dir(ev, s, tool);
	s = str_field(input, "glob");
	if (s != NULL && strcmp(tool, "Grep") == 0)
		grep_glob_secret(ev, s);
	return 0;
}

static int
tool_fetch(struct ev *ev, const char *tool)
{
	const char *s;
	char host[256];

	s = str_field(ev->call->input, "url");
	if (s == NULL || url_host(s, host, sizeof(host)) < 0) {
		ev_note(ev, POLICY_ESCALATE, "network", "builtin: input",
		    "WebFetch without a URL with a host");
		ev_factor(ev, F_NETWORK);
		return -1;
	}
	trig_network(ev, host, tool);
	return 0;
}

/*
 * A connection through sbx-proxy: {"method": "CONNECT"|"HTTP",
 * "host": H, "port": N}. The same network trigger as every other tool,
 * with the port.
 */
static int
tool_connection(struct ev *ev, const char *tool)
{
	const cJSON *input = ev->call->input;
	const cJSON *port = cJSON_GetObjectItemCaseSensitive(input, "port");
	const char *host = str_field(input, "host");
	const char *method = str_field(input, "method");
	char h[256];
	int pn;

	(void)tool;
	ev_factor(ev, F_NETWORK);
	if (host == NULL || method == NULL || !cJSON_IsNumber(port) ||
	    cJSON_GetArraySize(input) != 3 ||
	    port->valuedouble < 1 || port->valuedouble > 65535 ||
	    port->valuedouble != (double)port->valueint ||
	    (strcmp(method, "CONNECT") != 0 && strcmp(method, "HTTP") != 0) ||
	    hostport_parse(host, 0, h, sizeof(h), &pn) < 0 || pn != 0) {
		ev_note(ev, POLICY_DENY, "network", "builtin: input",
		    "a network connection needs exactly a method (CONNECT or HTTP), "
		    "a host and a port from 1 to 65535");
		return 0;
	}
	trig_network_port(ev, h, port->valueint, method);
	return 0;
}

static int
tool_search_web(struct ev *ev, const char *tool)
{
	(void)tool;
	ev_factor(ev, F_NETWORK);
	ev_note(ev, POLICY_ESCALATE, "network", "builtin: network",
	    "WebSearch sends the query to the network; allow it with "
	    "\"WebSearch\" in the allow list");
	return 0;
}

/*
 * The tools the policy knows: the trigger an allowed call is reported
 * under, and the handler that judges its input. by_rules: the policy's
 * tool rules (escalate, allow) decide first, the handler only when none
 * matches. A tool not listed is decided by the tool rules, else
 * escalated as unknown. A deny rule for the tool always decides first.
 */
static const struct tool_kind {
	const char *tool;
	const char *trigger;
	int (*eval)(struct ev *, const char *);
	int by_rules;
} tools[] = {
	{ "Bash",         "shell",   tool_shell,      0 },
	{ "shell",        "shell",   tool_shell,      0 },
	{ "local_shell",  "shell",   tool_shell,      0 },
	{ "apply_patch",  "write",   tool_patch,      0 },
	{ "Write",        "write",   tool_write,      0 },
	{ "Edit",         "write",   tool_write,      0 },
	{ "MultiEdit",    "write",   tool_write,      0 },
	{ "NotebookEdit", "write",   tool_write,      0 },
	{ "Read",         "read",    tool_read,       0 },
	{ "Glob",         "read",    tool_search,     0 },
	{ "Grep",         "read",    tool_search,     0 },
	{ "LS",           "read",    tool_search,     0 },
	{ "network",      "network", tool_connection, 0 },
	{ "WebFetch",     "network", tool_fetch,      0 },
	{ "WebSearch",    "network", tool_search_web, 1 },
};

static const struct tool_kind *
tool_find(const char *tool)
{
	size_t k;

	for (k = 0; k < sizeof(tools) / sizeof(tools[0]); k++)
		if (strcmp(tools[k].tool, tool) == 0)
			return &tools[k];
	return NULL;
}

/* No handler judged the tool: its escalate and allow rules decide. */
static int
tool_by_rules(struct ev *ev, const char *tool)
{
	const struct rule *r;
	const char *s;

	if ((r = rule_find(ev->p, RK_TOOL, POLICY_ESCALATE, tool,
	    ev->call)) != NULL) {
		ev_note(ev, POLICY_ESCALATE, "tool", r->text,
		    "the policy escalates %s", tool);
		return 1;
	}
	if ((r = rule_find(ev->p, RK_TOOL, POLICY_ALLOW, tool,
	    ev->call)) == NULL)
		return 0;
	ev_note(ev, POLICY_ALLOW, "tool", r->text, "%s is allowed by %s",
	    tool, r->origin == RO_BUILTIN ? "the built-in defaults" :
	    "the policy");
	/* An MCP tool that runs a shell command: the command is judged
	 * too, and its escalations and denials stand. (sbx's own tools
	 * queue for a human already.) */
	s = str_field(ev->call->input, "command");
	if (r->origin != RO_BUILTIN && strncmp(tool, "mcp__", 5) == 0 &&
	    s != NULL)
		shell_eval(ev, s, strlen(s));
	return 1;
}

void
eval_tool(struct ev *ev)
{
	const char *tool = ev->call->tool;
	const struct tool_kind *t = tool_find(tool);
	const struct rule *r;

	if ((r = rule_find(ev->p, RK_TOOL, POLICY_DENY, tool,
	    ev->call)) != NULL) {
		ev_note(ev, POLICY_DENY, "tool", r->text, "the policy denies %s",
		    tool);
		return;
	}
	if (t != NULL && !t->by_rules) {
		if (t->eval(ev, tool) < 0)
			return;
	} else if (!tool_by_rules(ev, tool)) {
		if (t != NULL) {
			t->eval(ev, tool);
		} else {
			ev_factor(ev, F_UNKNOWN);
			ev_note(ev, POLICY_ESCALATE, "tool", "builtin: unknown tool",
			    "%s is not a tool the policy knows; a human decides",
			    tool);
		}
	}
	/* Tool-level escalate rules apply on top of the triggers. */
	if ((r = rule_find(ev->p, RK_TOOL, POLICY_ESCALATE, tool,
	    ev->call)) != NULL)
		ev_note(ev, POLICY_ESCALATE, "tool", r->text,
		    "the policy escalates %s", tool);
}

const char *
eval_default_trigger(const char *tool)
{
	const struct tool_kind *t = tool_find(tool);

	return t != NULL ? t->trigger : "tool";
}
