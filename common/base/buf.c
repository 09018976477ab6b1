/*
 * buf.c - the growable buffer; see buf.h.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/base/buf.h"

void
buf_put(struct buf *b, const void *s, size_t n)
{
	char *np;
	size_t ncap;

	if (b->oom)
		return;
	if (b->len + n + 1 > b->cap) {
		ncap = b->cap ? b->cap : 256;
		while (ncap < b->len + n + 1)
			ncap *= 2;
		if (!(np = realloc(b->p, ncap))) {
			b->oom = 1;
			return;
		}
		b->p = np;
		b->cap = ncap;
	}
	memcpy(b->p + b->len, s, n);
	b->len += n;
	b->p[b->len] = '\0';
}

void
buf_puts(struct buf *b, const char *s)
{
	buf_put(b, s, strlen(s));
}

void
buf_put_lp(struct buf *b, const void *s, size_t n)
{
	unsigned char len[4] = {
		(unsigned char)(n >> 24), (unsigned char)(n >> 16),
		(unsigned char)(n >> 8), (unsigned char)n,
	};

	buf_put(b, len, sizeof(len));
	buf_put(b, s, n);
}

void
buf_put_lps(struct buf *b, const char *s)
{
	buf_put_lp(b, s, strlen(s));
}

void
buf_put_lpi(struct buf *b, int64_t v)
{
	char num[32];

	snprintf(num, sizeof(num), "%lld", (long long)v);
	buf_put_lps(b, num);
}

int
buf_take(struct buf *b, unsigned char **out, size_t *len)
{
	if (b->oom) {
		free(b->p);
		b->p = NULL;
		errno = ENOMEM;
		return -1;
	}
	*out = (unsigned char *)b->p;
	*len = b->len;
	return 0;
}
