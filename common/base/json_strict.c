/*
 * json_strict.c - a strict JSON checker for input the hook judges; see
 * json.h.
 *
 * cJSON is lenient where leniency is dangerous for a judge: a duplicate
 * key resolves to the first while the client may take the last, raw
 * control bytes and invalid UTF-8 pass, and anything after the value is
 * ignored. This pass runs over the raw text first and refuses all of it.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/base/json.h"
#include "common/base/util.h"

#define STRICT_MAX_DEPTH 256

struct sp {
	const unsigned char *p, *end;
	char *why;
	size_t whysz;
	int depth;
};

/* Bytes a string holds as they are: printable ASCII but '"' and '\\'. */
#define P16 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1
static const unsigned char plain[256] = {
	[0x20] = 1, 1, 0, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,   /* '"' */
	P16, P16,
	[0x50] = 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 1, 1, 1,   /* '\\' */
	P16, P16,
};
#undef P16

/*
 * The end of the run of plain bytes from p: eight at a time while no
 * byte of a word is a control byte, non-ASCII, '"' or '\\' (the usual
 * has-zero-byte tricks). Linear whatever the input.
 */
static const unsigned char *
plain_run(const unsigned char *p, const unsigned char *end)
{
	const uint64_t ones = 0x0101010101010101ULL, high = 0x8080808080808080ULL;
	uint64_t w, q, b, m;

	while (end - p >= 8) {
		memcpy(&w, p, 8);
		q = w ^ (ones * '"');
		b = w ^ (ones * '\\');
		if ((m = ((w - ones * 0x20) | (q - ones) | (b - ones) | w) & high)) {
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
			/* a borrow only runs upwards: the lowest flag is a real one */
			return p + __builtin_ctzll(m) / 8;
#else
			break;
#endif
		}
		p += 8;
	}
	while (p < end && plain[*p])
		p++;
	return p;
}

struct key {
	char *s;
	size_t n;
};

static int
fail(struct sp *s, const char *what)
{
	if (s->why && s->whysz)
		snprintf(s->why, s->whysz, "%s", what);
	return -1;
}

static void
ws(struct sp *s)
{
	while (s->p < s->end && (*s->p == ' ' || *s->p == '\t' || *s->p == '\n' ||
	    *s->p == '\r'))
		s->p++;
}

static int
hex4(const unsigned char *p, unsigned *out)
{
	unsigned v = 0;
	int i;

	for (i = 0; i < 4; i++) {
		v <<= 4;
		if (p[i] >= '0' && p[i] <= '9')
			v |= p[i] - '0';
		else if (p[i] >= 'a' && p[i] <= 'f')
			v |= p[i] - 'a' + 10;
		else if (p[i] >= 'A' && p[i] <= 'F')
			v |= p[i] - 'A' + 10;
		else
			return -1;
	}
	*out = v;
	return 0;
}

/* Length of the valid UTF-8 sequence at p (utf8_decode), or 0. */
static size_t
utf8_len(const unsigned char *p, const unsigned char *end)
{
	unsigned cp;

	return utf8_decode(p, (size_t)(end - p), &cp);
}

/* A string at s->p (the opening quote). When out is given, the decoded
 * bytes (escapes resolved) go there, for duplicate-key checks. */
static int
string(struct sp *s, struct key *out)
{
	const unsigned char *start;
	unsigned u, lo;
	size_t n, cap = 0;
	char *d = NULL, *nd;
	char enc[4];
	size_t elen;

	s->p++;
	if (out) {
		out->s = NULL;
		out->n = 0;
	}
	for (;;) {
		if (s->p >= s->end) {
			free(d);
			return fail(s, "an unterminated string");
		}
		start = s->p;
		if (*s->p == '"') {
			s->p++;
			break;
		}
		if (*s->p < 0x20) {
			free(d);
			return fail(s, *s->p == 0 ? "a NUL byte inside a string" :
			    "a raw control byte inside a string");
		}
		if (*s->p == '\\') {
			if (s->end - s->p < 2) {
				free(d);
				return fail(s, "an unterminated escape");
			}
			switch (s->p[1]) {
			case '"': case '\\': case '/': case 'b': case 'f': case 'n': case 'r':
			case 't':
				enc[0] = s->p[1] == 'b' ? '\b' : s->p[1] == 'f' ? '\f' :
				    s->p[1] == 'n' ? '\n' : s->p[1] == 'r' ? '\r' :
				    s->p[1] == 't' ? '\t' : (char)s->p[1];
				elen = 1;
				s->p += 2;
				break;
			case 'u':
				if (s->end - s->p < 6 || hex4(s->p + 2, &u) < 0) {
					free(d);
					return fail(s, "a malformed \\u escape");
				}
				s->p += 6;
				if (u == 0) {
					free(d);
					return fail(s, "a \\u0000 escape");
				}
				if (u >= 0xdc00 && u <= 0xdfff) {
					free(d);
					return fail(s, "a lone low surrogate escape");
				}
				if (u >= 0xd800 && u <= 0xdbff) {
					if (s->end - s->p < 6 || s->p[0] != '\\' || s->p[1] != 'u' ||
					    hex4(s->p + 2, &lo) < 0 || lo < 0xdc00 || lo > 0xdfff) {
						free(d);
						return fail(s, "a lone high surrogate escape");
					}
					s->p += 6;
					u = 0x10000 + ((u - 0xd800) << 10) + (lo - 0xdc00);
				}
				elen = utf8_encode(u, enc);
				break;
			default:
				free(d);
				return fail(s, "an unknown escape");
			}
			start = (const unsigned char *)enc;
			n = elen;
		} else if (!out && *s->p < 0x80) {
			/* The common case, plain ASCII: no copy, no UTF-8 decoding. */
			s->p = plain_run(s->p + 1, s->end);
			continue;
		} else {
			if (!(n = utf8_len(s->p, s->end))) {
				free(d);
				return fail(s, "invalid UTF-8 inside a string");
			}
			s->p += n;
		}
		if (out) {
			if (out->n + n + 1 > cap) {
				cap = (out->n + n + 1) * 2;
				if (!(nd = realloc(d, cap))) {
					free(d);
					return fail(s, "out of memory");
				}
				d = nd;
			}
			memcpy(d + out->n, start, n);
			out->n += n;
		}
	}
	if (out) {
		if (!d && !(d = malloc(1)))
			return fail(s, "out of memory");
		d[out->n] = '\0';
		out->s = d;
	}
	return 0;
}

static int
number(struct sp *s)
{
	const unsigned char *p = s->p;

	if (p < s->end && *p == '-')
		p++;
	if (p < s->end && *p == '0')
		p++;
	else if (p < s->end && *p >= '1' && *p <= '9')
		while (p < s->end && *p >= '0' && *p <= '9')
			p++;
	else
		return fail(s, "a malformed number");
	if (p < s->end && *p == '.') {
		if (++p >= s->end || *p < '0' || *p > '9')
			return fail(s, "a malformed number");
		while (p < s->end && *p >= '0' && *p <= '9')
			p++;
	}
	if (p < s->end && (*p == 'e' || *p == 'E')) {
		p++;
		if (p < s->end && (*p == '+' || *p == '-'))
			p++;
		if (p >= s->end || *p < '0' || *p > '9')
			return fail(s, "a malformed number");
		while (p < s->end && *p >= '0' && *p <= '9')
			p++;
	}
	s->p = p;
	return 0;
}

static int
key_cmp(const void *a, const void *b)
{
	const struct key *x = a, *y = b;
	size_t n = x->n < y->n ? x->n : y->n;
	int c = memcmp(x->s, y->s, n);

	return c ? c : (x->n > y->n) - (x->n < y->n);
}

static int value(struct sp *s);

/* 1 (and past it) when the next character is c. */
static int
eat(struct sp *s, char c)
{
	if (s->p >= s->end || *s->p != c)
		return 0;
	s->p++;
	return 1;
}

static int
object(struct sp *s)
{
	struct key *keys = NULL, *nk;
	size_t n = 0, cap = 0, i;
	int rc = -1;

	s->p++;
	ws(s);
	if (eat(s, '}'))
		return 0;
	for (;;) {
		ws(s);
		if (s->p >= s->end || *s->p != '"') {
			fail(s, "an object key that is not a string");
			goto out;
		}
		if (n == cap) {
			cap = cap ? cap * 2 : 8;
			if (!(nk = realloc(keys, cap * sizeof(*keys)))) {
				fail(s, "out of memory");
				goto out;
			}
			keys = nk;
		}
		if (string(s, &keys[n]) < 0)
			goto out;
		n++;
		ws(s);
		if (s->p >= s->end || *s->p != ':') {
			fail(s, "a missing ':' in an object");
			goto out;
		}
		s->p++;
		if (value(s) < 0)
			goto out;
		ws(s);
		if (eat(s, ','))
			continue;
		if (eat(s, '}'))
			break;
		fail(s, "a missing ',' or '}' in an object");
		goto out;
	}
	/* Sorted, so a duplicate is next to its twin. */
	qsort(keys, n, sizeof(*keys), key_cmp);
	for (i = 1; i < n; i++)
		if (key_cmp(&keys[i - 1], &keys[i]) == 0) {
			char msg[120];

			snprintf(msg, sizeof(msg), "a duplicate key \"%.40s\"", keys[i].s);
			for (size_t k = 0; k < sizeof(msg) && msg[k]; k++)
				if ((unsigned char)msg[k] < 0x20 || (unsigned char)msg[k] >= 0x7f)
					msg[k] = '?';   /* why stays printable ASCII */
			fail(s, msg);
			goto out;
		}
	rc = 0;
out:
	for (i = 0; i < n; i++)
		free(keys[i].s);
	free(keys);
	return rc;
}

static int
array(struct sp *s)
{
	s->p++;
	ws(s);
	if (eat(s, ']'))
		return 0;
	for (;;) {
		if (value(s) < 0)
			return -1;
		ws(s);
		if (eat(s, ']'))
			return 0;
		if (!eat(s, ','))
			return fail(s, "a missing ',' or ']' in an array");
	}
}

static int
literal(struct sp *s, const char *word)
{
	size_t n = strlen(word);

	if ((size_t)(s->end - s->p) < n || memcmp(s->p, word, n) != 0)
		return fail(s, "an unexpected character");
	s->p += n;
	return 0;
}

static int
value(struct sp *s)
{
	int rc;

	ws(s);
	if (s->p >= s->end)
		return fail(s, "a missing value");
	if (++s->depth > STRICT_MAX_DEPTH)
		return fail(s, "nesting too deep");
	switch (*s->p) {
	case '{': rc = object(s); break;
	case '[': rc = array(s); break;
	case '"': rc = string(s, NULL); break;
	case 't': rc = literal(s, "true"); break;
	case 'f': rc = literal(s, "false"); break;
	case 'n': rc = literal(s, "null"); break;
	default: rc = number(s); break;
	}
	s->depth--;
	return rc;
}

int
json_strict_check(const char *text, size_t len, char *why, size_t whysz)
{
	struct sp s = { (const unsigned char *)text, (const unsigned char *)text + len,
		why, whysz, 0 };

	if (value(&s) < 0)
		return -1;
	ws(&s);
	if (s.p != s.end)
		return fail(&s, s.p[0] == 0 ? "a NUL byte after the JSON value"
		    : "data after the JSON value");
	return 0;
}

cJSON *
json_parse_strict(const char *text, size_t len, enum json_bad *bad, char *why,
    size_t whysz)
{
	cJSON *v;

	if (json_has_nul(text, len)) {
		*bad = JSON_BAD_NUL;
		snprintf(why, whysz, "a \\u0000 escape");
		return NULL;
	}
	if (!(v = cJSON_ParseWithLength(text, len))) {
		*bad = JSON_BAD_SYNTAX;
		snprintf(why, whysz, "not JSON");
		return NULL;
	}
	if (json_strict_check(text, len, why, whysz) < 0) {
		cJSON_Delete(v);
		*bad = JSON_BAD_STRICT;
		return NULL;
	}
	*bad = JSON_OK;
	return v;
}
