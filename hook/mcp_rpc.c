/*
 * mcp_rpc.c - JSON-RPC 2.0 for MCP over stdio; see mcp.h.
 *
 * MUST answer every request (a message with an id) exactly once and
 * never a notification. MUST treat anything that is not a single
 * well-formed request as an error, not as a guess: batches, wrong
 * types, a missing "jsonrpc": "2.0". MUST parse each line strictly
 * (json_parse_strict): a duplicate key, a raw control byte, \u0000,
 * invalid UTF-8 or trailing data is a -32700 Parse error.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/base/json.h"
#include "common/base/util.h"
#include "hook/mcp.h"

#define RPC_PARSE_ERROR      -32700
#define RPC_INVALID_REQUEST  -32600
#define RPC_METHOD_NOT_FOUND -32601
#define RPC_INVALID_PARAMS   -32602
#define RPC_INTERNAL_ERROR   -32603

/* Oldest first; the last is what we offer when the client's is unknown. */
static const char *const versions[] = {
	"2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25", NULL,
};

static const char instructions[] =
    "sbx sandboxes this agent: privileged work (sudo, deploys, git push, network "
    "to unlisted hosts, writes outside the project, reads of secrets) is not done "
    "by the agent but requested from a human. Use run_privileged for a shell "
    "command the hooks escalated or denied for approval, request_path_access to "
    "read or write a file outside what the policy allows, fetch_url for the "
    "network; each waits for the human and returns what happened. "
    "check_request gives the state and output of a request by id; "
    "sandbox_status says what the sandbox is and what waits. Nothing here can "
    "approve anything.";

/* A reply line for id (borrowed, may be NULL for null). Takes result or
 * builds an error when result is NULL. */
static char *
reply(const cJSON *id, cJSON *result, int code, const char *message)
{
	cJSON *o = cJSON_CreateObject(), *e;
	char *line = NULL;

	if (!o)
		goto out;
	cJSON_AddStringToObject(o, "jsonrpc", "2.0");
	cJSON_AddItemToObject(o, "id", id ? cJSON_Duplicate(id, 1) : cJSON_CreateNull());
	if (result) {
		cJSON_AddItemToObject(o, "result", result);
		result = NULL;
	} else if ((e = cJSON_AddObjectToObject(o, "error"))) {
		/* The message may quote the client's bytes: keep it UTF-8. */
		char *m = utf8_clean(message, strlen(message), strlen(message) * 3 + 3, NULL);

		cJSON_AddNumberToObject(e, "code", code);
		cJSON_AddStringToObject(e, "message", m ? m : "error");
		free(m);
	}
	line = json_print_line(o);
out:
	cJSON_Delete(result);
	cJSON_Delete(o);
	return line;
}

char *
mcp_error_line(const cJSON *id, int code, const char *message)
{
	return reply(id, NULL, code, message);
}

enum mcp_kind
mcp_classify(const char *line, size_t len, cJSON **id)
{
	const cJSON *v, *params;
	const char *method, *jr;
	enum mcp_kind kind = MCP_INLINE;
	enum json_bad bad;
	char why[160];
	cJSON *msg;

	*id = NULL;
	/* what mcp_handle would refuse is answered inline, as an error */
	if (!(msg = json_parse_strict(line, len, &bad, why, sizeof(why))) ||
	    !cJSON_IsObject(msg))
		goto out;
	method = json_str(msg, "method");
	jr = json_str(msg, "jsonrpc");
	v = cJSON_GetObjectItemCaseSensitive(msg, "id");
	params = cJSON_GetObjectItemCaseSensitive(msg, "params");
	if (!method || !jr || strcmp(jr, "2.0") != 0)
		goto out;
	if (v && (cJSON_IsString(v) || cJSON_IsNumber(v)) &&
	    strcmp(method, "tools/call") == 0) {
		if ((*id = cJSON_Duplicate(v, 1)))
			kind = MCP_APART;
	} else if (!v && strcmp(method, "notifications/cancelled") == 0 &&
	    (v = cJSON_GetObjectItemCaseSensitive(params, "requestId")) &&
	    (cJSON_IsString(v) || cJSON_IsNumber(v))) {
		if ((*id = cJSON_Duplicate(v, 1)))
			kind = MCP_CANCEL;
	}
out:
	cJSON_Delete(msg);
	return kind;
}

static cJSON *
do_initialize(struct mcp_server *s, const cJSON *params, const char **err)
{
	const char *want = json_str(params, "protocolVersion"), *v;
	cJSON *r, *caps, *info;
	int k;

	if (!want) {
		*err = "initialize needs params.protocolVersion (a string)";
		return NULL;
	}
	v = NULL;
	for (k = 0; versions[k]; k++) {
		if (strcmp(versions[k], want) == 0)
			v = versions[k];
	}
	if (!v)
		v = versions[k - 1];
	if (!(r = cJSON_CreateObject()))
		return NULL;
	cJSON_AddStringToObject(r, "protocolVersion", v);
	caps = cJSON_AddObjectToObject(r, "capabilities");
	if (caps && (caps = cJSON_AddObjectToObject(caps, "tools")))
		cJSON_AddBoolToObject(caps, "listChanged", 0);
	if ((info = cJSON_AddObjectToObject(r, "serverInfo"))) {
		cJSON_AddStringToObject(info, "name", "sbx-mcp");
		cJSON_AddStringToObject(info, "version", SBX_VERSION);
	}
	cJSON_AddStringToObject(r, "instructions", instructions);
	s->initialized = 1;
	return r;
}

char *
mcp_handle(struct mcp_server *s, const char *line, size_t len)
{
	const cJSON *id, *params, *args;
	const char *method, *jr, *name, *err = NULL;
	cJSON *msg, *result = NULL;
	char *out = NULL, text[320], why[160];
	enum json_bad bad;
	int is_request;

	/* Strictly: cJSON takes the first of two duplicate keys and ends a
	 * string at \u0000, where another reader of the same line would not. */
	msg = json_parse_strict(line, len, &bad, why, sizeof(why));
	if (!msg && bad == JSON_BAD_SYNTAX)
		return reply(NULL, NULL, RPC_PARSE_ERROR, "Parse error: not JSON");
	if (!msg) {
		snprintf(text, sizeof(text), "Parse error: not strict JSON (%s); send one JSON "
		    "value per line without duplicate keys, raw control bytes, \\u0000 or "
		    "invalid UTF-8", why);
		return reply(NULL, NULL, RPC_PARSE_ERROR, text);
	}
	if (cJSON_IsArray(msg)) {
		out = reply(NULL, NULL, RPC_INVALID_REQUEST,
		    "Invalid Request: batches are not supported; send one message per line");
		goto done;
	}
	if (!cJSON_IsObject(msg)) {
		out = reply(NULL, NULL, RPC_INVALID_REQUEST, "Invalid Request: not an object");
		goto done;
	}
	id = cJSON_GetObjectItemCaseSensitive(msg, "id");
	is_request = id != NULL;
	if (id && !cJSON_IsString(id) && !cJSON_IsNumber(id)) {
		out = reply(NULL, NULL, RPC_INVALID_REQUEST,
		    "Invalid Request: id must be a string or a number");
		goto done;
	}
	method = json_str(msg, "method");
	jr = json_str(msg, "jsonrpc");
	if (!method) {
		/* A response to us (we send no requests) is ignored. */
		if (is_request && !cJSON_GetObjectItemCaseSensitive(msg, "result") &&
		    !cJSON_GetObjectItemCaseSensitive(msg, "error"))
			out = reply(id, NULL, RPC_INVALID_REQUEST,
			    "Invalid Request: no method (a string)");
		goto done;
	}
	if (!jr || strcmp(jr, "2.0") != 0) {
		if (is_request)
			out = reply(id, NULL, RPC_INVALID_REQUEST,
			    "Invalid Request: \"jsonrpc\" must be \"2.0\"");
		goto done;
	}
	if (!is_request)
		goto done;      /* notifications (initialized, cancelled, ...) */
	params = cJSON_GetObjectItemCaseSensitive(msg, "params");
	if (params && !cJSON_IsObject(params)) {
		out = reply(id, NULL, RPC_INVALID_PARAMS, "Invalid params: must be an object");
		goto done;
	}
	if (strcmp(method, "initialize") == 0) {
		if (!(result = do_initialize(s, params, &err)))
			out = err ? reply(id, NULL, RPC_INVALID_PARAMS, err)
			    : reply(id, NULL, RPC_INTERNAL_ERROR, "out of memory");
		else
			out = reply(id, result, 0, NULL);
	} else if (strcmp(method, "ping") == 0) {
		out = reply(id, cJSON_CreateObject(), 0, NULL);
	} else if (strcmp(method, "tools/list") == 0) {
		if ((result = cJSON_CreateObject()))
			cJSON_AddItemToObject(result, "tools", mcp_tools_list());
		out = reply(id, result, RPC_INTERNAL_ERROR, "out of memory");
	} else if (strcmp(method, "tools/call") == 0) {
		name = json_str(params, "name");
		args = cJSON_GetObjectItemCaseSensitive(params, "arguments");
		if (!name) {
			out = reply(id, NULL, RPC_INVALID_PARAMS,
			    "Invalid params: tools/call needs params.name (a string)");
		} else if (!(result = mcp_tool_call(s, name, args))) {
			snprintf(text, sizeof(text), "Unknown tool: %.200s (see tools/list)", name);
			out = reply(id, NULL, RPC_INVALID_PARAMS, text);
		} else {
			out = reply(id, result, 0, NULL);
		}
	} else {
		snprintf(text, sizeof(text), "Method not found: %.200s", method);
		out = reply(id, NULL, RPC_METHOD_NOT_FOUND, text);
	}
done:
	cJSON_Delete(msg);
	return out;
}
