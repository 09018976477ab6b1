/*
 * test_netpolicy.c - network entries (host names, *.name, IP literals,
 * host:port) and the "network" tool that sbx-proxy asks about; the
 * request kinds that open instead of executing (common/protocol/queue.c).
 */
#include "common/protocol/queue.h"
#include "policy/policy.h"
#include "tests/tap.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static char folder[PATH_MAX];

static struct policy *
load(const char *text, struct policy_error *err)
{
	return policy_load_buffer("policy.json", text, strlen(text), folder, NULL, err);
}

static struct policy_result
conn(const struct policy *p, const char *method, const char *host, double port)
{
	struct policy_result r;
	struct policy_call c = { .tool = "network", .cwd = folder, .folder = folder };
	cJSON *in = cJSON_CreateObject();

	if (method)
		cJSON_AddStringToObject(in, "method", method);
	if (host)
		cJSON_AddStringToObject(in, "host", host);
	if (port >= 0)
		cJSON_AddNumberToObject(in, "port", port);
	c.input = in;
	policy_eval(p, &c, &r);
	cJSON_Delete(in);
	return r;
}

static enum policy_verdict
curl(const struct policy *p, const char *cmd)
{
	struct policy_result r;
	struct policy_call c = { .tool = "Bash", .cwd = folder, .folder = folder };
	cJSON *in = cJSON_CreateObject();

	cJSON_AddStringToObject(in, "command", cmd);
	c.input = in;
	policy_eval(p, &c, &r);
	cJSON_Delete(in);
	return r.verdict;
}

#define V(got, want, ...) is_str(policy_verdict_name(got), policy_verdict_name(want), \
	__VA_ARGS__)

static void
test_entries(void)
{
	static const char *const good[] = { "example.com", "*.example.com", "127.0.0.1",
		"127.0.0.1:8080", "example.com:443", "::1", "[::1]", "[::1]:8080",
		"localhost", "*.internal:8443", NULL };
	static const char *const bad[] = { "https://x.com", "x.com/", "x.com:0",
		"x.com:65536", "x.com:80:80", "x.com:", "[::1", "[nothost]:80", "a b",
		"::1:8080x", "x..com", ".x.com", "x.com:8o", "[::1]x", NULL };
	struct policy_error err;
	struct policy *p;
	char text[256];
	int k;

	for (k = 0; good[k]; k++) {
		snprintf(text, sizeof(text), "{\"network\": {\"allowedDomains\": [\"%s\"]}}",
		    good[k]);
		p = load(text, &err);
		ok(p != NULL, "allowedDomains accepts %s (%s)", good[k], p ? "" : err.msg);
		policy_free(p);
	}
	for (k = 0; bad[k]; k++) {
		snprintf(text, sizeof(text), "{\"network\": {\"deniedDomains\": [\"%s\"]}}",
		    bad[k]);
		p = load(text, &err);
		ok(p == NULL && strstr(err.msg, "domain or host") != NULL,
		    "deniedDomains rejects %s: %s", bad[k], err.msg);
		policy_free(p);
	}
	p = load("{\"network\": {\"ask_timeout_seconds\": 5}}", &err);
	ok(p != NULL && policy_net_ask_timeout(p) == 5, "ask_timeout_seconds is read");
	policy_free(p);
	p = load("{}", &err);
	is_int(policy_net_ask_timeout(p), POLICY_NET_ASK_TIMEOUT, "ask timeout default");
	policy_free(p);
	p = load("{\"network\": {\"ask_timeout_seconds\": 0}}", &err);
	ok(p == NULL && strstr(err.msg, "ask_timeout_seconds") != NULL, "0 s rejected: %s",
	    err.msg);
	p = load("{\"network\": {\"ask_timeout_seconds\": 2.5}}", &err);
	ok(p == NULL, "a fraction is rejected");
	p = load("{\"network\": {\"ask_timeout_seconds\": \"5\"}}", &err);
	ok(p == NULL, "a string is rejected");
	p = load("{\"network\": {\"ask_timeout_seconds\": 3601}}", &err);
	ok(p == NULL, "over an hour is rejected");
	p = load("{\"network\": {\"ask_timeut_seconds\": 5}}", &err);
	ok(p == NULL && strstr(err.msg, "ask_timeout_seconds") != NULL, "typo hinted: %s",
	    err.msg);
}

static void
test_matching(void)
{
	struct policy_error err;
	struct policy *p;

	p = load("{\"network\": {"
	    "\"allowedDomains\": [\"127.0.0.2:8080\", \"pypi.org\", \"*.npmjs.org:443\","
	    "  \"[::1]:9000\", \"10.0.0.1\"],"
	    "\"deniedDomains\": [\"127.0.0.3\", \"evil.example:8080\", \"*.bad.example\"]}}",
	    &err);
	ok(p != NULL, "policy with host:port and IP entries loads (%s)", err.msg);
	if (!p)
		return;
	V(conn(p, "CONNECT", "127.0.0.2", 8080).verdict, POLICY_ALLOW, "IP:port listed");
	V(conn(p, "HTTP", "127.0.0.2", 8080).verdict, POLICY_ALLOW, "plain HTTP, same");
	V(conn(p, "CONNECT", "127.0.0.2", 8081).verdict, POLICY_ESCALATE,
	    "same IP, other port: asked");
	V(conn(p, "CONNECT", "pypi.org", 443).verdict, POLICY_ALLOW, "a name, any port");
	V(conn(p, "CONNECT", "PyPI.org", 8443).verdict, POLICY_ALLOW, "names ignore case");
	V(conn(p, "CONNECT", "files.pypi.org", 443).verdict, POLICY_ESCALATE,
	    "a subdomain needs *.");
	V(conn(p, "CONNECT", "registry.npmjs.org", 443).verdict, POLICY_ALLOW,
	    "*.name:port");
	V(conn(p, "CONNECT", "registry.npmjs.org", 80).verdict, POLICY_ESCALATE,
	    "*.name:port, other port");
	V(conn(p, "CONNECT", "::1", 9000).verdict, POLICY_ALLOW, "[v6]:port");
	V(conn(p, "CONNECT", "::1", 9001).verdict, POLICY_ESCALATE, "[v6], other port");
	V(conn(p, "CONNECT", "10.0.0.1", 22).verdict, POLICY_ALLOW, "IP, any port");
	V(conn(p, "CONNECT", "127.0.0.3", 80).verdict, POLICY_DENY, "denied IP");
	V(conn(p, "CONNECT", "evil.example", 8080).verdict, POLICY_DENY, "denied host:port");
	V(conn(p, "CONNECT", "evil.example", 443).verdict, POLICY_ESCALATE,
	    "denied host:port, other port: asked");
	V(conn(p, "CONNECT", "x.bad.example", 443).verdict, POLICY_DENY, "denied *.name");
	V(conn(p, "CONNECT", "unknown.example", 443).verdict, POLICY_ESCALATE,
	    "unlisted: asked");
	/* malformed network calls deny, whoever wrote them */
	V(conn(p, "CONNECT", "pypi.org", 0).verdict, POLICY_DENY, "port 0");
	V(conn(p, "CONNECT", "pypi.org", 65536).verdict, POLICY_DENY, "port 65536");
	V(conn(p, "CONNECT", "pypi.org", 44.5).verdict, POLICY_DENY, "a fractional port");
	V(conn(p, "CONNECT", "pypi.org", -1).verdict, POLICY_DENY, "no port");
	V(conn(p, "GET", "pypi.org", 80).verdict, POLICY_DENY, "a method other than "
	    "CONNECT/HTTP");
	V(conn(p, "CONNECT", "pypi.org:443", 443).verdict, POLICY_DENY, "a port in the host");
	V(conn(p, "CONNECT", "py pi.org", 443).verdict, POLICY_DENY, "a space in the host");
	V(conn(p, "CONNECT", NULL, 443).verdict, POLICY_DENY, "no host");
	is_str(conn(p, "CONNECT", "unknown.example", 443).trigger, "network",
	    "asked under the network trigger");
	/* shell commands: the port is not known, so a deny entry with a port
	 * still denies and an allow entry with one does not allow */
	V(curl(p, "curl https://evil.example/x"), POLICY_DENY,
	    "curl: denied host:port denies without a known port");
	V(curl(p, "curl http://127.0.0.2:8080/"), POLICY_ESCALATE,
	    "curl: an allow entry with a port needs the port");
	V(curl(p, "curl https://pypi.org/simple"), POLICY_ALLOW, "curl: a listed name");
	V(curl(p, "curl https://127.0.0.3./x"), POLICY_DENY, "a trailing dot is the same host");
	policy_free(p);
}

static void
test_kinds(void)
{
	char buf[128];
	cJSON *in = cJSON_Parse("{\"method\":\"CONNECT\",\"host\":\"pypi.org\",\"port\":443}");
	cJSON *v6 = cJSON_Parse("{\"method\":\"HTTP\",\"host\":\"::1\",\"port\":80}");
	cJSON *bash = cJSON_Parse("{\"command\":\"ls -l\"}");

	ok(request_opens("network"), "network requests open");
	ok(!request_opens("Bash") && !request_opens(NULL), "commands do not");
	ok(request_summary("network", in, buf, sizeof(buf)) >= 0 &&
	    !strcmp(buf, "CONNECT pypi.org:443"), "summary: %s", buf);
	ok(request_summary("network", v6, buf, sizeof(buf)) >= 0 &&
	    !strcmp(buf, "HTTP [::1]:80"), "IPv6 summary: %s", buf);
	ok(request_summary("Bash", bash, buf, sizeof(buf)) >= 0 && !strcmp(buf, "ls -l"),
	    "a command's summary is the command");
	ok(request_summary("Write", bash, buf, sizeof(buf)) < 0, "other tools have none");
	cJSON_Delete(in);
	cJSON_Delete(v6);
	cJSON_Delete(bash);
}

int
main(void)
{
	char tmpl[] = "/tmp/sbx-test-net-XXXXXX";
	char *base = mkdtemp(tmpl);

	if (!base)
		return 1;
	snprintf(folder, sizeof(folder), "%s", base);
	test_entries();
	test_matching();
	test_kinds();
	rmdir(base);
	return tap_done();
}
