/*
 * test_strict.c - the strict JSON reader every judged input goes through
 * (json_parse_strict: hook stdin, MCP lines, policy check --hook-json),
 * its fast path against a byte-by-byte reference, hostile inputs of 1 MB
 * that must stay linear, and the policy rollback record
 * (accept_floor_read).
 */
#include "common/base/json_strict.c"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/trust/accept.h"
#include "tests/tap.h"

/* The byte-by-byte definition plain_run must match. */
static const unsigned char *
plain_ref(const unsigned char *p, const unsigned char *end)
{
	while (p < end && *p >= 0x20 && *p < 0x80 && *p != '"' && *p != '\\')
		p++;
	return p;
}

static void
test_plain_run(void)
{
	unsigned char buf[80];
	unsigned seed = 7;
	int i, n, bad = 0;

	for (int it = 0; it < 200000; it++) {
		seed = seed * 1103515245u + 12345u;
		n = (int)(seed >> 16) % 64;
		for (i = 0; i < n; i++) {
			seed = seed * 1103515245u + 12345u;
			/* mostly printable, sometimes anything */
			buf[i] = (seed >> 16) % 5 ? (unsigned char)(0x20 + (seed >> 8) % 0x60)
			    : (unsigned char)(seed >> 20);
		}
		if (plain_run(buf, buf + n) != plain_ref(buf, buf + n))
			bad++;
	}
	is_int(bad, 0, "plain_run stops where the byte loop stops (200,000 random strings)");
}

static enum json_bad
bad_of(const char *text, size_t len, char *why, size_t whysz)
{
	enum json_bad bad;
	cJSON *v = json_parse_strict(text, len, &bad, why, whysz);

	cJSON_Delete(v);
	return bad;
}

static void
test_parse_strict(void)
{
	static const struct {
		const char *text;
		size_t len;             /* 0: strlen */
		enum json_bad want;
		const char *why;        /* a part of why, or NULL */
	} cases[] = {
		{ "{\"a\":\"ls -la\"}", 0, JSON_OK, NULL },
		{ "  [1, 2.5e3, true, null, \"\\u00e9\\ud83d\\ude00\"]\n", 0, JSON_OK, NULL },
		{ "{\"c\":\"ls\\u0000; rm -rf ~\"}", 0, JSON_BAD_NUL, "u0000" },
		{ "{\"c\":\"a\\\\u0000\"}", 0, JSON_BAD_NUL, NULL },     /* over-cautious */
		{ "{\"c\":", 0, JSON_BAD_SYNTAX, "not JSON" },
		{ "{\"c\":\"ls\",\"c\":\"rm\"}", 0, JSON_BAD_STRICT, "duplicate key" },
		{ "{\"c\":\"ls\",\"\\u0063\":\"rm\"}", 0, JSON_BAD_STRICT, "duplicate key" },
		{ "{\"c\":\"ls\x01\"}", 0, JSON_BAD_STRICT, "control byte" },
		{ "{\"c\":\"ls\0x\"}", 12, JSON_BAD_STRICT, "NUL byte" },
		{ "{\"c\":\"ls \xff\"}", 0, JSON_BAD_STRICT, "invalid UTF-8" },
		{ "{\"c\":\"\xc0\xaf\"}", 0, JSON_BAD_STRICT, "invalid UTF-8" },
		{ "{\"c\":\"\xed\xa0\x80\"}", 0, JSON_BAD_STRICT, "invalid UTF-8" },
		{ "{\"c\":\"\\ud800\"}", 0, JSON_BAD_SYNTAX, NULL },  /* cJSON refuses */
		{ "{\"c\":\"ls\"} {\"c\":\"rm\"}", 0, JSON_BAD_STRICT, "after the JSON value" },
		{ "{\"c\":\"ls\"}\0", 11, JSON_BAD_STRICT, "NUL byte after" },
	};
	char why[160], name[64];
	size_t i, len;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		len = cases[i].len ? cases[i].len : strlen(cases[i].text);
		why[0] = '\0';
		snprintf(name, sizeof(name), "json_parse_strict case %zu", i + 1);
		is_int(bad_of(cases[i].text, len, why, sizeof(why)), cases[i].want, "%s", name);
		if (cases[i].why)
			ok(strstr(why, cases[i].why) != NULL, "%s: why says \"%s\" (%s)", name,
			    cases[i].why, why);
	}
	/* A duplicate key cut inside a character: why stays printable ASCII. */
	bad_of("{\"\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9"
	    "\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9"
	    "\xc3\xa9x\":1,\"\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9"
	    "\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9"
	    "\xc3\xa9\xc3\xa9x\":2}", strlen("{\"") + 41 + strlen("\":1,\"") + 41 +
	    strlen("\":2}"), why, sizeof(why));
	for (i = 0; why[i] && (unsigned char)why[i] >= 0x20 && (unsigned char)why[i] < 0x7f;
	    i++)
		;
	ok(why[i] == '\0' && strstr(why, "duplicate key"), "a long non-ASCII duplicate key: "
	    "why is printable ASCII (%s)", why);
}

/* 1 MB of what makes a naive checker slow; each must finish (linear). */
static void
test_hostile(void)
{
	size_t n = 1 << 20, i;
	char *t = malloc(n + 16), why[160];

	if (!t)
		return;
	/* a string of escaped backslashes */
	t[0] = '"';
	for (i = 1; i + 1 < n; i += 2) {
		t[i] = '\\';
		t[i + 1] = '\\';
	}
	t[i] = '"';
	is_int(bad_of(t, i + 1, why, sizeof(why)), JSON_OK, "1 MB of \\\\ escapes: strict");
	/* \u0001 repeated: a near-miss of \u0000 at every step */
	t[0] = '"';
	for (i = 1; i + 6 < n; i += 6)
		memcpy(t + i, "\\u0001", 6);
	t[i] = '"';
	is_int(bad_of(t, i + 1, why, sizeof(why)), JSON_OK,
	    "1 MB of \\u0001 near-misses of \\u0000: strict (escaped, not raw)");
	/* 100,000 keys, the last a duplicate of the first */
	{
		size_t o = 0;

		t[o++] = '{';
		for (i = 0; i < 60000 && o + 20 < n; i++)
			o += (size_t)sprintf(t + o, "\"k%zu\":1,", i);
		o += (size_t)sprintf(t + o, "\"k0\":2}");
		is_int(bad_of(t, o, why, sizeof(why)), JSON_BAD_STRICT,
		    "60,000 keys with the last a duplicate: found");
	}
	/* nesting deeper than the limit */
	memset(t, '[', n);
	is_int(bad_of(t, n, why, sizeof(why)), JSON_BAD_SYNTAX,
	    "1 MB of '[': refused, no stack overflow");
	free(t);
}

static void
put(const char *path, const char *text)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);

	if (fd >= 0) {
		(void)!write(fd, text, strlen(text));
		close(fd);
	}
}

static void
test_floor(void)
{
	char dir[] = "/tmp/sbx-unit-floor.XXXXXX", path[512], name[33], why[300], text[600];
	const char *folder = "/some/proj";
	int64_t t = -1;

	if (!mkdtemp(dir))
		return;
	is_int(accept_floor_read(dir, folder, &t, why, sizeof(why)), 0, "no record: 0");
	is_int(t, 0, "no record: floor 0");
	snprintf(path, sizeof(path), "%s/%s", dir, SBX_FLOOR_DIR);
	mkdir(path, 0755);
	accept_floor_name(folder, name);
	is_int(strlen(name), 32, "the record's name is 32 hex digits");
	snprintf(path, sizeof(path), "%s/%s/%s", dir, SBX_FLOOR_DIR, name);
	snprintf(text, sizeof(text), "{\"folder\":\"%s\",\"time\":1700000000}\n", folder);
	put(path, text);
	is_int(accept_floor_read(dir, folder, &t, why, sizeof(why)), 0, "a record: 0");
	is_int(t, 1700000000, "a record: its time");
	put(path, "{\"folder\":\"/other\",\"time\":1700000000}\n");
	is_int(accept_floor_read(dir, folder, &t, why, sizeof(why)), -1,
	    "another folder's record: fails closed");
	ok(strstr(why, "not this folder") != NULL, "and says so (%s)", why);
	put(path, "{\"folder\":\"/some/proj\",\"time\":-5}\n");
	is_int(accept_floor_read(dir, folder, &t, why, sizeof(why)), -1,
	    "a negative time: fails closed");
	put(path, "{\"folder\":\"/some/proj\",\"time\":1e300}\n");
	is_int(accept_floor_read(dir, folder, &t, why, sizeof(why)), -1,
	    "a huge time: fails closed");
	unlink(path);
	(void)!symlink("/etc/passwd", path);
	is_int(accept_floor_read(dir, folder, &t, why, sizeof(why)), -1,
	    "a symlink: not followed, fails closed");
	unlink(path);
	snprintf(path, sizeof(path), "%s/%s", dir, SBX_FLOOR_DIR);
	rmdir(path);
	rmdir(dir);
}

int
main(void)
{
	test_plain_run();
	test_parse_strict();
	test_hostile();
	test_floor();
	return tap_done();
}
