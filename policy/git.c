/*
 * git.c - git, subcommand by subcommand.
 *
 * Rules:
 * - Read-only subcommands pass; what they show of a path is a read.
 * - Local writes are writes to the repository directory; forms that
 *   discard work (reset --hard, checkout -- paths, clean, branch -D)
 *   escalate as destructive; push always escalates.
 * - Options and subcommands that run programs (-c, --upload-pack, apply,
 *   plumbing) escalate, and so does any subcommand the table does not know
 *   (aliases can run commands).
 */
#include "policy/analyse.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/*
 * The paths a checkout or restore rewrites: its operands that look like
 * paths (after "--", or with a "/" or "."). Each is a tree: checking out
 * .claude may rewrite the settings in it, if they are tracked.
 */
static void
git_path_writes(struct ev *ev, struct cmdv *v, int from)
{
	int k, paths = 0;
	const char *s;

	for (k = from; k < v->n; k++) {
		s = v->w[k].s;
		if (an_lit(&v->w[k]) && strcmp(s, "--") == 0) {
			paths = 1;
			continue;
		}
		if (an_is_opt(&v->w[k])) {
			if (strcmp(s, "-b") == 0 || strcmp(s, "-B") == 0 ||
			    strcmp(s, "-s") == 0 || strcmp(s, "--source") == 0)
				k++;
			continue;
		}
		if (paths || strchr(s, '/') != NULL || strchr(s, '.') != NULL ||
		    !an_lit(&v->w[k])) {
			char p[SBX_PATH_MAX];

			/* a protected file named: denied; a tree holding one
			 * (only tracked files change): escalated */
			if (an_word_path(ev, &v->w[k], p, sizeof(p)) == 1)
				trig_write_tree(ev, p, "git", 1);
			else
				trig_write(ev, NULL, "git");
		}
	}
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

static void
git_destructive(struct ev *ev, const char *what)
{
	ev_factor(ev, F_DESTRUCTIVE);
	ev_note(ev, POLICY_ESCALATE, "shell", "builtin: git destructive",
	    "%s discards work that cannot be restored", what);
}

/* What one git command is judged with (git_judge). */
struct git_ctx {
	struct ev *ev;
	struct cmdv *v;
	const char *sub;        /* the subcommand */
	int i;                  /* the index of its first argument */
	int pos;                /* operands after it (write subcommands) */
};

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

/* 1 if an argument of the subcommand is one of l; lit: only a word
 * whose value is known (like an_has_word), else any word's text. */
static int
has_word_in(const struct git_ctx *g, const char *const *l, int lit)
{
	int k;

	for (k = g->i; k < g->v->n; k++)
		if ((!lit || an_lit(&g->v->w[k])) && word_in(g->v->w[k].s, l))
			return 1;
	return 0;
}

static int
has_any(const struct git_ctx *g, const char *const *l)
{
	return has_word_in(g, l, 1);
}

/* The first argument of the subcommand is one of l ("stash list"). */
static int
first_is(const struct git_ctx *g, const char *const *l)
{
	return g->i < g->v->n && word_in(g->v->w[g->i].s, l);
}

static int
git_escalate(const struct git_ctx *g, const char *rule, const char *why)
{
	ev_note(g->ev, POLICY_ESCALATE, "shell", rule, "git %s %s", g->sub,
	    why);
	return 1;
}

/* ---- subcommands that reach the network --------------------------------- */

static int
git_push(const struct git_ctx *g)
{
	static const char *const destroys[] = {
		"-f", "--force*", "--delete", "-d", "--mirror", "--prune", NULL,
	};
	const char *s;
	int k;

	ev_factor(g->ev, F_NETWORK);
	for (k = g->i; k < g->v->n; k++) {
		s = g->v->w[k].s;
		if (word_in(s, destroys) || (s[0] == '+' && s[1] != '\0') ||
		    (s[0] == ':' && s[1]))
			ev_factor(g->ev, F_DESTRUCTIVE);
	}
	ev_note(g->ev, POLICY_ESCALATE, "network", "builtin: git push",
	    "git push publishes to a remote; a human decides");
	return 1;
}

/* pull, fetch, clone ...: the hosts named, and a write to the repository
 * (but for ls-remote). */
static int
git_fetch(const struct git_ctx *g)
{
	/* options that run programs or plant hooks in the new repo */
	static const char *const runs[] = {
		"--upload-pack*", "-u", "--receive-pack*", "--exec*", "-c",
		"--config*", "--template*", "--separate-git-dir*", NULL,
	};
	struct cmdv *v = g->v;
	int k, hosts = 0;

	for (k = g->i; k < v->n; k++)
		if (word_in(v->w[k].s, runs)) {
			ev_factor(g->ev, F_CODE);
			ev_note(g->ev, POLICY_ESCALATE, "shell", "builtin: git",
			    "git %s %s can run programs or install hooks", g->sub,
			    v->w[k].s);
			return 1;
		}
	for (k = g->i; k < v->n; k++)
		if (an_lit(&v->w[k]) && strstr(v->w[k].s, "://") != NULL) {
			an_net_host_word(g->ev, "git", v->w[k].s);
			hosts++;
		}
	if (hosts == 0)
		trig_network(g->ev, NULL, "git");
	else
		ev_factor(g->ev, F_NETWORK);
	if (strcmp(g->sub, "ls-remote") != 0)
		trig_write(g->ev, ".", "git");
	return 1;
}

/* ---- read-only subcommands ---------------------------------------------- */

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

/* Paths and REV:PATH name files whose content is shown; --output writes.
 * 1: done; 0: fsck --lost-found writes, judged as a write. */
static int
git_read(const struct git_ctx *g)
{
	static const char *const runs[] = {
		"--ext-diff", "-O", "--open-files-in-pager*", NULL,
	};
	struct ev *ev = g->ev;
	struct cmdv *v = g->v;
	const char *s, *colon;
	int k;

	for (k = g->i; k < v->n; k++) {
		s = v->w[k].s;
		if (!an_is_opt(&v->w[k]) && an_lit(&v->w[k])) {
			colon = strchr(s, ':');
			trig_read(ev, colon != NULL && colon[1] != '\0' ?
			    colon + 1 : s, "git");
		}
		if (strncmp(s, "--output=", 9) == 0)
			trig_write(ev, s + 9, "git");
		else if ((strcmp(s, "--output") == 0 || strcmp(s, "-o") == 0) &&
		    k + 1 < v->n && strcmp(g->sub, "grep") != 0)
			an_write_word(ev, v, &v->w[k + 1]);
		else if (word_in(s, runs))
			ev_note(ev, POLICY_ESCALATE, "shell", "builtin: git",
			    "git %s %s runs an external program", g->sub, s);
	}
	return !(strcmp(g->sub, "fsck") == 0 &&
	    an_has_word(v, g->i, "--lost-found"));
}

/* ---- subcommands that write: 1 decided, 0 a local write ----------------- */

static int
git_config(const struct git_ctx *g)
{
	static const char *const gets[] = {
		"--get", "--get-all", "--get-regexp", "--list", "-l",
		"--get-color", "--get-urlmatch", "get", "list", NULL,
	};
	static const char *const sets[] = {
		"--unset", "--unset-all", "--edit", "-e", NULL,
	};
	struct cmdv *v = g->v;

	if (has_word_in(g, gets, 0) || (g->pos == 1 && !has_any(g, sets)))
		return 1;
	if (an_has_word(v, g->i, "--global"))
		trig_write(g->ev, "~/.gitconfig", "git config");
	else if (an_has_word(v, g->i, "--system"))
		trig_write(g->ev, "/etc/gitconfig", "git config");
	git_config_write(g->ev, "git config");
	return 1;
}

static int
git_maintenance(const struct git_ctx *g)
{
	if (g->i >= g->v->n || strcmp(g->v->w[g->i].s, "run") == 0)
		return 0;
	ev_note(g->ev, POLICY_ESCALATE, "shell", "builtin: git",
	    "git maintenance %s changes the user's git configuration and "
	    "schedules jobs", g->v->w[g->i].s);
	return 1;
}

static int
git_stash(const struct git_ctx *g)
{
	static const char *const shows[] = { "list", "show", NULL };
	static const char *const drops[] = { "drop", "clear", NULL };
	struct cmdv *v = g->v;
	const char *s;
	int k;

	for (k = g->i; k < v->n; k++) {
		s = v->w[k].s;
		if (!an_lit(&v->w[k]) || strcmp(s, "--all") == 0 ||
		    strcmp(s, "--include-untracked") == 0 ||
		    (s[0] == '-' && s[1] != '-' && strpbrk(s, "au") != NULL)) {
			ev_factor(g->ev, F_PROTECTED | F_DESTRUCTIVE);
			ev_note(g->ev, POLICY_ESCALATE, "write", "self-protection",
			    "git stash %s stashes away (removes) untracked or "
			    "ignored files, sbx's own .sandbox among them", s);
			return 1;
		}
	}
	if (first_is(g, shows))
		return 1;
	if (first_is(g, drops)) {
		git_destructive(g->ev, "git stash drop/clear");
		return 1;
	}
	return 0;
}

static int
git_init(const struct git_ctx *g)
{
	static const char *const valued[] = {
		"-b", "--initial-branch", "--object-format", "--ref-format",
		"--shared", NULL,
	};
	struct cmdv *v = g->v;
	int k;

	for (k = g->i; k < v->n; k++)
		if (!an_is_opt(&v->w[k]) && !(k > g->i &&
		    an_lit(&v->w[k - 1]) && word_in(v->w[k - 1].s, valued)))
			an_write_tree_word(g->ev, v, &v->w[k]);
	return 0;
}

static int
git_branch(const struct git_ctx *g)
{
	static const char *const changes[] = {
		"-m", "-M", "-c", "-C", "-a", "-s", "--set-upstream*", "-u",
		"--unset-upstream", "--edit-description", "--move", "--copy",
		NULL,
	};
	static const char *const lists[] = {
		"--list", "-l", "--contains", "--merged", NULL,
	};
	struct cmdv *v = g->v;
	int k, del = 0, force = 0, change = 0, tag = !strcmp(g->sub, "tag");
	const char *s;

	for (k = g->i; k < v->n; k++) {
		s = v->w[k].s;
		if (strcmp(s, "-D") == 0 || (tag && strcmp(s, "-d") == 0))
			del = force = 1;
		else if (strcmp(s, "-d") == 0 || strcmp(s, "--delete") == 0)
			del = 1;
		else if (strcmp(s, "-f") == 0 || strcmp(s, "--force") == 0)
			force = 1;
		else if (word_in(s, changes))
			change = 1;
	}
	if (del && force) {
		git_destructive(g->ev, "deleting a branch or tag by force");
		return 1;
	}
	if (!del && !change && g->pos == 0)
		return 1;       /* listing */
	if (tag && an_has_word(v, g->i, "-l") && !del)
		return 1;
	return !tag && !del && !change && has_any(g, lists);
}

static int
git_remote(const struct git_ctx *g)
{
	static const char *const shows[] = { "-v", "get-url", "--verbose", NULL };
	static const char *const nets[] = { "show", "update", "prune", NULL };

	if (g->i >= g->v->n || first_is(g, shows))
		return 1;
	if (first_is(g, nets)) {
		trig_network(g->ev, NULL, "git remote");
		return 1;
	}
	git_config_write(g->ev, "git remote");
	return 1;
}

static int
git_worktree(const struct git_ctx *g)
{
	struct cmdv *v = g->v;
	int k;

	if (g->i < v->n && strcmp(v->w[g->i].s, "list") == 0)
		return 1;
	if (g->i + 1 < v->n && strcmp(v->w[g->i].s, "add") == 0)
		for (k = g->i + 1; k < v->n; k++)
			if (!an_is_opt(&v->w[k])) {
				an_write_word(g->ev, v, &v->w[k]);
				break;
			}
	return 0;
}

static int
git_submodule(const struct git_ctx *g)
{
	static const char *const local[] = {
		"status", "summary", "foreach", NULL,
	};

	if (g->i >= g->v->n || first_is(g, local)) {
		if (g->i < g->v->n && strcmp(g->v->w[g->i].s, "foreach") == 0)
			ev_note(g->ev, POLICY_ESCALATE, "shell", "builtin: git",
			    "git submodule foreach runs a command string");
		return 1;
	}
	trig_network(g->ev, NULL, "git submodule");
	return 0;
}

static int
git_reflog(const struct git_ctx *g)
{
	static const char *const drops[] = { "expire", "delete", NULL };

	if (first_is(g, drops)) {
		git_destructive(g->ev, "git reflog expire/delete");
		return 1;
	}
	return g->i >= g->v->n || strcmp(g->v->w[g->i].s, "show") == 0 ||
	    g->v->w[g->i].s[0] == '-';
}

static int
git_clean(const struct git_ctx *g)
{
	static const char *const dry[] = { "-n", "--dry-run", NULL };

	if (!has_any(g, dry))
		git_destructive(g->ev, "git clean");
	return 1;
}

static int
git_reset(const struct git_ctx *g)
{
	static const char *const hard[] = { "--hard", "--merge", "--keep", NULL };

	if (!has_any(g, hard))
		return 0;
	git_destructive(g->ev, "git reset --hard");
	return 1;
}

static int
git_checkout(const struct git_ctx *g)
{
	static const char *const paths[] = {
		"--", ".", "-f", "--force", "-p", "--patch", "--ours",
		"--theirs", NULL,
	};
	struct cmdv *v = g->v;
	const char *s;
	int k;

	for (k = g->i; k < v->n; k++) {
		s = v->w[k].s;
		if (word_in(s, paths) ||
		    (!an_is_opt(&v->w[k]) && (strchr(s, '.') != NULL ||
		    strchr(s, '/') != NULL) && !(k > g->i &&
		    (strcmp(v->w[k - 1].s, "-b") == 0 ||
		    strcmp(v->w[k - 1].s, "-B") == 0)))) {
			git_path_writes(g->ev, v, g->i);
			git_destructive(g->ev, "git checkout of paths");
			return 1;
		}
	}
	return 0;
}

static int
git_restore(const struct git_ctx *g)
{
	struct cmdv *v = g->v;

	if ((an_has_word(v, g->i, "--staged") || an_has_short(v, g->i, 'S',
	    "s")) && !an_has_word(v, g->i, "--worktree") &&
	    !an_has_short(v, g->i, 'W', "s"))
		return 0;
	git_path_writes(g->ev, v, g->i);
	git_destructive(g->ev, "git restore");
	return 1;
}

static int
git_switch(const struct git_ctx *g)
{
	static const char *const discards[] = {
		"--discard-changes", "-f", "--force", "-C", NULL,
	};

	if (!has_any(g, discards))
		return 0;
	git_destructive(g->ev, "git switch --discard-changes");
	return 1;
}

static int
git_mvrm(const struct git_ctx *g)
{
	struct cmdv *v = g->v;
	int k;

	for (k = g->i; k < v->n; k++)
		if (!an_is_opt(&v->w[k]))
			an_write_tree_word(g->ev, v, &v->w[k]);
	if (v->extra)
		trig_write(g->ev, NULL, "git");
	return 0;
}

static int
git_apply(const struct git_ctx *g)
{
	static const char *const checks[] = {
		"--check", "--stat", "--numstat", "--summary", NULL,
	};

	if (strcmp(g->sub, "apply") == 0 && has_any(g, checks) &&
	    !an_has_word(g->v, g->i, "--apply"))
		return 1;
	return git_escalate(g, "builtin: git patch", "applies a patch the "
	    "policy cannot see; it may change any file, sbx's own included");
}

static int
git_plumbing(const struct git_ctx *g)
{
	return git_escalate(g, "builtin: git plumbing", "can rewrite any "
	    "tracked file or ref, sbx's own included");
}

static int
git_gc(const struct git_ctx *g)
{
	git_destructive(g->ev, "git gc/prune/filter-branch");
	return 1;
}

static int
git_mergetool(const struct git_ctx *g)
{
	return git_escalate(g, "builtin: git", "runs an external program");
}

static int
git_bisect(const struct git_ctx *g)
{
	static const char *const run[] = { "run", NULL };

	return first_is(g, run) ? git_escalate(g, "builtin: git",
	    "run runs a command") : 0;
}

static int
git_rebase(const struct git_ctx *g)
{
	return an_has_word(g->v, g->i, "-x") || an_has_word(g->v, g->i,
	    "--exec") ? git_escalate(g, "builtin: git", "--exec runs a "
	    "command") : 0;
}

/*
 * The subcommands git has, by kind. G_READ: shows (git_read); G_WRITE:
 * writes the repository, after its handler (1: decided); G_NET: the
 * handler decides. A subcommand not listed escalates (aliases can run
 * commands).
 */
enum git_kind { G_READ, G_WRITE, G_NET };

static const struct git_sub {
	const char *name;
	enum git_kind kind;
	int (*judge)(const struct git_ctx *);
} git_subs[] = {
	{ "status", G_READ, NULL }, { "log", G_READ, NULL },
	{ "diff", G_READ, NULL }, { "show", G_READ, NULL },
	{ "blame", G_READ, NULL }, { "annotate", G_READ, NULL },
	{ "shortlog", G_READ, NULL }, { "describe", G_READ, NULL },
	{ "rev-parse", G_READ, NULL }, { "rev-list", G_READ, NULL },
	{ "ls-files", G_READ, NULL }, { "ls-tree", G_READ, NULL },
	{ "cat-file", G_READ, NULL }, { "grep", G_READ, NULL },
	{ "whatchanged", G_READ, NULL }, { "name-rev", G_READ, NULL },
	{ "merge-base", G_READ, NULL }, { "count-objects", G_READ, NULL },
	{ "verify-commit", G_READ, NULL }, { "verify-tag", G_READ, NULL },
	{ "cherry", G_READ, NULL }, { "version", G_READ, NULL },
	{ "help", G_READ, NULL }, { "var", G_READ, NULL },
	{ "check-ignore", G_READ, NULL }, { "check-attr", G_READ, NULL },
	{ "check-ref-format", G_READ, NULL },
	{ "for-each-ref", G_READ, NULL }, { "show-ref", G_READ, NULL },
	{ "show-branch", G_READ, NULL }, { "range-diff", G_READ, NULL },
	{ "fsck", G_READ, NULL }, { "diff-tree", G_READ, NULL },
	{ "diff-files", G_READ, NULL }, { "diff-index", G_READ, NULL },
	{ "hash-object", G_READ, NULL },
	{ "push", G_NET, git_push }, { "pull", G_NET, git_fetch },
	{ "fetch", G_NET, git_fetch }, { "ls-remote", G_NET, git_fetch },
	{ "clone", G_NET, git_fetch }, { "send-email", G_NET, git_fetch },
	{ "request-pull", G_NET, git_fetch },
	{ "add", G_WRITE, NULL }, { "commit", G_WRITE, NULL },
	{ "merge", G_WRITE, NULL }, { "rebase", G_WRITE, git_rebase },
	{ "cherry-pick", G_WRITE, NULL }, { "revert", G_WRITE, NULL },
	{ "mv", G_WRITE, git_mvrm }, { "rm", G_WRITE, git_mvrm },
	{ "init", G_WRITE, git_init }, { "apply", G_WRITE, git_apply },
	{ "am", G_WRITE, git_apply }, { "notes", G_WRITE, NULL },
	{ "bisect", G_WRITE, git_bisect }, { "worktree", G_WRITE, git_worktree },
	{ "stage", G_WRITE, NULL }, { "sparse-checkout", G_WRITE, NULL },
	{ "update-index", G_WRITE, git_plumbing },
	{ "symbolic-ref", G_WRITE, git_plumbing },
	{ "update-ref", G_WRITE, git_plumbing },
	{ "switch", G_WRITE, git_switch }, { "format-patch", G_WRITE, NULL },
	{ "mergetool", G_WRITE, git_mergetool },
	{ "restore", G_WRITE, git_restore },
	{ "checkout", G_WRITE, git_checkout }, { "reset", G_WRITE, git_reset },
	{ "stash", G_WRITE, git_stash }, { "tag", G_WRITE, git_branch },
	{ "branch", G_WRITE, git_branch }, { "config", G_WRITE, git_config },
	{ "clean", G_WRITE, git_clean }, { "reflog", G_WRITE, git_reflog },
	{ "gc", G_WRITE, git_gc }, { "prune", G_WRITE, git_gc },
	{ "repack", G_WRITE, git_gc }, { "filter-branch", G_WRITE, git_gc },
	{ "submodule", G_WRITE, git_submodule }, { "remote", G_WRITE, git_remote },
	{ "maintenance", G_WRITE, git_maintenance },
};

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

/*
 * git's global options, up to the subcommand: the index of the
 * subcommand, or -1 when judged (or nothing runs). *unknown_repo: the
 * repository is named elsewhere (--git-dir, --work-tree).
 */
static int
git_globals(struct ev *ev, struct cmdv *v, int *unknown_repo)
{
	static const char *const runs[] = {
		"-c", "--config-env*", "--exec-path*", NULL,
	};
	const char *s;
	int k;

	for (k = 1; k < v->n; k++) {
		s = v->w[k].s;
		if (strncmp(s, "--git-dir=", 10) == 0 ||
		    strncmp(s, "--work-tree=", 12) == 0) {
			*unknown_repo = 1;
			continue;
		}
		if (!an_lit(&v->w[k])) {
			ev_factor(ev, F_UNKNOWN);
			ev_note(ev, POLICY_ESCALATE, "shell", "builtin: git",
			    "git subcommand is only known at run time");
			return -1;
		}
		if (strcmp(s, "-C") == 0 && k + 1 < v->n) {
			k++;    /* applied to the working directory by an_cls_git */
			continue;
		}
		if (word_in(s, runs)) {
			ev_factor(ev, F_CODE);
			ev_note(ev, POLICY_ESCALATE, "shell", "builtin: git -c",
			    "git %s can set options that run commands", s);
			return -1;
		}
		if (strncmp(s, "--git-dir", 9) == 0 ||
		    strncmp(s, "--work-tree", 11) == 0) {
			*unknown_repo = 1;
			if (strchr(s, '=') == NULL)
				k++;
			continue;
		}
		if (strcmp(s, "--namespace") == 0) {
			k++;
			continue;
		}
		if (s[0] == '-') {
			if (strcmp(s, "--version") == 0 || strcmp(s, "--help") == 0)
				return -1;
			continue;
		}
		return k;
	}
	return -1;              /* git alone prints help */
}

static void
git_judge(struct ev *ev, struct cmdv *v)
{
	struct git_ctx g = { ev, v, NULL, 0, 0 };
	const struct git_sub *t;
	int k, unknown_repo = 0;

	if ((k = git_globals(ev, v, &unknown_repo)) < 0)
		return;
	g.sub = v->w[k].s;
	g.i = k + 1;
	/* git CMD --help shows the manual; elsewhere it may be a value */
	if (g.i < v->n && (strcmp(v->w[g.i].s, "--help") == 0 ||
	    (strcmp(v->w[g.i].s, "-h") == 0 && v->n == g.i + 1)))
		return;
	t = git_sub_find(g.sub);
	if (t != NULL && t->kind == G_NET) {
		t->judge(&g);
		return;
	}
	git_list_track(&g);
	if (t != NULL && t->kind == G_READ && git_read(&g))
		return;
	if (t == NULL) {
		ev_factor(ev, F_UNKNOWN);
		ev_note(ev, POLICY_ESCALATE, "shell", "builtin: git",
		    "git %s is not a subcommand the policy knows (aliases can "
		    "run commands)", g.sub);
		return;
	}
	for (k = g.i; k < v->n; k++)
		if (!an_is_opt(&v->w[k]))
			g.pos++;
	if (t->judge != NULL && t->judge(&g))
		return;
	/* A local write to the repository. */
	if (unknown_repo) {
		trig_write(ev, NULL, "git");
		return;
	}
	trig_write(ev, ".", "git");
	if (v->extra)
		trig_write(ev, NULL, "git");
}

/*
 * git -C DIR works in DIR: its operands (git rm, checkout paths) and its
 * repository are there. The working directory is moved for the judgement
 * and put back after.
 */
void
an_cls_git(struct ev *ev, struct cmdv *v)
{
	char saved[SBX_PATH_MAX], path[SBX_PATH_MAX], res[SBX_PATH_MAX];
	int saved_known = ev->cwd_known, moved = 0, k;

	memcpy(saved, ev->cwd, strlen(ev->cwd) + 1);
	for (k = 1; k + 1 < v->n; k++) {
		const char *s = v->w[k].s;

		if (!an_lit(&v->w[k]) || s[0] != '-')
			break;          /* the subcommand: global options end */
		if (strcmp(s, "-C") != 0)
			continue;
		moved = 1;
		k++;
		if (an_word_path(ev, &v->w[k], path, sizeof(path)) != 1 ||
		    (path[0] != '/' && path[0] != '~' && !ev->cwd_known) ||
		    path_resolve_c(ev->pc, ev->cwd, ev->call->home, path, res,
		    sizeof(res)) < 0) {
			ev->cwd_known = 0;
			continue;
		}
		memcpy(ev->cwd, res, strlen(res) + 1);
		ev->cwd_known = 1;
	}
	git_judge(ev, v);
	if (moved) {
		memcpy(ev->cwd, saved, strlen(saved) + 1);
		ev->cwd_known = saved_known;
	}
}
