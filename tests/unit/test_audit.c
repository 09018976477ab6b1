/*
 * test_audit.c - unit tests for the audit record encoding and chain
 * verification (common/audit/audit_record.c) and the writer (daemon/audit.c,
 * included to run it against a real state.db in a temporary folder).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <sodium.h>

#include "common/audit/audit_record.h"
#include "common/store/db.h"
#include "daemon/audit.c"
#include "tests/tap.h"

static struct audit_key key;

/* A log of n records (with a checkpoint record after each k-th), and the
 * signed head over its last record. Caller frees. */
static char *
make_log(int n, int k, struct audit_checkpoint *head, size_t *total)
{
	unsigned char prev[32] = { 0 }, hash[32], *msg;
	char *all = NULL, *line, *np;
	size_t len, mlen, t = 0;
	int64_t seq = 0;
	cJSON *d;
	int i;

	for (i = 0; i < n; i++) {
		d = cJSON_CreateObject();
		if ((i + 1) % k == 0 && seq > 0) {
			struct audit_checkpoint c = { .seq = seq, .time = 1000 + seq };

			memcpy(c.hash, prev, 32);
			memcpy(c.key_id, key.key_id, 17);
			audit_checkpoint_message(&c, &msg, &mlen);
			crypto_sign_detached(c.sig, NULL, msg, mlen, key.sk);
			free(msg);
			audit_checkpoint_to_json(&c, d);
			seq++;
			line = audit_record_encode(seq, 1000 + seq, prev, "checkpoint", NULL, NULL,
			    "daemon", d, hash, &len);
		} else {
			cJSON_AddNumberToObject(d, "i", i);
			cJSON_AddStringToObject(d, "s", "x\"y\n");
			seq++;
			line = audit_record_encode(seq, 1000 + seq, prev, "thing", "0123456789abcdef",
			    i % 2 ? "sess" : NULL, "daemon", d, hash, &len);
		}
		cJSON_Delete(d);
		np = realloc(all, t + len + 1);
		all = np;
		memcpy(all + t, line, len);
		t += len;
		all[t] = '\0';
		free(line);
		memcpy(prev, hash, 32);
	}
	memset(head, 0, sizeof(*head));
	head->seq = seq;
	head->time = 5000;
	memcpy(head->hash, prev, 32);
	memcpy(head->key_id, key.key_id, 17);
	audit_checkpoint_message(head, &msg, &mlen);
	crypto_sign_detached(head->sig, NULL, msg, mlen, key.sk);
	free(msg);
	*total = t;
	return all;
}

static int
verify_buf(const char *buf, size_t len, const struct audit_checkpoint *head,
    struct audit_report *r)
{
	struct audit_seg s = { "audit.jsonl", buf, len };

	return audit_verify(&s, 1, key.pk, head, r);
}

static void
test_encoding(void)
{
	unsigned char prev[32] = { 0 }, h1[32], h2[32];
	cJSON *a = cJSON_Parse("{\"b\":1,\"a\":[true,null,\"\\u0001\"]}");
	cJSON *b = cJSON_Parse("{ \"a\" : [true, null, \"\\u0001\"], \"b\" : 1 }");
	struct audit_line l;
	const char *why, *want;
	size_t n1, n2;
	char *l1 = audit_record_encode(7, 123, prev, "request_received", "0123456789abcdef",
	    NULL, "hook", a, h1, &n1);
	char *l2 = audit_record_encode(7, 123, prev, "request_received", "0123456789abcdef",
	    NULL, "hook", b, h2, &n2);

	ok(l1 && l2 && n1 == n2 && memcmp(l1, l2, n1) == 0 && memcmp(h1, h2, 32) == 0,
	    "the same record in another key order encodes to the same bytes");
	want = "{\"seq\":7,\"time\":123,\"prev\":\"0000000000000000000000000000000000000000"
	    "000000000000000000000000\",\"event\":\"request_received\",\"request\":"
	    "\"0123456789abcdef\",\"session\":null,\"actor\":\"hook\",\"data\":{\"a\":[true,null,"
	    "\"\\u0001\"],\"b\":1},\"hash\":\"";
	ok(l1 && strncmp(l1, want, strlen(want)) == 0 && n1 == strlen(want) + 64 + 3,
	    "the line layout is fixed");
	is_int(audit_line_check(l1, n1 - 1, &l, &why), 0, "a line checks");
	is_int(l.seq, 7, "its seq is read back");
	is_str(l.event, "request_received", "its event is read back");
	l1[40] = 'x';
	is_int(audit_line_check(l1, n1 - 1, &l, &why), -1, "a broken layout is malformed");
	l1[40] = '0';
	l1[n1 - 90] ^= 1;
	is_int(audit_line_check(l1, n1 - 1, &l, &why), 1, "one flipped bit fails the hash");
	ok(!audit_record_encode(1, 1, prev, "Bad-Event", NULL, NULL, "x", a, h1, &n1),
	    "event names are [a-z_]");
	free(l1);
	free(l2);
	cJSON_Delete(a);
	cJSON_Delete(b);
	{
		int n = 0;

		ok(audit_segment_number("audit.000042.jsonl", &n) && n == 42, "segment names");
		ok(!audit_segment_number("audit.+00042.jsonl", &n) &&
		    !audit_segment_number("audit.000000.jsonl", &n) &&
		    !audit_segment_number("audit.00042.jsonl", &n) &&
		    !audit_segment_number("audit.000042.jsonl.tmp", &n),
		    "only six digits, from 1, make a segment name");
	}
}

static void
test_verify(void)
{
	struct audit_checkpoint head, bad;
	struct audit_report r;
	size_t len;
	char *log = make_log(40, 10, &head, &len), *copy, *p;

	is_int(verify_buf(log, len, &head, &r), 0, "an intact log verifies");
	is_int(r.records, 40, "all records counted");
	is_int(r.checkpoints, 4, "checkpoint records verified");
	/* Alter one byte in record 15's data. */
	copy = strdup(log);
	p = strstr(copy, "{\"seq\":15,");
	p = strstr(p, "\"i\":") + 4;
	*p = *p == '9' ? '8' : '9';
	is_int(verify_buf(copy, len, &head, &r), -1, "an altered record fails");
	is_str(r.kind, "altered", "as altered");
	is_int(r.seq, 15, "at record 15");
	is_int(r.line, 15, "line 15");
	free(copy);
	/* Truncated: drop the last 5 lines. */
	for (p = log + len - 1; p > log && *(p - 1) != '\n'; p--)
		;
	copy = strndup(log, (size_t)(p - log));
	is_int(verify_buf(copy, strlen(copy), &head, &r), -1, "a cut-off tail fails");
	is_str(r.kind, "truncated", "as truncated");
	free(copy);
	/* A head signed by another key. */
	bad = head;
	bad.sig[0] ^= 1;
	is_int(verify_buf(log, len, &bad, &r), -1, "a bad head signature fails");
	is_str(r.kind, "bad-checkpoint", "as a bad checkpoint");
	bad = head;
	bad.hash[0] ^= 1;
	is_int(verify_buf(log, len, &bad, &r), -1, "a head that differs from the log fails");
	is_int(verify_buf(log, len, NULL, &r), -1, "without a signed head verification fails");
	is_str(r.kind, "no-checkpoint", "as no-checkpoint");
	free(log);
}

static void
test_writer(void)
{
	char dir[] = "/tmp/sbx-unit-audit.XXXXXX", path[256];
	struct audit_opts o = { .segment_bytes = 4096 };
	struct audit_checkpoint head;
	struct sbx_err err;
	struct audit *a;
	sqlite3 *db;
	int sbfd, i;

	ok(mkdtemp(dir) != NULL, "temp folder");
	snprintf(path, sizeof(path), "%s/.sandbox", dir);
	mkdir(path, 0700);
	sbfd = sandbox_open(dir, &err);
	db = db_open(dir, 1, &err);
	a = audit_open(sbfd, db, &key, &o, &err);
	ok(a != NULL, "a new log opens");
	for (i = 0; i < 50; i++)
		audit_log(a, "thing", NULL, NULL, "daemon", AU_I("i", (int64_t)i),
		    AU_S("password", "hunter2"), AU_END);
	audit_close(a);
	is_int(store_audit_head(db, &head), 1, "closing stores a signed head");
	ok(last_segment(sbfd) >= 2, "the log rotated (%d segments)", last_segment(sbfd));
	a = audit_open(sbfd, db, &key, &o, &err);
	ok(a && audit_seq(a) == head.seq + 1, "reopening continues after the checkpoint record");
	audit_log(a, "thing", NULL, NULL, "daemon", AU_END);
	audit_close(a);
	/* Cut the active segment: the writer refuses to continue. */
	ok(truncate(strcat(path, "/audit.jsonl"), 0) == 0, "cut the active segment");
	{
		/* An empty active segment falls back to the last closed one, which
		 * ends before the head. */
		a = audit_open(sbfd, db, &key, &o, &err);
		ok(a == NULL, "sbxd refuses a log that ends before its signed head");
		ok(strstr(err.msg, "does not match its last signed head") != NULL, "and says why");
		audit_close(a);
	}
	db_close(db);
	close(sbfd);
	snprintf(path, sizeof(path), "rm -rf %s", dir);
	ok(system(path) == 0, "cleanup");
}

/* Opens the log of dir's .sandbox resuming at t (st: audit.jsonl as it
 * was left); *used says whether the tail was taken. */
static struct audit *
resume(int sbfd, sqlite3 *db, const struct audit_tail *t, const struct stat *st, int *used,
    char *why, size_t whysz)
{
	struct audit_resume r = { .tail = t, .st = st };
	struct sbx_err err;
	struct audit *a = audit_open_resume(sbfd, db, &key, NULL, &r, &err);

	*used = r.used;
	snprintf(why, whysz, "%.190s", a ? r.why : err.msg);
	return a;
}

/* The whole active segment and the signed head verify. */
static int
log_verifies(int sbfd, sqlite3 *db)
{
	struct audit_checkpoint head;
	struct audit_report r;
	size_t len;
	char *buf = read_daemon_file(sbfd, "audit.jsonl", 1L << 24, &len, NULL);
	int rc = buf && store_audit_head(db, &head) == 1 ? verify_buf(buf, len, &head, &r) : -1;

	free(buf);
	return rc;
}

/* Appends the text of the file's line n (1-based) at its end. */
static void
dup_line(const char *file, int n)
{
	char cmd[2000];

	snprintf(cmd, sizeof(cmd), "sed -n %dp %s >> %s.x && cat %s.x >> %s && rm %s.x", n,
	    file, file, file, file, file);
	if (system(cmd) != 0)
		fprintf(stderr, "%s failed\n", cmd);
}

/*
 * audit_open_resume: the tail sbxd records when it leaves a log idle is
 * taken (no read of the segment) only when the file is that one, state.db
 * holds that head, the segments are those and the bytes from the head's
 * line to the end are exactly those records; anything else reads the log
 * in full, whose checks decide as before.
 */
static void
test_resume(void)
{
	char dir[] = "/tmp/sbx-unit-resume.XXXXXX", path[256], file[300], why[200];
	struct audit_tail t, t2;
	struct audit_checkpoint head;
	struct sbx_err err;
	struct stat st, st2;
	struct audit *a;
	sqlite3 *db;
	int sbfd, i, used, fd;
	int64_t seq;

	ok(mkdtemp(dir) != NULL, "resume: temp folder");
	snprintf(path, sizeof(path), "%s/.sandbox", dir);
	mkdir(path, 0700);
	snprintf(file, sizeof(file), "%s/audit.jsonl", path);
	sbfd = sandbox_open(dir, &err);
	db = db_open(dir, 1, &err);
	a = audit_open(sbfd, db, &key, NULL, &err);
	is_int(audit_tail(a, &t), -1, "a new log has no tail to record (nothing signed yet)");
	for (i = 0; i < 30; i++)
		audit_log(a, "thing", NULL, NULL, "daemon", AU_I("i", (int64_t)i), AU_END);
	audit_intent(a, "decision", "0123456789abcdef", NULL, "daemon", AU_S("v", "x"),
	    AU_END);
	audit_intents_flush(a);
	is_int(audit_tail(a, &t), -1, "records not yet synced and signed: no tail");
	audit_settle(a);
	intents_purge(a);
	is_int(audit_tail(a, &t), 0, "settled (synced, signed, intents gone): a tail");
	ok(t.seq == audit_seq(a) && t.head_seq == t.seq - 1 && t.intents >= 1 && t.head_off > 0,
	    "... the last record (a checkpoint) follows the signed head; the intent is counted");
	audit_close(a);
	stat(file, &st);
	is_int((long long)t.size, (long long)st.st_size, "... and the size is the file's");

	a = resume(sbfd, db, &t, &st, &used, why, sizeof(why));
	ok(a && used, "resumed at the recorded tail (%s)", why);
	ok(a && audit_seq(a) == t.seq && a->intent_appended == t.intents &&
	    a->off_prev == t.head_off, "... at its seq, intents and offsets");
	audit_log(a, "after", NULL, NULL, "daemon", AU_END);
	audit_settle(a);
	intents_purge(a);
	is_int(audit_tail(a, &t), 0, "... a tail again after more records");
	audit_close(a);
	is_int(log_verifies(sbfd, db), 0, "the log written on from the tail verifies");
	stat(file, &st);

	/* The record's tail differs from the file (a forged record). */
	t2 = t;
	t2.seq++;
	a = resume(sbfd, db, &t2, &st, &used, why, sizeof(why));
	ok(a && !used && strstr(why, "last record"), "another last seq: read in full (%s)", why);
	audit_close(a);
	stat(file, &st);    /* nothing written: the same */
	t2 = t;
	t2.head_off += 3;
	a = resume(sbfd, db, &t2, &st, &used, why, sizeof(why));
	ok(a && !used, "the head's line elsewhere: read in full (%s)", why);
	audit_close(a);
	t2 = t;
	t2.hash[5] ^= 1;
	a = resume(sbfd, db, &t2, &st, &used, why, sizeof(why));
	ok(a && !used, "another last hash: read in full (%s)", why);
	audit_close(a);
	t2 = t;
	t2.head_hash[0] ^= 1;
	a = resume(sbfd, db, &t2, &st, &used, why, sizeof(why));
	ok(a && !used && strstr(why, "signed head"), "another head: read in full (%s)", why);
	audit_close(a);

	/* A record appended (a copy of the last one) after sbxd left it. */
	seq = t.seq;
	dup_line(file, (int)seq);
	a = resume(sbfd, db, &t, &st, &used, why, sizeof(why));
	ok(a && !used && strstr(why, "not the file"), "a line appended: the file differs "
	    "(%s); the full open decides", why);
	audit_close(a);
	/* ... and a forger's record describing the file as it is now. */
	stat(file, &st2);
	t2 = t;
	t2.size = st2.st_size;
	a = resume(sbfd, db, &t2, &st2, &used, why, sizeof(why));
	ok(a && !used, "... with the record made to fit its size: not resumed (%s)", why);
	ok(a && audit_seq(a) == seq, "... the full open takes the copy (same seq) as the last "
	    "record, as before");
	audit_log(a, "after_forged", NULL, NULL, "daemon", AU_END);
	audit_close(a);
	is_int(log_verifies(sbfd, db), -1, "... and `sbx audit verify` finds the copy");

	/* A fresh log, then cut before its signed head (and the record
	 * made to fit): the full open refuses it. */
	snprintf(path, sizeof(path), "rm -f %s/.sandbox/audit*.jsonl", dir);
	ok(system(path) == 0 && sqlite3_exec(db, "DELETE FROM audit_head", NULL, NULL, NULL) ==
	    SQLITE_OK, "a new log");
	a = audit_open(sbfd, db, &key, NULL, &err);
	for (i = 0; i < 10; i++)
		audit_log(a, "thing", NULL, NULL, "daemon", AU_I("i", (int64_t)i), AU_END);
	audit_settle(a);
	is_int(audit_tail(a, &t), 0, "its tail");
	audit_close(a);
	stat(file, &st);
	a = resume(sbfd, db, &t, &st, &used, why, sizeof(why));
	ok(a && used, "resumed");
	audit_close(a);
	stat(file, &st);
	ok(truncate(file, t.head_off) == 0, "cut the head's record and what follows");
	stat(file, &st2);
	t2 = t;
	t2.size = st2.st_size;
	a = resume(sbfd, db, &t2, &st2, &used, why, sizeof(why));
	ok(!a && strstr(why, "ends before it"), "the record made to fit: refused by the full "
	    "open (%s)", why);
	audit_close(a);

	/* Back to an intact log: another segment appears, or the head in
	 * state.db is another. */
	snprintf(path, sizeof(path), "rm -f %s/.sandbox/audit*.jsonl", dir);
	ok(system(path) == 0 && sqlite3_exec(db, "DELETE FROM audit_head", NULL, NULL, NULL) ==
	    SQLITE_OK, "a new log");
	a = audit_open(sbfd, db, &key, NULL, &err);
	audit_log(a, "thing", NULL, NULL, "daemon", AU_END);
	audit_settle(a);
	audit_tail(a, &t);
	audit_close(a);
	stat(file, &st);
	fd = openat(sbfd, "audit.000001.jsonl", O_WRONLY | O_CREAT | O_EXCL, 0600);
	if (fd >= 0)
		close(fd);
	a = resume(sbfd, db, &t, &st, &used, why, sizeof(why));
	ok(a && !used && strstr(why, "segments"), "a segment added: read in full (%s)", why);
	audit_close(a);
	unlinkat(sbfd, "audit.000001.jsonl", 0);
	stat(file, &st);
	is_int(store_audit_head(db, &head), 1, "(the head)");
	head.seq--;
	store_audit_head_set(db, &head);
	a = resume(sbfd, db, &t, &st, &used, why, sizeof(why));
	ok(!used, "state.db holding another head: not resumed (%s)", why);
	audit_close(a);

	/* Just after a rotation: the head is the new segment's first record
	 * (its line at offset 0), its checkpoint the second. */
	{
		struct audit_opts so = { .segment_bytes = 4096 };
		int seg0;

		snprintf(path, sizeof(path), "rm -f %s/.sandbox/audit*.jsonl", dir);
		ok(system(path) == 0 && sqlite3_exec(db, "DELETE FROM audit_head", NULL, NULL,
		    NULL) == SQLITE_OK, "a new log, 4 KiB segments");
		a = audit_open(sbfd, db, &key, &so, &err);
		seg0 = a ? a->seg_no : -1;
		for (i = 0; a && i < 1000 && a->seg_no == seg0; i++)
			audit_log(a, "thing", NULL, NULL, "daemon", AU_I("i", (int64_t)i), AU_END);
		audit_settle(a);
		is_int(audit_tail(a, &t), 0, "rotated, then settled: a tail");
		is_int((long long)t.head_off, 0, "... the head's line starts the segment");
		audit_close(a);
		stat(file, &st);
		{
			struct audit_resume r = { .tail = &t, .st = &st };

			a = audit_open_resume(sbfd, db, &key, &so, &r, &err);
			ok(a && r.used, "... and it is resumed (%s)", r.why);
		}
		audit_log(a, "after", NULL, NULL, "daemon", AU_END);
		audit_close(a);
	}

	db_close(db);
	close(sbfd);
	snprintf(path, sizeof(path), "rm -rf %s", dir);
	ok(system(path) == 0, "resume: cleanup");
}

int
main(void)
{
	if (sodium_init() < 0)
		return 1;
	crypto_sign_keypair(key.pk, key.sk);
	key_id_of(key.pk, key.key_id);
	test_encoding();
	test_verify();
	test_writer();
	test_resume();
	return tap_done();
}
