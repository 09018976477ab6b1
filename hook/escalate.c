/*
 * escalate.c - queue a request and wait for its result; see escalate.h.
 *
 * MUST write only into .sandbox/queue/. MUST open result and request
 * files with openat + O_NOFOLLOW + fstat (read_daemon_file). MUST bound
 * every wait by the deadline.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <unistd.h>

#include "common/base/json.h"
#include "common/protocol/users.h"
#include "common/protocol/wake.h"
#include "common/trust/result_sig.h"
#include "hook/escalate.h"

/* sbxd's public key (CONFIG/daemon.pub), for results: loaded once. */
static unsigned char daemon_pk[32];
static int daemon_pk_state;     /* 0 not tried, 1 loaded, -1 missing */

/* Loads sbxd's public key once (escalate() does it while sbxd works on
 * the request, so that reading a result does not wait for it): the key is
 * CONFIG/daemon.pub, or, in a folder handed over to sbxd's own user
 * (deployment 3), CONFIG/daemon.UID.pub of that user, which sbx handover
 * put there (an sbxd of our own keeps daemon.pub for our folders). */
static void
daemon_key_load(int sbfd)
{
	char config[PATH_MAX], name[48] = "daemon.pub";
	struct sandbox_users u;
	struct sbx_err err;
	struct stat st;

	if (daemon_pk_state != 0)
		return;
	if (fstat(sbfd, &st) == 0 && st.st_uid != geteuid() &&
	    sandbox_users_read(sbfd, &u, &err) == 1)
		snprintf(name, sizeof(name), "daemon.%lu.pub", (unsigned long)u.daemon);
	daemon_pk_state = config_dir(config, sizeof(config)) == 0 &&
	    result_pub_load(config, name, daemon_pk) == 0 ? 1 : -1;
}

/* A result counts only when sbxd signed it (common/trust/result_sig.h): a file
 * forged in results/ by code in the folder is never delivered. */
static int
result_trusted(int sbfd, const cJSON *doc)
{
	daemon_key_load(sbfd);
	return daemon_pk_state == 1 && result_sig_ok(doc, daemon_pk);
}

cJSON *
esc_read_json(int sbfd, const char *dir, const char *id)
{
	char name[PATH_MAX];
	struct sbx_err err;
	size_t len;
	char *text;
	cJSON *doc;

	if (xsnprintf(name, sizeof(name), "%s/%s.json", dir, id) < 0)
		return NULL;
	if (!(text = read_daemon_file(sbfd, name, SBX_MAX_RESULT, &len, &err)))
		return NULL;
	doc = cJSON_ParseWithLength(text, len);
	free(text);
	if (!cJSON_IsObject(doc)) {
		cJSON_Delete(doc);
		return NULL;
	}
	return doc;
}

/* Reads DIR/ID.json (esc_read_json) and returns it if its "hash" is the
 * given one (and, for results/, sbxd signed it for ID). */
static cJSON *
load_if_hash(int sbfd, const char *dir, const char *id, const char *hash_hex)
{
	cJSON *doc;
	const char *h;

	if (!(doc = esc_read_json(sbfd, dir, id)))
		return NULL;
	h = json_str(doc, "hash");
	if (!h || strcmp(h, hash_hex) != 0 ||
	    (strcmp(dir, "results") == 0 && (!result_trusted(sbfd, doc) || !json_str(doc, "id") ||
	    strcmp(json_str(doc, "id"), id) != 0))) {
		cJSON_Delete(doc);
		return NULL;
	}
	return doc;
}

/* DIR/IDSUFFIX exists (as anything): no symlink on the way is followed,
 * so one planted in the queue's path cannot answer for it. */
static int
exists_at(int sbfd, const char *dir, const char *id, const char *suffix)
{
	char name[PATH_MAX];

	if (xsnprintf(name, sizeof(name), "%s/%s%s", dir, id, suffix) < 0)
		return 0;
	return exists_nf(sbfd, name);
}

/*
 * Claims the one delivery of a result: 1 when this caller got it, 0 when
 * another caller has (the receipt exists), -1 (errno set) when it cannot
 * be recorded. For a one-time allowance (WITH_NONCE) the receipt holds
 * NONCE (32 random hex digits, filled here): written to queue/tmp, then
 * linked into place (EEXIST: taken), so it appears whole (sbxd never
 * reads a half-written one); otherwise it is empty, made with O_EXCL.
 * Either way it is reached without following a symlink on the way. The
 * receipt stays until retention prunes the request's output, so a
 * second identical call racing this one finds it. The agent can delete it (queue/ is its drop
 * box): for a one-time allowance the receipt is therefore only a claim,
 * and sbxd's confirmation decides (confirm()).
 */
static int
claim_delivery(int sbfd, const char *id, char nonce[SBX_RECEIPT_LEN + 1], int with_nonce)
{
	unsigned char rnd[SBX_RECEIPT_LEN / 2];
	char tmp[64];
	const char *base;
	int dfd = -1, tfd = -1, fd = -1, rc = -1, e;

	nonce[0] = '\0';
	if ((dfd = at_parent(sbfd, queue_path(QP_DELIVERED, id).s, &base)) < 0)
		return -1;
	/* Without a nonce (a result other than an allowance): the receipt
	 * alone, empty, made at once. */
	if (!with_nonce) {
		fd = openat(dfd, base, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
		    sandbox_file_mode(sbfd));
		e = errno;
		close(dfd);
		if (fd >= 0) {
			(void)sandbox_fchmod(sbfd, fd, 0);
			close(fd);
		}
		errno = e;
		return fd >= 0 ? 1 : errno == EEXIST ? 0 : -1;
	}
	if (getrandom(rnd, sizeof(rnd), 0) != (ssize_t)sizeof(rnd)) {
		close(dfd);
		errno = EAGAIN;
		return -1;
	}
	hex_encode(nonce, rnd, sizeof(rnd));
	snprintf(tmp, sizeof(tmp), ".receipt.%ld.%.16s", (long)getpid(), nonce);
	if ((tfd = openat_nf(sbfd, "queue/tmp", O_RDONLY | O_DIRECTORY | O_CLOEXEC, 0)) < 0 ||
	    (fd = openat(tfd, tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
	    sandbox_file_mode(sbfd))) < 0)
		goto out;
	if (sandbox_fchmod(sbfd, fd, 0) < 0 || write_all(fd, nonce, SBX_RECEIPT_LEN) < 0)
		goto out;
	if (linkat(tfd, tmp, dfd, base, 0) == 0)
		rc = 1;
	else if (errno == EEXIST)
		rc = 0;
out:
	e = errno;
	if (fd >= 0) {
		close(fd);
		(void)unlinkat(tfd, tmp, 0);
	}
	if (tfd >= 0)
		close(tfd);
	if (dfd >= 0)
		close(dfd);
	errno = e;
	return rc;
}

/*
 * An approved result is a one-time allowance (the call it opens is
 * allowed once): it is this caller's only when sbxd confirmed that the
 * receipt it found first is this caller's, by signing a copy of the
 * result that names the receipt's nonce ("receipt"). A receipt deleted
 * and made again by another call cannot make sbxd confirm twice: it
 * writes "receipt" once per request, and "" when the receipt was gone.
 * Other results (a command's output, a denial) are handed back on the
 * receipt alone: a second copy runs nothing.
 */
static int
needs_confirm(const cJSON *r)
{
	const char *status = json_str(r, "status");

	return status && strcmp(status, req_status_name(REQ_APPROVED)) == 0;
}

/* 1 when r names nonce as its receipt, 0 when it names another (or none:
 * ""), -1 when it names nothing yet. */
static int
receipt_is(const cJSON *r, const char *nonce)
{
	const char *got = json_str(r, "receipt");

	if (!got)
		return -1;
	return strlen(got) == SBX_RECEIPT_LEN && strcmp(got, nonce) == 0;
}

/*
 * The receipt of a request this caller waits on, made ahead, while sbxd
 * works on the request: an unnamed file (O_TMPFILE) in queue/delivered,
 * opened without following a symlink. claim_prepared() gives it its name.
 * -1 where the filesystem has no O_TMPFILE: the claim then creates it.
 */
static int
receipt_prepare(int sbfd, const char *id)
{
	const char *base;
	int dfd, fd, e;

	if ((dfd = at_parent(sbfd, queue_path(QP_DELIVERED, id).s, &base)) < 0)
		return -1;
	fd = openat(dfd, ".", O_TMPFILE | O_WRONLY | O_CLOEXEC, sandbox_file_mode(sbfd));
	e = errno;
	close(dfd);
	if (fd >= 0 && sandbox_fchmod(sbfd, fd, 0) < 0) {
		e = errno;
		close(fd);
		fd = -1;
	}
	errno = e;
	return fd;
}

/*
 * claim_delivery() with the receipt made ahead (TFD, receipt_prepare):
 * the claim is a link(2) of it to queue/delivered/ID, as exclusive as
 * O_EXCL (EEXIST: another caller has the receipt), and no inode is
 * allocated between the result and the answer (on ext4 without a
 * journal that walks every inode freed in the last 30 s: see
 * docs/BENCHMARKS.md, "The hook's share"). For a one-time allowance
 * (WITH_NONCE) NONCE is filled and written into it first, so the name
 * appears with it whole, and no temporary name is made and removed. The
 * directory is opened now, without following a symlink: one swapped for
 * a symlink is -1 (not recorded). Without TFD, or when the nonce cannot
 * be written or the link fails otherwise (no /proc), it is
 * claim_delivery().
 */
static int
claim_prepared(int sbfd, const char *id, int tfd, char nonce[SBX_RECEIPT_LEN + 1],
    int with_nonce)
{
	unsigned char rnd[SBX_RECEIPT_LEN / 2];
	const char *base;
	int dfd, rc, e;

	nonce[0] = '\0';
	if (tfd < 0 || !valid_id(id))
		return claim_delivery(sbfd, id, nonce, with_nonce);
	if (with_nonce) {
		if (getrandom(rnd, sizeof(rnd), 0) != (ssize_t)sizeof(rnd))
			return claim_delivery(sbfd, id, nonce, with_nonce);
		hex_encode(nonce, rnd, sizeof(rnd));
		if (pwrite(tfd, nonce, SBX_RECEIPT_LEN, 0) != SBX_RECEIPT_LEN)
			return claim_delivery(sbfd, id, nonce, with_nonce);
	}
	/* queue/delivered swapped for a symlink (or gone): not recorded. */
	if ((dfd = at_parent(sbfd, queue_path(QP_DELIVERED, id).s, &base)) < 0)
		return -1;
	rc = link_fd_at(tfd, dfd, base);
	e = errno;
	close(dfd);
	if (rc == 0)
		return 1;
	if (e == EEXIST)
		return 0;
	/* No /proc here, or a filesystem that refuses the link. */
	return claim_delivery(sbfd, id, nonce, with_nonce);
}

/*
 * What one pass over the queue found for a call: a finished result not
 * yet handed back (claimed for delivery), or an unfinished request to
 * attach to; and how many requests are unfinished (the pending cap).
 */
struct finder {
	const char *hash_hex;
	char attach[SBX_ID_LEN + 1];
	char done_id[SBX_ID_LEN + 1];
	char nonce[SBX_RECEIPT_LEN + 1];    /* done_id's receipt */
	cJSON *result;
	int unfinished;
	int wfd;                /* done_id's wake FIFO, for an allowance */
	int claim_errno;        /* a receipt that could not be made, for ID: */
	char claim_id[SBX_ID_LEN + 1];
	char claim_status[16];  /* ... and its result's status */
};

/*
 * Scans DIR (queue/new or pending/: both stay small, since sbxd moves
 * delivered requests to done/). Names are ID.json; the first 8 digits of
 * an ID are those of its hash, so only same-prefix entries are opened.
 * Returns -1 when DIR cannot be read.
 */
static int
scan_requests(int sbfd, const char *dir, struct finder *f)
{
	char id[SBX_ID_LEN + 1];
	struct dirent *de;
	cJSON *doc;
	DIR *d;
	int finished, got;

	if (!(d = opendir_at(sbfd, dir))) {
		return -1;
	}
	while ((de = readdir(d))) {
		if (!valid_request_name(de->d_name, id))
			continue;
		finished = exists_at(sbfd, "results", id, ".json");
		f->unfinished += !finished;
		if (f->result || f->claim_errno || strncmp(id, f->hash_hex, 8) != 0 ||
		    (finished && exists_at(sbfd, "queue/delivered", id, "")) ||
		    (!finished && f->attach[0]))
			continue;
		if (!(doc = load_if_hash(sbfd, dir, id, f->hash_hex)))
			continue;
		cJSON_Delete(doc);
		/* A result sbxd did not sign does not finish the request. */
		doc = finished ? load_if_hash(sbfd, "results", id, f->hash_hex) : NULL;
		if (!doc) {
			if (!f->attach[0])
				memcpy(f->attach, id, sizeof(f->attach));
			continue;
		}
		/* A one-time allowance waits for sbxd's confirmation: its
		 * wake channel exists before the claim sbxd answers. With no
		 * sbxd to confirm it, it is not claimed (it would be lost):
		 * the call is told it waits for sbxd (attach). */
		if (needs_confirm(doc) && daemon_serving(sbfd) == 0) {
			if (!f->attach[0])
				memcpy(f->attach, id, sizeof(f->attach));
			cJSON_Delete(doc);
			continue;
		}
		if (needs_confirm(doc))
			f->wfd = wake_open(sbfd, id);
		got = claim_delivery(sbfd, id, f->nonce, needs_confirm(doc));
		if (got == 1) {
			memcpy(f->done_id, id, sizeof(f->done_id));
			f->result = doc;
			continue;
		}
		/* Not ours: another call claimed it (a later call is queued
		 * anew), or the receipt cannot be made: then never a second
		 * request for it, the caller is told why (ESC_TAKEN). */
		if (got < 0 && !f->claim_errno) {
			f->claim_errno = errno ? errno : EIO;
			memcpy(f->claim_id, id, sizeof(f->claim_id));
			snprintf(f->claim_status, sizeof(f->claim_status), "%s",
			    json_str(doc, "status") ? json_str(doc, "status") : "unknown");
		}
		wake_close(sbfd, id, f->wfd);
		f->wfd = -1;
		cJSON_Delete(doc);
	}
	closedir(d);
	return 0;
}

static int
submit(int sbfd, const struct esc_request *rq, const char *hash_hex,
    const char *id, struct sbx_err *err)
{
	char dst[PATH_MAX];
	cJSON *doc = cJSON_CreateObject();
	char *text = NULL;
	int rc = -1;

	if (!doc)
		goto fail;
	cJSON_AddNumberToObject(doc, "v", 1);
	cJSON_AddStringToObject(doc, "id", id);
	cJSON_AddStringToObject(doc, "hash", hash_hex);
	cJSON_AddNumberToObject(doc, "created", (double)(now_ms() / 1000));
	cJSON_AddStringToObject(doc, "agent", rq->agent);
	cJSON_AddStringToObject(doc, "session_id", rq->session_id ? rq->session_id : "");
	cJSON_AddStringToObject(doc, "tool_use_id", rq->tool_use_id ? rq->tool_use_id : "");
	cJSON_AddStringToObject(doc, "tool", rq->tool);
	cJSON_AddItemToObject(doc, "input", rq->input ? cJSON_Duplicate(rq->input, 1)
	    : cJSON_CreateObject());
	cJSON_AddStringToObject(doc, "folder", rq->folder);
	cJSON_AddStringToObject(doc, "cwd", rq->cwd);
	cJSON_AddStringToObject(doc, "trigger", rq->why->trigger);
	cJSON_AddStringToObject(doc, "rule", rq->why->rule);
	cJSON_AddStringToObject(doc, "reason", rq->why->reason);
	if (!(text = json_print_line(doc)))
		goto fail;
	if (strlen(text) > SBX_MAX_REQUEST) {
		err_set(err, "the call is too large to queue (%zu bytes, limit %d)",
		    strlen(text), SBX_MAX_REQUEST);
		goto out;
	}
	if (xsnprintf(dst, sizeof(dst), "%s", queue_path(QP_NEW, id).s) < 0)
		goto fail;
	/* No fsync: sbxd makes the request durable when it records it
	 * (state.db, in the claim's transaction). Before that, a crash of
	 * the machine also ends this hook; a request torn by it is
	 * rejected by sbxd as unreadable. (docs/QUEUE.md, "Syncs") */
	if (write_atomic(sbfd, "queue/tmp", dst, text, strlen(text), sandbox_file_mode(sbfd),
	    WA_NOREPLACE | WA_NOSYNC) < 0) {
		err_set(err, "cannot write to the queue %s/.sandbox/queue: %s",
		    rq->folder, strerror(errno));
		goto out;
	}
	rc = 0;
	goto out;
fail:
	err_set(err, "out of memory building the request");
out:
	free(text);
	cJSON_Delete(doc);
	return rc;
}

/* results/ID.json when sbxd signed it for this request's hash, else NULL. */
static cJSON *
result_ready(int sbfd, const char *id, const char *hash_hex)
{
	char path[PATH_MAX];
	struct sbx_err err;
	cJSON *doc = NULL;
	size_t len;
	char *text;

	if (xsnprintf(path, sizeof(path), "%s", queue_path(QP_RESULT, id).s) < 0 ||
	    !(text = read_daemon_file(sbfd, path, SBX_MAX_RESULT, &len, &err)))
		return NULL;
	doc = cJSON_ParseWithLength(text, len);
	free(text);
	/* Bound to this request (its id and hash) and signed by sbxd, or not
	 * a result: sbxd replaces a forged one and the wait goes on. A signed
	 * result of another request, copied here, names that request. */
	if (doc && (!json_str(doc, "hash") || strcmp(json_str(doc, "hash"), hash_hex) != 0 ||
	    !json_str(doc, "id") || strcmp(json_str(doc, "id"), id) != 0 ||
	    !result_trusted(sbfd, doc))) {
		cJSON_Delete(doc);
		doc = NULL;
	}
	return doc;
}

/*
 * Waits for results/ID.json until deadline (monotonic ms), or until no
 * sbxd serves the folder any more (*gone set): checked every second.
 * WFD is the request's wake FIFO (common/protocol/wake.h), opened before the
 * request was dropped, or -1. A wake only makes it look again; without
 * one it looks again on a timer that backs off from 50 ms to 1 s, so a
 * forged, lost or replaced channel costs time, never a wrong answer.
 */
static cJSON *
wait_result(int sbfd, int *wfd, const char *id, const char *hash_hex, int64_t deadline,
    int *gone, const char *nonce)
{
	cJSON *doc = NULL;
	int64_t now, next_check = mono_ms() + 1000;
	int left, recheck = SBX_WAKE_RECHECK_MIN_MS, woken = 0;

	for (;;) {
		/* With a nonce: only the result sbxd confirmed a receipt in. */
		if ((doc = result_ready(sbfd, id, hash_hex)) &&
		    (!nonce || receipt_is(doc, nonce) >= 0))
			break;
		cJSON_Delete(doc);
		doc = NULL;
		/* Woken and nothing there: spurious or forged; consume it. */
		if (woken)
			wake_drain(*wfd);
		now = mono_ms();
		left = (int)(deadline - now);
		if (left <= 0)
			break;
		if (now >= next_check) {
			if (daemon_serving(sbfd) == 0) {
				*gone = 1;
				break;
			}
			next_check = now + 1000;
		}
		if (left > recheck)
			left = recheck;
		if ((woken = wake_wait(*wfd, left)) < 0)
			woken = 0;
		/* No wake: the channel is checked (still at its name, else got
		 * anew) before the next look, so a lost one costs one re-check. */
		if (!woken)
			*wfd = wake_renew(sbfd, id, *wfd);
		if (!woken && recheck < SBX_WAKE_RECHECK_MAX_MS)
			recheck *= 2;
	}
	return doc;
}

/* Marks out ESC_TAKEN: its result is not this caller's; msg says why when
 * it is not simply another caller's. */
static void
taken(struct esc_outcome *out, const char *status, const char *why, int e)
{
	snprintf(out->status, sizeof(out->status), "%s", status ? status : "unknown");
	if (why)
		xsnprintf(out->msg, sizeof(out->msg), "%s%s%s", why, e ? ": " : "",
		    e ? strerror(e) : "");
	cJSON_Delete(out->result);
	out->result = NULL;
	out->state = ESC_TAKEN;
}

/*
 * out->result was claimed with receipt NONCE: a one-time allowance
 * (needs_confirm) is this caller's only once sbxd confirmed this very
 * receipt (a signed copy naming NONCE replaces out->result); waits for
 * that on wfd until the deadline, and at least SBX_CONFIRM_MS (the hook's
 * alarm leaves 5 s more). Anything else is ESC_TAKEN, never an allow.
 */
#define SBX_CONFIRM_MS 3000
static void
confirm(int sbfd, int *wfd, const char *hash_hex, int64_t deadline, const char *nonce,
    struct esc_outcome *out)
{
	const char *status = json_str(out->result, "status");
	char st[16];
	cJSON *doc;
	int gone = 0;

	if (!needs_confirm(out->result)) {
		out->state = ESC_RESULT;
		return;
	}
	snprintf(st, sizeof(st), "%s", status);
	if (deadline < mono_ms() + SBX_CONFIRM_MS)
		deadline = mono_ms() + SBX_CONFIRM_MS;
	doc = wait_result(sbfd, wfd, out->id, hash_hex, deadline, &gone, nonce);
	if (doc && receipt_is(doc, nonce) == 1) {
		cJSON_Delete(out->result);
		out->result = doc;
		out->state = ESC_RESULT;
		return;
	}
	cJSON_Delete(doc);
	taken(out, st, doc ? NULL : gone ? "sbxd stopped serving the folder before it "
	    "confirmed the delivery" : "sbxd did not confirm its delivery in time", 0);
}

/*
 * A result arrived for the request this caller waited on: it is this
 * caller's only with the delivery receipt (and, for a one-time allowance,
 * sbxd's confirmation of it). Another identical call may have waited on
 * the same request (it attached) and taken it first; then this one gets
 * ESC_TAKEN, never a second delivery (an approval that opens a call
 * allows one call, once). A receipt that cannot be made (queue/delivered
 * missing, a full disk) is ESC_TAKEN with the reason: without it the
 * delivery is not recorded, and an allowance would not be one-time.
 */
static void
hand_over(int sbfd, int *wfd, int tfd, const char *folder, const char *hash_hex,
    int64_t deadline, struct esc_outcome *out)
{
	char nonce[SBX_RECEIPT_LEN + 1], why[PATH_MAX + 64];
	int got, e, cwfd = -1;

	/* The receipt is the one made ahead (TFD), linked into place; a
	 * one-time allowance's holds a nonce. sbxd's wake for the allowance's
	 * confirmation comes on the FIFO the hook waits on (sbxd leaves its
	 * name): the result's wake is drained before the claim, so the next
	 * byte is the confirmation's (or forged: then it looks again);
	 * without one, one is got before the claim. */
	if (needs_confirm(out->result) && *wfd < 0)
		cwfd = wake_open(sbfd, out->id);
	else if (needs_confirm(out->result))
		wake_drain(*wfd);
	got = claim_prepared(sbfd, out->id, tfd, nonce, needs_confirm(out->result));
	e = errno;
	if (got == 1) {
		confirm(sbfd, cwfd >= 0 ? &cwfd : wfd, hash_hex, deadline, nonce, out);
		wake_close(sbfd, out->id, cwfd);
		return;
	}
	wake_close(sbfd, out->id, cwfd);
	xsnprintf(why, sizeof(why), "its delivery cannot be recorded in "
	    "%s/.sandbox/queue/delivered", folder);
	taken(out, json_str(out->result, "status"), got < 0 ? why : NULL, got < 0 ? e : 0);
}

void
escalate(const struct esc_request *rq, struct esc_outcome *out)
{
	unsigned char hash[SBX_HASH_LEN];
	char hash_hex[2 * SBX_HASH_LEN + 1];
	struct finder f = { .result = NULL, .wfd = -1 };
	struct sbx_err err;
	int sbfd, wfd = -1, tfd = -1;
	int64_t deadline = mono_ms() + (int64_t)rq->wait_seconds * 1000;

	memset(out, 0, sizeof(*out));
	out->state = ESC_REFUSED;
	if ((sbfd = sandbox_open(rq->folder, &err)) < 0) {
		xsnprintf(out->msg, sizeof(out->msg), "%s", err.msg);
		return;
	}
	if (request_hash(rq->tool, rq->input, rq->folder, rq->cwd, hash) < 0) {
		xsnprintf(out->msg, sizeof(out->msg), "cannot hash the request");
		goto out;
	}
	hex_encode(hash_hex, hash, sizeof(hash));

	/* The same call finished earlier and was not handed back: return it
	 * once. The same call still queued or pending: attach to it. */
	f.hash_hex = hash_hex;
	/* A result claimed in pending/ (its receipt made) is handed back
	 * whatever queue/new holds: that scan only counts and finds requests
	 * to attach to, which a delivery needs neither of. */
	if (scan_requests(sbfd, "pending", &f) < 0 ||
	    (!f.result && scan_requests(sbfd, "queue/new", &f) < 0)) {
		cJSON_Delete(f.result);
		if (f.wfd >= 0)
			close(f.wfd);
		xsnprintf(out->msg, sizeof(out->msg),
		    "cannot read the queue in %s/.sandbox (run `sbx init %s`)",
		    rq->folder, rq->folder);
		goto out;
	}
	if (f.result) {
		memcpy(out->id, f.done_id, sizeof(out->id));
		out->result = f.result;
		wfd = f.wfd;
		confirm(sbfd, &wfd, hash_hex, deadline, f.nonce, out);
		wake_close(sbfd, out->id, wfd);
		wfd = -1;
		goto out;
	}
	if (f.claim_errno) {
		char why[PATH_MAX + 64];

		memcpy(out->id, f.claim_id, sizeof(out->id));
		xsnprintf(why, sizeof(why), "its delivery cannot be recorded in "
		    "%s/.sandbox/queue/delivered", rq->folder);
		taken(out, f.claim_status, why, f.claim_errno);
		goto out;
	}
	if (f.attach[0]) {
		memcpy(out->id, f.attach, sizeof(out->id));
		wfd = wake_open(sbfd, out->id);
	} else {
		/* A new request, within the pending cap. */
		if (f.unfinished >= rq->limits->max_pending) {
			xsnprintf(out->msg, sizeof(out->msg),
			    "%d requests are already waiting for a human in %s (limit %d); "
			    "wait for decisions before escalating more",
			    f.unfinished, rq->folder, rq->limits->max_pending);
			goto out;
		}
		request_id_make(hash, out->id);
		if (submit(sbfd, rq, hash_hex, out->id, &err) < 0) {
			xsnprintf(out->msg, sizeof(out->msg), "%s", err.msg);
			goto out;
		}
		/* The wake channel is made once the request is in, while sbxd
		 * claims it: sbxd pokes it only after the result is durable,
		 * and wait_result() looks for the result after the channel
		 * exists, so a result that comes first is found, not missed. */
		wfd = wake_open(sbfd, out->id);
	}
	/* No sbxd: nothing would ever answer; say so at once (no silent wait). */
	if (daemon_serving(sbfd) == 0) {
		out->no_daemon = 1;
		out->state = ESC_PENDING;
	} else {
		/* What the delivery needs, done while sbxd works on the
		 * request rather than between its result and the answer. */
		tfd = receipt_prepare(sbfd, out->id);
		daemon_key_load(sbfd);
		out->result = wait_result(sbfd, &wfd, out->id, hash_hex, deadline,
		    &out->no_daemon, NULL);
		if (out->result)
			hand_over(sbfd, &wfd, tfd, rq->folder, hash_hex, deadline, out);
		else
			out->state = ESC_PENDING;
	}
	/* Finished: the wake FIFO goes back to the pool, unless another hook
	 * still waits on it (then the last one gives it back). "Pending"
	 * leaves it for the next identical call (sbxd's sweep pools the
	 * names nobody holds). */
	if (out->state == ESC_RESULT || out->state == ESC_TAKEN) {
		wake_close(sbfd, out->id, wfd);
		wfd = -1;
	}
	/* An sbxd that stopped serving the folder (tampered with) says why. */
	if (out->no_daemon)
		out->stopped = sbxd_stopped(sbfd, out->msg, sizeof(out->msg));
out:
	if (tfd >= 0)
		close(tfd);
	if (wfd >= 0)
		close(wfd);
	close(sbfd);
}

/* Appends s to buf (size cap) as far as it fits. */
static void
append(char *buf, size_t cap, size_t *len, const char *s)
{
	size_t n = strlen(s);

	if (*len + n >= cap)
		n = cap - *len - 1;
	memcpy(buf + *len, s, n);
	*len += n;
	buf[*len] = '\0';
}

/* Appends up to budget bytes of a stream, noting where the rest is. */
static void
append_stream(char *buf, size_t cap, size_t *len, const cJSON *r, const char *name,
    const char *folder, const char *id, size_t budget)
{
	char line[PATH_MAX + 128], key[32];
	const char *text = json_str(r, name);
	int64_t total = 0;
	size_t used;
	char *part;
	int cut;

	snprintf(key, sizeof(key), "%s_bytes", name);
	json_int(r, key, &total);
	if (!text || total == 0)
		return;
	snprintf(line, sizeof(line), "\n--- %s ---\n", name);
	append(buf, cap, len, line);
	part = utf8_clean(text, strlen(text), budget, &used);
	if (!part)
		return;
	append(buf, cap, len, part);
	free(part);
	snprintf(key, sizeof(key), "%s_truncated", name);
	cut = used < strlen(text) || json_bool(r, key) == 1;
	if (cut) {
		snprintf(line, sizeof(line),
		    "\n[%s trimmed: %lld bytes in all; full output in %s/.sandbox/results/%s.%s]",
		    name, (long long)total, folder, id, name);
		append(buf, cap, len, line);
	}
}

char *
result_text(const cJSON *r, const char *folder, size_t max)
{
	const char *status = json_str(r, "status"), *id = json_str(r, "id");
	const char *approver = json_str(r, "approver"), *reason = json_str(r, "reason");
	int64_t code = -1, sig = 0, ms = 0;
	char head[1024];
	size_t len = 0, room, out_len, err_len;
	char *buf;

	if (!(buf = malloc(max + 1)))
		return NULL;
	buf[0] = '\0';
	if (!status || !id) {
		append(buf, max + 1, &len, "sbx: the result file is malformed; ask the user to "
		    "check `sbx show` for this request. Do not run the command yourself.");
		return buf;
	}
	if (!approver)
		approver = "an approver";
	if (!reason)
		reason = "";
	if (strcmp(status, req_status_name(REQ_DONE)) == 0) {
		json_int(r, "exit_code", &code);
		json_int(r, "signal", &sig);
		json_int(r, "duration_ms", &ms);
		if (sig)
			snprintf(head, sizeof(head), "killed by signal %lld%s", (long long)sig,
			    json_bool(r, "timed_out") == 1 ? " after its time limit" : "");
		else
			snprintf(head, sizeof(head), "exit status %lld", (long long)code);
		char line[1400];
		snprintf(line, sizeof(line),
		    "sbx: approved by %s%s and ALREADY EXECUTED outside the agent as request "
		    "%s (%s, %lld ms). Do not run it again; its output follows.",
		    approver, json_bool(r, "auto") == 1 ? " (remembered approval)" : "",
		    id, head, (long long)ms);
		append(buf, max + 1, &len, line);
		room = max > len + 400 ? max - len - 400 : 0;
		out_len = json_str(r, "stdout") ? strlen(json_str(r, "stdout")) : 0;
		err_len = json_str(r, "stderr") ? strlen(json_str(r, "stderr")) : 0;
		/* stderr gets up to a third, stdout the rest. */
		size_t err_room = err_len < room / 3 ? err_len : room / 3;
		if (out_len < room - err_room)
			err_room = room - out_len;
		append_stream(buf, max + 1, &len, r, "stdout", folder, id, room - err_room);
		append_stream(buf, max + 1, &len, r, "stderr", folder, id, err_room);
		if (out_len == 0 && err_len == 0)
			append(buf, max + 1, &len, "\n(no output)");
	} else if (strcmp(status, req_status_name(REQ_DENIED)) == 0) {
		snprintf(head, sizeof(head),
		    "sbx: request %s was DENIED by %s: %s. Do not retry it unchanged or work "
		    "around it; ask the user if you need it.", id, approver,
		    *reason ? reason : "no reason given");
		append(buf, max + 1, &len, head);
	} else if (strcmp(status, req_status_name(REQ_EXPIRED)) == 0) {
		snprintf(head, sizeof(head),
		    "sbx: request %s expired without a decision and will not run. Ask the user "
		    "before requesting it again.", id);
		append(buf, max + 1, &len, head);
	} else if (strcmp(status, req_status_name(REQ_INTERRUPTED)) == 0) {
		snprintf(head, sizeof(head),
		    "sbx: request %s was approved but interrupted while running (%s); it may "
		    "have run in part and will not be re-run. Check its effects before asking "
		    "again.", id, reason);
		append(buf, max + 1, &len, head);
		/* What it printed before it was cut short, when sbxd kept it. */
		room = max > len + 400 ? max - len - 400 : 0;
		append_stream(buf, max + 1, &len, r, "stdout", folder, id, room / 2);
		append_stream(buf, max + 1, &len, r, "stderr", folder, id, room / 2);
	} else {
		snprintf(head, sizeof(head), "sbx: request %s was not executed: %s", id,
		    *reason ? reason : status);
		append(buf, max + 1, &len, head);
	}
	return buf;
}
