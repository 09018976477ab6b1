/*
 * display.c - agent-supplied text made safe for a terminal; see display.h.
 *
 * MUST decode UTF-8 strictly (no overlongs, no surrogates, nothing above
 * U+10FFFF): every byte it cannot decode is shown as \xNN.
 * MUST let through only characters that take one or two columns and
 * look like themselves; everything else is an escape.
 */
#include <langinfo.h>
#include <locale.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <wchar.h>

#include "common/base/buf.h"
#include "common/base/display.h"
#include "common/base/util.h"

/* Characters that are invisible, reorder text, look like a space, or
 * render as nothing in particular: always escaped, whatever wcwidth says. */
static int
hidden(unsigned cp)
{
	static const unsigned r[][2] = {
		{ 0x0080, 0x00a0 },     /* C1 controls, no-break space */
		{ 0x00ad, 0x00ad },     /* soft hyphen */
		{ 0x034f, 0x034f },     /* combining grapheme joiner */
		{ 0x061c, 0x061c },     /* Arabic letter mark */
		{ 0x115f, 0x1160 },     /* Hangul fillers */
		{ 0x1680, 0x1680 },     /* Ogham space mark */
		{ 0x17b4, 0x17b5 },     /* Khmer invisible vowels */
		{ 0x180b, 0x180f },     /* Mongolian selectors, vowel separator */
		{ 0x2000, 0x200f },     /* spaces, zero-width, LRM, RLM */
		{ 0x2028, 0x202f },     /* line/paragraph separators, bidi embeds */
		{ 0x205f, 0x206f },     /* math space, word joiner, bidi isolates */
		{ 0x2800, 0x2800 },     /* braille blank */
		{ 0x3000, 0x3000 },     /* ideographic space */
		{ 0x3164, 0x3164 },     /* Hangul filler */
		{ 0xe000, 0xf8ff },     /* private use */
		{ 0xfdd0, 0xfdef },     /* noncharacters */
		{ 0xfe00, 0xfe0f },     /* variation selectors */
		{ 0xfeff, 0xfeff },     /* zero-width no-break space (BOM) */
		{ 0xffa0, 0xffa0 },     /* halfwidth Hangul filler */
		{ 0xfff0, 0xfffb },     /* specials, interlinear annotations */
		{ 0x1d173, 0x1d17a },   /* musical format characters */
		{ 0xe0000, 0xe0fff },   /* tags, variation selectors supplement */
		{ 0xf0000, 0x10ffff },  /* private use planes */
	};
	size_t i;

	if ((cp & 0xfffe) == 0xfffe)
		return 1;               /* U+xFFFE, U+xFFFF */
	for (i = 0; i < sizeof(r) / sizeof(r[0]); i++)
		if (cp >= r[i][0] && cp <= r[i][1])
			return 1;
	return 0;
}

/* The columns a decoded character takes when shown as itself, or -1
 * when it must be escaped. */
static int
char_width(unsigned cp, int flags)
{
	int w;

	if (cp == '\n' && (flags & DISPLAY_KEEP_NL))
		return 0;
	if (cp < 0x20 || cp == 0x7f)
		return -1;
	if (cp < 0x7f)
		return 1;
	if (hidden(cp))
		return -1;
	w = wcwidth((wchar_t)cp);
	return w > 0 ? w : -1;  /* zero width (combining) escaped too */
}

/* Writes the escape for a character (or, with bad, a raw byte). */
static int
escape(char *out, size_t cap, unsigned cp, int bad)
{
	static const char named[] = "\a\b\t\n\v\f\r\033";
	static const char names[] = "abtnvfre";
	const char *p;

	if (bad || cp < 0x80) {
		if (!bad && cp && (p = strchr(named, (int)cp)))
			return snprintf(out, cap, "\\%c", names[p - named]);
		return snprintf(out, cap, "\\x%02x", cp);
	}
	return snprintf(out, cap, "\\u{%x}", cp);
}

int
display_init(void)
{
	const char *cs;

	if (setlocale(LC_CTYPE, "") && (cs = nl_langinfo(CODESET)) && !strcmp(cs, "UTF-8"))
		return 0;
	if (setlocale(LC_CTYPE, "C.UTF-8") || setlocale(LC_CTYPE, "C.utf8") ||
	    setlocale(LC_CTYPE, "en_US.UTF-8"))
		return 0;
	setlocale(LC_CTYPE, "C");
	return -1;
}

static int
needs_escape(const char *s, size_t len, int flags)
{
	const unsigned char *u = (const unsigned char *)s;
	size_t i = 0, n;
	unsigned cp;

	while (s && i < len) {
		if (!(n = utf8_decode(u + i, len - i, &cp)) || char_width(cp, flags) < 0)
			return 1;
		i += n;
	}
	return 0;
}

int
display_needs_escape(const char *s, size_t len, int flags)
{
	return needs_escape(s, len, flags & DISPLAY_KEEP_NL);
}

char *
display_text(const char *s, size_t len, int flags, int max_cols, size_t *used, int *cols)
{
	const unsigned char *u = (const unsigned char *)s;
	struct buf out = { 0 };
	char piece[16];
	size_t i = 0, n, plen;
	int col = 0, w, bsl, bad;
	unsigned cp;

	if (!s)
		len = 0;
	bsl = (flags & DISPLAY_BSL) ||
	    (!(flags & DISPLAY_NO_BSL) && needs_escape(s, len, flags));
	buf_put(&out, "", 0);
	while (i < len) {
		bad = !(n = utf8_decode(u + i, len - i, &cp));
		if (bad) {
			cp = u[i];
			n = 1;
		}
		w = bad ? -1 : char_width(cp, flags);
		if (w < 0) {
			plen = (size_t)escape(piece, sizeof(piece), cp, bad);
			w = (int)plen;
		} else if (cp == '\\' && bsl) {
			memcpy(piece, "\\\\", 2);
			plen = 2;
			w = 2;
		} else {
			memcpy(piece, s + i, n);
			plen = n;
		}
		if (max_cols > 0 && col + w > max_cols && !(cp == '\n' && w == 0))
			break;
		buf_put(&out, piece, plen);
		col = cp == '\n' && !bad && w == 0 ? 0 : col + w;
		i += n;
	}
	if (out.oom) {
		free(out.p);
		return NULL;
	}
	if (used)
		*used = i;
	if (cols)
		*cols = col;
	return out.p;
}

static const char *
tmp_keep(char *s)
{
	static char *ring[8];
	static unsigned next;
	unsigned k = next++ % 8;

	free(ring[k]);
	ring[k] = s;
	return s ? s : "?";
}

const char *
display_tmp(const char *s)
{
	return tmp_keep(display_text(s, s ? strlen(s) : 0, 0, 0, NULL, NULL));
}

const char *
display_tmp_width(const char *s, int max_cols)
{
	return tmp_keep(display_text(s, s ? strlen(s) : 0, 0, max_cols, NULL, NULL));
}

const char *
display_tmp_lines(const char *s)
{
	return tmp_keep(display_text(s, s ? strlen(s) : 0, DISPLAY_KEEP_NL, 0, NULL, NULL));
}
