/*
 * files.c - file utilities: readers (cat, grep, sort ...), writers (rm,
 * touch, tee ...), chmod/chown, cp/mv/ln/install and dd.
 *
 * Rules:
 * - Every operand a utility writes goes through the write trigger; a
 *   whole-tree write (rm -r, mv, cp -r into) also checks the protected
 *   files below it.
 * - Output options of "read" programs (sort -o, tree -o) are writes.
 * - A link to a target outside the project escalates: a later write
 *   through it would land there.
 */
#include "policy/analyse.h"

#include <sys/stat.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int tree_ops, tree_how;
static struct tree_names tree_incl;     /* grep --include: n 0, none;
                                           -1, every name */

/* What grep's --include and --exclude-dir narrow, or NULL. */
static const struct tree_names *
tree_filter(void)
{
	static struct tree_names f;

	f = tree_incl;
	if (f.n < 0)
		f.n = 0;        /* every name */
	return f.n > 0 || f.nskip > 0 ? &f : NULL;
}

static void
op_tree_skip(struct ev *ev, struct cmdv *v, struct sh_word *w, int idx)
{
	if (idx < 0)
		return;
	tree_ops++;
	an_read_tree_names(ev, v, w, tree_how, tree_filter());
}

/*
 * How a recursive grep or rg reads its trees (TREE_*): grep -r reads
 * hidden files and does not follow links met inside, -R does; rg skips
 * hidden names unless --hidden, -. or -uu (two u's in any form), the
 * directories .gitignore names unless -u, --no-ignore* or a glob (-g,
 * which overrides it), follows links with -L/--follow, and with --files
 * only lists names. Counted over
 * every option word, values included: a value that looks like one of
 * these only makes the reading stricter.
 */
static int
grep_tree_how(const struct cmdv *v, const struct prog *pr)
{
	int k, u = 0, hidden = 0, follow = 0, names = 0, rg, noign = 0;
	const char *s;

	rg = strcmp(pr->name, "rg") == 0;
	for (k = 1; k < v->n; k++) {
		s = v->w[k].s;
		if (!an_lit(&v->w[k]) || s[0] != '-' || s[1] == '\0')
			continue;
		if (strcmp(s, "--") == 0)
			break;
		if (s[1] == '-') {
			u += strcmp(s, "--unrestricted") == 0;
			hidden |= strcmp(s, "--hidden") == 0;
			follow |= strcmp(s, "--follow") == 0 ||
			    strcmp(s, "--dereference-recursive") == 0;
			names |= strcmp(s, "--files") == 0;
			/* ignore files off, or globs (they override them) */
			noign |= strncmp(s, "--no-ignore", 11) == 0 ||
			    strncmp(s, "--glob", 6) == 0 ||
			    strncmp(s, "--iglob", 7) == 0;
			continue;
		}
		for (s++; *s != '\0'; s++) {
			u += *s == 'u';
			noign |= *s == 'g';
			hidden |= *s == '.';
			follow |= rg ? *s == 'L' : *s == 'R';
			if (strchr(pr->optarg, *s) != NULL)
				break;  /* the rest is its value */
		}
	}
	if (!rg)
		return follow ? TREE_FOLLOW : 0;
	return (hidden || u >= 2 ? 0 : TREE_NOHIDDEN) |
	    (noign || u > 0 ? 0 : TREE_GITIGNORE) |
	    (follow ? TREE_FOLLOW : 0) | (names ? TREE_NAMES : 0);
}

/*
 * Does grep read trees: -r, --recursive, -R, --dereference-recursive (1,
 * | 2 when links are followed), -d ACTION, --directories=ACTION with
 * recurse (grep takes an unambiguous abbreviation: "rec"), in every form
 * the table walk reads (clusters, abbreviations: --rec). A -d value not
 * known before it runs counts as recurse. Other C_GREP programs without
 * grep's table: by their letters.
 */
static int
grep_recursion(const struct cmdv *v, const struct prog *pr)
{
	struct an_walk it;
	struct an_opt o;
	int r, how = 0;
	size_t n;

	memset(&tree_incl, 0, sizeof(tree_incl));
	if (pr->opts != OPTS_GREP)
		return (an_has_short(v, 1, 'r', pr->optarg) ||
		    an_has_short(v, 1, 'R', pr->optarg) ||
		    an_has_word(v, 1, "--recursive") ||
		    an_has_word(v, 1, "--dereference-recursive")) ? 1 : 0;
	memset(&tree_incl, 0, sizeof(tree_incl));
	an_walk_init(&it, 1, pr->optarg, AN_W_NONE);
	an_walk_table(&it, an_optset(OPTS_GREP), NULL);
	while ((r = an_opt_next(v, &it, &o)) >= 0) {
		if (r != 1 || o.d == NULL)
			continue;
		if (o.d->tag == GREP_REC)
			how |= 1;
		else if (o.d->tag == GREP_FOLLOW)
			how |= 3;
		else if (o.d->tag == GREP_INCLUDE) {
			/* --include GLOB, each: the names read; one not
			 * known, or too many: every name */
			/* an unquoted --include=*.go: what bash may expand it
			 * to is a name that *.go matches, narrower still */
			if (o.val == NULL || (o.val->flags & (SH_W_VAR |
			    SH_W_SUBST | SH_W_BRACE)) ||
			    tree_incl.n < 0 || tree_incl.n == TREE_NAMES_MAX)
				tree_incl.n = -1;
			else
				tree_incl.v[tree_incl.n++] = o.val->s;
		} else if (o.d->tag == GREP_EXCLDIR) {
			/* --exclude-dir GLOB: quoted only (bash could expand
			 * an unquoted glob to one name: grep would skip less
			 * than the look would); too many: ignored */
			if (o.val != NULL && an_lit(o.val) &&
			    tree_incl.nskip < TREE_NAMES_MAX)
				tree_incl.skip[tree_incl.nskip++] = o.val->s;
		} else if (o.d->tag == GREP_DIRS && (o.val == NULL ||
		    !an_lit(o.val) || ((n = strlen(o.val->s)) >= 3 &&
		    strncmp(o.val->s, "recurse", n) == 0)))
			how |= 1;
	}
	return how;
}

/* rg without a path searches its input when that is a pipe or a file */
static int
rg_reads_stdin(const struct cmdv *v)
{
	int k;

	if (v->c->pipe_in)
		return 1;
	for (k = 0; k < v->c->nredir; k++) {
		const struct sh_redir *r = &v->c->redir[k];

		if ((r->op == SH_R_IN || r->op == SH_R_HEREDOC ||
		    r->op == SH_R_HERESTR) && (r->fd == -1 || r->fd == 0))
			return 1;
	}
	return 0;
}

static void
op_tree_skip1(struct ev *ev, struct cmdv *v, struct sh_word *w, int idx)
{
	if (idx > 0)
		op_tree_skip(ev, v, w, idx);
}

/*
 * A lister whose names feed something (a pipe, $(...)): when a tree it
 * lists holds denyRead files, what reads the names reads secrets (ls -a
 * | xargs cat, cat $(fd -H), rg --files -uu | xargs cat), as a read of
 * the tree would. ls lists one directory (-R: the tree), hidden names
 * with -a/-A only, and not at all with -d; tree and fd skip hidden names
 * without -a, -H/--hidden or -u; fd's first operand is its pattern.
 */
static int
lister_secret(struct ev *ev, struct cmdv *v, const struct prog *pr)
{
	const char *name = pr->name, *s;
	int k, how, hidden = 0, deep = 0, flat_only = 0, ops = 0, first = 1;
	struct an_walk it;
	char path[SBX_PATH_MAX];

	for (k = 1; k < v->n; k++) {
		s = v->w[k].s;
		if (!an_lit(&v->w[k]) || s[0] != '-' || s[1] == '\0')
			continue;
		if (strcmp(s, "--") == 0)
			break;
		if (s[1] == '-') {
			hidden |= strcmp(s, "--all") == 0 ||
			    strcmp(s, "--almost-all") == 0 ||
			    strcmp(s, "--hidden") == 0 ||
			    strcmp(s, "--unrestricted") == 0;
			deep |= strcmp(s, "--recursive") == 0;
			flat_only |= strcmp(s, "--directory") == 0;
			continue;
		}
		for (s++; *s != '\0'; s++) {
			hidden |= *s == 'a' || *s == 'A' || *s == 'H' ||
			    *s == 'u';
			deep |= *s == 'R';
			flat_only |= *s == 'd' && strcmp(name, "ls") == 0;
			if (strchr(pr->optarg, *s) != NULL)
				break;
		}
	}
	if (strcmp(name, "ls") == 0) {
		if (flat_only)
			return 0;
		how = (deep ? 0 : TREE_FLAT) | (hidden ? 0 : TREE_NOHIDDEN);
	} else if (strcmp(name, "rg") == 0) {
		/* rg's own reading: -uu, --hidden, -. */
		how = grep_tree_how(v, pr) & (TREE_NOHIDDEN | TREE_GITIGNORE);
	} else if (strcmp(name, "du") == 0) {
		if (!hidden)
			return 0;       /* directories only, without -a */
		how = 0;
	} else {
		how = hidden ? 0 : TREE_NOHIDDEN;
		first = strcmp(name, "fd") == 0 ? 0 : 1;
	}
	an_walk_init(&it, 1, pr->optarg, AN_W_CLUSTER);
	while ((k = an_walk_next(v, &it)) >= 0) {
		if (!first++)
			continue;       /* fd's pattern */
		ops++;
		if (an_word_path(ev, &v->w[k], path, sizeof(path)) == 1 &&
		    trig_tree_secret(ev, path, how, NULL))
			return 1;
	}
	return ops == 0 && trig_tree_secret(ev, ".", how, NULL);
}

void
an_cls_read(struct ev *ev, struct cmdv *v, const struct prog *pr)
{
	const char *name = pr->name;
	int k, rec = 0;

	memset(&tree_incl, 0, sizeof(tree_incl));
	if (v->extra == 1) {
		ev_factor(ev, F_SECRET);
		ev_note(ev, POLICY_ESCALATE, "read", "filesystem.denyRead",
		    "%s reads files named by its input, and an earlier stage of "
		    "the pipe names secrets", name);
	}
	/* ls ~, ls ~/.aws, du ~: the names printed may feed a reader */
	if (strcmp(name, "ls") == 0 || strcmp(name, "tree") == 0 ||
	    strcmp(name, "du") == 0 || strcmp(name, "fd") == 0 ||
	    (strcmp(name, "rg") == 0 && an_has_word(v, 1, "--files"))) {
		char path[SBX_PATH_MAX];

		for (k = 1; k < v->n; k++)
			if (!an_is_opt(&v->w[k]) &&
			    an_word_path(ev, &v->w[k], path, sizeof(path)) >= 0 &&
			    trig_is_secret(ev, path, 1)) {
				an_names_secret(ev, v);
				break;
			}
		if (k == v->n && an_output_used(v) && lister_secret(ev, v, pr))
			an_names_secret(ev, v);
	}
	/* recursive readers read whole trees: grep -r PAT ~ reads ~/.ssh */
	if (strcmp(name, "rg") == 0 || (pr->cls == C_GREP &&
	    (rec = grep_recursion(v, pr)) != 0)) {
		int pat = !an_has_short(v, 1, 'e', pr->optarg) &&
		    !an_has_short(v, 1, 'f', pr->optarg) &&
		    !(strcmp(name, "rg") == 0 && an_has_word(v, 1, "--files"));

		tree_ops = 0;
		tree_how = grep_tree_how(v, pr) | ((rec & 2) ? TREE_FOLLOW : 0);
		an_operands(ev, v, 1, pr->optarg, pat ? op_tree_skip1 :
		    op_tree_skip);
		if (tree_ops == 0 && !v->extra && !(strcmp(name, "rg") == 0 &&
		    rg_reads_stdin(v)))
			trig_read_tree_names(ev, ".", name, tree_how,
			    tree_filter());
	}

	an_operands(ev, v, 1, pr->optarg, pr->cls == C_GREP &&
	    !an_has_short(v, 1, 'e', pr->optarg) && !an_has_short(v, 1, 'f',
	    pr->optarg) && !an_has_word(v, 1, "--files") &&
	    !an_has_word(v, 1, "--regexp") && !an_has_word(v, 1, "--file") ?
	    an_op_read_skip1 : an_op_read);
	/* pattern files: -f FILE in every form is in the tables (opts.c);
	 * this reads the rest of a cluster after its "f" as a file even
	 * where getopt takes it for another letter's value (-ef/etc/shadow:
	 * stricter) */
	for (k = 1; pr->cls == C_GREP && k < v->n; k++) {
		const char *s = v->w[k].s;

		if (an_lit(&v->w[k]) && s[0] == '-' && s[1] != '-' &&
		    strchr(s, 'f') != NULL && strchr(s, 'f')[1] != '\0')
			trig_read(ev, strchr(s, 'f') + 1, name);
	}
	/* less +CMD runs less commands (+!cmd runs a shell): a "+" word is
	 * no option the table walk reads, so it stays here. (less's log
	 * file, -o/-O/--log-file, is a write in its table, opts.c, in every
	 * form; fd -x and rg --pre are in their tables only.) */
	for (k = 1; k < v->n; k++) {
		const char *s = v->w[k].s;

		if (!an_lit(&v->w[k]))
			continue;
		if ((strcmp(name, "less") == 0 || strcmp(name, "more") == 0) &&
		    s[0] == '+' && strpbrk(s, "!|") != NULL) {
			ev_factor(ev, F_CODE);
			ev_note(ev, POLICY_ESCALATE, "shell", "builtin: option",
			    "%s %s runs a command", name, s);
			continue;
		}
	}
	/* files named by long options are read too: wc --files0-from=F
	 * echoes what it cannot open, grep --file=F (of any program of the
	 * class, and wherever the word stands, also after "--": stricter
	 * than the tables of opts.c, which know each program's own) */
	for (k = 1; k < v->n; k++) {
		const char *s = v->w[k].s, *eq;

		if (!an_lit(&v->w[k]) || strncmp(s, "--", 2) != 0 ||
		    (eq = strchr(s, '=')) == NULL)
			continue;
		if (strstr(s, "-from=") != NULL || strncmp(s, "--file=", 7) == 0)
			trig_read(ev, eq + 1, name);
	}
	if (strcmp(name, "uniq") == 0 || strcmp(name, "xxd") == 0) {
		/* a second operand is the output file */
		an_operands(ev, v, 1, pr->optarg, an_op_write_skip1);
	}
}

void
an_cls_write(struct ev *ev, struct cmdv *v, const struct prog *pr)
{
	int recursive;

	if (strcmp(pr->name, "rm") == 0) {
		recursive = an_has_short(v, 1, 'r', "") || an_has_short(v, 1, 'R', "") ||
		    an_has_word(v, 1, "--recursive");
		if (recursive) {
			ev_factor(ev, F_DESTRUCTIVE);
			an_check_catastrophic_tree(ev, v, "rm -r");
			an_check_whole_project(ev, v);
		}
	}
	if (strcmp(pr->name, "shred") == 0)
		ev_factor(ev, F_DESTRUCTIVE);
	if (an_operands(ev, v, 1, pr->optarg, strcmp(pr->name, "rm") == 0 ||
	    strcmp(pr->name, "rmdir") == 0 ? an_op_write_tree : an_op_write) == 0 &&
	    !v->extra &&
	    strcmp(pr->name, "tee") != 0)
		ev_note(ev, POLICY_ESCALATE, "shell", "builtin: an_operands",
		    "%s without a target: nothing to judge", pr->name);
	an_unknown_targets(ev, v);
}

/*
 * 1 if a mode sets the setuid or setgid bit, or may: 4755, 04755, 2755,
 * u+s, g=s, a+rws, o+x,u+s; a mode not known exactly counts.
 */
int
an_mode_special(const struct sh_word *w)
{
	const char *s = w->s, *q;
	unsigned long m = 0;

	if (!an_lit(w))
		return 1;
	if (s[0] >= '0' && s[0] <= '7') {
		for (q = s; *q >= '0' && *q <= '7'; q++)
			m = m * 8 + (unsigned long)(*q - '0');
		return *q != '\0' || (m & 06000) != 0;
	}
	/* symbolic: [ugoa]*[+-=][rwxXstugo]*, comma separated */
	for (q = s; *q != '\0'; q++) {
		if (*q != '+' && *q != '=')
			continue;
		for (q++; *q != '\0' && *q != ',' && *q != '+' && *q != '-' &&
		    *q != '='; q++)
			if (*q == 's')
				return 1;
		q--;
	}
	return 0;
}

/* chmod MODE FILE...: the mode is the first operand, or --reference. */
static void
chmod_special(struct ev *ev, struct cmdv *v)
{
	struct an_walk it;
	int k, opt;
	const char *s;

	an_walk_init(&it, 1, NULL, AN_W_NONE);
	while ((k = an_walk_any(v, &it, &opt)) >= 0) {
		s = v->w[k].s;
		if (opt && strncmp(s, "--reference", 11) == 0) {
			ev_factor(ev, F_PRIV);
			ev_note(ev, POLICY_ESCALATE, "shell", "builtin: setuid",
			    "chmod %s copies a mode that may be setuid or setgid", s);
			return;
		}
		/* -s, -rwxs: a mode that starts with "-", not an option */
		if (opt && strspn(s + 1, "rwxXst") == strlen(s + 1) &&
		    strchr(s, 's') == NULL)
			continue;
		if (opt && strspn(s + 1, "rwxXst") != strlen(s + 1))
			continue;       /* -R, -v, --recursive */
		if (an_mode_special(&v->w[k])) {
			ev_factor(ev, F_PRIV);
			ev_note(ev, POLICY_ESCALATE, "shell", "builtin: setuid",
			    "chmod %s sets a setuid or setgid bit (or may)", s);
		}
		return;
	}
}

void
an_cls_mode(struct ev *ev, struct cmdv *v, const struct prog *pr)
{
	int ref = 0, k;

	for (k = 1; k < v->n; k++)
		if (an_lit(&v->w[k]) && strncmp(v->w[k].s, "--reference", 11) == 0)
			ref = 1;
	if (an_has_short(v, 1, 'R', "") || an_has_word(v, 1, "--recursive"))
		an_check_catastrophic_tree(ev, v, pr->name);
	an_operands(ev, v, 1, "", ref ? an_op_write_tree : an_op_write_skip1);
	if (!ref && (an_has_short(v, 1, 'R', "") || an_has_word(v, 1, "--recursive")))
		an_operands(ev, v, 1, "", an_op_write_tree_skip1);
	if (strcmp(pr->name, "chmod") == 0)
		chmod_special(ev, v);
	if (strcmp(pr->name, "chown") == 0 || strcmp(pr->name, "chgrp") == 0) {
		ev_factor(ev, F_PRIV);
		ev_note(ev, POLICY_ESCALATE, "shell", "builtin: ownership",
		    "%s changes file ownership", pr->name);
	}
	an_unknown_targets(ev, v);
}

/*
 * ln TARGET... LINK: a link to a file outside the project lets a later
 * write through the link (even in the same line) land outside. The target
 * of a symbolic link is resolved from the link's directory.
 */
static void
ln_targets(struct ev *ev, struct cmdv *v, const struct prog *pr, int dest)
{
	char base[SBX_PATH_MAX], path[SBX_PATH_MAX], res[SBX_PATH_MAX];
	struct an_walk it;
	const char *s;
	int k;

	int symbolic = an_has_short(v, 1, 's', pr->optarg) ||
	    an_has_word(v, 1, "--symbolic") ||
	    an_has_word(v, 1, "--symbolic-link");

	if (!symbolic && ev->cwd_known) {
		/* a hard link's target is named from the working directory */
		snprintf(base, sizeof(base), "%s", ev->cwd);
	} else if (dest >= 0 && an_word_path(ev, &v->w[dest], path, sizeof(path)) == 1 &&
	    (ev->cwd_known || path[0] == '/') &&
	    path_resolve_c(ev->pc, ev->cwd, ev->call->home, path, res, sizeof(res)) == 0) {
		char *slash = strrchr(res, '/');

		/* the link's directory, or the link itself when it is one */
		if (slash != NULL && slash != res)
			*slash = '\0';
		snprintf(base, sizeof(base), "%s", res);
	} else if (ev->cwd_known) {
		snprintf(base, sizeof(base), "%s", ev->cwd);
	} else {
		base[0] = '\0';
	}
	an_walk_init(&it, 1, pr->optarg, AN_W_ALONE);
	while ((k = an_walk_next(v, &it)) >= 0) {
		s = v->w[k].s;
		if (k == dest)
			continue;
		if (an_word_path(ev, &v->w[k], path, sizeof(path)) != 1 ||
		    base[0] == '\0' || path_resolve_c(ev->pc, base, ev->call->home, path, res,
		    sizeof(res)) < 0 || ev->p->folder == NULL ||
		    !path_within(res, ev->p->folder)) {
			ev_factor(ev, F_WRITE_OUT);
			ev_note(ev, POLICY_ESCALATE, "write", "builtin: link outside",
			    "%s links to %s, outside the project: writes through the "
			    "link would land there", v->w[0].s, s);
			return;
		}
		/* a link to sbx's files (or a tree holding them) is a way to
		 * write them: judged as a write to the target */
		trig_write_tree(ev, res, v->w[0].s, 0);
	}
	ev->made_link = 1;
}

static int
is_dir(const struct ev *ev, const char *path)
{
	char res[SBX_PATH_MAX];
	unsigned mode;

	if ((path[0] != '/' && path[0] != '~' && !ev->cwd_known) ||
	    path_resolve_c(ev->pc, ev->cwd, ev->call->home, path, res, sizeof(res)) < 0)
		return 0;
	return path_lstat(ev->pc, res, &mode) == 0 && S_ISDIR(mode);
}

/*
 * The destination of cp/mv/ln/install. Into an existing directory, each
 * source lands at DIR/basename; a recursive copy into it may overwrite
 * anything below (escalated when that reaches protected files); onto a
 * new name, the name is written (replaced whole by mv and cp -r).
 */
static void
cpmv_dest(struct ev *ev, struct cmdv *v, const struct prog *pr, int dest,
    int tflag)
{
	char path[SBX_PATH_MAX], src[SBX_PATH_MAX], probe[SBX_PATH_MAX * 2];
	int k, recursive, is_mv = strcmp(pr->name, "mv") == 0;
	struct an_walk it;
	const char *base;

	recursive = strcmp(pr->name, "cp") == 0 && (an_has_short(v, 1, 'r', "") ||
	    an_has_short(v, 1, 'R', "") || an_has_short(v, 1, 'a', "") ||
	    an_has_word(v, 1, "--recursive") || an_has_word(v, 1, "--archive"));
	if (an_word_path(ev, &v->w[dest], path, sizeof(path)) != 1) {
		an_write_word(ev, v, &v->w[dest]);
		return;
	}
	if (!is_dir(ev, path) && tflag < 0) {
		if (recursive || is_mv)
			trig_write_tree(ev, path, pr->name, 0);
		else
			trig_write(ev, path, pr->name);
		return;
	}
	/* each source lands at DIR/basename; a recursive copy may also
	 * overwrite anything below (escalated if that reaches sbx's files) */
	if (recursive)
		trig_write_tree(ev, path, pr->name, 1);
	an_walk_init(&it, 1, pr->optarg, AN_W_CLUSTER);
	while ((k = an_walk_next(v, &it)) >= 0) {
		if (k == dest)
			continue;
		if (an_word_path(ev, &v->w[k], src, sizeof(src)) != 1) {
			trig_write(ev, NULL, pr->name);
			continue;
		}
		while (strlen(src) > 1 && src[strlen(src) - 1] == '/')
			src[strlen(src) - 1] = '\0';
		base = strrchr(src, '/');
		base = base ? base + 1 : src;
		snprintf(probe, sizeof(probe), "%s/%s", path, base);
		trig_write(ev, probe, pr->name);
	}
}

/*
 * cp -a/-P/-R copy a symlink as a symlink: a copy of a link to /etc is a
 * new way out, and a write through it later in the line is not seen.
 * A source that is itself a link to outside the project escalates.
 */
static void
copies_link_out(struct ev *ev, const struct sh_word *w, const char *what)
{
	char path[SBX_PATH_MAX], dir[SBX_PATH_MAX], res[SBX_PATH_MAX * 2];
	const char *slash;
	unsigned mode;

	if (an_word_path(ev, w, path, sizeof(path)) != 1 ||
	    (path[0] != '/' && path[0] != '~' && !ev->cwd_known))
		return;
	while (strlen(path) > 1 && path[strlen(path) - 1] == '/')
		path[strlen(path) - 1] = '\0';
	slash = strrchr(path, '/');
	if (slash == NULL) {
		snprintf(dir, sizeof(dir), ".");
	} else {
		snprintf(dir, sizeof(dir), "%.*s", (int)(slash - path + 1), path);
	}
	if (path_resolve_c(ev->pc, ev->cwd, ev->call->home, dir, res, SBX_PATH_MAX) < 0)
		return;
	snprintf(res + strlen(res), sizeof(res) - strlen(res), "/%s",
	    slash ? slash + 1 : path);
	if (path_lstat(ev->pc, res, &mode) < 0 || !S_ISLNK(mode))
		return;
	if (path_resolve_c(ev->pc, ev->cwd, ev->call->home, path, dir, sizeof(dir)) == 0 &&
	    ev->p->folder != NULL && path_within(dir, ev->p->folder))
		return;
	ev_factor(ev, F_WRITE_OUT);
	ev_note(ev, POLICY_ESCALATE, "write", "builtin: link outside",
	    "%s copies %s, a link to outside the project: writes through the "
	    "copy would land there", what, path);
}

/* install's mode: -m MODE, -mMODE, -om MODE, --mode=MODE. Other letters
 * are read as flags, so that an "m" anywhere in a cluster counts. */
static const struct optdef o_install[] = {
	{ NULL, "-m", OK_VAL, 0 },
	{ NULL, "--mode", OK_VAL, 0 },
	{ NULL, NULL, OK_VAL, 0 },
};
static const struct optset install_opts = { 1, 0, o_install };

/* install -m 4755, -m4755, --mode=u+s: a setuid file. */
static void
install_mode(struct ev *ev, struct cmdv *v)
{
	struct an_walk it;
	struct an_opt o;

	an_walk_init(&it, 1, NULL, AN_W_NONE);
	an_walk_table(&it, &install_opts, NULL);
	while (an_opt_next(v, &it, &o) >= 0) {
		if (o.d == NULL || o.val == NULL || !an_mode_special(o.val))
			continue;
		ev_factor(ev, F_PRIV);
		ev_note(ev, POLICY_ESCALATE, "shell", "builtin: setuid",
		    "install -m %s makes a setuid or setgid file (or may)",
		    o.val->s);
	}
}

void
an_cls_cpmv(struct ev *ev, struct cmdv *v, const struct prog *pr)
{
	int k, n = 0, opt, target = -1, last = -1;
	struct an_walk it;
	const char *tdir = NULL;
	const char *s;
	int is_mv = strcmp(pr->name, "mv") == 0;

	if (strcmp(pr->name, "install") == 0)
		install_mode(ev, v);
	an_walk_init(&it, 1, NULL, AN_W_NONE);
	while ((k = an_walk_any(v, &it, &opt)) >= 0) {
		s = v->w[k].s;
		if (opt) {
			const char *q;

			if (strncmp(s, "--target-directory=", 19) == 0) {
				tdir = s + 19;
				continue;
			}
			if (strcmp(s, "--target-directory") == 0 && k + 1 < v->n) {
				target = ++k;
				it.k = k + 1;
				continue;
			}
			if (s[1] == '-')
				continue;
			/* a cluster (-rt DIR, -tDIR, -fS .bak) read as getopt */
			for (q = s + 1; *q != '\0'; q++) {
				if (strchr(pr->optarg, *q) == NULL)
					continue;
				if (*q == 't' && q[1] != '\0')
					tdir = q + 1;
				else if (*q == 't' && k + 1 < v->n)
					target = ++k;
				else if (q[1] == '\0' && k + 1 < v->n)
					k++;
				break;
			}
			it.k = k + 1;   /* past a value it took */
			continue;
		}
		n++;
		last = k;
	}
	if (tdir != NULL) {
		/* -tDIR or --target-directory=DIR: each source lands in DIR */
		char probe[SBX_PATH_MAX * 2];
		int j;

		for (j = 1; j < v->n; j++) {
			const char *b;

			if (an_is_opt(&v->w[j]) || !an_lit(&v->w[j]))
				continue;
			b = strrchr(v->w[j].s, '/');
			snprintf(probe, sizeof(probe), "%s/%s", tdir,
			    b ? b + 1 : v->w[j].s);
			trig_write(ev, probe, pr->name);
		}
		trig_write_tree(ev, tdir, pr->name, 1);
	} else if (target >= 0)
		cpmv_dest(ev, v, pr, target, target);
	else if (v->extra)
		trig_write(ev, NULL, pr->name);
	else if (last >= 0 && n >= 2)
		cpmv_dest(ev, v, pr, last, -1);
	else if (n < 2 && target < 0 && tdir == NULL) {
		ev_note(ev, POLICY_ESCALATE, "shell", "builtin: an_operands",
		    "%s with fewer than two an_operands", pr->name);
	}
	/* ln, cp -l, cp -s: writes through the new link land on its target */
	if (strcmp(pr->name, "ln") == 0 || (strcmp(pr->name, "cp") == 0 &&
	    (an_has_short(v, 1, 'l', "") || an_has_short(v, 1, 's', "") ||
	    an_has_word(v, 1, "--link") || an_has_word(v, 1, "--symbolic-link"))))
		ln_targets(ev, v, pr, target >= 0 ? target : last);
	/* sources: read; mv also removes them */
	an_walk_init(&it, 1, pr->optarg, AN_W_ALONE);
	while ((k = an_walk_next(v, &it)) >= 0) {
		if (k == last && target < 0)
			continue;
		if (is_mv) {
			an_write_tree_word(ev, v, &v->w[k]);
		} else {
			if (an_has_short(v, 1, 'r', "") || an_has_short(v, 1, 'R', "") ||
			    an_has_short(v, 1, 'a', "") ||
			    an_has_word(v, 1, "--recursive") ||
			    an_has_word(v, 1, "--archive"))
				an_read_tree_how(ev, v, &v->w[k],
				    an_has_short(v, 1, 'L', "") ||
				    an_has_word(v, 1, "--dereference") ?
				    TREE_FOLLOW : 0);
			else
				an_op_read(ev, v, &v->w[k], 0);
			copies_link_out(ev, &v->w[k], pr->name);
		}
	}
}

void
an_cls_dd(struct ev *ev, struct cmdv *v)
{
	int k;

	if (v->extra)
		trig_write(ev, NULL, "dd");
	for (k = 1; k < v->n; k++) {
		struct sh_word *w = &v->w[k];

		struct sh_word t = *w;

		t.s = w->s + 3;
		t.len = w->len >= 3 ? w->len - 3 : 0;
		t.flags &= ~(unsigned)SH_W_ASSIGN;
		if (t.s[0] == '~')
			t.flags |= SH_W_TILDE;
		if (strncmp(w->s, "of=", 3) == 0)
			an_write_word(ev, v, &t);
		else if (strncmp(w->s, "if=", 3) == 0)
			an_op_read(ev, v, &t, 0);
	}
}
