/*
 * audit_record.h - the audit log's record encoding, hashing, checkpoint
 * message and chain verification, shared by sbxd (the only writer) and
 * `sbx audit` (the verifier). Pure: buffers in, results out; no I/O.
 * Verification uses public keys only: no signing code lives here.
 *
 * A record is one line of canonical bytes, keys in this fixed order:
 *
 *   {"seq":N,"time":MS,"prev":"HEX64","event":"NAME","request":"ID"|null,
 *    "session":"S"|null,"actor":"A","data":{CANONICAL JSON},"hash":"HEX64"}\n
 *
 * (one line, no spaces). The body is every byte before `,"hash":"`; the
 * hash is BLAKE2b-256 over "sbx-audit-v1\0", the 32 raw bytes of the
 * previous record's hash (zeros for the first record) and the body.
 * `data` is json_canonical(): keys sorted bytewise, integers exact.
 *
 * A checkpoint signs (Ed25519, the daemon's key) the message
 * "sbx-audit-checkpoint-v1\0" + LP(decimal seq) + raw 32-byte hash +
 * LP(decimal time in ms) + LP(key id), LP = 4-byte big-endian length
 * then the bytes. See docs/AUDIT.md.
 */
#ifndef SBX_AUDIT_RECORD_H
#define SBX_AUDIT_RECORD_H

#include <stddef.h>
#include <stdint.h>
#include <cjson/cJSON.h>

#define AUDIT_HASH_LEN      32
#define AUDIT_MAX_LINE      (256 * 1024)
#define AUDIT_TAIL_LEN      75          /* ,"hash":"<64 hex>"} */
#define AUDIT_MAX_SEGMENTS  100000

struct audit_line {
	int64_t seq, time;
	unsigned char prev[AUDIT_HASH_LEN], hash[AUDIT_HASH_LEN];
	char event[32];
};

struct audit_checkpoint {
	int64_t seq, time;
	unsigned char hash[AUDIT_HASH_LEN];
	char key_id[17];
	unsigned char sig[64];
};

/*
 * Encodes a record: returns its line (with the final '\n', caller
 * frees), *len its length, hash its hash. request and session may be
 * NULL (null). data must be an object; it is encoded canonically, as
 * given: redact it first. NULL on OOM or a name that is not [a-z_].
 */
char *audit_record_encode(int64_t seq, int64_t time_ms,
    const unsigned char prev[AUDIT_HASH_LEN], const char *event,
    const char *request, const char *session, const char *actor,
    const cJSON *data, unsigned char hash[AUDIT_HASH_LEN], size_t *len);

/*
 * Checks one line (n bytes, without the '\n'): its fixed layout and its
 * own hash, given the previous hash the chain expects. Returns 0 and
 * fills *out; 1 when the line is well formed but its hash is wrong
 * (out still filled); -1 when it is malformed (*why says how).
 */
int audit_line_check(const char *line, size_t n, struct audit_line *out,
    const char **why);

/* The signed bytes of a checkpoint; caller frees. */
int audit_checkpoint_message(const struct audit_checkpoint *c, unsigned char **msg,
    size_t *len);
/* 0 when the signature verifies with pk. */
int audit_checkpoint_verify(const struct audit_checkpoint *c, const unsigned char pk[32]);
/* Reads a checkpoint object {"seq","hash","time","key_id","sig"}. */
int audit_checkpoint_from_json(const cJSON *o, struct audit_checkpoint *c);
/* Adds those keys to o. 0 or -1. */
int audit_checkpoint_to_json(const struct audit_checkpoint *c, cJSON *o);

/* 1 when name is a rotated segment "audit.NNNNNN.jsonl" (six digits),
 * with *n its number. */
int audit_segment_number(const char *name, int *n);

/* One segment of the log, in order (oldest first). */
struct audit_seg {
	const char *name;
	const char *buf;
	size_t len;
};

struct audit_report {
	int ok;
	int64_t records, checkpoints, segments, bytes;
	int64_t last_seq;
	unsigned char last_hash[AUDIT_HASH_LEN];
	int64_t head_seq;           /* the signed head checked, -1 when none */
	int64_t after_head;         /* records after it (no signature covers them yet) */
	/* the first problem */
	char kind[32];              /* altered, malformed, deleted, inserted, reordered,
				       broken-link, bad-checkpoint, truncated, forged,
				       no-checkpoint, no-key */
	char segment[64];
	int64_t line, seq;
	char msg[512];
};

/*
 * Verifies a whole log: every record's hash, the chain (seq 1, 2, ...
 * and prev links, across segments), every checkpoint record's signature
 * and binding, and the signed head (from the state database, or the
 * evidence bundle): the log must hold record head->seq with head->hash.
 * pk may be NULL only for a log without checkpoints (then it fails with
 * no-key). Returns 0 when everything agrees, -1 with r filled.
 */
int audit_verify(const struct audit_seg *segs, int nsegs, const unsigned char *pk,
    const struct audit_checkpoint *head, struct audit_report *r);

/*
 * The same, streamed in constant memory (sbx audit verify): begin (it
 * checks the head's signature), then for each segment in order
 * audit_verify_segment() and audit_verify_feed() on consecutive pieces
 * of it, then audit_verify_end(). A piece passed with last = 0 must end
 * with a newline (the reader keeps a partial line for the next piece);
 * the final piece of a segment has last = 1, and a line without its
 * newline there is reported as cut short. Each returns 0, or -1 with the
 * report filled (and every later call fails). The look-ahead that tells
 * reordered from deleted records sees the current piece only.
 */
struct audit_verifier {
	const unsigned char *pk;
	const struct audit_checkpoint *head;
	struct audit_report *r;
	unsigned char prev[AUDIT_HASH_LEN];
	int64_t want, lineno;
	int head_seen, failed;
	char seg[64];
	char prev_hex[2 * AUDIT_HASH_LEN];  /* v->prev as the last line wrote it */
	int have_hex;
};
int audit_verify_begin(struct audit_verifier *v, const unsigned char *pk,
    const struct audit_checkpoint *head, struct audit_report *r);
void audit_verify_segment(struct audit_verifier *v, const char *name);
int audit_verify_feed(struct audit_verifier *v, const char *buf, size_t len, int last);
int audit_verify_end(struct audit_verifier *v);

#endif
