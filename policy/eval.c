/*
 * eval.c - judges one tool call by its tool: shells go to the analyser,
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
		    path_resolve(ev->cwd, ev->call->home, w->valuestring, res,
		    sizeof(res)) < 0) {
			ev->cwd_known = 0;
			continue;
		}
		memcpy(ev->cwd, res, sizeof(res));
		ev->cwd_known = 1;
	}
}

void
eval_tool(struct ev *ev)
{
	const struct policy_call *call = ev->call;
	const char *tool = call->tool, *s;
	const cJSON *input = call->input;
	const struct rule *r;
	char host[256];

	if ((r = rule_find(ev->p, RK_TOOL, POLICY_DENY, tool, call)) != NULL) {
		ev_note(ev, POLICY_DENY, "tool", r->text, "the policy denies %s",
		    tool);
		return;
	}
	if (strcmp(tool, "Bash") == 0 || strcmp(tool, "shell") == 0 ||
	    strcmp(tool, "local_shell") == 0) {
		shell_workdir(ev, input);
		s = str_field(input, "command");
		if (s == NULL && cJSON_IsArray(cJSON_GetObjectItemCaseSensitive(input,
		    "command"))) {
			eval_argv_array(ev, cJSON_GetObjectItemCaseSensitive(input,
			    "command"));
			return;
		}
		if (s == NULL) {
			ev_note(ev, POLICY_DENY, "shell", "builtin: input",
			    "Bash call without a command string");
			return;
		}
		shell_eval(ev, s, strlen(s));
		if (cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(input,
		    "dangerouslyDisableSandbox")))
			ev_note(ev, POLICY_ESCALATE, "shell", "builtin: sandbox",
			    "the call asks to disable the sandbox");
	} else if (strcmp(tool, "apply_patch") == 0) {
		s = str_field(input, "command");
		if (s == NULL)
			s = str_field(input, "patch");
		if (s == NULL) {
			ev_note(ev, POLICY_DENY, "write", "builtin: input",
			    "apply_patch call without patch text");
			return;
		}
		eval_patch(ev, s);
	} else if (strcmp(tool, "Write") == 0 || strcmp(tool, "Edit") == 0 ||
	    strcmp(tool, "MultiEdit") == 0 || strcmp(tool, "NotebookEdit") == 0) {
		s = str_field(input, strcmp(tool, "NotebookEdit") == 0 ?
		    "notebook_path" : "file_path");
		if (s == NULL || s[0] == '\0') {
			ev_note(ev, POLICY_DENY, "write", "builtin: input",
			    "%s call without a file path", tool);
			return;
		}
		trig_write(ev, s, tool);
	} else if (strcmp(tool, "Read") == 0) {
		s = str_field(input, "file_path");
		if (s == NULL || s[0] == '\0') {
			ev_note(ev, POLICY_DENY, "read", "builtin: input",
			    "Read call without a file path");
			return;
		}
		trig_read(ev, s, tool);
	} else if (strcmp(tool, "Glob") == 0 || strcmp(tool, "Grep") == 0 ||
	    strcmp(tool, "LS") == 0) {
		s = str_field(input, "path");
		trig_read(ev, s != NULL && s[0] != '\0' ? s : ".", tool);
		s = str_field(input, "pattern");
		if (strcmp(tool, "Glob") == 0 && s != NULL &&
		    (s[0] == '/' || s[0] == '~' || strstr(s, "..") != NULL)) {
			/* the pattern itself names where to look */
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
		/* a glob that picks secret files by name */
		s = str_field(input, "glob");
		if (s != NULL && strcmp(tool, "Grep") == 0) {
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
	} else if (strcmp(tool, "WebFetch") == 0) {
		s = str_field(input, "url");
		if (s == NULL || url_host(s, host, sizeof(host)) < 0) {
			ev_note(ev, POLICY_ESCALATE, "network", "builtin: input",
			    "WebFetch without a URL with a host");
			ev_factor(ev, F_NETWORK);
			return;
		}
		trig_network(ev, host, tool);
	} else if ((r = rule_find(ev->p, RK_TOOL, POLICY_ESCALATE, tool,
	    call)) != NULL) {
		ev_note(ev, POLICY_ESCALATE, "tool", r->text,
		    "the policy escalates %s", tool);
	} else if ((r = rule_find(ev->p, RK_TOOL, POLICY_ALLOW, tool,
	    call)) != NULL) {
		ev_note(ev, POLICY_ALLOW, "tool", r->text, "%s is allowed by %s",
		    tool, r->origin == RO_BUILTIN ? "the built-in defaults" :
		    "the policy");
		/* An MCP tool that runs a shell command: the command is judged
		 * too, and its escalations and denials stand. (sbx's own tools
		 * queue for a human already.) */
		s = str_field(input, "command");
		if (r->origin != RO_BUILTIN && strncmp(tool, "mcp__", 5) == 0 &&
		    s != NULL)
			shell_eval(ev, s, strlen(s));
	} else if (strcmp(tool, "WebSearch") == 0) {
		ev_factor(ev, F_NETWORK);
		ev_note(ev, POLICY_ESCALATE, "network", "builtin: network",
		    "WebSearch sends the query to the network; allow it with "
		    "\"WebSearch\" in the allow list");
	} else {
		ev_factor(ev, F_UNKNOWN);
		ev_note(ev, POLICY_ESCALATE, "tool", "builtin: unknown tool",
		    "%s is not a tool the policy knows; a human decides", tool);
	}
	/* Tool-level escalate rules apply on top of the triggers. */
	if ((r = rule_find(ev->p, RK_TOOL, POLICY_ESCALATE, tool, call)) != NULL)
		ev_note(ev, POLICY_ESCALATE, "tool", r->text,
		    "the policy escalates %s", tool);
}

/* The trigger an allowed call is reported under. */
const char *
eval_default_trigger(const char *tool)
{
	static const struct {
		const char *tool, *trigger;
	} map[] = {
		{ "Bash", "shell" }, { "shell", "shell" }, { "local_shell", "shell" },
		{ "Read", "read" }, { "Glob", "read" }, { "Grep", "read" },
		{ "LS", "read" }, { "Write", "write" }, { "Edit", "write" },
		{ "MultiEdit", "write" }, { "NotebookEdit", "write" },
		{ "apply_patch", "write" }, { "WebFetch", "network" },
		{ "WebSearch", "network" },
	};
	size_t k;

	for (k = 0; k < sizeof(map) / sizeof(map[0]); k++)
		if (strcmp(map[k].tool, tool) == 0)
			return map[k].trigger;
	return "tool";
}

