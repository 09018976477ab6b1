/*
 * text.c - find, sed and awk: their scripts and -exec commands.
 *
 * Rules:
 * - find -exec CMD is judged as CMD, with {} standing for a file below the
 *   search path; {} glued into a word (sh -c 'rm {}') is unknown data.
 * - sed and awk programs are scanned for what reaches outside them (sed w,
 *   e, r; awk system(), pipes, getline, print > FILE); what the scanner
 *   does not understand escalates.
 */
#include "policy/analyse.h"

#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The -name/-iname pattern of a find, or "found" (names the {} file). */
static const char *
find_name(const struct cmdv *v)
{
	int k;

	for (k = 1; k + 1 < v->n; k++)
		if (an_lit(&v->w[k]) && (strcmp(v->w[k].s, "-name") == 0 ||
		    strcmp(v->w[k].s, "-iname") == 0) && an_lit(&v->w[k + 1]) &&
		    strchr(v->w[k + 1].s, '/') == NULL && v->w[k + 1].s[0] != '\0')
			return v->w[k + 1].s;
	return "found";
}

/*
 * Names that sbx's own files and the files that run code later can have
 * (and the directories that hold them). A find whose -name patterns match
 * none of them cannot touch them.
 */
static const char *const protected_names[] = {
	".sandbox", ".claude", ".codex", ".cursor", ".git", ".husky", ".vscode",
	".idea", ".mise", ".config", ".devcontainer", ".envrc", ".mcp.json",
	".mise.toml", "mise.toml", ".tool-versions", ".pre-commit-config.yaml",
	"hooks", "info", "config", "queue", "results", "audit", "originals",
	"policy.json", "policy.accepted", "settings.json", "settings.local.json",
	"hooks.json", "mcp.json", "config.toml", "auth.json", "tasks.json",
	"pre-commit", "x.sample", "x.json", "x.jsonl", "x.toml", "x.db",
	"x.sqlite", "x.log", "x.sig", "x.key", "x.pub", "x.tmp", "x.lock",
	"x.txt", "x.xml", "x.sh", "x.yaml", "x.yml", "x.iml", "x", ".x",
	"sbx", "sbx-hook", "sbx-mcp", "sbxd", "bin", NULL,
};

/*
 * What find's primaries do, as data: FP_UNNAMES, the names it prints can
 * no longer be told from its -name tests (negation, alternatives, paths,
 * links); FP_ENDS_NAMES, the tests end there; act, what the action does
 * (a file written with its value, a command run, a question asked).
 * Primaries that hold "path" or "regex" unname too (matched apart).
 */
#define FP_UNNAMES      0x1
#define FP_ENDS_NAMES   0x2
enum find_act { FA_NONE, FA_DELETE, FA_WRITE, FA_ASK, FA_EXEC, FA_NAMES };

static const struct find_primary {
	const char *name;
	int prefix;             /* -fprint: -fprint0 and -fprintf too */
	unsigned fl;
	enum find_act act;
} find_primaries[] = {
	{ "!", 0, FP_UNNAMES, FA_NONE }, { "-not", 0, FP_UNNAMES, FA_NONE },
	{ "-o", 0, FP_UNNAMES, FA_NONE }, { "-or", 0, FP_UNNAMES, FA_NONE },
	{ ",", 0, FP_UNNAMES, FA_NONE },
	{ "-links", 0, FP_UNNAMES, FA_NONE },
	{ "-inum", 0, FP_UNNAMES, FA_NONE },
	{ "-samefile", 0, FP_UNNAMES, FA_NONE },
	{ "-lname", 0, FP_UNNAMES, FA_NONE },
	{ "-ilname", 0, FP_UNNAMES, FA_NONE },
	{ "-delete", 0, FP_ENDS_NAMES, FA_DELETE },
	{ "-fprint", 1, 0, FA_WRITE }, { "-fls", 0, 0, FA_WRITE },
	{ "-files0-from", 0, 0, FA_NAMES },     /* the starting points */
	{ "-ok", 0, FP_ENDS_NAMES, FA_ASK }, { "-okdir", 0, 0, FA_ASK },
	{ "-exec", 0, FP_ENDS_NAMES, FA_EXEC },
	{ "-execdir", 0, FP_ENDS_NAMES, FA_EXEC },
};

static const struct find_primary *
find_primary(const char *s)
{
	size_t k, n;

	for (k = 0; k < sizeof(find_primaries) / sizeof(find_primaries[0]);
	    k++) {
		if (s[0] != find_primaries[k].name[0] ||
		    s[1] != find_primaries[k].name[1])
			continue;       /* a name has two bytes or one and NUL */
		n = strlen(find_primaries[k].name);
		if (strncmp(s, find_primaries[k].name, n) == 0 &&
		    (s[n] == '\0' || find_primaries[k].prefix))
			return &find_primaries[k];
	}
	return NULL;
}

int
an_find_word_acts(const char *s)
{
	const struct find_primary *fp = find_primary(s);

	return fp != NULL && (fp->act == FA_EXEC || fp->act == FA_ASK ||
	    fp->act == FA_WRITE);
}

/*
 * 1 when every test that picks files by name (-name, -iname) has a
 * literal pattern that matches none of the protected names, and nothing
 * else picks them (-path, -regex, a negation): the tree is then touched
 * only where such names live.
 */
int
an_find_names_safe(const struct cmdv *v)
{
	const struct find_primary *fp;
	int k, j, names = 0;
	const char *s;

	for (k = 1; k < v->n; k++) {
		s = v->w[k].s;
		if (!an_lit(&v->w[k]))
			continue;
		fp = find_primary(s);
		if ((fp != NULL && (fp->fl & FP_UNNAMES)) ||
		    strstr(s, "path") != NULL || strstr(s, "regex") != NULL)
			return 0;
		if (fp != NULL && (fp->fl & FP_ENDS_NAMES))
			break;
		if ((strcmp(s, "-name") == 0 || strcmp(s, "-iname") == 0) &&
		    k + 1 < v->n) {
			const char *pat = v->w[++k].s;

			if (!an_lit(&v->w[k]))
				return 0;
			for (j = 0; protected_names[j] != NULL; j++)
				if (fnmatch(pat, protected_names[j], s[1] == 'i' ?
				    FNM_CASEFOLD : 0) == 0)
					return 0;
			names++;
		}
	}
	return names > 0;
}

/* 1 when the name pattern pat matches none of the protected names. */
int
an_glob_name_safe(const char *pat)
{
	int j;

	for (j = 0; protected_names[j] != NULL; j++)
		if (fnmatch(pat, protected_names[j], 0) == 0)
			return 0;
	return 1;
}

/* A tree a find changes: narrowed to the names it picks, when safe. */
static void
find_tree(struct ev *ev, struct cmdv *v, const char *path, const char *what,
    int safe)
{
	(void)v;
	if (safe)
		trig_write(ev, path, what);
	else
		trig_write_tree(ev, path, what, 1);
}

/*
 * The search paths of a find (the words before its expression): each is
 * read. Returns how many; *lister: all of them are in the project.
 */
/*
 * The first search path of a find: after its leading options -H, -L, -P
 * (any number of them), -D LIST and -O LEVEL. Sets *follow when -L is
 * among them (links are followed).
 */
static int
find_first_how(const struct cmdv *v, int *follow)
{
	int k;
	const char *s;

	*follow = 0;
	for (k = 1; k < v->n && an_lit(&v->w[k]); k++) {
		s = v->w[k].s;
		if (strcmp(s, "-H") == 0 || strcmp(s, "-P") == 0)
			continue;
		if (strcmp(s, "-L") == 0) {
			*follow = 1;
			continue;
		}
		if (strcmp(s, "-D") == 0 && k + 1 < v->n) {
			k++;
			continue;
		}
		if (strncmp(s, "-O", 2) == 0 && s[2] >= '0' && s[2] <= '9')
			continue;
		break;
	}
	return k;
}

static int
find_first(const struct cmdv *v)
{
	int follow;

	return find_first_how(v, &follow);
}

static int
find_paths(struct ev *ev, struct cmdv *v, int *lister, const struct sh_word
    **path)
{
	char p3[SBX_PATH_MAX], r3[SBX_PATH_MAX];
	int k, npaths = 0;
	const char *s;

	*lister = 1;
	for (k = find_first(v); k < v->n; k++) {
		s = v->w[k].s;
		if (an_lit(&v->w[k]) && (s[0] == '-' || s[0] == '(' || s[0] == '!') &&
		    strcmp(s, "-") != 0)
			break;
		npaths++;
		*path = &v->w[k];
		an_op_read(ev, v, &v->w[k], 0);
		if (an_word_path(ev, &v->w[k], p3, sizeof(p3)) != 1 ||
		    (p3[0] != '/' && p3[0] != '~' && !ev->cwd_known) ||
		    path_resolve_c(ev->pc, ev->cwd, ev->call->home, p3, r3,
		    sizeof(r3)) < 0 || ev->p->folder == NULL ||
		    !path_within(r3, ev->p->folder))
			*lister = 0;
	}
	if (npaths == 0 && !an_cwd_in_project(ev))
		*lister = 0;
	return npaths;
}

/* find -delete: the trees below the search paths. */
static void
find_delete(struct ev *ev, struct cmdv *v, int npaths, int safe)
{
	char p2[SBX_PATH_MAX];
	int j;

	ev_factor(ev, F_DESTRUCTIVE);
	if (npaths == 0) {
		find_tree(ev, v, ".", "find -delete", safe);
	} else {
		for (j = find_first(v); j < v->n; j++) {
			if (v->w[j].s[0] == '-' && an_lit(&v->w[j]))
				break;
			if (an_word_path(ev, &v->w[j], p2, sizeof(p2)) == 1)
				find_tree(ev, v, p2, "find -delete", safe);
			else
				an_write_word(ev, v, &v->w[j]);
		}
	}
	an_check_catastrophic_tree(ev, v, "find -delete");
}

/* {} stands for a file found below the search path. */
static void
find_exec_names(struct cmdv *v, struct cmdv *in, int npaths,
    const struct sh_word *path)
{
	char buf[SBX_PATH_MAX];
	char *d;
	int j;

	for (j = 1; j < in->n; j++) {
		if (strstr(in->w[j].s, "{}") == NULL)
			continue;
		/* {} glued into a word (sh -c 'rm {}') puts a file name into
		 * code: unknown */
		in->w[j].flags = SH_W_VAR;
		if (npaths != 1 || an_wtext(path) == NULL ||
		    strcmp(in->w[j].s, "{}") != 0)
			continue;
		/* a file below the path, named as -name says */
		snprintf(buf, sizeof(buf), "%s/%s", path->s, find_name(v));
		d = sh_strdup(v->sp, buf, strlen(buf));
		if (d != NULL) {
			in->w[j].s = d;
			in->w[j].len = strlen(d);
			in->w[j].flags = SH_W_LITERAL;
		}
	}
}

/*
 * The names a find's expression picks, when it is a plain conjunction:
 * its -name/-iname patterns (a file must match them all; one is kept
 * here, which reads more). A primary of find_primaries[] that unnames
 * (-o, !, -not, ",", -lname ...) outside the words of -exec gives 0, as
 * does an expression that does not narrow the names this way.
 */
static int
find_names_filter(const struct cmdv *v, int from, struct tree_names *tn)
{
	const struct find_primary *fp;
	int k, exec = 0;

	memset(tn, 0, sizeof(*tn));
	for (k = from; k < v->n; k++) {
		const char *s = v->w[k].s;

		if (exec) {     /* the words of -exec CMD ... ; */
			exec = strcmp(s, ";") != 0 && strcmp(s, "+") != 0;
			continue;
		}
		if (!an_lit(&v->w[k]))
			return 0;
		fp = find_primary(s);
		if (fp != NULL && (fp->fl & FP_UNNAMES))
			return 0;
		if (fp != NULL && (fp->act == FA_EXEC || fp->act == FA_ASK)) {
			exec = 1;
			continue;
		}
		if ((strcmp(s, "-name") == 0 || strcmp(s, "-iname") == 0) &&
		    k + 1 < v->n) {
			/* -name *.c unquoted: bash may expand it to a name
			 * that *.c matches, narrower still */
			if (v->w[k + 1].flags & (SH_W_VAR | SH_W_SUBST |
			    SH_W_BRACE))
				return 0;
			if (tn->n == 0) {
				tn->v[tn->n++] = v->w[k + 1].s;
				tn->fold = s[1] == 'i';
			}
			k++;
		}
	}
	return tn->n > 0;
}

/* Programs run on found files that read their names or metadata only,
 * or change them (judged as writes below), not their content. */
static int
exec_reads_content(const struct cmdv *in)
{
	static const char *const no_content[] = {
		"ls", "stat", "du", "file", "realpath", "readlink", "tree",
		"basename", "dirname", "rm", "rmdir", "unlink", "touch", NULL,
	};
	const struct prog *xp;
	int k;

	if (in->n <= 0 || !an_lit(&in->w[0]))
		return 1;
	for (k = 0; no_content[k] != NULL; k++)
		if (strcmp(in->w[0].s, no_content[k]) == 0)
			return 0;
	xp = an_prog_find(in->w[0].s);
	return xp == NULL || (xp->cls != C_NOFILE && xp->cls != C_MODE);
}

/* A command run on every file found reads the whole tree (the files its
 * -name patterns pick); a writer run on found files changes it (like
 * -delete, escalate if that reaches a protected file). */
static void
find_exec_trees(struct ev *ev, struct cmdv *v, const struct cmdv *in,
    int npaths, int safe)
{
	const struct prog *xp;
	char p2[SBX_PATH_MAX];
	int j;

	int follow, first = find_first_how(v, &follow);
	/* find -L (or -follow) follows links */
	int how = follow || an_has_word(v, 1, "-follow") ? TREE_FOLLOW : 0;
	struct tree_names tn;
	const struct tree_names *names = find_names_filter(v, first + npaths,
	    &tn) ? &tn : NULL;

	/* names and metadata only (ls, stat, echo): the places below, as
	 * for a lister, not the files' content */
	if (!exec_reads_content(in))
		how |= TREE_NAMES;
	if (npaths == 0)
		trig_read_tree_names(ev, ".", "find -exec", how, names);
	for (j = first; j < first + npaths && j < v->n; j++)
		if (an_word_path(ev, &v->w[j], p2, sizeof(p2)) == 1)
			trig_read_tree_names(ev, p2, "find -exec", how, names);
	if (in->n <= 0 || !an_lit(&in->w[0]))
		return;
	xp = an_prog_find(in->w[0].s);
	if (xp != NULL && (xp->cls == C_READ || xp->cls == C_GREP ||
	    xp->cls == C_NOFILE))
		return;
	if (npaths == 0)
		find_tree(ev, v, ".", "find -exec", safe);
	for (j = first; j < first + npaths && j < v->n; j++)
		if (an_word_path(ev, &v->w[j], p2, sizeof(p2)) == 1)
			find_tree(ev, v, p2, "find -exec", safe);
}

/* find -exec CMD ... ; at word k: CMD is judged. Returns the index of
 * its end, or -1 when judged already (escalated). */
static int
find_exec(struct ev *ev, struct cmdv *v, int k, int npaths,
    const struct sh_word *path, int safe)
{
	const char *s = v->w[k].s;
	struct cmdv in = *v;
	int end, j;

	for (end = k + 1; end < v->n; end++)
		if (an_lit(&v->w[end]) && (strcmp(v->w[end].s, ";") == 0 ||
		    strcmp(v->w[end].s, "+") == 0))
			break;
	if (end == k + 1) {
		ev_note(ev, POLICY_ESCALATE, "shell", "builtin: find",
		    "find %s without a command", s);
		return -1;
	}
	in.w = malloc((size_t)(end - k - 1) * sizeof(*in.w));
	if (in.w == NULL) {
		ev_note(ev, POLICY_DENY, "shell", "builtin: memory",
		    "out of memory");
		return -1;
	}
	in.n = end - k - 1;
	in.extra = 0;
	for (j = 0; j < in.n; j++)
		in.w[j] = v->w[k + 1 + j];
	find_exec_names(v, &in, npaths, path);
	find_exec_trees(ev, v, &in, npaths, safe);
	ev->in_child++;
	an_eval_argv(ev, &in);
	ev->in_child--;
	free(in.w);
	return end;
}

void
an_cls_find(struct ev *ev, struct cmdv *v)
{
	int k, npaths, safe = an_find_names_safe(v), lister;
	const struct sh_word *path = NULL;
	const char *s;

	npaths = find_paths(ev, v, &lister, &path);
	/* find ~ prints the names of secrets: what reads them reads those */
	for (k = find_first(v); k < find_first(v) + npaths && k < v->n; k++) {
		char p4[SBX_PATH_MAX];

		if (an_word_path(ev, &v->w[k], p4, sizeof(p4)) >= 0 &&
		    trig_is_secret(ev, p4, 1))
			an_names_secret(ev, v);
	}
	if (npaths == 0 && ev->cwd_known && trig_is_secret(ev, ".", 1))
		an_names_secret(ev, v);
	/* find | xargs cat, cat $(find .): the names it prints are read;
	 * a tree holding denyRead files (of the names -name picks) names
	 * secrets, as find -exec cat reads them */
	if (an_output_used(v)) {
		struct tree_names tn;
		const struct tree_names *names;
		int follow, first = find_first_how(v, &follow), j, sec = 0;

		names = find_names_filter(v, first + npaths, &tn) ? &tn : NULL;
		follow = follow || an_has_word(v, 1, "-follow");
		for (j = first; j < first + npaths && j < v->n && !sec; j++) {
			char p5[SBX_PATH_MAX];

			sec = an_word_path(ev, &v->w[j], p5, sizeof(p5)) == 1 &&
			    trig_tree_secret(ev, p5, follow ? TREE_FOLLOW : 0,
			    names);
		}
		if (npaths == 0)
			sec = trig_tree_secret(ev, ".", follow ? TREE_FOLLOW : 0,
			    names);
		if (sec)
			an_names_secret(ev, v);
	}
	/* find | xargs CMD: the names are files in the project (read), and
	 * with safe -name patterns, never sbx's (written) */
	if (lister && v->c->pipeline >= 0) {
		ev->list_pipeline = v->c->pipeline;
		ev->list_parse = v->pid;
		ev->list_safe = safe;
	}
	for (; k < v->n; k++) {
		const struct find_primary *fp;

		s = v->w[k].s;
		if (!an_lit(&v->w[k]) || (fp = find_primary(s)) == NULL)
			continue;
		switch (fp->act) {
		case FA_NONE:
			break;
		case FA_DELETE:
			find_delete(ev, v, npaths, safe);
			break;
		case FA_WRITE:
			if (k + 1 < v->n)
				an_write_word(ev, v, &v->w[k + 1]);
			k++;
			break;
		case FA_NAMES:
			if (k + 1 < v->n)
				an_op_read(ev, v, &v->w[k + 1], 0);
			an_names_from(ev, "find", s);
			k++;
			break;
		case FA_ASK:
			ev_note(ev, POLICY_ESCALATE, "shell", "builtin: find",
			    "find %s asks on a terminal the agent does not have", s);
			return;
		case FA_EXEC:
			if ((k = find_exec(ev, v, k, npaths, path, safe)) < 0)
				return;
			break;
		}
	}
}

/* Scans a sed script; returns NULL when harmless, else why not. */
static const char *
sed_script_danger(const char *s)
{
	const char *p = s;
	char d;

	while (*p != '\0') {
		while (*p == ' ' || *p == '\t' || *p == '\n' || *p == ';' ||
		    *p == '{' || *p == '}' || *p == '!')
			p++;
		if (*p == '\0')
			break;
		/* addresses */
		for (;;) {
			if (*p >= '0' && *p <= '9') {
				while ((*p >= '0' && *p <= '9') || *p == '~')
					p++;
			} else if (*p == '$') {
				p++;
			} else if (*p == '/' || *p == '\\') {
				d = *p == '\\' ? p[1] : '/';
				p += *p == '\\' ? 2 : 1;
				while (*p != '\0' && *p != d) {
					if (*p == '\\' && p[1] != '\0')
						p++;
					p++;
				}
				if (*p == '\0')
					return "unterminated address";
				p++;
				while (*p == 'I' || *p == 'M')
					p++;
			} else {
				break;
			}
			while (*p == ' ')
				p++;
			if (*p == ',' || *p == '+' || *p == '~') {
				p++;
				continue;
			}
			break;
		}
		while (*p == ' ' || *p == '!')
			p++;
		switch (*p) {
		case '\0':
			return NULL;
		case 's':
		case 'y':
			{
				char cmd = *p;
				int part;

				d = p[1];
				if (d == '\0' || d == '\n' || d == '\\')
					return "malformed s command";
				p += 2;
				for (part = 0; part < 2; part++) {
					while (*p != '\0' && *p != d) {
						if (*p == '\\' && p[1] != '\0')
							p++;
						p++;
					}
					if (*p == '\0')
						return "unterminated s command";
					p++;
				}
				if (cmd == 's')
					while (*p != '\0' && *p != ';' && *p != '\n' &&
					    *p != '}' && *p != ' ') {
						if (*p == 'w' || *p == 'W')
							return "the s///w flag writes a file";
						if (*p == 'e')
							return "the s///e flag runs a command";
						p++;
					}
			}
			break;
		case 'w': case 'W':
			return "the w command writes a file";
		case 'e':
			return "the e command runs a command";
		case 'r': case 'R':
			return "the r command reads a file";
		case '#':
			while (*p != '\0' && *p != '\n')
				p++;
			break;
		case 'a': case 'i': case 'c':
		case ':': case 'b': case 't': case 'T':
			/* text or a label. Stopping at ";" too may read text as
			 * commands: that can only escalate, never hide a "w". */
			while (*p != '\0' && *p != '\n' && *p != ';')
				p++;
			break;
		case 'q': case 'Q': case 'l': case 'L':
			p++;
			while (*p >= '0' && *p <= '9')
				p++;
			break;
		case 'p': case 'P': case 'd': case 'D': case 'n': case 'N':
		case 'g': case 'G': case 'h': case 'H': case 'x': case '=':
		case 'z': case 'F':
			p++;
			break;
		default:
			return "a sed command the policy does not understand";
		}
	}
	return NULL;
}

/* What sed's options do (the tags of o_sed). */
enum { SED_OK = 1, SED_INPLACE, SED_SCRIPT, SED_FILE };

/*
 * sed's options (GNU, BSD): -i[SUFFIX] edits in place, -e SCRIPT is a
 * script, -f FILE a script the policy does not read. Any long option not
 * here escalates.
 */
static const struct optdef o_sed[] = {
	{ NULL, "-i", OK_OPTVAL, SED_INPLACE },
	{ NULL, "--in-place", OK_OPTVAL, SED_INPLACE },
	{ NULL, "-e", OK_VAL, SED_SCRIPT },
	{ NULL, "--expression", OK_VAL, SED_SCRIPT },
	{ NULL, "-f", OK_VAL, SED_FILE },
	{ NULL, "--file", OK_VAL, SED_FILE },
	{ NULL, "-l", OK_VAL, SED_OK },
	{ NULL, "--line-length", OK_VAL, SED_OK },
	{ NULL, "--quiet", OK_FLAG, SED_OK },
	{ NULL, "--silent", OK_FLAG, SED_OK },
	{ NULL, "--regexp-extended", OK_FLAG, SED_OK },
	{ NULL, "--separate", OK_FLAG, SED_OK },
	{ NULL, "--unbuffered", OK_FLAG, SED_OK },
	{ NULL, "--null-data", OK_FLAG, SED_OK },
	{ NULL, "--zero-terminated", OK_FLAG, SED_OK },
	{ NULL, "--posix", OK_FLAG, SED_OK },
	{ NULL, "--debug", OK_FLAG, SED_OK },
	{ NULL, "--sandbox", OK_FLAG, SED_OK },
	{ NULL, "--follow-symlinks", OK_FLAG, SED_OK },
	{ NULL, "--binary", OK_FLAG, SED_OK },
	{ NULL, "--help", OK_FLAG, SED_OK },
	{ NULL, "--version", OK_FLAG, SED_OK },
	{ NULL, NULL, OK_VAL, 0 },
};
static const struct optset sed_opts = { 1, 0, o_sed };

/* One option of sed: *inplace, *script_seen; -1 when it escalated. */
static int
sed_option(struct ev *ev, struct cmdv *v, const struct an_opt *o,
    int *inplace, int *script_seen)
{
	int tag = o->d != NULL ? o->d->tag : 0;
	const char *why;

	if (!an_lit(&v->w[o->k])) {
		ev_factor(ev, F_UNKNOWN);
		ev_note(ev, POLICY_ESCALATE, "shell", "builtin: sed",
		    "sed with an option known only at run time");
		return -1;
	}
	if (tag == SED_FILE || o->ambiguous ||
	    (tag == 0 && o->name[1] == '-')) {
		ev_factor(ev, F_UNKNOWN);
		ev_note(ev, POLICY_ESCALATE, "shell", "builtin: sed",
		    tag == SED_FILE ? "sed -f runs a script file that is not "
		    "analysed" : "sed %s: an option the policy does not know",
		    v->w[o->k].s);
		return -1;
	}
	if (tag == SED_INPLACE)
		*inplace = 1;
	if (tag != SED_SCRIPT || o->val == NULL)
		return 0;
	*script_seen = 1;
	if ((why = sed_script_danger(an_lit(o->val) ? o->val->s :
	    "w unknown")) != NULL) {
		ev_note(ev, POLICY_ESCALATE, "shell", "builtin: sed",
		    "sed script: %s", why);
		return -1;
	}
	return 0;
}

void
an_cls_sed(struct ev *ev, struct cmdv *v)
{
	int r, inplace = 0, script_seen = 0, first_pass;
	struct an_walk it;
	struct an_opt o;
	const char *why;

	/* two passes: options may follow the files (sed s/a/b/ f -i) */
	for (first_pass = 1; first_pass >= 0; first_pass--) {
		script_seen = 0;
		an_walk_init(&it, 1, NULL, AN_W_NONE);
		an_walk_table(&it, &sed_opts, NULL);
		while ((r = an_opt_next(v, &it, &o)) >= 0) {
			struct sh_word *w = &v->w[o.k];

			if (r == 1) {
				if (sed_option(ev, v, &o, &inplace,
				    &script_seen) < 0)
					return;
				continue;
			}
			if (an_lit(w) && w->len == 0 && o.k > 1 &&
			    an_lit(&v->w[o.k - 1]) &&
			    strcmp(v->w[o.k - 1].s, "-i") == 0)
				continue;       /* BSD sed -i '': the suffix */
			if (!script_seen) {
				script_seen = 1;
				if (!an_lit(w)) {
					ev_factor(ev, F_UNKNOWN);
					ev_note(ev, POLICY_ESCALATE, "shell", "builtin: sed",
					    "sed script is only known at run time");
					return;
				}
				if ((why = sed_script_danger(w->s)) != NULL) {
					ev_note(ev, POLICY_ESCALATE, "shell", "builtin: sed",
					    "sed script: %s", why);
					return;
				}
				continue;
			}
			if (first_pass)
				continue;       /* files: once inplace is known */
			if (inplace)
				an_write_word(ev, v, w);
			else
				an_op_read(ev, v, w, 0);
		}
	}
	if (inplace && v->extra)
		trig_write(ev, NULL, "sed -i");
}

/*
 * At a "/" in an awk program (prev: the last significant character
 * before it): 1 when it starts a regex, 0 when it divides, -1 when that
 * cannot be told (after ++ or --).
 */
static int
awk_slash_regex(const char *s, const char *prev)
{
	int div = prev != NULL && (*prev == ')' || *prev == ']' ||
	    *prev == '"' || *prev == '$' || *prev == '_' ||
	    (*prev >= '0' && *prev <= '9') ||
	    (*prev >= 'a' && *prev <= 'z') ||
	    (*prev >= 'A' && *prev <= 'Z'));

	if (prev != NULL && (*prev == '+' || *prev == '-') &&
	    prev > s && prev[-1] == *prev)
		return -1;
	if (div && prev != NULL && ((*prev >= 'a' && *prev <= 'z') ||
	    *prev == '_')) {
		/* after print, printf, return, in...: a regex */
		const char *b = prev;

		while (b > s && (b[-1] == '_' || (b[-1] >= 'a' &&
		    b[-1] <= 'z') || (b[-1] >= 'A' && b[-1] <= 'Z') ||
		    (b[-1] >= '0' && b[-1] <= '9')))
			b--;
		if ((prev - b == 4 && strncmp(b, "print", 5) == 0) ||
		    (prev - b == 5 && strncmp(b, "printf", 6) == 0) ||
		    (prev - b == 5 && strncmp(b, "return", 6) == 0) ||
		    (prev - b == 1 && strncmp(b, "in", 2) == 0) ||
		    (prev - b == 3 && strncmp(b, "case", 4) == 0) ||
		    (prev - b == 1 && strncmp(b, "do", 2) == 0) ||
		    (prev - b == 3 && strncmp(b, "else", 4) == 0))
			div = 0;
	}
	return !div;
}

/* print > "FILE" at q (the ">"): a write. Returns the last character
 * used, or NULL when the file is named at run time. */
static const char *
awk_print_file(struct ev *ev, const char *q)
{
	const char *t = q + 1 + (q[1] == '>');
	char file[SBX_PATH_MAX];
	size_t n;

	while (*t == ' ' || *t == '\t')
		t++;
	if (*t != '"')
		return NULL;
	n = strcspn(t + 1, "\"");
	if (t[1 + n] != '"' || n == 0 || n >= sizeof(file))
		return NULL;
	memcpy(file, t + 1, n);
	file[n] = '\0';
	trig_write(ev, file, "awk");
	return t + 1 + n;
}

/*
 * Scans an awk program for what reaches outside it. Returns NULL when
 * harmless, else why not. Comparisons (NR > 1, $1 > 10, a || b) are not
 * redirections: ">" counts only inside a print or printf statement and
 * outside parentheses; "print > \"FILE\"" is a write to FILE.
 */
static const char *
awk_program_danger(struct ev *ev, const char *s)
{
	static const char *const words[] = {
		"system", "getline", "@load", "@include", "@namespace", "ENVIRON",
		"ARGV", "ARGC", "PROCINFO", "close", "fflush", NULL,
	};
	const char *q, *prev = NULL;   /* last significant character */
	int in_print = 0, paren = 0, k;

	/* Words that reach outside, wherever they appear: also inside what
	 * looks like a string or a regex, so that a quote hidden in a regex
	 * (/"/) cannot hide them. */
	for (k = 0; words[k] != NULL; k++)
		if (strstr(s, words[k]) != NULL)
			return k == 0 ? "system() runs commands" :
			    k == 1 ? "getline reads commands or files" :
			    k <= 4 ? "@load/@include load code" :
			    k == 5 ? "ENVIRON reads the environment" :
			    k <= 7 ? "ARGV names files to read at run time" :
			    "it uses PROCINFO, close or fflush on commands";
	for (q = s; *q != '\0'; q++) {
		if (*q == ' ' || *q == '\t')
			continue;
		if (*q == '\\' && q[1] != '\0') {
			q++;
			prev = q;
			continue;
		}
		if (*q == '#') {
			while (q[1] != '\0' && q[1] != '\n')
				q++;
			continue;
		}
		if (*q == '"') {
			for (q++; *q != '\0' && *q != '"'; q++)
				if (*q == '\\' && q[1] != '\0')
					q++;
			if (*q == '\0')
				return "unterminated string";
			prev = q;
			continue;
		}
		/* "/" starts a regex unless an operand comes before it */
		if (*q == '/') {
			int re = awk_slash_regex(s, prev);

			if (re < 0)
				return "a \"/\" after ++ or -- is ambiguous";
			if (re) {
				for (q++; *q != '\0' && *q != '/'; q++) {
					if (*q == '\n')
						return "unterminated regular expression";
					if (*q == '\\' && q[1] != '\0')
						q++;
				}
				if (*q == '\0')
					return "unterminated regular expression";
				prev = q;
				continue;
			}
		}
		if (*q == '|') {
			if (q[1] == '|') {
				q++;
				prev = q;
				continue;
			}
			return "a pipe runs a command";
		}
		if ((strncmp(q, "print", 5) == 0) && (q == s || !(q[-1] == '_' ||
		    (q[-1] >= 'a' && q[-1] <= 'z') || (q[-1] >= 'A' && q[-1] <= 'Z')))) {
			in_print = 1;
			paren = 0;
			q += 4;
			prev = q;
			continue;
		}
		prev = q;
		if (*q == ';' || *q == '}' || *q == '\n' || *q == '{') {
			in_print = 0;
			continue;
		}
		if (*q == '(')
			paren++;
		else if (*q == ')' && paren > 0)
			paren--;
		if (*q == '>' && in_print && paren == 0) {
			if ((q = awk_print_file(ev, q)) == NULL)
				return "output goes to a file named at run time";
			prev = q;
		}
	}
	return NULL;
}

/* One awk program text (the operand, or -e/--source): judged. */
static int
awk_text(struct ev *ev, const struct sh_word *w)
{
	const char *why;

	if (!an_lit(w)) {
		ev_factor(ev, F_UNKNOWN);
		ev_note(ev, POLICY_ESCALATE, "shell", "builtin: awk",
		    "awk program is only known at run time");
		return -1;
	}
	if ((why = awk_program_danger(ev, w->s)) != NULL) {
		ev_factor(ev, F_UNKNOWN);
		ev_note(ev, POLICY_ESCALATE, "shell", "builtin: awk",
		    "awk program: %s", why);
		return -1;
	}
	return 0;
}

/* What awk's options do (the tags of o_awk). */
enum { AWK_OK = 1, AWK_RUNS, AWK_PROG, AWK_W };

/*
 * awk's options (gawk, mawk, busybox): program files, extensions and
 * output files the policy does not follow run or write; -e/--source is
 * program text, judged; -W OPTION is read from its own list. Long
 * options that are harmless count only in full: an abbreviation, or
 * any long option not here, escalates.
 */
static const struct optdef o_awk[] = {
	{ NULL, "-f", OK_VAL, AWK_RUNS },
	{ NULL, "-i", OK_VAL, AWK_RUNS },
	{ NULL, "-E", OK_VAL, AWK_RUNS },
	{ NULL, "-l", OK_VAL, AWK_RUNS },
	{ NULL, "-p", OK_OPTVAL, AWK_RUNS },
	{ NULL, "-d", OK_OPTVAL, AWK_RUNS },
	{ NULL, "-o", OK_OPTVAL, AWK_RUNS },
	{ NULL, "-D", OK_OPTVAL, AWK_RUNS },
	{ NULL, "--file", OK_VAL, AWK_RUNS },
	{ NULL, "--include", OK_VAL, AWK_RUNS },
	{ NULL, "--exec", OK_VAL, AWK_RUNS },
	{ NULL, "--load", OK_VAL, AWK_RUNS },
	{ NULL, "--profile", OK_OPTVAL, AWK_RUNS },
	{ NULL, "--pretty-print", OK_OPTVAL, AWK_RUNS },
	{ NULL, "--dump-variables", OK_OPTVAL, AWK_RUNS },
	{ NULL, "--debug", OK_OPTVAL, AWK_RUNS },
	{ NULL, "-e", OK_VAL, AWK_PROG },
	{ NULL, "--source", OK_VAL, AWK_PROG },
	{ NULL, "-W", OK_VAL, AWK_W },
	{ NULL, "-F", OK_VAL, AWK_OK },
	{ NULL, "-v", OK_VAL, AWK_OK },
	{ NULL, "--field-separator", OK_VAL, AWK_OK },
	{ NULL, "--assign", OK_VAL, AWK_OK },
	{ NULL, "--version", OK_OPTVAL, AWK_OK },
	{ NULL, "--help", OK_OPTVAL, AWK_OK },
	{ NULL, "--usage", OK_OPTVAL, AWK_OK },
	{ NULL, "--posix", OK_OPTVAL, AWK_OK },
	{ NULL, "--traditional", OK_OPTVAL, AWK_OK },
	{ NULL, "--compat", OK_OPTVAL, AWK_OK },
	{ NULL, "--sandbox", OK_OPTVAL, AWK_OK },
	{ NULL, "--lint", OK_OPTVAL, AWK_OK },
	{ NULL, "--characters-as-bytes", OK_OPTVAL, AWK_OK },
	{ NULL, "--re-interval", OK_OPTVAL, AWK_OK },
	{ NULL, "--use-lc-numeric", OK_OPTVAL, AWK_OK },
	{ NULL, "--non-decimal-data", OK_OPTVAL, AWK_OK },
	{ NULL, "--bignum", OK_OPTVAL, AWK_OK },
	{ NULL, "--no-optimize", OK_OPTVAL, AWK_OK },
	{ NULL, "--optimize", OK_OPTVAL, AWK_OK },
	{ NULL, NULL, OK_VAL, 0 },
};
static const struct optset awk_opts = { 1, 0, o_awk };

/* -W OPTION: harmless only when the OPTION is on this list (mawk -W exec
 * FILE runs it). */
static int
awk_w_ok(const struct sh_word *val)
{
	static const char *const w_ok[] = {
		"version", "v", "help", "h", "usage", "posix", "traditional",
		"compat", "sandbox", "lint", NULL,
	};
	size_t n;
	int j;

	if (val == NULL || !an_lit(val))
		return 0;
	for (j = 0; w_ok[j] != NULL; j++) {
		n = strlen(w_ok[j]);
		if (strncmp(val->s, w_ok[j], n) == 0 &&
		    (val->s[n] == '\0' || val->s[n] == '='))
			return 1;
	}
	return 0;
}

/* Escalates for an option of awk that is not harmless; returns -1 then. */
static int
awk_option(struct ev *ev, struct cmdv *v, const struct prog *pr,
    const struct an_opt *o)
{
	const char *s = o->name, *word = v->w[o->k].s;
	int tag = o->d != NULL ? o->d->tag : 0;
	int sep = tag == AWK_W && o->val != NULL && strcmp(word, "-W") == 0;

	if (!an_lit(&v->w[o->k])) {
		ev_factor(ev, F_UNKNOWN);
		ev_note(ev, POLICY_ESCALATE, "shell", "builtin: awk",
		    "%s with an option known only at run time", pr->name);
		return -1;
	}
	switch (tag) {
	case AWK_RUNS:
		ev_factor(ev, F_UNKNOWN | F_CODE);
		ev_note(ev, POLICY_ESCALATE, "shell", "builtin: awk",
		    "%s %s runs a program file or writes a file the policy "
		    "does not follow", pr->name, word);
		return -1;
	case AWK_PROG:
		return o->val != NULL ? awk_text(ev, o->val) : 0;
	case AWK_W:
		if (awk_w_ok(o->val))
			return 0;
		break;
	case AWK_OK:
		if (an_opt_exact(o))
			return 0;
		break;
	default:
		if (s[1] != '-')
			return 0;       /* another letter: a flag */
		break;
	}
	ev_factor(ev, F_CODE);
	ev_note(ev, POLICY_ESCALATE, "shell", "builtin: awk",
	    "%s %s%s%s: an option the policy does not know to be "
	    "harmless (-W exec runs a file)", pr->name, word, sep ? " " : "",
	    sep ? o->val->s : "");
	return -1;
}

void
an_cls_awk(struct ev *ev, struct cmdv *v, const struct prog *pr)
{
	struct an_walk it;
	struct an_opt o;
	struct sh_word *w;
	int r, prog_seen = 0;

	an_walk_init(&it, 1, NULL, AN_W_NONE);
	an_walk_table(&it, &awk_opts, NULL);
	while ((r = an_opt_next(v, &it, &o)) >= 0) {
		w = &v->w[o.k];
		if (r == 1) {
			if (o.d != NULL && o.d->tag == AWK_PROG)
				prog_seen = 1;
			if (awk_option(ev, v, pr, &o) < 0)
				return;
			continue;
		}
		if (an_lit(w) && w->s[0] == '-' && w->s[1] != '\0') {
			/* after "--": a program or a file; awks differ */
			ev_note(ev, POLICY_ESCALATE, "shell", "builtin: awk",
			    "%s operand %s looks like an option", pr->name, w->s);
			return;
		}
		if (!prog_seen) {
			prog_seen = 1;
			if (awk_text(ev, w) < 0)
				return;
			continue;
		}
		if (!(w->flags & SH_W_ASSIGN) && !(an_lit(w) &&
		    strchr(w->s, '=') != NULL))
			an_op_read(ev, v, w, 0);
	}
}
