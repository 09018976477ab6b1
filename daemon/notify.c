/*
 * notify.c - notifications for a person away from the terminal; see
 * notify.h. CONFIG/notify.json:
 *
 *   {"command": "notify-send sbx \"$SBX_NOTIFY_TEXT\"",
 *    "webhook": "http://127.0.0.1:8080/sbx", "format": "generic",
 *    "topic": "sbx", "events": ["request", "denied", "rate_limited", "expiring"],
 *    "timeout_seconds": 10, "expire_warn_seconds": 300}
 *
 * The webhook gets one JSON POST (format "generic", "slack" or "ntfy");
 * the command gets the generic JSON on stdin. Only http:// is spoken
 * (a plain HTTP/1.1 POST on a socket); https:// is refused at load.
 */
#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common/base/display.h"
#include "common/base/json.h"
#include "common/protocol/queue.h"
#include "common/redact/redact.h"
#include "common/store/db.h"
#include "common/store/store.h"
#include "daemon/notify.h"

#define NOTIFY_MAX_FILE   (64 * 1024)
#define NOTIFY_MAX_TEXT   1000

static const char *const event_names[] = { "request", "denied", "rate_limited", "expiring",
	NULL };

static struct {
	int on;
	char command[4096];
	char host[256], port[8], path[1024];   /* webhook, when host[0] */
	char format[16];
	char topic[128];
	unsigned events;            /* bit per event_names[] */
	int timeout;
	int warn;
} cfg;


static int
event_bit(const char *name)
{
	int k;

	for (k = 0; event_names[k]; k++)
		if (!strcmp(name, event_names[k]))
			return 1 << k;
	return 0;
}

/* http://HOST[:PORT][/PATH] into cfg; -1 with err. */
static int
parse_url(const char *url, struct sbx_err *err)
{
	const char *h, *end, *colon;
	size_t hl;

	if (!strncmp(url, "https://", 8)) {
		err_set(err, "webhook %s: https is not supported by sbxd (it speaks plain HTTP "
		    "only); use an http:// relay on this host, or a \"command\" such as "
		    "curl -fsS -H 'Content-Type: application/json' -d @- URL", url);
		return -1;
	}
	if (strncmp(url, "http://", 7) != 0) {
		err_set(err, "webhook %s: want an http:// URL", url);
		return -1;
	}
	h = url + 7;
	end = h + strcspn(h, "/");
	if (memchr(h, '@', (size_t)(end - h)) || strpbrk(url, " \r\n\t")) {
		err_set(err, "webhook %s: no credentials or spaces in the URL", url);
		return -1;
	}
	colon = memchr(h, ':', (size_t)(end - h));
	hl = (size_t)((colon ? colon : end) - h);
	if (hl == 0 || hl >= sizeof(cfg.host)) {
		err_set(err, "webhook %s: no host", url);
		return -1;
	}
	memcpy(cfg.host, h, hl);
	cfg.host[hl] = '\0';
	if (colon) {
		size_t pl = (size_t)(end - colon - 1);

		if (pl == 0 || pl >= sizeof(cfg.port) || strspn(colon + 1, "0123456789") < pl) {
			err_set(err, "webhook %s: bad port", url);
			return -1;
		}
		memcpy(cfg.port, colon + 1, pl);
		cfg.port[pl] = '\0';
	} else {
		snprintf(cfg.port, sizeof(cfg.port), "80");
	}
	if (xsnprintf(cfg.path, sizeof(cfg.path), "%s", *end ? end : "/") < 0) {
		err_set(err, "webhook %s: path too long", url);
		return -1;
	}
	return 0;
}

/* An optional whole number from 1 to hi: *out is def when key is absent. */
static int
opt_int(const cJSON *doc, const char *key, int def, int hi, int *out, struct sbx_err *err)
{
	int64_t v;

	*out = def;
	if (!cJSON_GetObjectItemCaseSensitive(doc, key))
		return 0;
	if (json_int(doc, key, &v) < 0 || v < 1 || v > hi) {
		err_set(err, "\"%s\" must be a whole number from 1 to %d", key, hi);
		return -1;
	}
	*out = (int)v;
	return 0;
}

static int
load_doc(const cJSON *doc, struct sbx_err *err)
{
	static const char *const keys[] = { "command", "webhook", "format", "topic", "events",
		"timeout_seconds", "expire_warn_seconds", "comment", NULL };
	const cJSON *c;
	const char *s;
	int k;

	if (!cJSON_IsObject(doc)) {
		err_set(err, "not a JSON object");
		return -1;
	}
	cJSON_ArrayForEach(c, doc) {
		for (k = 0; keys[k] && strcmp(keys[k], c->string); k++)
			;
		if (!keys[k]) {
			err_set(err, "unknown key \"%.60s\" (known: command, webhook, format, topic, "
			    "events, timeout_seconds, expire_warn_seconds)", c->string);
			return -1;
		}
		if (strcmp(c->string, "events") && strcmp(c->string, "timeout_seconds") &&
		    strcmp(c->string, "expire_warn_seconds") && !cJSON_IsString(c)) {
			err_set(err, "\"%s\" must be a string", c->string);
			return -1;
		}
	}
	if ((s = json_str(doc, "command")) &&
	    xsnprintf(cfg.command, sizeof(cfg.command), "%s", s) < 0) {
		err_set(err, "\"command\" is too long");
		return -1;
	}
	if ((s = json_str(doc, "webhook")) && parse_url(s, err) < 0)
		return -1;
	s = json_str(doc, "format");
	snprintf(cfg.format, sizeof(cfg.format), "%s", s ? s : "generic");
	if (strcmp(cfg.format, "generic") && strcmp(cfg.format, "slack") &&
	    strcmp(cfg.format, "ntfy")) {
		err_set(err, "\"format\" must be generic, slack or ntfy");
		return -1;
	}
	s = json_str(doc, "topic");
	if (s && (strlen(s) >= sizeof(cfg.topic) || !*s)) {
		err_set(err, "\"topic\" must be 1 to %zu bytes", sizeof(cfg.topic) - 1);
		return -1;
	}
	snprintf(cfg.topic, sizeof(cfg.topic), "%s", s ? s : "sbx");
	cfg.events = 0xf;
	if ((c = cJSON_GetObjectItemCaseSensitive(doc, "events"))) {
		const cJSON *e;

		cfg.events = 0;
		if (!cJSON_IsArray(c)) {
			err_set(err, "\"events\" must be an array");
			return -1;
		}
		cJSON_ArrayForEach(e, c) {
			if (!cJSON_IsString(e) || !event_bit(e->valuestring)) {
				err_set(err, "\"events\": each is one of request, denied, "
				    "rate_limited, expiring");
				return -1;
			}
			cfg.events |= (unsigned)event_bit(e->valuestring);
		}
	}
	if (opt_int(doc, "timeout_seconds", 10, 60, &cfg.timeout, err) < 0 ||
	    opt_int(doc, "expire_warn_seconds", 300, 86400, &cfg.warn, err) < 0)
		return -1;
	if (!cfg.command[0] && !cfg.host[0]) {
		err_set(err, "neither \"command\" nor \"webhook\" is set");
		return -1;
	}
	return 0;
}

int
notify_load(const char *config_dir, struct sbx_err *err)
{
	char path[4096], msg[sizeof(((struct sbx_err *)0)->msg)];
	struct sbx_err e2;
	size_t len;
	cJSON *doc;
	char *text;
	int fd, rc;

	memset(&cfg, 0, sizeof(cfg));
	if (xsnprintf(path, sizeof(path), "%s/notify.json", config_dir) < 0) {
		err_set(err, "config dir path too long");
		return -1;
	}
	fd = open(config_dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	text = read_untrusted(fd, "notify.json", NOTIFY_MAX_FILE, &len, &e2);
	close(fd);
	if (!text) {
		if (faccessat(AT_FDCWD, path, F_OK, AT_SYMLINK_NOFOLLOW) < 0 && errno == ENOENT)
			return 0;
		err_set(err, "%s: %s", path, e2.msg);
		return -1;
	}
	doc = cJSON_ParseWithLength(text, len);
	free(text);
	if (!doc) {
		err_set(err, "%s: not valid JSON", path);
		return -1;
	}
	rc = load_doc(doc, &e2);
	cJSON_Delete(doc);
	if (rc < 0) {
		snprintf(msg, sizeof(msg), "%s", e2.msg);
		memset(&cfg, 0, sizeof(cfg));
		err_set(err, "%.200s: %.300s", path, msg);
		return -1;
	}
	cfg.on = 1;
	return 0;
}

int
notify_enabled(void)
{
	return cfg.on;
}

/* Agent text for a notification: secrets scrubbed, visible escapes, cut
 * at a character. Caller frees. */
static char *
clean(const char *s, int cols)
{
	char *r = redact_str(s ? s : "", NULL), *d;

	d = display_text(r ? r : "", r ? strlen(r) : 0, 0, cols, NULL, NULL);
	free(r);
	return d;
}

static char *
body_generic(const char *event, const char *folder, const char *id, const char *tool,
    const char *cmd, const char *detail, const char *text)
{
	cJSON *o = cJSON_CreateObject();
	char *out;

	cJSON_AddStringToObject(o, "source", "sbx");
	cJSON_AddStringToObject(o, "event", event);
	cJSON_AddStringToObject(o, "folder", folder ? folder : "");
	cJSON_AddStringToObject(o, "id", id ? id : "");
	cJSON_AddStringToObject(o, "tool", tool ? tool : "");
	cJSON_AddStringToObject(o, "command", cmd ? cmd : "");
	cJSON_AddStringToObject(o, "detail", detail ? detail : "");
	cJSON_AddStringToObject(o, "text", text);
	cJSON_AddNumberToObject(o, "time", (double)(now_ms() / 1000));
	out = json_print_line(o);
	cJSON_Delete(o);
	return out;
}

static char *
body_webhook(const char *event, const char *text, const char *generic)
{
	cJSON *o, *tags;
	char title[64];
	char *out;

	if (!strcmp(cfg.format, "generic"))
		return strdup(generic);
	o = cJSON_CreateObject();
	if (!strcmp(cfg.format, "slack")) {
		cJSON_AddStringToObject(o, "text", text);
	} else {
		/* ntfy's JSON publishing: POST to the server root. */
		snprintf(title, sizeof(title), "sbx: %s", event);
		cJSON_AddStringToObject(o, "topic", cfg.topic);
		cJSON_AddStringToObject(o, "title", title);
		cJSON_AddStringToObject(o, "message", text);
		cJSON_AddNumberToObject(o, "priority", strcmp(event, "request") &&
		    strcmp(event, "expiring") ? 3 : 4);
		tags = cJSON_AddArrayToObject(o, "tags");
		cJSON_AddItemToArray(tags, cJSON_CreateString("lock"));
	}
	out = json_print_line(o);
	cJSON_Delete(o);
	return out;
}

/* One HTTP/1.1 POST; returns the status code, or -1. In the child. */
static int
http_post(const char *body)
{
	struct addrinfo hints = { .ai_socktype = SOCK_STREAM }, *ai = NULL, *a;
	char head[1600], resp[64];
	struct timeval tv = { .tv_sec = cfg.timeout };
	int fd = -1, n, code = -1;
	ssize_t r;

	if (getaddrinfo(cfg.host, cfg.port, &hints, &ai) != 0)
		return -1;
	for (a = ai; a; a = a->ai_next) {
		fd = socket(a->ai_family, a->ai_socktype | SOCK_CLOEXEC, a->ai_protocol);
		/* Every step is bounded: connect, send and the answer. */
		if (fd >= 0 && (setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv)) < 0 ||
		    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv)) < 0)) {
			close(fd);
			fd = -1;
			continue;
		}
		if (fd >= 0 && connect(fd, a->ai_addr, a->ai_addrlen) == 0)
			break;
		if (fd >= 0)
			close(fd);
		fd = -1;
	}
	freeaddrinfo(ai);
	if (fd < 0)
		return -1;
	n = snprintf(head, sizeof(head), "POST %s HTTP/1.1\r\nHost: %s:%s\r\n"
	    "User-Agent: sbxd/%s\r\nContent-Type: application/json\r\n"
	    "Content-Length: %zu\r\nConnection: close\r\n\r\n", cfg.path, cfg.host, cfg.port,
	    SBX_VERSION, strlen(body));
	if (n > 0 && (size_t)n < sizeof(head) && write_all(fd, head, (size_t)n) == 0 &&
	    write_all(fd, body, strlen(body)) == 0 &&
	    (r = read(fd, resp, sizeof(resp) - 1)) > 0) {
		resp[r] = '\0';
		if (sscanf(resp, "HTTP/%*d.%*d %d", &code) != 1)
			code = -1;
	}
	close(fd);
	return code;
}

/* Runs the command with the JSON on stdin; kills it at the deadline. */
static int
run_command(const char *json, const char *text, const char *event)
{
	int p[2], status = 0;
	int64_t deadline = mono_ms() + (int64_t)cfg.timeout * 1000;
	pid_t pid;

	if (pipe(p) < 0)
		return -1;
	if ((pid = fork()) < 0)
		return -1;
	if (pid == 0) {
		setpgid(0, 0);
		dup2(p[0], 0);
		close(p[0]);
		close(p[1]);
		setenv("SBX_EVENT", event, 1);
		setenv("SBX_NOTIFY_TEXT", text, 1);
		execl("/bin/sh", "sh", "-c", cfg.command, (char *)NULL);
		_exit(127);
	}
	close(p[0]);
	signal(SIGPIPE, SIG_IGN);
	(void)write_all(p[1], json, strlen(json));
	close(p[1]);
	while (waitpid(pid, &status, WNOHANG) == 0) {
		if (mono_ms() >= deadline) {
			kill(-pid, SIGKILL);
			kill(pid, SIGKILL);
			waitpid(pid, &status, 0);
			return -2;
		}
		usleep(20000);
	}
	return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

/* The delivering process: no descriptor of sbxd's but stdio, bounded. */
static void
deliver(const char *event, const char *text, const char *generic, const char *hook)
{
	int rc;

	closefrom(3);
	signal(SIGCHLD, SIG_DFL);
	signal(SIGTERM, SIG_DFL);
	signal(SIGINT, SIG_DFL);
	signal(SIGHUP, SIG_DFL);
	/* The backstop: the command and the webhook each have timeout
	 * seconds; SIGALRM ends us after both. */
	alarm(2 * (unsigned)cfg.timeout + 2);
	if (cfg.command[0] && (rc = run_command(generic, text, event)) != 0)
		fprintf(stderr, "sbxd notify: command for %s %s\n", event, rc == -2
		    ? "timed out and was killed" : "failed");
	if (hook && cfg.host[0] && ((rc = http_post(hook)) < 200 || rc > 299))
		fprintf(stderr, "sbxd notify: webhook http://%s:%s%s for %s: %s %d\n",
		    cfg.host, cfg.port, cfg.path, event, rc < 0 ? "no answer" : "status", rc);
}

void
notify_event(const char *event, const char *folder, const char *id, const char *tool,
    const char *command, const char *detail)
{
	char *c = NULL, *d = NULL, *f = NULL, *t = NULL, *generic = NULL, *hook = NULL;
	char text[NOTIFY_MAX_TEXT + 600];
	pid_t pid;

	if (!cfg.on || !(cfg.events & (unsigned)event_bit(event)))
		return;
	c = clean(command, 300);
	d = clean(detail, 300);
	f = clean(folder, 200);
	t = clean(tool, 60);
	if (!c || !d || !f || !t)
		goto out;
	snprintf(text, sizeof(text), "sbx: %s %s in %s: %s %s%s%s",
	    !strcmp(event, "request") ? "new request" : !strcmp(event, "denied") ? "denied"
	    : !strcmp(event, "rate_limited") ? "rate limit hit by" : "about to expire unanswered:",
	    id ? id : "", f, t, c, *d ? " - " : "", d);
	generic = body_generic(event, f, id, t, c, d, text);
	hook = generic ? body_webhook(event, text, generic) : NULL;
	if (!generic)
		goto out;
	fflush(stderr);
	/* Double fork: the worker is nobody's child to wait for. */
	pid = fork();
	if (pid == 0) {
		if (fork() == 0) {
			deliver(event, text, generic, hook);
			_exit(0);
		}
		_exit(0);
	}
	if (pid > 0)
		waitpid(pid, NULL, 0);
out:
	free(c);
	free(d);
	free(f);
	free(t);
	free(generic);
	free(hook);
}

struct expiring_ctx {
	const char *folder;
	int64_t now;
};

static void
expiring_one(void *ctx, const struct store_expiring *e)
{
	const struct expiring_ctx *c = ctx;
	char detail[96];

	snprintf(detail, sizeof(detail), "expires in %llds", (long long)(e->expires - c->now));
	notify_event("expiring", c->folder, e->id, e->tool, e->what, detail);
}

void
notify_expiring(sqlite3 *db, const char *folder, int64_t since, int64_t now)
{
	struct expiring_ctx c = { folder, now };

	if (!cfg.on || !(cfg.events & (unsigned)event_bit("expiring")))
		return;
	/* Each request once: its moment fell in (since, now], and it has not
	 * expired yet. However many there are (no cap). */
	(void)store_expiring_each(db, cfg.warn, since, now, expiring_one, &c);
}

int64_t
notify_expiring_next(sqlite3 *db, int64_t now)
{
	if (!cfg.on || !(cfg.events & (unsigned)event_bit("expiring")))
		return 0;
	return store_expiring_next(db, cfg.warn, now);
}
