/*
 * rechain - test tool: what an attacker without the daemon's key can do
 * to an audit log. Reads a log on stdin, optionally edits it, and writes
 * it back with every record's hash recomputed so that the chain links
 * again (it cannot sign anything).
 *
 *   rechain [--replace OLD NEW] [--drop-checkpoints] < log > forged
 *
 * --replace edits the text of every record's data; --drop-checkpoints
 * removes checkpoint records (they would not verify) and renumbers.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sodium.h>

#include "common/audit/audit_record.h"
#include "common/base/json.h"
#include "common/base/util.h"

static char *
replace_all(const char *s, const char *old, const char *new)
{
	size_t n = 0, lo = strlen(old), ln = strlen(new);
	const char *p;
	char *out, *o;

	for (p = s; (p = strstr(p, old)); p += lo)
		n++;
	if (!(out = malloc(strlen(s) + n * (ln > lo ? ln - lo : 0) + 1)))
		return NULL;
	for (o = out; (p = strstr(s, old)); s = p + lo) {
		memcpy(o, s, (size_t)(p - s));
		o += p - s;
		memcpy(o, new, ln);
		o += ln;
	}
	strcpy(o, s);
	return out;
}

int
main(int argc, char **argv)
{
	unsigned char prev[32] = { 0 }, hash[32];
	const char *old = NULL, *new = NULL;
	char *text, *line, *save, *edited, *out;
	int i, drop = 0;
	int64_t seq = 0, t;
	size_t len;
	cJSON *doc;

	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--replace") && i + 2 < argc) {
			old = argv[++i];
			new = argv[++i];
		} else if (!strcmp(argv[i], "--drop-checkpoints")) {
			drop = 1;
		} else {
			fprintf(stderr, "usage: rechain [--replace OLD NEW] [--drop-checkpoints]\n");
			return 2;
		}
	}
	if (sodium_init() < 0 || !(text = fd_read_all(0, 1 << 30, &len)))
		return 1;
	for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		edited = old ? replace_all(line, old, new) : strdup(line);
		doc = edited ? cJSON_Parse(edited) : NULL;
		if (!doc || json_int(doc, "time", &t) < 0) {
			fprintf(stderr, "rechain: cannot parse a record\n");
			return 1;
		}
		if (drop && !strcmp(json_str(doc, "event"), "checkpoint")) {
			cJSON_Delete(doc);
			free(edited);
			continue;
		}
		out = audit_record_encode(++seq, t, prev, json_str(doc, "event"),
		    json_str(doc, "request"), json_str(doc, "session"), json_str(doc, "actor"),
		    cJSON_GetObjectItemCaseSensitive(doc, "data"), hash, &len);
		if (!out)
			return 1;
		fwrite(out, 1, len, stdout);
		memcpy(prev, hash, 32);
		free(out);
		cJSON_Delete(doc);
		free(edited);
	}
	free(text);
	return 0;
}
