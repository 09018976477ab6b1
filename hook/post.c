/*
 * post.c - the PostToolUse hook; see post.h.
 *
 * MUST open the changed file with O_NOFOLLOW|O_NONBLOCK and hash only a
 * regular file, within a size cap. MUST answer "{}" and exit 0 on every
 * path, including an overrun (the alarm).
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <sodium.h>

#include "common/base/json.h"
#include "common/base/util.h"
#include "common/protocol/originals.h"
#include "common/protocol/queue.h"
#include "common/protocol/users.h"
#include "hook/post.h"

#define POST_MAX_STDIN  (4 * 1024 * 1024)
#define POST_MAX_HASH   (256L * 1024 * 1024)    /* larger files are not hashed */
#define POST_MAX_TEXT   8192                    /* bytes of a command or path kept */
#define POST_DEADLINE_S 5

static const char empty_answer[] = "{}\n";

static void
on_alarm(int sig)
{
	(void)sig;
	(void)!write(STDOUT_FILENO, empty_answer, sizeof(empty_answer) - 1);
	_exit(0);
}

static int
answer(void)
{
	alarm(0);
	(void)!write(STDOUT_FILENO, empty_answer, sizeof(empty_answer) - 1);
	return 0;
}

/* BLAKE2b-256 of a regular file into hex: 0, or -1 with *why. */
static int
hash_file(const char *path, char hex[65], const char **why)
{
	unsigned char buf[65536], h[32];
	crypto_generichash_state st;
	struct stat sb;
	ssize_t r;
	int fd;

	fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
	if (fd < 0) {
		*why = errno == ENOENT ? "file does not exist" : errno == ELOOP
		    ? "file is a symlink" : "file cannot be opened";
		return -1;
	}
	if (fstat(fd, &sb) < 0 || !S_ISREG(sb.st_mode) || sb.st_size > POST_MAX_HASH) {
		*why = "not a regular file, or larger than 256 MiB";
		close(fd);
		return -1;
	}
	crypto_generichash_init(&st, NULL, 0, sizeof(h));
	while ((r = read(fd, buf, sizeof(buf))) != 0) {
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			*why = "read error";
			close(fd);
			return -1;
		}
		crypto_generichash_update(&st, buf, (size_t)r);
	}
	close(fd);
	crypto_generichash_final(&st, h, sizeof(h));
	hex_encode(hex, h, sizeof(h));
	return 0;
}

/*
 * The hash of the newest original of path that `sbx-hook pre` kept (in
 * the last 10 minutes) before an allowed file tool replaced it: the
 * file's hash before the change, when the client does not report it.
 */
static int
original_hash(int sbfd, const char *path, char hex[65])
{
	char real[PATH_MAX];
	struct original *v;
	int n, i, rc = -1;

	if (realpath(path, real))
		path = real;
	if ((n = originals_list(sbfd, &v)) <= 0)
		return -1;
	for (i = n - 1; i >= 0; i--) {
		if (strcmp(v[i].path, path) != 0)
			continue;
		if (v[i].hash[0] && now_ms() - v[i].time_ms < 600000) {
			memcpy(hex, v[i].hash, 65);
			rc = 0;
		}
		break;
	}
	free(v);
	return rc;
}

static void
add_text(cJSON *o, const char *key, const char *s)
{
	char *clean;

	if (!s)
		return;
	clean = utf8_clean(s, strlen(s), POST_MAX_TEXT, NULL);
	if (clean)
		cJSON_AddStringToObject(o, key, clean);
	free(clean);
}

static int
is_file_tool(const char *tool)
{
	return !strcmp(tool, "Write") || !strcmp(tool, "Edit") || !strcmp(tool, "MultiEdit") ||
	    !strcmp(tool, "NotebookEdit");
}

/* Builds the event document for this payload; NULL when there is none. */
static cJSON *
event_of(int sbfd, const cJSON *payload, const char *cwd)
{
	const cJSON *input = cJSON_GetObjectItemCaseSensitive(payload, "tool_input");
	const cJSON *resp = cJSON_GetObjectItemCaseSensitive(payload, "tool_response");
	const char *tool = json_str(payload, "tool_name"), *p, *why, *orig;
	char path[PATH_MAX], hex[65];
	unsigned char h[32];
	int64_t code;
	cJSON *ev;
	int b;

	if (!tool || !*tool || !(ev = cJSON_CreateObject()))
		return NULL;
	cJSON_AddNumberToObject(ev, "v", 1);
	cJSON_AddStringToObject(ev, "kind", "post_tool_use");
	cJSON_AddStringToObject(ev, "agent", "claude-code");
	add_text(ev, "session_id", json_str(payload, "session_id"));
	add_text(ev, "tool_use_id", json_str(payload, "tool_use_id"));
	add_text(ev, "tool", tool);
	add_text(ev, "cwd", cwd);
	cJSON_AddNumberToObject(ev, "time", (double)now_ms());
	if (is_file_tool(tool)) {
		p = json_str(input, "file_path");
		if (!p)
			p = json_str(input, "notebook_path");
		if (p && xsnprintf(path, sizeof(path), "%s%s%s", p[0] == '/' ? "" : cwd,
		    p[0] == '/' ? "" : "/", p) < 0)
			p = NULL;
		if (p) {
			add_text(ev, "path", path);
			if (hash_file(path, hex, &why) == 0)
				cJSON_AddStringToObject(ev, "after", hex);
			else
				cJSON_AddStringToObject(ev, "error", why);
		}
		/* The client may report the original content; else the original
		 * sbx-hook pre kept tells the hash before the change. */
		if ((orig = json_str(resp, "originalFile"))) {
			crypto_generichash(h, sizeof(h), (const unsigned char *)orig, strlen(orig),
			    NULL, 0);
			hex_encode(hex, h, sizeof(h));
			cJSON_AddStringToObject(ev, "before", hex);
		} else if (p && original_hash(sbfd, path, hex) == 0) {
			cJSON_AddStringToObject(ev, "before", hex);
		}
	} else if (!strcmp(tool, "Bash")) {
		add_text(ev, "command", json_str(input, "command"));
		if (json_int(resp, "exit_code", &code) == 0 || json_int(resp, "exitCode", &code) == 0 ||
		    json_int(resp, "returnCode", &code) == 0)
			cJSON_AddNumberToObject(ev, "exit_code", (double)code);
		if ((b = json_bool(resp, "interrupted")) >= 0)
			cJSON_AddBoolToObject(ev, "interrupted", b);
	}
	return ev;
}

int
hook_post(void)
{
	struct sigaction sa = { .sa_handler = on_alarm };
	char folder[PATH_MAX], cwd[PATH_MAX], dst[SBX_QUEUE_PATH_MAX], id[SBX_ID_LEN + 1];
	unsigned char rnd[SBX_ID_LEN / 2];
	const char *event, *cwd_in, *envdir;
	cJSON *payload = NULL, *ev = NULL;
	struct sbx_err err;
	enum json_bad bad = JSON_OK;
	char *text, why[128] = "";
	size_t len;
	int sbfd = -1;

	sigaction(SIGALRM, &sa, NULL);
	alarm(POST_DEADLINE_S);
	if (sodium_init() < 0)
		return answer();
	if (!(text = fd_read_all(STDIN_FILENO, POST_MAX_STDIN, &len)))
		return answer();
	/* Strict like every input sbx reads. A report that is JSON but not
	 * strict (a duplicate key, a control byte) is still recorded, as cJSON
	 * reads it, and marked: the tool already ran, so dropping its record
	 * would lose it. Not JSON at all: nothing to record. */
	payload = json_parse_strict(text, len, &bad, why, sizeof(why));
	if (!payload && bad == JSON_BAD_STRICT)
		payload = cJSON_ParseWithLength(text, len);
	free(text);
	event = json_str(payload, "hook_event_name");
	if (!cJSON_IsObject(payload) || !event || strcmp(event, "PostToolUse") != 0)
		goto out;
	envdir = getenv("CLAUDE_PROJECT_DIR");
	cwd_in = json_str(payload, "cwd");
	if ((!cwd_in || !realpath(cwd_in, cwd)) && (!envdir || !realpath(envdir, cwd)))
		goto out;
	if (find_folder_resolved(cwd, folder, sizeof(folder)) < 0 &&
	    (!envdir || find_folder(envdir, folder, sizeof(folder)) < 0))
		goto out;
	if ((sbfd = sandbox_open(folder, &err)) < 0 || !(ev = event_of(sbfd, payload, cwd)))
		goto out;
	if (bad == JSON_BAD_STRICT)
		add_text(ev, "input_error", why);
	if (!(text = json_print_line(ev)))
		goto out;
	randombytes_buf(rnd, sizeof(rnd));
	hex_encode(id, rnd, sizeof(rnd));
	snprintf(dst, sizeof(dst), "%s", queue_path(QP_EVENT, id).s);
	/* No sync, as for a request (docs/QUEUE.md, "Syncs"): sbxd makes
	 * the record durable when it appends it; before that the agent,
	 * who owns the folder, could remove the file anyway, and a crash
	 * loses no more than that. Two fsyncs on every tool call saved. */
	if (strlen(text) <= SBX_MAX_EVENT)
		(void)write_atomic(sbfd, "queue/tmp", dst, text, strlen(text),
		    sandbox_file_mode(sbfd), WA_NOREPLACE | WA_NOSYNC);
	free(text);
out:
	if (sbfd >= 0)
		close(sbfd);
	cJSON_Delete(ev);
	cJSON_Delete(payload);
	return answer();
}
