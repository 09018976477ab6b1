/*
 * sbx-mcp - the sbx MCP server on stdio; see mcp.h and docs/MCP.md.
 *
 *   sbx-mcp [--folder DIR]
 *
 * The project folder is DIR, else the nearest .sandbox/ above the
 * current directory, else above $CLAUDE_PROJECT_DIR. Without one the
 * server still answers, and its tools say what is missing.
 *
 * MUST write only protocol lines to stdout (logs go to stderr). MUST
 * bound every message (SBX_MCP_MAX_LINE): a longer line is skipped to its
 * end and answered -32700. MUST exit 0 on EOF, 1 when stdout is gone.
 */
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <sodium.h>

#include "common/util.h"
#include "hook/mcp.h"

static int
send_line(char *line)
{
	int rc = 0;

	if (line && write_all(STDOUT_FILENO, line, strlen(line)) < 0)
		rc = -1;
	free(line);
	return rc;
}

static void
find_project(struct mcp_server *s, const char *arg)
{
	char cwd[PATH_MAX];
	const char *env = getenv("CLAUDE_PROJECT_DIR");

	if (config_dir(s->config, sizeof(s->config)) < 0) {
		s->config[0] = '\0';
		snprintf(s->why, sizeof(s->why), "cannot find the sbx config dir");
		return;
	}
	if (arg) {
		if (find_folder(arg, s->folder, sizeof(s->folder)) < 0) {
			s->folder[0] = '\0';
			snprintf(s->why, sizeof(s->why), "no .sandbox/ folder at or above %.400s",
			    arg);
		}
		return;
	}
	if (getcwd(cwd, sizeof(cwd)) && find_folder(cwd, s->folder, sizeof(s->folder)) == 0)
		return;
	if (env && find_folder(env, s->folder, sizeof(s->folder)) == 0)
		return;
	s->folder[0] = '\0';
	snprintf(s->why, sizeof(s->why), "no .sandbox/ folder above %.400s",
	    getcwd(cwd, sizeof(cwd)) ? cwd : "the current directory");
}

/*
 * Reads messages line by line from stdin and answers each. Lines are
 * bounded; an over-long one is skipped to its newline. Returns 0 on EOF,
 * -1 when stdin or stdout fails.
 */
static int
serve(struct mcp_server *s)
{
	char *buf, *nl;
	size_t len = 0, start, n;
	ssize_t r;
	int skipping = 0, rc = -1;

	if (!(buf = malloc(SBX_MCP_MAX_LINE + 1)))
		return -1;
	for (;;) {
		r = read(STDIN_FILENO, buf + len, SBX_MCP_MAX_LINE + 1 - len);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			goto out;
		if (r == 0) {
			/* EOF: a last line without a newline still counts. */
			if (len > 0 && !skipping && send_line(mcp_handle(s, buf, len)) < 0)
				goto out;
			rc = 0;
			goto out;
		}
		len += (size_t)r;
		start = 0;
		while ((nl = memchr(buf + start, '\n', len - start))) {
			n = (size_t)(nl - (buf + start));
			if (skipping) {
				skipping = 0;
			} else {
				if (n > 0 && buf[start + n - 1] == '\r')
					n--;
				if (n > 0 && send_line(mcp_handle(s, buf + start, n)) < 0)
					goto out;
			}
			start += (size_t)(nl - (buf + start)) + 1;
		}
		memmove(buf, buf + start, len - start);
		len -= start;
		if (len > SBX_MCP_MAX_LINE) {
			/* Too long: answer once, drop it up to its newline. */
			if (!skipping && send_line(mcp_error_line(-32700,
			    "Parse error: message larger than 1 MiB")) < 0)
				goto out;
			skipping = 1;
			len = 0;
		}
	}
out:
	free(buf);
	return rc;
}

static void
usage(FILE *f)
{
	fprintf(f, "usage: sbx-mcp [--folder DIR]\n"
	    "  The sbx MCP server (stdio). Register it with your agent; see docs/MCP.md.\n"
	    "  Tools: run_privileged, request_path_access, fetch_url, check_request,\n"
	    "  sandbox_status. It can request approval, never grant it.\n");
}

int
main(int argc, char **argv)
{
	static struct mcp_server s;
	const char *folder = NULL;

	signal(SIGPIPE, SIG_IGN);
	if (argc == 2 && (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0)) {
		usage(stdout);
		return 0;
	}
	if (argc == 2 && strcmp(argv[1], "--version") == 0) {
		printf("sbx-mcp %s\n", SBX_VERSION);
		return 0;
	}
	if (argc == 3 && strcmp(argv[1], "--folder") == 0) {
		folder = argv[2];
	} else if (argc != 1) {
		usage(stderr);
		return 2;
	}
	if (sodium_init() < 0) {
		fprintf(stderr, "sbx-mcp: libsodium failed to initialise\n");
		return 1;
	}
	find_project(&s, folder);
	if (!s.folder[0])
		fprintf(stderr, "sbx-mcp: %s; tools will say so\n", s.why);
	return serve(&s) == 0 ? 0 : 1;
}
