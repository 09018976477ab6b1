/*
 * test_display.c - unit tests for common/base/display.c: hostile byte
 * sequences an agent could put in a command, reason, path or output
 * to make the approver's screen show something else.
 */
#include <stdlib.h>
#include <string.h>

#include "common/base/display.h"
#include "tests/tap.h"

/* Renders s (n bytes) with flags and width; the caller frees. */
static char *
show(const char *s, size_t n, int flags, int width)
{
	return display_text(s, n, flags, width, NULL, NULL);
}

static void
check(const char *in, const char *want, const char *what)
{
	char *got = show(in, strlen(in), 0, 0);

	is_str(got, want, "%s", what);
	free(got);
}

/* Every byte of out is printable ASCII or part of a character that
 * takes columns: no byte a terminal acts on. */
static int
inert(const char *out)
{
	const unsigned char *u = (const unsigned char *)out;

	for (; *u; u++) {
		if (*u < 0x20 || *u == 0x7f)
			return 0;
		if (*u == 0xc2 && u[1] >= 0x80 && u[1] <= 0x9f)
			return 0;
	}
	return 1;
}

static void
test_controls(void)
{
	check("echo hello > notes.txt", "echo hello > notes.txt", "a clean command is shown as is");
	check("sed 's/a\\.b/c/'", "sed 's/a\\.b/c/'", "backslashes of a clean string stay single");
	check("rm -rf ~/x\r\033[2Kecho hi", "rm -rf ~/x\\r\\e[2Kecho hi",
	    "CR and ESC sequences are shown as escapes");
	check("cat a >> b\b\b\b\b> c", "cat a >> b\\b\\b\\b\\b> c", "backspaces are shown");
	check("a\tb\vc\fd\ae", "a\\tb\\vc\\fd\\ae", "tab, VT, FF, BEL are shown");
	check("x\x01y\x7fz", "x\\x01y\\x7fz", "other C0 controls and DEL are shown as hex");
	check("line1\nline2", "line1\\nline2", "a newline is an escape on one line");
	check("a\\b\nc", "a\\\\b\\nc", "with an escape present, literal backslashes are doubled");
}

static void
test_unicode(void)
{
	check("echo \xc2\x9b" "31m", "echo \\u{9b}31m", "C1 CSI (0xC2 0x9B) is shown as an escape");
	check("x\xc2\x85y", "x\\u{85}y", "NEL is shown");
	check("ls \xe2\x80\xae" "txt.exe", "ls \\u{202e}txt.exe", "RLO (U+202E) is shown");
	check("\xe2\x80\xaa\xe2\x80\xab\xe2\x80\xac\xe2\x80\xad",
	    "\\u{202a}\\u{202b}\\u{202c}\\u{202d}", "LRE RLE PDF LRO are shown");
	check("\xe2\x81\xa6\xe2\x81\xa7\xe2\x81\xa8\xe2\x81\xa9",
	    "\\u{2066}\\u{2067}\\u{2068}\\u{2069}", "bidi isolates are shown");
	check("a\xe2\x80\x8b" "b\xe2\x80\x8c" "c\xe2\x80\x8d" "d\xe2\x80\x8e" "e\xe2\x80\x8f",
	    "a\\u{200b}b\\u{200c}c\\u{200d}d\\u{200e}e\\u{200f}",
	    "zero-width space, (non-)joiners, LRM, RLM are shown");
	check("\xe2\x80\xa8\xe2\x80\xa9", "\\u{2028}\\u{2029}", "line and paragraph separators");
	check("\xef\xbb\xbfgit", "\\u{feff}git", "a BOM is shown");
	check("pa\xc2\xadss", "pa\\u{ad}ss", "a soft hyphen is shown");
	check("rm\xc2\xa0-rf", "rm\\u{a0}-rf", "a no-break space is not shown as a space");
	check("a\xe3\x80\x80" "b", "a\\u{3000}b", "an ideographic space is shown");
	check("x\xf3\xa0\x80\x81y", "x\\u{e0001}y", "tag characters are shown");
	check("=\xcc\xb8", "=\\u{338}", "a combining overlay cannot change the look of '='");
	check("\xee\x80\x80", "\\u{e000}", "private use is shown");
	check("caf\xc3\xa9 \xe6\x97\xa5\xe6\x9c\xac", "caf\xc3\xa9 \xe6\x97\xa5\xe6\x9c\xac",
	    "ordinary accented and CJK text is shown as itself");
}

static void
test_invalid(void)
{
	check("a\xff" "b", "a\\xffb", "a stray 0xFF byte");
	check("\xc0\xaf", "\\xc0\\xaf", "an overlong '/' is not decoded");
	check("\xed\xa0\x80", "\\xed\\xa0\\x80", "a UTF-16 surrogate is not decoded");
	check("\xf4\x90\x80\x80", "\\xf4\\x90\\x80\\x80", "above U+10FFFF is not decoded");
	check("ab\xe2\x80", "ab\\xe2\\x80", "a character cut at the end is shown as bytes");
	check("\xe2\x80" "A", "\\xe2\\x80A", "a truncated sequence does not swallow the next char");
	{
		char buf[4] = { 'a', 0, 'b', 0 };
		char *got = show(buf, 3, 0, 0);

		is_str(got, "a\\x00b", "a NUL inside the text is shown");
		free(got);
	}
}

static void
test_width(void)
{
	size_t used;
	int cols;
	char *got;

	got = display_text("\xe6\x97\xa5\xe6\x9c\xac\xe8\xaa\x9e", 9, 0, 5, &used, &cols);
	is_str(got, "\xe6\x97\xa5\xe6\x9c\xac", "two-column characters: 5 columns hold two");
	is_int(cols, 4, "and take 4 columns");
	is_int(used, 6, "the cut is at a character boundary");
	free(got);
	got = display_text("ab\033cd", 5, 0, 3, &used, &cols);
	is_str(got, "ab", "an escape is never split by a cut");
	is_int(used, 2, "and its character is left for the next line");
	free(got);
	got = display_text("\xc3\xa9\xc3\xa9\xc3\xa9", 6, 0, 2, &used, &cols);
	is_str(got, "\xc3\xa9\xc3\xa9", "a cut counts columns, not bytes");
	is_int(cols, 2, "two columns");
	free(got);
	got = display_text("ab\ncd\033", 6, DISPLAY_KEEP_NL, 3, &used, &cols);
	is_str(got, "ab\ncd", "KEEP_NL keeps line breaks and counts columns per line");
	free(got);
	got = display_text("a\nb", 3, DISPLAY_KEEP_NL, 0, NULL, NULL);
	is_str(got, "a\nb", "a newline alone does not double backslashes");
	free(got);
	got = display_text(NULL, 0, 0, 10, &used, &cols);
	is_str(got, "", "NULL is an empty string");
	free(got);
}

/* Every 1-, 2- and 3-byte sequence over a set of interesting bytes comes
 * out inert. */
static void
test_exhaustive(void)
{
	static const unsigned char b[] = { 0x00, 0x07, 0x08, 0x0a, 0x0d, 0x1b, 0x20, 0x41,
		0x5c, 0x7f, 0x80, 0x9b, 0xa0, 0xbf, 0xc0, 0xc2, 0xe0, 0xe2, 0xed, 0xef, 0xf0,
		0xf4, 0xf8, 0xff };
	size_t nb = sizeof(b), i, j, k;
	unsigned char in[3];
	int bad = 0;
	char *got;

	for (i = 0; i < nb; i++)
		for (j = 0; j < nb; j++)
			for (k = 0; k < nb; k++) {
				in[0] = b[i], in[1] = b[j], in[2] = b[k];
				got = show((const char *)in, 3, 0, 0);
				bad += !got || !inert(got);
				free(got);
			}
	is_int(bad, 0, "every 3-byte sequence over %zu hostile bytes renders inert", nb);
}

static void
test_tmp(void)
{
	const char *a = display_tmp("x\033y"), *b = display_tmp_lines("p\nq\r");

	is_str(a, "x\\ey", "display_tmp escapes");
	is_str(b, "p\nq\\r", "display_tmp_lines keeps line breaks and escapes CR");
}

int
main(void)
{
	ok(display_init() == 0, "a UTF-8 locale is available");
	test_controls();
	test_unicode();
	test_invalid();
	test_width();
	test_exhaustive();
	test_tmp();
	return tap_done();
}
