/*
 * archive.c - tar, unzip and zip: which archive is read or written, and
 * which tree an extraction writes.
 *
 * Rules:
 * - An extraction writes a whole tree (the -C/-d directory, or the working
 *   directory): it escalates when that tree holds files sbx protects, since
 *   the archive may hold .sandbox/, .git/hooks/ or .claude/ entries. tar -P
 *   (absolute names) and unzip -: (names with ..) escalate.
 * - Creating an archive reads its operands and writes the archive.
 * - An archive name with host: is a remote archive (tar runs rsh): escalate.
 */
#include "policy/analyse.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void
tree_dest(struct ev *ev, struct cmdv *v, struct sh_word *dir, const char *what)
{
	char path[SBX_PATH_MAX];

	if (dir == NULL) {
		trig_write_tree(ev, ".", what, 1);
		return;
	}
	if (an_word_path(ev, dir, path, sizeof(path)) == 1)
		trig_write_tree(ev, path, what, 1);
	else
		an_write_word(ev, v, dir);
}

/* What a tar command line says (tar_words). */
struct tar {
	struct sh_word *archive, *dir;
	struct sh_word fval, dval;              /* attached values */
	char mode;
	int absolute, to_stdout, force_local, remove;
	int deref;                              /* -h: stores what links
	                                           point to */
	int dir_at, ndir;                       /* the word of -C, how many */
	int first_op;                           /* the first operand, or -1 */
};

/* A mode letter or a flag letter of a cluster. */
static void
tar_letter(struct tar *t, char c)
{
	if (strchr("xtcrudA", c) != NULL)
		t->mode = c;
	else if (c == 'P')
		t->absolute = 1;
	else if (c == 'O')
		t->to_stdout = 1;
	else if (c == 'h')
		t->deref = 1;
}

/* old style: tar xzf FILE: the values follow in order. Returns the index
 * of the first word after them. */
static int
tar_old_style(struct ev *ev, struct cmdv *v, struct tar *t)
{
	const char *q;
	int k = 2;

	for (q = v->w[1].s; *q != '\0'; q++) {
		tar_letter(t, *q);
		if (strchr("fbLNVKTXgIFCH", *q) != NULL && k < v->n) {
			if (*q == 'f')
				t->archive = &v->w[k];
			else if (*q == 'C') {
				t->dir = &v->w[k];
				t->dir_at = 1;  /* before every operand */
				t->ndir++;
			}
			else if (*q == 'I' || *q == 'F')
				ev_note(ev, POLICY_ESCALATE, "shell",
				    "builtin: option", "tar %c runs a command", *q);
			else if (*q == 'T' || *q == 'X')
				an_op_read(ev, v, &v->w[k], 0);
			else if (*q == 'g')
				an_write_word(ev, v, &v->w[k]);
			if (*q == 'T')
				an_names_from(ev, "tar", "T");
			k++;
		}
	}
	return k;
}

/*
 * One option of tar from its table (opts.c, OPTS_TAR): a mode, the
 * archive, the directory, a flag. A long option counts from four
 * characters on ("--ex"); an ambiguous one still names the archive, the
 * directory and -P, never a mode or a flag that makes tar write less.
 */
static void
tar_option(struct tar *t, const struct an_walk *it, const struct an_opt *o)
{
	int tag = o->d != NULL ? o->d->tag : 0;
	struct sh_word *val = o->val;

	if (tag == 0 || (o->name[1] == '-' && strcspn(o->name, "=") < 4))
		return;
	if ((tag == TAR_FILE || tag == TAR_DIR) && val == &it->tail) {
		/* attached: copied out of the walk */
		if (tag == TAR_FILE) {
			t->fval = *val;
			val = &t->fval;
		} else {
			t->dval = *val;
			val = &t->dval;
		}
	}
	if (tag == TAR_FILE && val != NULL)
		t->archive = val;
	else if (tag == TAR_DIR && val != NULL) {
		t->dir = val;
		t->dir_at = o->k;
		t->ndir++;
	}
	else if (tag == TAR_ABS)
		t->absolute = 1;
	else if (o->ambiguous)
		return;
	else if (tag == TAR_STDOUT)
		t->to_stdout = 1;
	else if (tag == TAR_LOCAL)
		t->force_local = 1;
	else if (tag == TAR_REMOVE)
		t->remove = 1;
	else if (tag == TAR_DEREF)
		t->deref = 1;
	else if (tag < 256)
		t->mode = (char)tag;
}

/*
 * An operand tar archives: the tree it names, from the working directory,
 * or after -C DIR from DIR (-C applies to the operands after it). A DIR
 * or an operand not known before it runs, or -C given twice (each is
 * relative to the last), is unknown.
 */
static void
tar_read_operand(struct ev *ev, struct cmdv *v, struct tar *t,
    struct sh_word *w)
{
	char dir[SBX_PATH_MAX], op[SBX_PATH_MAX], path[SBX_PATH_MAX];
	int how = t->deref ? TREE_FOLLOW : 0, n;

	if (t->dir == NULL || w < &v->w[t->dir_at]) {
		an_read_tree_how(ev, v, w, how);
		return;
	}
	if (t->ndir > 1 || an_word_path(ev, t->dir, dir, sizeof(dir)) != 1 ||
	    an_word_path(ev, w, op, sizeof(op)) != 1) {
		an_read_opaque(ev, w, "tar -C");
		return;
	}
	if (op[0] == '/' || op[0] == '~')
		return;
	n = snprintf(path, sizeof(path), "%s/%s", dir, op);
	if (n < 0 || (size_t)n >= sizeof(path)) {
		an_read_opaque(ev, w, "tar -C");
		return;
	}
	trig_read_tree_how(ev, path, "tar", how);
}

/* What tar does with the archive, the directory and the operands. */
static void
tar_judge(struct ev *ev, struct cmdv *v, struct tar *t)
{
	int j;

	switch (t->mode) {
	case 'x':
		if (t->archive != NULL)
			an_op_read(ev, v, t->archive, 0);
		if (t->absolute) {
			ev_factor(ev, F_WRITE_OUT);
			ev_note(ev, POLICY_ESCALATE, "write", "builtin: tar",
			    "tar -P extracts absolute names: it may write anywhere");
			return;
		}
		if (!t->to_stdout)
			tree_dest(ev, v, t->dir, "tar -x");
		break;
	case 'c': case 'r': case 'u': case 'A': case 'D':
		if (t->archive != NULL)
			an_write_word(ev, v, t->archive);
		else if (t->mode != 'c')
			trig_write(ev, NULL, "tar");
		if (t->dir != NULL)
			an_op_read(ev, v, t->dir, 0);
		for (j = t->first_op; j >= 0 && j < v->n; j++)
			if (!an_is_opt(&v->w[j]) && &v->w[j] != t->archive &&
			    &v->w[j] != t->dir) {
				tar_read_operand(ev, v, t, &v->w[j]);
				/* --remove-files: what it archives is removed */
				if (t->remove)
					an_write_tree_word(ev, v, &v->w[j]);
			}
		break;
	default:
		if (t->archive != NULL)
			an_op_read(ev, v, t->archive, 0);
		break;
	}
	if (v->extra)
		trig_write(ev, NULL, "tar");
}

void
an_cls_tar(struct ev *ev, struct cmdv *v)
{
	struct tar t;
	struct an_walk it;
	struct an_opt o;
	int k = 1, r;
	const char *q;

	memset(&t, 0, sizeof(t));
	t.first_op = -1;
	if (v->n > 1 && an_lit(&v->w[1]) && v->w[1].s[0] != '-')
		k = tar_old_style(ev, v, &t);
	an_walk_init(&it, k, NULL, AN_W_NONE);
	an_walk_table(&it, an_optset(OPTS_TAR), NULL);
	while ((r = an_opt_next(v, &it, &o)) >= 0) {
		if (r == 1)
			tar_option(&t, &it, &o);
		else if (t.first_op < 0)
			t.first_op = o.k;
	}
	if (t.mode == 0) {
		ev_note(ev, POLICY_ESCALATE, "shell", "builtin: tar",
		    "tar without a mode the policy knows (-x, -c, -t ...)");
		return;
	}
	if (t.archive != NULL && an_lit(t.archive) && !t.force_local &&
	    (q = strchr(t.archive->s, ':')) != NULL &&
	    (strchr(t.archive->s, '/') == NULL || q < strchr(t.archive->s, '/'))) {
		ev_factor(ev, F_NETWORK | F_CODE);
		ev_note(ev, POLICY_ESCALATE, "network", "builtin: tar",
		    "tar -f %s names a remote archive: tar runs rsh to reach it",
		    t.archive->s);
		return;
	}
	tar_judge(ev, v, &t);
}

/*
 * unzip, from its table (opts.c, OPTS_UNZIP): the first operand is the
 * archive (read); -d DIR is where it extracts, in any form and wherever
 * it stands (unzip x.zip -x a -d DIR); -l, -v, -t, -z, -Z, -p and -c
 * only list or print (unzip then ignores -d); -: extracts names with
 * "..". An option only known at run time may be any of these.
 */
void
an_cls_unzip(struct ev *ev, struct cmdv *v, const struct prog *pr)
{
	struct sh_word *dir = NULL, dval;
	struct an_walk it;
	struct an_opt o;
	int r, list = 0, archive_seen = 0, tag;

	(void)pr;
	an_walk_init(&it, 1, NULL, AN_W_NONE);
	an_walk_table(&it, an_optset(OPTS_UNZIP), NULL);
	while ((r = an_opt_next(v, &it, &o)) >= 0) {
		if (r == 0) {
			if (!archive_seen) {
				archive_seen = 1;
				an_op_read(ev, v, &v->w[o.k], 0);
			}
			continue;
		}
		if (!an_lit(&v->w[o.k])) {
			ev_factor(ev, F_UNKNOWN);
			ev_note(ev, POLICY_ESCALATE, "write", "builtin: unzip",
			    "unzip: an option only known at run time may say "
			    "where it extracts");
			return;
		}
		tag = o.d != NULL ? o.d->tag : 0;
		if (tag == UNZIP_DOTDOT) {
			ev_factor(ev, F_WRITE_OUT);
			ev_note(ev, POLICY_ESCALATE, "write", "builtin: unzip",
			    "unzip -: extracts names with \"..\": it may write "
			    "anywhere");
			return;
		}
		if (tag == UNZIP_LIST)
			list = 1;
		else if (tag == UNZIP_DIR && o.val == NULL)
			trig_write(ev, NULL, "unzip -d");
		else if (tag == UNZIP_DIR && o.val == &it.tail) {
			dval = *o.val;          /* attached: copied out of the walk */
			dir = &dval;
		} else if (tag == UNZIP_DIR) {
			dir = o.val;
		}
	}
	if (!list)
		tree_dest(ev, v, dir, dir != NULL ? "unzip -d" : "unzip");
}

void
an_cls_zip(struct ev *ev, struct cmdv *v, const struct prog *pr)
{
	int move = an_has_short(v, 1, 'm', pr->optarg) ||
	    an_has_word(v, 1, "--move");
	struct an_walk it;
	int k, idx = 0;

	an_operands(ev, v, 1, pr->optarg, an_op_read_skip1);
	/* zip -r ARCHIVE DIR...: the trees are read */
	if (an_has_short(v, 1, 'r', pr->optarg) || an_has_word(v, 1, "--recurse-paths")) {
		an_walk_init(&it, 1, pr->optarg, AN_W_CLUSTER);
		/* zip stores what a link points to, unless -y */
		int how = an_has_short(v, 1, 'y', pr->optarg) ||
		    an_has_word(v, 1, "--symlinks") ? 0 : TREE_FOLLOW;

		while ((k = an_walk_next(v, &it)) >= 0)
			if (idx++ > 0)
				an_read_tree_how(ev, v, &v->w[k], how);
	}
	/* the archive is written; zip -m removes what it adds */
	idx = 0;
	an_walk_init(&it, 1, pr->optarg, AN_W_CLUSTER);
	while ((k = an_walk_next(v, &it)) >= 0) {
		if (idx++ == 0)
			an_write_word(ev, v, &v->w[k]);
		else if (move)
			an_write_tree_word(ev, v, &v->w[k]);
	}
}
