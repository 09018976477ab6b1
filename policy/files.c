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
static const struct tree_names *tree_nm;       /* the names read, or NULL */
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
	an_read_tree_names(ev, v, w, tree_how, tree_nm);
}

/*
 * ripgrep's default types (crates/ignore/src/default_types.rs) that
 * narrow a walk, with the globs of each (space separated; newer releases'
 * added, never fewer). A type not here reads every name.
 */
static const struct {
	const char *name;
	const char *globs;
} rg_types[] = {
	{ "c", "*.[chH] *.[chH].in *.cats" },
	{ "cpp", "*.[ChH] *.cc *.[ch]pp *.[ch]xx *.hh *.inl *.[ChH].in *.cc.in "
	    "*.[ch]pp.in *.[ch]xx.in *.hh.in" },
	{ "css", "*.css *.scss" },
	{ "go", "*.go" },
	{ "h", "*.h *.hh *.hpp" },
	{ "html", "*.htm *.html *.ejs" },
	{ "java", "*.java *.jsp *.jspx *.properties" },
	{ "js", "*.js *.jsx *.vue *.cjs *.mjs" },
	{ "kotlin", "*.kt *.kts" },
	{ "lua", "*.lua" },
	{ "markdown", "*.markdown *.md *.mdown *.mdwn *.mkd *.mkdn" },
	{ "md", "*.markdown *.md *.mdown *.mdwn *.mkd *.mkdn" },
	{ "py", "*.py *.pyi" },
	{ "rust", "*.rs" },
	{ "swift", "*.swift" },
	{ "ts", "*.ts *.tsx *.cts *.mts" },
	{ "txt", "*.txt" },
	{ "yaml", "*.yaml *.yml" },
};

/* The names an rg walk (or the Grep tool) reads: tn, its strings in buf. */
static struct {
	struct tree_names tn;
	char buf[1024];
	size_t used;
	int wide;               /* a glob or type that cannot narrow */
} rg_names;

static void
rg_names_reset(void)
{
	memset(&rg_names.tn, 0, sizeof(rg_names.tn));
	rg_names.used = 0;
	rg_names.wide = 0;
}

/* One name (n bytes of s); too many, or too long: every name. */
static void
rg_name_add(const char *s, size_t n)
{
	char *d = rg_names.buf + rg_names.used;

	if (rg_names.wide || rg_names.tn.n == TREE_NAMES_MAX || n == 0 ||
	    n + 1 > sizeof(rg_names.buf) - rg_names.used) {
		rg_names.wide = 1;
		return;
	}
	memcpy(d, s, n);
	d[n] = '\0';
	rg_names.used += n + 1;
	rg_names.tn.v[rg_names.tn.n++] = d;
}

/*
 * A glob that selects files (rg -g, the Grep tool's glob): the files it
 * selects have names its last component matches, as fnmatch(3) reads it
 * (rg's "*" does not match "/": a path glob selects by its last name).
 * One {a,b} group is expanded; a negation ("!": it only takes files
 * away), a "**" or nothing in the last component, a "\\", nested or
 * several groups, a class ("[...]") in a glob with a '/' (it may hold the
 * '/') read every name.
 */
static void
rg_glob_add(const char *g)
{
	const char *o, *c, *a, *e;

	/* a '/' may sit inside a class ("**" + "/.en[v/]"): the last
	 * component is then not the text after the last '/' */
	if (strchr(g, '[') != NULL && strchr(g, '/') != NULL) {
		rg_names.wide = 1;
		return;
	}
	if (strrchr(g, '/') != NULL)
		g = strrchr(g, '/') + 1;
	if (g[0] == '\0' || g[0] == '!' || strchr(g, '\\') != NULL ||
	    strstr(g, "**") != NULL) {
		rg_names.wide = 1;
		return;
	}
	if ((o = strchr(g, '{')) == NULL) {
		if (strchr(g, '}') != NULL)
			rg_names.wide = 1;
		else
			rg_name_add(g, strlen(g));
		return;
	}
	if ((c = strchr(o, '}')) == NULL || memchr(o + 1, '{', (size_t)(c -
	    o - 1)) != NULL || strpbrk(c + 1, "{}") != NULL) {
		rg_names.wide = 1;
		return;
	}
	for (a = o + 1; a <= c; a = e + 1) {
		char one[256];
		int n;

		for (e = a; e < c && *e != ','; e++)
			;
		n = snprintf(one, sizeof(one), "%.*s%.*s%s", (int)(o - g), g,
		    (int)(e - a), a, c + 1);
		if (n < 0 || (size_t)n >= sizeof(one)) {
			rg_names.wide = 1;
			return;
		}
		rg_name_add(one, (size_t)n);
	}
}

/* An rg type's globs; one not known reads every name. */
static void
rg_type_add(const char *t)
{
	const char *g, *e;
	size_t k;

	for (k = 0; k < sizeof(rg_types) / sizeof(rg_types[0]); k++)
		if (strcmp(rg_types[k].name, t) == 0)
			break;
	if (k == sizeof(rg_types) / sizeof(rg_types[0])) {
		rg_names.wide = 1;
		return;
	}
	for (g = rg_types[k].globs; *g != '\0'; g = *e ? e + 1 : e) {
		e = g + strcspn(g, " ");
		rg_name_add(g, (size_t)(e - g));
	}
}

/* What rg_names narrows, or NULL: every name. */
static const struct tree_names *
rg_filter(void)
{
	return rg_names.wide || rg_names.tn.n == 0 ? NULL : &rg_names.tn;
}

/*
 * How rg reads its trees (TREE_*), from its table (opts.c): it skips
 * hidden names unless --hidden, -. or -uu (two u's in any form), the
 * directories .gitignore names unless -u, --no-ignore* or a glob (-g,
 * which overrides it), follows links with -L/--follow, and with --files
 * only lists names. A glob that selects (-g '*.c', not "!x") or a type
 * it knows (-t c, without --type-add) narrows the names read, into
 * rg_names: a file a positive glob or a type selects is read even when
 * hidden (the look then reads hidden names), and with such a glob the
 * types do not count.
 */
static int
rg_tree_how(const struct cmdv *v, const struct prog *pr)
{
	int u = 0, hidden = 0, follow = 0, names = 0, noign = 0, pos = 0;
	int types = 0, typeadd = 0, fold = 0;
	struct an_walk it;
	struct an_opt o;
	int r, pass;

	rg_names_reset();
	for (pass = 0; pass < 2; pass++) {
		an_walk_init(&it, 1, pr->optarg, AN_W_NONE);
		an_walk_table(&it, an_optset(pr->opts), NULL);
		while ((r = an_opt_next(v, &it, &o)) >= 0) {
			if (r != 1 || o.d == NULL)
				continue;
			if (pass == 1) {
				/* the globs; the types, when no glob selects */
				if ((o.d->tag == WALK_GLOB || o.d->tag ==
				    WALK_IGLOB) && (o.val == NULL || !an_lit(o.val)))
					rg_names.wide = 1;
				else if (o.d->tag == WALK_GLOB || o.d->tag ==
				    WALK_IGLOB) {
					if (o.val->s[0] != '!')
						rg_glob_add(o.val->s);
				} else if (o.d->tag == WALK_TYPE && !pos)
					rg_type_add(o.val != NULL &&
					    an_lit(o.val) ? o.val->s : "");
				continue;
			}
			switch (o.d->tag) {
			case WALK_HIDDEN:
				hidden = 1;
				break;
			case WALK_U:
				u++;
				break;
			case WALK_NOIGNORE:
				noign = 1;
				break;
			case WALK_FOLLOW:
				follow = 1;
				break;
			case WALK_NAMES:
				names = 1;
				break;
			case WALK_GLOB:
			case WALK_IGLOB:
				/* globs override ignore files */
				noign = 1;
				fold |= o.d->tag == WALK_IGLOB;
				/* one not known: it may select (stricter) */
				pos |= o.val == NULL || !an_lit(o.val) ||
				    o.val->s[0] != '!';
				break;
			case WALK_GLOBCASE:
				fold = 1;
				break;
			case WALK_TYPE:
				types = 1;
				break;
			case WALK_TYPEADD:
				/* (--type=x abbreviates --type-add: not it) */
				typeadd |= o.name[1] != '-' || strncmp(o.name,
				    o.d->opt, strlen(o.d->opt)) == 0;
				break;
			}
		}
		if (!pos && (!types || typeadd))
			break;
	}
	if (typeadd && !pos)
		rg_names.wide = 1;
	rg_names.tn.fold = fold;
	if (pos || types)
		hidden = 1;     /* what a glob or type selects is read, hidden
		                   or not */
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

/*
 * The operands of grep -r or rg, read with its table (opts.c: the values
 * of its options are no operands): fn for each, the first skipped when
 * it is the pattern (no -e, -f, --files). Returns how many were given.
 */
static int
walker_operands(struct ev *ev, struct cmdv *v, const struct prog *pr,
    operand_fn fn)
{
	struct an_walk it;
	struct an_opt o;
	int r, pat = 1, n = 0;

	an_walk_init(&it, 1, pr->optarg, AN_W_NONE);
	an_walk_table(&it, an_optset(pr->opts), NULL);
	while ((r = an_opt_next(v, &it, &o)) >= 0)
		if (r == 1 && o.d != NULL && (o.d->tag == WALK_PAT ||
		    (o.d->tag == WALK_NAMES && pr->opts == OPTS_RG)))
			pat = 0;
	an_walk_init(&it, 1, pr->optarg, AN_W_NONE);
	an_walk_table(&it, an_optset(pr->opts), NULL);
	while ((r = an_opt_next(v, &it, &o)) >= 0)
		if (r == 0 && (n++ > 0 || !pat))
			fn(ev, v, &v->w[o.k], n);
	return n - pat;
}

/*
 * Claude Code's Grep tool (ripgrep inside) reads the tree at path (a
 * file: that file), hidden files included and ignore files not
 * assumed: as grep -r. Its glob narrows the names read as rg -g does
 * (one word: whitespace or a comma outside braces may be several globs,
 * which then read every name), its type as rg -t does, when no glob is
 * given.
 */
void
an_grep_tool(struct ev *ev, const char *path, const char *glob,
    const char *type)
{
	const char *q;
	int depth = 0, split = 0;

	rg_names_reset();
	for (q = glob; q != NULL && *q != '\0'; q++) {
		depth += *q == '{';
		depth -= *q == '}' && depth > 0;
		split |= *q == ' ' || *q == '\t' || *q == '\n' ||
		    (*q == ',' && depth == 0);
	}
	if (glob != NULL && glob[0] != '\0') {
		if (split || glob[0] == '!')
			rg_names.wide = 1;
		else
			rg_glob_add(glob);
	} else if (type != NULL && type[0] != '\0') {
		rg_type_add(type);
	}
	trig_read_tree_names(ev, path, "Grep", 0, rg_filter());
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
	const char *name = pr->name;
	int r, how, hidden = 0, deep = 0, flat_only = 0, ops = 0, first = 1;
	const struct tree_names *names = NULL;
	struct an_walk it;
	struct an_opt o;
	char path[SBX_PATH_MAX];
	int opk[64], nops = 0, k;

	/* the table walk (opts.c): what each option says, and the operands;
	 * an option only known at run time may be -a */
	first = strcmp(name, "fd") == 0 ? 0 : 1;
	an_walk_init(&it, 1, pr->optarg, AN_W_NONE);
	an_walk_table(&it, an_optset(pr->opts), NULL);
	while ((r = an_opt_next(v, &it, &o)) >= 0) {
		if (r == 1 && !an_lit(&v->w[o.k]))
			hidden = 1;
		if (r == 1 && o.d != NULL && o.d->tag == WALK_ROOT) {
			/* fd --search-path DIR: listed as an operand is, read
			 * as with -H (stricter) */
			ops++;
			if (o.val == NULL || an_word_path(ev, o.val, path,
			    sizeof(path)) != 1 || trig_tree_secret(ev, path, 0,
			    NULL))
				return 1;
		}
		if (r == 1 && o.d != NULL) {
			hidden |= o.d->tag == WALK_HIDDEN;
			deep |= o.d->tag == WALK_DEEP;
			flat_only |= o.d->tag == WALK_FLAT;
		}
		if (r != 0 || !first++)
			continue;       /* fd's first operand: its pattern */
		ops++;
		if (nops == (int)(sizeof(opk) / sizeof(opk[0])))
			return 1;       /* too many to look at */
		opk[nops++] = o.k;
	}
	if (strcmp(name, "ls") == 0) {
		if (flat_only)
			return 0;
		how = (deep ? 0 : TREE_FLAT) | (hidden ? 0 : TREE_NOHIDDEN);
	} else if (strcmp(name, "rg") == 0) {
		/* rg's own reading: -uu, --hidden, -., its globs and types */
		how = rg_tree_how(v, pr) & (TREE_NOHIDDEN | TREE_GITIGNORE);
		names = rg_filter();
	} else if (strcmp(name, "du") == 0) {
		if (!hidden)
			return 0;       /* directories only, without -a */
		how = 0;
	} else {
		how = hidden ? 0 : TREE_NOHIDDEN;
	}
	for (k = 0; k < nops; k++)
		if (an_word_path(ev, &v->w[opk[k]], path, sizeof(path)) == 1 &&
		    trig_tree_secret(ev, path, how, names))
			return 1;
	return ops == 0 && trig_tree_secret(ev, ".", how, names);
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
		tree_ops = 0;
		if (strcmp(name, "rg") == 0) {
			tree_how = rg_tree_how(v, pr);
			tree_nm = rg_filter();
		} else {
			/* grep -r reads hidden names; -R follows links */
			tree_how = (rec & 2) ? TREE_FOLLOW : 0;
			tree_nm = tree_filter();
		}
		walker_operands(ev, v, pr, op_tree_skip);
		if (tree_ops == 0 && !v->extra && !(strcmp(name, "rg") == 0 &&
		    rg_reads_stdin(v)))
			trig_read_tree_names(ev, ".", name, tree_how, tree_nm);
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
