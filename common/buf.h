/*
 * buf.h - a growable byte buffer, always NUL-terminated. On allocation
 * failure it sets oom and ignores further writes; the caller checks oom
 * once at the end. The caller owns p (free).
 */
#ifndef SBX_BUF_H
#define SBX_BUF_H

#include <stddef.h>

struct buf {
	char *p;
	size_t len, cap;
	int oom;
};

void buf_put(struct buf *b, const void *s, size_t n);
void buf_puts(struct buf *b, const char *s);

#endif
