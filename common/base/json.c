/*
 * json.c - typed lookups and the canonical encoding; see json.h.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/base/buf.h"
#include "common/base/json.h"

#define CANON_MAX_DEPTH 64

int
json_has_nul(const char *text, size_t len)
{
	/* memmem: one linear pass at memchr speed (a byte loop was 11% of
	 * the hook's time on a 1 MB payload). */
	return memmem(text, len, "\\u0000", 6) != NULL;
}

const char *
json_str(const cJSON *obj, const char *key)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, key);

	return cJSON_IsString(v) && v->valuestring ? v->valuestring : NULL;
}

int
json_int(const cJSON *obj, const char *key, int64_t *out)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, key);

	/* Below 10^15: cJSON prints such a number back exactly (15
	 * significant digits), so what we parse survives being written out
	 * (a signed decision's "expires" of 2^53 + 1 did not). */
	if (!cJSON_IsNumber(v) || !isfinite(v->valuedouble) ||
	    v->valuedouble != floor(v->valuedouble) ||
	    fabs(v->valuedouble) >= 1e15)
		return -1;
	*out = (int64_t)v->valuedouble;
	return 0;
}

int
json_bool(const cJSON *obj, const char *key)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, key);

	if (cJSON_IsTrue(v))
		return 1;
	if (cJSON_IsFalse(v))
		return 0;
	return -1;
}

static void
put_string(struct buf *b, const char *s)
{
	char esc[8];
	const unsigned char *u = (const unsigned char *)s;

	buf_put(b, "\"", 1);
	for (; *u; u++) {
		switch (*u) {
		case '"': buf_put(b, "\\\"", 2); break;
		case '\\': buf_put(b, "\\\\", 2); break;
		case '\n': buf_put(b, "\\n", 2); break;
		case '\r': buf_put(b, "\\r", 2); break;
		case '\t': buf_put(b, "\\t", 2); break;
		default:
			if (*u < 0x20) {
				snprintf(esc, sizeof(esc), "\\u%04x", *u);
				buf_put(b, esc, 6);
			} else {
				buf_put(b, (const char *)u, 1);
			}
		}
	}
	buf_put(b, "\"", 1);
}

/* An object member and its place in the object. */
struct member {
	const cJSON *c;
	size_t i;
};

static int
key_cmp(const void *a, const void *b)
{
	const struct member *x = a, *y = b;
	int c = strcmp(x->c->string ? x->c->string : "", y->c->string ? y->c->string : "");

	/* Duplicate keys keep their order in the object (the first is the
	 * one cJSON's lookups see), never their addresses': a copy made by
	 * cJSON_Duplicate must give the same text. */
	if (c == 0)
		return x->i < y->i ? -1 : x->i > y->i;
	return c;
}

static int
put_value(struct buf *b, const cJSON *v, int depth)
{
	char num[64];
	const cJSON *c;
	struct member *items;
	size_t n = 0, i;

	if (depth > CANON_MAX_DEPTH)
		return -1;
	if (cJSON_IsNull(v)) {
		buf_put(b, "null", 4);
	} else if (cJSON_IsTrue(v)) {
		buf_put(b, "true", 4);
	} else if (cJSON_IsFalse(v)) {
		buf_put(b, "false", 5);
	} else if (cJSON_IsNumber(v)) {
		double d = v->valuedouble;

		if (!isfinite(d))
			snprintf(num, sizeof(num), "null");
		else if (d == floor(d) && fabs(d) < 9007199254740992.0)
			snprintf(num, sizeof(num), "%lld", (long long)d);
		else
			snprintf(num, sizeof(num), "%.17g", d);
		buf_put(b, num, strlen(num));
	} else if (cJSON_IsString(v)) {
		put_string(b, v->valuestring ? v->valuestring : "");
	} else if (cJSON_IsArray(v)) {
		buf_put(b, "[", 1);
		for (c = v->child; c; c = c->next) {
			if (c != v->child)
				buf_put(b, ",", 1);
			if (put_value(b, c, depth + 1) < 0)
				return -1;
		}
		buf_put(b, "]", 1);
	} else if (cJSON_IsObject(v)) {
		for (c = v->child; c; c = c->next)
			n++;
		items = calloc(n ? n : 1, sizeof(*items));
		if (!items)
			return -1;
		for (i = 0, c = v->child; c; c = c->next, i++)
			items[i] = (struct member){ c, i };
		qsort(items, n, sizeof(*items), key_cmp);
		buf_put(b, "{", 1);
		for (i = 0; i < n; i++) {
			if (i)
				buf_put(b, ",", 1);
			put_string(b, items[i].c->string ? items[i].c->string : "");
			buf_put(b, ":", 1);
			if (put_value(b, items[i].c, depth + 1) < 0) {
				free(items);
				return -1;
			}
		}
		buf_put(b, "}", 1);
		free(items);
	} else {
		return -1;
	}
	return b->oom ? -1 : 0;
}

char *
json_canonical(const cJSON *v)
{
	struct buf b = { 0 };

	if (put_value(&b, v, 0) < 0 || b.oom) {
		free(b.p);
		errno = ENOMEM;
		return NULL;
	}
	return b.p;
}

static void
put_indent(struct buf *b, int depth)
{
	int i;

	buf_put(b, "\n", 1);
	for (i = 0; i < depth; i++)
		buf_put(b, "  ", 2);
}

/* Like put_value, in the given order, indented by two spaces. */
static int
put_pretty(struct buf *b, const cJSON *v, int depth)
{
	const cJSON *c;
	int obj = cJSON_IsObject(v);

	if (depth > CANON_MAX_DEPTH)
		return -1;
	if (!obj && !cJSON_IsArray(v))
		return put_value(b, v, depth);
	buf_put(b, obj ? "{" : "[", 1);
	for (c = v->child; c; c = c->next) {
		if (c != v->child)
			buf_put(b, ",", 1);
		put_indent(b, depth + 1);
		if (obj) {
			put_string(b, c->string ? c->string : "");
			buf_put(b, ": ", 2);
		}
		if (put_pretty(b, c, depth + 1) < 0)
			return -1;
	}
	if (v->child)
		put_indent(b, depth);
	buf_put(b, obj ? "}" : "]", 1);
	return b->oom ? -1 : 0;
}

char *
json_pretty(const cJSON *v)
{
	struct buf b = { 0 };

	if (put_pretty(&b, v, 0) < 0 || (buf_put(&b, "\n", 1), b.oom)) {
		free(b.p);
		errno = ENOMEM;
		return NULL;
	}
	return b.p;
}

char *
json_print_line(const cJSON *v)
{
	char *s = cJSON_PrintUnformatted(v), *line;
	size_t n;

	if (!s)
		return NULL;
	n = strlen(s);
	line = realloc(s, n + 2);
	if (!line) {
		free(s);
		return NULL;
	}
	line[n] = '\n';
	line[n + 1] = '\0';
	return line;
}
