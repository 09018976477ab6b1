/*
 * session.c - `sbx-hook session-start`: tells the model, once per
 * session, how the sandbox works and what is pending or finished.
 *
 * MUST exit 0 with one JSON object and never block the session: any
 * problem gives a short context or {}.
 */
#include <dirent.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/base/json.h"
#include "common/protocol/queue.h"
#include "hook/session.h"

#define MAX_STDIN (1024 * 1024)
#define MAX_LISTED 10

static int
print_context(const char *text)
{
	cJSON *o = cJSON_CreateObject(), *h;
	char *out;

	if (o && text && (h = cJSON_AddObjectToObject(o, "hookSpecificOutput"))) {
		cJSON_AddStringToObject(h, "hookEventName", "SessionStart");
		cJSON_AddStringToObject(h, "additionalContext", text);
	}
	out = o ? json_print_line(o) : NULL;
	if (!out || write_all(STDOUT_FILENO, out, strlen(out)) < 0)
		(void)!write(STDOUT_FILENO, "{}\n", 3);
	free(out);
	cJSON_Delete(o);
	return 0;
}

/* Appends to buf what waits in pending/ and queue/new. */
static void
describe_queue(const char *folder, char *buf, size_t cap)
{
	char id[SBX_ID_LEN + 1], name[SBX_QUEUE_PATH_MAX], line[256];
	struct sbx_err err;
	struct dirent *de;
	int sbfd, waiting = 0, ready = 0, i;
	const char *dirs[] = { "pending", "queue/new" };
	DIR *d;

	if ((sbfd = sandbox_open(folder, &err)) < 0)
		return;
	for (i = 0; i < 2; i++) {
		if (!(d = opendir_at(sbfd, dirs[i]))) {
			continue;
		}
		while ((de = readdir(d))) {
			if (!valid_request_name(de->d_name, id))
				continue;
			snprintf(name, sizeof(name), "%s", queue_path(QP_RESULT, id).s);
			if (faccessat(sbfd, name, F_OK, AT_SYMLINK_NOFOLLOW) < 0) {
				waiting++;
				continue;
			}
			snprintf(name, sizeof(name), "%s", queue_path(QP_DELIVERED, id).s);
			if (faccessat(sbfd, name, F_OK, AT_SYMLINK_NOFOLLOW) == 0)
				continue;
			if (ready++ < MAX_LISTED) {
				snprintf(line, sizeof(line), "%s request %s has finished; repeat the "
				    "same call to receive its result.", ready == 1 ? "\n" : "", id);
				strncat(buf, line, cap - strlen(buf) - 1);
			}
		}
		closedir(d);
	}
	close(sbfd);
	snprintf(line, sizeof(line), "\nNow: %d request(s) waiting for a human, %d finished "
	    "and not yet handed back.", waiting, ready);
	strncat(buf, line, cap - strlen(buf) - 1);
}

/* Appends to buf a warning when no sbxd serves the folder. */
static void
describe_daemon(const char *folder, char *buf, size_t cap)
{
	struct sbx_err err;
	size_t used = strlen(buf), n;
	char *line = NULL;
	int sbfd, up;

	if ((sbfd = sandbox_open(folder, &err)) < 0)
		return;
	up = daemon_serving(sbfd);
	close(sbfd);
	if (up != 0)
		return;
	if (used + 1 >= cap || asprintf(&line, "\nWARNING: no sbxd is running for %s right "
	    "now. An escalated call is still queued (the answer names its request ID), but "
	    "it will run only after a human approves it once sbxd runs. Tell the user to "
	    "start it: `sbxd %s` (and approve in `sbx watch -C %s`).", folder, folder,
	    folder) < 0)
		return;
	/* Cut when the folder path is huge: the context stays bounded. */
	n = strlen(line) < cap - used - 1 ? strlen(line) : cap - used - 1;
	memcpy(buf + used, line, n);
	buf[used + n] = '\0';
	free(line);
}

int
hook_session_start(void)
{
	char folder[PATH_MAX], cwd[PATH_MAX], text[8192];
	const char *cwd_in, *envdir;
	cJSON *payload = NULL;
	size_t len;
	char *in;

	in = fd_read_all(STDIN_FILENO, MAX_STDIN, &len);
	if (in)
		payload = cJSON_ParseWithLength(in, len);
	free(in);
	cwd_in = json_str(payload, "cwd");
	envdir = getenv("CLAUDE_PROJECT_DIR");
	if (!((cwd_in && realpath(cwd_in, cwd) && find_folder_resolved(cwd, folder, sizeof(folder)) == 0) ||
	    (envdir && find_folder(envdir, folder, sizeof(folder)) == 0))) {
		cJSON_Delete(payload);
		return print_context("sbx: this session is registered with sbx, but no "
		    ".sandbox/ folder was found above the working directory, so every tool call "
		    "will be denied until the user runs `sbx init` in the project.");
	}
	cJSON_Delete(payload);
	snprintf(text, sizeof(text),
	    "This project is guarded by sbx (folder %s). Ordinary work runs as usual. "
	    "Privileged calls (sudo, git push, deploys, network to unknown hosts, writes "
	    "outside the project, reads of secrets) are escalated to a human: the call is "
	    "denied for you, queued, and once the human approves, the sbx daemon runs it "
	    "outside your sandbox. Its output then comes back as the deny reason, starting "
	    "with \"approved ... and ALREADY EXECUTED\": treat that as the command's result "
	    "and do not run it again. If the reason says \"pending as request ID\", the "
	    "human has not decided yet: carry on with other work, and repeat the exact "
	    "same call later to receive the result; do not try to work around a denial. "
	    "Writes to .sandbox/, .claude/settings*.json and .mcp.json are always denied.",
	    folder);
	describe_queue(folder, text, sizeof(text));
	describe_daemon(folder, text, sizeof(text));
	return print_context(text);
}
