/*
 * test_mcp.c - sbx-mcp's protocol handler and its shell quoting, without
 * a folder (the tools' queue paths are covered by the integration tests).
 */
#include "hook/escalate.c"
#include "hook/mcp_rpc.c"
#include "hook/mcp_tools.c"

#include <sys/wait.h>

#include "tests/tap.h"

static struct mcp_server srv;

/* Handles one line; returns the parsed reply (caller frees) or NULL. */
static cJSON *
handle(const char *line)
{
	char *out = mcp_handle(&srv, line, strlen(line));
	cJSON *r;

	if (!out)
		return NULL;
	r = cJSON_Parse(out);
	free(out);
	return r;
}

static long
error_code(const char *line)
{
	cJSON *r = handle(line);
	const cJSON *e = cJSON_GetObjectItemCaseSensitive(r, "error");
	int64_t code = 0;

	json_int(e, "code", &code);
	cJSON_Delete(r);
	return (long)code;
}

/* What /bin/sh makes of printf %s QUOTED: must be the original bytes. */
static int
sh_roundtrip(const char *s)
{
	char *q = sh_quote(s, 0), *cmd = NULL, buf[4096];
	size_t n = 0;
	ssize_t r;
	int p[2], st, same = 0;
	pid_t pid;

	if (!q || !(cmd = malloc(strlen(q) + 16)) || pipe(p) < 0)
		goto out;
	sprintf(cmd, "printf %%s %s", q);
	if ((pid = fork()) == 0) {
		dup2(p[1], 1);
		close(p[0]);
		execl("/bin/sh", "sh", "-c", cmd, (char *)NULL);
		_exit(127);
	}
	close(p[1]);
	while ((r = read(p[0], buf + n, sizeof(buf) - 1 - n)) > 0)
		n += (size_t)r;
	close(p[0]);
	waitpid(pid, &st, 0);
	same = n == strlen(s) && memcmp(buf, s, n) == 0;
out:
	free(cmd);
	free(q);
	return same;
}

int
main(void)
{
	static const char *const tricky[] = {
		"plain", "", "it's", "'", "''''", "a b\tc\nd", "$(id) `id` $HOME ${X:-y}",
		"\\'\\\\'", "; rm -rf / #", "\"double\" 'single' \\back", "-n", "%s%n",
		"ünïcödé ✓", NULL,
	};
	cJSON *r, *list;
	char *line;
	int k;

	srv.why[0] = '\0';
	snprintf(srv.why, sizeof(srv.why), "no .sandbox/ folder (test)");

	for (k = 0; tricky[k]; k++)
		ok(sh_roundtrip(tricky[k]), "sh_quote round-trips tricky string %d through /bin/sh", k);

	is_int(error_code("nope"), -32700, "not JSON: -32700");
	is_int(error_code("[]"), -32600, "empty batch: -32600");
	is_int(error_code("[{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}]"), -32600,
	    "batch: -32600");
	is_int(error_code("\"str\""), -32600, "a string: -32600");
	is_int(error_code("{\"jsonrpc\":\"2.0\",\"id\":true,\"method\":\"ping\"}"), -32600,
	    "boolean id: -32600");
	is_int(error_code("{\"jsonrpc\":2,\"id\":1,\"method\":\"ping\"}"), -32600,
	    "numeric jsonrpc: -32600");
	is_int(error_code("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"x\"}"), -32601,
	    "unknown method: -32601");
	is_int(error_code("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\",\"params\":7}"),
	    -32602, "params a number: -32602");
	is_int(error_code("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\","
	    "\"params\":{\"name\":5}}"), -32602, "tool name a number: -32602");
	is_int(error_code("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\","
	    "\"params\":{\"name\":\"approve\"}}"), -32602, "no approve tool: -32602");
	ok(handle("{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}") == NULL,
	    "a notification gets no reply");
	ok(handle("{\"jsonrpc\":\"2.0\",\"method\":\"tools/call\",\"params\":{\"name\":"
	    "\"run_privileged\",\"arguments\":{\"command\":\"x\"}}}") == NULL,
	    "even a tools/call notification gets no reply (and runs nothing)");
	ok(handle("{\"jsonrpc\":\"2.0\",\"id\":9,\"result\":{}}") == NULL,
	    "a response gets no reply");

	r = handle("{\"jsonrpc\":\"2.0\",\"id\":\"abc\",\"method\":\"ping\"}");
	is_str(json_str(r, "id"), "abc", "string ids are echoed");
	ok(cJSON_IsObject(cJSON_GetObjectItemCaseSensitive(r, "result")), "ping result is {}");
	cJSON_Delete(r);
	r = handle("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":"
	    "{\"protocolVersion\":\"2025-03-26\"}}");
	is_str(json_str(cJSON_GetObjectItemCaseSensitive(r, "result"), "protocolVersion"),
	    "2025-03-26", "initialize echoes a supported version");
	ok(srv.initialized, "and marks the server initialized");
	cJSON_Delete(r);

	list = mcp_tools_list();
	is_int(cJSON_GetArraySize(list), 5, "five tools");
	for (k = 0; k < cJSON_GetArraySize(list); k++)
		ok(cJSON_IsObject(cJSON_GetObjectItemCaseSensitive(cJSON_GetArrayItem(list, k),
		    "inputSchema")), "tool %d has a parsed inputSchema", k);
	cJSON_Delete(list);

	/* Without a folder every tool is an error result, not a crash. */
	r = handle("{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/call\",\"params\":"
	    "{\"name\":\"sandbox_status\",\"arguments\":{}}}");
	ok(cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(r,
	    "result"), "isError")), "no folder: sandbox_status is an error result");
	cJSON_Delete(r);

	/* A deep document is refused by cJSON's nesting limit, not a crash. */
	line = malloc(20001);
	memset(line, '[', 20000);
	line[20000] = '\0';
	is_int(error_code(line), -32700, "20,000 nested arrays: -32700");
	free(line);
	return tap_done();
}
