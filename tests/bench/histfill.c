/*
 * histfill - pre-fills a folder's history for the scale benchmark by
 * cloning one real, finished request N times:
 *
 *   histfill FOLDER CONFIG ID N
 *
 * For each clone (a fresh id with the template's hash prefix) it writes
 * what sbxd leaves behind for a delivered request: the state.db row (one
 * transaction per 1000), done/NEW.json, results/NEW.{json,stdout,stderr}
 * (the template's bytes), and the template's audit records again, through
 * the real writer (daemon/audit.c, group commit every 64 records), with
 * the daemon's key from CONFIG. sbxd must be stopped while it runs (it is
 * the single writer). The round trips the benchmark measures afterwards
 * are real; only the history behind them is cloned, to reach 100k
 * requests within minutes.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <sodium.h>

#include "common/store/db.h"
#include "daemon/audit.c"

struct rec {
	char event[32], actor[64], session[128];
	int has_session;
	cJSON *data;
};

static int
copy_file(int sbfd, const char *from, const char *to, const char *old, const char *new)
{
	size_t len;
	char *buf = read_daemon_file(sbfd, from, 1 << 20, &len, NULL), *p;
	int fd, rc;

	if (!buf)
		return -1;
	for (p = buf; (p = memmem(p, len - (size_t)(p - buf), old, 16)); p += 16)
		memcpy(p, new, 16);
	fd = openat(sbfd, to, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	rc = fd >= 0 && write_all(fd, buf, len) == 0 ? 0 : -1;
	if (fd >= 0)
		close(fd);
	free(buf);
	return rc;
}

/* The template's records: every line of SEG naming it as its request. */
static int
load_records(int sbfd, const char *seg, const char *id, struct rec *r, int max)
{
	char *buf, *p, *nl;
	const char *s;
	size_t len;
	cJSON *doc;
	int n = 0;

	if (!(buf = read_daemon_file(sbfd, seg, 1L << 30, &len, NULL)))
		return -1;
	for (p = buf; p < buf + len && (nl = memchr(p, '\n', (size_t)(buf + len - p)));
	    p = nl + 1) {
		if (!(doc = cJSON_ParseWithLength(p, (size_t)(nl - p))))
			continue;
		if ((s = json_str(doc, "request")) && !strcmp(s, id) && n < max) {
			snprintf(r[n].event, sizeof(r[n].event), "%s", json_str(doc, "event"));
			snprintf(r[n].actor, sizeof(r[n].actor), "%s", json_str(doc, "actor"));
			r[n].has_session = (s = json_str(doc, "session")) != NULL;
			snprintf(r[n].session, sizeof(r[n].session), "%s", s ? s : "");
			r[n].data = cJSON_DetachItemFromObjectCaseSensitive(doc, "data");
			n++;
		}
		cJSON_Delete(doc);
	}
	free(buf);
	return n;
}

int
main(int argc, char **argv)
{
	static const char *const ext[] = { "json", "stdout", "stderr" };
	char from[128], to[128], nid[17], sql[512];
	unsigned char rnd[4];
	struct audit_opts o = { 0 };
	struct audit_key key;
	struct sbx_err err;
	struct rec recs[16];
	struct audit *a;
	sqlite3 *db;
	const char *id;
	long n, i;
	int sbfd, nrec, k, since_sync = 0;

	if (argc != 5 || !valid_id(argv[3]) || (n = atol(argv[4])) < 1 || sodium_init() < 0) {
		fprintf(stderr, "usage: histfill FOLDER CONFIG ID N\n");
		return 2;
	}
	id = argv[3];
	if ((sbfd = sandbox_open(argv[1], &err)) < 0 || !(db = db_open(argv[1], 1, &err)) ||
	    audit_key_load(argv[2], &key, &err) < 0 ||
	    !(a = audit_open(sbfd, db, &key, &o, &err))) {
		fprintf(stderr, "histfill: %s\n", err.msg);
		return 1;
	}
	/* The template is an early request: in the first segment, if any. */
	if ((nrec = load_records(sbfd, "audit.000001.jsonl", id, recs, 16)) < 1 &&
	    (nrec = load_records(sbfd, "audit.jsonl", id, recs, 16)) < 1) {
		fprintf(stderr, "histfill: no audit records for %s\n", id);
		return 1;
	}
	sqlite3_exec(db, "BEGIN", NULL, NULL, NULL);
	for (i = 0; i < n; i++) {
		randombytes_buf(rnd, sizeof(rnd));
		memcpy(nid, id, 8);
		hex_encode(nid + 8, rnd, 4);
		/* An hour earlier than the template: history, not requests of
		 * the last minute (max_per_minute counts those). */
		snprintf(sql, sizeof(sql), "INSERT INTO requests SELECT '%s', hash, tool, command,"
		    " input, cwd, session, agent, trigger, rule, reason, created - 3600,"
		    " expires - 3600, status, approver, key_id, auto, decided - 3600, deny_reason,"
		    " started - 3600, finished - 3600, exit_code, signal, duration_ms,"
		    " approvals_needed FROM requests WHERE id = '%s'", nid, id);
		if (sqlite3_exec(db, sql, NULL, NULL, NULL) != SQLITE_OK) {
			i--;            /* an id collision: draw again */
			continue;
		}
		snprintf(from, sizeof(from), "done/%s.json", id);
		snprintf(to, sizeof(to), "done/%s.json", nid);
		if (copy_file(sbfd, from, to, id, nid) < 0)
			return 1;
		for (k = 0; k < 3; k++) {
			snprintf(from, sizeof(from), "results/%s.%s", id, ext[k]);
			snprintf(to, sizeof(to), "results/%s.%s", nid, ext[k]);
			if (copy_file(sbfd, from, to, id, nid) < 0)
				return 1;
		}
		for (k = 0; k < nrec; k++)
			audit_append(a, recs[k].event, nid, recs[k].has_session ? recs[k].session
			    : NULL, recs[k].actor, cJSON_Duplicate(recs[k].data, 1));
		if ((since_sync += nrec) >= 64) {
			audit_sync(a);
			since_sync = 0;
		}
		if (i % 1000 == 999) {
			sqlite3_exec(db, "COMMIT", NULL, NULL, NULL);
			sqlite3_exec(db, "BEGIN", NULL, NULL, NULL);
		}
	}
	sqlite3_exec(db, "COMMIT", NULL, NULL, NULL);
	audit_close(a);
	for (k = 0; k < nrec; k++)
		cJSON_Delete(recs[k].data);
	db_close(db);
	close(sbfd);
	audit_key_wipe(&key);
	return 0;
}
