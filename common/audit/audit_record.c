/*
 * audit_record.c - record encoding, hashing and chain verification; see
 * audit_record.h and docs/AUDIT.md.
 *
 * MUST hash the defined canonical bytes, never a library's printed text.
 * MUST verify every record it reports as good; report the first break
 * with its segment, line, sequence number and kind.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sodium.h>

#include "common/audit/audit_record.h"
#include "common/base/buf.h"
#include "common/base/json.h"
#include "common/base/util.h"
#include "common/protocol/queue.h"

static const char record_tag[] = "sbx-audit-v1";        /* hashed with its NUL */
static const char checkpoint_tag[] = "sbx-audit-checkpoint-v1";

/* A string (or null) in canonical JSON form. */
static void
bput_jstr(struct buf *b, const char *s)
{
	cJSON *v;
	char *c;

	if (!s) {
		buf_puts(b, "null");
		return;
	}
	if (!(v = cJSON_CreateString(s)) || !(c = json_canonical(v))) {
		cJSON_Delete(v);
		b->oom = 1;
		return;
	}
	buf_puts(b, c);
	free(c);
	cJSON_Delete(v);
}

static int
valid_event(const char *e)
{
	size_t i, n = strlen(e);

	if (n == 0 || n >= sizeof(((struct audit_line *)0)->event))
		return 0;
	for (i = 0; i < n; i++)
		if (!((e[i] >= 'a' && e[i] <= 'z') || e[i] == '_'))
			return 0;
	return 1;
}

static void
record_hash(const unsigned char prev[AUDIT_HASH_LEN], const char *body, size_t n,
    unsigned char out[AUDIT_HASH_LEN])
{
	crypto_generichash_state st;

	crypto_generichash_init(&st, NULL, 0, AUDIT_HASH_LEN);
	crypto_generichash_update(&st, (const unsigned char *)record_tag, sizeof(record_tag));
	crypto_generichash_update(&st, prev, AUDIT_HASH_LEN);
	crypto_generichash_update(&st, (const unsigned char *)body, n);
	crypto_generichash_final(&st, out, AUDIT_HASH_LEN);
}

char *
audit_record_encode(int64_t seq, int64_t time_ms,
    const unsigned char prev[AUDIT_HASH_LEN], const char *event,
    const char *request, const char *session, const char *actor,
    const cJSON *data, unsigned char hash[AUDIT_HASH_LEN], size_t *len)
{
	char num[96], hex[2 * AUDIT_HASH_LEN + 1], *canon;
	struct buf b = { 0 };

	if (!valid_event(event) || !cJSON_IsObject(data) || seq < 1 || !actor) {
		errno = EINVAL;
		return NULL;
	}
	if (!(canon = json_canonical(data)))
		return NULL;
	hex_encode(hex, prev, AUDIT_HASH_LEN);
	snprintf(num, sizeof(num), "{\"seq\":%lld,\"time\":%lld,\"prev\":\"", (long long)seq,
	    (long long)time_ms);
	buf_puts(&b, num);
	buf_puts(&b, hex);
	buf_puts(&b, "\",\"event\":\"");
	buf_puts(&b, event);
	buf_puts(&b, "\",\"request\":");
	bput_jstr(&b, request);
	buf_puts(&b, ",\"session\":");
	bput_jstr(&b, session);
	buf_puts(&b, ",\"actor\":");
	bput_jstr(&b, actor);
	buf_puts(&b, ",\"data\":");
	buf_puts(&b, canon);
	free(canon);
	if (b.oom || b.len + AUDIT_TAIL_LEN + 1 > AUDIT_MAX_LINE) {
		free(b.p);
		errno = b.oom ? ENOMEM : EFBIG;
		return NULL;
	}
	record_hash(prev, b.p, b.len, hash);
	hex_encode(hex, hash, AUDIT_HASH_LEN);
	buf_puts(&b, ",\"hash\":\"");
	buf_puts(&b, hex);
	buf_puts(&b, "\"}\n");
	if (b.oom) {
		free(b.p);
		errno = ENOMEM;
		return NULL;
	}
	*len = b.len;
	return b.p;
}

/* Parses a decimal at *p (no sign, no leading zero except "0"). */
static int
take_num(const char **p, const char *end, int64_t *out)
{
	const char *s = *p;
	int64_t v = 0;

	if (s >= end || *s < '0' || *s > '9' || (*s == '0' && s + 1 < end &&
	    s[1] >= '0' && s[1] <= '9'))
		return -1;
	for (; s < end && *s >= '0' && *s <= '9'; s++) {
		if (v > (INT64_MAX - 9) / 10)
			return -1;
		v = v * 10 + (*s - '0');
	}
	*out = v;
	*p = s;
	return 0;
}

static int
take_lit_n(const char **p, const char *end, const char *lit, size_t n)
{
	if ((size_t)(end - *p) < n || memcmp(*p, lit, n) != 0)
		return -1;
	*p += n;
	return 0;
}
/* A literal's length is known at compile time (strlen was 1% of verify). */
#define take_lit(p, end, lit)   take_lit_n((p), (end), (lit), sizeof(lit) - 1)

/* Lowercase hex digit values; 0xff for anything else. */
static unsigned char hexval_tab[256];

static void
hexval_init(void)
{
	int c;

	if (hexval_tab['0'] == 0 && hexval_tab['1'] == 1)
		return;
	memset(hexval_tab, 0xff, sizeof(hexval_tab));
	for (c = 0; c < 10; c++)
		hexval_tab['0' + c] = (unsigned char)c;
	for (c = 0; c < 6; c++)
		hexval_tab['a' + c] = (unsigned char)(10 + c);
}

/* 64 lowercase hex digits at *p (the verifier's hot path: one table
 * lookup per digit, no copy). */
static int
take_hex(const char **p, const char *end, unsigned char out[AUDIT_HASH_LEN])
{
	const unsigned char *s = (const unsigned char *)*p;
	unsigned char hi, lo, bad = 0;
	int i;

	if (end - *p < 2 * AUDIT_HASH_LEN)
		return -1;
	for (i = 0; i < AUDIT_HASH_LEN; i++) {
		hi = hexval_tab[s[2 * i]];
		lo = hexval_tab[s[2 * i + 1]];
		bad |= (hi | lo) & 0xf0;
		out[i] = (unsigned char)(hi << 4 | lo);
	}
	if (bad)
		return -1;
	*p += 2 * AUDIT_HASH_LEN;
	return 0;
}

/*
 * The verifier's fast path: when the line's "prev" is exactly
 * known_hex (the previous record's hash as written), take known (its
 * bytes) instead of decoding it again. NULL: decode.
 */
static int
line_check(const char *line, size_t n, struct audit_line *out, const char **why,
    const unsigned char *known, const char *known_hex)
{
	static const char digits[] = "0123456789abcdef";
	const char *p = line, *end, *body_end, *e, *hash_hex;
	unsigned char h[AUDIT_HASH_LEN];
	char hex[2 * AUDIT_HASH_LEN];
	size_t k, i;

	memset(out, 0, sizeof(*out));
	hexval_init();
	if (n < AUDIT_TAIL_LEN + 40 || n > AUDIT_MAX_LINE) {
		*why = "not a record (wrong length)";
		return -1;
	}
	body_end = line + n - AUDIT_TAIL_LEN;
	end = line + n;
	p = body_end;
	hash_hex = body_end + sizeof(",\"hash\":\"") - 1;
	if (take_lit(&p, end, ",\"hash\":\"") < 0 || (p += 2 * AUDIT_HASH_LEN) > end ||
	    take_lit(&p, end, "\"}") < 0 || p != end) {
		*why = "no well-formed \"hash\" at the end of the line";
		return -1;
	}
	p = line;
	if (take_lit(&p, body_end, "{\"seq\":") < 0 || take_num(&p, body_end, &out->seq) < 0 ||
	    take_lit(&p, body_end, ",\"time\":") < 0 || take_num(&p, body_end, &out->time) < 0 ||
	    take_lit(&p, body_end, ",\"prev\":\"") < 0 ||
	    (known && body_end - p >= 2 * AUDIT_HASH_LEN &&
	    memcmp(p, known_hex, 2 * AUDIT_HASH_LEN) == 0
	    ? (memcpy(out->prev, known, AUDIT_HASH_LEN), p += 2 * AUDIT_HASH_LEN, 0)
	    : take_hex(&p, body_end, out->prev)) < 0 ||
	    take_lit(&p, body_end, "\",\"event\":\"") < 0) {
		*why = "the record does not start with seq, time, prev and event in order";
		return -1;
	}
	k = (size_t)(body_end - p) < sizeof(out->event) ? (size_t)(body_end - p)
	    : sizeof(out->event);
	e = memchr(p, '"', k);
	k = e ? (size_t)(e - p) : 0;
	if (!e || k == 0 || k >= sizeof(out->event)) {
		*why = "malformed event name";
		return -1;
	}
	for (i = 0; i < k; i++)
		if (!((p[i] >= 'a' && p[i] <= 'z') || p[i] == '_')) {
			*why = "malformed event name";
			return -1;
		}
	memcpy(out->event, p, k);
	out->event[k] = '\0';
	record_hash(out->prev, line, (size_t)(body_end - line), h);
	/* Public data: plain comparisons (sodium_memcmp was 8% of verify),
	 * of the hash as written with the one computed, in hex. */
	for (i = 0; i < AUDIT_HASH_LEN; i++) {
		hex[2 * i] = digits[h[i] >> 4];
		hex[2 * i + 1] = digits[h[i] & 15];
	}
	if (memcmp(hex, hash_hex, 2 * AUDIT_HASH_LEN) == 0) {
		memcpy(out->hash, h, AUDIT_HASH_LEN);
		return 0;
	}
	p = hash_hex;
	if (take_hex(&p, end, out->hash) < 0) {
		*why = "no well-formed \"hash\" at the end of the line";
		return -1;
	}
	*why = "its hash does not match its content";
	return 1;
}

int
audit_line_check(const char *line, size_t n, struct audit_line *out,
    const char **why)
{
	return line_check(line, n, out, why, NULL, NULL);
}

int
audit_checkpoint_message(const struct audit_checkpoint *c, unsigned char **msg,
    size_t *len)
{
	struct buf b = { 0 };

	buf_put(&b, checkpoint_tag, sizeof(checkpoint_tag));
	buf_put_lpi(&b, c->seq);
	buf_put(&b, c->hash, AUDIT_HASH_LEN);
	buf_put_lpi(&b, c->time);
	buf_put_lps(&b, c->key_id);
	return buf_take(&b, msg, len);
}

int
audit_checkpoint_verify(const struct audit_checkpoint *c, const unsigned char pk[32])
{
	unsigned char *msg;
	char kid[17];
	size_t len;
	int rc;

	key_id_of(pk, kid);
	if (strcmp(kid, c->key_id) != 0)
		return -1;
	if (audit_checkpoint_message(c, &msg, &len) < 0)
		return -1;
	rc = crypto_sign_verify_detached(c->sig, msg, len, pk) == 0 ? 0 : -1;
	free(msg);
	return rc;
}

int
audit_checkpoint_from_json(const cJSON *o, struct audit_checkpoint *c)
{
	const char *h = json_str(o, "hash"), *k = json_str(o, "key_id"), *s = json_str(o, "sig");

	memset(c, 0, sizeof(*c));
	if (json_int(o, "seq", &c->seq) < 0 || json_int(o, "time", &c->time) < 0 ||
	    !h || !k || !s || hex_decode(c->hash, AUDIT_HASH_LEN, h) < 0 || !is_hex(k, 16) ||
	    hex_decode(c->sig, 64, s) < 0)
		return -1;
	memcpy(c->key_id, k, 17);
	return 0;
}

int
audit_checkpoint_to_json(const struct audit_checkpoint *c, cJSON *o)
{
	char hash[2 * AUDIT_HASH_LEN + 1], sig[129];

	hex_encode(hash, c->hash, AUDIT_HASH_LEN);
	hex_encode(sig, c->sig, 64);
	if (!cJSON_AddNumberToObject(o, "seq", (double)c->seq) ||
	    !cJSON_AddStringToObject(o, "hash", hash) ||
	    !cJSON_AddNumberToObject(o, "time", (double)c->time) ||
	    !cJSON_AddStringToObject(o, "key_id", c->key_id) ||
	    !cJSON_AddStringToObject(o, "sig", sig))
		return -1;
	return 0;
}

int
audit_segment_number(const char *name, int *n)
{
	int i, v = 0;

	if (strlen(name) != 18 || strncmp(name, "audit.", 6) != 0 ||
	    strcmp(name + 12, ".jsonl") != 0)
		return 0;
	for (i = 6; i < 12; i++) {
		if (name[i] < '0' || name[i] > '9')
			return 0;
		v = v * 10 + (name[i] - '0');
	}
	*n = v;
	return v > 0;
}

__attribute__((format(printf, 6, 7)))
static int
fail(struct audit_report *r, const char *kind, const char *seg, int64_t line,
    int64_t seq, const char *fmt, ...)
{
	va_list ap;

	r->ok = 0;
	snprintf(r->kind, sizeof(r->kind), "%s", kind);
	snprintf(r->segment, sizeof(r->segment), "%s", seg ? seg : "");
	r->line = line;
	r->seq = seq;
	va_start(ap, fmt);
	vsnprintf(r->msg, sizeof(r->msg), fmt, ap);
	va_end(ap);
	return -1;
}

/* Looks ahead (within one segment) for the record with seq want. */
static int
seq_ahead(const char *p, const char *end, int64_t want)
{
	struct audit_line l;
	const char *nl, *why;
	int i;

	for (i = 0; i < 1024 && p < end; i++) {
		if (!(nl = memchr(p, '\n', (size_t)(end - p))))
			break;
		if (audit_line_check(p, (size_t)(nl - p), &l, &why) >= 0 && l.seq == want)
			return 1;
		p = nl + 1;
	}
	return 0;
}

static int
check_checkpoint_record(const char *line, size_t n, const struct audit_line *l,
    const unsigned char *pk, struct audit_checkpoint *c)
{
	cJSON *doc = cJSON_ParseWithLength(line, n);
	int rc = -1;

	if (doc && audit_checkpoint_from_json(cJSON_GetObjectItemCaseSensitive(doc, "data"),
	    c) == 0 && c->seq == l->seq - 1 &&
	    memcmp(c->hash, l->prev, AUDIT_HASH_LEN) == 0 && pk &&
	    audit_checkpoint_verify(c, pk) == 0)
		rc = 0;
	cJSON_Delete(doc);
	return rc;
}

int
audit_verify_begin(struct audit_verifier *v, const unsigned char *pk,
    const struct audit_checkpoint *head, struct audit_report *r)
{
	memset(v, 0, sizeof(*v));
	memset(r, 0, sizeof(*r));
	v->pk = pk;
	v->head = head;
	v->r = r;
	v->want = 1;
	r->ok = 1;
	r->head_seq = head ? head->seq : -1;
	if (head && (!pk || audit_checkpoint_verify(head, pk) < 0))
		return v->failed = fail(r, pk ? "bad-checkpoint" : "no-key", NULL, 0, head->seq,
		    "the signed head (record %lld) %s", (long long)head->seq, pk
		    ? "does not verify with the daemon's public key" :
		    "cannot be checked: no daemon public key");
	return 0;
}

void
audit_verify_segment(struct audit_verifier *v, const char *name)
{
	snprintf(v->seg, sizeof(v->seg), "%s", name ? name : "");
	v->lineno = 0;
	v->r->segments++;
}

int
audit_verify_feed(struct audit_verifier *v, const char *buf, size_t len, int last)
{
	struct audit_report *r = v->r;
	const unsigned char *pk = v->pk;
	const struct audit_checkpoint *head = v->head;
	struct audit_checkpoint c;
	struct audit_line l;
	const char *p = buf, *end = buf + len, *nl, *why, *seg = v->seg;
	int64_t want = v->want, lineno = v->lineno;
	int rc;

	if (v->failed)
		return -1;
	for (; p < end; p = nl + 1) {
		lineno++;
		if (!(nl = memchr(p, '\n', (size_t)(end - p)))) {
			if (!last) {
				lineno--;
				break;
			}
			rc = fail(r, "malformed", seg, lineno, want,
			    "line %lld is cut short (no newline at the end of the segment)",
			    (long long)lineno);
			goto out;
		}
		r->bytes += (int64_t)(nl + 1 - p);
		rc = line_check(p, (size_t)(nl - p), &l, &why, v->have_hex ? v->prev : NULL,
		    v->prev_hex);
		if (rc < 0) {
			rc = fail(r, "malformed", seg, lineno, want,
			    "line %lld (where record %lld should be) is malformed: %s",
			    (long long)lineno, (long long)want, why);
			goto out;
		}
		if (rc > 0) {
			rc = fail(r, "altered", seg, lineno, l.seq,
			    "record %lld was altered: %s", (long long)l.seq, why);
			goto out;
		}
		if (l.seq > want) {
			/* The look-ahead sees what this buffer holds. */
			rc = seq_ahead(nl + 1, end, want)
			    ? fail(r, "reordered", seg, lineno, want,
			    "records are out of order: record %lld is at line %lld, where "
			    "record %lld belongs (records were swapped or moved)",
			    (long long)l.seq, (long long)lineno, (long long)want)
			    : fail(r, "deleted", seg, lineno, want,
			    "record %lld is missing: the record before line %lld is %lld, "
			    "the next one is %lld (%lld record%s deleted)", (long long)want,
			    (long long)lineno, (long long)(want - 1), (long long)l.seq,
			    (long long)(l.seq - want), l.seq - want == 1 ? "" : "s");
			goto out;
		}
		if (l.seq < want) {
			rc = fail(r, "inserted", seg, lineno, l.seq,
			    "line %lld holds record %lld again, where record %lld belongs "
			    "(a record was inserted, duplicated or moved)", (long long)lineno,
			    (long long)l.seq, (long long)want);
			goto out;
		}
		if (memcmp(l.prev, v->prev, AUDIT_HASH_LEN) != 0) {
			rc = fail(r, "broken-link", seg, lineno, l.seq,
			    "record %lld does not link to record %lld: record %lld was "
			    "replaced (or re-hashed) after it was written", (long long)l.seq,
			    (long long)(l.seq - 1), (long long)(l.seq - 1));
			goto out;
		}
		if (l.event[0] == 'c' && strcmp(l.event, "checkpoint") == 0) {
			if (!pk) {
				rc = fail(r, "no-key", seg, lineno, l.seq,
				    "record %lld is a checkpoint, but there is no daemon public "
				    "key to check it", (long long)l.seq);
				goto out;
			}
			if (check_checkpoint_record(p, (size_t)(nl - p), &l, pk, &c) < 0) {
				rc = fail(r, "bad-checkpoint", seg, lineno, l.seq,
				    "checkpoint record %lld does not verify: bad signature, "
				    "wrong key, or it does not sign record %lld (the log "
				    "before it was rewritten)", (long long)l.seq,
				    (long long)(l.seq - 1));
				goto out;
			}
			r->checkpoints++;
		}
		if (head && l.seq == head->seq) {
			if (memcmp(l.hash, head->hash, AUDIT_HASH_LEN) != 0) {
				rc = fail(r, "forged", seg, lineno, l.seq,
				    "record %lld differs from the signed head: the log was "
				    "rewritten (re-chained without the daemon's key)",
				    (long long)l.seq);
				goto out;
			}
			v->head_seen = 1;
		}
		memcpy(v->prev, l.hash, AUDIT_HASH_LEN);
		/* The hash as written: the next record's "prev" must be these bytes. */
		memcpy(v->prev_hex, nl - AUDIT_TAIL_LEN + 9, 2 * AUDIT_HASH_LEN);
		v->have_hex = 1;
		r->records++;
		r->last_seq = l.seq;
		want++;
	}
	rc = 0;
out:
	v->want = want;
	v->lineno = lineno;
	if (rc < 0)
		v->failed = 1;
	return rc;
}

int
audit_verify_end(struct audit_verifier *v)
{
	struct audit_report *r = v->r;
	const struct audit_checkpoint *head = v->head;

	if (v->failed)
		return -1;
	memcpy(r->last_hash, v->prev, AUDIT_HASH_LEN);
	if (head && !v->head_seen)
		return fail(r, "truncated", v->seg[0] ? v->seg : NULL, 0,
		    r->last_seq + 1, "the log ends at record %lld, but the signed head covers "
		    "record %lld: %lld record%s cut off the end", (long long)r->last_seq,
		    (long long)head->seq, (long long)(head->seq - r->last_seq),
		    head->seq - r->last_seq == 1 ? " was" : "s were");
	if (!head && r->records > 0)
		return fail(r, "no-checkpoint", NULL, 0, 0, "there is no signed head to "
		    "compare with (state.db has none): a cut-off tail could not be seen");
	r->after_head = head ? r->last_seq - head->seq : 0;
	return 0;
}

int
audit_verify(const struct audit_seg *segs, int nsegs, const unsigned char *pk,
    const struct audit_checkpoint *head, struct audit_report *r)
{
	struct audit_verifier v;
	int i;

	if (audit_verify_begin(&v, pk, head, r) < 0)
		return -1;
	for (i = 0; i < nsegs; i++) {
		audit_verify_segment(&v, segs[i].name);
		if (audit_verify_feed(&v, segs[i].buf, segs[i].len, 1) < 0)
			return -1;
	}
	return audit_verify_end(&v);
}
