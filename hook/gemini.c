/*
 * gemini.c - the Gemini CLI BeforeTool dialect; see gemini.h.
 *
 * MUST print exactly one JSON object and exit 0.
 * MUST deny what it cannot parse: a wrong event, no tool name, a
 * tool_input that is not an object, a shell call without a command.
 */
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <sodium.h>

#include "common/json.h"
#include "common/util.h"
#include "hook/decide.h"
#include "hook/dialect.h"
#include "hook/gemini.h"

#define SBX_MAX_STDIN   (4 * 1024 * 1024)
#define SBX_MAX_REASON  8000

static const char overrun[] = "{\"decision\":\"deny\",\"reason\":\"sbx: the hook ran out of "
    "time; the call was not run. Try again.\"}\n";

static void
on_alarm(int sig)
{
	(void)sig;
	(void)!write(STDOUT_FILENO, overrun, sizeof(overrun) - 1);
	_exit(0);
}

static int
answer(int allow, const char *reason)
{
	cJSON *o = cJSON_CreateObject();
	char *text = NULL;

	alarm(0);
	if (!o || (!allow && (!cJSON_AddStringToObject(o, "decision", "deny") ||
	    !cJSON_AddStringToObject(o, "reason", reason))) ||
	    !(text = json_print_line(o)) || write_all(STDOUT_FILENO, text, strlen(text)) < 0) {
		free(text);
		cJSON_Delete(o);
		on_alarm(0);
		return 0;
	}
	free(text);
	cJSON_Delete(o);
	return 0;
}

static int
deny(const char *reason)
{
	return answer(0, reason);
}

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
		/* the URL is inside the prompt: judge the first one */
		*out_tool = "WebFetch";
		s = json_str(in, "url") ? json_str(in, "url") : json_str(in, "prompt");
		if (!s || !((p = strstr(s, "https://")) || (p = strstr(s, "http://"))))
			return -1;
		n = strcspn(p, " \t\r\n\"'<>()");
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
run(void)
{
	struct hook_decision d = { 0, NULL };
	struct hook_call c = { .agent = "gemini", .max_reason = SBX_MAX_REASON };
	char name[512], cwd[PATH_MAX * 2];
	const char *event, *tool, *why, *dir;
	cJSON *payload = NULL, *owned = NULL;
	const cJSON *in;
	char *text;
	size_t len;
	int rc;

	text = fd_read_all(STDIN_FILENO, SBX_MAX_STDIN, &len);
	if (!text)
		return deny(errno == EFBIG ? "sbx: the hook input is larger than 4 MiB; the call "
		    "was not run." : "sbx: could not read the hook input; the call was not run.");
	if (json_has_nul(text, len)) {
		free(text);
		return deny("sbx: the hook input contains a \\u0000 escape, which sbx cannot "
		    "judge safely; the call was not run.");
	}
	payload = cJSON_ParseWithLength(text, len);
	free(text);
	if (!cJSON_IsObject(payload)) {
		cJSON_Delete(payload);
		return deny("sbx: the hook input is not a JSON object; the call was not run.");
	}
	event = json_str(payload, "hook_event_name");
	tool = json_str(payload, "tool_name");
	in = cJSON_GetObjectItemCaseSensitive(payload, "tool_input");
	if (!event || strcmp(event, "BeforeTool") != 0) {
		rc = deny("sbx: sbx-hook gemini handles BeforeTool only; check the hook "
		    "registration. The call was not run.");
		goto out;
	}
	if (!tool || !*tool || (in && !cJSON_IsObject(in))) {
		rc = deny("sbx: the hook input has no tool or a malformed tool_input; the call "
		    "was not run.");
		goto out;
	}
	if (internal_tool(tool)) {
		rc = answer(1, NULL);
		goto out;
	}
	if (map_call(tool, in, payload, name, sizeof(name), &c.tool, &owned, &why) < 0) {
		rc = deny(why);
		goto out;
	}
	c.input = owned ? owned : in;
	c.cwd = json_str(payload, "cwd");
	/* run_shell_command runs in dir_path, relative to the project */
	if (owned && !strcmp(c.tool, "Bash") && (dir = json_str(in, "dir_path")) && *dir) {
		if (dir[0] == '/')
			c.cwd = dir;
		else if (c.cwd && xsnprintf(cwd, sizeof(cwd), "%s/%s", c.cwd, dir) >= 0)
			c.cwd = cwd;
		else
			c.cwd = NULL;
	}
	c.session_id = json_str(payload, "session_id");
	hook_decide(&c, &d);
	if (!d.allow && d.reason)
		dialect_shape_executed(&d.reason);
	rc = d.reason ? answer(d.allow, d.reason)
	    : deny("sbx: out of memory; the call was not run.");
	free(d.reason);
out:
	cJSON_Delete(owned);
	cJSON_Delete(payload);
	return rc;
}

int
gemini_main(void)
{
	struct sigaction sa = { .sa_handler = on_alarm };

	sigaction(SIGALRM, &sa, NULL);
	/* Safety net only; hook_decide re-arms it from the policy. */
	alarm(60);
	if (sodium_init() < 0)
		return deny("sbx: libsodium failed to initialise; the call was not run.");
	return run();
}
