/*
 * test_redact.c - unit tests for common/redact/redact.c: every kind of secret
 * it promises to catch, text it must leave alone, and JSON trees.
 */
#include <stdlib.h>
#include <string.h>

#include "common/redact/redact.h"
#include "tests/tap.h"

/* Redacts in and checks the result. */
static void
check(const char *in, const char *want, const char *what)
{
	char *out = redact_str(in, NULL);

	is_str(out, want, "%s", what);
	free(out);
}

static void
test_shapes(void)
{
	check("key AKIAIOSFODNN7EXAMPLE here", "key [REDACTED:aws-key] here", "AWS access key id");
	check("ASIAY34FZKBOKMUTVV7A", "[REDACTED:aws-key]", "AWS session key id");
	check("push with ghp_aBcdEfGhIjKlMnOpQrStUvWxYz0123456789 now",
	    "push with [REDACTED:github-token] now", "GitHub personal token");
	check("github_pat_11ABCDEFG0123456789_abcdefghijklmnopqrstuvwxyz",
	    "[REDACTED:github-token]", "GitHub fine-grained token");
	check("glpat-xxxxxxxxxxxxxxxxxxxx", "[REDACTED:gitlab-token]", "GitLab token");
	check("xoxb-123456789012-1234567890123-abcdefghijklmnopqrstuvwx",
	    "[REDACTED:slack-token]", "Slack bot token");
	check("https://hooks.slack.com/services/T000/B000/XXXXXXXXXXXX",
	    "https://[REDACTED:slack-webhook]", "Slack webhook");
	check("-H 'Authorization: Bearer abc.def-ghi_jkl123'",
	    "-H 'Authorization: Bearer [REDACTED]'", "bearer token");
	check("Authorization: Basic dXNlcjpwYXNzd29yZA==", "Authorization: Basic [REDACTED]",
	    "basic credentials");
	check("jwt eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.sig-part_x end", "jwt [REDACTED:jwt] end",
	    "JWT");
	check("a -----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXk\n-----END OPENSSH PRIVATE "
	    "KEY----- z", "a [REDACTED:private-key] z", "PEM private key block");
	check("-----BEGIN RSA PRIVATE KEY-----\nMIIEcut", "[REDACTED:private-key]",
	    "a PEM block cut short is redacted to the end");
	check("-----BEGIN CERTIFICATE-----\nMIIB", "-----BEGIN CERTIFICATE-----\nMIIB",
	    "a certificate is public");
	check("password=hunter2 user=bob", "password=[REDACTED] user=bob", "password=");
	check("DB_PASSWORD='a b c'", "DB_PASSWORD='[REDACTED]'", "quoted value");
	check("client_secret: abc123", "client_secret: [REDACTED]", "secret: value");
	check("{\"token\":\"abc\",\"n\":1}", "{\"token\":\"[REDACTED]\",\"n\":1}", "JSON text");
	check("export GITHUB_TOKEN=abc; x", "export GITHUB_TOKEN=[REDACTED]; x", "env assignment");
	check("tool --api-key k123 --v", "tool --api-key [REDACTED] --v", "--flag value");
	check("tool --password=k123", "tool --password=[REDACTED]", "--flag=value");
	check("git clone https://bob:pa55@github.com/x", "git clone https://bob:[REDACTED]@github.com/x",
	    "URL credentials");
	check("https://x0123456789abcdef0123@host/", "https://[REDACTED]@host/",
	    "a token as URL user name");
	check("curl -u admin:pw1 x", "curl -u admin:[REDACTED] x", "curl -u user:password");
	check("sk_live_0123456789abcdefABCD", "[REDACTED:api-key]", "Stripe key");
	check("password=[REDACTED]", "password=[REDACTED]", "redaction is idempotent");
}

static void
test_leaves_alone(void)
{
	check("git push origin main", "git push origin main", "plain commands");
	check("sha 3f9a0c1e2d4b5a6978877665544332211ffeeddccbbaa0099887766554433221",
	    "sha 3f9a0c1e2d4b5a6978877665544332211ffeeddccbbaa0099887766554433221", "hex hashes");
	check("https://github.com/x/y.git", "https://github.com/x/y.git", "URLs without credentials");
	check("task-sk-notakey", "task-sk-notakey", "prefixes inside words");
	check("user@example.com", "user@example.com", "e-mail addresses");
	check("", "", "the empty string");
}

static void
test_json(void)
{
	cJSON *o = cJSON_Parse("{\"env\":{\"AWS_SECRET_ACCESS_KEY\":\"abc\",\"HOME\":\"/h\"},"
	    "\"args\":[\"--token\",\"ghp_aBcdEfGhIjKlMnOpQrStUvWxYz0123456789\"],"
	    "\"password\":\"\",\"n\":5,\"ghp_aBcdEfGhIjKlMnOpQrStUvWxYz0123456789\":1}");
	char *s;
	int n = redact_json(o);

	s = cJSON_PrintUnformatted(o);
	is_int(n, 3, "redact_json counts what it redacted");
	ok(s && !strstr(s, "abc") && !strstr(s, "ghp_aB"), "values and keys are scrubbed");
	ok(s && strstr(s, "\"HOME\":\"/h\""), "other values stay");
	ok(s && strstr(s, "\"password\":\"\""), "an empty secret stays empty");
	free(s);
	cJSON_Delete(o);
	ok(redact_key_is_secret("GITHUB_TOKEN") && redact_key_is_secret("db-password") &&
	    !redact_key_is_secret("key_id") && !redact_key_is_secret("tool_use_id"),
	    "secret key names");
}

int
main(void)
{
	test_shapes();
	test_leaves_alone();
	test_json();
	return tap_done();
}
