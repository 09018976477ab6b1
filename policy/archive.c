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
	struct sh_word val, fval, dval;         /* attached values */
	char mode;
	int absolute, to_stdout, force_local;
	int first_op;                           /* the first operand, or -1 */
};

/* The long options of tar that set a mode or a flag; any unambiguous
 * prefix of at least four characters counts, as getopt_long reads it. */
static const struct {
	const char *name;
	char mode;              /* the mode set, or 0 */
	char flag;              /* 'P' absolute, 'O' to stdout, 'L' force local */
} tar_long[] = {
	{ "--extract", 'x', 0 }, { "--get", 'x', 0 }, { "--create", 'c', 0 },
	{ "--list", 't', 0 }, { "--append", 'r', 0 }, { "--update", 'u', 0 },
	{ "--diff", 'd', 0 }, { "--compare", 'd', 0 }, { "--delete", 'D', 0 },
	{ "--catenate", 'A', 0 }, { "--concatenate", 'A', 0 },
	{ "--absolute-names", 0, 'P' }, { "--to-stdout", 0, 'O' },
	{ "--force-local", 0, 'L' },
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
			else if (*q == 'C')
				t->dir = &v->w[k];
			else if (*q == 'I' || *q == 'F')
				ev_note(ev, POLICY_ESCALATE, "shell",
				    "builtin: option", "tar %c runs a command", *q);
			k++;
		}
	}
	return k;
}

/* --name[=value]: word k; returns the index of the last word used. */
static int
tar_long_opt(struct cmdv *v, struct tar *t, int k)
{
	struct sh_word *w = &v->w[k], *vw = NULL;
	const char *s = w->s, *eq = strchr(s, '=');
	size_t nl = eq ? (size_t)(eq - s) : strlen(s), j;
	int file;

	if (eq != NULL) {
		t->val = *w;
		t->val.s = (char *)eq + 1;
		t->val.len = strlen(t->val.s);
		vw = &t->val;
	}
#define LONG(x) (nl >= 4 && strncmp(s, x, nl) == 0)
	for (j = 0; j < sizeof(tar_long) / sizeof(tar_long[0]); j++)
		if (LONG(tar_long[j].name)) {
			if (tar_long[j].mode != 0)
				t->mode = tar_long[j].mode;
			else if (tar_long[j].flag == 'L')
				t->force_local = 1;
			else
				tar_letter(t, tar_long[j].flag);
			return k;
		}
	if (!LONG("--file") && !LONG("--directory"))
		return k;
	file = LONG("--file");
#undef LONG
	if (vw == &t->val) {
		struct sh_word *slot = file ? &t->fval : &t->dval;

		*slot = t->val;
		vw = slot;
	} else if (k + 1 < v->n) {
		vw = &v->w[++k];
	}
	if (file)
		t->archive = vw;
	else
		t->dir = vw;
	return k;
}

/* -xzf FILE, -fFILE, -Cdir: word k; returns the index of the last word
 * used. */
static int
tar_short_opt(struct cmdv *v, struct tar *t, int k)
{
	struct sh_word *w = &v->w[k];
	const char *q;

	for (q = w->s + 1; *q != '\0'; q++) {
		struct sh_word *vw = NULL;

		tar_letter(t, *q);
		if (strchr("fbLNVKTXgIFCH", *q) == NULL)
			continue;
		if (q[1] != '\0') {
			/* attached: -fFILE, -Cdir */
			struct sh_word *slot = *q == 'f' ? &t->fval : &t->dval;

			*slot = *w;
			slot->s = (char *)q + 1;
			slot->len = strlen(slot->s);
			if (*q == 'f' || *q == 'C')
				vw = slot;
		} else if (k + 1 < v->n) {
			vw = &v->w[++k];
		}
		if (*q == 'f' && vw != NULL)
			t->archive = vw;
		else if (*q == 'C' && vw != NULL)
			t->dir = vw;
		break;
	}
	return k;
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
			    &v->w[j] != t->dir)
				an_op_read_tree(ev, v, &v->w[j], 0);
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
	int k = 1, opts = 1;
	const char *s, *q;

	memset(&t, 0, sizeof(t));
	t.first_op = -1;
	if (v->n > 1 && an_lit(&v->w[1]) && v->w[1].s[0] != '-')
		k = tar_old_style(ev, v, &t);
	for (; k < v->n; k++) {
		s = v->w[k].s;
		if (opts && an_lit(&v->w[k]) && strcmp(s, "--") == 0)
			opts = 0;
		else if (opts && s[0] == '-' && s[1] == '-')
			k = tar_long_opt(v, &t, k);
		else if (opts && s[0] == '-' && s[1] != '\0')
			k = tar_short_opt(v, &t, k);
		else if (t.first_op < 0)
			t.first_op = k;
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

void
an_cls_unzip(struct ev *ev, struct cmdv *v, const struct prog *pr)
{
	struct sh_word *dir = NULL, val;
	int k, list = 0, archive_seen = 0;
	const char *s;

	(void)pr;
	for (k = 1; k < v->n; k++) {
		s = v->w[k].s;
		if (an_lit(&v->w[k]) && (strcmp(s, "-x") == 0))
			break;          /* the rest are names to leave out */
		if (an_lit(&v->w[k]) && s[0] == '-' && s[1] != '\0') {
			if (strchr(s, ':') != NULL) {
				ev_factor(ev, F_WRITE_OUT);
				ev_note(ev, POLICY_ESCALATE, "write", "builtin: unzip",
				    "unzip -: extracts names with \"..\": it may write "
				    "anywhere");
				return;
			}
			if (strpbrk(s + 1, "lvtzZpc") != NULL && s[1] != 'd')
				list = 1;
			if (s[1] == 'd') {
				if (s[2] != '\0') {
					val = v->w[k];
					val.s += 2;
					val.len -= 2;
					dir = NULL;
					tree_dest(ev, v, &val, "unzip -d");
					list = 1;       /* judged here */
				} else if (k + 1 < v->n) {
					dir = &v->w[++k];
				}
			} else if (s[1] == 'P' && s[2] == '\0') {
				k++;
			}
			continue;
		}
		if (!archive_seen) {
			archive_seen = 1;
			an_op_read(ev, v, &v->w[k], 0);
		}
	}
	if (!list)
		tree_dest(ev, v, dir, "unzip");
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
		while ((k = an_walk_next(v, &it)) >= 0)
			if (idx++ > 0)
				an_op_read_tree(ev, v, &v->w[k], 0);
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
