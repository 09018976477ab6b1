/*
 * git.c - git as data: its global options, its subcommands (what each
 * does, the options of each and what they do, the words that name an
 * action: "stash drop", "remote add"), judged by one walk.
 *
 * Rules:
 * - Read-only subcommands pass; what they show of a path is a read.
 * - Local writes are writes to the repository directory; forms that
 *   discard work (reset --hard, checkout -- paths, clean, branch -D)
 *   escalate as destructive; push always escalates.
 * - Options and subcommands that run programs (-c, --upload-pack, apply,
 *   plumbing) escalate, and so does any subcommand the table does not know
 *   (aliases can run commands).
 * - Options are read as git reads them: "-o FILE", "-oFILE", "-xo FILE"
 *   (a cluster), "--output FILE", "--output=FILE", and an abbreviation
 *   ("--outp=FILE"). "--" ends them: the words after it are paths, and a
 *   path that reads like an option is for a human.
 * - An option the tables do not know takes no value, so a value it would
 *   take is read as an operand: stricter, never looser. Options that make
 *   a subcommand only show (GX_MODE: clean -n, config --get) count only
 *   as the exact word.
 */
#include "policy/analyse.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* What an option does. */
enum gx {
	GX_NONE,        /* nothing itself: sets its marks (any spelling) */
	GX_MODE,        /* sets its marks as the exact word only */
	GX_WRITE,       /* its value is a file written */
	GX_WTREE,       /* its value is a directory written */
	GX_READ,        /* its value is a file read */
	GX_CODE,        /* runs a program or code, or plants hooks */
	GX_DESTROY,     /* discards work */
	GX_UNTRACKED,   /* stash -u: removes untracked files, sbx's among them */
	GX_REPO,        /* the repository is elsewhere (--git-dir) */
	GX_DIR,         /* -C DIR: git works in DIR */
	GX_DONE,        /* --version, --help: nothing runs */
};

/* Whether an option takes a value. */
enum gv {
	GV_NO,          /* none */
	GV_NEXT,        /* attached, after "=", or the next word */
	GV_ATT,         /* attached or after "=" only (--exec-path[=DIR]) */
};

/* Marks, for the rules of one subcommand (struct git_ctx.marks). */
#define GM_SHOW         0x001   /* only shows (clean -n, apply --check) */
#define GM_UNSHOW       0x002   /* ... but not with this (apply --apply) */
#define GM_DEL          0x004   /* branch -d */
#define GM_FORCE        0x008   /* branch -f */
#define GM_CHANGE       0x010   /* branch -m, -u ... */
#define GM_LIST         0x020   /* branch --list, tag -l */
#define GM_PATHS        0x040   /* checkout -f, -p, --ours: of paths */
#define GM_STAGED       0x080   /* restore --staged */
#define GM_WORKTREE     0x100   /* restore --worktree */
#define GM_WRITES       0x200   /* fsck --lost-found: a read that writes */
#define GM_GLOBAL       0x400   /* config --global */
#define GM_SYSTEM       0x800   /* config --system */
#define GM_SET          0x1000  /* config --unset, --edit */

struct gopt {
	const char *opt;        /* "-o", "--output"; NULL ends */
	unsigned char val;      /* enum gv */
	unsigned char fx;       /* enum gx */
	unsigned short mark;    /* GM_* */
};

/* ---- option tables -------------------------------------------------------- */

#define F(o, fx, m)     { o, GV_NO, fx, m }     /* a flag */
#define V(o, fx, m)     { o, GV_NEXT, fx, m }   /* takes a value */
#define AT(o, fx, m)    { o, GV_ATT, fx, m }    /* an attached value */
#define END             { NULL, 0, 0, 0 }

/* Before the subcommand. git reads these as exact words only: an
 * abbreviation that matches one here is judged like it (stricter). */
static const struct gopt o_global[] = {
	V("-C", GX_DIR, 0), V("-c", GX_CODE, 0),
	V("--config-env", GX_CODE, 0), AT("--exec-path", GX_CODE, 0),
	V("--git-dir", GX_REPO, 0), V("--work-tree", GX_REPO, 0),
	V("--namespace", GX_NONE, 0), V("--super-prefix", GX_NONE, 0),
	V("--attr-source", GX_NONE, 0), F("--version", GX_DONE, 0),
	F("--help", GX_DONE, 0), END,
};

/* Of every subcommand that shows (diff options, pagers). */
static const struct gopt o_read[] = {
	V("--output", GX_WRITE, 0), V("-o", GX_WRITE, 0),
	F("--ext-diff", GX_CODE, 0), AT("-O", GX_CODE, 0),
	AT("--open-files-in-pager", GX_CODE, 0), END,
};

/* Of every subcommand that reaches a remote. */
static const struct gopt o_net[] = {
	V("--upload-pack", GX_CODE, 0), V("--receive-pack", GX_CODE, 0),
	V("--exec", GX_CODE, 0), F("-u", GX_CODE, 0), V("-c", GX_CODE, 0),
	V("--config", GX_CODE, 0), V("--template", GX_CODE, 0),
	V("--separate-git-dir", GX_CODE, 0), V("--depth", GX_NONE, 0),
	V("--branch", GX_NONE, 0), V("-b", GX_NONE, 0),
	V("--origin", GX_NONE, 0), END,
};

static const struct gopt o_push[] = {
	F("--force", GX_DESTROY, 0), AT("--force-with-lease", GX_DESTROY, 0),
	F("--force-if-includes", GX_DESTROY, 0), F("-f", GX_DESTROY, 0),
	F("--delete", GX_DESTROY, 0), F("-d", GX_DESTROY, 0),
	F("--mirror", GX_DESTROY, 0), F("--prune", GX_DESTROY, 0), END,
};

static const struct gopt o_grep[] = {
	F("-o", GX_NONE, 0),            /* --only-matching */
	V("-f", GX_READ, 0), END,
};

static const struct gopt o_blame[] = {
	V("--contents", GX_READ, 0), END,
};

static const struct gopt o_fsck[] = {
	F("--lost-found", GX_NONE, GM_WRITES), END,
};

static const struct gopt o_commit[] = {
	V("--file", GX_READ, 0), V("-F", GX_READ, 0),
	V("--template", GX_READ, 0), V("-t", GX_READ, 0), END,
};

/* merge, notes, tag: -F FILE is the message */
static const struct gopt o_msgfile[] = {
	V("--file", GX_READ, 0), V("-F", GX_READ, 0), END,
};

static const struct gopt o_rebase[] = {
	V("--exec", GX_CODE, 0), V("-x", GX_CODE, 0), END,
};

static const struct gopt o_format_patch[] = {
	V("--output-directory", GX_WTREE, 0), V("-o", GX_WTREE, 0), END,
};

static const struct gopt o_init[] = {
	V("--template", GX_CODE, 0), V("--separate-git-dir", GX_CODE, 0),
	V("--initial-branch", GX_NONE, 0), V("-b", GX_NONE, 0),
	V("--object-format", GX_NONE, 0), V("--ref-format", GX_NONE, 0),
	AT("--shared", GX_NONE, 0), END,
};

static const struct gopt o_config[] = {
	F("--get", GX_MODE, GM_SHOW), F("--get-all", GX_MODE, GM_SHOW),
	F("--get-regexp", GX_MODE, GM_SHOW),
	F("--get-color", GX_MODE, GM_SHOW),
	F("--get-urlmatch", GX_MODE, GM_SHOW), F("--list", GX_MODE, GM_SHOW),
	F("-l", GX_MODE, GM_SHOW), F("--unset", GX_NONE, GM_SET),
	F("--unset-all", GX_NONE, GM_SET), F("--edit", GX_NONE, GM_SET),
	F("-e", GX_NONE, GM_SET), F("--global", GX_NONE, GM_GLOBAL),
	F("--system", GX_NONE, GM_SYSTEM), V("--file", GX_READ, 0),
	V("-f", GX_READ, 0), END,
};

static const struct gopt o_stash[] = {
	F("--all", GX_UNTRACKED, 0),
	F("--include-untracked", GX_UNTRACKED, 0), F("-a", GX_UNTRACKED, 0),
	F("-u", GX_UNTRACKED, 0), END,
};

/* branch and tag (tag -d deletes for good: see git_branch) */
static const struct gopt o_branch[] = {
	F("-D", GX_NONE, GM_DEL | GM_FORCE), F("-d", GX_NONE, GM_DEL),
	F("--delete", GX_NONE, GM_DEL), F("-f", GX_NONE, GM_FORCE),
	F("--force", GX_NONE, GM_FORCE), V("-F", GX_READ, 0),
	V("--file", GX_READ, 0), F("-m", GX_NONE, GM_CHANGE),
	F("-M", GX_NONE, GM_CHANGE), F("-c", GX_NONE, GM_CHANGE),
	F("-C", GX_NONE, GM_CHANGE), F("-a", GX_NONE, GM_CHANGE),
	F("-s", GX_NONE, GM_CHANGE), F("-u", GX_NONE, GM_CHANGE),
	F("--set-upstream", GX_NONE, GM_CHANGE),
	AT("--set-upstream-to", GX_NONE, GM_CHANGE),
	F("--unset-upstream", GX_NONE, GM_CHANGE),
	F("--edit-description", GX_NONE, GM_CHANGE),
	F("--move", GX_NONE, GM_CHANGE), F("--copy", GX_NONE, GM_CHANGE),
	F("--list", GX_MODE, GM_LIST), F("-l", GX_MODE, GM_LIST),
	F("--contains", GX_MODE, GM_LIST), F("--merged", GX_MODE, GM_LIST),
	END,
};

static const struct gopt o_checkout[] = {
	V("-b", GX_NONE, 0), V("-B", GX_NONE, 0), F("-f", GX_NONE, GM_PATHS),
	F("--force", GX_NONE, GM_PATHS), F("-p", GX_NONE, GM_PATHS),
	F("--patch", GX_NONE, GM_PATHS), F("--ours", GX_NONE, GM_PATHS),
	F("--theirs", GX_NONE, GM_PATHS), END,
};

static const struct gopt o_restore[] = {
	V("-s", GX_NONE, 0), V("--source", GX_NONE, 0),
	F("--staged", GX_MODE, GM_STAGED), F("-S", GX_MODE, GM_STAGED),
	F("--worktree", GX_NONE, GM_WORKTREE), F("-W", GX_NONE, GM_WORKTREE),
	END,
};

static const struct gopt o_switch[] = {
	F("--discard-changes", GX_DESTROY, 0), F("--force", GX_DESTROY, 0),
	F("-f", GX_DESTROY, 0), V("-C", GX_DESTROY, 0), V("-c", GX_NONE, 0),
	END,
};

static const struct gopt o_reset[] = {
	F("--hard", GX_DESTROY, 0), F("--merge", GX_DESTROY, 0),
	F("--keep", GX_DESTROY, 0), END,
};

static const struct gopt o_clean[] = {
	F("-n", GX_MODE, GM_SHOW), F("--dry-run", GX_MODE, GM_SHOW), END,
};

static const struct gopt o_apply[] = {
	F("--check", GX_MODE, GM_SHOW), F("--stat", GX_MODE, GM_SHOW),
	F("--numstat", GX_MODE, GM_SHOW), F("--summary", GX_MODE, GM_SHOW),
	F("--apply", GX_NONE, GM_UNSHOW), END,
};

static const struct gopt o_filter_branch[] = {
	V("--setup", GX_CODE, 0), V("--env-filter", GX_CODE, 0),
	V("--tree-filter", GX_CODE, 0), V("--index-filter", GX_CODE, 0),
	V("--parent-filter", GX_CODE, 0), V("--msg-filter", GX_CODE, 0),
	V("--commit-filter", GX_CODE, 0), V("--tag-name-filter", GX_CODE, 0),
	END,
};

static const struct gopt o_difftool[] = {
	V("--extcmd", GX_CODE, 0), V("-x", GX_CODE, 0),
	V("--tool", GX_CODE, 0), V("-t", GX_CODE, 0), END,
};

static const struct gopt o_archive[] = {
	V("--output", GX_WRITE, 0), V("-o", GX_WRITE, 0),
	V("--exec", GX_CODE, 0), END,
};

#undef F
#undef V
#undef AT
#undef END

/* ---- actions: the first word after some subcommands ---------------------- */

enum git_act {
	A_SHOW,         /* only shows */
	A_WRITE,        /* a local write */
	A_DESTROY,      /* discards work */
	A_NET,          /* reaches a remote, and nothing more */
	A_NET_WRITE,    /* reaches a remote, then a local write */
	A_CONFIG,       /* writes the repository's configuration */
	A_RUNS,         /* runs a command string */
	A_JOBS,         /* changes the user's configuration, schedules jobs */
	A_ADD,          /* its first operand is a path written */
};

/* Each list ends with "*", which matches any word and none. */
struct gact {
	const char *word;       /* NULL: no word; "x*": starts with x */
	enum git_act act;
};

#define ACT_END { "*", A_WRITE }

static const struct gact a_stash[] = {
	{ "list", A_SHOW }, { "show", A_SHOW },
	{ "drop", A_DESTROY }, { "clear", A_DESTROY }, ACT_END,
};

static const struct gact a_remote[] = {
	{ NULL, A_SHOW }, { "-v", A_SHOW }, { "--verbose", A_SHOW },
	{ "get-url", A_SHOW }, { "show", A_NET }, { "update", A_NET },
	{ "prune", A_NET }, { "*", A_CONFIG },
};

static const struct gact a_submodule[] = {
	{ NULL, A_SHOW }, { "status", A_SHOW }, { "summary", A_SHOW },
	{ "foreach", A_RUNS }, { "*", A_NET_WRITE },
};

static const struct gact a_reflog[] = {
	{ NULL, A_SHOW }, { "show", A_SHOW }, { "-*", A_SHOW },
	{ "expire", A_DESTROY }, { "delete", A_DESTROY }, ACT_END,
};

static const struct gact a_worktree[] = {
	{ "list", A_SHOW }, { "add", A_ADD }, ACT_END,
};

static const struct gact a_bisect[] = {
	{ "run", A_RUNS }, ACT_END,
};

static const struct gact a_maintenance[] = {
	{ NULL, A_WRITE }, { "run", A_WRITE }, { "*", A_JOBS },
};

static const struct gact a_bundle[] = {
	{ "create", A_ADD }, ACT_END,
};

/* ---- subcommands ---------------------------------------------------------- */

/*
 * G_READ: shows (its operands are reads); G_WRITE: writes the repository;
 * G_NET: reaches a remote. base: what the subcommand does whatever its
 * options, unless one makes it only show (GM_SHOW).
 */
enum git_kind { G_READ, G_WRITE, G_NET };
enum git_base { B_NONE, B_DESTROY, B_PATCH, B_PLUMBING, B_RUNS, B_ASK };

struct git_ctx;

struct git_sub {
	const char *name;
	unsigned char kind;             /* enum git_kind */
	unsigned char base;             /* enum git_base */
	const struct gopt *opts;
	const struct gact *acts;        /* by the first word, or NULL */
	int (*judge)(struct git_ctx *); /* 1: decided; 0: a local write */
};

/* What one git command is judged with. */
struct git_ctx {
	struct ev *ev;
	struct cmdv *v;
	const struct git_sub *t;
	const char *sub;        /* the subcommand */
	int i;                  /* the index of its first argument */
	int pos;                /* words after it that are not options */
	unsigned marks;         /* GM_* of its options */
	int repo_elsewhere;     /* --git-dir, --work-tree */
	int done;               /* --version, --help */
	int quiet;              /* effects applied: walks only read */
};

/* Where git_walk found a word it hands on. */
enum git_at {
	AT_OPERAND,     /* an operand among the options */
	AT_PATH,        /* after "--": a path */
	AT_VALUE,       /* the value of an option, in the next word */
};

typedef void (*git_word_fn)(struct git_ctx *, int k, enum git_at, void *);

/* git SUB HOW discards work (HOW: an option, a word, or ""). */
static void
git_destructive(struct ev *ev, const char *sub, const char *how)
{
	ev_factor(ev, F_DESTRUCTIVE);
	ev_note(ev, POLICY_ESCALATE, "shell", "builtin: git destructive",
	    "git %s%s%s discards work that cannot be restored", sub,
	    *how != '\0' ? " " : "", how);
}

/*
 * A write to the repository's configuration. git finds the repository by
 * walking up from where it runs (git -C src config, cd .git && git
 * config), and its config can run commands (aliases "!cmd", core.pager,
 * core.fsmonitor, hooks paths): every such write is for a human.
 */
static void
git_config_write(struct ev *ev, const char *what)
{
	ev_factor(ev, F_CODE);
	ev_note(ev, POLICY_ESCALATE, "write", "filesystem.denyWrite",
	    "%s writes the repository's configuration (.git/config, wherever "
	    "git finds it), which can make git run commands", what);
}

/* 1 if word s equals one of l (NULL-terminated); "x*": s starts with x. */
static int
word_in(const char *s, const char *const *l)
{
	size_t n;

	for (; *l != NULL; l++) {
		n = strlen(*l);
		if (n > 0 && (*l)[n - 1] == '*' ? strncmp(s, *l, n - 1) == 0 :
		    strcmp(s, *l) == 0)
			return 1;
	}
	return 0;
}

/* ---- the walk ------------------------------------------------------------- */

/* git works in DIR (-C): the working directory moves for the judgement
 * (an_cls_git puts it back). */
static void
git_chdir(struct ev *ev, const struct sh_word *w)
{
	char path[SBX_PATH_MAX], res[SBX_PATH_MAX];

	if (w == NULL || an_word_path(ev, w, path, sizeof(path)) != 1 ||
	    (path[0] != '/' && path[0] != '~' && !ev->cwd_known) ||
	    path_resolve_c(ev->pc, ev->cwd, ev->call->home, path, res,
	    sizeof(res)) < 0) {
		ev->cwd_known = 0;
		return;
	}
	memcpy(ev->cwd, res, strlen(res) + 1);
	ev->cwd_known = 1;
}

/* What option d does, its value val (NULL: none or not given). */
static void
git_effect(struct git_ctx *g, const struct gopt *d, const char *shown,
    struct sh_word *val)
{
	const char *sub = g->sub != NULL ? g->sub : "", *sp = *sub ? " " : "";

	if (g->quiet)
		return;
	g->marks |= d->mark;
	switch (d->fx) {
	case GX_NONE:
	case GX_MODE:
		break;
	case GX_WRITE:
	case GX_WTREE:
		if (val == NULL)
			trig_write(g->ev, NULL, "git");
		else if (d->fx == GX_WTREE)
			an_write_tree_word(g->ev, g->v, val);
		else
			an_write_word(g->ev, g->v, val);
		break;
	case GX_READ:
		if (val != NULL) {
			an_op_read(g->ev, g->v, val, 0);
			break;
		}
		ev_factor(g->ev, F_UNKNOWN);
		ev_note(g->ev, POLICY_ESCALATE, "read", "builtin: git",
		    "git%s%s %s reads a file the policy cannot see", sp, sub,
		    shown);
		break;
	case GX_CODE:
		ev_factor(g->ev, F_CODE);
		ev_note(g->ev, POLICY_ESCALATE, "shell", "builtin: git",
		    "git%s%s %s runs a command or code the policy cannot read "
		    "(a program, hooks, configuration)", sp, sub, shown);
		break;
	case GX_DESTROY:
		git_destructive(g->ev, sub, shown);
		break;
	case GX_UNTRACKED:
		ev_factor(g->ev, F_PROTECTED | F_DESTRUCTIVE);
		ev_note(g->ev, POLICY_ESCALATE, "write", "self-protection",
		    "git stash %s stashes away (removes) untracked or ignored "
		    "files, sbx's own .sandbox among them", shown);
		break;
	case GX_REPO:
		g->repo_elsewhere = 1;
		break;
	case GX_DIR:
		git_chdir(g->ev, val);
		break;
	case GX_DONE:
		g->done = 1;
		break;
	}
}

/* The entry of t, then of t2, that long option s (its name nl bytes)
 * names: the exact name, else an abbreviation (not of a mode). */
static const struct gopt *
git_long(const struct gopt *t, const struct gopt *t2, const char *s,
    size_t nl)
{
	const struct gopt *const ts[2] = { t, t2 };
	const struct gopt *d;
	int pass, j;

	for (pass = 0; pass < 2; pass++)
		for (j = 0; j < 2; j++)
			for (d = ts[j]; d != NULL && d->opt != NULL; d++)
				if (d->opt[1] == '-' && strncmp(s, d->opt, nl) == 0 &&
				    (d->opt[nl] == '\0' || (pass == 1 && nl >= 3 &&
				    d->fx != GX_MODE)))
					return d;
	return NULL;
}

static const struct gopt *
git_short(const struct gopt *t, const struct gopt *t2, char ch)
{
	const struct gopt *d;

	for (d = t; d != NULL && d->opt != NULL; d++)
		if (d->opt[1] == ch && d->opt[2] == '\0')
			return d;
	return t2 != NULL ? git_short(t2, NULL, ch) : NULL;
}

/* A word for an attached value: the tail of w from off. */
static struct sh_word
git_tail(const struct sh_word *w, size_t off)
{
	struct sh_word t = *w;

	t.s = w->s + off;
	t.len = w->len - off;
	t.flags &= ~(unsigned)SH_W_TILDE;
	if (t.s[0] == '~')
		t.flags |= SH_W_TILDE;
	return t;
}

/*
 * Option word k against the tables t and t2: its effects, applied. The
 * number of words its value takes after it (0 or 1), -1 when no entry
 * names it.
 */
static int
git_option(struct git_ctx *g, int k, const struct gopt *t,
    const struct gopt *t2)
{
	struct sh_word *w = &g->v->w[k], tail;
	struct sh_word *next = k + 1 < g->v->n ? &g->v->w[k + 1] : NULL;
	const struct gopt *d;
	const char *s = w->s, *q, *eq;
	char shown[3] = { '-', 0, 0 };
	int hit = -1;

	if (s[1] == '-') {
		eq = strchr(s, '=');
		d = git_long(t, t2, s, eq != NULL ? (size_t)(eq - s) : strlen(s));
		if (d == NULL)
			return -1;
		if (eq != NULL)
			tail = git_tail(w, (size_t)(eq + 1 - s));
		git_effect(g, d, s, eq != NULL ? &tail : d->val == GV_NEXT ?
		    next : NULL);
		return eq == NULL && d->val == GV_NEXT;
	}
	for (q = s + 1; *q != '\0'; q++) {
		if ((d = git_short(t, t2, *q)) == NULL ||
		    (d->fx == GX_MODE && s[2] != '\0'))
			continue;
		shown[1] = *q;
		hit = 0;
		if (d->val == GV_NO) {
			git_effect(g, d, shown, NULL);
			continue;
		}
		if (q[1] != '\0') {
			/* -o=FILE: git reads "=FILE", a reader "FILE" */
			tail = git_tail(w, (size_t)(q + 1 - s));
			git_effect(g, d, shown, &tail);
			if (q[1] == '=' && q[2] != '\0') {
				tail = git_tail(w, (size_t)(q + 2 - s));
				git_effect(g, d, shown, &tail);
			}
			return 0;
		}
		git_effect(g, d, shown, d->val == GV_NEXT ? next : NULL);
		return d->val == GV_NEXT;
	}
	return hit;
}

/* The option tables of the subcommand: its own, then its kind's. */
static const struct gopt *
git_kind_opts(const struct git_sub *t)
{
	return t->kind == G_READ ? o_read : t->kind == G_NET ? o_net : NULL;
}

/*
 * The one walk over the subcommand's words (the shared walk of args.c):
 * options and their values, and fn for each operand (after: it follows
 * "--"). A word that starts with "-" is an option before "--", even when
 * only known at run time (--output=$X); after "--" a path. The options'
 * effects are applied on the first walk only.
 */
static void
git_walk(struct git_ctx *g, git_word_fn fn, void *arg)
{
	struct an_walk it;
	int k, opt;
	const char *s;

	an_walk_init(&it, g->i, NULL, AN_W_NONE);
	while ((k = an_walk_any(g->v, &it, &opt)) >= 0) {
		s = g->v->w[k].s;
		if (!it.opts || s[0] != '-' || s[1] == '\0') {
			if (fn != NULL)
				fn(g, k, it.opts ? AT_OPERAND : AT_PATH, arg);
		} else if (git_option(g, k, g->t->opts, git_kind_opts(g->t)) > 0) {
			if (fn != NULL)
				fn(g, it.k, AT_VALUE, arg);
			it.k++;
		}
	}
	g->quiet = 1;
}

/* ---- subcommands with rules of their own ---------------------------------- */

/* The first word after the subcommand is one of l ("stash list"). */
static int
first_is(const struct git_ctx *g, const char *const *l)
{
	return g->i < g->v->n && word_in(g->v->w[g->i].s, l);
}

/* Operands after "--" that read like options ("git log -- -o"): git
 * takes them for paths, a reader may not. */
static void
git_dash_path(struct git_ctx *g, int k, enum git_at at, void *arg)
{
	const struct sh_word *w = &g->v->w[k];

	(void)arg;
	if (at == AT_PATH && an_lit(w) && w->s[0] == '-' && w->s[1] != '\0')
		ev_note(g->ev, POLICY_ESCALATE, "shell", "builtin: git",
		    "git %s: the path %s after \"--\" looks like an option; a "
		    "human decides", g->sub, w->s);
}

/* What a subcommand that shows names is read: paths, REV:PATH, and (as
 * a reader might take them) the values of its options. */
static void
git_read_word(struct git_ctx *g, int k, enum git_at at, void *arg)
{
	const char *s = g->v->w[k].s, *colon;

	(void)at;
	(void)arg;
	if (!an_lit(&g->v->w[k]))
		return;
	colon = strchr(s, ':');
	trig_read(g->ev, colon != NULL && colon[1] != '\0' ? colon + 1 : s,
	    "git");
}

/* An operand that is a tree written (git rm, mv, init DIR). */
static void
git_tree_word(struct git_ctx *g, int k, enum git_at at, void *arg)
{
	(void)arg;
	if (at != AT_VALUE)
		an_write_tree_word(g->ev, g->v, &g->v->w[k]);
}

/*
 * The paths a checkout or restore rewrites: its operands that look like
 * paths (after "--", or with a "/" or "."). Each is a tree: checking out
 * .claude may rewrite the settings in it, if they are tracked.
 */
static void
git_path_write(struct git_ctx *g, int k, enum git_at at, void *arg)
{
	struct sh_word *w = &g->v->w[k];
	char p[SBX_PATH_MAX];

	(void)arg;
	if (at == AT_VALUE || (at == AT_OPERAND && an_lit(w) &&
	    strchr(w->s, '/') == NULL && strchr(w->s, '.') == NULL))
		return;
	/* a protected file named: denied; a tree holding one (only
	 * tracked files change): escalated */
	if (an_word_path(g->ev, w, p, sizeof(p)) == 1)
		trig_write_tree(g->ev, p, "git", 1);
	else
		trig_write(g->ev, NULL, "git");
}

/* Counts the operands that look like paths (checkout). */
static void
git_count_paths(struct git_ctx *g, int k, enum git_at at, void *arg)
{
	const char *s = g->v->w[k].s;

	if (at == AT_PATH || (at == AT_OPERAND && (strchr(s, '.') != NULL ||
	    strchr(s, '/') != NULL)))
		(*(int *)arg)++;
}

/* push: +REF and :REF (force, delete) refspecs destroy */
static void
git_refspec(struct git_ctx *g, int k, enum git_at at, void *arg)
{
	const char *s = g->v->w[k].s;

	(void)arg;
	if (at != AT_VALUE && s[0] != '\0' && (s[0] == '+' || s[0] == ':') &&
	    s[1] != '\0')
		ev_factor(g->ev, F_DESTRUCTIVE);
}

static int
git_push(struct git_ctx *g)
{
	ev_factor(g->ev, F_NETWORK);
	git_walk(g, git_refspec, NULL);
	ev_note(g->ev, POLICY_ESCALATE, "network", "builtin: git push",
	    "git push publishes to a remote; a human decides");
	return 1;
}

/* clone REPO DIR: the words after the repository are the directory */
static void
git_clone_dir(struct git_ctx *g, int k, enum git_at at, void *arg)
{
	int *n = arg;

	if (at != AT_VALUE && (*n)++ > 0)
		an_write_tree_word(g->ev, g->v, &g->v->w[k]);
}

/* pull, fetch, clone ...: the hosts named (in any word: --bundle-uri=URL
 * too), the directory clone writes, and a write to the repository (but
 * for ls-remote). */
static int
git_fetch(struct git_ctx *g)
{
	struct cmdv *v = g->v;
	int k, hosts = 0, n = 0;

	for (k = g->i; k < v->n; k++)
		if (an_lit(&v->w[k]) && strstr(v->w[k].s, "://") != NULL) {
			an_net_host_word(g->ev, "git", v->w[k].s);
			hosts++;
		}
	if (hosts == 0)
		trig_network(g->ev, NULL, "git");
	else
		ev_factor(g->ev, F_NETWORK);
	if (strcmp(g->sub, "clone") == 0)
		git_walk(g, git_clone_dir, &n);
	if (strcmp(g->sub, "ls-remote") != 0)
		trig_write(g->ev, ".", "git");
	return 1;
}

/* git ls-files '*.c' | xargs ...: project files; with name patterns that
 * match none of sbx's files, never those. */
static void
git_list_track(const struct git_ctx *g)
{
	struct ev *ev = g->ev;
	struct cmdv *v = g->v;
	int k, safe = 0, other = 0;
	const char *s;

	if (!(strcmp(g->sub, "ls-files") == 0 || (strcmp(g->sub, "diff") == 0 &&
	    an_has_word(v, g->i, "--name-only"))) || v->c->pipeline < 0 ||
	    !an_cwd_in_project(ev))
		return;
	for (k = g->i; k < v->n; k++) {
		s = v->w[k].s;
		if (an_is_opt(&v->w[k]) || strcmp(s, "--") == 0)
			continue;
		if (!an_lit(&v->w[k]) || strchr(s, '/') != NULL ||
		    !an_glob_name_safe(s))
			other = 1;
		else
			safe = 1;
	}
	ev->list_pipeline = v->c->pipeline;
	ev->list_parse = v->pid;
	ev->list_safe = safe && !other;
}

static int
git_config(struct git_ctx *g)
{
	static const char *const gets[] = { "get", "list", NULL };

	if ((g->marks & GM_SHOW) || first_is(g, gets) ||
	    (g->pos == 1 && !(g->marks & GM_SET)))
		return 1;
	if (g->marks & GM_GLOBAL)
		trig_write(g->ev, "~/.gitconfig", "git config");
	else if (g->marks & GM_SYSTEM)
		trig_write(g->ev, "/etc/gitconfig", "git config");
	git_config_write(g->ev, "git config");
	return 1;
}

/* A stash of words only known at run time may be --all. */
static int
git_stash(struct git_ctx *g)
{
	int k;

	for (k = g->i; k < g->v->n; k++)
		if (!an_lit(&g->v->w[k])) {
			ev_factor(g->ev, F_PROTECTED | F_DESTRUCTIVE);
			ev_note(g->ev, POLICY_ESCALATE, "write", "self-protection",
			    "git stash %s may stash away (remove) untracked files, "
			    "sbx's own .sandbox among them", g->v->w[k].s);
			return 1;
		}
	return 0;
}

static int
git_init(struct git_ctx *g)
{
	git_walk(g, git_tree_word, NULL);
	return 0;
}

static int
git_branch(struct git_ctx *g)
{
	int tag = strcmp(g->sub, "tag") == 0;
	int del = (g->marks & GM_DEL) != 0, change = (g->marks & GM_CHANGE) != 0;

	if (del && (tag || (g->marks & GM_FORCE))) {
		git_destructive(g->ev, g->sub, "-D (deleting by force)");
		return 1;
	}
	if (!del && !change && g->pos == 0)
		return 1;       /* listing */
	if (tag)
		return !del && an_has_word(g->v, g->i, "-l");
	return !del && !change && (g->marks & GM_LIST);
}

static int
git_checkout(struct git_ctx *g)
{
	int paths = 0;

	git_walk(g, git_count_paths, &paths);
	if (!paths && !(g->marks & GM_PATHS) && !an_has_word(g->v, g->i, "--"))
		return 0;
	git_walk(g, git_path_write, NULL);
	git_destructive(g->ev, "checkout", "of paths");
	return 1;
}

static int
git_restore(struct git_ctx *g)
{
	if ((g->marks & (GM_STAGED | GM_WORKTREE)) == GM_STAGED)
		return 0;
	git_walk(g, git_path_write, NULL);
	git_destructive(g->ev, "restore", "");
	return 1;
}

static int
git_mvrm(struct git_ctx *g)
{
	git_walk(g, git_tree_word, NULL);
	if (g->v->extra)
		trig_write(g->ev, NULL, "git");
	return 0;
}

/* ---- the table ------------------------------------------------------------ */

#define R(n, o)         { n, G_READ, B_NONE, o, NULL, NULL }
#define W(n, o, a, j)   { n, G_WRITE, B_NONE, o, a, j }
#define B(n, b, o, a)   { n, G_WRITE, b, o, a, NULL }
#define N(n, o, j)      { n, G_NET, B_NONE, o, NULL, j }

/* Every subcommand the policy knows; any other escalates (aliases can
 * run commands). */
static const struct git_sub git_subs[] = {
	R("status", NULL), R("log", NULL), R("diff", NULL), R("show", NULL),
	R("blame", o_blame), R("annotate", o_blame), R("shortlog", NULL),
	R("describe", NULL), R("rev-parse", NULL), R("rev-list", NULL),
	R("ls-files", NULL), R("ls-tree", NULL), R("cat-file", NULL),
	R("grep", o_grep), R("whatchanged", NULL), R("name-rev", NULL),
	R("merge-base", NULL), R("count-objects", NULL),
	R("verify-commit", NULL), R("verify-tag", NULL), R("cherry", NULL),
	R("version", NULL), R("help", NULL), R("var", NULL),
	R("check-ignore", NULL), R("check-attr", NULL),
	R("check-ref-format", NULL), R("for-each-ref", NULL),
	R("show-ref", NULL), R("show-branch", NULL), R("range-diff", NULL),
	R("fsck", o_fsck), R("diff-tree", NULL), R("diff-files", NULL),
	R("diff-index", NULL), R("hash-object", NULL),
	N("push", o_push, git_push), N("pull", NULL, git_fetch),
	N("fetch", NULL, git_fetch), N("ls-remote", NULL, git_fetch),
	N("clone", NULL, git_fetch), N("send-email", NULL, git_fetch),
	N("request-pull", NULL, git_fetch),
	W("add", NULL, NULL, NULL), W("stage", NULL, NULL, NULL),
	W("commit", o_commit, NULL, NULL), W("merge", o_msgfile, NULL, NULL),
	W("notes", o_msgfile, NULL, NULL), W("rebase", o_rebase, NULL, NULL),
	W("cherry-pick", NULL, NULL, NULL), W("revert", NULL, NULL, NULL),
	W("mv", NULL, NULL, git_mvrm), W("rm", NULL, NULL, git_mvrm),
	W("init", o_init, NULL, git_init),
	W("bisect", NULL, a_bisect, NULL),
	W("worktree", NULL, a_worktree, NULL),
	W("sparse-checkout", NULL, NULL, NULL),
	W("switch", o_switch, NULL, NULL),
	W("format-patch", o_format_patch, NULL, NULL),
	W("restore", o_restore, NULL, git_restore),
	W("checkout", o_checkout, NULL, git_checkout),
	W("reset", o_reset, NULL, NULL),
	W("stash", o_stash, a_stash, git_stash),
	W("tag", o_branch, NULL, git_branch),
	W("branch", o_branch, NULL, git_branch),
	W("config", o_config, NULL, git_config),
	W("reflog", NULL, a_reflog, NULL),
	W("submodule", NULL, a_submodule, NULL),
	W("remote", NULL, a_remote, NULL),
	W("maintenance", NULL, a_maintenance, NULL),
	B("apply", B_PATCH, o_apply, NULL), B("am", B_PATCH, NULL, NULL),
	B("update-index", B_PLUMBING, NULL, NULL),
	B("symbolic-ref", B_PLUMBING, NULL, NULL),
	B("update-ref", B_PLUMBING, NULL, NULL),
	B("clean", B_DESTROY, o_clean, NULL), B("gc", B_DESTROY, NULL, NULL),
	B("prune", B_DESTROY, NULL, NULL), B("repack", B_DESTROY, NULL, NULL),
	B("filter-branch", B_DESTROY, o_filter_branch, NULL),
	B("mergetool", B_RUNS, NULL, NULL),
	B("difftool", B_RUNS, o_difftool, NULL),
	B("archive", B_ASK, o_archive, NULL),
	B("bundle", B_ASK, NULL, a_bundle),
};

#undef R
#undef W
#undef B
#undef N

static const struct git_sub *
git_sub_find(const char *name)
{
	size_t k;

	for (k = 0; k < sizeof(git_subs) / sizeof(git_subs[0]); k++)
		if (git_subs[k].name[0] == name[0] &&
		    strcmp(git_subs[k].name, name) == 0)
			return &git_subs[k];
	return NULL;
}

/* What the subcommand itself does (enum git_base). */
static void
git_base(const struct git_ctx *g)
{
	static const char *const why[] = {
		[B_PATCH] = "applies a patch the policy cannot see; it may "
		    "change any file, sbx's own included",
		[B_PLUMBING] = "can rewrite any tracked file or ref, sbx's own "
		    "included",
		[B_RUNS] = "runs an external program",
		[B_ASK] = "is not judged further: a human decides",
	};

	if (g->t->base == B_DESTROY) {
		git_destructive(g->ev, g->sub, "");
		return;
	}
	if (g->t->base == B_RUNS)
		ev_factor(g->ev, F_CODE);
	ev_note(g->ev, POLICY_ESCALATE, "shell", g->t->base == B_PATCH ?
	    "builtin: git patch" : g->t->base == B_PLUMBING ?
	    "builtin: git plumbing" : "builtin: git", "git %s %s", g->sub,
	    why[g->t->base]);
}

/* An operand after the action word is a path written (worktree add). */
static void
git_add_path(struct git_ctx *g, int k, enum git_at at, void *arg)
{
	int *n = arg;

	if (at != AT_VALUE && k > g->i && (*n)++ == 0)
		an_write_word(g->ev, g->v, &g->v->w[k]);
}

/* The action the first word names: 1 decided, 0 a local write. */
static int
git_act(struct git_ctx *g)
{
	const struct gact *a;
	const char *w = g->i < g->v->n ? g->v->w[g->i].s : NULL;
	int n = 0;

	for (a = g->t->acts; strcmp(a->word != NULL ? a->word : "", "*") != 0;
	    a++) {
		const char *const l[] = { a->word, NULL };

		if (a->word == NULL ? w == NULL : w != NULL && word_in(w, l))
			break;
	}
	switch (a->act) {
	case A_SHOW:
		return 1;
	case A_WRITE:
		return 0;
	case A_DESTROY:
		git_destructive(g->ev, g->sub, w);
		return 1;
	case A_NET:
	case A_NET_WRITE:
		trig_network(g->ev, NULL, g->sub);
		return a->act == A_NET;
	case A_CONFIG:
		git_config_write(g->ev, "git remote");
		return 1;
	case A_RUNS:
		ev_factor(g->ev, F_CODE);
		ev_note(g->ev, POLICY_ESCALATE, "shell", "builtin: git",
		    "git %s %s runs a command string", g->sub, w);
		return 1;
	case A_JOBS:
		ev_note(g->ev, POLICY_ESCALATE, "shell", "builtin: git",
		    "git %s %s changes the user's git configuration and "
		    "schedules jobs", g->sub, w);
		return 1;
	case A_ADD:
		git_walk(g, git_add_path, &n);
		return 0;
	}
	return 0;
}

/* Base, rules, action: 1 decided, 0 a local write. */
static int
git_decided(struct git_ctx *g)
{
	int done = 0;

	if (g->t->base != B_NONE) {
		if ((g->marks & (GM_SHOW | GM_UNSHOW)) == GM_SHOW)
			return 1;
		git_base(g);
		done = 1;
	}
	if (g->t->judge != NULL && g->t->judge(g))
		return 1;
	if (g->t->acts != NULL && git_act(g))
		return 1;
	return done;
}

/*
 * git's global options, up to the subcommand (the wrapper walk of
 * args.c, and options only known at run time: --git-dir=$(pwd)/.git):
 * the index of the subcommand, or -1 when judged (or nothing runs: git
 * alone prints help).
 */
static int
git_globals(struct git_ctx *g)
{
	struct cmdv *v = g->v;
	struct an_walk it;
	int k, n;

	an_walk_init(&it, 1, NULL, AN_W_NONE);
	for (;;) {
		if ((k = an_walk_prefix(v, &it, 0)) < 0) {
			if (!it.opts || it.k >= v->n || v->w[it.k].s[0] != '-')
				break;
			k = it.k++;     /* not literal: an option all the same */
		}
		if ((n = git_option(g, k, o_global, NULL)) < 0 &&
		    !an_lit(&v->w[k])) {
			it.k = k;       /* one the table does not know */
			break;
		}
		it.k += n > 0;
	}
	if (it.k < v->n && !an_lit(&v->w[it.k])) {
		ev_factor(g->ev, F_UNKNOWN);
		ev_note(g->ev, POLICY_ESCALATE, "shell", "builtin: git",
		    "git subcommand is only known at run time");
		return -1;
	}
	return g->done || it.k >= v->n ? -1 : it.k;
}

static void
git_judge(struct ev *ev, struct cmdv *v)
{
	struct git_ctx g;
	int k;

	memset(&g, 0, sizeof(g));
	g.ev = ev;
	g.v = v;
	if ((k = git_globals(&g)) < 0)
		return;
	g.sub = v->w[k].s;
	g.i = k + 1;
	/* git CMD --help shows the manual; elsewhere it may be a value */
	if (g.i < v->n && (strcmp(v->w[g.i].s, "--help") == 0 ||
	    (strcmp(v->w[g.i].s, "-h") == 0 && v->n == g.i + 1)))
		return;
	if ((g.t = git_sub_find(g.sub)) == NULL) {
		ev_factor(ev, F_UNKNOWN);
		ev_note(ev, POLICY_ESCALATE, "shell", "builtin: git",
		    "git %s is not a subcommand the policy knows (aliases can "
		    "run commands)", g.sub);
		return;
	}
	git_walk(&g, git_dash_path, NULL);      /* the options' effects */
	for (k = g.i; k < v->n; k++)
		if (!an_is_opt(&v->w[k]))
			g.pos++;
	if (g.t->kind == G_NET) {
		g.t->judge(&g);
		return;
	}
	git_list_track(&g);
	if (g.t->kind == G_READ) {
		git_walk(&g, git_read_word, NULL);
		if (!(g.marks & GM_WRITES))
			return;
	}
	if (git_decided(&g))
		return;
	/* A local write to the repository. */
	if (g.repo_elsewhere) {
		trig_write(ev, NULL, "git");
		return;
	}
	trig_write(ev, ".", "git");
	if (v->extra)
		trig_write(ev, NULL, "git");
}

/*
 * git -C DIR works in DIR: its operands (git rm, checkout paths) and its
 * repository are there. The working directory moves for the judgement
 * (git_chdir) and is put back after.
 */
void
an_cls_git(struct ev *ev, struct cmdv *v)
{
	char saved[SBX_PATH_MAX];
	int saved_known = ev->cwd_known;

	memcpy(saved, ev->cwd, strlen(ev->cwd) + 1);
	git_judge(ev, v);
	memcpy(ev->cwd, saved, strlen(saved) + 1);
	ev->cwd_known = saved_known;
}
