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
 * end and answered -32700. MUST write stdout from this process only (tool
 * calls run in children that hand their reply over a pipe). MUST exit 0
 * on EOF, once the calls still running are answered; 1 when stdout is gone.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <poll.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <sodium.h>

#include "common/base/util.h"
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
 * Tool calls run in child processes, at most MAX_CALLS at a time: one may
 * wait minutes for a human, and meanwhile the loop answers pings, starts
 * other calls and honours notifications/cancelled (the child is stopped;
 * a queued request stays queued, and check_request still finds it). A
 * child writes its one reply line into a pipe; only this process writes
 * stdout, so replies never interleave.
 */
#define MAX_CALLS   8
#define MAX_REPLY   (4 * 1024 * 1024)

struct call {
	pid_t pid;                  /* 0: a free slot */
	int fd;                     /* read end of the child's reply pipe */
	cJSON *id;                  /* the request's id (owned) */
	int cancelled;              /* no reply: the client withdrew it */
	char *buf;                  /* the reply so far (owned) */
	size_t len;
};

static struct call calls[MAX_CALLS];

static int
calls_active(void)
{
	int k, n = 0;

	for (k = 0; k < MAX_CALLS; k++)
		n += calls[k].pid != 0;
	return n;
}

/* Ends call k: reaps the child and sends its reply (or an error). */
static int
call_finish(struct call *c)
{
	int rc = 0, st;

	close(c->fd);
	while (waitpid(c->pid, &st, 0) < 0 && errno == EINTR)
		;
	if (!c->cancelled) {
		if (c->len > 0 && c->buf[c->len - 1] == '\n') {
			if (write_all(STDOUT_FILENO, c->buf, c->len) < 0)
				rc = -1;
		} else {
			rc = send_line(mcp_error_line(c->id, -32603,
			    "Internal error: the tool call ended without an answer"));
		}
	}
	free(c->buf);
	cJSON_Delete(c->id);
	memset(c, 0, sizeof(*c));
	return rc;
}

/* Reads what call c has written; finishes it at EOF. */
static int
call_read(struct call *c)
{
	char chunk[16384], *nb;
	ssize_t r = read(c->fd, chunk, sizeof(chunk));

	if (r < 0 && (errno == EINTR || errno == EAGAIN))
		return 0;
	if (r > 0 && c->len + (size_t)r <= MAX_REPLY) {
		if (!(nb = realloc(c->buf, c->len + (size_t)r)))
			goto cut;
		c->buf = nb;
		memcpy(c->buf + c->len, chunk, (size_t)r);
		c->len += (size_t)r;
		return 0;
	}
	if (r == 0 || r < 0)
		return call_finish(c);
cut:
	/* Over the cap or out of memory: stop it and say so. */
	kill(c->pid, SIGKILL);
	c->len = 0;
	return call_finish(c);
}

/* Waits up to timeout ms (-1: until one) for replies and handles them. */
static int
calls_pump(int timeout)
{
	struct pollfd pfd[MAX_CALLS];
	int map[MAX_CALLS], n = 0, k, r;

	for (k = 0; k < MAX_CALLS; k++)
		if (calls[k].pid) {
			pfd[n] = (struct pollfd){ .fd = calls[k].fd, .events = POLLIN };
			map[n++] = k;
		}
	if (n == 0)
		return 0;
	r = poll(pfd, (nfds_t)n, timeout);
	if (r < 0)
		return errno == EINTR ? 0 : -1;
	for (k = 0; k < n; k++)
		if (pfd[k].revents && call_read(&calls[map[k]]) < 0)
			return -1;
	return 0;
}

/* Starts a tools/call in a child; takes id. */
static int
call_start(struct mcp_server *s, const char *line, size_t len, cJSON *id)
{
	char msg[160];
	struct call *c;
	int p[2], k;
	pid_t pid, server;
	char *out;

	while (calls_active() == MAX_CALLS)
		if (calls_pump(-1) < 0)
			goto fail_id;
	for (k = 0; calls[k].pid; k++)
		;
	c = &calls[k];
	if (pipe2(p, O_CLOEXEC) < 0)
		goto fail;
	server = getpid();
	if ((pid = fork()) < 0) {
		close(p[0]);
		close(p[1]);
		goto fail;
	}
	if (pid == 0) {
		/* The child answers through its pipe only: stdin and stdout
		 * point at /dev/null, and it dies with the server. */
		close(p[0]);
		k = open("/dev/null", O_RDWR | O_CLOEXEC);
		if (k < 0 || dup2(k, STDIN_FILENO) < 0 || dup2(k, STDOUT_FILENO) < 0)
			_exit(1);
		signal(SIGTERM, SIG_DFL);
		prctl(PR_SET_PDEATHSIG, SIGTERM);
		if (getppid() != server)
			_exit(1);
		out = mcp_handle(s, line, len);
		_exit(out && write_all(p[1], out, strlen(out)) == 0 ? 0 : 1);
	}
	close(p[1]);
	*c = (struct call){ .pid = pid, .fd = p[0], .id = id };
	return 0;
fail:
	snprintf(msg, sizeof(msg), "Internal error: cannot start the tool call: %s",
	    strerror(errno));
	k = send_line(mcp_error_line(id, -32603, msg));
	cJSON_Delete(id);
	return k;
fail_id:
	cJSON_Delete(id);
	return -1;
}

static void
call_cancel(const cJSON *id)
{
	int k;

	for (k = 0; k < MAX_CALLS; k++)
		if (calls[k].pid && !calls[k].cancelled && cJSON_Compare(calls[k].id, id, 1)) {
			calls[k].cancelled = 1;
			kill(calls[k].pid, SIGTERM);
		}
}

/* One complete line: answered now, or run apart. */
static int
dispatch(struct mcp_server *s, const char *line, size_t len)
{
	cJSON *id;

	switch (mcp_classify(line, len, &id)) {
	case MCP_APART:
		return call_start(s, line, len, id);
	case MCP_CANCEL:
		call_cancel(id);
		cJSON_Delete(id);
		return 0;
	default:
		return send_line(mcp_handle(s, line, len));
	}
}

/*
 * Reads messages line by line from stdin and answers each. Lines are
 * bounded; an over-long one is skipped to its newline. At EOF, calls
 * still running are finished and answered. Returns 0 on EOF, -1 when
 * stdin or stdout fails.
 */
static int
serve(struct mcp_server *s)
{
	struct pollfd pfd[1 + MAX_CALLS];
	int map[1 + MAX_CALLS];
	char *buf, *nl;
	size_t len = 0, start, n;
	ssize_t r;
	int skipping = 0, rc = -1, eof = 0, k, np;

	if (!(buf = malloc(SBX_MCP_MAX_LINE + 1)))
		return -1;
	while (!eof || calls_active() > 0) {
		np = 0;
		if (!eof)
			pfd[np++] = (struct pollfd){ .fd = STDIN_FILENO, .events = POLLIN };
		for (k = 0; k < MAX_CALLS; k++)
			if (calls[k].pid) {
				map[np] = k;
				pfd[np++] = (struct pollfd){ .fd = calls[k].fd, .events = POLLIN };
			}
		if (poll(pfd, (nfds_t)np, -1) < 0) {
			if (errno == EINTR)
				continue;
			goto out;
		}
		for (k = eof ? 0 : 1; k < np; k++)
			if (pfd[k].revents && call_read(&calls[map[k]]) < 0)
				goto out;
		if (eof || !pfd[0].revents)
			continue;
		r = read(STDIN_FILENO, buf + len, SBX_MCP_MAX_LINE + 1 - len);
		if (r < 0 && (errno == EINTR || errno == EAGAIN))
			continue;
		if (r < 0)
			goto out;
		if (r == 0) {
			/* EOF: a last line without a newline still counts. */
			eof = 1;
			if (len > 0 && !skipping && dispatch(s, buf, len) < 0)
				goto out;
			continue;
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
				if (n > 0 && dispatch(s, buf + start, n) < 0)
					goto out;
			}
			start += (size_t)(nl - (buf + start)) + 1;
		}
		memmove(buf, buf + start, len - start);
		len -= start;
		if (len > SBX_MCP_MAX_LINE) {
			/* Too long: answer once, drop it up to its newline. */
			if (!skipping && send_line(mcp_error_line(NULL, -32700,
			    "Parse error: message larger than 1 MiB")) < 0)
				goto out;
			skipping = 1;
			len = 0;
		}
	}
	rc = 0;
out:
	for (k = 0; k < MAX_CALLS; k++)
		if (calls[k].pid) {
			calls[k].cancelled = 1;
			kill(calls[k].pid, SIGTERM);
			call_finish(&calls[k]);
		}
	free(buf);
	return rc;
}

static void
usage(FILE *f)
{
	fprintf(f, "usage: sbx-mcp [-C DIR | --folder DIR]\n"
	    "  The sbx MCP server (stdio). Register it with your agent; see docs/MCP.md.\n"
	    "  Tools: run_privileged, request_path_access, fetch_url, check_request,\n"
	    "  sandbox_status. It can request approval, never grant it.\n");
}

int
main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "help", no_argument, NULL, 'h' }, { "version", no_argument, NULL, 'V' },
		{ "folder", required_argument, NULL, 'C' }, { "dir", required_argument, NULL, 'C' },
		{ NULL, 0, NULL, 0 },
	};
	static struct mcp_server s;
	const char *folder = NULL;
	int ch;

	signal(SIGPIPE, SIG_IGN);
	while ((ch = getopt_long(argc, argv, "C:h", opts, NULL)) != -1) {
		if (ch == 'C') {
			folder = optarg;
		} else if (ch == 'h') {
			usage(stdout);
			return 0;
		} else if (ch == 'V') {
			printf("sbx-mcp %s\n", SBX_VERSION);
			return 0;
		} else {
			usage(stderr);
			return 2;
		}
	}
	if (optind < argc) {
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
