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
 * - Options are read by the table walk of opts.c (an_opt_next), from
 *   tables here: o_global for git's own, one per subcommand.
 * - An option the tables do not know takes no value, so a value it would
 *   take is read as an operand: stricter, never looser. Options that make
 *   a subcommand only show (T_MODE: clean -n, config --get) count only
 *   as the exact word.
 * - Actions ("stash drop", "bisect run") are named by the first operand;
 *   one only known at run time escalates.
 */
#include "policy/analyse.h"

#include <sys/stat.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
#define GM_NOINDEX      0x2000  /* diff --no-index: its operands are paths */
#define GM_NAMES        0x4000  /* diff --name-only: lists names */
#define GM_PAT          0x8000  /* grep -e, -f: the pattern is no operand */

/* What an option does besides its kind (OK_* of opts.h), with the marks
 * above: the tag of its optdef. */
#define T_MODE          0x010000        /* its marks: the exact word only */
#define T_CODE          0x020000        /* runs code (an OK_OPTVAL) */
#define T_DESTROY       0x040000        /* discards work */
#define T_UNTRACKED     0x080000        /* stash -u: removes untracked files */
#define T_REPO          0x100000        /* the repository is elsewhere */
#define T_DIR           0x200000        /* -C DIR: git works in DIR */
#define T_DONE          0x400000        /* --version, --help: nothing runs */
#define T_NET           0x800000        /* reaches hosts no word names */
#define T_GITDIR        0x1000000       /* --git-dir DIR: the repository */
#define T_BARE          0x2000000       /* makes a git dir not named .git */
#define T_NAMES         0x4000000       /* the files it reads are named by
                                           its input (--stdin-paths) */
#define T_WORKTREE      0x8000000       /* --work-tree DIR: the tree */
#define T_ICASE         0x10000000      /* pathspecs match in any case */
#define GM_ALL          0x00ffff

/* ---- option tables -------------------------------------------------------- */

#define FL(o, t)        { NULL, o, OK_FLAG, t }         /* no value */
#define VAL(o, t)       { NULL, o, OK_VAL, t }          /* takes a value */
#define OPT(o, t)       { NULL, o, OK_OPTVAL, t }       /* attached only */
#define DO(o, k)        { NULL, o, k, 0 }       /* OK_WRITE, OK_READ ... */
#define END             { NULL, NULL, OK_VAL, 0 }

/* Before the subcommand. git reads these as exact words only: an
 * abbreviation that matches one here is judged like it (stricter). */
static const struct optdef o_global[] = {
	VAL("-C", T_DIR), DO("-c", OK_CODE),
	DO("--config-env", OK_CODE), OPT("--exec-path", T_CODE),
	VAL("--git-dir", T_REPO | T_GITDIR),
	VAL("--work-tree", T_REPO | T_WORKTREE),
	VAL("--namespace", 0), VAL("--super-prefix", 0),
	VAL("--attr-source", 0), FL("--icase-pathspecs", T_ICASE),
	FL("--version", T_DONE),
	FL("--help", T_DONE), END,
};

/* Of every subcommand that shows (diff options, pagers); grep's -o is
 * --only-matching. */
#define READ_OPTS \
	DO("--output", OK_WRITE), DO("--ext-diff", OK_ESC), \
	OPT("-O", T_CODE), OPT("--open-files-in-pager", T_CODE), \
	DO("--orderfile", OK_READ)

static const struct optdef o_read[] = {
	READ_OPTS, DO("-o", OK_WRITE), END,
};

/* hash-object: the files it reads (and may write into the repository,
 * where cat-file shows them) named by its input */
static const struct optdef o_hash_object[] = {
	READ_OPTS, DO("-o", OK_WRITE), FL("--stdin-paths", T_NAMES), END,
};

/* ls-files: -o is --others; -X FILE is --exclude-from */
/* cat-file: --batch* read the names of the objects shown from the
 * input, --batch-all-objects shows every object */
static const struct optdef o_cat_file[] = {
	READ_OPTS, DO("-o", OK_WRITE), FL("--batch", T_NAMES),
	OPT("--batch", T_NAMES), OPT("--batch-check", 0),
	OPT("--batch-command", T_NAMES), END,
};

static const struct optdef o_ls_files[] = {
	READ_OPTS, DO("-X", OK_READ), DO("--exclude-from", OK_READ), END,
};

/* diff: --no-index compares two paths (trees: every file below); the
 * names it lists may feed a reader */
static const struct optdef o_diff[] = {
	READ_OPTS, DO("-o", OK_WRITE), FL("--no-index", GM_NOINDEX),
	FL("--name-only", GM_NAMES), FL("--name-status", GM_NAMES), END,
};

/* grep: -e/-f give the pattern; the values of -A, -m ... are no
 * operands (-C is --context here) */
static const struct optdef o_grep[] = {
	READ_OPTS, { NULL, "-f", OK_READ, GM_PAT },
	{ NULL, "--file", OK_READ, GM_PAT }, VAL("-e", GM_PAT),
	VAL("-A", 0), VAL("-B", 0), VAL("-C", 0), VAL("-m", 0),
	VAL("--after-context", 0), VAL("--before-context", 0),
	VAL("--context", 0), VAL("--max-count", 0), VAL("--max-depth", 0),
	VAL("--threads", 0), END,
};

static const struct optdef o_blame[] = {
	READ_OPTS, DO("-o", OK_WRITE), DO("--contents", OK_READ),
	DO("-S", OK_READ), DO("--ignore-revs-file", OK_READ), END,
};

static const struct optdef o_fsck[] = {
	READ_OPTS, DO("-o", OK_WRITE), FL("--lost-found", GM_WRITES), END,
};

/* Of every subcommand that reaches a remote. */
#define NET_OPTS \
	DO("--upload-pack", OK_CODE), DO("--receive-pack", OK_CODE), \
	DO("--exec", OK_CODE), DO("-u", OK_ESC), DO("-c", OK_CODE), \
	DO("--config", OK_CODE), DO("--template", OK_CODE), \
	DO("--separate-git-dir", OK_CODE), VAL("--depth", 0), \
	VAL("--branch", 0), VAL("-b", 0), VAL("--origin", 0), \
	OPT("--recurse-submodules", T_NET), FL("--recursive", T_NET)

static const struct optdef o_net[] = {
	NET_OPTS, FL("--bare", T_BARE), FL("--mirror", T_BARE), END,
};

static const struct optdef o_push[] = {
	NET_OPTS,
	FL("--force", T_DESTROY), OPT("--force-with-lease", T_DESTROY),
	FL("--force-if-includes", T_DESTROY), FL("-f", T_DESTROY),
	FL("--delete", T_DESTROY), FL("-d", T_DESTROY),
	FL("--mirror", T_DESTROY), FL("--prune", T_DESTROY), END,
};

static const struct optdef o_reflog[] = {
	VAL("-n", 0), VAL("--max-count", 0), END,
};

/* Of every subcommand that writes: the paths it acts on, listed in a
 * file (add, rm, checkout, restore, reset, commit, stash push) */
#define WRITE_OPTS \
	DO("--pathspec-from-file", OK_NAMES)

static const struct optdef o_write[] = {
	WRITE_OPTS, END,
};

/* add -f: what .gitignore names is added too */
static const struct optdef o_add[] = {
	WRITE_OPTS, FL("-f", GM_FORCE), FL("--force", GM_FORCE), END,
};

static const struct optdef o_commit[] = {
	WRITE_OPTS, DO("--file", OK_READ), DO("-F", OK_READ),
	DO("--template", OK_READ), DO("-t", OK_READ), END,
};

/* merge, notes, tag: -F FILE is the message */
static const struct optdef o_msgfile[] = {
	DO("--file", OK_READ), DO("-F", OK_READ), END,
};

static const struct optdef o_rebase[] = {
	DO("--exec", OK_CODE), DO("-x", OK_CODE), END,
};

static const struct optdef o_format_patch[] = {
	DO("--output-directory", OK_WTREE), DO("-o", OK_WTREE),
	DO("--signature-file", OK_READ), END,
};

static const struct optdef o_init[] = {
	DO("--template", OK_CODE), DO("--separate-git-dir", OK_CODE),
	FL("--bare", T_BARE),
	VAL("--initial-branch", 0), VAL("-b", 0),
	VAL("--object-format", 0), VAL("--ref-format", 0),
	OPT("--shared", 0), END,
};

static const struct optdef o_config[] = {
	FL("--get", T_MODE | GM_SHOW), FL("--get-all", T_MODE | GM_SHOW),
	FL("--get-regexp", T_MODE | GM_SHOW),
	FL("--get-color", T_MODE | GM_SHOW),
	FL("--get-urlmatch", T_MODE | GM_SHOW), FL("--list", T_MODE | GM_SHOW),
	FL("-l", T_MODE | GM_SHOW), FL("--unset", GM_SET),
	FL("--unset-all", GM_SET), FL("--edit", GM_SET),
	FL("-e", GM_SET), FL("--global", GM_GLOBAL),
	FL("--system", GM_SYSTEM), DO("--file", OK_READ),
	DO("-f", OK_READ), END,
};

static const struct optdef o_stash[] = {
	WRITE_OPTS, FL("--all", T_UNTRACKED),
	FL("--include-untracked", T_UNTRACKED), FL("-a", T_UNTRACKED),
	FL("-u", T_UNTRACKED), END,
};

/* branch and tag (tag -d deletes for good: see git_branch) */
static const struct optdef o_branch[] = {
	FL("-D", GM_DEL | GM_FORCE), FL("-d", GM_DEL),
	FL("--delete", GM_DEL), FL("-f", GM_FORCE),
	FL("--force", GM_FORCE), DO("-F", OK_READ),
	DO("--file", OK_READ), FL("-m", GM_CHANGE),
	FL("-M", GM_CHANGE), FL("-c", GM_CHANGE),
	FL("-C", GM_CHANGE), FL("-a", GM_CHANGE),
	FL("-s", GM_CHANGE), FL("-u", GM_CHANGE),
	FL("--set-upstream", GM_CHANGE),
	OPT("--set-upstream-to", GM_CHANGE),
	FL("--unset-upstream", GM_CHANGE),
	FL("--edit-description", GM_CHANGE),
	FL("--move", GM_CHANGE), FL("--copy", GM_CHANGE),
	FL("--list", T_MODE | GM_LIST), FL("-l", T_MODE | GM_LIST),
	FL("--contains", T_MODE | GM_LIST), FL("--merged", T_MODE | GM_LIST),
	END,
};

static const struct optdef o_checkout[] = {
	WRITE_OPTS, VAL("-b", 0), VAL("-B", 0), FL("-f", GM_PATHS),
	FL("--force", GM_PATHS), FL("-p", GM_PATHS),
	FL("--patch", GM_PATHS), FL("--ours", GM_PATHS),
	FL("--theirs", GM_PATHS), END,
};

static const struct optdef o_restore[] = {
	WRITE_OPTS, VAL("-s", 0), VAL("--source", 0),
	FL("--staged", T_MODE | GM_STAGED), FL("-S", T_MODE | GM_STAGED),
	FL("--worktree", GM_WORKTREE), FL("-W", GM_WORKTREE),
	END,
};

static const struct optdef o_switch[] = {
	FL("--discard-changes", T_DESTROY), FL("--force", T_DESTROY),
	FL("-f", T_DESTROY), VAL("-C", T_DESTROY), VAL("-c", 0),
	END,
};

static const struct optdef o_reset[] = {
	WRITE_OPTS, FL("--hard", T_DESTROY), FL("--merge", T_DESTROY),
	FL("--keep", T_DESTROY), END,
};

static const struct optdef o_clean[] = {
	FL("-n", T_MODE | GM_SHOW), FL("--dry-run", T_MODE | GM_SHOW), END,
};

static const struct optdef o_apply[] = {
	FL("--check", T_MODE | GM_SHOW), FL("--stat", T_MODE | GM_SHOW),
	FL("--numstat", T_MODE | GM_SHOW), FL("--summary", T_MODE | GM_SHOW),
	FL("--apply", GM_UNSHOW), END,
};

static const struct optdef o_filter_branch[] = {
	DO("--setup", OK_CODE), DO("--env-filter", OK_CODE),
	DO("--tree-filter", OK_CODE), DO("--index-filter", OK_CODE),
	DO("--parent-filter", OK_CODE), DO("--msg-filter", OK_CODE),
	DO("--commit-filter", OK_CODE), DO("--tag-name-filter", OK_CODE),
	END,
};

static const struct optdef o_difftool[] = {
	DO("--extcmd", OK_CODE), DO("-x", OK_CODE),
	DO("--tool", OK_CODE), DO("-t", OK_CODE), END,
};

static const struct optdef o_archive[] = {
	DO("--output", OK_WRITE), DO("-o", OK_WRITE),
	DO("--exec", OK_CODE), END,
};

#undef FL
#undef VAL
#undef OPT
#undef DO
#undef END
#undef READ_OPTS
#undef NET_OPTS
#undef WRITE_OPTS

/* ---- actions: named by the first operand of a subcommand -------------- */

enum git_act {
	A_SHOW,         /* only shows */
	A_WRITE,        /* a local write */
	A_DESTROY,      /* discards work */
	A_NET,          /* reaches a remote, and nothing more */
	A_NET_WRITE,    /* reaches a remote, then a local write */
	A_CONFIG,       /* writes the repository's configuration */
	A_RUNS,         /* runs a command string */
	A_JOBS,         /* changes the user's configuration, schedules jobs */
	A_ADD,          /* the operands after it are paths written */
	A_PATHS,        /* ... pathspecs whose files it rewrites (trees) */
};

/* The first operand of a subcommand names its action. Each list ends
 * with "*", which matches any word and none. */
struct gact {
	const char *word;       /* NULL: no operand */
	enum git_act act;
};

#define ACT_END { "*", A_WRITE }

static const struct gact a_stash[] = {
	{ "list", A_SHOW }, { "show", A_SHOW }, { "push", A_PATHS },
	{ "drop", A_DESTROY }, { "clear", A_DESTROY }, ACT_END,
};

static const struct gact a_remote[] = {
	{ NULL, A_SHOW }, { "get-url", A_SHOW }, { "show", A_NET },
	{ "update", A_NET },
	{ "prune", A_NET }, { "*", A_CONFIG },
};

static const struct gact a_submodule[] = {
	{ NULL, A_SHOW }, { "status", A_SHOW }, { "summary", A_SHOW },
	{ "foreach", A_RUNS }, { "*", A_NET_WRITE },
};

static const struct gact a_reflog[] = {
	{ NULL, A_SHOW }, { "show", A_SHOW }, { "expire", A_DESTROY },
	{ "delete", A_DESTROY }, ACT_END,
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

/* What a subcommand reads of the working tree below its pathspecs
 * (git_tree_read). */
enum git_tree {
	GT_NONE,
	GT_GREP,        /* every file's content: grep (the tracked files, or
	                   with --no-index/--untracked all; at a revision,
	                   the tree as committed) */
	GT_LIST,        /* the names of the tracked files, which may feed a
	                   reader (ls-files | xargs cat) */
};

struct git_sub {
	const char *name;
	unsigned char kind;             /* enum git_kind */
	unsigned char base;             /* enum git_base */
	unsigned char tree;             /* enum git_tree */
	const struct optdef *opts;      /* NULL: its kind's (git_opts) */
	const struct gact *acts;        /* by the first operand, or NULL */
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
	const struct sh_word *gitdir;   /* --git-dir's value (gitdir_w) */
	struct sh_word gitdir_w;        /* copied out of the walk */
	int gitdir_set;         /* --git-dir was given */
	const struct sh_word *worktree; /* --work-tree's value (worktree_w) */
	struct sh_word worktree_w;
	int worktree_set;
	int icase;              /* --icase-pathspecs */
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

/* What the option o (of option word k) does. */
static void
git_effect(struct git_ctx *g, const struct an_opt *o)
{
	const struct optdef *d = o->d;
	const char *sub = g->sub != NULL ? g->sub : "", *sp = *sub ? " " : "";

	if (g->quiet || ((d->tag & T_MODE) &&
	    strcmp(g->v->w[o->k].s, d->opt) != 0))
		return;         /* a mode counts as its exact word only */
	g->marks |= (unsigned)d->tag & GM_ALL;
	if (o->val != NULL && o->val->s[0] == '=' && o->val->s[1] != '\0' &&
	    (d->kind == OK_WRITE || d->kind == OK_WTREE || d->kind == OK_READ ||
	    d->kind == OK_NAMES)) {
		/* -o=FILE: git reads "=FILE", a reader "FILE": both */
		struct an_opt o2 = *o;
		struct sh_word t = *o->val;

		t.s++;
		t.len--;
		if (t.s[0] == '~')
			t.flags |= SH_W_TILDE;
		o2.val = &t;
		git_effect(g, &o2);
	}
	if (d->kind == OK_WRITE || d->kind == OK_WTREE) {
		if (o->val == NULL)
			trig_write(g->ev, NULL, "git");
		else if (d->kind == OK_WTREE)
			an_write_tree_word(g->ev, g->v, o->val);
		else
			an_write_word(g->ev, g->v, o->val);
	} else if ((d->kind == OK_READ || d->kind == OK_NAMES) &&
	    o->val != NULL) {
		an_op_read(g->ev, g->v, o->val, 0);
		if (d->kind == OK_NAMES)
			an_names_from(g->ev, "git", o->name);
	} else if (d->kind == OK_READ || d->kind == OK_NAMES) {
		ev_factor(g->ev, F_UNKNOWN);
		ev_note(g->ev, POLICY_ESCALATE, "read", "builtin: git",
		    "git%s%s %s reads a file the policy cannot see", sp, sub,
		    o->name);
	} else if (d->kind == OK_CODE || d->kind == OK_ESC ||
	    (d->tag & T_CODE)) {
		ev_factor(g->ev, F_CODE);
		ev_note(g->ev, POLICY_ESCALATE, "shell", "builtin: git",
		    "git%s%s %s runs a command or code the policy cannot read "
		    "(a program, hooks, configuration)", sp, sub, o->name);
	} else if (d->tag & T_DESTROY) {
		git_destructive(g->ev, sub, o->name);
	} else if (d->tag & T_UNTRACKED) {
		ev_factor(g->ev, F_PROTECTED | F_DESTRUCTIVE);
		ev_note(g->ev, POLICY_ESCALATE, "write", "self-protection",
		    "git stash %s stashes away (removes) untracked or ignored "
		    "files, sbx's own .sandbox among them", o->name);
	}
	if (d->tag & T_NET)         /* submodules: the hosts .gitmodules names */
		trig_network(g->ev, NULL, "git");
	if (d->tag & T_BARE) {
		ev_factor(g->ev, F_CODE);
		ev_note(g->ev, POLICY_ESCALATE, "write", "builtin: git repository",
		    "git%s%s %s makes a repository whose configuration and hooks "
		    "are not in a .git directory: the policy does not protect "
		    "them, and git would run what they say", sp, sub, o->name);
	}
	if (d->tag & T_NAMES)
		an_names_from(g->ev, "git", o->name);
	if (d->tag & T_GITDIR) {
		g->gitdir_set = 1;
		g->gitdir = NULL;
		if (o->val != NULL) {
			g->gitdir_w = *o->val;
			g->gitdir = &g->gitdir_w;
		}
	}
	if (d->tag & T_WORKTREE) {
		g->worktree_set = 1;
		g->worktree = NULL;
		if (o->val != NULL) {
			g->worktree_w = *o->val;
			g->worktree = &g->worktree_w;
		}
	}
	g->icase |= (d->tag & T_ICASE) != 0;
	g->repo_elsewhere |= (d->tag & T_REPO) != 0;
	g->done |= (d->tag & T_DONE) != 0;
	if (d->tag & T_DIR)
		git_chdir(g->ev, o->val);
}

/* The options of the subcommand: its table, else its kind's. */
static const struct optdef *
git_opts(const struct git_sub *t)
{
	return t->opts != NULL ? t->opts : t->kind == G_READ ? o_read :
	    t->kind == G_NET ? o_net : o_write;
}

/*
 * The one walk over the subcommand's words (the table walk of opts.c):
 * each option's effects (on the first walk only), and fn for each
 * operand, path after "--" and value of an option in the next word.
 */
static void
git_walk(struct git_ctx *g, git_word_fn fn, void *arg)
{
	const struct optset os = { .cluster = 1, .d = git_opts(g->t) };
	struct an_walk it;
	struct an_opt o;
	int r;

	an_walk_init(&it, g->i, NULL, AN_W_NONE);
	an_walk_table(&it, &os, NULL);
	while ((r = an_opt_next(g->v, &it, &o)) >= 0) {
		if (r == 1 && o.d != NULL)
			git_effect(g, &o);
		if (fn == NULL)
			continue;
		if (r == 0)
			fn(g, o.k, it.opts ? AT_OPERAND : AT_PATH, arg);
		else if (o.d != NULL && o.k + 1 < g->v->n &&
		    o.val == &g->v->w[o.k + 1])
			fn(g, o.k + 1, AT_VALUE, arg);
	}
	g->quiet = 1;
}

/* ---- subcommands with rules of their own ---------------------------------- */

/* The first operand (git_walk): *(int *)arg, -1 when none. */
static void
git_first(struct git_ctx *g, int k, enum git_at at, void *arg)
{
	int *first = arg;

	(void)g;
	if (at != AT_VALUE && *first < 0)
		*first = k;
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

/*
 * What a subcommand that shows names is read: paths, REV:PATH, and (as
 * a reader might take them) the values of its options. The PATH of
 * REV:PATH starts after a ':' git alone knows (":0:.env",
 * "HEAD^{/[:]?}:.env", "HEAD@{2030-01-01 00:00:00}:.env"): the text
 * after every ':' is read as a path.
 */
static void
git_read_word(struct git_ctx *g, int k, enum git_at at, void *arg)
{
	const char *s = g->v->w[k].s, *colon;

	(void)at;
	(void)arg;
	if (!an_lit(&g->v->w[k]))
		return;
	if (strchr(s, ':') == NULL) {
		trig_read(g->ev, s, "git");
		return;
	}
	for (colon = strchr(s, ':'); colon != NULL;
	    colon = strchr(colon + 1, ':'))
		if (colon[1] != '\0')
			trig_read(g->ev, colon + 1, "git");
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

static int git_top(const struct ev *, char *, size_t);

/*
 * git ls-files, ls-tree and rev-parse print their operands' names (git
 * rev-parse .env prints .env; ls-files -o lists untracked files, as find
 * does): when what they print is used (a pipe, $(...)) and an operand or
 * the untracked files they list may name secrets, the names are secrets'
 * (cat $(git rev-parse .env), git ls-files -o | xargs cat).
 */
static void
git_names_secret(const struct git_ctx *g)
{
	struct ev *ev = g->ev;
	struct cmdv *v = g->v;
	char path[SBX_PATH_MAX];
	int k, ls = strcmp(g->sub, "ls-files") == 0;
	const char *s;

	/* status lists the untracked (and with --ignored the ignored)
	 * files of the whole working tree, check-ignore ignored ones
	 * (also named on its input): git status --porcelain --ignored |
	 * cut -c4- | xargs cat */
	if ((strcmp(g->sub, "status") == 0 ||
	    strcmp(g->sub, "check-ignore") == 0) && an_output_used(v)) {
		if (git_top(ev, path, sizeof(path)) < 0)
			memcpy(path, ".", 2);
		if (trig_tree_secret(ev, path, 0, NULL))
			an_names_secret(ev, v);
		return;
	}
	if (!(ls || strcmp(g->sub, "ls-tree") == 0 ||
	    strcmp(g->sub, "rev-parse") == 0) || !an_output_used(v))
		return;
	for (k = g->i; k < v->n; k++) {
		const struct sh_word *w = &v->w[k];

		s = w->s;
		if (ls && an_lit(w) && s[0] == '-' && s[1] != '-' &&
		    strpbrk(s + 1, "oi") != NULL && trig_tree_secret(ev, ".", 0,
		    NULL)) {
			an_names_secret(ev, v);         /* -o, -i: untracked */
			return;
		}
		if (ls && an_lit(w) && (strncmp(s, "--others", 8) == 0 ||
		    strncmp(s, "--ignored", 9) == 0) && trig_tree_secret(ev, ".",
		    0, NULL)) {
			an_names_secret(ev, v);
			return;
		}
		if (an_lit(w) && s[0] == '-')
			continue;
		if (((w->flags & SH_W_GLOB) && !(w->flags & (SH_W_VAR |
		    SH_W_SUBST | SH_W_BRACE)) && an_glob_secret_dry(ev, w)) ||
		    (an_word_path(ev, w, path, sizeof(path)) >= 0 &&
		    trig_is_secret(ev, path, 1))) {
			an_names_secret(ev, v);
			return;
		}
	}
}

/* ---- what git reads of the working tree --------------------------------- */

/* The pathspecs of a subcommand that reads a tree (git_walk). */
struct git_spec {
	int pattern;            /* the first operand is the pattern (grep) */
	int seen;               /* operands passed */
	int paths;              /* existing paths read */
	int wide;               /* the whole tree: a glob or a word only known
	                           at run time, a path not there after "--" */
	int top;                /* pathspec magic (":/"): from the top */
	int secret;             /* GT_LIST: a tree named holds secrets */
	struct tree_names names;        /* "*.c": the names read */
};

/* 1 when path (as written) names something that is there. */
static int
git_path_there(const struct ev *ev, const char *path)
{
	char res[SBX_PATH_MAX];
	unsigned mode;

	return (path[0] == '/' || path[0] == '~' || ev->cwd_known) &&
	    path_resolve_c(ev->pc, ev->cwd, ev->call->home, path, res,
	    sizeof(res)) == 0 && path_lstat(ev->pc, res, &mode) == 0;
}

/*
 * One operand of grep, ls-files, ls-tree, diff: before "--" a revision
 * or a path that is there (git refuses a word that is neither), after it
 * a pathspec. A path there is read as a tree; "*SUFFIX" (no other glob
 * character, no "/": git's "*" matches "/", so only a suffix narrows by
 * name) narrows the working directory to those names; any other glob, a
 * path not there after "--", a word only known at run time read the
 * whole working directory; ":" pathspec magic (":/" is the top) the top.
 */
static void
git_spec_word(struct git_ctx *g, int k, enum git_at at, void *arg)
{
	struct git_spec *sp = arg;
	const struct sh_word *w = &g->v->w[k];
	char path[SBX_PATH_MAX];
	const char *s = w->s;

	if (at == AT_VALUE)
		return;
	if (at == AT_OPERAND && sp->pattern && sp->seen++ == 0)
		return;         /* grep's pattern */
	if (!an_lit(w) || an_word_path(g->ev, w, path, sizeof(path)) != 1) {
		sp->wide = 1;
		return;
	}
	if (s[0] == ':') {
		sp->top = 1;
		return;
	}
	if (s[0] == '*' && s[1] != '\0' && strpbrk(s + 1, "*?[]\\/") == NULL &&
	    sp->names.n < TREE_NAMES_MAX) {
		sp->names.v[sp->names.n++] = s;
		return;
	}
	if (strpbrk(s, "*?[") != NULL) {
		sp->wide = 1;
		return;
	}
	if (git_path_there(g->ev, path)) {
		sp->paths++;
		if (g->t->tree == GT_GREP)
			trig_read_tree_names(g->ev, path, "git grep", 0, NULL);
		else
			sp->secret |= trig_tree_secret(g->ev, path, 0, NULL);
		return;
	}
	if (at == AT_PATH)
		sp->wide = 1;   /* a pathspec not there: it may be a glob */
	/* else a revision: its tree, below the working directory */
}

/* The top of the working tree: the directory from the working directory
 * up that holds .git; 0, or -1 when not found. */
static int
git_top(const struct ev *ev, char *out, size_t outsz)
{
	char d[SBX_PATH_MAX + 8];
	unsigned mode;
	char *slash;
	size_t n;

	if (!ev->cwd_known || (n = strlen(ev->cwd)) >= outsz ||
	    n >= SBX_PATH_MAX)
		return -1;
	memcpy(d, ev->cwd, n + 1);
	for (;;) {
		memcpy(d + n, n == 1 ? ".git" : "/.git", n == 1 ? 5 : 6);
		if (path_lstat(ev->pc, d, &mode) == 0) {
			d[n] = '\0';
			memcpy(out, d, n + 1);
			return 0;
		}
		d[n] = '\0';
		if (n == 1)
			return -1;
		slash = strrchr(d, '/');
		n = slash == d ? 1 : (size_t)(slash - d);
		d[n] = '\0';
	}
}

/*
 * git grep reads every file below its pathspecs (by default the working
 * directory), as grep -r does; ls-files, ls-tree and diff --name-only
 * list their names, which name secrets when what they print is used
 * (git ls-files | xargs cat) and the tree holds denyRead files. Which
 * of them git tracks is not looked at: every file counts (stricter).
 * --work-tree DIR: the tree is DIR; diff --no-index: its operands are
 * paths, read as trees.
 */
static void
git_tree_read(struct git_ctx *g)
{
	struct ev *ev = g->ev;
	struct git_spec sp;
	const struct tree_names *names;
	char top[SBX_PATH_MAX];
	const char *where = ".";

	if (g->t->tree == GT_NONE || (g->t->tree == GT_LIST &&
	    !an_output_used(g->v)))
		return;
	if (strcmp(g->sub, "diff") == 0 && !(g->marks & GM_NAMES))
		return;
	memset(&sp, 0, sizeof(sp));
	sp.pattern = g->t->tree == GT_GREP && !(g->marks & GM_PAT);
	sp.names.fold = g->icase;
	git_walk(g, git_spec_word, &sp);
	if (g->worktree_set) {
		/* the tree is elsewhere: all of it */
		if (g->worktree == NULL || !an_lit(g->worktree) ||
		    an_word_path(ev, g->worktree, top, sizeof(top)) != 1) {
			ev_factor(ev, F_UNKNOWN);
			ev_note(ev, POLICY_ESCALATE, "read", "builtin: git",
			    "git %s reads a working tree only known at run "
			    "time (--work-tree)", g->sub);
			return;
		}
		where = top;
		sp.wide = 1;
	} else if (sp.top) {
		if (git_top(ev, top, sizeof(top)) < 0) {
			ev_factor(ev, F_UNKNOWN);
			ev_note(ev, POLICY_ESCALATE, "read", "builtin: git",
			    "git %s reads from the top of a working tree the "
			    "policy cannot find (pathspec magic)", g->sub);
			return;
		}
		where = top;
		sp.wide = 1;
	}
	if (!sp.wide && sp.paths > 0 && sp.names.n == 0) {
		if (sp.secret)  /* the paths named (GT_GREP: read above) */
			an_names_secret(ev, g->v);
		return;
	}
	names = !sp.wide && sp.names.n > 0 ? &sp.names : NULL;
	if (g->t->tree == GT_GREP)
		trig_read_tree_names(ev, where, "git grep", 0, names);
	else if (sp.secret || trig_tree_secret(ev, where, 0, names))
		an_names_secret(ev, g->v);
}

/* An operand read as a tree, every file below it (counted in *arg when
 * ARG is not NULL): diff --no-index A B, add -f DIR. */
static void
git_tree_read_word(struct git_ctx *g, int k, enum git_at at, void *arg)
{
	if (at == AT_VALUE)
		return;
	if (arg != NULL)
		(*(int *)arg)++;
	an_read_tree_how(g->ev, g->v, &g->v->w[k], 0);
}

/*
 * git diff compares two paths as --no-index does without being told
 * when no repository is found or (git's cmd_diff) exactly two words
 * follow its leading options and one of them lies outside the working
 * tree: git diff /tmp/empty .env. 1 when that may be so: two such words
 * and no top found, --git-dir/--work-tree, a word only known at run
 * time or outside the top.
 */
static int
git_diff_implicit(struct git_ctx *g)
{
	const struct cmdv *v = g->v;
	char top[SBX_PATH_MAX], path[SBX_PATH_MAX], res[SBX_PATH_MAX];
	size_t n;
	int k, j;

	for (k = g->i; k < v->n; k++)
		if (!an_lit(&v->w[k]) || strcmp(v->w[k].s, "--") == 0 ||
		    v->w[k].s[0] != '-')
			break;
	if (v->n - k != 2)
		return 0;
	if (g->gitdir_set || g->worktree_set ||
	    git_top(g->ev, top, sizeof(top)) < 0)
		return 1;
	n = strlen(top);
	for (j = k; j < v->n; j++) {
		if (!an_lit(&v->w[j]) ||
		    an_word_path(g->ev, &v->w[j], path, sizeof(path)) != 1 ||
		    path_resolve_c(g->ev->pc, g->ev->cwd, g->ev->call->home,
		    path, res, sizeof(res)) != 0)
			return 1;
		if (strncmp(res, top, n) != 0 || (n > 1 && res[n] != '/' &&
		    res[n] != '\0'))
			return 1;
	}
	return 0;
}

static int
git_config(struct git_ctx *g)
{
	int k = -1;

	git_walk(g, git_first, &k);
	if (k >= 0 && (strcmp(g->v->w[k].s, "get") == 0 ||
	    strcmp(g->v->w[k].s, "list") == 0))
		return 1;
	if ((g->marks & GM_SHOW) ||
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

/* add PATH: the file's content goes into the object store, where
 * cat-file -p HASH shows it: a read of the paths named (a tree added,
 * git add ., relies on .gitignore: see docs/POLICY.md) */
static void
git_add_word(struct git_ctx *g, int k, enum git_at at, void *arg)
{
	(void)arg;
	if (at != AT_VALUE)
		an_op_read(g->ev, g->v, &g->v->w[k], 0);
}

static int
git_add(struct git_ctx *g)
{
	int n = 0;

	if (!(g->marks & GM_FORCE)) {
		git_walk(g, git_add_word, NULL);
		return 0;
	}
	/* add -f DIR: .gitignore no longer keeps a secret below DIR out
	 * (git add -f . then git diff --cached shows .env) */
	git_walk(g, git_tree_read_word, &n);
	if (n == 0)     /* -A, -u: the working tree */
		trig_read_tree_names(g->ev, ".", "git add", 0, NULL);
	return 0;
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

#define R(n, o)         { n, G_READ, B_NONE, GT_NONE, o, NULL, NULL }
#define RT(n, o, t)     { n, G_READ, B_NONE, t, o, NULL, NULL }
#define W(n, o, a, j)   { n, G_WRITE, B_NONE, GT_NONE, o, a, j }
#define B(n, b, o, a)   { n, G_WRITE, b, GT_NONE, o, a, NULL }
#define N(n, o, j)      { n, G_NET, B_NONE, GT_NONE, o, NULL, j }

/* Every subcommand the policy knows; any other escalates (aliases can
 * run commands). */
static const struct git_sub git_subs[] = {
	R("status", NULL), R("log", NULL), RT("diff", o_diff, GT_LIST),
	R("show", NULL),
	R("blame", o_blame), R("annotate", o_blame), R("shortlog", NULL),
	R("describe", NULL), R("rev-parse", NULL), R("rev-list", NULL),
	RT("ls-files", o_ls_files, GT_LIST), RT("ls-tree", NULL, GT_LIST),
	R("cat-file", o_cat_file), RT("grep", o_grep, GT_GREP), R("whatchanged", NULL), R("name-rev", NULL),
	R("merge-base", NULL), R("count-objects", NULL),
	R("verify-commit", NULL), R("verify-tag", NULL), R("cherry", NULL),
	R("version", NULL), R("help", NULL), R("var", NULL),
	R("check-ignore", NULL), R("check-attr", NULL),
	R("check-ref-format", NULL), R("for-each-ref", NULL),
	R("show-ref", NULL), R("show-branch", NULL), R("range-diff", NULL),
	R("fsck", o_fsck), R("diff-tree", NULL), R("diff-files", NULL),
	R("diff-index", NULL), R("hash-object", o_hash_object),
	N("push", o_push, git_push), N("pull", NULL, git_fetch),
	N("fetch", NULL, git_fetch), N("ls-remote", NULL, git_fetch),
	N("clone", NULL, git_fetch), N("send-email", NULL, git_fetch),
	N("request-pull", NULL, git_fetch),
	W("add", o_add, NULL, git_add), W("stage", o_add, NULL, git_add),
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
	W("reflog", o_reflog, a_reflog, NULL),
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
#undef RT
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

/* The operands after the action word are paths written (worktree add
 * DIR, bundle create FILE): all of them, a value of an option the table
 * does not know among them. */
static void
git_add_path(struct git_ctx *g, int k, enum git_at at, void *arg)
{
	if (at != AT_VALUE && k > *(int *)arg)
		an_write_word(g->ev, g->v, &g->v->w[k]);
}

/* ... pathspecs whose tracked files it rewrites (stash push -- PATHS) */
static void
git_pathspec(struct git_ctx *g, int k, enum git_at at, void *arg)
{
	if (at != AT_VALUE && k > *(int *)arg)
		an_write_tree_word(g->ev, g->v, &g->v->w[k]);
}

/* The action the first operand names: 1 decided, 0 a local write. */
static int
git_act(struct git_ctx *g)
{
	const struct gact *a;
	const char *w;
	int k = -1;

	git_walk(g, git_first, &k);
	if (k >= 0 && !an_lit(&g->v->w[k])) {
		ev_factor(g->ev, F_UNKNOWN);
		ev_note(g->ev, POLICY_ESCALATE, "shell", "builtin: git",
		    "git %s: the action is only known at run time", g->sub);
		return 1;
	}
	w = k >= 0 ? g->v->w[k].s : NULL;
	for (a = g->t->acts; strcmp(a->word != NULL ? a->word : "", "*") != 0;
	    a++)
		if (a->word == NULL ? w == NULL : w != NULL &&
		    strcmp(w, a->word) == 0)
			break;
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
	case A_PATHS:
		git_walk(g, a->act == A_ADD ? git_add_path : git_pathspec, &k);
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
 * git's global options, up to the subcommand (the table walk of opts.c):
 * the index of the subcommand, or -1 when judged (or nothing runs: git
 * alone prints help).
 */
static int
git_globals(struct git_ctx *g)
{
	static const struct optset os = { .cluster = 1, .d = o_global };
	struct an_walk it;
	struct an_opt o;
	int r;

	an_walk_init(&it, 1, NULL, AN_W_NONE);
	an_walk_table(&it, &os, NULL);
	while ((r = an_opt_next(g->v, &it, &o)) == 1 &&
	    (o.d != NULL || an_lit(&g->v->w[o.k])))
		if (o.d != NULL)
			git_effect(g, &o);
	if (r >= 0 && !an_lit(&g->v->w[o.k])) {
		ev_factor(g->ev, F_UNKNOWN);
		ev_note(g->ev, POLICY_ESCALATE, "shell", "builtin: git",
		    "git subcommand is only known at run time");
		return -1;
	}
	return g->done || r < 0 ? -1 : o.k;
}

/* ---- the repository git opens -------------------------------------------- */

static void
git_repo_unprotected(struct ev *ev, const char *repo, const char *why)
{
	ev_factor(ev, F_CODE);
	ev_note(ev, POLICY_ESCALATE, "shell", "builtin: git repository",
	    "git opens the repository %s%s: its configuration can make git "
	    "run commands (core.fsmonitor, core.pager, aliases, hooks), and "
	    "the policy protects it only in a directory named .git", repo, why);
}

/*
 * The repository git opens, found as git finds it: --git-dir, else from
 * the working directory up: DIR/.git (a directory, or a gitfile naming
 * one: both are written only through a human, /.git being denyWrite),
 * else DIR itself when it is a git dir (a bare repository). A git dir
 * not named .git, a --git-dir not named .git, or a place only known at
 * run time escalates.
 */
static void
git_repo(struct git_ctx *g)
{
	struct ev *ev = g->ev;
	char d[SBX_PATH_MAX];
	const char *s, *base;
	unsigned mode;
	size_t n;
	char *slash;

	if (g->gitdir_set) {
		/* --git-dir=$(pwd)/.git: the name is what counts */
		s = g->gitdir != NULL && !(g->gitdir->flags & (SH_W_VAR |
		    SH_W_GLOB | SH_W_BRACE)) ? g->gitdir->s : NULL;
		if (s != NULL && s[0] == '=')
			s++;
		n = s != NULL ? strlen(s) : 0;
		while (n > 1 && s[n - 1] == '/')
			n--;
		base = s;
		for (size_t i = 0; s != NULL && i < n; i++)
			if (s[i] == '/')
				base = s + i + 1;
		if (s != NULL && (size_t)(base - s) + 4 == n &&
		    strncmp(base, ".git", 4) == 0)
			return;
		/* another name: one the agent could not have written (a
		 * human's bare repository) passes */
		if (s != NULL && !(g->gitdir->flags & SH_W_SUBST) &&
		    (s[0] == '/' || ev->cwd_known) &&
		    path_resolve_c(ev->pc, ev->cwd, ev->call->home, s, d,
		    sizeof(d)) == 0 && !trig_agent_area(ev, d))
			return;
		git_repo_unprotected(ev, s != NULL ? s : "named by --git-dir",
		    " (--git-dir, not a .git directory)");
		return;
	}
	if (!ev->cwd_known) {
		git_repo_unprotected(ev, "found from a directory only known "
		    "at run time", "");
		return;
	}
	n = strlen(ev->cwd);
	if (n >= sizeof(d) - 8) {
		git_repo_unprotected(ev, ev->cwd, " (a path too long)");
		return;
	}
	memcpy(d, ev->cwd, n + 1);
	for (;;) {
		/* Above the places the agent may write, nothing it made is
		 * found (and no place above is one: they are trees). */
		if (!trig_agent_area(ev, d))
			return;
		/* (a directory that is not there holds nothing) */
		if (path_lstat(ev->pc, d, &mode) == 0 && S_ISDIR(mode)) {
			memcpy(d + n, n == 1 ? ".git" : "/.git", n == 1 ? 5 : 6);
			if (path_lstat(ev->pc, d, &mode) == 0)
				return;
			d[n] = '\0';
		}
		if (trig_git_dir(ev, d, 0)) {
			git_repo_unprotected(ev, d, " (a git directory not named "
			    ".git)");
			return;
		}
		if (n == 1)
			return;
		slash = strrchr(d, '/');
		n = slash == d ? 1 : (size_t)(slash - d);
		d[n] = '\0';
	}
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
	git_repo(&g);
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
	git_names_secret(&g);
	git_tree_read(&g);
	if (g.t->kind == G_READ) {
		if (strcmp(g.sub, "diff") == 0 && git_diff_implicit(&g))
			g.marks |= GM_NOINDEX;
		git_walk(&g, (g.marks & GM_NOINDEX) ? git_tree_read_word :
		    git_read_word, NULL);
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
