/*
 * args.c - the arguments of a simple command: its operands (through the
 * walk of opts.c), the paths words name ($HOME, globs), the writes and
 * reads they stand for, and the catastrophes (rm -r /) that are denied
 * whatever the rules say.
 *
 * Rules:
 * - A word whose value is not known exactly is never taken for a harmless
 *   path: a write to it escalates; a read of it is checked for secret
 *   names where a guess is possible ($DIR/.env).
 * - Files are run (scripts, ./tool) only after their path is resolved:
 *   inside the project they are project code, elsewhere they escalate.
 */
#include "policy/analyse.h"

#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int
an_lit(const struct sh_word *w)
{
	return (w->flags & SH_W_LITERAL) != 0;
}

int
an_is_opt(const struct sh_word *w)
{
	return an_lit(w) && w->s[0] == '-' && w->s[1] != '\0';
}

int
an_has_word(const struct cmdv *v, int from, const char *s)
{
	int k;

	for (k = from; k < v->n; k++)
		if (an_lit(&v->w[k]) && strcmp(v->w[k].s, s) == 0)
			return 1;
	return 0;
}

/* Short option letter ch present in a cluster like -rf? */
int
an_has_short(const struct cmdv *v, int from, char ch, const char *optarg)
{
	struct an_walk it;
	int k, opt;
	const char *s;

	an_walk_init(&it, from, NULL, AN_W_NONE);
	while ((k = an_walk_any(v, &it, &opt)) >= 0) {
		s = v->w[k].s;
		if (!opt || s[1] == '-')
			continue;
		for (s++; *s != '\0'; s++) {
			if (*s == ch)
				return 1;
			if (strchr(optarg, *s) != NULL)
				break;
		}
	}
	return 0;
}

/*
 * 1 if the short-option cluster s (-Eu, -n) ends with a letter that takes
 * a value, so that the value is the next word (sudo -Eu root cmd).
 */
int
an_cluster_takes_next(const char *s, const char *optarg)
{
	const char *q;

	if (s[0] != '-' || s[1] == '-' || s[1] == '\0')
		return 0;
	for (q = s + 1; *q != '\0'; q++)
		if (strchr(optarg, *q) != NULL)
			return q[1] == '\0';
	return 0;
}

/*
 * Calls fn for each operand (non-option word) of v from index from.
 * Options in optarg take a value (attached or the next word); "--" ends
 * options. Returns the number of operands.
 */
int
an_operands(struct ev *ev, struct cmdv *v, int from, const char *optarg,
    operand_fn fn)
{
	struct an_walk it;
	int k, n = 0;

	an_walk_init(&it, from, optarg, AN_W_ALONE);
	while ((k = an_walk_next(v, &it)) >= 0) {
		if (fn != NULL)
			fn(ev, v, &v->w[k], n);
		n++;
	}
	return n;
}

const char *
an_wtext(const struct sh_word *w)
{
	return an_lit(w) || (w->flags & SH_W_TILDE && !(w->flags &
	    (SH_W_VAR | SH_W_SUBST | SH_W_GLOB | SH_W_BRACE))) ? w->s : NULL;
}

#define UNKNOWN_DIR "/sbx-unknown"

/*
 * The value of the variable a marker names, or NULL when it is not known
 * (*opaque set when not even a guess is safe: ${x%y}, a value read at run
 * time, or an unquoted value that bash would split or glob).
 */
static const char *
marker_value(const struct ev *ev, const char *p, size_t n, int *opaque,
    int *guess)
{
	int unquoted = 0, dflt = 0, j;
	const char *val = NULL, *dword = NULL;
	size_t dwlen = 0;

	if (n > 0 && p[0] == SH_VAR_UNQUOTED) {
		unquoted = 1;
		p++;
		n--;
	}
	if (n == 1 && p[0] == '!') {
		*opaque = 1;
		return NULL;
	}
	/* $1, $@ after set -- ~/.ssh/id_rsa */
	if (n == 1 && p[0] == '?' && ev->pos_tainted) {
		*opaque = 1;
		return NULL;
	}
	{
		/* NAME-=WORD: the default word, when bash would use it */
		const char *dm = memchr(p, '-', n);

		if (dm != NULL && dm > p && dm + 1 < p + n && dm[1] == '=') {
			dword = dm + 2;
			dwlen = (size_t)(p + n - dword);
			n = (size_t)(dm - p) + 1;
		}
	}
	if (n > 1 && p[n - 1] == '-') {
		dflt = 1;
		n--;
	}
	for (j = 0; j < ev->nvars; j++)
		if (strlen(ev->vars[j].name) == n &&
		    strncmp(ev->vars[j].name, p, n) == 0) {
			/* assigned earlier in the line */
			if (ev->vars[j].tainted)
				*opaque = 1;
			val = ev->vars[j].known ? ev->vars[j].value : NULL;
			break;
		}
	if (j == ev->nvars) {
		if (n == 4 && strncmp(p, "HOME", 4) == 0)
			val = ev->call->home;
		else if (n == 3 && strncmp(p, "PWD", 3) == 0 && ev->cwd_known)
			val = ev->cwd;
		else if (n == 6 && strncmp(p, "TMPDIR", 6) == 0 &&
		    ev->call->tmpdir != NULL && ev->call->tmpdir[0] == '/')
			val = ev->call->tmpdir;
	}
	if (val != NULL && dflt && val[0] == '\0')
		val = NULL;
	if (val == NULL && dflt && dword != NULL && j == ev->nvars &&
	    dwlen < sizeof(ev->dflt_buf)) {
		/* an environment variable or its default: judged as the
		 * default, never as exact */
		memcpy(((struct ev *)ev)->dflt_buf, dword, dwlen);
		((struct ev *)ev)->dflt_buf[dwlen] = '\0';
		*guess = 1;
		return ev->dflt_buf;
	}
	if (val == NULL && dflt)
		*opaque = 1;
	/* bash splits and globs an unquoted value: f='x .sandbox'; rm $f */
	if (unquoted && !ev->in_assign && ((val != NULL &&
	    strpbrk(val, " \t\n*?[") != NULL) || ev->ifs_set))
		*opaque = 1;
	return val;
}

/*
 * The path a word names, for the triggers: its text when literal, or with
 * $HOME, $PWD, $TMPDIR and the line's own variables expanded. Returns 1
 * when exact; 0 when other variables were replaced by UNKNOWN_DIR (a
 * guess, good enough to spot a secret's name: "$DIR/.env"); -1 when the
 * word is not a path we can read (command substitution, glob, brace
 * expansion, too long); AN_OPAQUE when an expansion may be anything at
 * all (${x%y}, ${!x}, a value read at run time, a value bash splits):
 * reads and writes through it escalate.
 */
int
an_word_path(const struct ev *ev, const struct sh_word *w, char *out,
    size_t outsz)
{
	const char *p = w->s, *e, *val;
	size_t o = 0, n;
	int exact = 1, opaque = 0, guess = 0;

	if (an_wtext(w) != NULL) {
		if (w->len + 1 > outsz)
			return -1;
		memcpy(out, w->s, w->len + 1);
		return 1;
	}
	if (!(w->flags & SH_W_VAR))
		return -1;
	/* /proc/$$/cwd, /proc/$BASHPID/root: the command's own process */
	if (strncmp(w->s, "/proc/", 6) == 0 && w->s[6] == SH_VAR_MARK)
		return AN_OPAQUE;
	/* a marker that cannot be known wins over a glob or a substitution */
	for (p = w->s; (p = strchr(p, SH_VAR_MARK)) != NULL; p = e + 1) {
		e = strchr(p + 1, SH_VAR_MARK);
		if (e == NULL)
			return -1;
		(void)marker_value(ev, p + 1, (size_t)(e - p - 1), &opaque, &guess);
		if (opaque)
			return AN_OPAQUE;
	}
	if (w->flags & (SH_W_SUBST | SH_W_GLOB | SH_W_BRACE))
		return -1;
	p = w->s;
	while (*p != '\0') {
		if (*p != SH_VAR_MARK) {
			if (o + 1 >= outsz)
				return -1;
			out[o++] = *p++;
			continue;
		}
		e = strchr(p + 1, SH_VAR_MARK);
		if (e == NULL)
			return -1;
		n = (size_t)(e - p - 1);
		guess = 0;
		val = marker_value(ev, p + 1, n, &opaque, &guess);
		if (val == NULL) {
			val = UNKNOWN_DIR;
			exact = 0;
		}
		if (guess)
			exact = 0;
		if (o + strlen(val) + 1 >= outsz)
			return -1;
		memcpy(out + o, val, strlen(val));
		o += strlen(val);
		p = e + 1;
	}
	out[o] = '\0';
	/* "$X" with nothing else: any file at all; no guess to make */
	if (!exact && strcmp(out, UNKNOWN_DIR) == 0)
		return -1;
	return exact;
}

/* A read through a word whose value cannot be known: escalate. */
void
an_read_opaque(struct ev *ev, const struct sh_word *w, const char *what)
{
	ev_factor(ev, F_UNKNOWN);
	ev_note(ev, POLICY_ESCALATE, "read", "builtin: unknown path",
	    "%s reads a path only known at run time (an expansion the policy "
	    "cannot read: ${x%%y}, ${!x}, a value bash splits or globs, or one "
	    "read at run time); it may be a secret", what);
	(void)w;
}

static void
read_one(struct ev *ev, struct cmdv *v, struct sh_word *w)
{
	an_op_read(ev, v, w, 0);
}

static void
write_one(struct ev *ev, struct cmdv *v, struct sh_word *w)
{
	an_write_word(ev, v, w);
}

static void
write_tree_one(struct ev *ev, struct cmdv *v, struct sh_word *w)
{
	an_write_tree_word(ev, v, w);
}

/*
 * Words that name no path of their own: "-" (stdin, stdout) and a brace
 * expansion without expansions, whose words go to fn one by one. Returns
 * 0 for any other word, 1 when w was one of them, -1 when its braces
 * could not be expanded.
 */
static int
word_special(struct ev *ev, struct cmdv *v, struct sh_word *w,
    void (*fn)(struct ev *, struct cmdv *, struct sh_word *))
{
	if (an_lit(w) && strcmp(w->s, "-") == 0)
		return 1;
	if ((w->flags & SH_W_BRACE) && !(w->flags & (SH_W_VAR | SH_W_SUBST)))
		return an_brace_each(ev, v, w, fn) < 0 ? -1 : 1;
	return 0;
}

/*
 * A word with a command substitution ("$(pwd)/.env"): its output is not
 * known, but the rest of the word may name a secret. It is guessed as an
 * unknown variable is ("$DIR/.env"): UNKNOWN_DIR, then the word without
 * the substitution. 0 with the guess in out, -1 when there is none.
 */
static int
subst_guess(const struct ev *ev, const struct sh_word *w, char *out,
    size_t outsz)
{
	struct sh_word t = *w;
	char rest[SBX_PATH_MAX];
	int n;

	if (!(w->flags & SH_W_SUBST) || (w->flags & (SH_W_GLOB | SH_W_BRACE)))
		return -1;
	t.flags &= ~(unsigned)SH_W_SUBST;
	if (t.flags & SH_W_VAR) {
		if (an_word_path(ev, &t, rest, sizeof(rest)) < 0)
			return -1;
	} else if (w->len + 1 <= sizeof(rest)) {
		memcpy(rest, w->s, w->len + 1);
	} else {
		return -1;
	}
	if (rest[0] == '\0')
		return -1;
	n = snprintf(out, outsz, "%s/%s", UNKNOWN_DIR, rest);
	return n < 0 || (size_t)n >= outsz ? -1 : 0;
}

void
an_op_read(struct ev *ev, struct cmdv *v, struct sh_word *w, int idx)
{
	char path[SBX_PATH_MAX];
	int r;

	(void)idx;
	if ((r = word_special(ev, v, w, read_one)) != 0) {
		if (r < 0)
			an_read_opaque(ev, w, v->w[0].s);
		return;
	}
	r = an_word_path(ev, w, path, sizeof(path));
	if (r == AN_OPAQUE || ((w->flags & SH_W_SUBST) && ev->subst_unsafe))
		an_read_opaque(ev, w, v->w[0].s);
	else if (r >= 0 || subst_guess(ev, w, path, sizeof(path)) == 0)
		trig_read(ev, path, v->w[0].s);
	else if ((w->flags & SH_W_GLOB) && !(w->flags & (SH_W_SUBST | SH_W_VAR |
	    SH_W_BRACE)))
		an_glob_read(ev, v, w);
}

void
an_op_read_skip1(struct ev *ev, struct cmdv *v, struct sh_word *w, int idx)
{
	if (idx > 0)
		an_op_read(ev, v, w, idx);
}

/* A write through a glob: judged on its directory (see the header). */
void
an_glob_write(struct ev *ev, struct cmdv *v, const struct sh_word *w)
{
	char dir[SBX_PATH_MAX], res[SBX_PATH_MAX], pat[SBX_PATH_MAX];
	char probe[SBX_PATH_MAX + 16];
	const char *s = w->s, *g, *slash, *rest;
	size_t dl;
	int k;

	if (w->flags & (SH_W_VAR | SH_W_SUBST | SH_W_BRACE)) {
		trig_write(ev, NULL, v->w[0].s);
		return;
	}
	g = s + strcspn(s, "*?[");
	slash = NULL;
	for (const char *q = s; q < g; q++)
		if (*q == '/')
			slash = q;
	rest = slash ? slash + 1 : s;
	if (strchr(rest, '/') != NULL) {
		ev_factor(ev, F_UNKNOWN);
		ev_note(ev, POLICY_ESCALATE, "write", "builtin: glob",
		    "%s writes through the pattern %s, which spans directories",
		    v->w[0].s, s);
		return;
	}
	dl = slash ? (size_t)(slash - s) : 0;
	if (slash == s)
		dl = 1;
	if (dl >= sizeof(dir))
		dl = sizeof(dir) - 1;
	if (dl == 0)
		strcpy(dir, ".");
	else {
		memcpy(dir, s, dl);
		dir[dl] = '\0';
	}
	if ((dir[0] != '/' && dir[0] != '~' && !ev->cwd_known) ||
	    path_resolve_c(ev->pc, ev->cwd, ev->call->home, dir, res, sizeof(res)) < 0) {
		trig_write(ev, NULL, v->w[0].s);
		return;
	}
	/* A protected entry inside dir that the pattern could reach? */
	for (k = 0; k < ev->p->self_write.n + ev->p->deny_write.n; k++) {
		const char *x = k < ev->p->self_write.n ?
		    ev_pattern(ev, &ev->p->self_write, k) :
		    ev_pattern(ev, &ev->p->deny_write, k - ev->p->self_write.n);
		const char *next;

		if (x == NULL || strlen(x) >= sizeof(pat))
			continue;
		strcpy(pat, x);
		if (!path_within(pat, res) || strcmp(pat, res) == 0)
			continue;
		next = pat + strlen(res) + (strcmp(res, "/") != 0);
		if (next[0] != '.' || rest[0] == '.' || strncmp(pat, "/**", 3) == 0) {
			ev_factor(ev, F_PROTECTED);
			ev_note(ev, k < ev->p->self_write.n ? POLICY_DENY :
			    POLICY_ESCALATE, "write", "self-protection",
			    "%s writes through the pattern %s, which can reach %s",
			    v->w[0].s, s, pat);
			return;
		}
	}
	snprintf(probe, sizeof(probe), "%s/%s", res, rest);
	trig_write(ev, probe, v->w[0].s);
}

/*
 * A read through a glob: its directory is read, and a last component
 * that could match a secret's name (.e*, *.pem) is a secret read.
 * Programs that only look at names (ls, stat, du) are not asked.
 */
void
an_glob_read(struct ev *ev, struct cmdv *v, const struct sh_word *w)
{
	static const char *const secrets[] = {
		".env", ".env.local", ".env.production", "id_rsa", "id_ed25519",
		"id_ecdsa", "server.pem", "server.key", NULL,
	};
	static const char *const names_only[] = {
		"ls", "stat", "du", "file", "realpath", "readlink", "tree", NULL,
	};
	char probe[SBX_PATH_MAX];
	const char *s = w->s, *g, *slash = NULL, *rest;
	const char *const *k;
	size_t dl;

	g = s + strcspn(s, "*?[");
	for (const char *q = s; q < g; q++)
		if (*q == '/')
			slash = q;
	rest = slash ? slash + 1 : s;
	dl = slash ? (size_t)(slash - s) : 0;
	if (dl + 2 >= sizeof(probe))
		return;
	if (slash == s)
		snprintf(probe, sizeof(probe), "/");
	else if (dl == 0)
		snprintf(probe, sizeof(probe), ".");
	else
		snprintf(probe, sizeof(probe), "%.*s", (int)dl, s);
	trig_read(ev, probe, v->w[0].s);
	for (k = names_only; *k != NULL; k++)
		if (strcmp(v->w[0].s, *k) == 0)
			return;
	if (an_glob_secret(ev, v, w))
		return;
	if (strchr(rest, '/') != NULL || strcmp(rest, "*") == 0)
		return;
	for (k = secrets; *k != NULL; k++)
		if (fnmatch(rest, *k, FNM_PERIOD) == 0) {
			ev_factor(ev, F_SECRET);
			ev_note(ev, POLICY_ESCALATE, "read", "filesystem.denyRead",
			    "%s reads through the pattern %s, which can match "
			    "secret files such as %s", v->w[0].s, s, *k);
			return;
		}
}

void
an_write_word(struct ev *ev, struct cmdv *v, struct sh_word *w)
{
	char path[SBX_PATH_MAX];
	int r;

	if ((r = word_special(ev, v, w, write_one)) != 0) {
		if (r < 0)
			trig_write(ev, NULL, v->w[0].s);
		return;
	}
	r = an_word_path(ev, w, path, sizeof(path));
	if (r == 1)
		trig_write(ev, path, v->w[0].s);
	else if (r < 0 && (w->flags & SH_W_GLOB))
		an_glob_write(ev, v, w);
	else
		trig_write(ev, NULL, v->w[0].s);
}

/* As an_write_word, for writes that act on a whole tree (rm -r, mv). */
void
an_write_tree_word(struct ev *ev, struct cmdv *v, struct sh_word *w)
{
	char path[SBX_PATH_MAX];

	if ((w->flags & SH_W_BRACE) && !(w->flags & (SH_W_VAR | SH_W_SUBST))) {
		if (an_brace_each(ev, v, w, write_tree_one) < 0)
			trig_write(ev, NULL, v->w[0].s);
		return;
	}
	if (an_word_path(ev, w, path, sizeof(path)) == 1)
		trig_write_tree(ev, path, v->w[0].s, 0);
	else
		an_write_word(ev, v, w);
}

void
an_op_write(struct ev *ev, struct cmdv *v, struct sh_word *w, int idx)
{
	(void)idx;
	an_write_word(ev, v, w);
}

void
an_op_write_tree(struct ev *ev, struct cmdv *v, struct sh_word *w, int idx)
{
	(void)idx;
	an_write_tree_word(ev, v, w);
}

void
an_op_write_skip1(struct ev *ev, struct cmdv *v, struct sh_word *w, int idx)
{
	if (idx > 0)
		an_write_word(ev, v, w);
}

void
an_op_write_tree_skip1(struct ev *ev, struct cmdv *v, struct sh_word *w, int idx)
{
	if (idx > 0)
		an_write_tree_word(ev, v, w);
}

void
an_unknown_targets(struct ev *ev, struct cmdv *v)
{
	if (v->extra == 3 && an_cwd_in_project(ev))
		return;         /* project files with names sbx never uses */
	if (v->extra)
		trig_write(ev, NULL, v->w[0].s);
}

/* A read of a whole tree (grep -r DIR, cp -r DIR, tar c DIR); how says
 * how the walker reads it (TREE_*, evidence.h). */
void
an_read_tree_how(struct ev *ev, struct cmdv *v, struct sh_word *w, int how)
{
	an_read_tree_names(ev, v, w, how, NULL);
}

/* ... of the files with these names only (grep --include) */
void
an_read_tree_names(struct ev *ev, struct cmdv *v, struct sh_word *w, int how,
    const struct tree_names *names)
{
	char path[SBX_PATH_MAX];

	an_op_read(ev, v, w, 0);
	if (an_word_path(ev, w, path, sizeof(path)) == 1)
		trig_read_tree_names(ev, path, v->w[0].s, how, names);
}

void
an_op_read_tree(struct ev *ev, struct cmdv *v, struct sh_word *w, int idx)
{
	(void)idx;
	an_read_tree_how(ev, v, w, 0);
}

/* ---- catastrophic commands ------------------------------------------------ */

static int
is_root_like(const struct ev *ev, const char *res)
{
	static const char *const top[] = {
		"/", "/etc", "/usr", "/bin", "/sbin", "/lib", "/lib64", "/boot",
		"/home", "/var", "/opt", "/root", "/dev", "/proc", "/sys", "/srv",
		"/Users", "/System", "/Applications", "/Library", NULL,
	};
	const char *const *t;

	for (t = top; *t != NULL; t++)
		if (strcmp(res, *t) == 0)
			return 1;
	if (ev->call->home != NULL && strcmp(res, ev->call->home) == 0)
		return 1;
	return 0;
}

/* rm -r / chmod -R on /, a top-level system directory, or home: deny. */
void
an_check_catastrophic_tree(struct ev *ev, struct cmdv *v, const char *what)
{
	char res[SBX_PATH_MAX], dir[SBX_PATH_MAX];
	const char *s;
	struct an_walk it;
	int k;

	an_walk_init(&it, 1, NULL, AN_W_NONE);
	while ((k = an_walk_next(v, &it)) >= 0) {
		s = v->w[k].s;
		if (v->w[k].flags & (SH_W_VAR | SH_W_SUBST)) {
			/* $HOME is known; ${TMPDIR}/.. is not, and the write
			 * escalates */
			if (an_word_path(ev, &v->w[k], dir, sizeof(dir)) != 1)
				continue;
			s = dir;
		} else if (v->w[k].flags & SH_W_GLOB) {
			size_t n = strcspn(s, "*?[");

			while (n > 0 && s[n - 1] != '/')
				n--;
			if (n == 0 || n >= sizeof(dir))
				continue;
			memcpy(dir, s, n);
			dir[n] = '\0';
			s = dir;
		}
		if (path_resolve_c(ev->pc, ev->cwd_known ? ev->cwd : "/", ev->call->home, s,
		    res, sizeof(res)) < 0)
			continue;
		if (is_root_like(ev, res)) {
			ev_factor(ev, F_CATASTROPHIC | F_DESTRUCTIVE);
			ev_note(ev, POLICY_DENY, "shell", "builtin: catastrophic",
			    "%s on %s would destroy the system or the home "
			    "directory", what, res);
		}
	}
}

/* rm -r of the project folder itself, or of * in it: escalate. */
void
an_check_whole_project(struct ev *ev, struct cmdv *v)
{
	char res[SBX_PATH_MAX], dir[SBX_PATH_MAX];
	const char *s;
	size_t n;
	int k;

	if (ev->p->folder == NULL)
		return;
	for (k = 1; k < v->n; k++) {
		s = v->w[k].s;
		if (an_is_opt(&v->w[k]) || (v->w[k].flags & (SH_W_VAR | SH_W_SUBST)))
			continue;
		if (v->w[k].flags & SH_W_GLOB) {
			n = strlen(s);
			if (n == 0 || s[n - 1] != '*' || n >= sizeof(dir))
				continue;
			memcpy(dir, s, n - 1);
			dir[n - 1] = '\0';
			if (n >= 2 && dir[n - 2] != '/')
				continue;       /* build-* : a pattern, not all */
			s = n == 1 ? "." : dir;
		}
		if ((s[0] != '/' && s[0] != '~' && !ev->cwd_known) ||
		    path_resolve_c(ev->pc, ev->cwd, ev->call->home, s, res, sizeof(res)) < 0)
			continue;
		if (strcmp(res, ev->p->folder) == 0 ||
		    path_within(ev->p->folder, res)) {
			ev_factor(ev, F_DESTRUCTIVE);
			ev_note(ev, POLICY_ESCALATE, "shell", "builtin: whole project",
			    "rm -r on %s removes the whole project", res);
		}
	}
}

/* :(){ :|:& };: and friends. */
int
an_fork_bomb(const char *t, size_t len)
{
	char buf[256];
	size_t k, o = 0, nl;
	const char *p, *name_end;
	char name[64];

	if (memchr(t, '(', len) == NULL)
		return 0;       /* no "(){" in the text, nor in buf */
	for (k = 0; k < len && o + 1 < sizeof(buf); k++)
		if (t[k] != ' ' && t[k] != '\t' && t[k] != '\n')
			buf[o++] = t[k];
	buf[o] = '\0';
	p = strstr(buf, "(){");
	if (p == NULL)
		return 0;
	name_end = p;
	while (p > buf && strchr(";&|", p[-1]) == NULL)
		p--;
	nl = (size_t)(name_end - p);
	if (nl == 0 || nl >= sizeof(name))
		return 0;
	memcpy(name, p, nl);
	name[nl] = '\0';
	{
		char pat[200];

		snprintf(pat, sizeof(pat), "{%s|%s&", name, name);
		return strstr(name_end, pat) != NULL;
	}
}

/* ---- running files ------------------------------------------------------ */

void
an_run_file(struct ev *ev, const struct sh_word *w, const char *what)
{
	char res[SBX_PATH_MAX], path[SBX_PATH_MAX];

	ev_factor(ev, F_CODE);
	if (an_word_path(ev, w, path, sizeof(path)) != 1) {
		ev_factor(ev, F_UNKNOWN);
		ev_note(ev, POLICY_ESCALATE, "shell", "builtin: run file",
		    "%s runs a file whose name is only known at run time", what);
		return;
	}
	if ((path[0] != '/' && path[0] != '~' && !ev->cwd_known) ||
	    path_resolve_c(ev->pc, ev->cwd, ev->call->home, path, res, sizeof(res)) < 0) {
		ev_factor(ev, F_UNKNOWN);
		ev_note(ev, POLICY_ESCALATE, "shell", "builtin: run file",
		    "%s runs %s, which cannot be resolved with certainty", what,
		    path);
		return;
	}
	trig_read(ev, path, what);
	if (ev->p->folder == NULL || !path_within(res, ev->p->folder)) {
		ev_note(ev, POLICY_ESCALATE, "shell", "builtin: run file",
		    "%s runs %s, which is outside the project", what, res);
		return;
	}
}

int
an_cwd_in_project(const struct ev *ev)
{
	return ev->cwd_known && ev->p->folder != NULL &&
	    path_within(ev->cwd, ev->p->folder);
}
