/*
 * buf.h - the growable byte buffer, the only one in common/: always
 * NUL-terminated (p[len] == '\0' once anything was put). On allocation
 * failure it sets oom and ignores further writes; the caller checks oom
 * once at the end. The caller owns p (free); { 0 } is an empty buffer.
 */
#ifndef SBX_BUF_H
#define SBX_BUF_H

#include <stddef.h>
#include <stdint.h>

struct buf {
	char *p;
	size_t len, cap;
	int oom;
};

void buf_put(struct buf *b, const void *s, size_t n);
void buf_puts(struct buf *b, const char *s);
/* n as a 4-byte big-endian length, then the n bytes: the length-prefixed
 * fields of every signed message (decisions, policy acceptance, audit
 * checkpoints). */
void buf_put_lp(struct buf *b, const void *s, size_t n);
void buf_put_lps(struct buf *b, const char *s);
/* v in decimal, length-prefixed. */
void buf_put_lpi(struct buf *b, int64_t v);
/* Hands the bytes over: 0 with *out (the caller frees) and *len set, or
 * -1 with errno ENOMEM (and p freed) when a write failed. */
int buf_take(struct buf *b, unsigned char **out, size_t *len);

#endif
