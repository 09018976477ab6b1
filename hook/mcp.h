/*
 * mcp.h - sbx-mcp, the MCP server (stdio, JSON-RPC 2.0, one message per
 * line). Agent-facing: it can ask for privileged work but never approve
 * it. It links no SQLite and no signing code, reads only files of the
 * queue (pending/, results/, queue/, work/, sbxd.lock) and writes only
 * into .sandbox/queue/ (requests and delivery receipts).
 *
 *   mcp_rpc.c    the protocol: one line in, at most one line out
 *   mcp_tools.c  run_privileged, request_path_access, fetch_url,
 *                check_request, sandbox_status
 *   mcp_main.c   the stdin line reader, tool calls in child processes
 *                (so pings, cancellations and parallel calls are served
 *                while a call waits for a human), and main()
 *
 * Errors: a malformed message gets a JSON-RPC error (-32700, -32600,
 * -32601, -32602); a failure inside a tool, bad arguments included, is
 * a tool result with isError true. Notifications never get a reply.
 */
#ifndef SBX_MCP_H
#define SBX_MCP_H

#include <limits.h>
#include <stddef.h>
#include <cjson/cJSON.h>

#define SBX_MCP_MAX_LINE    (1024 * 1024)   /* bytes of one message */
#define SBX_MCP_MAX_TEXT    16000           /* bytes of output text per result */
#define SBX_MCP_WAIT        45              /* default wait for a result, seconds */

struct mcp_server {
	char folder[PATH_MAX];      /* resolved project folder; "" when none */
	char config[PATH_MAX];      /* sbx config dir; "" when none */
	char why[512];              /* why there is no folder */
	int initialized;            /* "initialize" answered */
};

/*
 * Handles one message (len bytes, no newline). Returns the reply line
 * ending in '\n' (caller frees), or NULL when there is nothing to send
 * (a notification, a response). Never fails open: an error is a reply.
 */
char *mcp_handle(struct mcp_server *s, const char *line, size_t len);

/*
 * How the server loop treats a line: MCP_INLINE, answer it now with
 * mcp_handle(); MCP_APART, a tools/call request, which may wait minutes
 * for a human, so it runs in a child process (*id: a copy of its id);
 * MCP_CANCEL, notifications/cancelled (*id: a copy of the requestId).
 * The caller frees *id with cJSON_Delete.
 */
enum mcp_kind { MCP_INLINE, MCP_APART, MCP_CANCEL };
enum mcp_kind mcp_classify(const char *line, size_t len, cJSON **id);

/* An error reply for id (NULL: null), e.g. -32700 for a message too
 * large to read or -32603 for a tool call whose process died. */
char *mcp_error_line(const cJSON *id, int code, const char *message);

/* The tool descriptions for tools/list: a new array (caller frees). */
cJSON *mcp_tools_list(void);

/*
 * Runs tool NAME with ARGS (an object, or NULL). Returns the result
 * object {content, isError, structuredContent?} (caller frees), or NULL
 * when there is no such tool (the caller answers -32602).
 */
cJSON *mcp_tool_call(struct mcp_server *s, const char *name, const cJSON *args);

#endif
