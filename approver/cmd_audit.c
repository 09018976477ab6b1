/*
 * cmd_audit.c - `sbx audit verify|show|export`: reading the folder's
 * audit log (written only by sbxd; see daemon/audit.h, docs/AUDIT.md).
 *
 * Read-only on the folder: segments are read with read_daemon_file(),
 * the signed head from state.db opened read-only, the daemon's public
 * key from CONFIG/daemon.pub (or an evidence bundle, or --key).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <sodium.h>

#include "approver/cmd.h"
#include "common/audit/audit_record.h"
#include "common/base/display.h"
#include "common/base/json.h"
#include "common/protocol/queue.h"
#include "common/store/db.h"
#include "common/store/store.h"
#include "common/trust/keys.h"

#define MAX_SEGS        1024
#define EVIDENCE_MAGIC  "sbx-audit-evidence-v1"

/* A log's segments, oldest first, read from the folder's .sandbox or
 * from an evidence bundle: never held in memory (log_next()). */
struct log {
	char name[MAX_SEGS][32];
	off_t off[MAX_SEGS];        /* in a bundle: where the segment starts ... */
	int64_t len[MAX_SEGS];      /* ... and its length */
	int n;
	struct audit_checkpoint head;
	int have_head;
	unsigned char pk[32];
	int have_pk;
	int bundle_fd;              /* the evidence bundle, when read from one, or -1 */
	int sbfd;                   /* the folder's .sandbox, when read from it, or -1 */
	int64_t failed, failed_last; /* records sbxd could not write (state.db) */
	int64_t intents;            /* intents in state.db (audit_intents) ... */
	int64_t intent_logged;      /* ... and the highest id the log has (verify) */
	char folder[PATH_MAX];      /* the folder read, "" for a bundle */
};

/*
 * Reads a log piece by piece, in constant memory: each piece is whole
 * lines of one segment (a line is at most AUDIT_MAX_LINE bytes), so
 * `sbx audit verify`, `show` and `export` never hold the log in memory,
 * from the folder or from an evidence bundle.
 */
#define PIECE_BYTES     (64L << 10)
#define MAP_BYTES       (64L << 20)
struct log_reader {
	struct log *l;
	int seg;                    /* the current segment, -1 before the first */
	int fd;
	char *buf;
	size_t have, used;          /* bytes in buf; bytes handed out */
	int eof;
	int first, last;            /* this piece starts / ends its segment */
	char err[300];
	char *map;                  /* a whole segment mapped (MAP_BYTES at most) */
	size_t map_len;
	char *pre;                  /* indexed lines, handed out first (show_indexed()) */
	size_t pre_len;
	int pre_done;
	int from_seg;               /* then the log from this segment ... */
	int64_t from_off;           /* ... and this byte of it */
	int64_t left;               /* bytes of the segment not read yet (a bundle's) */
};

static void
log_free(struct log *l)
{
	l->n = 0;
	if (l->sbfd >= 0)
		close(l->sbfd);
	if (l->bundle_fd >= 0)
		close(l->bundle_fd);
	l->sbfd = l->bundle_fd = -1;
}

static int
reader_open_seg(struct log_reader *rd)
{
	const char *name = rd->l->name[rd->seg];
	struct stat st;

	rd->left = INT64_MAX;
	if (rd->l->bundle_fd >= 0) {    /* a stretch of the bundle */
		rd->have = rd->used = 0;
		rd->eof = 0;
		rd->left = rd->l->len[rd->seg];
		if ((rd->fd = dup(rd->l->bundle_fd)) < 0 ||
		    lseek(rd->fd, rd->l->off[rd->seg], SEEK_SET) < 0) {
			snprintf(rd->err, sizeof(rd->err), "cannot read the bundle's %s: %s",
			    name, strerror(errno));
			return -1;
		}
		return 0;
	}
	rd->fd = openat(rd->l->sbfd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC |
	    O_NOCTTY);
	if (rd->fd < 0 || fstat(rd->fd, &st) < 0 || !S_ISREG(st.st_mode) || st.st_nlink != 1) {
		snprintf(rd->err, sizeof(rd->err), "cannot read .sandbox/%s: %s", name,
		    rd->fd < 0 ? strerror(errno) : "not a regular file with one link");
		return -1;
	}
	(void)posix_fadvise(rd->fd, 0, 0, POSIX_FADV_SEQUENTIAL);
	rd->have = rd->used = 0;
	rd->eof = 0;
	if (rd->seg == rd->from_seg && rd->from_off > 0 &&
	    lseek(rd->fd, (off_t)rd->from_off, SEEK_SET) < 0) {
		snprintf(rd->err, sizeof(rd->err), "cannot seek in .sandbox/%s: %s", name,
		    strerror(errno));
		return -1;
	}
	return 0;
}

/* The next piece: 1 with [*p, *end), 0 at the end of the log, -1 with
 * rd->err. */
static int
log_next(struct log_reader *rd, const char **p, const char **end)
{
	const size_t cap = PIECE_BYTES + AUDIT_MAX_LINE + 1;
	const char *knob = getenv("SBX_TEST_AUDIT_READ");
	size_t piece = knob && atol(knob) >= 64 && atol(knob) <= PIECE_BYTES ? (size_t)atol(knob)
	    : PIECE_BYTES;
	struct stat st;
	size_t want;
	char *nl;
	ssize_t n;

	if (rd->pre && !rd->pre_done) { /* the indexed lines, then the unindexed tail */
		rd->pre_done = 1;
		rd->seg = rd->from_seg - 1;
		*p = rd->pre;
		*end = rd->pre + rd->pre_len;
		rd->first = rd->last = 1;
		return 1;
	}
	if (!rd->buf && !(rd->buf = malloc(cap))) {
		snprintf(rd->err, sizeof(rd->err), "out of memory");
		return -1;
	}
	rd->first = 0;
	if (rd->map) {
		munmap(rd->map, rd->map_len);
		rd->map = NULL;
		rd->eof = 1;
		rd->have = rd->used = 0;
	}
	if (rd->fd < 0 || (rd->eof && rd->used == rd->have)) {
		if (rd->fd >= 0)
			close(rd->fd);
		rd->fd = -1;
		if (++rd->seg >= rd->l->n)
			return 0;
		if (reader_open_seg(rd) < 0)
			return -1;
		rd->first = 1;
		/* A segment of the usual size is mapped whole: no copy, bounded
		 * by MAP_BYTES; a larger one is read in pieces (as every one is
		 * with SBX_TEST_AUDIT_READ=BYTES, a test-only knob that also
		 * makes the pieces that small, to cross many lines). */
		if (rd->from_off == 0 && !knob && rd->l->bundle_fd < 0 &&
		    fstat(rd->fd, &st) == 0 && st.st_size > 0 &&
		    st.st_size <= MAP_BYTES && (rd->map = mmap(NULL, (size_t)st.st_size,
		    PROT_READ, MAP_PRIVATE | MAP_POPULATE, rd->fd, 0)) != MAP_FAILED) {
			rd->map_len = (size_t)st.st_size;
			rd->last = 1;
			*p = rd->map;
			*end = rd->map + rd->map_len;
			return 1;
		}
		rd->map = NULL;
	}
	/* Keep the partial line, then fill up to a piece. */
	memmove(rd->buf, rd->buf + rd->used, rd->have - rd->used);
	rd->have -= rd->used;
	rd->used = 0;
	/* At least a piece, and at least one whole line (a line is at most
	 * AUDIT_MAX_LINE: the buffer holds a piece more than that). */
	while (!rd->eof && rd->have < cap - 1 &&
	    (rd->have < piece || !memrchr(rd->buf, '\n', rd->have))) {
		want = cap - 1 - rd->have < piece ? cap - 1 - rd->have : piece;
		if ((int64_t)want > rd->left)
			want = (size_t)rd->left;
		n = want ? read(rd->fd, rd->buf + rd->have, want) : 0;
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			snprintf(rd->err, sizeof(rd->err), "cannot read .sandbox/%s: %s",
			    rd->l->name[rd->seg], strerror(errno));
			return -1;
		}
		if (n == 0)
			rd->eof = 1;
		rd->have += (size_t)n;
		rd->left -= n;
	}
	if (rd->eof) {
		rd->used = rd->have;
	} else {
		if (!(nl = memrchr(rd->buf, '\n', rd->have))) {
			snprintf(rd->err, sizeof(rd->err), ".sandbox/%s holds a line longer than "
			    "%d bytes: not an audit log", rd->l->name[rd->seg], AUDIT_MAX_LINE);
			return -1;
		}
		rd->used = (size_t)(nl + 1 - rd->buf);
	}
	rd->last = rd->eof;
	*p = rd->buf;
	*end = rd->buf + rd->used;
	return 1;
}

static void
reader_close(struct log_reader *rd)
{
	if (rd->map)
		munmap(rd->map, rd->map_len);
	rd->map = NULL;
	if (rd->fd >= 0)
		close(rd->fd);
	free(rd->buf);
	free(rd->pre);
	rd->fd = -1;
	rd->buf = rd->pre = NULL;
}

/* The index of segment number k in l->name[], or -1. */
static int
seg_index(const struct log *l, int k)
{
	char name[32];
	int i, num, top = 0;

	snprintf(name, sizeof(name), "audit.%06d.jsonl", k);
	for (i = 0; i < l->n; i++) {
		if (!strcmp(l->name[i], name))
			return i;
		if (audit_segment_number(l->name[i], &num) && num > top)
			top = num;
	}
	if (k == top + 1 && l->n > 0 && !strcmp(l->name[l->n - 1], "audit.jsonl"))
		return l->n - 1;
	return -1;
}

/* What show_indexed() gathers from the index. */
struct indexed {
	struct log *l;
	char *buf;
	size_t len, cap;
	int64_t rows;
	int from_seg;
	int64_t from_off;
};

static int
indexed_start(void *ctx, int seg, int64_t off)
{
	struct indexed *x = ctx;

	x->from_seg = seg_index(x->l, seg);
	x->from_off = off;
	return x->from_seg < 0 ? -1 : 0;
}

/* One indexed record: read from its segment and checked (its hash, its
 * sequence number and its request). */
static int
indexed_row(void *ctx, const struct store_index_row *r)
{
	struct indexed *x = ctx;
	struct audit_line al;
	const char *why;
	char id[SBX_ID_LEN + 1], *nb;
	int fd, k = seg_index(x->l, r->seg);
	size_t n = (size_t)r->len;

	snprintf(id, sizeof(id), "%s", r->request ? r->request : "");
	if (k < 0 || r->len < AUDIT_TAIL_LEN || r->len > AUDIT_MAX_LINE || ++x->rows > 100000 ||
	    x->len + n > PIECE_BYTES)
		return -1;
	if (x->len + n > x->cap) {
		x->cap = (x->len + n) * 2;
		if (!(nb = realloc(x->buf, x->cap)))
			return -1;
		x->buf = nb;
	}
	fd = openat(x->l->sbfd, x->l->name[k], O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0 || pread(fd, x->buf + x->len, n, (off_t)r->off) != (ssize_t)n) {
		if (fd >= 0)
			close(fd);
		return -1;
	}
	close(fd);
	/* The line must be the record the index says, whole and intact. */
	if (x->buf[x->len + n - 1] != '\n' ||
	    audit_line_check(x->buf + x->len, n - 1, &al, &why) != 0 || al.seq != r->seq ||
	    !memmem(x->buf + x->len, n, id, SBX_ID_LEN))
		return -1;
	x->len += n;
	return 0;
}

/*
 * `audit show --request ID`: reads the records sbxd indexed for requests
 * starting with ID (state.db, audit_index) and sets rd to hand them out,
 * then the log after the indexed part. Each indexed line is checked (its
 * hash, its sequence number and its request); 0 when the index cannot be
 * used, and the caller scans the whole log.
 */
static int
show_indexed(const char *folder, struct log *l, const char *req, struct log_reader *rd)
{
	struct indexed x = { .l = l };
	struct sbx_err err;
	sqlite3 *db;
	int ok = 0;

	if (strlen(req) > SBX_ID_LEN || !(db = store_open_ro(folder, &err)))
		return 0;
	if (store_audit_index(db, req, indexed_start, indexed_row, &x) == 0) {
		rd->pre = x.buf ? x.buf : strdup("");
		rd->pre_len = x.len;
		rd->from_seg = x.from_seg;
		rd->from_off = x.from_off;
		x.buf = NULL;
		ok = rd->pre != NULL;
	}
	db_close(db);
	free(x.buf);
	return ok;
}

static int
seg_cmp(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

static int
load_head(const char *folder, struct log *l)
{
	struct sbx_err err;
	sqlite3 *db = store_open_ro(folder, &err);
	int64_t n;

	if (!db)
		return 0;
	l->have_head = store_audit_head(db, &l->head) == 1;
	/* Kept by sbxd next to the head (daemon/audit.h). */
	(void)store_audit_failures(db, &l->failed, &l->failed_last);
	/* sbxd deletes intents only at its next transaction after the
	 * records are in the log: verify checks which ones the log has. */
	if ((n = store_intents_count(db)) >= 0)
		l->intents = n;
	db_close(db);
	return 0;
}

/* Lists the segments of FOLDER's log and reads the head and the public
 * key; keeps .sandbox open in l->sbfd for log_next(). */
static int
log_list(const struct sbx_ctx *c, const char *folder, struct log *l)
{
	char *names[MAX_SEGS];
	struct sbx_err err;
	struct dirent *de;
	int fd, cfd, n = 0, i, num, rc = -1;
	DIR *d;

	memset(l, 0, sizeof(*l));
	l->bundle_fd = -1;
	if ((l->sbfd = sandbox_open(folder, &err)) < 0) {
		fprintf(stderr, "sbx: %s\n", err.msg);
		return -1;
	}
	if ((fd = dup(l->sbfd)) < 0 || !(d = fdopendir(fd))) {
		if (fd >= 0)
			close(fd);
		fprintf(stderr, "sbx: cannot list %s/.sandbox: %s\n", folder, strerror(errno));
		goto out;
	}
	while ((de = readdir(d)))
		if (audit_segment_number(de->d_name, &num)) {
			if (n == MAX_SEGS) {
				fprintf(stderr, "sbx: more than %d audit segments\n", MAX_SEGS);
				closedir(d);
				goto out;
			}
			names[n++] = strdup(de->d_name);
		}
	closedir(d);
	qsort(names, (size_t)n, sizeof(*names), seg_cmp);
	for (i = 0; i < n; i++) {
		if (!names[i])
			rc = -2;
		else
			snprintf(l->name[l->n++], sizeof(l->name[0]), "%s", names[i]);
		free(names[i]);
	}
	n = 0;
	if (rc == -2) {
		fprintf(stderr, "sbx: out of memory\n");
		goto out;
	}
	if (faccessat(l->sbfd, "audit.jsonl", F_OK, AT_SYMLINK_NOFOLLOW) == 0)
		snprintf(l->name[l->n++], sizeof(l->name[0]), "audit.jsonl");
	if (l->n == 0) {
		fprintf(stderr, "sbx: %s has no audit log yet (has sbxd run for it?)\n", folder);
		goto out;
	}
	snprintf(l->folder, sizeof(l->folder), "%s", folder);
	load_head(folder, l);
	if ((cfd = open(c->config, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) >= 0) {
		l->have_pk = key_read_public(cfd, "daemon.pub", l->pk, &err) == 0;
		close(cfd);
	}
	rc = 0;
out:
	for (i = 0; i < n; i++)
		free(names[i]);
	if (rc < 0)
		log_free(l);
	return rc < 0 ? -1 : 0;
}

/* Reads an evidence bundle's header and where each segment lies in it
 * (see docs/AUDIT.md); keeps it open in l->bundle_fd for log_next(). */
static int
evidence_load(const char *file, struct log *l)
{
	char line[512], hash[65], kid[17], sig[129], key[65], name[32];
	long long seq, t, len;
	struct stat st;
	off_t at;
	size_t n;
	FILE *fp = NULL;
	int fd;

	memset(l, 0, sizeof(*l));
	l->sbfd = l->bundle_fd = -1;
	if ((fd = open(file, O_RDONLY | O_CLOEXEC)) < 0 || fstat(fd, &st) < 0 ||
	    !S_ISREG(st.st_mode) || (l->bundle_fd = dup(fd)) < 0 || !(fp = fdopen(fd, "r"))) {
		fprintf(stderr, "sbx: cannot read %s: %s\n", file, strerror(errno));
		if (fd >= 0)
			close(fd);
		goto fail;
	}
	if (!fgets(line, sizeof(line), fp) || strcmp(line, EVIDENCE_MAGIC "\n") != 0)
		goto bad;
	while (fgets(line, sizeof(line), fp)) {
		if (!(n = strlen(line)) || line[n - 1] != '\n')
			goto bad;
		line[n - 1] = '\0';
		if (sscanf(line, "daemon-key %64s", key) == 1) {
			if (hex_decode(l->pk, 32, key) < 0)
				goto bad;
			l->have_pk = 1;
		} else if (sscanf(line, "head %lld %64s %lld %16s %128s", &seq, hash, &t, kid,
		    sig) == 5) {
			l->head.seq = seq;
			l->head.time = t;
			if (hex_decode(l->head.hash, 32, hash) < 0 || !is_hex(kid, 16) ||
			    hex_decode(l->head.sig, 64, sig) < 0)
				goto bad;
			memcpy(l->head.key_id, kid, 17);
			l->have_head = 1;
		} else if (sscanf(line, "segment %31s %lld", name, &len) == 2) {
			/* The segment's bytes are read later, from where they lie. */
			if ((at = ftello(fp)) < 0 || len < 0 || len > st.st_size - at ||
			    l->n == MAX_SEGS || fseeko(fp, (off_t)len, SEEK_CUR) < 0)
				goto bad;
			snprintf(l->name[l->n], sizeof(l->name[0]), "%s", name);
			l->off[l->n] = at;
			l->len[l->n] = len;
			l->n++;
		} else if (strcmp(line, "end") == 0) {
			fclose(fp);
			return 0;
		} else if (strncmp(line, "folder ", 7) != 0 && strncmp(line, "created ", 8) != 0 &&
		    strcmp(line, "head none") != 0) {
			goto bad;
		}
	}
bad:
	fprintf(stderr, "sbx: %s is not a well-formed sbx evidence bundle\n", file);
fail:
	if (fp)
		fclose(fp);
	log_free(l);
	return -1;
}

static void
fmt_time(int64_t ms, char *out, size_t n)
{
	time_t t = (time_t)(ms / 1000);
	struct tm tm;
	char s[32];

	localtime_r(&t, &tm);
	strftime(s, sizeof(s), "%Y-%m-%d %H:%M:%S", &tm);
	snprintf(out, n, "%s.%03d", s, (int)(ms % 1000));
}

static const char verify_use[] =
    "usage: sbx audit verify [--json] [--evidence FILE [--key HEX]]\n";
static const char show_use[] = "usage: sbx audit show [--request ID] [--session ID] "
    "[--since TIME] [--json]\n";

static int
usage_verify(void)
{
	return sub_usage(verify_use, 0);
}

/* Raises l->intent_logged to the highest "intent" id of the records in
 * [p, end) (whole lines): sbxd marks each record it wrote from an intent
 * with data.intent (daemon/audit.c). */
static void
intents_seen(struct log *l, const char *p, const char *end)
{
	const char *q = p, *ls, *le;
	cJSON *doc;
	int64_t v;

	while (q < end && (q = memmem(q, (size_t)(end - q), "\"intent\":", 9))) {
		ls = q > p ? memrchr(p, '\n', (size_t)(q - p)) : NULL;
		ls = ls ? ls + 1 : p;
		if (!(le = memchr(q, '\n', (size_t)(end - q))))
			le = end;
		if ((doc = cJSON_ParseWithLength(ls, (size_t)(le - ls)))) {
			if (json_int(cJSON_GetObjectItemCaseSensitive(doc, "data"), "intent", &v)
			    == 0 && v > l->intent_logged)
				l->intent_logged = v;
			cJSON_Delete(doc);
		}
		q = le;
	}
}

/* How many intents in FOLDER's state.db the log does not have: those
 * above the highest id the log has. -1 when it cannot tell. */
static int64_t
intents_waiting(const struct log *l)
{
	struct sbx_err err;
	sqlite3 *db;
	int64_t n;

	if (l->intents == 0)
		return 0;
	if (l->intent_logged == 0)
		return l->intents;
	if (!(db = db_open(l->folder, 0, &err)))
		return -1;
	n = store_intents_above(db, l->intent_logged);
	db_close(db);
	return n;
}

/* Verifies the log piece by piece: 0, -1 (r says why) or -2 (it could
 * not be read; said on stderr). */
static int
verify_stream(struct log *l, struct audit_report *r)
{
	struct log_reader rd = { .l = l, .seg = -1, .fd = -1 };
	struct audit_verifier v;
	const char *p, *end;
	int got, rc = -1;

	if (audit_verify_begin(&v, l->have_pk ? l->pk : NULL, l->have_head ? &l->head : NULL,
	    r) < 0)
		return -1;
	while ((got = log_next(&rd, &p, &end)) > 0) {
		if (rd.first)
			audit_verify_segment(&v, l->name[rd.seg]);
		if (audit_verify_feed(&v, p, (size_t)(end - p), rd.last) < 0)
			goto out;
		if (l->intents > 0)
			intents_seen(l, p, end);
	}
	if (got < 0) {
		fprintf(stderr, "sbx: %s\n", rd.err);
		rc = -2;
		goto out;
	}
	rc = audit_verify_end(&v);
out:
	reader_close(&rd);
	return rc;
}

static int
audit_verify_cmd(struct sbx_ctx *c, int argc, char **argv)
{
	char folder[PATH_MAX], when[40], hex[65], kid[17];
	const char *evidence = NULL, *pin = NULL;
	unsigned char pinned[32];
	struct audit_report r;
	static struct log l;
	cJSON *o;
	int64_t waiting = 0;
	char *s;
	int json = 0, rc, quit;

	static const struct option opts[] = {
		SBX_OPTS_COMMON, { "json", no_argument, NULL, 'j' },
		{ "evidence", required_argument, NULL, 'e' }, { "key", required_argument, NULL, 'k' },
		{ NULL, 0, NULL, 0 },
	};

	const struct sub_str strs[] = { { 'e', &evidence }, { 'k', &pin }, { 0, NULL } };

	if ((quit = sub_opts_str(c, argc, argv, opts, strs, verify_use, &json)) >= 0)
		return quit;
	if (optind < argc)
		return usage_verify();
	if (pin && hex_decode(pinned, 32, pin) < 0) {
		fprintf(stderr, "sbx: --key wants the daemon's public key, 64 hex digits\n");
		return 2;
	}
	if (evidence) {
		if (evidence_load(evidence, &l) < 0)
			return 1;
	} else if (ctx_folder(c, folder, sizeof(folder)) < 0 || log_list(c, folder, &l) < 0) {
		return 1;
	}
	if (pin) {
		if (l.have_pk && memcmp(l.pk, pinned, 32) != 0) {
			fprintf(stderr, "sbx: the bundle's daemon key is not the one given with --key\n");
			log_free(&l);
			return 1;
		}
		memcpy(l.pk, pinned, 32);
		l.have_pk = 1;
	}
	if ((rc = verify_stream(&l, &r)) == -2) {
		log_free(&l);
		return 1;
	}
	/* Read after the log: a record sbxd wrote meanwhile counts as written. */
	waiting = intents_waiting(&l);
	/* A chain that verifies is still incomplete if sbxd counted records
	 * it could not write. */
	if (rc == 0 && l.failed > 0) {
		rc = 1;
		snprintf(r.kind, sizeof(r.kind), "incomplete");
		fmt_time(l.failed_last, when, sizeof(when));
		snprintf(r.msg, sizeof(r.msg), "sbxd could not write %lld record(s) (disk full or "
		    "I/O error; the last at %s): the log is missing them", (long long)l.failed,
		    when);
		r.line = 0;
	}
	if (l.have_pk)
		key_id_of(l.pk, kid);
	else
		snprintf(kid, sizeof(kid), "none");
	if (json) {
		o = cJSON_CreateObject();
		cJSON_AddBoolToObject(o, "ok", rc == 0);
		cJSON_AddNumberToObject(o, "records", (double)r.records);
		cJSON_AddNumberToObject(o, "segments", (double)r.segments);
		cJSON_AddNumberToObject(o, "bytes", (double)r.bytes);
		cJSON_AddNumberToObject(o, "checkpoints", (double)r.checkpoints);
		cJSON_AddNumberToObject(o, "last_seq", (double)r.last_seq);
		hex_encode(hex, r.last_hash, 32);
		cJSON_AddStringToObject(o, "last_hash", hex);
		cJSON_AddNumberToObject(o, "head_seq", (double)r.head_seq);
		cJSON_AddNumberToObject(o, "after_head", (double)r.after_head);
		cJSON_AddStringToObject(o, "daemon_key_id", kid);
		cJSON_AddNumberToObject(o, "failed_records", (double)l.failed);
		cJSON_AddNumberToObject(o, "waiting_intents", (double)waiting);
		if (rc != 0) {
			cJSON_AddStringToObject(o, "kind", r.kind);
			cJSON_AddStringToObject(o, "segment", r.segment);
			cJSON_AddNumberToObject(o, "line", (double)r.line);
			cJSON_AddNumberToObject(o, "seq", (double)r.seq);
			cJSON_AddStringToObject(o, "message", r.msg);
		}
		s = cJSON_Print(o);
		printf("%s\n", s ? s : "{}");
		free(s);
		cJSON_Delete(o);
	} else if (rc == 0) {
		fmt_time(l.head.time, when, sizeof(when));
		printf("audit log OK: %lld records in %lld segment%s (%lld bytes), %lld signed "
		    "checkpoint%s; the signed head (record %lld, %s, daemon key %s) matches; "
		    "%lld record%s after it, not yet signed\n", (long long)r.records,
		    (long long)r.segments, r.segments == 1 ? "" : "s", (long long)r.bytes,
		    (long long)r.checkpoints, r.checkpoints == 1 ? "" : "s",
		    (long long)r.head_seq, when, kid, (long long)r.after_head,
		    r.after_head == 1 ? "" : "s");
		if (evidence && !pin)
			printf("note: checked with the daemon key in the bundle (id %s); compare it "
			    "with the daemon's key id, or pass --key\n", kid);
		if (waiting > 0)
			printf("note: %lld record%s committed in state.db %s not in the log yet; "
			    "sbxd writes %s when it can\n", (long long)waiting, waiting == 1 ? "" :
			    "s", waiting == 1 ? "is" : "are", waiting == 1 ? "it" : "them");
		else if (waiting < 0)
			printf("note: state.db holds %lld record%s committed for the log; cannot "
			    "tell how many the log has\n", (long long)l.intents,
			    l.intents == 1 ? "" : "s");
	} else {
		if (r.line)
			fprintf(stderr, "sbx: audit log BROKEN (%s) at %s line %lld, record %lld: %s\n"
			    "sbx: the %lld records before it verified\n", r.kind, r.segment,
			    (long long)r.line, (long long)r.seq, r.msg, (long long)r.records);
		else
			fprintf(stderr, "sbx: audit log BROKEN (%s): %s\n", r.kind, r.msg);
	}
	log_free(&l);
	return rc == 0 ? 0 : 1;
}

/* TIME: seconds since the epoch, "YYYY-MM-DD[THH:MM[:SS]]" (local), or
 * an age: 30s, 10m, 2h, 7d. Returns ms, or -1. */
static int64_t
parse_since(const char *s)
{
	struct tm tm = { 0 };
	char *end;
	const char *e;
	long long v;

	v = strtoll(s, &end, 10);
	if (end != s && v >= 0) {
		if (!*end)
			return v * 1000;
		if (end[1] == '\0' && strchr("smhd", *end))
			return now_ms() - v * 1000 * (*end == 's' ? 1 : *end == 'm' ? 60 :
			    *end == 'h' ? 3600 : 86400);
	}
	tm.tm_isdst = -1;
	if (((e = strptime(s, "%Y-%m-%dT%H:%M:%S", &tm)) && !*e) ||
	    ((e = strptime(s, "%Y-%m-%dT%H:%M", &tm)) && !*e) ||
	    ((e = strptime(s, "%Y-%m-%d %H:%M", &tm)) && !*e) ||
	    ((e = strptime(s, "%Y-%m-%d", &tm)) && !*e))
		return (int64_t)mktime(&tm) * 1000;
	return -1;
}

/* A string field of a record, safe to show (common/base/display). */
static const char *
dstr(const cJSON *d, const char *k)
{
	const char *v = json_str(d, k);

	return v ? display_tmp_width(v, 200) : "";
}

/* One line that says what a record means. */
static void
summary(const char *ev, const cJSON *d, char *out, size_t n)
{
	int64_t a = 0, b = 0, x = 0;
	char *canon;

	if (!strcmp(ev, "request_received"))
		snprintf(out, n, "%s `%s` (%s%s%s) -> %s%s%s", dstr(d, "tool"),
		    json_str(d, "command") ? dstr(d, "command") : "...", dstr(d, "trigger"),
		    *dstr(d, "rule") ? ": " : "", dstr(d, "rule"), dstr(d, "status"),
		    json_str(d, "why") ? ": " : "", dstr(d, "why"));
	else if (!strcmp(ev, "decision"))
		snprintf(out, n, "%s by %s%s%s%s%s", dstr(d, "verdict"), dstr(d, "approver"),
		    json_bool(d, "remember") == 1 ? ", remember" : "",
		    json_bool(d, "auto") == 1 ? " (remembered approval)" : "",
		    *dstr(d, "reason") ? ": " : "", dstr(d, "reason"));
	else if (!strcmp(ev, "exec_started"))
		snprintf(out, n, "pid %lld, timeout %lld s, in %s",
		    (long long)(json_int(d, "pid", &a) == 0 ? a : 0),
		    (long long)(json_int(d, "timeout_s", &b) == 0 ? b : 0), dstr(d, "cwd"));
	else if (!strcmp(ev, "exec_finished"))
		snprintf(out, n, "%s, exit %s%lld, signal %lld, %lld ms, stdout %lld B, stderr "
		    "%lld B", dstr(d, "status"), json_int(d, "exit_code", &x) == 0 ? "" : "none ",
		    (long long)(json_int(d, "exit_code", &x) == 0 ? x : 0),
		    (long long)(json_int(d, "signal", &a) == 0 ? a : 0),
		    (long long)(json_int(d, "duration_ms", &b) == 0 ? b : 0),
		    (long long)(json_int(d, "stdout_bytes", &a) == 0 ? a : 0),
		    (long long)(json_int(d, "stderr_bytes", &b) == 0 ? b : 0));
	else if (!strcmp(ev, "request_closed"))
		snprintf(out, n, "%s%s%s", dstr(d, "status"), *dstr(d, "reason") ? ": " : "",
		    dstr(d, "reason"));
	else if (!strcmp(ev, "post_tool_use"))
		snprintf(out, n, "%s %s%s%s", dstr(d, "tool"), json_str(d, "path")
		    ? dstr(d, "path") : dstr(d, "command"), json_str(d, "after") ? " after " : "",
		    json_str(d, "after") ? dstr(d, "after") : "");
	else if (!strcmp(ev, "network_connection"))
		snprintf(out, n, "%s %s:%lld %s, up %lld B, down %lld B, %lld ms%s%.200s%s%.200s",
		    dstr(d, "method"), dstr(d, "host"),
		    (long long)(json_int(d, "port", &x) == 0 ? x : 0), dstr(d, "verdict"),
		    (long long)(json_int(d, "bytes_up", &a) == 0 ? a : 0),
		    (long long)(json_int(d, "bytes_down", &b) == 0 ? b : 0),
		    (long long)(json_int(d, "duration_ms", &x) == 0 ? x : 0),
		    *dstr(d, "reason") ? ": " : "", dstr(d, "reason"),
		    *dstr(d, "error") ? "; " : "", dstr(d, "error"));
	else if ((canon = json_canonical(d))) {
		snprintf(out, n, "%s", display_tmp_width(canon, 300));
		free(canon);
	} else {
		out[0] = '\0';
	}
}

static int
audit_show_cmd(struct sbx_ctx *c, int argc, char **argv)
{
	char folder[PATH_MAX], when[40], line[1024];
	const char *req = NULL, *sess = NULL, *rid, *sid, *ev;
	const char *p, *end, *nl;
	int64_t since = -1, t, seq;
	cJSON *doc;
	static struct log l;
	struct log_reader rd;
	int i, json = 0, shown = 0, got, quit;
	char *s;

	static const struct option opts[] = {
		SBX_OPTS_COMMON, { "json", no_argument, NULL, 'j' },
		{ "request", required_argument, NULL, 'r' }, { "session", required_argument, NULL, 's' },
		{ "since", required_argument, NULL, 'S' }, { NULL, 0, NULL, 0 },
	};

	while ((i = getopt_long(argc, argv, "C:h", opts, NULL)) != -1) {
		if (i == 'j')
			json = 1;
		else if (i == 'r')
			req = optarg;
		else if (i == 's')
			sess = optarg;
		else if (i == 'S') {
			if ((since = parse_since(optarg)) < 0) {
				fprintf(stderr, "sbx: --since wants epoch seconds, YYYY-MM-DD[THH:MM[:SS]] "
				    "or an age like 30m, 2h, 7d\n");
				return 2;
			}
		} else if ((quit = sub_opt_common(c, i, show_use)) >= 0) {
			return quit;
		}
	}
	if (optind < argc)
		return sub_usage(show_use, 0);
	if (ctx_folder(c, folder, sizeof(folder)) < 0 || log_list(c, folder, &l) < 0)
		return 1;
	rd = (struct log_reader){ .l = &l, .seg = -1, .fd = -1 };
	if (req)
		(void)show_indexed(folder, &l, req, &rd);
	while ((got = log_next(&rd, &p, &end)) > 0) {
		for (; p < end; p = nl + 1) {
			if (!(nl = memchr(p, '\n', (size_t)(end - p))))
				break;
			if (!(doc = cJSON_ParseWithLength(p, (size_t)(nl - p))))
				continue;
			rid = json_str(doc, "request");
			sid = json_str(doc, "session");
			ev = json_str(doc, "event");
			if ((req && (!rid || strncmp(rid, req, strlen(req)) != 0)) ||
			    (sess && (!sid || strcmp(sid, sess) != 0)) ||
			    json_int(doc, "time", &t) < 0 || (since >= 0 && t < since) || !ev) {
				cJSON_Delete(doc);
				continue;
			}
			/* --json prints an array one record at a time: constant memory. */
			if (json) {
				s = cJSON_Print(doc);
				printf("%s%s", shown ? ",\n" : "[\n", s ? s : "{}");
				free(s);
				shown++;
				cJSON_Delete(doc);
				continue;
			}
			shown++;
			fmt_time(t, when, sizeof(when));
			summary(ev, cJSON_GetObjectItemCaseSensitive(doc, "data"), line, sizeof(line));
			if (json_int(doc, "seq", &seq) < 0)
				seq = -1;
			printf("%s  #%-6lld %-18s %-16s %-14s %s\n", when, (long long)seq,
			    display_tmp(ev), rid ? display_tmp(rid) : "-", dstr(doc, "actor"),
			    display_tmp(line));
			cJSON_Delete(doc);
		}
	}
	reader_close(&rd);
	if (got < 0) {
		if (json)
			printf("%s]\n", shown ? "\n" : "[");
		fprintf(stderr, "sbx: %s\n", rd.err);
		log_free(&l);
		return 1;
	}
	if (json) {
		printf("%s]\n", shown ? "\n" : "[");
	} else if (!shown) {
		printf("no records%s\n", req || sess || since >= 0 ? " match" : "");
	}
	log_free(&l);
	return 0;
}

/*
 * Copies the whole lines of segment NAME (under sbfd) into fd after its
 * "segment NAME LEN" line: LEN ends at the last newline when the copy
 * starts (sbxd may be appending to audit.jsonl), so the bundle holds
 * whole records only. Constant memory. 0, or -1 with errno.
 */
static int
copy_segment(int sbfd, const char *name, int fd, char *buf, size_t cap)
{
	char hdr[96];
	struct stat st;
	off_t len, tail, done;
	ssize_t n;
	int in, rc = -1, hn;
	char *nl;

	in = openat(sbfd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
	if (in < 0)
		return -1;
	if (fstat(in, &st) < 0 || !S_ISREG(st.st_mode) || st.st_nlink != 1) {
		errno = EINVAL;
		goto out;
	}
	/* The last newline within the last line's length of the end. */
	len = 0;
	tail = st.st_size > (off_t)cap ? st.st_size - (off_t)cap : 0;
	if (st.st_size > 0) {
		if ((n = pread(in, buf, (size_t)(st.st_size - tail), tail)) < 0)
			goto out;
		if ((nl = memrchr(buf, '\n', (size_t)n)))
			len = tail + (off_t)(nl - buf) + 1;
		else if (tail > 0) {
			errno = EINVAL;     /* a line longer than AUDIT_MAX_LINE */
			goto out;
		}
	}
	hn = snprintf(hdr, sizeof(hdr), "segment %s %lld\n", name, (long long)len);
	if (hn < 0 || (size_t)hn >= sizeof(hdr) || write_all(fd, hdr, (size_t)hn) < 0)
		goto out;
	for (done = 0; done < len; done += n) {
		n = pread(in, buf, len - done < (off_t)cap ? (size_t)(len - done) : cap, done);
		if (n < 0 && errno == EINTR) {
			n = 0;
			continue;
		}
		if (n <= 0) {
			if (n == 0)
				errno = EIO;    /* shorter than it was: not ours to guess */
			goto out;
		}
		if (write_all(fd, buf, (size_t)n) < 0)
			goto out;
	}
	rc = 0;
out:
	close(in);
	return rc;
}

static int
export_evidence(const char *folder, const struct log *l, const char *file)
{
	char hash[65], sig[129], pk[65], hdr[512];
	const size_t cap = AUDIT_MAX_LINE + 1;
	char *buf = NULL;
	int fd, i, n, rc = -1;

	fd = open(file, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0) {
		fprintf(stderr, "sbx: cannot create %s: %s\n", file, strerror(errno));
		return 1;
	}
	if (!(buf = malloc(cap)))
		goto out;
	hex_encode(pk, l->pk, 32);
	n = snprintf(hdr, sizeof(hdr), "%s\nfolder %s\ncreated %lld\n", EVIDENCE_MAGIC, folder,
	    (long long)(now_ms() / 1000));
	if (n < 0 || (size_t)n >= sizeof(hdr) || write_all(fd, hdr, (size_t)n) < 0)
		goto out;
	if (l->have_pk) {
		n = snprintf(hdr, sizeof(hdr), "daemon-key %s\n", pk);
		if (write_all(fd, hdr, (size_t)n) < 0)
			goto out;
	}
	if (l->have_head) {
		hex_encode(hash, l->head.hash, 32);
		hex_encode(sig, l->head.sig, 64);
		n = snprintf(hdr, sizeof(hdr), "head %lld %s %lld %s %s\n", (long long)l->head.seq,
		    hash, (long long)l->head.time, l->head.key_id, sig);
	} else {
		n = snprintf(hdr, sizeof(hdr), "head none\n");
	}
	if (write_all(fd, hdr, (size_t)n) < 0)
		goto out;
	for (i = 0; i < l->n; i++)
		if (copy_segment(l->sbfd, l->name[i], fd, buf, cap) < 0)
			goto out;
	if (write_all(fd, "end\n", 4) < 0 || fsync(fd) < 0)
		goto out;
	rc = 0;
out:
	if (rc < 0)
		fprintf(stderr, "sbx: cannot write %s: %s\n", file, strerror(errno));
	free(buf);
	close(fd);
	if (rc < 0)
		(void)unlink(file);
	return rc < 0 ? 1 : 0;
}

/* Sends the records (time >= since) to syslog, piece by piece. */
static int
export_syslog(struct log *l, int64_t since)
{
	struct log_reader rd = { .l = l, .seg = -1, .fd = -1 };
	const char *p, *end, *nl, *why;
	struct audit_line al;
	long sent = 0;
	int got;

	openlog("sbx-audit", LOG_PID | LOG_NDELAY, LOG_AUTHPRIV);
	while ((got = log_next(&rd, &p, &end)) > 0)
		for (; p < end; p = nl + 1) {
			if (!(nl = memchr(p, '\n', (size_t)(end - p))))
				break;
			if (audit_line_check(p, (size_t)(nl - p), &al, &why) < 0 ||
			    (since >= 0 && al.time < since))
				continue;
			syslog(LOG_INFO, "%.*s", (int)(nl - p), p);
			sent++;
		}
	closelog();
	reader_close(&rd);
	if (got < 0) {
		fprintf(stderr, "sbx: %s (after %ld records sent)\n", rd.err, sent);
		return 1;
	}
	printf("sent %ld records to syslog (facility authpriv, tag sbx-audit)\n", sent);
	return 0;
}

static int
audit_export_cmd(struct sbx_ctx *c, int argc, char **argv)
{
	char folder[PATH_MAX];
	const char *evidence = NULL;
	int64_t since = -1;
	static struct log l;
	int i, sys = 0, rc, quit;

	static const struct option opts[] = {
		SBX_OPTS_COMMON, { "syslog", no_argument, NULL, 'y' },
		{ "evidence", required_argument, NULL, 'e' }, { "since", required_argument, NULL, 'S' },
		{ NULL, 0, NULL, 0 },
	};
	static const char use[] = "usage: sbx audit export --syslog [--since TIME]\n"
	    "       sbx audit export --evidence FILE\n";

	while ((i = getopt_long(argc, argv, "C:h", opts, NULL)) != -1) {
		if (i == 'y')
			sys = 1;
		else if (i == 'e')
			evidence = optarg;
		else if (i == 'S' && (since = parse_since(optarg)) >= 0)
			;
		else if ((quit = sub_opt_common(c, i, use)) >= 0)
			return quit;
	}
	if (optind < argc || sys == !!evidence)
		return sub_usage(use, 0);
	if (ctx_folder(c, folder, sizeof(folder)) < 0 || log_list(c, folder, &l) < 0)
		return 1;
	rc = sys ? export_syslog(&l, since) : export_evidence(folder, &l, evidence);
	if (rc == 0 && evidence)
		printf("wrote %s: %d segment%s, %s, %s\n", evidence, l.n, l.n == 1 ? "" : "s",
		    l.have_head ? "the signed head" : "no signed head",
		    l.have_pk ? "the daemon's public key" : "no daemon public key");
	log_free(&l);
	return rc;
}

int
cmd_audit(struct sbx_ctx *c, int argc, char **argv)
{
	static const struct option opts[] = { SBX_OPTS_COMMON, { NULL, 0, NULL, 0 } };
	int ch, help = 0;

	/* -C DIR (and --help) may come between "audit" and its verb */
	while ((ch = getopt_long(argc, argv, "+C:h", opts, NULL)) != -1) {
		if (ch == 'C')
			c->dir = optarg;
		else if (ch == 'h')
			help = 1;
		else
			argc = 0;
	}
	argv += optind - 1;
	argc -= optind - 1;
	optind = 0;             /* the verb parses its own options */
	if (help) {
		printf("usage: sbx audit verify [--json] [--evidence FILE [--key HEX]]\n"
		    "       sbx audit show [--request ID] [--session ID] [--since TIME] [--json]\n"
		    "       sbx audit export --syslog [--since TIME] | --evidence FILE\n");
		return 0;
	}
	if (argc >= 2 && !strcmp(argv[1], "verify"))
		return audit_verify_cmd(c, argc - 1, argv + 1);
	if (argc >= 2 && !strcmp(argv[1], "show"))
		return audit_show_cmd(c, argc - 1, argv + 1);
	if (argc >= 2 && !strcmp(argv[1], "export"))
		return audit_export_cmd(c, argc - 1, argv + 1);
	fprintf(stderr, "usage: sbx audit verify [--json] [--evidence FILE [--key HEX]]\n"
	    "       sbx audit show [--request ID] [--session ID] [--since TIME] [--json]\n"
	    "       sbx audit export --syslog [--since TIME] | --evidence FILE\n");
	return 2;
}
