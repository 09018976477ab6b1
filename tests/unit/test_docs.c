/*
 * test_docs.c - docs/QUEUE.md's list of signed decision fields against the
 * code that signs them.
 *
 * The list between the "signed-decision-fields" markers names each field
 * in signing order. For every key of a real decision document
 * (decision_to_json) except "v" and "sig", the test changes that key's
 * value, parses the document back (decision_from_json) and sees which
 * length-prefixed part of the signed message (decision_message) changed.
 * So it fails when the docs list a field the code does not sign, when the
 * code signs a field the docs do not list, and when the order differs.
 * Runs from the repository root, where the tests run.
 */
#include "common/base/json.h"
#include "common/protocol/queue.h"
#include "tests/tap.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_FIELDS 64

static char *
read_file(const char *path)
{
	FILE *f = fopen(path, "r");
	char *buf;
	long n;

	if (!f)
		return NULL;
	if (fseek(f, 0, SEEK_END) < 0 || (n = ftell(f)) < 0 || fseek(f, 0, SEEK_SET) < 0 ||
	    !(buf = malloc((size_t)n + 1))) {
		fclose(f);
		return NULL;
	}
	if (fread(buf, 1, (size_t)n, f) != (size_t)n) {
		free(buf);
		fclose(f);
		return NULL;
	}
	buf[n] = '\0';
	fclose(f);
	return buf;
}

/* The documented fields, in order: lines "N. `name`" between the markers. */
static int
doc_fields(const char *text, char names[][32], int max)
{
	const char *p = strstr(text, "<!-- signed-decision-fields: begin -->");
	const char *end = strstr(text, "<!-- signed-decision-fields: end -->");
	int n = 0, num;
	char name[32];

	if (!p || !end)
		return -1;
	while ((p = strchr(p, '\n')) && p < end) {
		p++;
		if (sscanf(p, "%d. `%31[a-z_]`", &num, name) == 2) {
			if (n >= max || num != n + 1)
				return -1;
			snprintf(names[n++], 32, "%s", name);
		}
	}
	return n;
}

/* Splits a signed message into its length-prefixed parts (after the tag). */
static int
parts(const unsigned char *m, size_t len, const unsigned char **ptr, size_t *plen, int max)
{
	static const char tag[] = "sbx-decision-v1";
	size_t off = sizeof(tag), n;
	int k = 0;

	if (len < sizeof(tag) || memcmp(m, tag, sizeof(tag)) != 0)
		return -1;
	while (off < len) {
		if (off + 4 > len || k >= max)
			return -1;
		n = (size_t)m[off] << 24 | (size_t)m[off + 1] << 16 | (size_t)m[off + 2] << 8 |
		    m[off + 3];
		off += 4;
		if (off + n > len)
			return -1;
		ptr[k] = m + off;
		plen[k++] = n;
		off += n;
	}
	return k;
}

/* Changes one value so that it still parses. */
static void
mutate(cJSON *o, const char *key)
{
	cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
	char buf[1100];
	const char *s;

	if (cJSON_IsBool(v)) {
		cJSON_ReplaceItemInObjectCaseSensitive(o, key, cJSON_CreateBool(!cJSON_IsTrue(v)));
	} else if (cJSON_IsNumber(v)) {
		cJSON_ReplaceItemInObjectCaseSensitive(o, key,
		    cJSON_CreateNumber(v->valuedouble + 1));
	} else if (cJSON_IsString(v)) {
		s = v->valuestring;
		if (!strcmp(s, "approve"))
			s = "deny";
		else if (!strcmp(s, "exact"))
			s = "prefix";
		else if (strspn(s, "0123456789abcdef") == strlen(s) && s[0]) {
			snprintf(buf, sizeof(buf), "%s", s);
			buf[0] = buf[0] == '0' ? '1' : '0';
			s = buf;
		} else {
			snprintf(buf, sizeof(buf), "%sx", s);
			s = buf;
		}
		cJSON_ReplaceItemInObjectCaseSensitive(o, key, cJSON_CreateString(s));
	}
}

int
main(void)
{
	char names[MAX_FIELDS][32], *text, *doc, *mt;
	const unsigned char *p0[MAX_FIELDS], *p1[MAX_FIELDS];
	size_t l0[MAX_FIELDS], l1[MAX_FIELDS], len0, len1;
	unsigned char *m0, *m1;
	struct decision d, e;
	struct sbx_err err;
	cJSON *root, *o, *v;
	int nd, n0, n1, k, i, changed, signed_keys = 0, listed;

	text = read_file("docs/QUEUE.md");
	if (!text) {
		printf("Bail out! docs/QUEUE.md not found (run from the repository root)\n");
		return 1;
	}
	nd = doc_fields(text, names, MAX_FIELDS);
	ok(nd > 0, "docs/QUEUE.md lists the signed decision fields (%d)", nd);
	if (nd <= 0)
		return tap_done();

	memset(&d, 0, sizeof(d));
	snprintf(d.id, sizeof(d.id), "0123456789abcdef");
	memset(d.hash, 0x5a, sizeof(d.hash));
	snprintf(d.verdict, sizeof(d.verdict), "approve");
	d.remember = 1;
	snprintf(d.scope, sizeof(d.scope), "exact");
	snprintf(d.prefix, sizeof(d.prefix), "git push");
	d.rule_expires = 1764409999;
	d.rule_id = 7;
	snprintf(d.reason, sizeof(d.reason), "fine");
	snprintf(d.approver, sizeof(d.approver), "alice");
	snprintf(d.key_id, sizeof(d.key_id), "89abcdef01234567");
	d.created = 1764400000;
	d.expires = 1764401800;
	snprintf(d.nonce, sizeof(d.nonce), "%s", "00112233445566778899aabbccddeeff");
	doc = decision_to_json(&d);
	ok(doc && decision_from_json(doc, strlen(doc), &e, &err) == 0,
	    "a decision document round-trips");
	if (!doc || decision_message(&e, &m0, &len0) < 0)
		return tap_done();
	n0 = parts(m0, len0, p0, l0, MAX_FIELDS);
	is_int(n0, nd, "the code signs as many fields as docs/QUEUE.md lists");

	root = cJSON_Parse(doc);
	for (v = root ? root->child : NULL; v; v = v->next) {
		const char *key = v->string;

		if (!strcmp(key, "v") || !strcmp(key, "sig"))
			continue;
		o = cJSON_Duplicate(root, 1);
		mutate(o, key);
		mt = json_print_line(o);
		cJSON_Delete(o);
		if (!mt || decision_from_json(mt, strlen(mt), &e, &err) < 0 ||
		    decision_message(&e, &m1, &len1) < 0) {
			ok(0, "\"%s\" changed still parses: %s", key, err.msg);
			free(mt);
			continue;
		}
		free(mt);
		n1 = parts(m1, len1, p1, l1, MAX_FIELDS);
		changed = -1;
		for (k = 0; k < n0 && k < n1; k++)
			if (l0[k] != l1[k] || memcmp(p0[k], p1[k], l0[k]) != 0) {
				changed = k;
				break;
			}
		free(m1);
		for (listed = -1, i = 0; i < nd; i++)
			if (!strcmp(names[i], key))
				listed = i;
		if (changed >= 0)
			signed_keys++;
		if (listed < 0)
			ok(changed < 0, "\"%s\" is signed only if docs/QUEUE.md lists it "
			    "(signed as part %d)", key, changed + 1);
		else
			is_int(changed, listed, "\"%s\" is signed as part %d, as documented",
			    key, listed + 1);
	}
	is_int(signed_keys, nd, "every documented field is a key of the decision document");
	for (i = 0; i < nd; i++)
		ok(root && cJSON_GetObjectItemCaseSensitive(root, names[i]),
		    "documented field \"%s\" is in the decision document", names[i]);
	cJSON_Delete(root);
	free(m0);
	free(doc);
	free(text);
	return tap_done();
}
