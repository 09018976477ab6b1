/*
 * setup.c - merging sbx into agents' configuration files; see setup.h.
 *
 * MUST NOT write a file it could not parse. MUST NOT follow a symlink
 * when replacing a file (it refuses symlinked config files instead).
 * MUST write by temp file + rename, keeping the file's mode.
 */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "approver/codex_trust.h"
#include "approver/init_gemini.h"
#include "approver/setup.h"
#include "common/base/json.h"
#include "common/protocol/queue.h"

#define MAX_CONFIG (4 * 1024 * 1024)

/* The record of what init added: FOLDER/.sandbox/setup.json
 * {"entries": [{"kind": K, "file": F, "created_file": bool,
 *   "created_dir": bool, "created": ["hooks", "hooks.PreToolUse", ...],
 *   "commands": [...], "server": "sbx"}]} */

static const char *const kind_names[] = { "claude", "claude-mcp", "codex", "cursor",
	"cursor-mcp", "gemini" };

int
shell_quote(const char *s, char *out, size_t outsz)
{
	char *q = sh_quote(s, 1);
	int rc = q && xsnprintf(out, outsz, "%s", q) >= 0 ? 0 : -1;

	free(q);
	return rc;
}

/*
 * The command line registered for sbx-hook MODE. An agent runs it through
 * a shell, and Claude Code (like Codex) treats exit status 127 ("command
 * not found") as a non-blocking error: the tool call would run unguarded
 * once the binary is gone (make clean, a moved clone, an uninstall). So
 * the command checks the binary and blocks (exit 2, which every client
 * reads as "deny") with a message saying what to do:
 *
 *   sh -c 'if [ -x "$0" ]; then "$0" MODE; s=$?; [ $s -lt 126 ] && exit $s;
 *     echo "...could not run..." >&2; else echo "...missing..." >&2; fi;
 *     exit 2' /path/to/sbx-hook
 *
 * The path is an argument ($0), quoted once by shell_quote, so spaces and
 * quotes in it are never part of the script. The hook's own exit status
 * (0 or 2) passes through unchanged; 126 and up (cannot execute, a missing
 * shared library, killed by a signal) become a block too, which is why
 * the hook is run as a child rather than exec'd. The script holds no
 * single quote and no backslash-quote, so it survives any shell's
 * single-quoting. Cursor also gets its deny JSON on stdout.
 */
static int
hook_command(const char *quoted_hook, const char *mode, char *out, size_t outsz)
{
	int cursor = strcmp(mode, "cursor") == 0;

	return xsnprintf(out, outsz, "sh -c 'if [ -x \"$0\" ]; then \"$0\" %s; s=$?; "
	    "[ $s -lt 126 ] && exit $s; echo \"sbx: $0 %s could not run (exit status $s); "
	    "the call is blocked. Reinstall sbx, or run sbx init again in this folder.\" >&2; "
	    "else echo \"sbx: $0 is missing or not executable; every call is blocked. "
	    "Reinstall sbx (make install), or run sbx init again in this folder.\" >&2; "
	    "fi; %sexit 2' %s", mode, mode,
	    cursor ? "echo \"{\\\"permission\\\":\\\"deny\\\",\\\"agent_message\\\":"
	    "\\\"sbx-hook is missing or failed, the call was not run\\\"}\"; " : "",
	    quoted_hook) < 0 ? -1 : 0;
}

/* Reads one shell word (bare, '...' and \' parts) from s into out. */
static const char *
shell_word(const char *s, char *out, size_t outsz)
{
	size_t o = 0;

	while (*s && *s != ' ') {
		if (*s == '\'') {
			for (s++; *s && *s != '\''; s++)
				if (o + 1 < outsz)
					out[o++] = *s;
			if (!*s)
				return NULL;
			s++;
		} else {
			if (*s == '\\' && s[1])
				s++;
			if (o + 1 < outsz)
				out[o++] = *s;
			s++;
		}
	}
	if (o + 1 >= outsz)
		return NULL;
	out[o] = '\0';
	return s;
}

int
hook_command_exe(const char *command, char *out, size_t outsz)
{
	const char *p = command;

	if (!strncmp(p, "sh -c '", 7)) {
		/* the script holds no single quote: the path follows its end */
		if (!(p = strchr(p + 7, '\'')) || p[1] != ' ')
			return -1;
		p += 2;
	}
	if (!shell_word(p, out, outsz) || !out[0]) {
		snprintf(out, outsz, "%s", command);    /* for the message */
		return -1;
	}
	return 0;
}

/*
 * Parses text as one JSON object, or says in err where and why it is not:
 * the line and column, and the usual reasons a hand-edited settings file
 * is not JSON (comments, trailing commas, single quotes).
 */
static cJSON *
parse_object(const char *text, size_t len, const char *path, struct sbx_err *err)
{
	const char *end = NULL, *why;
	size_t off, k, b;
	int line = 1, col = 1;
	cJSON *root;

	for (k = 0; k < len && isspace((unsigned char)text[k]); k++)
		;
	if (k == len) {
		err_set(err, "%s is empty, which is not JSON (write {} in it, or remove it); "
		    "nothing was written", path);
		return NULL;
	}
	root = cJSON_ParseWithLengthOpts(text, len, &end, 0);
	if (root) {
		for (k = (size_t)(end - text); k < len && isspace((unsigned char)text[k]); k++)
			;
		if (cJSON_IsObject(root) && k == len)
			return root;
		cJSON_Delete(root);
		off = k < len ? k : 0;
		why = k < len ? "text after the end of the JSON object" :
		    "JSON, but not an object ({...})";
	} else {
		off = end && end >= text && end <= text + len ? (size_t)(end - text) : len;
		/* cJSON may point one past the character it stopped at */
		if (off > 0 && off < len && (text[off - 1] == '\'' ||
		    (text[off - 1] == '/' && (text[off] == '/' || text[off] == '*'))))
			off--;
		for (b = off; b > 0 && isspace((unsigned char)text[b - 1]); b--)
			;
		for (k = off; k < len && isspace((unsigned char)text[k]); k++)
			;
		if (off + 1 < len && text[off] == '/' && (text[off + 1] == '/' ||
		    text[off + 1] == '*'))
			why = "a comment: JSON has no comments (remove it)";
		else if (off < len && (text[off] == '}' || text[off] == ']') && b > 0 &&
		    text[b - 1] == ',')
			why = "a trailing comma: JSON allows no comma before } or ] (remove it)";
		else if (off < len && text[off] == '\'')
			why = "single quotes: JSON strings take double quotes";
		else if (k >= len || (off < len && strspn(text + off + 1, " \t\r\n") ==
		    len - off - 1))
			why = "the file ends early (an unclosed {, [ or string)";
		else
			why = "not valid JSON here";
	}
	for (k = 0; k < off && k < len; k++, col++)
		if (text[k] == '\n') {
			line++;
			col = 0;
		}
	err_set(err, "%s line %d, column %d: %s; fix or move it, nothing was written",
	    path, line, col, why);
	return NULL;
}

int
setup_read_json(const char *path, size_t max, int flags, cJSON **root, mode_t *mode,
    struct sbx_err *err)
{
	size_t len;
	char *text;
	int r;

	*root = NULL;
	if ((r = file_read_nofollow(path, max, flags, &text, &len, mode, err)) <= 0)
		return r;
	*root = parse_object(text, len, path, err);
	free(text);
	return *root ? 1 : -1;
}

/* Reads FOLDER/REL as a JSON object; *root = NULL when it does not exist. */
static int
load_json(const char *folder, const char *rel, cJSON **root, struct sbx_err *err)
{
	char path[PATH_MAX];

	*root = NULL;
	if (xsnprintf(path, sizeof(path), "%s/%s", folder, rel) < 0) {
		err_set(err, "path too long");
		return -1;
	}
	return setup_read_json(path, MAX_CONFIG, SBX_READ_REGULAR, root, NULL, err);
}

int
setup_write_json(const char *dir, const char *name, const cJSON *root, mode_t mode,
    struct sbx_err *err)
{
	char *text;
	int dfd, rc;

	if (!(text = json_pretty(root)) || (dfd = open(dir, O_RDONLY | O_DIRECTORY |
	    O_CLOEXEC)) < 0) {
		free(text);
		err_set(err, "cannot write %s/%s: %s", dir, name, strerror(errno));
		return -1;
	}
	rc = write_atomic(dfd, ".", name, text, strlen(text), mode, 0);
	if (rc < 0)
		err_set(err, "cannot write %s/%s: %s", dir, name, strerror(errno));
	close(dfd);
	free(text);
	return rc;
}

static int
save_json(const char *folder, const char *rel, const cJSON *root, int *created_dir,
    struct sbx_err *err)
{
	char path[PATH_MAX], dir[PATH_MAX], *slash;
	struct stat st;
	mode_t mode = 0644;

	if (xsnprintf(path, sizeof(path), "%s/%s", folder, rel) < 0 ||
	    xsnprintf(dir, sizeof(dir), "%s", path) < 0)
		return -1;
	slash = strrchr(dir, '/');
	*slash = '\0';
	if (created_dir)
		*created_dir = 0;
	if (mkdir(dir, 0755) == 0) {
		if (created_dir)
			*created_dir = 1;
	} else if (errno != EEXIST) {
		err_set(err, "cannot create %s: %s", dir, strerror(errno));
		return -1;
	}
	if (lstat(path, &st) == 0)
		mode = st.st_mode & 07777;
	return setup_write_json(dir, slash + 1, root, mode, err);
}

static cJSON *
get_or_add(cJSON *parent, const char *key, int array, cJSON *created, const char *path)
{
	cJSON *v = cJSON_GetObjectItemCaseSensitive(parent, key);

	if (v)
		return (array ? cJSON_IsArray(v) : cJSON_IsObject(v)) ? v : NULL;
	v = array ? cJSON_CreateArray() : cJSON_CreateObject();
	cJSON_AddItemToObject(parent, key, v);
	cJSON_AddItemToArray(created, cJSON_CreateString(path));
	return v;
}

/* root.hooks.EVENT, made (and recorded as made) when missing. */
static cJSON *
event_list(cJSON *root, const char *event, cJSON *created, struct sbx_err *err)
{
	char path[64];
	cJSON *hooks, *list;

	if (!(hooks = get_or_add(root, "hooks", 0, created, "hooks"))) {
		err_set(err, "\"hooks\" is not an object");
		return NULL;
	}
	snprintf(path, sizeof(path), "hooks.%.50s", event);
	if (!(list = get_or_add(hooks, event, 1, created, path)))
		err_set(err, "\"hooks.%s\" is not an array", event);
	return list;
}

/* Claude Code / Codex layout: hooks.EVENT[] = {matcher?, hooks: [{type, command, timeout}]} */
static int
add_hook(cJSON *root, const char *event, const char *matcher, const char *command,
    int timeout, cJSON *created, struct sbx_err *err)
{
	cJSON *list, *group, *h, *inner;

	if (!(list = event_list(root, event, created, err)))
		return -1;
	cJSON_ArrayForEach(group, list) {
		cJSON_ArrayForEach(h, cJSON_GetObjectItemCaseSensitive(group, "hooks")) {
			const char *c = json_str(h, "command");

			if (c && strcmp(c, command) == 0)
				return 0;
		}
	}
	group = cJSON_CreateObject();
	if (matcher)
		cJSON_AddStringToObject(group, "matcher", matcher);
	inner = cJSON_AddArrayToObject(group, "hooks");
	h = cJSON_CreateObject();
	cJSON_AddStringToObject(h, "type", "command");
	cJSON_AddStringToObject(h, "command", command);
	if (timeout > 0)
		cJSON_AddNumberToObject(h, "timeout", timeout);
	cJSON_AddItemToArray(inner, h);
	cJSON_AddItemToArray(list, group);
	return 1;
}

/* Cursor layout: {"version": 1, "hooks": {EVENT: [{"command": ...}]}} */
static int
add_cursor_hook(cJSON *root, const char *event, const char *command, cJSON *created,
    struct sbx_err *err)
{
	cJSON *list, *h;

	if (!cJSON_GetObjectItemCaseSensitive(root, "version")) {
		cJSON_AddNumberToObject(root, "version", 1);
		cJSON_AddItemToArray(created, cJSON_CreateString("version"));
	}
	if (!(list = event_list(root, event, created, err)))
		return -1;
	cJSON_ArrayForEach(h, list) {
		const char *c = json_str(h, "command");

		if (c && strcmp(c, command) == 0)
			return 0;
	}
	h = cJSON_CreateObject();
	cJSON_AddStringToObject(h, "command", command);
	cJSON_AddItemToArray(list, h);
	return 1;
}

static int
add_mcp_server(cJSON *root, const char *command, int with_type, const char *folder,
    cJSON *created, struct sbx_err *err)
{
	cJSON *args;
	cJSON *servers, *s;
	const char *c;

	if (!(servers = get_or_add(root, "mcpServers", 0, created, "mcpServers"))) {
		err_set(err, "\"mcpServers\" is not an object");
		return -1;
	}
	if ((s = cJSON_GetObjectItemCaseSensitive(servers, "sbx"))) {
		c = json_str(s, "command");
		if (c && strcmp(c, command) == 0)
			return 0;
		err_set(err, "an MCP server named \"sbx\" exists already with another command "
		    "(%s); remove it first, nothing was written", c ? c : "none");
		return -1;
	}
	s = cJSON_CreateObject();
	if (with_type)
		cJSON_AddStringToObject(s, "type", "stdio");
	cJSON_AddStringToObject(s, "command", command);
	args = cJSON_AddArrayToObject(s, "args");
	if (folder) {
		cJSON_AddItemToArray(args, cJSON_CreateString("--folder"));
		cJSON_AddItemToArray(args, cJSON_CreateString(folder));
	}
	cJSON_AddItemToObject(servers, "sbx", s);
	cJSON_AddItemToArray(created, cJSON_CreateString("mcpServers.sbx"));
	return 1;
}

static int
record(const char *folder, const char *kind, const char *file, int created_file,
    int created_dir, cJSON *created, cJSON *commands, struct sbx_err *err)
{
	cJSON *root = NULL, *entries, *e, *next;
	char rel[64];
	int rc;

	snprintf(rel, sizeof(rel), ".sandbox/setup.json");
	if (load_json(folder, rel, &root, err) < 0)
		return -1;
	if (!root)
		root = cJSON_CreateObject();
	if (!(entries = cJSON_GetObjectItemCaseSensitive(root, "entries")))
		entries = cJSON_AddArrayToObject(root, "entries");
	/* One entry per kind and file: merge with an earlier one. */
	for (e = entries->child; e; e = next) {
		next = e->next;
		if (json_str(e, "kind") && !strcmp(json_str(e, "kind"), kind) &&
		    json_str(e, "file") && !strcmp(json_str(e, "file"), file)) {
			const cJSON *c;

			created_file |= json_bool(e, "created_file") == 1;
			created_dir |= json_bool(e, "created_dir") == 1;
			cJSON_ArrayForEach(c, cJSON_GetObjectItemCaseSensitive(e, "created"))
				cJSON_AddItemToArray(created, cJSON_Duplicate(c, 1));
			cJSON_Delete(cJSON_DetachItemViaPointer(entries, e));
			break;
		}
	}
	e = cJSON_CreateObject();
	cJSON_AddStringToObject(e, "kind", kind);
	cJSON_AddStringToObject(e, "file", file);
	cJSON_AddBoolToObject(e, "created_file", created_file);
	cJSON_AddBoolToObject(e, "created_dir", created_dir);
	cJSON_AddItemToObject(e, "created", cJSON_Duplicate(created, 1));
	cJSON_AddItemToObject(e, "commands", cJSON_Duplicate(commands, 1));
	cJSON_AddItemToArray(entries, e);
	rc = save_json(folder, rel, root, NULL, err);
	cJSON_Delete(root);
	return rc;
}

static int strip(cJSON *root, const cJSON *e);
static int is_ours(const char *c, const cJSON *commands);

/*
 * Takes out of root the commands an earlier init recorded for this kind
 * and file that are not among the ones just added: a hook registered from
 * another place (a moved clone, the build tree before make install, the
 * older bare form) must not stay beside the new one, blocking every call.
 * 1 if root changed, 0 if not, -1 on error.
 */
static int
drop_stale(cJSON *root, const char *folder, enum setup_kind kind, const char *rel,
    const cJSON *commands, struct sbx_err *err)
{
	cJSON *rec = NULL, *e, *stale, *tmp;
	const cJSON *c;
	int r = 0;

	if (load_json(folder, ".sandbox/setup.json", &rec, err) < 0)
		return -1;
	if (!rec)
		return 0;
	tmp = cJSON_CreateObject();
	stale = cJSON_AddArrayToObject(tmp, "commands");
	cJSON_AddArrayToObject(tmp, "created");
	cJSON_ArrayForEach(e, cJSON_GetObjectItemCaseSensitive(rec, "entries")) {
		if (!json_str(e, "kind") || strcmp(json_str(e, "kind"), kind_names[kind]) ||
		    !json_str(e, "file") || strcmp(json_str(e, "file"), rel))
			continue;
		cJSON_ArrayForEach(c, cJSON_GetObjectItemCaseSensitive(e, "commands"))
			if (cJSON_IsString(c) && !is_ours(c->valuestring, commands))
				cJSON_AddItemToArray(stale, cJSON_CreateString(c->valuestring));
	}
	if (stale->child)
		r = strip(root, tmp);
	cJSON_Delete(tmp);
	cJSON_Delete(rec);
	return r;
}

static int
apply(enum setup_kind kind, const struct setup_opts *o, const char **file,
    struct sbx_err *err, int write)
{
	char hook[PATH_MAX], mcp[PATH_MAX], q[PATH_MAX * 2], cmd[PATH_MAX * 2 + 512];
	cJSON *root = NULL, *created = cJSON_CreateArray(), *commands = cJSON_CreateArray();
	int existed, changed = 0, r, created_dir = 0;
	const char *rel;

	static const char *const rels[] = { ".claude/settings.json", ".mcp.json",
		".codex/hooks.json", ".cursor/hooks.json", ".cursor/mcp.json",
		".gemini/settings.json" };

	rel = kind == SETUP_CLAUDE && o->local ? ".claude/settings.local.json" : rels[kind];
	*file = rel;
	if (xsnprintf(hook, sizeof(hook), "%s/sbx-hook", o->bindir) < 0 ||
	    xsnprintf(mcp, sizeof(mcp), "%s/sbx-mcp", o->bindir) < 0 ||
	    shell_quote(kind == SETUP_CLAUDE_MCP || kind == SETUP_CURSOR_MCP ? mcp : hook,
	    q, sizeof(q)) < 0) {
		err_set(err, "path too long");
		goto fail;
	}
	if ((existed = load_json(o->folder, rel, &root, err)) < 0)
		goto fail;
	if (!root)
		root = cJSON_CreateObject();

#define ADD(expr) do { if ((r = (expr)) < 0) goto fail; changed |= r; } while (0)
#define CMD(mode) (hook_command(q, mode, cmd, sizeof(cmd)) < 0 ? "" : \
	(cJSON_AddItemToArray(commands, cJSON_CreateString(cmd)), cmd))
	switch (kind) {
	case SETUP_CLAUDE:
		ADD(add_hook(root, "PreToolUse", "*", CMD("pre"), o->timeout, created, err));
		ADD(add_hook(root, "PostToolUse", "*", CMD("post"), 30, created, err));
		ADD(add_hook(root, "SessionStart", NULL, CMD("session-start"), 30, created, err));
		break;
	case SETUP_CODEX:
		ADD(add_hook(root, "PreToolUse", NULL, CMD("codex"), o->timeout, created, err));
		break;
	case SETUP_GEMINI:
		/* Gemini's timeout is in milliseconds */
		ADD(add_hook(root, "BeforeTool", ".*", CMD("gemini"), o->timeout * 1000, created,
		    err));
		break;
	case SETUP_CURSOR:
		ADD(add_cursor_hook(root, "beforeShellExecution", CMD("cursor"), created, err));
		ADD(add_cursor_hook(root, "beforeMCPExecution", CMD("cursor"), created, err));
		ADD(add_cursor_hook(root, "beforeReadFile", CMD("cursor"), created, err));
		break;
	case SETUP_CLAUDE_MCP:
	case SETUP_CURSOR_MCP:
		cJSON_AddItemToArray(commands, cJSON_CreateString(mcp));
		ADD(drop_stale(root, o->folder, kind, rel, commands, err));
		ADD(add_mcp_server(root, mcp, kind == SETUP_CLAUDE_MCP,
		    /* Cursor does not promise the server's working directory. */
		    kind == SETUP_CURSOR_MCP ? o->folder : NULL, created, err));
		break;
	}
	if (kind != SETUP_CLAUDE_MCP && kind != SETUP_CURSOR_MCP)
		ADD(drop_stale(root, o->folder, kind, rel, commands, err));
#undef ADD
#undef CMD
	if (!write)
		changed = 0;
	if (changed && save_json(o->folder, rel, root, &created_dir, err) < 0)
		goto fail;
	if (changed && record(o->folder, kind_names[kind], rel, !existed, created_dir, created,
	    commands, err) < 0)
		goto fail;
	cJSON_Delete(root);
	cJSON_Delete(created);
	cJSON_Delete(commands);
	return changed;
fail:
	if (!err->msg[0])
		err_set(err, "cannot update %s/%s", o->folder, rel);
	else if (!strstr(err->msg, rel)) {
		char m[sizeof(err->msg)];

		snprintf(m, sizeof(m), "%s", err->msg);
		err_set(err, "%s/%s: %s", o->folder, rel, m);
	}
	cJSON_Delete(root);
	cJSON_Delete(created);
	cJSON_Delete(commands);
	return -1;
}

int
setup_add(enum setup_kind kind, const struct setup_opts *o, const char **file,
    struct sbx_err *err)
{
	return apply(kind, o, file, err, 1);
}

int
setup_check(enum setup_kind kind, const struct setup_opts *o, const char **file,
    struct sbx_err *err)
{
	return apply(kind, o, file, err, 0) < 0 ? -1 : 0;
}

static int
is_ours(const char *c, const cJSON *commands)
{
	const cJSON *x;

	cJSON_ArrayForEach(x, commands)
		if (cJSON_IsString(x) && c && strcmp(x->valuestring, c) == 0)
			return 1;
	return 0;
}

static int
was_created(const cJSON *created, const char *path)
{
	return is_ours(path, created);
}

/* Takes our entries out of one file. Returns 1 if the file changed. */
static int
strip(cJSON *root, const cJSON *e)
{
	const cJSON *commands = cJSON_GetObjectItemCaseSensitive(e, "commands");
	const cJSON *created = cJSON_GetObjectItemCaseSensitive(e, "created");
	cJSON *hooks = cJSON_GetObjectItemCaseSensitive(root, "hooks"), *ev, *nev, *g, *ng, *h, *nh;
	cJSON *servers = cJSON_GetObjectItemCaseSensitive(root, "mcpServers"), *s;
	char path[300];
	int changed = 0;

	for (ev = hooks ? hooks->child : NULL; ev; ev = nev) {
		nev = ev->next;
		for (g = ev->child; g; g = ng) {
			ng = g->next;
			/* Cursor: the entry itself has the command. */
			if (is_ours(json_str(g, "command"), commands)) {
				cJSON_Delete(cJSON_DetachItemViaPointer(ev, g));
				changed = 1;
				continue;
			}
			cJSON *inner = cJSON_GetObjectItemCaseSensitive(g, "hooks");
			int took = 0;

			for (h = inner ? inner->child : NULL; h; h = nh) {
				nh = h->next;
				if (is_ours(json_str(h, "command"), commands)) {
					cJSON_Delete(cJSON_DetachItemViaPointer(inner, h));
					took = changed = 1;
				}
			}
			/* A group left empty by us goes too. */
			if (inner && !inner->child && took)
				cJSON_Delete(cJSON_DetachItemViaPointer(ev, g));
		}
		snprintf(path, sizeof(path), "hooks.%s", ev->string);
		if (!ev->child && was_created(created, path))
			cJSON_Delete(cJSON_DetachItemViaPointer(hooks, ev));
	}
	if (hooks && !hooks->child && was_created(created, "hooks"))
		cJSON_DeleteItemFromObjectCaseSensitive(root, "hooks");
	if (servers && (s = cJSON_GetObjectItemCaseSensitive(servers, "sbx")) &&
	    is_ours(json_str(s, "command"), commands)) {
		cJSON_DeleteItemFromObjectCaseSensitive(servers, "sbx");
		changed = 1;
		if (!servers->child && was_created(created, "mcpServers"))
			cJSON_DeleteItemFromObjectCaseSensitive(root, "mcpServers");
	}
	if (was_created(created, "version") && cJSON_GetArraySize(root) == 1)
		cJSON_DeleteItemFromObjectCaseSensitive(root, "version");
	return changed;
}

int
setup_record_trust(const char *folder, const char *kind, const char *config,
    int created_file, int added_newline, struct sbx_err *err)
{
	cJSON *none = cJSON_CreateArray(), *none2 = cJSON_CreateArray();
	int rc;

	if (added_newline)
		cJSON_AddItemToArray(none, cJSON_CreateString("final-newline"));
	rc = none && none2 ? record(folder, kind, config, created_file, 0, none, none2, err)
	    : -1;

	cJSON_Delete(none);
	cJSON_Delete(none2);
	return rc;
}

int
setup_remove_all(const char *folder, struct sbx_err *err)
{
	cJSON *rec = NULL, *root, *e;
	char path[PATH_MAX], dir[PATH_MAX];
	const char *file;
	int r;

	if (load_json(folder, ".sandbox/setup.json", &rec, err) < 0)
		return -1;
	if (!rec) {
		printf("no client configuration recorded by sbx init in %s\n", folder);
		return 0;
	}
	cJSON_ArrayForEach(e, cJSON_GetObjectItemCaseSensitive(rec, "entries")) {
		/* Codex's own config.toml, outside the folder: sbx's block only. */
		if ((file = json_str(e, "file")) && json_str(e, "kind") &&
		    !strcmp(json_str(e, "kind"), "codex-trust")) {
			if ((r = codex_trust_remove(file, folder, json_bool(e, "created_file") == 1,
			    was_created(cJSON_GetObjectItemCaseSensitive(e, "created"),
			    "final-newline"), err)) < 0) {
				cJSON_Delete(rec);
				return -1;
			}
			printf(r ? "took sbx's Codex trust for this folder out of %s\n" :
			    "%s: no sbx trust block left\n", file);
			continue;
		}
		if (file && json_str(e, "kind") && !strcmp(json_str(e, "kind"), "gemini-trust")) {
			if ((r = gemini_trust_remove(file, folder, json_bool(e, "created_file") == 1,
			    err)) < 0) {
				cJSON_Delete(rec);
				return -1;
			}
			printf(r ? "took this folder's trust out of %s\n" :
			    "%s: no trust of sbx's left\n", file);
			continue;
		}
		if (!file || strstr(file, "..") || file[0] == '/')
			continue;
		if ((r = load_json(folder, file, &root, err)) < 0) {
			cJSON_Delete(rec);
			return -1;
		}
		if (!root) {
			printf("%s: already gone\n", file);
			continue;
		}
		if (strip(root, e)) {
			snprintf(path, sizeof(path), "%s/%s", folder, file);
			if (!root->child && json_bool(e, "created_file") == 1) {
				if (unlink(path) < 0) {
					err_set(err, "cannot remove %s: %s", path, strerror(errno));
					cJSON_Delete(root);
					cJSON_Delete(rec);
					return -1;
				}
				printf("removed %s (sbx init created it)\n", file);
			} else if (save_json(folder, file, root, NULL, err) < 0) {
				cJSON_Delete(root);
				cJSON_Delete(rec);
				return -1;
			} else {
				printf("took sbx out of %s\n", file);
			}
		} else {
			printf("%s: no sbx entries left\n", file);
		}
		cJSON_Delete(root);
	}
	/* Directories init created go once empty (after all their files). */
	cJSON_ArrayForEach(e, cJSON_GetObjectItemCaseSensitive(rec, "entries")) {
		if (json_bool(e, "created_dir") != 1 || !(file = json_str(e, "file")) ||
		    strstr(file, "..") || !strchr(file, '/'))
			continue;
		snprintf(dir, sizeof(dir), "%s/%s", folder, file);
		*strrchr(dir, '/') = '\0';
		if (rmdir(dir) == 0)
			printf("removed %s/ (empty, sbx init created it)\n", dir + strlen(folder) + 1);
	}
	cJSON_Delete(rec);
	snprintf(path, sizeof(path), "%s/.sandbox/setup.json", folder);
	if (unlink(path) < 0 && errno != ENOENT) {
		err_set(err, "cannot remove %s: %s", path, strerror(errno));
		return -1;
	}
	return 0;
}
