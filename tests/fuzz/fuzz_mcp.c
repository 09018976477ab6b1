/*
 * fuzz_mcp - sbx-mcp's protocol (hook/mcp_rpc.c): the input is one
 * message line, classified (mcp_classify, as the server loop does) and
 * answered (mcp_handle). The server has no folder, so a tool call gets
 * its arguments checked and an error result at once instead of waiting
 * minutes for a human. A reply must be one JSON line.
 */
#include "tests/fuzz/fuzz.h"
#include "hook/mcp.h"

static struct mcp_server srv;

int
LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc; (void)argv;
	fuzz_tmp();
	snprintf(srv.why, sizeof(srv.why), "fuzzing: no sandbox folder");
	return 0;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	cJSON *id = NULL, *r;
	char *out;
	size_t n;

	if (size > SBX_MCP_MAX_LINE || memchr(data, '\n', size))
		return -1;              /* the line reader never hands these over */
	(void)mcp_classify((const char *)data, size, &id);
	cJSON_Delete(id);
	/* Half the time as the first message, half after initialize. */
	srv.initialized = size > 0 && (data[0] & 1);
	out = mcp_handle(&srv, (const char *)data, size);
	if (out) {
		n = strlen(out);
		if (n == 0 || out[n - 1] != '\n' || memchr(out, '\n', n - 1))
			abort();
		if (!(r = cJSON_ParseWithLength(out, n)) || !cJSON_IsObject(r))
			abort();
		cJSON_Delete(r);
		free(out);
	}
	return 0;
}
