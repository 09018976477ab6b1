/*
 * redact.c - secret scrubbing; see redact.h.
 *
 * MUST stay pure (no I/O) and bounded: one pass over the input, each
 * matcher looks ahead at most to the end of the current token.
 * MUST NOT leave any part of a matched secret in the output.
 */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "common/base/buf.h"
#include "common/redact/redact.h"

static int
is_alnum(int c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
}

static int
is_b64url(int c)
{
	return is_alnum(c) || c == '-' || c == '_';
}

static int
is_ident(int c)
{
	return is_alnum(c) || c == '_' || c == '-' || c == '.';
}

/* Characters a token value is made of (not spaces, quotes, separators). */
static int
is_value(int c)
{
	return c > ' ' && c != '"' && c != '\'' && c != '&' && c != ';' && c != ',' &&
	    c != '}' && c != ')' && c != ']' && c != '<' && c != '>' && c != '|' && c != '`' &&
	    c != 0x7f;
}

static size_t
span(const char *s, int (*cls)(int))
{
	size_t n = 0;

	while (s[n] && cls((unsigned char)s[n]))
		n++;
	return n;
}

static int
starts_ci(const char *s, const char *prefix)
{
	for (; *prefix; s++, prefix++)
		if (tolower((unsigned char)*s) != *prefix)
			return 0;
	return 1;
}

static int
cls_upper_digit(int c)
{
	return (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
}

static int
cls_b64(int c)
{
	return is_alnum(c) || c == '+' || c == '/' || c == '=' || c == '-' || c == '_' ||
	    c == '.' || c == '~';
}

static int
cls_alnum_underscore(int c)
{
	return is_alnum(c) || c == '_';
}

static int
cls_slack(int c)
{
	return is_alnum(c) || c == '-';
}

static int
cls_path(int c)
{
	return is_alnum(c) || c == '/';
}

/* Tokens recognised by a fixed prefix and the shape of what follows. */
static const struct prefixed {
	const char *prefix, *kind;
	int (*cls)(int);
	size_t min;
} prefixed[] = {
	{ "AKIA", "aws-key", cls_upper_digit, 16 },
	{ "ASIA", "aws-key", cls_upper_digit, 16 },
	{ "AGPA", "aws-key", cls_upper_digit, 16 },
	{ "AIDA", "aws-key", cls_upper_digit, 16 },
	{ "AROA", "aws-key", cls_upper_digit, 16 },
	{ "AIPA", "aws-key", cls_upper_digit, 16 },
	{ "ANPA", "aws-key", cls_upper_digit, 16 },
	{ "ANVA", "aws-key", cls_upper_digit, 16 },
	{ "ghp_", "github-token", cls_alnum_underscore, 20 },
	{ "gho_", "github-token", cls_alnum_underscore, 20 },
	{ "ghu_", "github-token", cls_alnum_underscore, 20 },
	{ "ghs_", "github-token", cls_alnum_underscore, 20 },
	{ "ghr_", "github-token", cls_alnum_underscore, 20 },
	{ "github_pat_", "github-token", cls_alnum_underscore, 20 },
	{ "glpat-", "gitlab-token", is_b64url, 16 },
	{ "gldt-", "gitlab-token", is_b64url, 16 },
	{ "glrt-", "gitlab-token", is_b64url, 16 },
	{ "glptt-", "gitlab-token", is_b64url, 16 },
	{ "glsoat-", "gitlab-token", is_b64url, 16 },
	{ "glcbt-", "gitlab-token", is_b64url, 16 },
	{ "xoxb-", "slack-token", cls_slack, 10 },
	{ "xoxp-", "slack-token", cls_slack, 10 },
	{ "xoxa-", "slack-token", cls_slack, 10 },
	{ "xoxo-", "slack-token", cls_slack, 10 },
	{ "xoxr-", "slack-token", cls_slack, 10 },
	{ "xoxs-", "slack-token", cls_slack, 10 },
	{ "xapp-", "slack-token", cls_slack, 10 },
	{ "hooks.slack.com/services/", "slack-webhook", cls_path, 10 },
	{ "sk-", "api-key", is_b64url, 20 },
	{ "sk_live_", "api-key", is_alnum, 16 },
	{ "sk_test_", "api-key", is_alnum, 16 },
	{ "rk_live_", "api-key", is_alnum, 16 },
	{ "AIza", "google-key", is_b64url, 30 },
	{ "npm_", "npm-token", is_alnum, 30 },
};

/* Name fragments that make a key's value a secret. */
static const char *const secret_words[] = {
	"password", "passwd", "passphrase", "secret", "token", "api_key", "apikey",
	"api-key", "access_key", "accesskey", "access-key", "private_key", "privatekey",
	"private-key", "credential", NULL,
};

int
redact_key_is_secret(const char *key)
{
	char low[128];
	size_t i, n = strlen(key);

	if (n == 0)
		return 0;
	if (n >= sizeof(low))
		n = sizeof(low) - 1;
	for (i = 0; i < n; i++)
		low[i] = (char)tolower((unsigned char)key[i]);
	low[n] = '\0';
	if (strcmp(low, "pwd") == 0 || strcmp(low, "pass") == 0)
		return 1;
	for (i = 0; secret_words[i]; i++)
		if (strstr(low, secret_words[i]))
			return 1;
	return 0;
}

/* PEM private key block at s: its length (to the END line or the end of
 * the string), 0 when s does not start one. */
static size_t
match_pem(const char *s)
{
	const char *eol, *k, *end;

	if (strncmp(s, "-----BEGIN ", 11) != 0)
		return 0;
	eol = s + 11 + strcspn(s + 11, "\n");
	k = strstr(s + 11, "PRIVATE KEY-----");
	if (!k || k > eol)
		return 0;
	end = strstr(k + 16, "-----END ");
	if (!end)
		return strlen(s);
	end += 9;
	k = strstr(end, "-----");
	return k ? (size_t)(k + 5 - s) : strlen(s);
}

/* JWT-shaped: eyJ<b64url>.<b64url>[.<b64url>]. */
static size_t
match_jwt(const char *s)
{
	size_t a, b, n;

	if (strncmp(s, "eyJ", 3) != 0)
		return 0;
	a = span(s, is_b64url);
	if (a < 8 || s[a] != '.')
		return 0;
	b = span(s + a + 1, is_b64url);
	if (b < 2)
		return 0;
	n = a + 1 + b;
	if (s[n] == '.')
		n += 1 + span(s + n + 1, is_b64url);
	return n;
}

static size_t
match_prefixed(const char *s, const char **kind)
{
	size_t i, p, n;

	for (i = 0; i < sizeof(prefixed) / sizeof(prefixed[0]); i++) {
		p = strlen(prefixed[i].prefix);
		if (strncmp(s, prefixed[i].prefix, p) != 0)
			continue;
		n = span(s + p, prefixed[i].cls);
		if (n >= prefixed[i].min) {
			*kind = prefixed[i].kind;
			return p + n;
		}
	}
	return 0;
}

/* "Bearer X" / "Basic X": *keep gets the length of the kept word. */
static size_t
match_auth(const char *s, size_t *keep)
{
	size_t w, sp, n;

	if (starts_ci(s, "bearer"))
		w = 6;
	else if (starts_ci(s, "basic"))
		w = 5;
	else if (starts_ci(s, "token"))
		w = 5;
	else
		return 0;
	if (is_ident((unsigned char)s[w]))
		return 0;
	for (sp = w; s[sp] == ' ' || s[sp] == '\t'; sp++)
		;
	if (sp == w)
		return 0;
	n = span(s + sp, cls_b64);
	if (n < 8 || strncmp(s + sp, "[REDACTED", 9) == 0)
		return 0;
	*keep = sp;
	return sp + n;
}

/*
 * key=value, key: value, "key": "value", --key value, where key names a
 * secret. *keep gets the length kept (the key and separator); returns
 * the end of the value, 0 when there is none.
 */
static size_t
match_keyval(const char *s, size_t *keep)
{
	char key[128];
	size_t k, i, v, n;
	int flag = 0, quote = 0;

	i = 0;
	if (s[0] == '-' && s[1] == '-')
		flag = 1, i = 2;
	k = span(s + i, is_ident);
	if (k == 0 || k >= sizeof(key))
		return 0;
	memcpy(key, s + i, k);
	key[k] = '\0';
	if (!redact_key_is_secret(key))
		return 0;
	i += k;
	if (s[i] == '"' || s[i] == '\'')
		i++;
	while (s[i] == ' ' || s[i] == '\t')
		i++;
	if (s[i] == '=' || s[i] == ':') {
		i++;
	} else if (!(flag && i > k + 2 && s[i - 1] == ' ')) {
		return 0;
	}
	while (s[i] == ' ' || s[i] == '\t')
		i++;
	if (s[i] == '"' || s[i] == '\'' || (s[i] == '\\' && s[i + 1] == '"')) {
		if (s[i] == '\\')
			i++;
		quote = s[i++];
	}
	v = i;
	if (quote)
		for (n = 0; s[v + n] && s[v + n] != quote && s[v + n] != '\n' &&
		    !(s[v + n] == '\\' && s[v + n + 1] == quote); n++)
			;
	else
		n = span(s + v, is_value);
	if (n == 0 || strncmp(s + v, "[REDACTED", 9) == 0)
		return 0;
	*keep = v;
	return v + n;
}

/* curl-style `-u user:PASS` / `--user user:PASS` / `--user=user:PASS`:
 * keep through "user:". */
static size_t
match_userflag(const char *s, size_t *keep)
{
	size_t i, n, c;

	if (strncmp(s, "-u", 2) == 0 && (s[2] == ' ' || s[2] == '\t'))
		i = 3;
	else if (strncmp(s, "--user", 6) == 0 && (s[6] == ' ' || s[6] == '='))
		i = 7;
	else if (strncmp(s, "--proxy-user", 12) == 0 && (s[12] == ' ' || s[12] == '='))
		i = 13;
	else
		return 0;
	while (s[i] == ' ' || s[i] == '\t')
		i++;
	if (s[i] == '\'' || s[i] == '"')
		i++;
	n = span(s + i, is_value);
	for (c = 0; c < n && s[i + c] != ':'; c++)
		;
	if (c + 1 >= n || strncmp(s + i + c + 1, "[REDACTED", 9) == 0)
		return 0;
	*keep = i + c + 1;
	return i + n;
}

/* scheme://user:PASS@host -> keep through "user:"; a long bare user
 * part (a token as user name) is redacted whole. */
static size_t
match_url(const char *s, size_t *keep)
{
	size_t n, colon = 0, i;

	if (strncmp(s, "://", 3) != 0)
		return 0;
	n = strcspn(s + 3, "/@ \t\n\"'?#");
	if (s[3 + n] != '@' || n == 0)
		return 0;
	for (i = 0; i < n; i++)
		if (s[3 + i] == ':') {
			colon = i + 1;
			break;
		}
	if (strncmp(s + 3 + colon, "[REDACTED", 9) == 0)
		return 0;
	if (colon && colon < n) {
		*keep = 3 + colon;
		return 3 + n;
	}
	if (!colon && n >= 16) {
		*keep = 3;
		return 3 + n;
	}
	return 0;
}

char *
redact_str(const char *s, int *count)
{
	struct buf o = { 0 };
	size_t i = 0, n, keep, lit = 0;
	const char *kind;
	int c = 0, boundary;

	buf_put(&o, "", 0);
	while (s[i]) {
		boundary = i == 0 || !is_alnum((unsigned char)s[i - 1]);
		keep = 0;
		kind = NULL;
		n = 0;
		if (s[i] == '-' && (n = match_pem(s + i)))
			kind = "private-key";
		else if (boundary && s[i] == 'e' && (n = match_jwt(s + i)))
			kind = "jwt";
		else if (boundary && (n = match_prefixed(s + i, &kind)))
			;
		else if (boundary && (n = match_auth(s + i, &keep)))
			kind = NULL;
		else if (s[i] == ':' && (n = match_url(s + i, &keep)))
			kind = NULL;
		else if (s[i] == '-' && (i == 0 || !is_ident((unsigned char)s[i - 1])) &&
		    (n = match_userflag(s + i, &keep)))
			kind = NULL;
		else if ((i == 0 || !is_ident((unsigned char)s[i - 1])) &&
		    (n = match_keyval(s + i, &keep)))
			kind = NULL;
		if (n == 0) {
			i++;
			continue;
		}
		buf_put(&o, s + lit, i - lit);
		buf_put(&o, s + i, keep);
		buf_puts(&o, "[REDACTED");
		if (kind) {
			buf_puts(&o, ":");
			buf_puts(&o, kind);
		}
		buf_puts(&o, "]");
		c++;
		i += n;
		lit = i;
	}
	buf_put(&o, s + lit, i - lit);
	if (o.oom) {
		free(o.p);
		return NULL;
	}
	if (count)
		*count = c;
	return o.p;
}

/* Puts s (k redactions) in place of *slot, a cJSON string, when k > 0;
 * frees s otherwise. Returns k. */
static int
swap_in(char **slot, char *s, int k)
{
	if (k) {
		cJSON_free(*slot);
		*slot = s;
	} else {
		free(s);
	}
	return k;
}

static int
redact_item(cJSON *v, int depth)
{
	cJSON *c;
	char *s;
	int n = 0, k, total = 0;

	if (depth > 64)
		return -1;
	for (c = v->child; c; c = c->next) {
		if (c->string && !(c->type & cJSON_StringIsConst)) {
			if (!(s = redact_str(c->string, &k)))
				return -1;
			total += swap_in(&c->string, s, k);
		}
		if (cJSON_IsString(c) && c->valuestring) {
			if (c->string && redact_key_is_secret(c->string) && *c->valuestring &&
			    strncmp(c->valuestring, "[REDACTED", 9) != 0) {
				if (!(s = strdup("[REDACTED]")))
					return -1;
				k = 1;
			} else if (!(s = redact_str(c->valuestring, &k))) {
				return -1;
			}
			total += swap_in(&c->valuestring, s, k);
		} else if (cJSON_IsArray(c) || cJSON_IsObject(c)) {
			if ((n = redact_item(c, depth + 1)) < 0)
				return -1;
			total += n;
		}
	}
	return total;
}

int
redact_json(cJSON *v)
{
	char *s;
	int k;

	if (!v)
		return 0;
	if (cJSON_IsString(v) && v->valuestring) {
		if (!(s = redact_str(v->valuestring, &k)))
			return -1;
		return swap_in(&v->valuestring, s, k);
	}
	if (!cJSON_IsArray(v) && !cJSON_IsObject(v))
		return 0;
	return redact_item(v, 0);
}
