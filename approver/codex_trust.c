/*
 * codex_trust.c - trust records for sbx's hook in Codex's config.toml;
 * see codex_trust.h.
 *
 * MUST NOT write a config.toml it could not scan to the end.
 * MUST NOT define a table the file defines already (TOML forbids it):
 * any definition that overlaps sbx's two tables is a refusal.
 * MUST NOT follow a symlink when replacing the file; writes by temp
 * file + rename, keeping the file's mode.
 * MUST change nothing outside sbx's own block, byte for byte.
 */
#include <errno.h>
#include <fcntl.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <sodium.h>

#include "approver/codex_trust.h"
#include "common/base/json.h"

#define MAX_TOML        (4 * 1024 * 1024)
#define TOML_DEPTH      16      /* key parts in one path */
#define TOML_NEST       32      /* arrays / inline tables inside a value */
#define TOML_KEYBUF     8192

static const char block_begin[] = "# >>> sbx codex trust: ";
static const char block_end[] = "# <<< sbx codex trust: ";

/* ---- a TOML structure scanner ------------------------------------------------
 * Follows tables, keys and the extent of values (strings of all four
 * kinds, arrays and inline tables across lines) without building them.
 * Each definition is handed to a visitor with its full key path. */

struct tpath {
	int n;
	const char *part[TOML_DEPTH];
	char buf[TOML_KEYBUF];
	size_t used;
};

enum tdef { T_TABLE, T_ARRAY_TABLE, T_KEYVAL };

struct tval {                   /* a key's value, when it is a plain one */
	int is_str;
	char text[PATH_MAX + 64];       /* the decoded string or the scalar text */
	int have;
};

struct scan {
	const char *s;
	size_t len, pos;
	int line;
	const char *why;
	int (*visit)(void *ctx, enum tdef kind, const struct tpath *table,
	    const struct tpath *full, const struct tval *v, size_t start, size_t end);
	void *ctx;
};

static int
path_add(struct tpath *p, const char *part, size_t n)
{
	if (p->n >= TOML_DEPTH || p->used + n + 1 > sizeof(p->buf))
		return -1;
	memcpy(p->buf + p->used, part, n);
	p->buf[p->used + n] = '\0';
	p->part[p->n++] = p->buf + p->used;
	p->used += n + 1;
	return 0;
}

static int
path_copy(struct tpath *dst, const struct tpath *src)
{
	int i;

	dst->n = 0;
	dst->used = 0;
	for (i = 0; i < src->n; i++)
		if (path_add(dst, src->part[i], strlen(src->part[i])) < 0)
			return -1;
	return 0;
}

static int
fail(struct scan *sc, const char *why)
{
	if (!sc->why)
		sc->why = why;
	return -1;
}

static int
peek(const struct scan *sc, size_t off)
{
	return sc->pos + off < sc->len ? (unsigned char)sc->s[sc->pos + off] : -1;
}

static void
skip_ws(struct scan *sc)
{
	while (peek(sc, 0) == ' ' || peek(sc, 0) == '\t')
		sc->pos++;
}

static int
at_newline(const struct scan *sc)
{
	return peek(sc, 0) == '\n' || (peek(sc, 0) == '\r' && peek(sc, 1) == '\n');
}

static void
eat_newline(struct scan *sc)
{
	sc->pos += peek(sc, 0) == '\r' ? 2 : 1;
	sc->line++;
}

/* Whitespace, comments and newlines (inside arrays). */
static void
skip_blank(struct scan *sc)
{
	for (;;) {
		skip_ws(sc);
		if (peek(sc, 0) == '#')
			while (peek(sc, 0) != -1 && !at_newline(sc))
				sc->pos++;
		if (!at_newline(sc))
			return;
		eat_newline(sc);
	}
}

/* After a header or a key's value: spaces, a comment, then a newline or
 * the end of the file. */
static int
end_line(struct scan *sc)
{
	skip_ws(sc);
	if (peek(sc, 0) == '#')
		while (peek(sc, 0) != -1 && !at_newline(sc))
			sc->pos++;
	if (peek(sc, 0) == -1)
		return 0;
	if (!at_newline(sc))
		return fail(sc, "unexpected text after a value or table header");
	eat_newline(sc);
	return 0;
}

static int
put_utf8(char *out, size_t outsz, size_t *o, unsigned long cp)
{
	unsigned char b[4];
	size_t n, i;

	if (cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF))
		return -1;
	if (cp < 0x80) {
		b[0] = cp;
		n = 1;
	} else if (cp < 0x800) {
		b[0] = 0xC0 | (cp >> 6);
		b[1] = 0x80 | (cp & 0x3F);
		n = 2;
	} else if (cp < 0x10000) {
		b[0] = 0xE0 | (cp >> 12);
		b[1] = 0x80 | ((cp >> 6) & 0x3F);
		b[2] = 0x80 | (cp & 0x3F);
		n = 3;
	} else {
		b[0] = 0xF0 | (cp >> 18);
		b[1] = 0x80 | ((cp >> 12) & 0x3F);
		b[2] = 0x80 | ((cp >> 6) & 0x3F);
		b[3] = 0x80 | (cp & 0x3F);
		n = 4;
	}
	if (*o + n >= outsz)
		return -1;
	for (i = 0; i < n; i++)
		out[(*o)++] = b[i];
	return 0;
}

/* A one-line basic ("...") or literal ('...') string at pos, decoded into
 * out (NULL: only skipped). */
static int
quoted(struct scan *sc, char *out, size_t outsz, size_t *olen)
{
	int q = peek(sc, 0), c, k, nd;
	size_t o = 0;
	unsigned long cp;

	sc->pos++;
	for (;;) {
		c = peek(sc, 0);
		if (c == -1 || c == '\n' || c == '\r')
			return fail(sc, "a string is not closed on its line");
		sc->pos++;
		if (c == q)
			break;
		if (q == '"' && c == '\\') {
			c = peek(sc, 0);
			sc->pos++;
			switch (c) {
			case 'b': c = '\b'; break;
			case 't': c = '\t'; break;
			case 'n': c = '\n'; break;
			case 'f': c = '\f'; break;
			case 'r': c = '\r'; break;
			case '"': case '\\': break;
			case 'u': case 'U':
				nd = c == 'u' ? 4 : 8;
				for (cp = 0, k = 0; k < nd; k++) {
					c = peek(sc, 0);
					sc->pos++;
					if (c >= '0' && c <= '9')
						cp = cp * 16 + (c - '0');
					else if ((c | 0x20) >= 'a' && (c | 0x20) <= 'f')
						cp = cp * 16 + ((c | 0x20) - 'a' + 10);
					else
						return fail(sc, "a bad \\u escape");
				}
				if (out && put_utf8(out, outsz, &o, cp) < 0)
					return fail(sc, "a bad or too long \\u escape");
				continue;
			default:
				return fail(sc, "an escape sbx does not know");
			}
		} else if (c < 0x20 && c != '\t') {
			return fail(sc, "a control character in a string");
		}
		if (out) {
			if (o + 1 >= outsz)
				return fail(sc, "a string too long for sbx");
			out[o++] = c;
		}
	}
	if (out) {
		out[o] = '\0';
		if (strlen(out) != o)
			return fail(sc, "a NUL in a string");
	}
	if (olen)
		*olen = o;
	return 0;
}

/* """...""" or '''...''' at pos. */
static int
multiline(struct scan *sc)
{
	int q = peek(sc, 0), extra;

	sc->pos += 3;
	for (;;) {
		if (peek(sc, 0) == -1)
			return fail(sc, "a multi-line string is not closed");
		if (q == '"' && peek(sc, 0) == '\\') {
			sc->pos++;
			if (at_newline(sc))
				eat_newline(sc);
			else
				sc->pos++;
			continue;
		}
		if (peek(sc, 0) == q && peek(sc, 1) == q && peek(sc, 2) == q) {
			sc->pos += 3;
			for (extra = 0; extra < 2 && peek(sc, 0) == q; extra++)
				sc->pos++;
			return 0;
		}
		if (at_newline(sc))
			eat_newline(sc);
		else
			sc->pos++;
	}
}

static int
bare_char(int c)
{
	return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
	    c == '_' || c == '-';
}

/* key ( . key )* appended to p. */
static int
key_path(struct scan *sc, struct tpath *p)
{
	char part[TOML_KEYBUF];
	size_t n, start;

	for (;;) {
		skip_ws(sc);
		if (peek(sc, 0) == '"' || peek(sc, 0) == '\'') {
			if ((peek(sc, 0) == peek(sc, 1) && peek(sc, 1) == peek(sc, 2)) ||
			    quoted(sc, part, sizeof(part), &n) < 0)
				return fail(sc, "a key sbx cannot read");
		} else {
			start = sc->pos;
			while (bare_char(peek(sc, 0)))
				sc->pos++;
			n = sc->pos - start;
			if (n == 0 || n >= sizeof(part))
				return fail(sc, "a key sbx cannot read");
			memcpy(part, sc->s + start, n);
			part[n] = '\0';
		}
		if (path_add(p, part, n) < 0)
			return fail(sc, "a key path too deep or too long for sbx");
		skip_ws(sc);
		if (peek(sc, 0) != '.')
			return 0;
		sc->pos++;
	}
}

static int value(struct scan *sc, int depth, struct tval *v);

/* In an inline table or an array: 1 (and past it) at its closing
 * character, else 0 (blanks skipped). */
static int
list_closed(struct scan *sc, int close)
{
	skip_blank(sc);
	if (peek(sc, 0) != close)
		return 0;
	sc->pos++;
	return 1;
}

/* After an item: past its ',' or at the closing character, else fails
 * with why. */
static int
list_next(struct scan *sc, int close, const char *why)
{
	skip_blank(sc);
	if (peek(sc, 0) == ',')
		sc->pos++;
	else if (peek(sc, 0) != close)
		return fail(sc, why);
	return 0;
}

static int
inline_table(struct scan *sc, int depth)
{
	struct tpath k;

	sc->pos++;
	while (!list_closed(sc, '}')) {
		k.n = 0;
		k.used = 0;
		if (key_path(sc, &k) < 0)
			return -1;
		skip_ws(sc);
		if (peek(sc, 0) != '=')
			return fail(sc, "an inline table without '='");
		sc->pos++;
		skip_ws(sc);
		if (value(sc, depth + 1, NULL) < 0 ||
		    list_next(sc, '}', "an inline table sbx cannot follow") < 0)
			return -1;
	}
	return 0;
}

static int
array(struct scan *sc, int depth)
{
	sc->pos++;
	while (!list_closed(sc, ']'))
		if (value(sc, depth + 1, NULL) < 0 ||
		    list_next(sc, ']', "an array sbx cannot follow") < 0)
			return -1;
	return 0;
}

static int
scalar_char(int c)
{
	return bare_char(c) || c == '+' || c == '.' || c == ':';
}

/* One value at pos; v (may be NULL) gets a plain string or scalar. */
static int
value(struct scan *sc, int depth, struct tval *v)
{
	int c = peek(sc, 0);
	size_t start = sc->pos, n;

	if (depth > TOML_NEST)
		return fail(sc, "values nested too deep for sbx");
	if (v)
		v->have = 0;
	if ((c == '"' || c == '\'') && peek(sc, 1) == c && peek(sc, 2) == c)
		return multiline(sc);
	if (c == '"' || c == '\'') {
		if (quoted(sc, v ? v->text : NULL, v ? sizeof(v->text) : 0, NULL) < 0)
			return -1;
		if (v)
			v->have = v->is_str = 1;
		return 0;
	}
	if (c == '[')
		return array(sc, depth);
	if (c == '{')
		return inline_table(sc, depth);
	for (;;) {
		while (scalar_char(peek(sc, 0)))
			sc->pos++;
		/* a date and a time may be separated by one space */
		if (peek(sc, 0) == ' ' && peek(sc, 1) >= '0' && peek(sc, 1) <= '9' &&
		    sc->pos > start && sc->s[sc->pos - 1] >= '0' && sc->s[sc->pos - 1] <= '9' &&
		    memchr(sc->s + start, '-', sc->pos - start)) {
			sc->pos++;
			continue;
		}
		break;
	}
	n = sc->pos - start;
	if (n == 0)
		return fail(sc, "a value sbx cannot read");
	if (v && n < sizeof(v->text)) {
		memcpy(v->text, sc->s + start, n);
		v->text[n] = '\0';
		v->have = 1;
		v->is_str = 0;
	}
	return 0;
}

/* Scans the whole text; 0, or -1 with sc->why and sc->line. */
static int
scan_toml(struct scan *sc)
{
	struct tpath table = { 0 }, full;
	struct tval v;
	size_t start;
	int arr;

	sc->line = 1;
	if (sc->len >= 3 && !memcmp(sc->s, "\xEF\xBB\xBF", 3))
		sc->pos = 3;
	while (sc->pos < sc->len) {
		start = sc->pos;
		skip_ws(sc);
		if (peek(sc, 0) == -1)
			break;
		if (at_newline(sc)) {
			eat_newline(sc);
			continue;
		}
		if (peek(sc, 0) == '#') {
			if (end_line(sc) < 0)
				return -1;
			continue;
		}
		if (peek(sc, 0) == '[') {
			arr = peek(sc, 1) == '[';
			sc->pos += arr ? 2 : 1;
			table.n = 0;
			table.used = 0;
			if (key_path(sc, &table) < 0)
				return -1;
			skip_ws(sc);
			if (peek(sc, 0) != ']' || (arr && peek(sc, 1) != ']'))
				return fail(sc, "a table header sbx cannot read");
			sc->pos += arr ? 2 : 1;
			if (end_line(sc) < 0)
				return -1;
			if (sc->visit && sc->visit(sc->ctx, arr ? T_ARRAY_TABLE : T_TABLE, &table,
			    &table, NULL, start, sc->pos) < 0)
				return -1;
			continue;
		}
		if (path_copy(&full, &table) < 0 || key_path(sc, &full) < 0)
			return fail(sc, "a key sbx cannot read");
		skip_ws(sc);
		if (peek(sc, 0) != '=')
			return fail(sc, "a line that is neither a table header nor key = value");
		sc->pos++;
		skip_ws(sc);
		if (value(sc, 0, &v) < 0 || end_line(sc) < 0)
			return -1;
		if (sc->visit && sc->visit(sc->ctx, T_KEYVAL, &table, &full, &v, start, sc->pos) < 0)
			return -1;
	}
	return 0;
}

/* ---- Codex's view of a folder ------------------------------------------------ */

/* serde_json's string escapes. */
static int
json_quote(char *out, size_t outsz, size_t *o, const char *s)
{
	static const char hex[] = "0123456789abcdef";
	char e[8];
	size_t n;

	for (; *s; s++) {
		unsigned char c = *s;

		switch (c) {
		case '"': memcpy(e, "\\\"", 3); break;
		case '\\': memcpy(e, "\\\\", 3); break;
		case '\b': memcpy(e, "\\b", 3); break;
		case '\f': memcpy(e, "\\f", 3); break;
		case '\n': memcpy(e, "\\n", 3); break;
		case '\r': memcpy(e, "\\r", 3); break;
		case '\t': memcpy(e, "\\t", 3); break;
		default:
			if (c < 0x20) {
				snprintf(e, sizeof(e), "\\u00%c%c", hex[c >> 4], hex[c & 15]);
			} else {
				e[0] = c;
				e[1] = '\0';
			}
		}
		n = strlen(e);
		if (*o + n + 1 >= outsz)
			return -1;
		memcpy(out + *o, e, n);
		*o += n;
	}
	return 0;
}

static int
cat(char *out, size_t outsz, size_t *o, const char *s)
{
	size_t n = strlen(s);

	if (*o + n + 1 >= outsz)
		return -1;
	memcpy(out + *o, s, n);
	*o += n;
	out[*o] = '\0';
	return 0;
}

int
codex_hook_hash(const char *event, const char *matcher, const char *command,
    long timeout, int async, const char *status, char out[CODEX_HASH_LEN])
{
	unsigned char h[crypto_hash_sha256_BYTES];
	char num[32], *buf;
	size_t o = 0, cap = 3 * PATH_MAX + 4096;
	int rc = -1;

	/* Keys sorted: event_name, hooks[async, command, statusMessage,
	 * timeout, type], matcher; absent options are left out. */
	if (!(buf = malloc(cap)))
		return -1;
	buf[0] = '\0';
	snprintf(num, sizeof(num), "%ld", timeout);
	if (cat(buf, cap, &o, "{\"event_name\":\"") < 0 || json_quote(buf, cap, &o, event) < 0 ||
	    cat(buf, cap, &o, "\",\"hooks\":[{\"async\":") < 0 ||
	    cat(buf, cap, &o, async ? "true" : "false") < 0 ||
	    cat(buf, cap, &o, ",\"command\":\"") < 0 || json_quote(buf, cap, &o, command) < 0 ||
	    cat(buf, cap, &o, "\"") < 0)
		goto out;
	if (status && (cat(buf, cap, &o, ",\"statusMessage\":\"") < 0 ||
	    json_quote(buf, cap, &o, status) < 0 || cat(buf, cap, &o, "\"") < 0))
		goto out;
	if (cat(buf, cap, &o, ",\"timeout\":") < 0 || cat(buf, cap, &o, num) < 0 ||
	    cat(buf, cap, &o, ",\"type\":\"command\"}]") < 0)
		goto out;
	if (matcher && (cat(buf, cap, &o, ",\"matcher\":\"") < 0 ||
	    json_quote(buf, cap, &o, matcher) < 0 || cat(buf, cap, &o, "\"") < 0))
		goto out;
	if (cat(buf, cap, &o, "}") < 0)
		goto out;
	crypto_hash_sha256(h, (const unsigned char *)buf, o);
	memcpy(out, "sha256:", 7);
	hex_encode(out + 7, h, sizeof(h));
	rc = 0;
out:
	free(buf);
	return rc;
}

int
codex_config_path(char *out, size_t outsz, struct sbx_err *err)
{
	const char *home = getenv("CODEX_HOME");
	struct passwd *pw;

	if (home && *home) {
		if (home[0] != '/') {
			err_set(err, "CODEX_HOME (%s) is not an absolute path", home);
			return -1;
		}
		if (xsnprintf(out, outsz, "%s/config.toml", home) < 0)
			goto toolong;
		return 0;
	}
	home = getenv("HOME");
	if (!home || home[0] != '/') {
		pw = getpwuid(getuid());
		home = pw ? pw->pw_dir : NULL;
	}
	if (!home || home[0] != '/') {
		err_set(err, "cannot tell the home directory (set HOME or CODEX_HOME)");
		return -1;
	}
	if (xsnprintf(out, outsz, "%s/.codex/config.toml", home) < 0)
		goto toolong;
	return 0;
toolong:
	err_set(err, "the Codex config path is too long");
	return -1;
}

/* The file's text (caller frees); NULL with err->msg empty when it does
 * not exist, set on an error. */
static char *
read_file(const char *path, size_t *len, struct sbx_err *err)
{
	char *text;

	err->msg[0] = '\0';
	if (file_read_nofollow(path, MAX_TOML, SBX_READ_REGULAR | SBX_READ_NO_NUL, &text, len,
	    NULL, err) <= 0)
		return NULL;
	return text;
}

/* A command line that runs "sbx-hook ... codex" (plain, or wrapped in a
 * sh -c guard that names the mode as a word). */
static int
runs_sbx_codex(const char *c)
{
	const char *p;

	if (!strstr(c, "sbx-hook"))
		return 0;
	for (p = c; (p = strstr(p, " codex")); p++)
		if (p[6] == '\0' || p[6] == ' ' || p[6] == ';' || p[6] == '\'')
			return 1;
	return 0;
}

int
codex_hook_find(const char *folder, const char *command, struct codex_hook *h,
    struct sbx_err *err)
{
	char path[PATH_MAX + 32];
	const cJSON *groups, *g, *x;
	const char *c, *m, *s;
	struct sbx_err e2 = { "" };
	cJSON *root;
	size_t len;
	char *text;
	int gi = 0, hi, found = 0;
	int64_t t;

	memset(h, 0, sizeof(*h));
	if (xsnprintf(path, sizeof(path), "%s/.codex/hooks.json", folder) < 0) {
		err_set(err, "path too long");
		return -1;
	}
	if (!(text = read_file(path, &len, &e2))) {
		if (e2.msg[0]) {
			*err = e2;
			return -1;
		}
		return 0;
	}
	root = cJSON_ParseWithLength(text, len);
	free(text);
	if (!cJSON_IsObject(root)) {
		cJSON_Delete(root);
		err_set(err, "%s is not a JSON object; Codex ignores it", path);
		return -1;
	}
	groups = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(root,
	    "hooks"), "PreToolUse");
	cJSON_ArrayForEach(g, (cJSON_IsArray(groups) ? groups : NULL)) {
		hi = 0;
		cJSON_ArrayForEach(x, cJSON_GetObjectItemCaseSensitive(g, "hooks")) {
			c = json_str(x, "command");
			if (!found && c && (s = json_str(x, "type")) && !strcmp(s, "command") &&
			    (command ? !strcmp(c, command) : runs_sbx_codex(c))) {
				t = 600;
				if (cJSON_GetObjectItemCaseSensitive(x, "timeout") &&
				    json_int(x, "timeout", &t) < 0)
					t = -1;
				if (t < 1 && t != -1)
					t = 1;
				m = json_str(g, "matcher");
				if (t < 0 || xsnprintf(h->command, sizeof(h->command), "%s", c) < 0 ||
				    xsnprintf(h->key, sizeof(h->key), "%s:pre_tool_use:%d:%d", path,
				    gi, hi) < 0 || codex_hook_hash("pre_tool_use", m, c, (long)t,
				    json_bool(x, "async") == 1, json_str(x, "statusMessage"),
				    h->hash) < 0) {
					cJSON_Delete(root);
					err_set(err, "%s: sbx's hook entry is malformed", path);
					return -1;
				}
				h->timeout = (long)t;
				found = 1;
			}
			hi++;
		}
		gi++;
	}
	cJSON_Delete(root);
	return found;
}

/* TOML basic string for s (quotes included). */
static int
toml_quote(char *out, size_t outsz, const char *s)
{
	size_t o = 0;

	if (outsz < 3)
		return -1;
	out[o++] = '"';
	if (json_quote(out, outsz - 1, &o, s) < 0)
		return -1;
	out[o++] = '"';
	out[o] = '\0';
	return 0;
}

char *
codex_trust_block(const char *folder, const struct codex_hook *h, int project, int hook)
{
	char qf[2 * PATH_MAX + 8], qk[2 * PATH_MAX + 160], *out;
	size_t cap = 6 * PATH_MAX + 1024, o = 0;

	if (toml_quote(qf, sizeof(qf), folder) < 0 || toml_quote(qk, sizeof(qk), h->key) < 0 ||
	    !(out = malloc(cap)))
		return NULL;
	out[0] = '\0';
	if (cat(out, cap, &o, block_begin) < 0 || cat(out, cap, &o, folder) < 0 ||
	    cat(out, cap, &o, "\n# Written by `sbx init --codex`: Codex runs a project's hooks "
	    "only when\n# the project and each hook are trusted. `sbx remove` takes this "
	    "out.\n") < 0)
		goto fail;
	if (project && (cat(out, cap, &o, "[projects.") < 0 || cat(out, cap, &o, qf) < 0 ||
	    cat(out, cap, &o, "]\ntrust_level = \"trusted\"\n") < 0))
		goto fail;
	if (hook && (cat(out, cap, &o, "[hooks.state.") < 0 || cat(out, cap, &o, qk) < 0 ||
	    cat(out, cap, &o, "]\ntrusted_hash = \"") < 0 || cat(out, cap, &o, h->hash) < 0 ||
	    cat(out, cap, &o, "\"\n") < 0))
		goto fail;
	if (cat(out, cap, &o, block_end) < 0 || cat(out, cap, &o, folder) < 0 ||
	    cat(out, cap, &o, "\n") < 0)
		goto fail;
	return out;
fail:
	free(out);
	return NULL;
}

/* Where sbx's block for FOLDER starts and ends in text; 1 found, 0 not,
 * -1 a begin marker without its end. */
static int
find_block(const char *text, size_t len, const char *folder, size_t *b, size_t *e)
{
	char marker[PATH_MAX + 64];
	size_t ml, i;
	const char *p;

	snprintf(marker, sizeof(marker), "%s%s\n", block_begin, folder);
	ml = strlen(marker);
	for (i = 0; i + ml <= len; i++) {
		if ((i == 0 || text[i - 1] == '\n') && !memcmp(text + i, marker, ml))
			break;
	}
	if (i + ml > len)
		return 0;
	*b = i;
	snprintf(marker, sizeof(marker), "%s%s\n", block_end, folder);
	ml = strlen(marker);
	for (p = text + i; (p = strstr(p, marker)); p++)
		if (p[-1] == '\n') {
			*e = (size_t)(p - text) + ml;
			return 1;
		}
	/* the end marker may be the last line without a newline */
	marker[ml - 1] = '\0';
	if (len >= ml - 1 && !strcmp(text + len - (ml - 1), marker) &&
	    (len == ml - 1 || text[len - ml] == '\n')) {
		*e = len;
		return 1;
	}
	return -1;
}

/* The visitor collecting what the file says about one folder. */
struct look {
	struct tpath proj, state, mcp;
	size_t skip_b, skip_e;          /* sbx's own block, not counted */
	int clash;
	int clash_line;
	struct scan sc;                 /* the scan in progress (line numbers) */
	struct codex_trust_state *st;
	int in_block;                   /* the value came from sbx's block */
	int proj_user, state_user;      /* the user defines those tables */
};

/* Copies s into out; a value too long for out is cut (and then never
 * equals what sbx compares it with). */
static void
keep(char *out, size_t outsz, const char *s)
{
	size_t n = strlen(s);

	if (n >= outsz)
		n = outsz - 1;
	memcpy(out, s, n);
	out[n] = '\0';
}

/* 1 when a is a prefix of b (or equal). */
static int
prefix(const struct tpath *a, const struct tpath *b)
{
	int i;

	if (a->n > b->n)
		return 0;
	for (i = 0; i < a->n; i++)
		if (strcmp(a->part[i], b->part[i]))
			return 0;
	return 1;
}

static int
overlaps(const struct tpath *p, const struct tpath *ours)
{
	return prefix(p, ours) || prefix(ours, p);
}

static int
look_visit(void *ctx, enum tdef kind, const struct tpath *table, const struct tpath *full,
    const struct tval *v, size_t start, size_t end)
{
	struct look *L = ctx;
	int mine = start >= L->skip_b && end <= L->skip_e;
	const struct tpath *ours[2] = { &L->proj, &L->state };
	int i, own;

	(void)end;
	/* the values (own block or not) */
	if (kind == T_KEYVAL && v->have) {
		if (full->n == L->proj.n + 1 && prefix(&L->proj, full) &&
		    !strcmp(full->part[full->n - 1], "trust_level") && v->is_str)
			keep(L->st->trust_level, sizeof(L->st->trust_level), v->text);
		if (full->n == L->state.n + 1 && prefix(&L->state, full)) {
			if (!strcmp(full->part[full->n - 1], "trusted_hash") && v->is_str)
				keep(L->st->trusted_hash, sizeof(L->st->trusted_hash), v->text);
			if (!strcmp(full->part[full->n - 1], "enabled") && !v->is_str &&
			    !strcmp(v->text, "false"))
				L->st->hook_disabled = 1;
		}
		if (full->n == 3 && prefix(&L->mcp, full) && !strcmp(full->part[2], "command") &&
		    v->is_str)
			keep(L->st->mcp_command, sizeof(L->st->mcp_command), v->text);
	}
	if (mine)
		return 0;
	/* clashes with the tables sbx would write */
	for (i = 0; i < 2; i++) {
		if (!overlaps(full, ours[i]))
			continue;
		own = table->n == ours[i]->n && prefix(ours[i], table);
		if (kind == T_TABLE && full->n <= ours[i]->n) {
			if (full->n == ours[i]->n)
				*(i ? &L->state_user : &L->proj_user) = 1;
			continue;       /* a parent, or the user's own same table */
		}
		if (kind == T_KEYVAL && own)
			continue;       /* a key inside the user's table */
		if (!L->clash) {
			L->clash = 1;
			L->clash_line = L->sc.line - 1;
		}
	}
	return 0;
}

static int
look_at(const char *text, size_t len, const char *folder, const char *key,
    struct codex_trust_state *st, struct look *L, struct sbx_err *err, const char *path)
{
	struct scan *sc = &L->sc;
	size_t b, e;
	int r;

	memset(L, 0, sizeof(*L));
	memset(st, 0, sizeof(*st));
	L->st = st;
	*sc = (struct scan){ .s = text, .len = len, .visit = look_visit, .ctx = L };
	if (path_add(&L->proj, "projects", 8) < 0 ||
	    path_add(&L->proj, folder, strlen(folder)) < 0 ||
	    path_add(&L->state, "hooks", 5) < 0 || path_add(&L->state, "state", 5) < 0 ||
	    path_add(&L->state, key, strlen(key)) < 0 ||
	    path_add(&L->mcp, "mcp_servers", 11) < 0 || path_add(&L->mcp, "sbx", 3) < 0) {
		err_set(err, "path too long");
		return -1;
	}
	if ((r = find_block(text, len, folder, &b, &e)) < 0) {
		err_set(err, "%s: sbx's block for %s has no end marker; fix it by hand", path,
		    folder);
		return -1;
	}
	if (r) {
		L->skip_b = b;
		L->skip_e = e;
		st->has_block = 1;
	}
	if (scan_toml(sc) < 0) {
		err_set(err, "%s line %d: %s", path, sc->line, sc->why ? sc->why : "unreadable");
		return -1;
	}
	return 0;
}

int
codex_trust_read(const char *config, const char *folder, const char *key,
    struct codex_trust_state *st, struct sbx_err *err)
{
	struct sbx_err e2 = { "" };
	struct look L;
	size_t len;
	char *text;
	int rc;

	memset(st, 0, sizeof(*st));
	if (!(text = read_file(config, &len, &e2))) {
		if (e2.msg[0]) {
			*err = e2;
			return -1;
		}
		return 0;
	}
	rc = look_at(text, len, folder, key, st, &L, err, config);
	free(text);
	return rc < 0 ? -1 : 1;
}

static int
save(const char *config, const char *text, size_t len, mode_t mode, struct sbx_err *err)
{
	char dir[PATH_MAX], *slash;
	int dfd, rc;

	if (xsnprintf(dir, sizeof(dir), "%s", config) < 0 || !(slash = strrchr(dir, '/'))) {
		err_set(err, "bad path %s", config);
		return -1;
	}
	*slash = '\0';
	if (mkdir(dir, 0700) < 0 && errno != EEXIST) {
		err_set(err, "cannot create %s: %s", dir, strerror(errno));
		return -1;
	}
	if ((dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) < 0) {
		err_set(err, "cannot open %s: %s", dir, strerror(errno));
		return -1;
	}
	rc = write_atomic(dfd, ".", slash + 1, text, len, mode, 0);
	if (rc < 0)
		err_set(err, "cannot write %s: %s", config, strerror(errno));
	close(dfd);
	return rc;
}

/* 1 when text holds sbx's blocks (any folder's) and nothing else but
 * blank lines: then sbx made all of it, and may delete it once empty. */
static int
only_sbx_blocks(const char *text)
{
	const char *p = text, *nl;
	int in = 0, seen = 0;

	for (; *p; p = nl ? nl + 1 : p + strlen(p)) {
		nl = strchr(p, '\n');
		if (!in && !strncmp(p, block_begin, strlen(block_begin)))
			in = seen = 1;
		else if (in && !strncmp(p, block_end, strlen(block_end)))
			in = 0;
		else if (!in && strspn(p, " \t\r") != (size_t)(nl ? nl - p : (long)strlen(p)))
			return 0;
	}
	return seen && !in;
}

static int
bad_folder(const char *folder, struct sbx_err *err)
{
	const char *p;

	for (p = folder; *p; p++)
		if ((unsigned char)*p < 0x20 || *p == 0x7f) {
			err_set(err, "the folder path holds a control character; sbx will not "
			    "write it into Codex's config");
			return 1;
		}
	return 0;
}

int
codex_trust_add(const char *config, const char *folder, const struct codex_hook *h,
    int *created_file, int *added_newline, struct sbx_err *err)
{
	struct codex_trust_state st;
	struct sbx_err e2 = { "" };
	struct stat sb;
	struct look L;
	size_t len = 0, b, e, o;
	char *text, *block = NULL, *out = NULL;
	mode_t mode = 0600;
	int rc = -1, need_proj, need_hook;

	*created_file = *added_newline = 0;
	if (bad_folder(folder, err))
		return -1;
	if (!(text = read_file(config, &len, &e2))) {
		if (e2.msg[0]) {
			*err = e2;
			return -1;
		}
		if (!(text = strdup("")))
			return -1;
		*created_file = 1;
	} else {
		if (stat(config, &sb) == 0)
			mode = sb.st_mode & 07777;
		*created_file = only_sbx_blocks(text);
	}
	if (look_at(text, len, folder, h->key, &st, &L, err, config) < 0)
		goto out;
	if (L.clash) {
		err_set(err, "%s line %d already defines Codex trust for this folder or its "
		    "hook in a form sbx will not edit (TOML allows one definition)", config,
		    L.clash_line);
		goto out;
	}
	/* What the user's own tables say stands; sbx does not override it. */
	if (L.proj_user && strcmp(st.trust_level, "trusted") != 0) {
		err_set(err, "%s: [projects.\"%s\"] says trust_level = \"%s\"; sbx will not "
		    "override your trust decision", config, folder, st.trust_level);
		goto out;
	}
	if (L.state_user && (strcmp(st.trusted_hash, h->hash) != 0 || st.hook_disabled)) {
		err_set(err, "%s: [hooks.state.\"%s\"] %s; sbx will not override it", config,
		    h->key, st.hook_disabled ? "disables the hook (enabled = false)" :
		    "trusts another version of the hook");
		goto out;
	}
	need_proj = !L.proj_user;
	need_hook = !L.state_user;
	if (st.has_block)
		find_block(text, len, folder, &b, &e);
	else
		b = e = len;
	if (!(block = need_proj || need_hook ? codex_trust_block(folder, h, need_proj, need_hook)
	    : strdup("")) || !(out = malloc(len + strlen(block) + 2))) {
		err_set(err, "out of memory or path too long");
		goto out;
	}
	/* text before the block, a newline if it lacks one, the block, the rest */
	memcpy(out, text, b);
	o = b;
	if (!st.has_block && o > 0 && out[o - 1] != '\n' && *block) {
		out[o++] = '\n';
		*added_newline = 1;
	}
	memcpy(out + o, block, strlen(block));
	o += strlen(block);
	memcpy(out + o, text + e, len - e);
	o += len - e;
	if (o == len && !memcmp(out, text, len)) {
		rc = 0;
		goto out;
	}
	/* Check the result as Codex will: it must scan, and trust both. */
	if (look_at(out, o, folder, h->key, &st, &L, err, config) < 0 ||
	    strcmp(st.trust_level, "trusted") || strcmp(st.trusted_hash, h->hash)) {
		if (!err->msg[0])
			err_set(err, "%s: the edited file would not trust the hook", config);
		goto out;
	}
	if (*created_file && o == 0) {
		rc = 0;
		goto out;
	}
	rc = save(config, out, o, mode, err) < 0 ? -1 : 1;
out:
	free(text);
	free(block);
	free(out);
	return rc;
}

int
codex_trust_remove(const char *config, const char *folder, int created_file,
    int added_newline, struct sbx_err *err)
{
	struct sbx_err e2 = { "" };
	struct stat sb;
	size_t len, b, e;
	char *text;
	int r, rc = -1;

	if (!(text = read_file(config, &len, &e2))) {
		if (e2.msg[0]) {
			*err = e2;
			return -1;
		}
		return 0;
	}
	if ((r = find_block(text, len, folder, &b, &e)) <= 0) {
		if (r < 0)
			err_set(err, "%s: sbx's block for %s has no end marker; take it out by hand",
			    config, folder);
		free(text);
		return r;
	}
	/* the newline sbx put at the end of the user's last line */
	if (added_newline && e == len && b > 0 && text[b - 1] == '\n')
		b--;
	memmove(text + b, text + e, len - e);
	len -= e - b;
	text[len] = '\0';
	if (created_file && strspn(text, " \t\r\n") == len) {
		if (unlink(config) < 0) {
			err_set(err, "cannot remove %s: %s", config, strerror(errno));
			goto out;
		}
		rc = 1;
		goto out;
	}
	rc = save(config, text, len, stat(config, &sb) == 0 ? sb.st_mode & 07777 : 0600, err)
	    < 0 ? -1 : 1;
out:
	free(text);
	return rc;
}
