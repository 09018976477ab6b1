/*
 * audit.c - the audit log writer; see audit.h and docs/AUDIT.md.
 *
 * Rules:
 * - MUST be the only code that writes .sandbox/audit*.jsonl, and only
 *   by appending (O_APPEND); segments are renamed, never rewritten.
 * - MUST redact every string before it is encoded.
 * - MUST fdatasync the log before the head it reaches is signed and
 *   stored, so a signed head never covers a record that is not on disk.
 * - MUST refuse to continue a log whose tail disagrees with the signed
 *   head in state.db: continuing would sign over the damage.
 * - MUST keep the secret key 0600 and wipe it after use.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <sodium.h>

#include "common/audit/audit_record.h"
#include "common/base/json.h"
#include "common/protocol/queue.h"
#include "common/redact/redact.h"
#include "common/store/store.h"
#include "daemon/audit.h"
#include "common/store/audit_index.h"

#define ACTIVE "audit.jsonl"

struct audit {
	int sbfd, fd;
	sqlite3 *db;
	const struct audit_key *key;
	long segment_bytes;
	int checkpoint_every;
	int64_t seq;
	unsigned char prev[AUDIT_HASH_LEN];
	int64_t size;               /* of the active segment */
	/* Where the last two lines of the active segment start (-1: not
	 * known): the tail's line of the signed head (audit_tail). */
	int64_t off_last, off_prev;
	int seg_no;                 /* highest rotated segment number */
	int dirty;                  /* written, not yet synced */
	int since_ckpt;             /* records after the last checkpoint */
	int64_t last_ckpt_ms;
	int in_rotate;
	int broken;                 /* a torn write could not be undone: append no more */
	int replaying;              /* writing intents left by an earlier run */
	/* Intents (audit_intent): the highest id appended to the log, known
	 * durable (synced), and deleted from state.db. */
	int64_t intent_appended, intent_synced, intent_deleted;
	int64_t last_purge_ms;
	int64_t failures;           /* records that could not be written */
	unsigned char policy[32];
	int policy_known;
	struct audit_index *idx;    /* request -> records, in state.db (a cache) */
	/* The signed head this process last read from or stored in state.db:
	 * a database reopened later must hold exactly it (audit_attach). */
	int64_t head_seq;           /* -1: none */
	unsigned char head_hash[AUDIT_HASH_LEN];
	/* A record held back until the first other one (audit_defer). */
	char *def_event;
	cJSON *def_data;
};

static const char key_magic[] = "sbx-daemon-key-v1";

static void intents_purge(struct audit *a);
static int64_t intents_in_log(const char *buf, size_t len);
static struct audit *audit_open_rest(struct audit *a, sqlite3 *db, int sbfd, int64_t torn,
    struct sbx_err *err);

void
audit_key_wipe(struct audit_key *k)
{
	sodium_memzero(k, sizeof(*k));
}

static int
key_parse(const char *text, struct audit_key *k)
{
	char pkhex[65], skhex[129];
	int rc = -1;

	if (sscanf(text, "sbx-daemon-key-v1\npublic %64s\nsecret %128s", pkhex, skhex) == 2 &&
	    hex_decode(k->pk, 32, pkhex) == 0 && hex_decode(k->sk, 64, skhex) == 0)
		rc = 0;
	sodium_memzero(skhex, sizeof(skhex));
	return rc;
}

int
audit_key_load(const char *config, struct audit_key *k, struct sbx_err *err)
{
	char text[512], pkhex[65], skhex[129];
	size_t len;
	char *file = NULL;
	int dfd = -1, fd = -1, rc = -1, n, r;

	memset(k, 0, sizeof(*k));
	if (mkdir_p(config, 0700) < 0 ||
	    (dfd = open(config, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) < 0) {
		err_set(err, "cannot open the config dir %s: %s", config, strerror(errno));
		return -1;
	}
	if ((r = read_private(dfd, config, AUDIT_KEY_FILE, 4096, &file, &len, err)) == 0) {
		if (key_parse(file, k) < 0) {
			err_set(err, "%s/%s is malformed", config, AUDIT_KEY_FILE);
			goto out;
		}
	} else if (r == -1 && errno == ENOENT) {
		crypto_sign_keypair(k->pk, k->sk);
		hex_encode(pkhex, k->pk, 32);
		hex_encode(skhex, k->sk, 64);
		n = snprintf(text, sizeof(text), "%s\npublic %s\nsecret %s\n", key_magic, pkhex,
		    skhex);
		sodium_memzero(skhex, sizeof(skhex));
		fd = openat(dfd, AUDIT_KEY_FILE, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW |
		    O_CLOEXEC, 0600);
		if (fd < 0 || write_all(fd, text, (size_t)n) < 0 || fsync(fd) < 0) {
			err_set(err, "cannot write %s/%s: %s", config, AUDIT_KEY_FILE,
			    strerror(errno));
			goto out;
		}
	} else {
		if (r == -1)
			err_set(err, "cannot open %s/%s: %s", config, AUDIT_KEY_FILE,
			    strerror(errno));
		goto out;
	}
	key_id_of(k->pk, k->key_id);
	/* The public half, for `sbx audit verify` and the hooks: written only
	 * when its text differs, atomically, replacing (never following) a
	 * symlink; a file of the right text is left alone whoever owns it (a
	 * start never rewrites what a hook may be reading). */
	hex_encode(pkhex, k->pk, 32);
	n = snprintf(text, sizeof(text), "%s\n", pkhex);
	free(file);
	file = read_daemon_file(dfd, AUDIT_PUB_FILE, 256, &len, NULL);
	if ((!file || len != (size_t)n || memcmp(file, text, len) != 0) &&
	    write_atomic(dfd, ".", AUDIT_PUB_FILE, text, (size_t)n, 0644, 0) < 0) {
		err_set(err, "cannot write %s/%s: %s", config, AUDIT_PUB_FILE, strerror(errno));
		goto out;
	}
	rc = 0;
out:
	sodium_memzero(text, sizeof(text));
	if (file) {
		sodium_memzero(file, strlen(file));
		free(file);
	}
	if (fd >= 0)
		close(fd);
	close(dfd);
	if (rc < 0)
		audit_key_wipe(k);
	return rc;
}

/* The highest N of .sandbox/audit.NNNNNN.jsonl, 0 when none. */
static int
last_segment(int sbfd)
{
	struct dirent *de;
	int fd, n, best = 0;
	DIR *d;

	if ((fd = dup(sbfd)) < 0 || !(d = fdopendir(fd))) {
		if (fd >= 0)
			close(fd);
		return -1;
	}
	rewinddir(d);
	while ((de = readdir(d)))
		if (audit_segment_number(de->d_name, &n) && n > best)
			best = n;
	closedir(d);
	return best;
}

/*
 * Finds the last record of buf (and, if want >= 0, the record with that
 * seq). Returns 0, or -1 with why. *torn gets the bytes after the last
 * newline.
 */
static int
scan_tail(const char *buf, size_t len, struct audit_line *last, int64_t want,
    struct audit_line *found, size_t *torn, int64_t off[2], const char **why)
{
	const char *p = buf, *end, *nl;
	struct audit_line l;
	int have = 0;

	off[0] = off[1] = -1;

	end = buf + len;
	while (end > buf && end[-1] != '\n')
		end--;
	*torn = (size_t)(buf + len - end);
	found->seq = -1;
	for (; p < end; p = nl + 1) {
		nl = memchr(p, '\n', (size_t)(end - p));
		if (audit_line_check(p, (size_t)(nl - p), &l, why) != 0)
			return -1;
		if (l.seq == want)
			*found = l;
		*last = l;
		off[1] = off[0];
		off[0] = (int64_t)(p - buf);
		have = 1;
	}
	if (!have)
		last->seq = 0;
	return 0;
}

struct audit *
audit_open(int sbfd, sqlite3 *db, const struct audit_key *key,
    const struct audit_opts *o, struct sbx_err *err)
{
	return audit_open_resume(sbfd, db, key, o, NULL, err);
}

/* The same file, unchanged: what db_unchanged compares for state.db. */
static int
file_unchanged(const struct stat *a, const struct stat *b)
{
	return a->st_dev == b->st_dev && a->st_ino == b->st_ino && a->st_size == b->st_size &&
	    a->st_mode == b->st_mode && a->st_uid == b->st_uid && a->st_nlink == b->st_nlink &&
	    a->st_mtim.tv_sec == b->st_mtim.tv_sec && a->st_mtim.tv_nsec == b->st_mtim.tv_nsec &&
	    a->st_ctim.tv_sec == b->st_ctim.tv_sec && a->st_ctim.tv_nsec == b->st_ctim.tv_nsec;
}

#define RESUME_MAX (1L << 20)       /* the tail read to resume, at most */

/*
 * The fast open (audit_open_resume): a->fd is audit.jsonl, st what fstat
 * says of it, head the signed head in state.db. 0 when the recorded tail
 * is exactly what the file ends with; -1 and r->why when anything
 * differs.
 */
static int
resume_tail(struct audit *a, const struct stat *st, int have_head,
    const struct audit_checkpoint *head, struct audit_resume *r)
{
	const struct audit_tail *t = r->tail;
	struct audit_line l, before = { 0 };
	const char *p, *end, *nl, *why;
	int64_t off[2] = { -1, -1 };
	char *buf = NULL;
	ssize_t n;
	size_t want;
	int lines = 0, rc = -1;

	if (!r->st || !file_unchanged(st, r->st)) {
		snprintf(r->why, sizeof(r->why), "audit.jsonl is not the file recorded");
		return -1;
	}
	if (!have_head || head->seq != t->head_seq ||
	    memcmp(head->hash, t->head_hash, AUDIT_HASH_LEN) != 0) {
		snprintf(r->why, sizeof(r->why), "state.db holds another signed head");
		return -1;
	}
	if (a->seg_no != t->seg_no) {
		snprintf(r->why, sizeof(r->why), "the segments are not those recorded");
		return -1;
	}
	if ((int64_t)st->st_size != t->size || t->seq < 1 || t->head_seq > t->seq ||
	    t->head_off < 0 || t->head_off >= t->size || t->size - t->head_off > RESUME_MAX) {
		snprintf(r->why, sizeof(r->why), "the recorded tail does not fit audit.jsonl");
		return -1;
	}
	/* From the byte before the head's line (a newline, unless it is the
	 * first) to the end. */
	want = (size_t)(t->size - t->head_off) + (t->head_off > 0);
	if (!(buf = malloc(want))) {
		snprintf(r->why, sizeof(r->why), "out of memory");
		return -1;
	}
	if ((n = pread(a->fd, buf, want, t->head_off - (t->head_off > 0))) != (ssize_t)want) {
		snprintf(r->why, sizeof(r->why), "cannot read the tail of audit.jsonl");
		goto out;
	}
	p = buf;
	end = buf + want;
	if (t->head_off > 0 && *p++ != '\n') {
		snprintf(r->why, sizeof(r->why), "no record starts where the head's did");
		goto out;
	}
	if (end[-1] != '\n') {
		snprintf(r->why, sizeof(r->why), "audit.jsonl does not end with a whole line");
		goto out;
	}
	/* Each line intact, each following the one before. */
	for (; p < end; p = nl + 1) {
		nl = memchr(p, '\n', (size_t)(end - p));
		if (audit_line_check(p, (size_t)(nl - p), &l, &why) != 0) {
			snprintf(r->why, sizeof(r->why), "a record of the tail is damaged (%s)", why);
			goto out;
		}
		if (lines == 0 ? l.seq != head->seq ||
		    memcmp(l.hash, head->hash, AUDIT_HASH_LEN) != 0 :
		    l.seq != before.seq + 1 || memcmp(l.prev, before.hash, AUDIT_HASH_LEN) != 0) {
			snprintf(r->why, sizeof(r->why), "the records from the signed head on are "
			    "not those recorded");
			goto out;
		}
		off[1] = off[0];
		off[0] = t->head_off + (int64_t)(p - buf) - (t->head_off > 0);
		before = l;
		lines++;
	}
	if (before.seq != t->seq || memcmp(before.hash, t->hash, AUDIT_HASH_LEN) != 0) {
		snprintf(r->why, sizeof(r->why), "the last record is not the one recorded");
		goto out;
	}
	a->seq = t->seq;
	memcpy(a->prev, t->hash, AUDIT_HASH_LEN);
	a->size = t->size;
	a->off_last = off[0];
	a->off_prev = off[1];
	/* Every intent the log held was deleted before sbxd left it idle. */
	a->intent_appended = a->intent_synced = a->intent_deleted = t->intents;
	rc = 0;
out:
	free(buf);
	return rc;
}

struct audit *
audit_open_resume(int sbfd, sqlite3 *db, const struct audit_key *key,
    const struct audit_opts *o, struct audit_resume *r, struct sbx_err *err)
{
	struct audit_checkpoint head;
	struct audit_line last, found;
	struct audit *a;
	struct stat st;
	char seg[32], *buf = NULL;
	const char *why = "";
	size_t len = 0, torn = 0;
	int64_t off[2];
	int have_head;

	if (r) {
		r->used = 0;
		snprintf(r->why, sizeof(r->why), "no tail was recorded");
	}
	if (!(a = calloc(1, sizeof(*a)))) {
		err_set(err, "out of memory");
		return NULL;
	}
	a->sbfd = sbfd;
	a->db = db;
	a->key = key;
	a->fd = -1;
	a->segment_bytes = o && o->segment_bytes > 0 ? o->segment_bytes : AUDIT_SEGMENT_BYTES;
	a->checkpoint_every = o && o->checkpoint_every > 0 ? o->checkpoint_every
	    : AUDIT_CHECKPOINT_EVERY;
	if (store_audit_schema(db, err) < 0)
		goto fail;
	if ((have_head = store_audit_head(db, &head)) < 0) {
		err_set(err, "state.db holds a malformed audit head");
		goto fail;
	}
	a->head_seq = have_head ? head.seq : -1;
	if (have_head)
		memcpy(a->head_hash, head.hash, sizeof(a->head_hash));
	if ((a->seg_no = last_segment(sbfd)) < 0) {
		err_set(err, "cannot list .sandbox: %s", strerror(errno));
		goto fail;
	}
	a->fd = openat(sbfd, ACTIVE, O_WRONLY | O_APPEND | O_CREAT | O_NOFOLLOW | O_CLOEXEC,
	    0600);
	if (a->fd < 0 || fstat(a->fd, &st) < 0 || !S_ISREG(st.st_mode) || st.st_nlink != 1 ||
	    st.st_uid != geteuid()) {
		err_set(err, "cannot open .sandbox/%s as a regular file of ours with one link: %s",
		    ACTIVE, a->fd < 0 ? strerror(errno) : "wrong type, owner or links");
		goto fail;
	}
	/* Opened for appending only: the tail is read through another fd. */
	if (r && r->tail) {
		int rfd = openat(sbfd, ACTIVE, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
		struct stat rst;
		int wfd = a->fd;

		if (rfd >= 0 && fstat(rfd, &rst) == 0 && rst.st_dev == st.st_dev &&
		    rst.st_ino == st.st_ino) {
			a->fd = rfd;
			r->used = resume_tail(a, &st, have_head, &head, r) == 0;
			a->fd = wfd;
		} else {
			snprintf(r->why, sizeof(r->why), "audit.jsonl was replaced as sbxd opened it");
		}
		if (rfd >= 0)
			close(rfd);
		if (r->used) {
			r->why[0] = '\0';
			return audit_open_rest(a, db, sbfd, 0, err);
		}
		a->seq = 0;
	}
	snprintf(seg, sizeof(seg), "%s", ACTIVE);
	if (st.st_size == 0 && a->seg_no > 0)
		snprintf(seg, sizeof(seg), "audit.%06d.jsonl", a->seg_no);
	if (!(buf = read_daemon_file(sbfd, seg, 1L << 30, &len, err)))
		goto fail;
	if (scan_tail(buf, len, &last, have_head ? head.seq : -1, &found, &torn, off, &why) < 0) {
		err_set(err, ".sandbox/%s is damaged (%s); run `sbx audit verify` to see "
		    "where, and move the log aside to start a new one", seg, why);
		goto fail;
	}
	if (have_head && (last.seq < head.seq || (found.seq == head.seq &&
	    memcmp(found.hash, head.hash, 32) != 0))) {
		err_set(err, "the audit log does not match its last signed head (record %lld): "
		    "it %s; run `sbx audit verify`. To start a new log, move .sandbox/audit*.jsonl "
		    "aside and delete the audit_head row of state.db", (long long)head.seq,
		    last.seq < head.seq ? "ends before it (cut off)" : "was rewritten");
		goto fail;
	}
	if (!have_head && last.seq > 0) {
		err_set(err, "the audit log has %lld records but state.db has no signed head "
		    "for it; run `sbx audit verify`. To start a new log, move "
		    ".sandbox/audit*.jsonl aside", (long long)last.seq);
		goto fail;
	}
	if (torn && strcmp(seg, ACTIVE) == 0 && ftruncate(a->fd, (off_t)(len - torn)) < 0) {
		err_set(err, "cannot cut the torn tail of .sandbox/%s: %s", ACTIVE, strerror(errno));
		goto fail;
	}
	a->seq = last.seq;
	if (last.seq > 0)
		memcpy(a->prev, last.hash, 32);
	/* Intents a crash left after they reached the log: not again. */
	a->intent_appended = a->intent_synced = intents_in_log(buf, len - torn);
	a->size = strcmp(seg, ACTIVE) == 0 ? (int64_t)(len - torn) : 0;
	a->off_last = a->size ? off[0] : -1;
	a->off_prev = a->size ? off[1] : -1;
	free(buf);
	return audit_open_rest(a, db, sbfd, (int64_t)torn, err);
fail:
	free(buf);
	if (a->fd >= 0)
		close(a->fd);
	free(a);
	return NULL;
}

/* The rest of an open, the log's position known: the index, a torn
 * tail recorded, the intents a crash left written. */
static struct audit *
audit_open_rest(struct audit *a, sqlite3 *db, int sbfd, int64_t torn, struct sbx_err *err)
{
	a->last_ckpt_ms = mono_ms();
	/* Without its index the log still works: readers scan it instead. */
	a->idx = audit_index_open(db, sbfd, a->seg_no, a->seq, err);
	if (torn)
		audit_log(a, "audit_recovered", NULL, NULL, "daemon",
		    AU_I("torn_bytes", torn),
		    AU_S("why", "a record was cut short by a crash before it was synced"),
		    AU_END);
	/* Records a crash kept from the log: written now (or later, when the
	 * log can be written again). */
	a->replaying = 1;
	(void)audit_intents_flush(a);
	a->replaying = 0;
	(void)audit_sync(a);
	intents_purge(a);
	return a;
}

int
audit_sync(struct audit *a)
{
	if (!a)
		return 0;
	if (a->dirty && fdatasync(a->fd) < 0)
		return -1;
	a->dirty = 0;
	(void)audit_index_flush(a->idx);
	/* What was appended is durable now: its intents may go. */
	a->intent_synced = a->intent_appended;
	return 0;
}

/* Deletes the intents that are durably in the log. Inside the caller's
 * transaction when there is one (no extra commit), else on its own. */
static void
intents_purge(struct audit *a)
{
	if (a->intent_synced <= a->intent_deleted || !a->db)
		return;
	/* Inside a transaction the delete may yet be rolled back: done only
	 * when it committed on its own (it is repeated, harmlessly, until). */
	if (store_intents_purge(a->db, a->intent_synced) == 0 && sqlite3_get_autocommit(a->db))
		a->intent_deleted = a->intent_synced;
	a->last_purge_ms = mono_ms();
}

/* The highest "intent" id among the records of buf: those are in the log
 * already and must not be written again. Only the top-level data's
 * "intent" counts (a request's input may hold any key). */
static int64_t
intents_in_log(const char *buf, size_t len)
{
	const char *p = buf, *end = buf + len, *nl;
	int64_t best = 0, v;
	cJSON *rec;

	for (; p < end; p = nl + 1) {
		if (!(nl = memchr(p, '\n', (size_t)(end - p))))
			break;
		if (!memmem(p, (size_t)(nl - p), "\"intent\":", 9))
			continue;
		rec = cJSON_ParseWithLength(p, (size_t)(nl - p));
		if (json_int(cJSON_GetObjectItemCaseSensitive(rec, "data"), "intent", &v) == 0 &&
		    v > best)
			best = v;
		cJSON_Delete(rec);
	}
	return best;
}

static int rotate(struct audit *a);
static int append_deferred(struct audit *a);
static int append_record(struct audit *a, const char *event, const char *request,
    const char *session, const char *actor, cJSON *data, int count);

/* Counts a record that could not be written, in memory and in state.db
 * next to the signed head, where `sbx audit verify` reports it. */
static void
count_failure(struct audit *a)
{
	a->failures++;
	if (a->db)
		store_audit_failure(a->db, now_ms());
}

int
audit_append(struct audit *a, const char *event, const char *request,
    const char *session, const char *actor, cJSON *data)
{
	return append_record(a, event, request, session, actor, data, 1);
}

/* count: whether a failure loses the record (an intent is kept instead). */
static int
append_record(struct audit *a, const char *event, const char *request,
    const char *session, const char *actor, cJSON *data, int count)
{
	unsigned char hash[AUDIT_HASH_LEN];
	char *line = NULL, *r_req = NULL, *r_sess = NULL, *r_act = NULL;
	size_t len;
	int rc = -1, written = 0;

	if (!a) {
		cJSON_Delete(data);
		return 0;
	}
	if (a->broken) {
		cJSON_Delete(data);
		if (count)
			count_failure(a);
		errno = EIO;
		return -1;
	}
	if (!data && !(data = cJSON_CreateObject()))
		return -1;
	if (a->def_event)
		(void)append_deferred(a);
	if (redact_json(data) < 0 || (request && !(r_req = redact_str(request, NULL))) ||
	    (session && !(r_sess = redact_str(session, NULL))) ||
	    !(r_act = redact_str(actor ? actor : "daemon", NULL)))
		goto out;
	line = audit_record_encode(a->seq + 1, now_ms(), a->prev, event, r_req, r_sess, r_act,
	    data, hash, &len);
	if (!line)
		goto out;
	if (write_all(a->fd, line, len) < 0) {
		/* Never leave half a record for the next one to follow. */
		if (ftruncate(a->fd, (off_t)a->size) < 0)
			a->broken = 1;  /* the next sbxd start cuts the torn tail */
		goto out;
	}
	a->seq++;
	memcpy(a->prev, hash, sizeof(hash));
	a->off_prev = a->off_last;
	a->off_last = a->size;
	a->size += (int64_t)len;
	a->dirty = 1;
	audit_index_note(a->idx, r_req, a->seq, a->seg_no + 1, a->size - (int64_t)len,
	    (int64_t)len);
	if (strcmp(event, "checkpoint") != 0)
		a->since_ckpt++;
	rc = 0;
	written = 1;
	if (a->in_rotate)
		goto out;
	if (a->since_ckpt >= a->checkpoint_every)
		rc = audit_checkpoint(a);
	if (rc == 0 && a->size >= a->segment_bytes)
		rc = rotate(a);
out:
	if (!written && count)
		count_failure(a);
	free(line);
	free(r_req);
	free(r_sess);
	free(r_act);
	cJSON_Delete(data);
	return rc;
}

/* Builds the data object from AU_ items (into NULL when want is 0: the
 * items are walked anyway, so a cJSON item is always consumed). *ok is
 * 0 when an item was not built by the AU_ macros. */
static cJSON *
items_to_json(int want, va_list ap, int *ok)
{
	char hex[2 * AUDIT_HASH_LEN + 1];
	const unsigned char *h;
	const char *key, *s;
	cJSON *data, *j;
	int64_t n;
	int tag, b;

	*ok = 1;
	data = want ? cJSON_CreateObject() : NULL;
	while ((tag = va_arg(ap, int)) != 0) {
		key = va_arg(ap, const char *);
		switch (tag) {
		case 's':
			s = va_arg(ap, const char *);
			if (data)
				s ? cJSON_AddStringToObject(data, key, s)
				    : cJSON_AddNullToObject(data, key);
			break;
		case 'i':
			n = va_arg(ap, int64_t);
			if (data)
				cJSON_AddNumberToObject(data, key, (double)n);
			break;
		case 'b':
			b = va_arg(ap, int);
			if (data)
				cJSON_AddBoolToObject(data, key, b);
			break;
		case 'h':
			h = va_arg(ap, const unsigned char *);
			if (data) {
				hex_encode(hex, h, AUDIT_HASH_LEN);
				cJSON_AddStringToObject(data, key, hex);
			}
			break;
		case 'j':
			j = va_arg(ap, cJSON *);
			if (data)
				cJSON_AddItemToObject(data, key, j ? j : cJSON_CreateNull());
			else
				cJSON_Delete(j);
			break;
		default:
			/* Not built by the AU_ macros: stop rather than misread. */
			cJSON_Delete(data);
			*ok = 0;
			errno = EINVAL;
			return NULL;
		}
	}
	return data;
}

int
audit_log(struct audit *a, const char *event, const char *request,
    const char *session, const char *actor, ...)
{
	cJSON *data;
	va_list ap;
	int ok;

	va_start(ap, actor);
	data = items_to_json(a != NULL, ap, &ok);
	va_end(ap);
	if (!ok)
		return -1;
	if (!a)
		return 0;
	if (!data)
		return -1;
	return audit_append(a, event, request, session, actor, data);
}

int
audit_intent(struct audit *a, const char *event, const char *request,
    const char *session, const char *actor, ...)
{
	char *text = NULL;
	cJSON *data;
	va_list ap;
	int ok, rc = -1;

	va_start(ap, actor);
	data = items_to_json(a != NULL, ap, &ok);
	va_end(ap);
	if (!ok || !a) {
		cJSON_Delete(data);
		return a ? -1 : 0;
	}
	if (!data || !a->db || !(text = cJSON_PrintUnformatted(data)))
		goto out;
	intents_purge(a);
	rc = store_intent_add(a->db, event, request, session, actor ? actor : "daemon", text,
	    now_ms());
out:
	free(text);
	cJSON_Delete(data);
	return rc;
}

struct flush {
	struct audit *a;
	int rc, left;
};

/* One waiting record into the log; after a failure the rest only count. */
static void
flush_one(void *ctx, const struct store_intent *in)
{
	struct flush *fl = ctx;
	struct audit *a = fl->a;
	cJSON *data;

	if (fl->rc < 0) {
		fl->left++;
		return;
	}
	data = cJSON_Parse(in->data);
	if (!cJSON_IsObject(data)) {
		cJSON_Delete(data);
		data = cJSON_CreateObject();
	}
	/* The intent's id says which record is which if a crash between
	 * the sync and the delete below makes a replay write it twice. */
	cJSON_AddNumberToObject(data, "intent", (double)in->id);
	if (a->replaying)
		cJSON_AddBoolToObject(data, "replayed", 1);
	if (append_record(a, in->event, in->request, in->session, in->actor, data, 0) < 0) {
		fl->rc = -1;
		fl->left++;
		return;
	}
	a->intent_appended = in->id;
}

int
audit_intents_flush(struct audit *a)
{
	struct flush fl = { .a = a };

	if (!a)
		return 0;
	if (!a->db)
		return -1;
	/* Appended here, never twice; deleted once synced (intents_purge). */
	if (store_intents_each(a->db, a->intent_appended, flush_one, &fl) < 0)
		return -1;
	return fl.rc < 0 || fl.left ? -1 : 0;
}

int64_t
audit_intents_pending(sqlite3 *db)
{
	return store_intents_count(db);
}

int
audit_checkpoint(struct audit *a)
{
	struct audit_checkpoint c = { 0 };
	unsigned char *msg;
	cJSON *data;
	size_t len;

	if (!a || a->seq == 0)
		return 0;
	/* The held-back record goes first: a head signs the record just
	 * before its checkpoint record. */
	if (a->def_event)
		(void)append_deferred(a);
	if (!a->db || audit_sync(a) < 0)
		return -1;
	c.seq = a->seq;
	memcpy(c.hash, a->prev, sizeof(c.hash));
	c.time = now_ms();
	memcpy(c.key_id, a->key->key_id, sizeof(c.key_id));
	if (audit_checkpoint_message(&c, &msg, &len) < 0)
		return -1;
	crypto_sign_detached(c.sig, NULL, msg, len, a->key->sk);
	free(msg);
	if (store_audit_head_set(a->db, &c) < 0)
		return -1;
	a->head_seq = c.seq;
	memcpy(a->head_hash, c.hash, sizeof(a->head_hash));
	intents_purge(a);
	a->since_ckpt = 0;
	a->last_ckpt_ms = mono_ms();
	if (!(data = cJSON_CreateObject()) || audit_checkpoint_to_json(&c, data) < 0) {
		cJSON_Delete(data);
		return -1;
	}
	return audit_append(a, "checkpoint", NULL, NULL, "daemon", data);
}

/* Closes the active segment as audit.NNNNNN.jsonl and starts a new one
 * whose first record names it and its head. */
static int
rotate(struct audit *a)
{
	char name[32];
	int fd, dfd;

	a->in_rotate = 1;
	if (audit_checkpoint(a) < 0 || audit_sync(a) < 0)
		goto fail;
	snprintf(name, sizeof(name), "audit.%06d.jsonl", a->seg_no + 1);
	if (renameat2(a->sbfd, ACTIVE, a->sbfd, name, RENAME_NOREPLACE) < 0)
		goto fail;
	a->seg_no++;
	fd = openat(a->sbfd, ACTIVE, O_WRONLY | O_APPEND | O_CREAT | O_EXCL | O_NOFOLLOW |
	    O_CLOEXEC, 0600);
	if (fd < 0)
		goto fail;
	close(a->fd);
	a->fd = fd;
	a->size = 0;
	a->off_last = a->off_prev = -1;
	if ((dfd = dup(a->sbfd)) >= 0) {
		(void)fsync(dfd);
		close(dfd);
	}
	a->in_rotate = 0;
	if (audit_log(a, "segment", NULL, NULL, "daemon", AU_S("previous", name),
	    AU_I("previous_last_seq", a->seq), AU_H("previous_last_hash", a->prev),
	    AU_END) < 0)
		return -1;
	return audit_sync(a);
fail:
	a->in_rotate = 0;
	return -1;
}

void
audit_tick(struct audit *a)
{
	if (!a)
		return;
	if (a->since_ckpt > 0 && mono_ms() - a->last_ckpt_ms >= AUDIT_CHECKPOINT_MS)
		(void)audit_checkpoint(a);
	(void)audit_sync(a);
	/* At most once a second on its own; usually inside the next
	 * request's transaction. */
	if (mono_ms() - a->last_purge_ms >= 1000)
		intents_purge(a);
}

int64_t
audit_due(const struct audit *a)
{
	int64_t due = INT64_MAX;

	if (!a)
		return due;
	if (a->dirty)
		return 0;
	if (a->since_ckpt > 0)
		due = a->last_ckpt_ms + AUDIT_CHECKPOINT_MS;
	if (a->intent_synced > a->intent_deleted && a->last_purge_ms + 1000 < due)
		due = a->last_purge_ms + 1000;
	return due;
}

void
audit_settle(struct audit *a)
{
	if (!a)
		return;
	/* Nothing logged since the last signed head (a folder that had nothing
	 * to do): nothing is written. */
	if (a->since_ckpt > 0 || a->dirty)
		(void)audit_checkpoint(a);
	(void)audit_sync(a);
	(void)audit_index_flush(a->idx);
}

int
audit_tail(const struct audit *a, struct audit_tail *t)
{
	memset(t, 0, sizeof(*t));
	/* (A record still held back, daemon_start, is not in the file: it
	 * is dropped at close, and the tail is the file's.) */
	if (!a || !audit_idle(a) || a->seq < 1 || a->head_seq < 1 || a->size <= 0)
		return -1;
	/* The head is the last record (its checkpoint record could not be
	 * written) or, as a rule, the one before its checkpoint record. */
	if (a->head_seq == a->seq && memcmp(a->head_hash, a->prev, AUDIT_HASH_LEN) == 0)
		t->head_off = a->off_last;
	else if (a->head_seq == a->seq - 1)
		t->head_off = a->off_prev;
	else
		return -1;
	if (t->head_off < 0)
		return -1;
	t->seq = a->seq;
	memcpy(t->hash, a->prev, AUDIT_HASH_LEN);
	t->head_seq = a->head_seq;
	memcpy(t->head_hash, a->head_hash, AUDIT_HASH_LEN);
	t->size = a->size;
	t->intents = a->intent_appended;
	t->seg_no = a->seg_no;
	return 0;
}

void
audit_close(struct audit *a)
{
	if (!a)
		return;
	audit_settle(a);
	audit_index_close(a->idx);
	close(a->fd);
	free(a->def_event);
	cJSON_Delete(a->def_data);
	free(a);
}

int
audit_policy_changed(struct audit *a, const unsigned char hash[32])
{
	if (!a || (a->policy_known && memcmp(a->policy, hash, 32) == 0))
		return 0;
	memcpy(a->policy, hash, 32);
	a->policy_known = 1;
	return 1;
}

int64_t
audit_failures(const struct audit *a)
{
	return a ? a->failures : 0;
}

int64_t
audit_seq(const struct audit *a)
{
	return a ? a->seq : 0;
}

void
audit_defer(struct audit *a, const char *event, cJSON *data)
{
	if (!a) {
		cJSON_Delete(data);
		return;
	}
	free(a->def_event);
	cJSON_Delete(a->def_data);
	a->def_event = strdup(event);
	a->def_data = data;
}

int
audit_deferred(const struct audit *a)
{
	return a && a->def_event != NULL;
}

/* The held-back record, written before the first other one. */
static int
append_deferred(struct audit *a)
{
	char *event = a->def_event;
	cJSON *data = a->def_data;
	int rc;

	a->def_event = NULL;
	a->def_data = NULL;
	rc = append_record(a, event, NULL, NULL, "daemon", data, 1);
	free(event);
	return rc;
}

int
audit_idle(const struct audit *a)
{
	return !a || (!a->dirty && a->since_ckpt == 0 && a->intent_synced <= a->intent_deleted &&
	    a->intent_appended <= a->intent_synced && !a->broken);
}

int
audit_detach(struct audit *a)
{
	if (!a)
		return 0;
	if (!audit_idle(a) || audit_index_flush(a->idx) < 0)
		return -1;
	a->db = NULL;
	audit_index_set_db(a->idx, NULL);
	return 0;
}

int
audit_attach(struct audit *a, sqlite3 *db, char *why, size_t whysz)
{
	struct audit_checkpoint head;
	int have;

	if (!a)
		return 0;
	if ((have = store_audit_head(db, &head)) < 0) {
		snprintf(why, whysz, "its audit head cannot be read");
		return -1;
	}
	if ((have ? head.seq : -1) != a->head_seq ||
	    (have && memcmp(head.hash, a->head_hash, sizeof(a->head_hash)) != 0)) {
		snprintf(why, whysz, "it holds another signed audit head (record %lld) than "
		    "the one sbxd stored last (record %lld)", have ? (long long)head.seq : -1LL,
		    (long long)a->head_seq);
		return -1;
	}
	a->db = db;
	audit_index_set_db(a->idx, db);
	return 0;
}
