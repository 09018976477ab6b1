/*
 * gemini.c - the Gemini CLI BeforeTool dialect (`sbx-hook gemini`); see
 * dialect.h.
 *
 * Maps Gemini's tools onto the policy's vocabulary (run_shell_command ->
 * Bash, write_file -> Write, replace -> Edit, read_file -> Read, ...);
 * an unknown tool goes to the policy by its own name (escalated, so
 * denied with a pointer to sbx-mcp). Answers {} on allow (Gemini goes on
 * with its own checks) or {"decision": "deny", "reason": "..."}.
 *
 * MUST deny what it cannot parse: a wrong event, no tool name, a
 * tool_input that is not an object, a shell call without a command.
 * Gemini treats any exit status but 0 and 2 as a warning and runs the
 * tool: hook_run always exits 0.
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/base/json.h"
#include "common/base/util.h"
#include "hook/dialect.h"

/* Gemini's own bookkeeping tools: nothing leaves the agent through them. */
static int
internal_tool(const char *t)
{
	static const char *const names[] = { "update_topic", "enter_plan_mode",
		"exit_plan_mode", "activate_skill", "write_todos", "ask_user", "complete_task",
		"list_background_processes", "read_background_output", "get_internal_docs",
		"invoke_agent", NULL };
	int i;

	for (i = 0; names[i]; i++)
		if (strcmp(t, names[i]) == 0)
			return 1;
	return strncmp(t, "tracker_", 8) == 0;
}

/* Copies KEY of in (a string) into out as NEW; 0 or -1 when absent. */
static int
copy_str(cJSON *out, const char *new, const cJSON *in, const char *key)
{
	const char *s = json_str(in, key);

	return s && cJSON_AddStringToObject(out, new, s) ? 0 : -1;
}

/* The first http:// or https:// URL in S (any case), or NULL. */
static const char *
find_url(const char *s)
{
	const char *a = strcasestr(s, "https://"), *b = strcasestr(s, "http://");

	return !a ? b : !b ? a : a < b ? a : b;
}

/*
 * Builds the policy's view of a Gemini tool call: *tool (static or in
 * name), a new input object in *owned. 0, or -1 with *why.
 */
static int
map_call(const char *tool, const cJSON *in, const cJSON *payload, char *name, size_t namesz,
    const char **out_tool, cJSON **owned, const char **why)
{
	const cJSON *ctx;
	const char *s, *p;
	cJSON *o = cJSON_CreateObject();
	char url[2048];
	size_t n;

	*owned = o;
	*why = "the tool input lacks what sbx needs to judge it";
	if (!o)
		return -1;
	if (strcmp(tool, "run_shell_command") == 0) {
		*out_tool = "Bash";
		return copy_str(o, "command", in, "command");
	}
	if (strcmp(tool, "write_file") == 0) {
		*out_tool = "Write";
		return copy_str(o, "file_path", in, "file_path") < 0 ||
		    copy_str(o, "content", in, "content") < 0 ? -1 : 0;
	}
	if (strcmp(tool, "replace") == 0) {
		*out_tool = "Edit";
		return copy_str(o, "file_path", in, "file_path") < 0 ||
		    copy_str(o, "old_string", in, "old_string") < 0 ||
		    copy_str(o, "new_string", in, "new_string") < 0 ? -1 : 0;
	}
	if (strcmp(tool, "read_file") == 0) {
		*out_tool = "Read";
		return copy_str(o, "file_path", in, "file_path") < 0 &&
		    copy_str(o, "file_path", in, "absolute_path") < 0 ? -1 : 0;
	}
	if (strcmp(tool, "glob") == 0 || strcmp(tool, "grep_search") == 0 ||
	    strcmp(tool, "list_directory") == 0) {
		*out_tool = tool[0] == 'g' && tool[1] == 'r' ? "Grep" : "Glob";
		if (tool[0] == 'l')
			cJSON_AddStringToObject(o, "pattern", "*");
		else if (copy_str(o, "pattern", in, "pattern") < 0)
			return -1;
		if ((s = json_str(in, "dir_path")) || (s = json_str(in, "path")))
			cJSON_AddStringToObject(o, "path", s);
		return 0;
	}
	if (strcmp(tool, "google_web_search") == 0) {
		*out_tool = "WebSearch";
		return copy_str(o, "query", in, "query");
	}
	if (strcmp(tool, "web_fetch") == 0) {
		/* The URL is inside the prompt, and Gemini fetches every URL it
		 * finds there: sbx judges one, so a call naming more is refused. */
		*out_tool = "WebFetch";
		s = json_str(in, "url") ? json_str(in, "url") : json_str(in, "prompt");
		if (!s || !(p = find_url(s)))
			return -1;
		n = strcspn(p, " \t\r\n\"'<>()");
		if (find_url(p + n) || (json_str(in, "url") && json_str(in, "prompt") &&
		    find_url(json_str(in, "prompt")))) {
			*why = "web_fetch names more than one URL; sbx judges one URL a call: "
			    "fetch them one at a time";
			return -1;
		}
		if (n >= sizeof(url))
			return -1;
		memcpy(url, p, n);
		url[n] = '\0';
		cJSON_AddStringToObject(o, "url", url);
		return 0;
	}
	/* MCP tools: mcp_SERVER_TOOL, the server named in mcp_context */
	if (strncmp(tool, "mcp_", 4) == 0) {
		ctx = cJSON_GetObjectItemCaseSensitive(payload, "mcp_context");
		s = json_str(ctx, "server_name");
		p = s && strncmp(tool + 4, s, strlen(s)) == 0 && tool[4 + strlen(s)] == '_' ?
		    tool + 5 + strlen(s) : NULL;
		if (!p || xsnprintf(name, namesz, "mcp__%s__%s", s, p) < 0)
			xsnprintf(name, namesz, "mcp__gemini__%s", tool + 4);
		*out_tool = name;
		cJSON_Delete(o);
		*owned = NULL;
		return 0;
	}
	*out_tool = tool;       /* unknown: the policy escalates it */
	cJSON_Delete(o);
	*owned = NULL;
	return 0;
}

static int
parse(struct hook_in *in, char *why, size_t whysz)
{
	const cJSON *p = in->payload, *input;
	const char *tool = json_str(p, "tool_name"), *what, *dir;
	struct hook_call *c = &in->call;

	input = cJSON_GetObjectItemCaseSensitive(p, "tool_input");
	if (strcmp(in->event, "BeforeTool") != 0) {
		snprintf(why, whysz, "sbx: sbx-hook gemini handles BeforeTool only; check the "
		    "hook registration. The call was not run.");
		return -1;
	}
	if (!tool || !*tool || (input && !cJSON_IsObject(input))) {
		snprintf(why, whysz, "sbx: the hook input has no tool or a malformed tool_input; "
		    "the call was not run.");
		return -1;
	}
	if (internal_tool(tool))
		return 1;
	if (map_call(tool, input, p, in->name, sizeof(in->name), &c->tool, &in->owned,
	    &what) < 0) {
		snprintf(why, whysz, "%s", what);
		return -1;
	}
	c->input = in->owned ? in->owned : input;
	c->cwd = json_str(p, "cwd");
	/* run_shell_command runs in dir_path, relative to the project */
	if (in->owned && !strcmp(c->tool, "Bash") && (dir = json_str(input, "dir_path")) &&
	    *dir) {
		if (dir[0] == '/')
			c->cwd = dir;
		else if (c->cwd && xsnprintf(in->cwd, sizeof(in->cwd), "%s/%s", c->cwd, dir) >= 0)
			c->cwd = in->cwd;
		else
			c->cwd = NULL;
	}
	c->session_id = json_str(p, "session_id");
	return 0;
}

static int
answer(const struct hook_in *in, int allow, const char *reason)
{
	cJSON *o = cJSON_CreateObject();

	(void)in;
	return dialect_print(o, o && (allow || (cJSON_AddStringToObject(o, "decision", "deny") &&
	    cJSON_AddStringToObject(o, "reason", reason))));
}

const struct dialect dialect_gemini = {
	.name = "gemini",
	.agent = "gemini",
	.overrun = "{\"decision\":\"deny\",\"reason\":\"sbx: the hook ran out of time; the "
	    "call was not run. Try again.\"}\n",
	.shape_executed = 1,
	.parse = parse,
	.answer = answer,
};
