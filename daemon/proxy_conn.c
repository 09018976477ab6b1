/*
 * proxy_conn.c - one connection through sbx-proxy: read the request
 * head, judge the host with the policy engine, ask a human through the
 * folder queue when the host is not listed, then relay bytes.
 *
 * Rules:
 * - MUST judge every connection with the accepted policy
 *   (policy_load_accepted); no accepted policy: refuse, with the reason.
 * - MUST refuse a denied host at once, and relay nothing before the
 *   verdict is allow or a human's approval.
 * - MUST bound everything the client controls: the head's size and the
 *   time to send it, idle time in a tunnel, the wait for a human.
 * - MUST connect only to the host:port that was judged: the CONNECT
 *   target, or the absolute URI of a plain-HTTP request (whose Host
 *   header must agree). No TLS interception.
 * - MUST leave exactly one "network_connection" event per connection.
 */
#include <arpa/inet.h>
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "common/base/json.h"
#include "common/protocol/queue.h"
#include "common/trust/accept.h"
#include "daemon/proxy.h"
#include "hook/escalate.h"

#define RELAY_CHUNK (64 * 1024)

struct conn {
	struct proxy *px;
	int cfd, ufd;
	int64_t t0, t0m;                /* wall clock and monotonic, ms */
	char method[8];                 /* "CONNECT" | "HTTP" */
	char host[256];                 /* lower case; IPv6 without brackets */
	int port;
	char verdict[16];               /* allowed approved denied refused */
	char rule[160];
	char reason[600];
	char request[SBX_ID_LEN + 1];
	char error[512];
	int64_t up, down;
	char *head;                     /* the request head and what followed */
	size_t head_len, got;           /* head_len: up to the blank line */
	char target[PROXY_MAX_HEADER];  /* HTTP: the origin-form path */
};

/* ---- small helpers -------------------------------------------------- */

static int
send_all(int fd, const char *buf, size_t len, int timeout_ms)
{
	struct pollfd p = { .fd = fd, .events = POLLOUT };
	ssize_t n;

	while (len > 0) {
		n = send(fd, buf, len, MSG_NOSIGNAL | MSG_DONTWAIT);
		if (n > 0) {
			buf += n;
			len -= (size_t)n;
			continue;
		}
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
			if (poll(&p, 1, timeout_ms) <= 0)
				return -1;
			continue;
		}
		return -1;
	}
	return 0;
}

static void
set_str(char *dst, size_t n, const char *s)
{
	(void)xsnprintf(dst, n, "%s", s ? s : "");
}

/* "host:port", IPv6 in brackets. */
static void
target_text(const struct conn *c, char *buf, size_t n)
{
	snprintf(buf, n, strchr(c->host, ':') ? "[%s]:%d" : "%s:%d", c->host, c->port);
}

static void
respond(struct conn *c, int code, const char *status, const char *body)
{
	char head[512];
	int n;

	n = snprintf(head, sizeof(head), "HTTP/1.1 %d %s\r\nContent-Type: text/plain; "
	    "charset=utf-8\r\nContent-Length: %zu\r\nConnection: close\r\n"
	    "X-Sbx-Verdict: %s\r\n\r\n", code, status, strlen(body),
	    c->verdict[0] ? c->verdict : "refused");
	if (n > 0 && (size_t)n < sizeof(head) &&
	    send_all(c->cfd, head, (size_t)n, 5000) == 0)
		(void)send_all(c->cfd, body, strlen(body), 5000);
}

/* 403 with a body that says why and what to ask for. */
static void
refuse(struct conn *c, const char *verdict)
{
	char body[2048], tgt[300];

	if (verdict != c->verdict)
		set_str(c->verdict, sizeof(c->verdict), verdict);
	verdict = c->verdict;
	target_text(c, tgt, sizeof(tgt));
	if (c->request[0])
		snprintf(body, sizeof(body), "sbx-proxy: %s %s is %s: %s.\nTo reach it, ask "
		    "the user to approve request %s (`sbx approve %s`, or in `sbx watch`), "
		    "or to add \"%s\" to network.allowedDomains in .sandbox/policy.json and "
		    "accept the policy (`sbx policy accept`); then retry.\n", c->method, tgt,
		    verdict, c->reason, c->request, c->request, tgt);
	else if (!strcmp(verdict, "denied"))
		snprintf(body, sizeof(body), "sbx-proxy: %s %s is denied: %s.\nThe policy "
		    "forbids this host; do not try to reach it another way. Ask the user if "
		    "you need it.\n", c->method, tgt, c->reason);
	else
		snprintf(body, sizeof(body), "sbx-proxy: %s %s is refused: %s.\nAsk the user "
		    "to add \"%s\" to network.allowedDomains in .sandbox/policy.json and "
		    "accept the policy (`sbx policy accept`), or to approve the request "
		    "when it is asked; then retry.\n", c->method, tgt, c->reason, tgt);
	respond(c, 403, "Forbidden", body);
}

/* A request sbx-proxy does not serve: 400/405/431/502 with the reason. */
static void
fail_request(struct conn *c, int code, const char *status, const char *why)
{
	char body[1024];

	if (code != 502) {
		set_str(c->verdict, sizeof(c->verdict), "refused");
		set_str(c->reason, sizeof(c->reason), why);
	}
	snprintf(body, sizeof(body), "sbx-proxy: %s\n", why);
	respond(c, code, status, body);
}

static void
record(struct conn *c)
{
	struct sbx_err err;
	cJSON *ev = cJSON_CreateObject();
	int sbfd;

	if (!ev)
		return;
	cJSON_AddNumberToObject(ev, "v", 1);
	cJSON_AddStringToObject(ev, "kind", "network_connection");
	cJSON_AddStringToObject(ev, "agent", "sbx-proxy");
	cJSON_AddStringToObject(ev, "session_id", c->px->session);
	cJSON_AddNumberToObject(ev, "time", (double)(c->t0 / 1000));
	cJSON_AddStringToObject(ev, "method", c->method);
	cJSON_AddStringToObject(ev, "host", c->host);
	cJSON_AddNumberToObject(ev, "port", c->port);
	cJSON_AddStringToObject(ev, "verdict", c->verdict[0] ? c->verdict : "refused");
	if (c->rule[0])
		cJSON_AddStringToObject(ev, "rule", c->rule);
	if (c->reason[0])
		cJSON_AddStringToObject(ev, "reason", c->reason);
	if (c->request[0])
		cJSON_AddStringToObject(ev, "request", c->request);
	cJSON_AddNumberToObject(ev, "bytes_up", (double)c->up);
	cJSON_AddNumberToObject(ev, "bytes_down", (double)c->down);
	cJSON_AddNumberToObject(ev, "duration_ms", (double)(mono_ms() - c->t0m));
	if (c->error[0])
		cJSON_AddStringToObject(ev, "error", c->error);
	if ((sbfd = sandbox_open(c->px->folder, &err)) < 0 || event_submit(sbfd, "proxy", ev) < 0)
		fprintf(stderr, "sbx-proxy: cannot record the connection to %s:%d in "
		    "%s/.sandbox/proxy/events: %s\n", c->host, c->port, c->px->folder,
		    sbfd < 0 ? err.msg : strerror(errno));
	if (sbfd >= 0)
		close(sbfd);
	cJSON_Delete(ev);
}

/* ---- the request head ----------------------------------------------- */

/*
 * Reads until the blank line that ends the head, at most
 * PROXY_MAX_HEADER bytes, within the header timeout. 0, or -1 with the
 * answer already sent.
 */
static int
read_head(struct conn *c)
{
	int64_t deadline = mono_ms() + (int64_t)c->px->header_timeout_s * 1000;
	struct pollfd p = { .fd = c->cfd, .events = POLLIN };
	char *end;
	ssize_t n;
	int left;

	if (!(c->head = malloc(PROXY_MAX_HEADER + 1))) {
		set_str(c->error, sizeof(c->error), "out of memory");
		return -1;
	}
	for (;;) {
		c->head[c->got] = '\0';
		if ((end = strstr(c->head, "\r\n\r\n"))) {
			c->head_len = (size_t)(end - c->head) + 4;
			return 0;
		}
		if (memchr(c->head, '\0', c->got)) {
			fail_request(c, 400, "Bad Request", "the request head contains a NUL byte");
			return -1;
		}
		if (c->got >= PROXY_MAX_HEADER) {
			fail_request(c, 431, "Request Header Fields Too Large", "the request head "
			    "is larger than 16384 bytes");
			return -1;
		}
		left = (int)(deadline - mono_ms());
		if (c->px->stopping) {
			fail_request(c, 503, "Service Unavailable", "sbx-proxy is stopping");
			return -1;
		}
		if (left <= 0) {
			fail_request(c, 408, "Request Timeout", "no complete request head in time");
			return -1;
		}
		if (poll(&p, 1, left < PROXY_TICK_MS ? left : PROXY_TICK_MS) == 0)
			continue;
		n = recv(c->cfd, c->head + c->got, PROXY_MAX_HEADER - c->got, MSG_DONTWAIT);
		if (n < 0 && (errno == EINTR || errno == EAGAIN))
			continue;
		if (n <= 0) {
			set_str(c->reason, sizeof(c->reason), "the client closed before a "
			    "complete request head");
			return -1;
		}
		c->got += (size_t)n;
	}
}

/* Host (name, IPv4 or [IPv6]) and port from an authority; -1 if bad. */
static int
parse_authority(struct conn *c, const char *a, size_t n, int default_port)
{
	char buf[300], *host, *colon = NULL, *e;
	unsigned char ip[16];
	struct in_addr in4;
	size_t k, hl;
	long v;

	if (n == 0 || n >= sizeof(buf))
		return -1;
	memcpy(buf, a, n);
	buf[n] = '\0';
	if (buf[0] == '[') {
		if (!(e = strchr(buf, ']')))
			return -1;
		*e = '\0';
		host = buf + 1;
		if (inet_pton(AF_INET6, host, ip) != 1)
			return -1;
		if (e[1] == ':')
			colon = e + 1;
		else if (e[1] != '\0')
			return -1;
	} else {
		host = buf;
		if ((colon = strchr(buf, ':')))
			*colon = '\0';
		hl = strlen(host);
		/* "name." is "name" */
		if (hl > 1 && host[hl - 1] == '.')
			host[--hl] = '\0';
		if (hl == 0 || hl > 253 || host[0] == '.' || host[0] == '-')
			return -1;
		for (k = 0; k < hl; k++) {
			if (!isalnum((unsigned char)host[k]) && host[k] != '.' &&
			    host[k] != '-' && host[k] != '_')
				return -1;
			if (host[k] == '.' && host[k + 1] == '.')
				return -1;
			host[k] = (char)tolower((unsigned char)host[k]);
		}
		/* 127.1, 0x7f.0.0.1, 2130706433: an address the resolver
		 * accepts but no entry would name. Refused. */
		if (inet_aton(host, &in4) && inet_pton(AF_INET, host, ip) != 1)
			return -1;
	}
	c->port = default_port;
	if (colon) {
		if (!isdigit((unsigned char)colon[1]) || strlen(colon + 1) > 5)
			return -1;
		v = strtol(colon + 1, &e, 10);
		if (*e != '\0' || v < 1 || v > 65535)
			return -1;
		c->port = (int)v;
	}
	if (c->port == 0)
		return -1;
	set_str(c->host, sizeof(c->host), host);
	return 0;
}

/* The value of header NAME in the head (borrowed into out), or -1. */
static int
header_value(const char *head, const char *name, char *out, size_t n)
{
	const char *line = strstr(head, "\r\n"), *v, *e;
	size_t nl = strlen(name), k;

	while (line && !(line[2] == '\r' && line[3] == '\n')) {
		line += 2;
		e = strstr(line, "\r\n");
		if (!e)
			return -1;
		if ((size_t)(e - line) > nl && strncasecmp(line, name, nl) == 0 &&
		    line[nl] == ':') {
			v = line + nl + 1;
			while (*v == ' ' || *v == '\t')
				v++;
			k = (size_t)(e - v);
			while (k > 0 && (v[k - 1] == ' ' || v[k - 1] == '\t'))
				k--;
			if (k >= n)
				return -1;
			memcpy(out, v, k);
			out[k] = '\0';
			return 0;
		}
		line = e;
	}
	return -1;
}

/*
 * The request line: "CONNECT host:port HTTP/1.1" or a plain-HTTP request
 * with an absolute URI "GET http://host[:port]/path HTTP/1.1". Every
 * header line must have a name and a colon. 0, or -1 with the answer sent.
 */
static int
parse_head(struct conn *c)
{
	char line[PROXY_MAX_HEADER], method[17], uri[PROXY_MAX_HEADER], ver[16];
	char hosthdr[300], auth[300];
	const char *eol = strstr(c->head, "\r\n"), *p, *e, *l;
	size_t n, k;
	int hosts = 0;

	n = (size_t)(eol - c->head);
	memcpy(line, c->head, n);
	line[n] = '\0';
	/* strictly: METHOD SP TARGET SP HTTP/1.x */
	for (k = 0; k < n && line[k] >= 'A' && line[k] <= 'Z'; k++)
		;
	if (k == 0 || k > 16 || line[k] != ' ') {
		fail_request(c, 400, "Bad Request", "not an HTTP proxy request (want "
		    "\"CONNECT host:port HTTP/1.1\" or \"GET http://host/path HTTP/1.1\")");
		return -1;
	}
	memcpy(method, line, k);
	method[k] = '\0';
	p = line + k + 1;
	e = strchr(p, ' ');
	if (!e || e == p || strlen(e + 1) >= sizeof(ver)) {
		fail_request(c, 400, "Bad Request", "malformed request line");
		return -1;
	}
	memcpy(uri, p, (size_t)(e - p));
	uri[e - p] = '\0';
	snprintf(ver, sizeof(ver), "%s", e + 1);
	if (strcmp(ver, "HTTP/1.1") != 0 && strcmp(ver, "HTTP/1.0") != 0) {
		fail_request(c, 400, "Bad Request", "only HTTP/1.0 and HTTP/1.1 are served");
		return -1;
	}
	for (k = 0; uri[k]; k++)
		if ((unsigned char)uri[k] <= ' ' || uri[k] == 0x7f) {
			fail_request(c, 400, "Bad Request", "control characters in the target");
			return -1;
		}
	/* header lines: "Name: value"; no folded lines, one Host at most */
	for (l = eol + 2; !(l[0] == '\r' && l[1] == '\n'); l = e + 2) {
		e = strstr(l, "\r\n");
		p = memchr(l, ':', (size_t)(e - l));
		if (!p || p == l || l[0] == ' ' || l[0] == '\t' || memchr(l, ' ', (size_t)(p - l))) {
			fail_request(c, 400, "Bad Request", "a header line without a name, or a "
			    "folded one");
			return -1;
		}
		if (p - l == 4 && strncasecmp(l, "host", 4) == 0 && ++hosts > 1) {
			fail_request(c, 400, "Bad Request", "more than one Host header");
			return -1;
		}
		for (; l < e; l++)
			if ((unsigned char)*l < ' ' && *l != '\t') {
				fail_request(c, 400, "Bad Request", "control characters in a header");
				return -1;
			}
	}
	if (!strcmp(method, "CONNECT")) {
		set_str(c->method, sizeof(c->method), "CONNECT");
		if (parse_authority(c, uri, strlen(uri), 0) < 0) {
			fail_request(c, 400, "Bad Request", "CONNECT needs host:port (a name, an "
			    "IPv4 address in dotted form, or [IPv6]) with a port from 1 to 65535");
			return -1;
		}
		return 0;
	}
	set_str(c->method, sizeof(c->method), "HTTP");
	if (strncasecmp(uri, "http://", 7) != 0) {
		fail_request(c, strncasecmp(uri, "https://", 8) == 0 ? 400 : 400, "Bad Request",
		    strncasecmp(uri, "https://", 8) == 0 ? "https:// is reached with CONNECT "
		    "(set HTTPS_PROXY), never through a plain request" : "this is a proxy: "
		    "send an absolute http:// URI, or CONNECT host:port");
		return -1;
	}
	p = uri + 7;
	n = strcspn(p, "/?#");
	if (memchr(p, '@', n) || n >= sizeof(auth)) {
		fail_request(c, 400, "Bad Request", "user information in the URI is not "
		    "served");
		return -1;
	}
	memcpy(auth, p, n);
	auth[n] = '\0';
	if (parse_authority(c, auth, n, 80) < 0) {
		fail_request(c, 400, "Bad Request", "the URI has no valid host[:port]");
		return -1;
	}
	/* The Host header, if any, must name the same host and port: the
	 * server must not be told another name than the one judged. */
	if (header_value(c->head, "Host", hosthdr, sizeof(hosthdr)) == 0) {
		struct conn h = { .port = 0 };

		if (parse_authority(&h, hosthdr, strlen(hosthdr), 80) < 0 ||
		    strcmp(h.host, c->host) != 0 || h.port != c->port) {
			fail_request(c, 400, "Bad Request", "the Host header does not match the "
			    "URI's host");
			return -1;
		}
	}
	if (xsnprintf(c->target, sizeof(c->target), "%s %s%s %s", method, p[n] == '/' ? "" :
	    "/", p + n, ver) < 0) {
		fail_request(c, 414, "URI Too Long", "the request target is too long");
		return -1;
	}
	return 0;
}

/* ---- the verdict ------------------------------------------------------ */

static int
same_stat(const struct stat *a, const struct stat *b)
{
	return a->st_ino == b->st_ino && a->st_dev == b->st_dev &&
	    a->st_size == b->st_size && a->st_mtim.tv_sec == b->st_mtim.tv_sec &&
	    a->st_mtim.tv_nsec == b->st_mtim.tv_nsec && a->st_ctim.tv_nsec ==
	    b->st_ctim.tv_nsec;
}

/* Reloads the accepted policy when a file it depends on changed. Lock held. */
static void
refresh_policy(struct proxy *px)
{
	char path[PATH_MAX + 64];
	struct stat st[3];
	int k;

	memset(st, 0, sizeof(st));
	snprintf(path, sizeof(path), "%s/.sandbox/policy.json", px->folder);
	(void)stat(path, &st[0]);
	snprintf(path, sizeof(path), "%s/.sandbox/" SBX_ACCEPTED_FILE, px->folder);
	(void)stat(path, &st[1]);
	snprintf(path, sizeof(path), "%s/approvers", px->config);
	(void)stat(path, &st[2]);
	for (k = 0; k < 3 && px->pol_loaded; k++)
		if (!same_stat(&st[k], &px->pol_st[k]))
			break;
	if (px->pol_loaded && k == 3)
		return;
	policy_free(px->pol);
	px->pol = policy_load_accepted(px->folder, px->config, px->pol_err,
	    sizeof(px->pol_err));
	memcpy(px->pol_st, st, sizeof(st));
	px->pol_loaded = 1;
}

static cJSON *
conn_input(const struct conn *c, const char *host)
{
	cJSON *in = cJSON_CreateObject();

	if (in && (!cJSON_AddStringToObject(in, "method", c->method) ||
	    !cJSON_AddStringToObject(in, "host", host) ||
	    !cJSON_AddNumberToObject(in, "port", c->port))) {
		cJSON_Delete(in);
		return NULL;
	}
	return in;
}

/* Judges host:port with the policy. 0 with *res, -1 (no policy: c->reason). */
static int
judge(struct conn *c, const char *host, struct policy_result *res,
    struct policy_limits *lim, int *ask_s)
{
	struct policy_call call;
	struct proxy *px = c->px;
	cJSON *in = conn_input(c, host);
	int rc = -1;

	if (!in) {
		set_str(c->reason, sizeof(c->reason), "out of memory");
		return -1;
	}
	pthread_mutex_lock(&px->lock);
	refresh_policy(px);
	if (!px->pol) {
		snprintf(c->reason, sizeof(c->reason), "the folder's policy is not usable, so "
		    "every connection is refused (%.500s)", px->pol_err);
		goto out;
	}
	call = (struct policy_call){ .tool = "network", .input = in, .cwd = px->folder,
		.folder = px->folder, .home = getenv("HOME"), .config_dir = px->config };
	policy_eval(px->pol, &call, res);
	if (lim)
		*lim = *policy_limits(px->pol);
	if (ask_s)
		*ask_s = policy_net_ask_timeout(px->pol);
	rc = 0;
out:
	pthread_mutex_unlock(&px->lock);
	cJSON_Delete(in);
	return rc;
}

/*
 * The session's approvals: "host:port ID" (ID: the request a human
 * approved). Copies the ID into id and returns 1 when key is open.
 */
static int
session_has(struct proxy *px, const char *key, char id[SBX_ID_LEN + 1])
{
	size_t n = strlen(key);
	int k, found = 0;

	pthread_mutex_lock(&px->lock);
	for (k = 0; k < px->n_open && !found; k++)
		if (strncmp(px->open[k], key, n) == 0 && px->open[k][n] == ' ') {
			found = 1;
			set_str(id, SBX_ID_LEN + 1, px->open[k] + n + 1);
		}
	pthread_mutex_unlock(&px->lock);
	return found;
}

static void
session_add(struct proxy *px, const char *key, const char *id)
{
	char entry[320], tmp[SBX_ID_LEN + 1];

	if (xsnprintf(entry, sizeof(entry), "%s %s", key, id) < 0 || session_has(px, key, tmp))
		return;
	pthread_mutex_lock(&px->lock);
	/* Past the cap a host is asked again next time: nothing is lost. */
	if (px->n_open < PROXY_MAX_OPEN && (px->open[px->n_open] = strdup(entry)))
		px->n_open++;
	pthread_mutex_unlock(&px->lock);
}

/* Asks a human through the queue. 1 approved, 0 not (reason set). */
static int
ask(struct conn *c, const struct policy_result *why, const struct policy_limits *lim,
    int ask_s)
{
	struct esc_request rq;
	struct esc_outcome eo;
	const char *status, *who, *r;
	cJSON *in = conn_input(c, c->host);
	int ok = 0;

	if (!in) {
		set_str(c->reason, sizeof(c->reason), "out of memory");
		return 0;
	}
	rq = (struct esc_request){ .folder = c->px->folder, .cwd = c->px->folder,
		.tool = "network", .input = in, .session_id = c->px->session,
		.agent = "sbx-proxy", .why = why, .limits = lim, .wait_seconds = ask_s };
	escalate(&rq, &eo);
	cJSON_Delete(in);
	set_str(c->request, sizeof(c->request), eo.id);
	switch (eo.state) {
	case ESC_RESULT:
		status = json_str(eo.result, "status");
		who = json_str(eo.result, "approver");
		r = json_str(eo.result, "reason");
		if (status && !strcmp(status, "approved")) {
			snprintf(c->reason, sizeof(c->reason), "approved by %s", who && *who ?
			    who : "an approver");
			ok = 1;
		} else if (status && !strcmp(status, "denied")) {
			snprintf(c->reason, sizeof(c->reason), "DENIED by %s%s%s",
			    who && *who ? who : "an approver", r && *r ? ": " : "", r ? r : "");
			set_str(c->verdict, sizeof(c->verdict), "denied");
		} else {
			snprintf(c->reason, sizeof(c->reason), "request %s was %s%s%s", eo.id,
			    status ? status : "answered with a malformed result",
			    r && *r ? ": " : "", r ? r : "");
		}
		cJSON_Delete(eo.result);
		break;
	case ESC_TAKEN:
		/* Another connection waited on the same request and used its one
		 * answer; a retry in that connection's session is let through
		 * (session_has), any other is asked again. */
		snprintf(c->reason, sizeof(c->reason), "request %s was answered (%s), %s%.200s; "
		    "an answer is used once: retry", eo.id, eo.status, eo.msg[0] ? "but " :
		    "for another connection that waited on it too", eo.msg);
		break;
	case ESC_PENDING:
		snprintf(c->reason, sizeof(c->reason), "no human answered within %d s (%s); "
		    "it stays pending as request %s", ask_s, why->reason, eo.id);
		break;
	default:
		snprintf(c->reason, sizeof(c->reason), "it needs a human's approval (%.200s) but "
		    "could not be asked: %.300s", why->reason, eo.msg);
		c->request[0] = '\0';
	}
	return ok;
}

/* 1: go ahead; 0: refused (answer sent). */
static int
decide(struct conn *c)
{
	struct policy_result res;
	struct policy_limits lim;
	char key[300];
	int ask_s = POLICY_NET_ASK_TIMEOUT;

	if (judge(c, c->host, &res, &lim, &ask_s) < 0) {
		refuse(c, "refused");
		return 0;
	}
	set_str(c->rule, sizeof(c->rule), res.rule);
	set_str(c->reason, sizeof(c->reason), res.reason);
	if (res.verdict == POLICY_ALLOW) {
		set_str(c->verdict, sizeof(c->verdict), "allowed");
		return 1;
	}
	if (res.verdict == POLICY_DENY) {
		refuse(c, "denied");
		return 0;
	}
	target_text(c, key, sizeof(key));
	if (session_has(c->px, key, c->request)) {
		set_str(c->verdict, sizeof(c->verdict), "approved");
		set_str(c->reason, sizeof(c->reason), "approved earlier in this session");
		return 1;
	}
	if (ask(c, &res, &lim, ask_s)) {
		session_add(c->px, key, c->request);
		set_str(c->verdict, sizeof(c->verdict), "approved");
		return 1;
	}
	refuse(c, c->verdict[0] ? c->verdict : "refused");
	return 0;
}

/* ---- upstream ---------------------------------------------------------- */

static int
connect_to(struct conn *c)
{
	struct addrinfo hints = { .ai_socktype = SOCK_STREAM, .ai_flags = AI_NUMERICSERV };
	struct addrinfo *ai = NULL, *a;
	struct policy_result res;
	char port[8], num[INET6_ADDRSTRLEN];
	int64_t deadline = mono_ms() + PROXY_CONNECT_TIMEOUT_S * 1000;
	struct pollfd p;
	socklen_t sl;
	int fd = -1, rc, soerr, one = 1;

	snprintf(port, sizeof(port), "%d", c->port);
	if ((rc = getaddrinfo(c->host, port, &hints, &ai)) != 0) {
		snprintf(c->error, sizeof(c->error), "cannot resolve %.255s: %.200s", c->host,
		    gai_strerror(rc));
		return -1;
	}
	for (a = ai; a; a = a->ai_next) {
		/* A listed name that resolves to a denied address stays denied. */
		if (getnameinfo(a->ai_addr, a->ai_addrlen, num, sizeof(num), NULL, 0,
		    NI_NUMERICHOST) != 0)
			continue;
		if (strcmp(num, c->host) != 0 && (judge(c, num, &res, NULL, NULL) < 0 ||
		    res.verdict == POLICY_DENY)) {
			snprintf(c->error, sizeof(c->error), "%.200s resolves to %s, which the "
			    "policy denies", c->host, num);
			continue;
		}
		fd = socket(a->ai_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
		if (fd < 0)
			continue;
		if (connect(fd, a->ai_addr, a->ai_addrlen) == 0)
			break;
		if (errno == EINPROGRESS) {
			p = (struct pollfd){ .fd = fd, .events = POLLOUT };
			rc = poll(&p, 1, (int)(deadline - mono_ms()) > 0 ?
			    (int)(deadline - mono_ms()) : 0);
			sl = sizeof(soerr);
			if (rc > 0 && getsockopt(fd, SOL_SOCKET, SO_ERROR, &soerr, &sl) == 0 &&
			    soerr == 0)
				break;
			errno = rc == 0 ? ETIMEDOUT : rc > 0 ? soerr : errno;
		}
		snprintf(c->error, sizeof(c->error), "cannot connect to %s port %s: %s", num,
		    port, strerror(errno));
		close(fd);
		fd = -1;
	}
	freeaddrinfo(ai);
	if (fd >= 0) {
		c->error[0] = '\0';
		(void)setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	}
	return fd;
}

/* ---- relay ------------------------------------------------------------- */

struct dir {
	int from, to;
	int pipe[2];            /* splice mode */
	char *buf;              /* copy mode */
	size_t held, off;
	int eof, shut;
	int64_t *count;
};

/* Moves what it can. -1 on a hard error. */
static int
dir_step(struct dir *d, int can_read, int can_write, int use_splice)
{
	ssize_t n;

	if (can_read && !d->eof && d->held == 0) {
		if (use_splice)
			n = splice(d->from, NULL, d->pipe[1], NULL, RELAY_CHUNK,
			    SPLICE_F_MOVE | SPLICE_F_NONBLOCK);
		else
			n = recv(d->from, d->buf, RELAY_CHUNK, MSG_DONTWAIT);
		if (n == 0)
			d->eof = 1;
		else if (n > 0)
			d->held = (size_t)n, d->off = 0;
		else if (errno != EAGAIN && errno != EINTR)
			return errno == EINVAL && use_splice ? -2 : -1;
	}
	if (d->held > 0 && can_write) {
		if (use_splice)
			n = splice(d->pipe[0], NULL, d->to, NULL, d->held,
			    SPLICE_F_MOVE | SPLICE_F_NONBLOCK);
		else
			n = send(d->to, d->buf + d->off, d->held, MSG_DONTWAIT | MSG_NOSIGNAL);
		if (n > 0) {
			d->held -= (size_t)n;
			d->off += (size_t)n;
			*d->count += n;
		} else if (n < 0 && errno != EAGAIN && errno != EINTR) {
			return -1;
		}
	}
	if (d->eof && d->held == 0 && !d->shut) {
		(void)shutdown(d->to, SHUT_WR);
		d->shut = 1;
	}
	return 0;
}

static void
relay(struct conn *c)
{
	struct dir d[2] = {
		{ .from = c->cfd, .to = c->ufd, .pipe = { -1, -1 }, .count = &c->up },
		{ .from = c->ufd, .to = c->cfd, .pipe = { -1, -1 }, .count = &c->down },
	};
	int use_splice = 1, i, rc, idle_ms = c->px->idle_timeout_s * 1000;
	int64_t last = mono_ms();
	struct pollfd p[4];

	for (i = 0; i < 2; i++) {
		if (pipe2(d[i].pipe, O_CLOEXEC | O_NONBLOCK) < 0)
			use_splice = 0;
		if (!(d[i].buf = malloc(RELAY_CHUNK))) {
			set_str(c->error, sizeof(c->error), "out of memory");
			goto out;
		}
	}
	(void)fcntl(c->cfd, F_SETFL, fcntl(c->cfd, F_GETFL) | O_NONBLOCK);
	while (!(d[0].shut && d[1].shut)) {
		for (i = 0; i < 2; i++) {
			p[2 * i] = (struct pollfd){ .fd = !d[i].eof && d[i].held == 0 ?
			    d[i].from : -1, .events = POLLIN };
			p[2 * i + 1] = (struct pollfd){ .fd = d[i].held ? d[i].to : -1,
			    .events = POLLOUT };
		}
		if (c->px->stopping) {
			set_str(c->error, sizeof(c->error), "sbx-proxy stopped (the jail ended)");
			break;
		}
		rc = poll(p, 4, PROXY_TICK_MS);
		if (rc < 0 && errno == EINTR)
			continue;
		if (rc < 0)
			break;
		if (rc == 0) {
			if (mono_ms() - last < idle_ms)
				continue;
			snprintf(c->error, sizeof(c->error), "idle for %d s: closed",
			    c->px->idle_timeout_s);
			break;
		}
		last = mono_ms();
		for (i = 0; i < 2; i++) {
			rc = dir_step(&d[i], p[2 * i].revents != 0,
			    p[2 * i + 1].revents != 0, use_splice);
			if (rc == -2 && d[i].held == 0 && d[1 - i].held == 0) {
				/* splice not supported here: copy instead */
				use_splice = 0;
				rc = 0;
			}
			if (rc < 0)
				goto out;
		}
	}
out:
	for (i = 0; i < 2; i++) {
		if (d[i].pipe[0] >= 0)
			close(d[i].pipe[0]);
		if (d[i].pipe[1] >= 0)
			close(d[i].pipe[1]);
		free(d[i].buf);
	}
}

/* ---- one connection ----------------------------------------------------- */

/* The plain-HTTP head as the origin server gets it: origin-form target,
 * no proxy or hop-by-hop headers, one request per connection. */
static char *
origin_head(const struct conn *c, size_t *len)
{
	static const char *const drop[] = { "proxy-connection", "proxy-authorization",
		"connection", "keep-alive", "proxy-authenticate", NULL };
	size_t cap = c->head_len + 64, n = 0, k, l;
	const char *line, *e;
	char *out = malloc(cap + strlen(c->target));

	if (!out)
		return NULL;
	n = (size_t)sprintf(out, "%s\r\n", c->target);
	for (line = strstr(c->head, "\r\n") + 2; !(line[0] == '\r' && line[1] == '\n');
	    line = e + 2) {
		e = strstr(line, "\r\n");
		l = (size_t)(e - line);
		for (k = 0; drop[k]; k++)
			if (l > strlen(drop[k]) && !strncasecmp(line, drop[k], strlen(drop[k])) &&
			    line[strlen(drop[k])] == ':')
				break;
		if (drop[k])
			continue;
		memcpy(out + n, line, l + 2);
		n += l + 2;
	}
	memcpy(out + n, "Connection: close\r\n\r\n", 21);
	n += 21;
	*len = n;
	return out;
}

void
proxy_serve(struct proxy *px, int fd)
{
	struct conn *c = calloc(1, sizeof(*c));
	static const char ok[] = "HTTP/1.1 200 Connection established\r\n\r\n";
	char *head;
	size_t len, rest;

	if (!c) {
		close(fd);
		return;
	}
	c->px = px;
	c->cfd = fd;
	c->ufd = -1;
	c->t0 = now_ms();
	c->t0m = mono_ms();
	set_str(c->method, sizeof(c->method), "-");
	if (read_head(c) < 0 || parse_head(c) < 0 || !decide(c))
		goto out;
	if ((c->ufd = connect_to(c)) < 0) {
		fail_request(c, 502, "Bad Gateway", c->error);
		goto out;
	}
	rest = c->got - c->head_len;
	if (!strcmp(c->method, "CONNECT")) {
		if (send_all(c->cfd, ok, sizeof(ok) - 1, 10000) < 0)
			goto out;
	} else {
		if (!(head = origin_head(c, &len))) {
			set_str(c->error, sizeof(c->error), "out of memory");
			goto out;
		}
		if (send_all(c->ufd, head, len, 10000) < 0) {
			free(head);
			goto out;
		}
		free(head);
	}
	/* what the client sent after the head (a TLS hello, a body) */
	if (rest > 0) {
		if (send_all(c->ufd, c->head + c->head_len, rest, 10000) < 0)
			goto out;
		c->up += (int64_t)rest;
	}
	free(c->head);
	c->head = NULL;
	relay(c);
out:
	if (c->ufd >= 0)
		close(c->ufd);
	close(c->cfd);
	record(c);
	free(c->head);
	free(c);
}

void
proxy_refuse_busy(struct proxy *px, int fd)
{
	struct conn c = { .px = px, .cfd = fd, .ufd = -1 };

	c.t0 = now_ms();
	c.t0m = mono_ms();
	set_str(c.method, sizeof(c.method), "-");
	snprintf(c.reason, sizeof(c.reason), "%d connections are open already (the "
	    "limit); retry later", px->max_conns);
	set_str(c.verdict, sizeof(c.verdict), "refused");
	respond(&c, 503, "Service Unavailable", "sbx-proxy: too many connections at once; "
	    "retry later\n");
	/* Closing with unread input would reset the connection and lose the
	 * answer: take what has arrived, without waiting for more. */
	{
		char scrap[4096];
		int k;

		for (k = 0; k < 16 && recv(fd, scrap, sizeof(scrap), MSG_DONTWAIT) > 0; k++)
			;
	}
	close(fd);
	record(&c);
}
