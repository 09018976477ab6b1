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

void
an_cls_tar(struct ev *ev, struct cmdv *v)
{
	struct sh_word *archive = NULL, *dir = NULL;
	struct sh_word val = { 0 }, fval = { 0 }, dval = { 0 };
	char mode = 0;
	int k = 1, absolute = 0, to_stdout = 0, force_local = 0, opts = 1, j;
	int nops = 0, first_op = -1;
	const char *s, *q;

	if (v->n > 1 && an_lit(&v->w[1]) && v->w[1].s[0] != '-') {
		/* old style: tar xzf FILE: the values follow in order */
		k = 2;
		for (q = v->w[1].s; *q != '\0'; q++) {
			if (strchr("xtcrudA", *q) != NULL)
				mode = *q;
			else if (*q == 'P')
				absolute = 1;
			else if (*q == 'O')
				to_stdout = 1;
			if (strchr("fbLNVKTXgIFCH", *q) != NULL && k < v->n) {
				if (*q == 'f')
					archive = &v->w[k];
				else if (*q == 'C')
					dir = &v->w[k];
				else if (*q == 'I' || *q == 'F')
					ev_note(ev, POLICY_ESCALATE, "shell",
					    "builtin: option", "tar %c runs a command", *q);
				k++;
			}
		}
	}
	for (; k < v->n; k++) {
		struct sh_word *w = &v->w[k];

		s = w->s;
		if (opts && an_lit(w) && strcmp(s, "--") == 0) {
			opts = 0;
			continue;
		}
		if (opts && s[0] == '-' && s[1] == '-') {
			const char *eq = strchr(s, '=');
			size_t nl = eq ? (size_t)(eq - s) : strlen(s);
			struct sh_word *vw = NULL;

			if (eq != NULL) {
				val = *w;
				val.s = (char *)eq + 1;
				val.len = strlen(val.s);
				vw = &val;
			}
#define LONG(x) (nl >= 4 && strncmp(s, x, nl) == 0)
			if (LONG("--extract") || LONG("--get"))
				mode = 'x';
			else if (LONG("--create"))
				mode = 'c';
			else if (LONG("--list"))
				mode = 't';
			else if (LONG("--append"))
				mode = 'r';
			else if (LONG("--update"))
				mode = 'u';
			else if (LONG("--diff") || LONG("--compare"))
				mode = 'd';
			else if (LONG("--delete"))
				mode = 'D';
			else if (LONG("--catenate") || LONG("--concatenate"))
				mode = 'A';
			else if (LONG("--absolute-names"))
				absolute = 1;
			else if (LONG("--to-stdout"))
				to_stdout = 1;
			else if (LONG("--force-local"))
				force_local = 1;
			else if (LONG("--file") || LONG("--directory")) {
				struct sh_word *slot = LONG("--file") ? &fval : &dval;

				if (vw == &val) {
					*slot = val;
					vw = slot;
				} else if (k + 1 < v->n) {
					vw = &v->w[++k];
				}
				if (LONG("--file"))
					archive = vw;
				else
					dir = vw;
			}
#undef LONG
			continue;
		}
		if (opts && s[0] == '-' && s[1] != '\0') {
			for (q = s + 1; *q != '\0'; q++) {
				if (strchr("xtcrudA", *q) != NULL)
					mode = *q;
				else if (*q == 'P')
					absolute = 1;
				else if (*q == 'O')
					to_stdout = 1;
				if (strchr("fbLNVKTXgIFCH", *q) != NULL) {
					struct sh_word *vw = NULL;

					if (q[1] != '\0') {
						/* attached: -fFILE, -Cdir */
						struct sh_word *slot = *q == 'f' ? &fval : &dval;

						*slot = *w;
						slot->s = (char *)q + 1;
						slot->len = strlen(slot->s);
						if (*q == 'f' || *q == 'C')
							vw = slot;
					} else if (k + 1 < v->n) {
						vw = &v->w[++k];
					}
					if (*q == 'f' && vw != NULL)
						archive = vw;
					else if (*q == 'C' && vw != NULL)
						dir = vw;
					break;
				}
			}
			continue;
		}
		nops++;
		if (first_op < 0)
			first_op = k;
	}
	if (mode == 0) {
		ev_note(ev, POLICY_ESCALATE, "shell", "builtin: tar",
		    "tar without a mode the policy knows (-x, -c, -t ...)");
		return;
	}
	if (archive != NULL && an_lit(archive) && !force_local &&
	    (q = strchr(archive->s, ':')) != NULL &&
	    (strchr(archive->s, '/') == NULL || q < strchr(archive->s, '/'))) {
		ev_factor(ev, F_NETWORK | F_CODE);
		ev_note(ev, POLICY_ESCALATE, "network", "builtin: tar",
		    "tar -f %s names a remote archive: tar runs rsh to reach it",
		    archive->s);
		return;
	}
	switch (mode) {
	case 'x':
		if (archive != NULL)
			an_op_read(ev, v, archive, 0);
		if (absolute) {
			ev_factor(ev, F_WRITE_OUT);
			ev_note(ev, POLICY_ESCALATE, "write", "builtin: tar",
			    "tar -P extracts absolute names: it may write anywhere");
			return;
		}
		if (!to_stdout)
			tree_dest(ev, v, dir, "tar -x");
		break;
	case 'c': case 'r': case 'u': case 'A': case 'D':
		if (archive != NULL)
			an_write_word(ev, v, archive);
		else if (mode != 'c')
			trig_write(ev, NULL, "tar");
		if (dir != NULL)
			an_op_read(ev, v, dir, 0);
		for (j = first_op; j >= 0 && j < v->n; j++)
			if (!an_is_opt(&v->w[j]) && &v->w[j] != archive &&
			    &v->w[j] != dir)
				an_op_read_tree(ev, v, &v->w[j], 0);
		break;
	default:
		if (archive != NULL)
			an_op_read(ev, v, archive, 0);
		break;
	}
	if (v->extra)
		trig_write(ev, NULL, "tar");
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

	an_operands(ev, v, 1, pr->optarg, an_op_read_skip1);
	if (an_has_short(v, 1, 'r', pr->optarg) || an_has_word(v, 1, "--recurse-paths")) {
		int k, opts = 1, idx = 0;

		for (k = 1; k < v->n; k++) {
			if (opts && an_lit(&v->w[k]) && strcmp(v->w[k].s, "--") == 0) {
				opts = 0;
				continue;
			}
			if (opts && an_is_opt(&v->w[k])) {
				if (an_cluster_takes_next(v->w[k].s, pr->optarg))
					k++;
				continue;
			}
			if (idx++ > 0)
				an_op_read_tree(ev, v, &v->w[k], 0);
		}
	}
	{
		int k, opts = 1, idx = 0;

		for (k = 1; k < v->n; k++) {
			const char *s = v->w[k].s;

			if (opts && an_lit(&v->w[k]) && strcmp(s, "--") == 0) {
				opts = 0;
				continue;
			}
			if (opts && an_is_opt(&v->w[k])) {
				if (an_cluster_takes_next(s, pr->optarg))
					k++;
				continue;
			}
			if (idx++ == 0)
				an_write_word(ev, v, &v->w[k]);
			else if (move)
				an_write_tree_word(ev, v, &v->w[k]);
		}
	}
}
