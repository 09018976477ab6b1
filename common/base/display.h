/*
 * display.h - agent-supplied text made safe for a person's terminal.
 *
 * Every string that comes from an agent (commands, reasons, paths,
 * diffs, output heads) MUST pass through display_text before it is
 * shown: what the human signs must be what the human sees.
 *
 * Shown as visible escapes: C0 controls and DEL (\n \r \b \e \x01 ...),
 * C1 controls (\u{9b}), bidi controls (U+202A-U+202E, U+2066-U+2069,
 * U+200E/F, U+061C), zero-width, combining and other invisible or
 * format characters (U+200B-U+200D, U+2028/9, U+2060-U+206F, U+FEFF,
 * U+00AD, variation selectors, tags U+E0000-U+E007F ...), spaces that
 * are not U+0020 (U+00A0, U+2000-U+200A ...), private-use and
 * unassigned characters (wcwidth < 0), and each byte of invalid UTF-8
 * (\xff). When a string holds any of these, its literal backslashes
 * are shown doubled (\\), so the rendering cannot be confused with the
 * escapes; a clean string is shown byte for byte.
 *
 * Width is counted in terminal columns (wcwidth); a cut never splits a
 * character or an escape. Library code: it never prints.
 */
#ifndef SBX_DISPLAY_H
#define SBX_DISPLAY_H

#include <stddef.h>

#define DISPLAY_KEEP_NL 0x1     /* '\n' stays a line break (multi-line text) */
#define DISPLAY_BSL     0x2     /* always double backslashes */
#define DISPLAY_NO_BSL  0x4     /* never double backslashes (a part of a
                                   string whose whole was judged clean) */

/*
 * Sets LC_CTYPE to the user's locale, or C.UTF-8 when that is not
 * UTF-8, so that wcwidth knows the characters. Call once from main.
 * Returns 0, or -1 when no UTF-8 locale exists (then every non-ASCII
 * character is shown as an escape).
 */
int display_init(void);

/* Whether s[0..len) holds anything that display_text would escape
 * (flags: DISPLAY_KEEP_NL or 0). */
int display_needs_escape(const char *s, size_t len, int flags);

/*
 * Renders s[0..len) as safe text of at most max_cols columns (0: no
 * limit; with DISPLAY_KEEP_NL per line). *used (if not NULL) gets how
 * many input bytes were rendered, *cols (if not NULL) the columns of
 * the last line. Returns a new string (caller frees) or NULL when out
 * of memory. s may be NULL (an empty string).
 */
char *display_text(const char *s, size_t len, int flags, int max_cols, size_t *used,
    int *cols);

/*
 * display_text of a NUL-terminated string without a width limit, into
 * storage of the module that stays valid until the 8th following call:
 * for printf arguments. Never NULL ("?" when out of memory).
 */
const char *display_tmp(const char *s);

/* As display_tmp, cut to max_cols columns (0: no limit). */
const char *display_tmp_width(const char *s, int max_cols);

/* As display_tmp, keeping line breaks. */
const char *display_tmp_lines(const char *s);

#endif
