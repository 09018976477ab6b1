/*
 * shell.c - a bash command-line reader for classification (see shell.h).
 *
 * Rules:
 * - MUST NOT execute, expand or look up anything: it only reads text.
 * - MUST stop at the first thing it cannot read with certainty and say
 *   why in problem; every loop checks for a problem and returns, so a
 *   hostile line costs one pass.
 * - Nesting ($( ( { ` ${) is capped at SH_MAX_DEPTH; counts of commands,
 *   words and redirections are capped; the arena is capped relative to
 *   the input, so memory is bounded too.
 */
#include "policy/shell.h"
#include "common/base/util.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- arena ------------------------------------------------------------ */

struct sh_chunk {
	struct sh_chunk *next;
	size_t used, size;
	char data[];
};

struct sh_arena {
	struct sh_chunk *head;
	size_t total, cap;
};

/*
 * Chunks just under 64 KiB: glibc consolidates its free lists on every
 * free of 64 KiB or more, and a line frees its chunks each time. The first
 * chunk is small (most lines fit in it): glibc also consolidates before
 * any allocation of 1 KiB or more.
 */
#define ARENA_CHUNK (65536 - 64)
#define ARENA_FIRST (960 - sizeof(struct sh_chunk))

static void *
arena_alloc(struct sh_arena *a, size_t n)
{
	struct sh_chunk *c;
	size_t sz;
	void *p;

	n = (n + 15) & ~(size_t)15;
	c = a->head;
	if (c == NULL || c->size - c->used < n) {
		sz = c == NULL ? ARENA_FIRST : ARENA_CHUNK;
		if (sz < n)
			sz = n;
		if (a->total + sz > a->cap)
			return NULL;
		c = malloc(sizeof(*c) + sz);
		if (c == NULL)
			return NULL;
		c->next = a->head;
		c->used = 0;
		c->size = sz;
		a->head = c;
		a->total += sz;
	}
	p = c->data + c->used;
	c->used += n;
	return p;
}

static void
arena_free(struct sh_arena *a)
{
	struct sh_chunk *c, *n;

	if (a == NULL)
		return;
	for (c = a->head; c != NULL; c = n) {
		n = c->next;
		free(c);
	}
	free(a);
}

char *
sh_strdup(struct sh_parse *p, const char *s, size_t len)
{
	char *d;

	if (p->arena == NULL)
		return NULL;
	d = arena_alloc(p->arena, len + 1);
	if (d == NULL)
		return NULL;
	memcpy(d, s, len);
	d[len] = '\0';
	return d;
}

/* ---- growable byte and word buffers (heap, freed by their user) -------- */

/* Words are short: the first bytes live in the struct itself (never
 * copied: p may point at small). */
struct buf {
	char *p;
	size_t len, cap;
	char small[192];
};

static int
buf_add(struct buf *b, const char *s, size_t n)
{
	size_t nc;
	char *np;

	if (b->p == NULL && n + 1 <= sizeof(b->small)) {
		b->p = b->small;
		b->cap = sizeof(b->small);
	}
	if (b->len + n + 1 > b->cap) {
		nc = b->cap ? b->cap : 64;
		while (nc < b->len + n + 1)
			nc *= 2;
		if (b->p == b->small) {
			if ((np = malloc(nc)) == NULL)
				return -1;
			memcpy(np, b->small, b->len);
		} else if ((np = realloc(b->p, nc)) == NULL)
			return -1;
		b->p = np;
		b->cap = nc;
	}
	memcpy(b->p + b->len, s, n);
	b->len += n;
	b->p[b->len] = '\0';
	return 0;
}

static int
buf_addc(struct buf *b, char c)
{
	if (b->p != NULL && b->len + 2 <= b->cap) {
		b->p[b->len++] = c;
		b->p[b->len] = '\0';
		return 0;
	}
	return buf_add(b, &c, 1);
}

static void
buf_free(struct buf *b)
{
	if (b->p != b->small)
		free(b->p);
	b->p = NULL;
}

/* ---- scanner ---------------------------------------------------------- */

struct heredoc {
	struct sh_redir *r;
	char *delim;            /* decoded delimiter (arena) */
	int strip_tabs;         /* <<- */
};

struct sc {
	const char *s;
	size_t n, i;
	int depth;
	int in_subst;
	struct sh_parse *out;
	size_t capcmds;
	int pipelines;
	char *problem;          /* == out->problem */
	struct heredoc pend[16];
	int npend;
	int compound;           /* open { if while until for, not yet closed */
	int condlevel;          /* open if while until for */
};

static void parse_list(struct sc *sc, int term);

__attribute__((format(printf, 2, 3)))
static void
fail(struct sc *sc, const char *fmt, ...)
{
	va_list ap;

	if (sc->problem[0] != '\0')
		return;
	va_start(ap, fmt);
	vsnprintf(sc->problem, sizeof(sc->out->problem), fmt, ap);
	va_end(ap);
}

static int
bad(const struct sc *sc)
{
	return sc->problem[0] != '\0';
}

static int
peek(const struct sc *sc, size_t k)
{
	return sc->i + k < sc->n ? (unsigned char)sc->s[sc->i + k] : -1;
}

static int
is_meta(int c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == ';' || c == '&' ||
	    c == '|' || c == '(' || c == ')' || c == '<' || c == '>' || c == -1;
}

static char *
astr(struct sc *sc, const char *s, size_t n)
{
	char *d = sh_strdup(sc->out, s, n);

	if (d == NULL)
		fail(sc, "command too large to analyse");
	return d;
}

static int
enter(struct sc *sc)
{
	if (++sc->depth > SH_MAX_DEPTH) {
		fail(sc, "nesting deeper than %d levels", SH_MAX_DEPTH);
		return -1;
	}
	return 0;
}

static struct sh_cmd *
new_cmd(struct sc *sc, enum sh_cmd_kind kind)
{
	struct sh_parse *p = sc->out;
	struct sh_cmd *nc, *c;
	size_t cap;

	if (p->ncmds >= SH_MAX_CMDS) {
		fail(sc, "more than %d commands in one line", SH_MAX_CMDS);
		return NULL;
	}
	if ((size_t)p->ncmds == sc->capcmds) {
		cap = sc->capcmds ? sc->capcmds * 2 : 16;
		nc = realloc(p->cmds, cap * sizeof(*nc));
		if (nc == NULL) {
			fail(sc, "out of memory");
			return NULL;
		}
		p->cmds = nc;
		sc->capcmds = cap;
	}
	c = &p->cmds[p->ncmds++];
	memset(c, 0, sizeof(*c));
	c->kind = kind;
	c->conn = SH_C_END;
	c->pipeline = -1;
	c->out_pipeline = -1;
	c->in_subst = sc->in_subst;
	c->cond = sc->condlevel > 0;
	return c;
}

static void
scope(struct sc *sc, enum sh_cmd_kind kind)
{
	(void)new_cmd(sc, kind);
}

static void dollar(struct sc *sc, struct buf *b, unsigned *flags, int dq);
static void backtick(struct sc *sc);

/* Parses the substitutions of an expanded here-document body. */
static void
heredoc_expand(struct sc *sc, const char *body, size_t len)
{
	struct sc sub = *sc;
	struct buf dummy = {0};
	unsigned flags = 0;
	int c, saved = sc->in_subst;

	sub.s = body;
	sub.n = len;
	sub.i = 0;
	sub.npend = 0;
	sub.in_subst = 1;
	while (!bad(&sub) && (c = peek(&sub, 0)) != -1) {
		sub.i++;
		if (c == '\\')
			sub.i += peek(&sub, 0) != -1;
		else if (c == '$')
			dollar(&sub, &dummy, &flags, 1);
		else if (c == '`')
			backtick(&sub);
		dummy.len = 0;
	}
	if (!bad(&sub) && sub.npend > 0)
		fail(sc, "here-document inside a here-document");
	sc->capcmds = sub.capcmds;
	sc->pipelines = sub.pipelines;
	sc->compound = sub.compound;
	sc->in_subst = saved;
	buf_free(&dummy);
}

/* Reads pending here-document bodies; sc->i is just past a newline. */
static void
read_heredocs(struct sc *sc)
{
	struct heredoc *h;
	size_t ls, le, dl;
	const char *line;
	int k;
	struct buf b = {0}, lb = {0};

	for (k = 0; k < sc->npend && !bad(sc); k++) {
		h = &sc->pend[k];
		dl = strlen(h->delim);
		b.len = 0;
		for (;;) {
			size_t bs;

			if (sc->i >= sc->n) {
				fail(sc, "here-document not closed by \"%s\"", h->delim);
				break;
			}
			/* With an unquoted delimiter bash joins a line that ends
			 * in a backslash to the next before it compares: "EO\\"
			 * then "F" ends the body at "EOF". */
			lb.len = 0;
			for (;;) {
				ls = sc->i;
				while (sc->i < sc->n && sc->s[sc->i] != '\n')
					sc->i++;
				le = sc->i;
				if (sc->i < sc->n)
					sc->i++;
				line = sc->s + ls;
				if (h->strip_tabs && lb.len == 0)
					while (ls < le && *line == '\t') {
						line++;
						ls++;
					}
				for (bs = 0; bs < le - ls && line[le - ls - 1 - bs] ==
				    '\\'; bs++)
					;
				if (!h->r->delim_quoted && bs % 2 == 1 &&
				    le < sc->n) {
					if (buf_add(&lb, line, le - ls - 1) < 0)
						goto oom;
					continue;
				}
				if (buf_add(&lb, line, le - ls) < 0)
					goto oom;
				break;
			}
			if (lb.len == dl && memcmp(lb.p, h->delim, dl) == 0)
				break;
			if (buf_add(&b, lb.p, lb.len) < 0 || buf_addc(&b, '\n') < 0)
				goto oom;
		}
		if (bad(sc))
			break;
		h->r->body = astr(sc, b.p ? b.p : "", b.len);
		h->r->body_len = b.len;
		/* An unquoted delimiter means the body is expanded like a
		 * double-quoted string: the $(...) and `...` in it run. */
		if (!h->r->body_literal && h->r->body != NULL)
			heredoc_expand(sc, h->r->body, b.len);
	}
	goto out;
oom:
	fail(sc, "out of memory");
out:
	sc->npend = 0;
	buf_free(&b);
	buf_free(&lb);
}

static void
skip_blanks(struct sc *sc)
{
	int c;

	for (;;) {
		c = peek(sc, 0);
		if (c == ' ' || c == '\t') {
			sc->i++;
		} else if (c == '\\' && peek(sc, 1) == '\n') {
			sc->i += 2;
		} else if (c == '#') {
			while (sc->i < sc->n && sc->s[sc->i] != '\n')
				sc->i++;
		} else {
			return;
		}
	}
}

/* Blanks, comments and newlines (with the here-documents they start),
 * as may follow |, && and ||. */
static void
skip_linebreaks(struct sc *sc)
{
	for (;;) {
		skip_blanks(sc);
		if (peek(sc, 0) != '\n')
			return;
		sc->i++;
		read_heredocs(sc);
	}
}

static unsigned
hexval(int c)
{
	if (c >= '0' && c <= '9')
		return (unsigned)(c - '0');
	if (c >= 'a' && c <= 'f')
		return (unsigned)(c - 'a' + 10);
	if (c >= 'A' && c <= 'F')
		return (unsigned)(c - 'A' + 10);
	return 16;
}

/* cp above U+10FFFF is put as U+FFFD. */
static int
put_utf8(struct buf *b, unsigned long cp)
{
	char u[4];

	if (cp > 0x10ffff)
		cp = 0xfffd;
	return buf_add(b, u, utf8_encode((unsigned)cp, u));
}

/* The next character of a quoted text, taken; -1 (and sc failed with
 * unclosed) at the end of the input. */
static int
take(struct sc *sc, const char *unclosed)
{
	int c = peek(sc, 0);

	if (c == -1) {
		fail(sc, "%s", unclosed);
		return -1;
	}
	sc->i++;
	return c;
}

/* $'...': sc->i is just past the opening quote. */
static void
ansi_c(struct sc *sc, struct buf *b)
{
	int c, k, max;
	unsigned long v;
	unsigned h;

	for (;;) {
		if ((c = take(sc, "unclosed $'...' quote")) == -1)
			return;
		if (c == '\'')
			return;
		if (c != '\\') {
			if (buf_addc(b, (char)c) < 0)
				goto oom;
			continue;
		}
		if ((c = take(sc, "unclosed $'...' quote")) == -1)
			return;
		switch (c) {
		case 'a': c = '\a'; break;
		case 'b': c = '\b'; break;
		case 'e': case 'E': c = 033; break;
		case 'f': c = '\f'; break;
		case 'n': c = '\n'; break;
		case 'r': c = '\r'; break;
		case 't': c = '\t'; break;
		case 'v': c = '\v'; break;
		case 'c':
			if ((c = take(sc, "unclosed $'...' quote")) == -1)
				return;
			c &= 0x1f;
			if (c == SH_VAR_MARK) {
				fail(sc, "$'...' decodes to the control byte \\x01");
				return;
			}
			break;
		case 'x': case 'u': case 'U':
			max = c == 'x' ? 2 : c == 'u' ? 4 : 8;
			v = 0;
			for (k = 0; k < max && (h = hexval(peek(sc, 0))) < 16; k++) {
				v = v * 16 + h;
				sc->i++;
			}
			if (k == 0) {
				if (buf_addc(b, '\\') < 0 || buf_addc(b, (char)c) < 0)
					goto oom;
				continue;
			}
			if (v == (unsigned long)SH_VAR_MARK) {
				fail(sc, "$'...' decodes to the control byte \\x01");
				return;
			}
			if (max == 2) {
				if (v == (unsigned long)SH_VAR_MARK) {
					fail(sc, "$'...' decodes to the control byte \\x01");
					return;
				}
				if (buf_addc(b, (char)v) < 0)
					goto oom;
			} else if (put_utf8(b, v) < 0) {
				goto oom;
			}
			continue;
		default:
			if (c >= '0' && c <= '7') {
				v = (unsigned long)(c - '0');
				for (k = 1; k < 3 && peek(sc, 0) >= '0' &&
				    peek(sc, 0) <= '7'; k++)
					v = v * 8 + (unsigned long)(sc->s[sc->i++] - '0');
				c = (int)(v & 0xff);
				if (c == SH_VAR_MARK) {
					fail(sc, "$'...' decodes to the control byte \\x01");
					return;
				}
			} else if (c != '\\' && c != '\'' && c != '"' && c != '?') {
				if (buf_addc(b, '\\') < 0)
					goto oom;
			}
			break;
		}
		if (buf_addc(b, (char)c) < 0)
			goto oom;
	}
oom:
	fail(sc, "out of memory");
}

/* `...`: sc->i is just past the opening backtick. */
static void
backtick(struct sc *sc)
{
	struct buf b = {0};
	struct sc sub;
	int c;
	char *text;

	for (;;) {
		if ((c = take(sc, "unclosed backtick")) == -1)
			goto out;
		if (c == '`')
			break;
		if (c == '\\' && (peek(sc, 0) == '`' || peek(sc, 0) == '\\' ||
		    peek(sc, 0) == '$')) {
			c = peek(sc, 0);
			sc->i++;
		}
		if (buf_addc(&b, (char)c) < 0) {
			fail(sc, "out of memory");
			goto out;
		}
	}
	text = astr(sc, b.p ? b.p : "", b.len);
	if (text == NULL || enter(sc) < 0)
		goto out;
	sub = *sc;
	sub.s = text;
	sub.n = b.len;
	sub.i = 0;
	sub.npend = 0;
	sub.in_subst = 1;
	scope(&sub, SH_PUSH);
	parse_list(&sub, 0);
	scope(&sub, SH_POP);
	if (!bad(&sub) && sub.npend > 0)
		fail(sc, "here-document inside backticks");
	if (!bad(&sub) && sub.compound != sc->compound)
		fail(sc, "compound command not closed inside backticks");
	sc->capcmds = sub.capcmds;
	sc->pipelines = sub.pipelines;
	sc->depth--;
out:
	buf_free(&b);
}

/* $(...) (how 1) or <(...) or >(...) (how 2): sc->i is just past the
 * '('. */
static void
cmd_subst(struct sc *sc, int how)
{
	int saved = sc->in_subst;

	if (enter(sc) < 0)
		return;
	sc->in_subst = how;
	scope(sc, SH_PUSH);
	parse_list(sc, ')');
	if (!bad(sc)) {
		if (peek(sc, 0) != ')')
			fail(sc, "unclosed $( or <( substitution");
		else
			sc->i++;
	}
	scope(sc, SH_POP);
	sc->in_subst = saved;
	sc->depth--;
}


/* Skips a quoted string inside ${...} or $((...)); parses $( and `. */
static void
skip_nested(struct sc *sc, int open, int close, unsigned *flags)
{
	int level = 1, c;
	struct buf dummy = {0};

	if (enter(sc) < 0)
		return;
	while (!bad(sc)) {
		c = peek(sc, 0);
		if (c == -1) {
			fail(sc, "unclosed ${...} or $((...))");
			break;
		}
		if (c == '\\') {
			sc->i += peek(sc, 1) == -1 ? 1 : 2;
		} else if (c == '\'') {
			sc->i++;
			while (peek(sc, 0) != -1 && peek(sc, 0) != '\'')
				sc->i++;
			if (peek(sc, 0) == -1)
				fail(sc, "unclosed single quote");
			else
				sc->i++;
		} else if (c == '`') {
			sc->i++;
			backtick(sc);
			*flags |= SH_W_SUBST;
		} else if (c == '$') {
			sc->i++;
			dollar(sc, &dummy, flags, 1);
		} else if (c == open) {
			level++;
			sc->i++;
		} else if (c == close) {
			sc->i++;
			if (--level == 0)
				break;
		} else {
			sc->i++;
		}
	}
	buf_free(&dummy);
	sc->depth--;
}

static int name_char(int c, int first);

/*
 * $NAME and ${NAME} leave SH_VAR_MARK NAME SH_VAR_MARK in the text (see
 * shell.h for the forms). An unquoted expansion is split and globbed by
 * bash: its marker starts with SH_VAR_UNQUOTED.
 */
static void
var_marker2(struct sc *sc, struct buf *b, const char *name, size_t n,
    const char *suffix, int dq)
{
	char m = SH_VAR_MARK, u = SH_VAR_UNQUOTED;

	if (buf_add(b, &m, 1) < 0 || (!dq && buf_add(b, &u, 1) < 0) ||
	    buf_add(b, name, n) < 0 ||
	    buf_add(b, suffix, strlen(suffix)) < 0 || buf_add(b, &m, 1) < 0)
		fail(sc, "out of memory");
}


/*
 * Arithmetic evaluates the values of the names in it as expressions again
 * (x='a[$(cmd)]'; $((x)) runs cmd): the text from..to is listed as a
 * command SH_ARITH TEXT, for the analyser to judge the names.
 */
static void
arith(struct sc *sc, size_t from, size_t to)
{
	struct sh_cmd *c;
	struct sh_word *w;

	if (bad(sc) || to < from)
		return;
	c = new_cmd(sc, SH_SIMPLE);
	if (c == NULL)
		return;
	w = arena_alloc(sc->out->arena, 2 * sizeof(*w));
	if (w == NULL) {
		fail(sc, "command too large to analyse");
		return;
	}
	w[0].s = astr(sc, SH_ARITH, strlen(SH_ARITH));
	w[0].len = strlen(SH_ARITH);
	w[0].flags = SH_W_LITERAL;
	w[1].s = astr(sc, sc->s + from, to - from);
	w[1].len = to - from;
	w[1].flags = SH_W_LITERAL;
	if (w[0].s == NULL || w[1].s == NULL)
		return;
	c->argv = w;
	c->argc = 2;
	c->in_subst = 1;
}

/* ${...}: sc->i is at the "{". */
static void
dollar_brace(struct sc *sc, struct buf *b, unsigned *flags, int dq)
{
	size_t start = sc->i + 1, e;

	sc->i++;
	*flags |= SH_W_VAR;
	*flags &= ~(unsigned)SH_W_LITERAL;
	/* ${NAME} alone is kept as a marker, like $NAME */
	for (e = start; e < sc->n && name_char((unsigned char)sc->s[e],
	    e == start); e++)
		;
	if (e > start && e < sc->n && sc->s[e] == '}') {
		var_marker2(sc, b, sc->s + start, e - start, "", dq);
		sc->i = e + 1;
		return;
	}
	/*
	 * ${NAME:-x}, ${NAME-x}, ${NAME:=x}: NAME's value when it is set
	 * (the analyser knows it or not); ${#x}, ${1}: a number or a
	 * positional word; anything else (${x:+y}, ${x%y}, ${x/y/z},
	 * ${!x}, ${x^^}, ${x[i]}): a value the analyser cannot know.
	 */
	/* ${a[i]} and ${x:off:len} evaluate i, off and len */
	if (e > start && e < sc->n && (sc->s[e] == '[' || (sc->s[e] == ':' &&
	    e + 1 < sc->n && strchr("-=?+", sc->s[e + 1]) == NULL))) {
		size_t q = e + 1, end;
		int lv = 1;

		for (end = q; end < sc->n && end < q + 4096; end++) {
			if (sc->s[end] == '{' || sc->s[end] == '[')
				lv++;
			else if ((sc->s[end] == '}' || sc->s[end] == ']') &&
			    --lv == 0)
				break;
		}
		arith(sc, q, end < sc->n ? end : q);
	}
	if (e > start && e + 1 < sc->n && (sc->s[e] == '-' ||
	    sc->s[e] == '=' || sc->s[e] == '?' || (sc->s[e] == ':' &&
	    (sc->s[e + 1] == '-' || sc->s[e + 1] == '=' ||
	    sc->s[e + 1] == '?')))) {
		/* a plain default word is kept: "NAME-=WORD" */
		size_t d = e + (sc->s[e] == ':') + 1, z = d;
		char tail[260];

		while (z < sc->n && z - d < 200 && strchr("abcdefghijklmnopqrstuvwxyz"
		    "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._/~+-@%,:",
		    sc->s[z]) != NULL && sc->s[z] != '\0')
			z++;
		if (sc->s[e + (sc->s[e] == ':')] != '?' && z < sc->n &&
		    sc->s[z] == '}' && z > d) {
			snprintf(tail, sizeof(tail), "-=%.*s", (int)(z - d),
			    sc->s + d);
			var_marker2(sc, b, sc->s + start, e - start, tail, dq);
		} else {
			var_marker2(sc, b, sc->s + start, e - start, "-", dq);
		}
	}
	else if (e == start && sc->i < sc->n && sc->s[sc->i] == '#')
		var_marker2(sc, b, "#", 1, "", dq);
	else if (e == start && sc->i < sc->n &&
	    sc->s[sc->i] >= '0' && sc->s[sc->i] <= '9')
		var_marker2(sc, b, "?", 1, "", dq);
	else
		var_marker2(sc, b, "!", 1, "", dq);
	skip_nested(sc, '{', '}', flags);
}

/* A '$' was consumed; reads the expansion after it. */
static void
dollar(struct sc *sc, struct buf *b, unsigned *flags, int dq)
{
	int c = peek(sc, 0);

	if (c == '(' && peek(sc, 1) == '(') {
		size_t from;

		sc->i += 2;
		from = sc->i;
		*flags |= SH_W_VAR;
		*flags &= ~(unsigned)SH_W_LITERAL;
		var_marker2(sc, b, "#", 1, "", dq);
		skip_nested(sc, '(', ')', flags);
		if (!bad(sc) && peek(sc, 0) == ')') {
			sc->i++;
			arith(sc, from, sc->i - 2);
		} else {
			fail(sc, "unclosed $((...))");
		}
		return;
	}
	if (c == '[') {
		/* $[...]: the old form of $((...)) */
		size_t from = sc->i + 1;

		sc->i++;
		*flags |= SH_W_VAR;
		*flags &= ~(unsigned)SH_W_LITERAL;
		var_marker2(sc, b, "#", 1, "", dq);
		skip_nested(sc, '[', ']', flags);
		if (!bad(sc))
			arith(sc, from, sc->i - 1);
		return;
	}
	if (c == '(') {
		sc->i++;
		*flags |= SH_W_SUBST;
		*flags &= ~(unsigned)SH_W_LITERAL;
		cmd_subst(sc, 1);
		return;
	}
	if (c == '{') {
		dollar_brace(sc, b, flags, dq);
		return;
	}
	if (c == '\'' && !dq) {
		sc->i++;
		*flags |= SH_W_QUOTED;
		ansi_c(sc, b);
		return;
	}
	if (c == '"' && !dq) {
		/* $"..." is a translated string: read as "...". */
		return;
	}
	if (c != -1 && (c == '_' || (c >= 'a' && c <= 'z') ||
	    (c >= 'A' && c <= 'Z'))) {
		size_t start = sc->i;

		while ((c = peek(sc, 0)) != -1 && (c == '_' ||
		    (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
		    (c >= '0' && c <= '9')))
			sc->i++;
		*flags |= SH_W_VAR;
		*flags &= ~(unsigned)SH_W_LITERAL;
		var_marker2(sc, b, sc->s + start, sc->i - start, "", dq);
		return;
	}
	if (c != -1 && strchr("0123456789@*#?$!-", c) != NULL) {
		sc->i++;
		*flags |= SH_W_VAR;
		*flags &= ~(unsigned)SH_W_LITERAL;
		/* $# $? $$ $!: numbers; $1 $@ $* $-: words */
		var_marker2(sc, b, strchr("#?$!", c) != NULL ? "#" : "?", 1, "",
		    dq);
		return;
	}
	if (buf_addc(b, '$') < 0)
		fail(sc, "out of memory");
}

/* "...": sc->i is just past the opening quote. */
static void
dquote(struct sc *sc, struct buf *b, unsigned *flags)
{
	int c, d;

	for (;;) {
		if (bad(sc))
			return;
		if ((c = take(sc, "unclosed double quote")) == -1)
			return;
		if (c == '"')
			return;
		if (c == '\\') {
			d = peek(sc, 0);
			if (d == '\n') {
				sc->i++;
				continue;
			}
			if (d == '$' || d == '`' || d == '"' || d == '\\') {
				sc->i++;
				c = d;
			}
		} else if (c == '$') {
			dollar(sc, b, flags, 1);
			continue;
		} else if (c == '`') {
			*flags |= SH_W_SUBST;
			*flags &= ~(unsigned)SH_W_LITERAL;
			backtick(sc);
			continue;
		}
		if (buf_addc(b, (char)c) < 0) {
			fail(sc, "out of memory");
			return;
		}
	}
}

static int
name_char(int c, int first)
{
	return c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	    (!first && c >= '0' && c <= '9');
}

/* Characters that mean nothing special anywhere in a word. */
static int
plain_char(int c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	    (c >= '0' && c <= '9') || c == '_' || c == '/' || c == '-' ||
	    c == ':' || c == '@' || c == '%' || c == '^';
}

/*
 * Reads one word at sc->i into *w. in_test: inside [[ ]], where < and >
 * are operators of the test, not redirections.
 */
/* The state of a word being read (read_word). */
struct wst {
	unsigned flags;
	int name_ok;            /* so far a NAME: NAME=value assigns */
	int brace_open, brace_comma, bracket_open;
	size_t start;
};

/* A character of a word that is not a quote or an expansion: what it
 * tells of the word (globs, braces, ~, NAME=). blen: the length so far. */
static void
word_plain(struct sc *sc, struct wst *st, int c, size_t blen)
{
	switch (c) {
	case '*': case '?':
		st->flags |= SH_W_GLOB;
		break;
	case '[':
		/* a bracket expression needs its ]: "[" and "[[" are words */
		st->bracket_open = 1;
		break;
	case ']':
		if (st->bracket_open)
			st->flags |= SH_W_GLOB;
		break;
	case '{':
		st->brace_open = 1;
		break;
	case ',':
		if (st->brace_open)
			st->brace_comma = 1;
		break;
	case '.':
		if (st->brace_open && peek(sc, 0) == '.')
			st->brace_comma = 1;
		break;
	case '}':
		if (st->brace_open && st->brace_comma)
			st->flags |= SH_W_BRACE;
		break;
	case '~':
		if (sc->i - 1 == st->start)
			st->flags |= SH_W_TILDE;
		break;
	case '=':
		if (st->name_ok && blen > 0) {
			st->flags |= SH_W_ASSIGN;
			st->name_ok = 0;
		}
		break;
	case '+':
		if (st->name_ok && blen > 0 && peek(sc, 0) == '=')
			break;
		st->name_ok = 0;
		break;
	default:
		if (st->name_ok && !name_char(c, blen == 0))
			st->name_ok = 0;
		break;
	}
}

static void
read_word(struct sc *sc, struct sh_word *w, int in_test)
{
	struct buf b = {0};
	struct wst st = { SH_W_LITERAL, 1, 0, 0, 0, 0 };
	int c;

	st.start = sc->i;
	while (!bad(sc)) {
		c = peek(sc, 0);
		if (plain_char(c)) {
			/* a run of letters, digits and / - _ : @ % ^: what
			 * word_plain would note of each is whether the word is
			 * still a NAME */
			size_t j = sc->i;

			for (; j < sc->n && plain_char((unsigned char)sc->s[j]);
			    j++)
				if (st.name_ok && !name_char((unsigned char)
				    sc->s[j], b.len + (j - sc->i) == 0))
					st.name_ok = 0;
			if (buf_add(&b, sc->s + sc->i, j - sc->i) < 0)
				goto oom;
			sc->i = j;
			continue;
		}
		if ((c == '<' || c == '>') && peek(sc, 1) == '(') {
			sc->i += 2;
			st.flags |= SH_W_SUBST;
			st.flags &= ~(unsigned)SH_W_LITERAL;
			cmd_subst(sc, 2);
			st.name_ok = 0;
			continue;
		}
		if (in_test && (c == '<' || c == '>')) {
			if (sc->i != st.start)
				break;
			sc->i++;
			if (buf_addc(&b, (char)c) < 0)
				goto oom;
			break;
		}
		if (is_meta(c))
			break;
		sc->i++;
		switch (c) {
		case '\\':
			if (peek(sc, 0) == '\n') {
				sc->i++;
				continue;
			}
			st.flags |= SH_W_QUOTED;
			st.name_ok = 0;
			if (peek(sc, 0) == -1)
				break;
			c = sc->s[sc->i++];
			if (buf_addc(&b, (char)c) < 0)
				goto oom;
			continue;
		case '\'':
			st.flags |= SH_W_QUOTED;
			st.name_ok = 0;
			while (peek(sc, 0) != -1 && peek(sc, 0) != '\'') {
				if (buf_addc(&b, sc->s[sc->i++]) < 0)
					goto oom;
			}
			if (peek(sc, 0) == -1) {
				fail(sc, "unclosed single quote");
				goto out;
			}
			sc->i++;
			continue;
		case '"':
			st.flags |= SH_W_QUOTED;
			st.name_ok = 0;
			dquote(sc, &b, &st.flags);
			continue;
		case '$':
			if (peek(sc, 0) == '"') {
				sc->i++;
				st.flags |= SH_W_QUOTED;
				st.name_ok = 0;
				dquote(sc, &b, &st.flags);
				continue;
			}
			st.name_ok = 0;
			dollar(sc, &b, &st.flags, 0);
			continue;
		case '`':
			st.name_ok = 0;
			st.flags |= SH_W_SUBST;
			st.flags &= ~(unsigned)SH_W_LITERAL;
			backtick(sc);
			continue;
		default:
			word_plain(sc, &st, c, b.len);
			break;
		}
		if (buf_addc(&b, (char)c) < 0)
			goto oom;
	}
	if (st.flags & (SH_W_GLOB | SH_W_BRACE))
		st.flags &= ~(unsigned)SH_W_LITERAL;
	w->s = astr(sc, b.p ? b.p : "", b.len);
	w->len = b.len;
	w->flags = st.flags;
	goto out;
oom:
	fail(sc, "out of memory");
out:
	if (w->s == NULL) {
		w->s = (char *)"";
		w->len = 0;
	}
	buf_free(&b);
}

struct cmdbuild {
	struct sh_word *w;
	int nw, capw;
	struct sh_redir *r;
	int nr, capr;
	struct sh_word w0[16];  /* the first words: no heap (w == w0) */
};

static int
cb_word(struct sc *sc, struct cmdbuild *cb, const struct sh_word *w)
{
	struct sh_word *nw;
	int cap;

	if (cb->nw >= SH_MAX_WORDS) {
		fail(sc, "more than %d words in one command", SH_MAX_WORDS);
		return -1;
	}
	if (cb->capw == 0) {
		cb->w = cb->w0;
		cb->capw = (int)(sizeof(cb->w0) / sizeof(cb->w0[0]));
	}
	if (cb->nw == cb->capw) {
		cap = cb->capw * 2;
		if (cb->w == cb->w0) {
			if ((nw = malloc((size_t)cap * sizeof(*nw))) != NULL)
				memcpy(nw, cb->w0, sizeof(cb->w0));
		} else
			nw = realloc(cb->w, (size_t)cap * sizeof(*nw));
		if (nw == NULL) {
			fail(sc, "out of memory");
			return -1;
		}
		cb->w = nw;
		cb->capw = cap;
	}
	cb->w[cb->nw++] = *w;
	return 0;
}

static const char *const reserved_skip[] = {
	"if", "then", "elif", "else", "fi", "while", "until", "do", "done",
	"{", "}", "!", NULL,
};

static int
is_word(const struct sh_word *w, const char *s)
{
	return (w->flags & SH_W_QUOTED) == 0 && w->s[0] == s[0] &&
	    strcmp(w->s, s) == 0;
}

/*
 * The delimiter of a here-document as bash compares it: the word as
 * written, with quotes removed and nothing expanded ("<<a$(true)" ends at
 * the line "a$(true)"). Any quoting means the body is not expanded.
 */
static void
heredoc_delim(struct sc *sc, struct sh_redir *r, size_t from, size_t to)
{
	struct buf b = {0};
	size_t i = from;
	int c, q = 0;

	while (i < to && !bad(sc)) {
		c = (unsigned char)sc->s[i++];
		if (c == '\\') {
			if (i < to && sc->s[i] == '\n') {
				i++;
				continue;
			}
			q = 1;
			if (i < to)
				c = (unsigned char)sc->s[i++];
		} else if (c == '\'') {
			q = 1;
			while (i < to && sc->s[i] != '\'')
				if (buf_addc(&b, sc->s[i++]) < 0)
					goto oom;
			i++;
			continue;
		} else if (c == '"') {
			q = 1;
			while (i < to && sc->s[i] != '"') {
				if (sc->s[i] == '\\' && i + 1 < to &&
				    strchr("$`\"\\\n", sc->s[i + 1]) != NULL) {
					i++;
					if (sc->s[i] == '\n') {
						i++;
						continue;
					}
				}
				if (buf_addc(&b, sc->s[i++]) < 0)
					goto oom;
			}
			i++;
			continue;
		} else if (c == '$' && i < to && (sc->s[i] == '\'' ||
		    sc->s[i] == '"')) {
			fail(sc, "here-document delimiter with $'...' or $\"...\" "
			    "is not analysed");
			goto out;
		}
		if (buf_addc(&b, (char)c) < 0)
			goto oom;
	}
	r->delim = astr(sc, b.p ? b.p : "", b.len);
	r->delim_quoted = q;
	goto out;
oom:
	fail(sc, "out of memory");
out:
	buf_free(&b);
}

/* Reads a redirection operator at sc->i, if any. Returns 1 if read. */
static int
read_redir(struct sc *sc, struct cmdbuild *cb)
{
	size_t save = sc->i;
	int fd = -1, c, op;
	struct sh_redir r;

	memset(&r, 0, sizeof(r));
	c = peek(sc, 0);
	if ((c == '<' || c == '>') && peek(sc, 1) == '(')
		return 0;       /* process substitution: a word */
	if (c >= '0' && c <= '9') {
		fd = 0;
		while ((c = peek(sc, 0)) >= '0' && c <= '9') {
			if (fd < 100000)
				fd = fd * 10 + (c - '0');
			sc->i++;
		}
		if (c != '<' && c != '>') {
			sc->i = save;
			return 0;
		}
	}
	if (c == '&' && peek(sc, 1) == '>') {
		sc->i += 2;
		if (peek(sc, 0) == '>') {
			sc->i++;
			op = SH_R_APPENDERR;
		} else {
			op = SH_R_OUTERR;
		}
	} else if (c == '>') {
		sc->i++;
		c = peek(sc, 0);
		if (c == '>') {
			sc->i++;
			op = SH_R_APPEND;
		} else if (c == '|') {
			sc->i++;
			op = SH_R_CLOBBER;
		} else if (c == '&') {
			sc->i++;
			skip_blanks(sc);
			c = peek(sc, 0);
			op = (c >= '0' && c <= '9') || c == '-' ? SH_R_DUP :
			    SH_R_OUTERR;
			if (fd != -1 && op == SH_R_OUTERR)
				op = SH_R_OUT;
		} else {
			op = SH_R_OUT;
		}
	} else if (c == '<') {
		sc->i++;
		c = peek(sc, 0);
		if (c == '<' && peek(sc, 1) == '<') {
			sc->i += 2;
			op = SH_R_HERESTR;
		} else if (c == '<') {
			sc->i++;
			op = SH_R_HEREDOC;
			if (peek(sc, 0) == '-') {
				sc->i++;
				r.body_len = 1;         /* strip tabs, see below */
			}
		} else if (c == '&') {
			sc->i++;
			op = SH_R_DUP;
			if (fd == -1)
				fd = 0;         /* <&N moves fd 0 */
		} else if (c == '>') {
			sc->i++;
			op = SH_R_INOUT;
		} else {
			op = SH_R_IN;
		}
	} else {
		sc->i = save;
		return 0;
	}
	skip_blanks(sc);
	if (is_meta(peek(sc, 0)) && !((peek(sc, 0) == '<' || peek(sc, 0) == '>') &&
	    peek(sc, 1) == '(')) {
		fail(sc, "redirection without a target");
		return 1;
	}
	r.fd = fd;
	r.op = (enum sh_redir_op)op;
	{
		size_t from = sc->i;

		read_word(sc, &r.target, 0);
		if (bad(sc))
			return 1;
		if (op == SH_R_HEREDOC)
			heredoc_delim(sc, &r, from, sc->i);
		if (bad(sc))
			return 1;
	}
	if (cb->nr >= SH_MAX_REDIRS) {
		fail(sc, "more than %d redirections", SH_MAX_REDIRS);
		return 1;
	}
	if (cb->nr == cb->capr) {
		int cap = cb->capr ? cb->capr * 2 : 4;
		struct sh_redir *nr = realloc(cb->r, (size_t)cap * sizeof(*nr));

		if (nr == NULL) {
			fail(sc, "out of memory");
			return 1;
		}
		cb->r = nr;
		cb->capr = cap;
	}
	cb->r[cb->nr++] = r;
	return 1;
}

/* Copies the built command into the arena and queues its here-docs. */
static struct sh_cmd *
emit(struct sc *sc, struct cmdbuild *cb)
{
	struct sh_cmd *c;
	struct sh_redir *r;
	int k;

	c = new_cmd(sc, SH_SIMPLE);
	if (c == NULL)
		return NULL;
	if (cb->nw > 0) {
		c->argv = arena_alloc(sc->out->arena, (size_t)cb->nw * sizeof(*c->argv));
		if (c->argv == NULL) {
			fail(sc, "command too large to analyse");
			return NULL;
		}
		memcpy(c->argv, cb->w, (size_t)cb->nw * sizeof(*c->argv));
		c->argc = cb->nw;
	}
	if (cb->nr > 0) {
		c->redir = arena_alloc(sc->out->arena, (size_t)cb->nr * sizeof(*r));
		if (c->redir == NULL) {
			fail(sc, "command too large to analyse");
			return NULL;
		}
		memcpy(c->redir, cb->r, (size_t)cb->nr * sizeof(*r));
		c->nredir = cb->nr;
	}
	for (k = 0; k < c->nredir; k++) {
		r = &c->redir[k];
		if (r->op != SH_R_HEREDOC)
			continue;
		if (sc->npend >= (int)(sizeof(sc->pend) / sizeof(sc->pend[0]))) {
			fail(sc, "too many here-documents");
			return NULL;
		}
		sc->pend[sc->npend].r = r;
		sc->pend[sc->npend].delim = r->delim != NULL ? r->delim :
		    r->target.s;
		sc->pend[sc->npend].strip_tabs = r->body_len == 1;
		r->body_len = 0;
		/* bash expands the body unless some part of the delimiter is
		 * quoted, whatever else it holds */
		r->body_literal = r->delim_quoted;
		sc->npend++;
	}
	return c;
}

/*
 * A reserved word that only groups (if, then, {, done ...): keeps the
 * compound commands balanced. Returns 1 when s is one, 0 when not, -1
 * when it closes what was never opened.
 */
static int
keyword_skip(struct sc *sc, const char *s)
{
	const char *const *k;

	/* most first words are no reserved word: their first letter says */
	if (strchr("tedfwu{}!i", s[0]) == NULL || s[0] == '\0')
		return 0;
	for (k = reserved_skip; *k != NULL; k++)
		if (strcmp(s, *k) == 0)
			break;
	if (*k == NULL)
		return 0;
	if (strcmp(s, "{") == 0 || strcmp(s, "if") == 0 ||
	    strcmp(s, "while") == 0 || strcmp(s, "until") == 0)
		sc->compound++;
	else if ((strcmp(s, "}") == 0 || strcmp(s, "fi") == 0 ||
	    strcmp(s, "done") == 0) && --sc->compound < 0) {
		fail(sc, "\"%s\" without its opening word", s);
		return -1;
	}
	if (strcmp(s, "if") == 0 || strcmp(s, "while") == 0 ||
	    strcmp(s, "until") == 0)
		sc->condlevel++;
	else if ((strcmp(s, "fi") == 0 ||
	    strcmp(s, "done") == 0) && sc->condlevel > 0)
		sc->condlevel--;
	return 1;
}

/*
 * Parses one command: simple, subshell, or a reserved word that opens or
 * closes a compound command (those are skipped: their inner simple
 * commands are what runs). Returns the last command emitted, or NULL.
 */
static struct sh_cmd *
parse_command(struct sc *sc)
{
	struct cmdbuild cb = {0};
	struct sh_word w;
	struct sh_cmd *last = NULL;
	int c, in_test = 0, kw_ok = 1;

	for (;;) {
		if (bad(sc))
			goto out;
		skip_blanks(sc);
		c = peek(sc, 0);
		if (c == '(' && cb.nw == 0 && cb.nr == 0) {
			if (peek(sc, 1) == '(') {
				fail(sc, "arithmetic command ((...)) is not analysed");
				goto out;
			}
			sc->i++;
			if (enter(sc) < 0)
				goto out;
			scope(sc, SH_PUSH);
			parse_list(sc, ')');
			if (!bad(sc) && peek(sc, 0) != ')')
				fail(sc, "unclosed ( subshell");
			sc->i++;
			scope(sc, SH_POP);
			sc->depth--;
			last = bad(sc) ? NULL : &sc->out->cmds[sc->out->ncmds - 1];
			/* redirections after ) apply to the subshell */
			kw_ok = 0;
			continue;
		}
		if (c == '(') {
			if (cb.nw == 1 && (cb.w[0].flags & SH_W_LITERAL))
				fail(sc, "function definitions are not analysed");
			else
				fail(sc, "unexpected \"(\"");
			goto out;
		}
		if (c == -1 || c == '\n' || c == ';' || c == '&' || c == '|' ||
		    c == ')') {
			if (c == '&' && peek(sc, 1) == '>') {
				/* &> redirection */
			} else {
				break;
			}
		}
		if (!in_test && read_redir(sc, &cb))
			continue;
		memset(&w, 0, sizeof(w));
		read_word(sc, &w, in_test);
		if (bad(sc))
			goto out;
		if (w.len == 0 && w.flags == SH_W_LITERAL) {
			fail(sc, "unexpected character");
			goto out;
		}
		if (cb.nw == 0 && kw_ok && (w.flags & SH_W_QUOTED) == 0) {
			int skip = keyword_skip(sc, w.s);

			if (skip < 0)
				goto out;
			if (skip)
				continue;
			if (strchr("csf", w.s[0]) != NULL && (strcmp(w.s,
			    "case") == 0 || strcmp(w.s, "select") == 0 ||
			    strcmp(w.s, "function") == 0 ||
			    strcmp(w.s, "coproc") == 0)) {
				fail(sc, "\"%s\" is not analysed", w.s);
				goto out;
			}
			if (strcmp(w.s, "for") == 0) {
				/* for NAME [in WORDS]; do: the words are checked as
				 * arguments of a harmless pseudo-command. */
				skip_blanks(sc);
				if (peek(sc, 0) == '(') {
					fail(sc, "arithmetic for loop is not analysed");
					goto out;
				}
				sc->compound++;
				sc->condlevel++;
				w.s = (char *)"for";
				w.len = 3;
				w.flags = SH_W_LITERAL;
				if (cb_word(sc, &cb, &w) < 0)
					goto out;
				kw_ok = 0;
				continue;
			}
			if (w.s[0] == '[' && strcmp(w.s, "[[") == 0)
				in_test = 1;
		}
		if (in_test && is_word(&w, "]]"))
			in_test = 0;
		if (cb.nw > 0 && cb.w[0].s[0] == 'f' &&
		    strcmp(cb.w[0].s, "for") == 0 && is_word(&w, "do")) {
			/* the loop body follows like a new command */
			break;
		}
		if (cb_word(sc, &cb, &w) < 0)
			goto out;
		kw_ok = 0;
	}
	if (cb.nw > 0 || cb.nr > 0)
		last = emit(sc, &cb);
out:
	if (cb.w != cb.w0)
		free(cb.w);
	free(cb.r);
	return last;
}

static void
parse_pipeline(struct sc *sc)
{
	struct sh_cmd *c;
	int id = sc->pipelines++, stage = 0, piped = 0;
	int first_idx, keep;

	/* every stage of a real pipeline runs in a subshell, the first one
	 * too: a place is kept for its SH_PUSH */
	keep = sc->out->ncmds;
	scope(sc, SH_NOP);
	if (bad(sc))
		return;
	for (;;) {
		first_idx = sc->out->ncmds;
		if (piped)
			scope(sc, SH_PUSH);
		c = parse_command(sc);
		if (bad(sc))
			return;
		if (c == NULL && stage > 0) {
			fail(sc, "pipe without a command after it");
			return;
		}
		if (c != NULL) {
			int k;

			for (k = first_idx; k < sc->out->ncmds; k++) {
				struct sh_cmd *x = &sc->out->cmds[k];

				if (x->kind != SH_SIMPLE)
					continue;
				if (x->pipeline == -1) {
					x->pipeline = id;
					x->stage = stage;
				}
				/* everything in a later stage, nested or not,
				 * may read the pipe */
				if (stage > 0)
					x->pipe_in = 1;
			}
			c = &sc->out->cmds[sc->out->ncmds - 1];
		}
		skip_blanks(sc);
		if (peek(sc, 0) == '|' && peek(sc, 1) != '|') {
			sc->i += peek(sc, 1) == '&' ? 2 : 1;
			if (c != NULL)
				c->conn = SH_C_PIPE;
			{
				int k;

				/* (find .; ls) | xargs cat: what the commands
				 * of a nested list print goes into this pipe */
				for (k = first_idx; k < sc->out->ncmds; k++) {
					struct sh_cmd *x = &sc->out->cmds[k];

					if (x->kind == SH_SIMPLE && x->pipeline != id &&
					    x->out_pipeline == -1)
						x->out_pipeline = id;
				}
			}
			if (!piped)
				sc->out->cmds[keep].kind = SH_PUSH;
			scope(sc, SH_POP);
			piped = 1;
			stage++;
			skip_linebreaks(sc);	/* newlines may follow a pipe */
			if (c == NULL) {
				fail(sc, "pipe without a command before it");
				return;
			}
			continue;
		}
		if (piped)
			scope(sc, SH_POP);
		return;
	}
}

/* Parses a list up to term (')' or 0 for end of input). */
static void
parse_list(struct sc *sc, int term)
{
	int c, before, in_andor = 0, listkeep = -1;
	enum sh_conn conn;

	for (;;) {
		if (bad(sc))
			return;
		skip_blanks(sc);
		c = peek(sc, 0);
		if (c == -1)
			return;
		if (c == term)
			return;
		if (c == '\n') {
			sc->i++;
			read_heredocs(sc);
			continue;
		}
		if (c == ';') {
			if (peek(sc, 1) == ';' || peek(sc, 1) == '&') {
				fail(sc, "\";;\" outside a case statement");
				return;
			}
			sc->i++;
			continue;
		}
		if (c == ')') {
			fail(sc, "unexpected \")\"");
			return;
		}
		/* an and-or list run with & runs in a subshell: a place is
		 * kept for its SH_PUSH at the start of the list */
		if (!in_andor) {
			listkeep = sc->out->ncmds;
			scope(sc, SH_NOP);
			if (bad(sc))
				return;
		}
		before = sc->out->ncmds;
		parse_pipeline(sc);
		if (bad(sc))
			return;
		if (in_andor) {
			int k;

			for (k = before; k < sc->out->ncmds; k++)
				sc->out->cmds[k].guarded = in_andor;
		}
		skip_blanks(sc);
		c = peek(sc, 0);
		conn = SH_C_END;
		if (c == '&' && peek(sc, 1) == '&') {
			sc->i += 2;
			conn = SH_C_AND;
		} else if (c == '|' && peek(sc, 1) == '|') {
			sc->i += 2;
			conn = SH_C_OR;
		} else if (c == '&') {
			sc->i++;
			conn = SH_C_BG;
		} else if (c == ';' && peek(sc, 1) != ';' && peek(sc, 1) != '&') {
			sc->i++;
			conn = SH_C_SEQ;
		} else if (c == '\n') {
			conn = SH_C_SEQ;
		} else if (c != -1 && c != term) {
			fail(sc, "unexpected \"%c\"", c);
			return;
		}
		if (sc->out->ncmds > before) {
			int k;

			/* the connector belongs to the last simple command of
			 * this pipeline at this level */
			for (k = sc->out->ncmds - 1; k >= before; k--)
				if (sc->out->cmds[k].kind == SH_SIMPLE &&
				    sc->out->cmds[k].conn != SH_C_PIPE) {
					sc->out->cmds[k].conn = conn;
					break;
				}
		}
		in_andor = conn == SH_C_AND ? 1 : conn == SH_C_OR ? 2 : 0;
		if (conn == SH_C_BG && listkeep >= 0) {
			sc->out->cmds[listkeep].kind = SH_PUSH;
			scope(sc, SH_POP);
		}
		if (conn == SH_C_AND || conn == SH_C_OR) {
			skip_linebreaks(sc);	/* a newline may follow && and || */
			c = peek(sc, 0);
			if (c == -1 || c == term) {
				fail(sc, "list ends with && or ||");
				return;
			}
		}
	}
}

int
sh_parse(const char *text, size_t len, int depth, struct sh_parse *out)
{
	struct sc sc;

	memset(out, 0, sizeof(*out));
	memset(&sc, 0, sizeof(sc));
	sc.out = out;
	sc.problem = out->problem;
	if (text == NULL) {
		snprintf(out->problem, sizeof(out->problem), "no command");
		return -1;
	}
	if (len > (size_t)SH_MAX_INPUT) {
		snprintf(out->problem, sizeof(out->problem),
		    "command longer than %ld bytes", SH_MAX_INPUT);
		return -1;
	}
	if (memchr(text, '\0', len) != NULL) {
		snprintf(out->problem, sizeof(out->problem),
		    "command contains a NUL byte");
		return -1;
	}
	if (memchr(text, SH_VAR_MARK, len) != NULL) {
		snprintf(out->problem, sizeof(out->problem),
		    "command contains the control byte \\x01");
		return -1;
	}
	out->arena = calloc(1, sizeof(*out->arena));
	if (out->arena == NULL) {
		snprintf(out->problem, sizeof(out->problem), "out of memory");
		return -1;
	}
	/* Decoded words never exceed the input; leave room for structure. */
	out->arena->cap = len * 8 + (1u << 20);
	sc.s = text;
	sc.n = len;
	sc.depth = depth;
	if (depth > SH_MAX_DEPTH) {
		fail(&sc, "nesting deeper than %d levels", SH_MAX_DEPTH);
		return -1;
	}
	parse_list(&sc, 0);
	if (!bad(&sc) && sc.i < sc.n)
		fail(&sc, "unexpected \"%c\"", sc.s[sc.i]);
	if (!bad(&sc) && sc.npend > 0)
		fail(&sc, "here-document not closed by \"%s\"", sc.pend[0].delim);
	if (!bad(&sc) && sc.compound != 0)
		fail(&sc, "compound command (if, while, for, { }) not closed");
	return bad(&sc) ? -1 : 0;
}

void
sh_parse_free(struct sh_parse *p)
{
	if (p == NULL)
		return;
	free(p->cmds);
	arena_free(p->arena);
	p->cmds = NULL;
	p->arena = NULL;
	p->ncmds = 0;
}
