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

static const char *const git_read[] = {
	"status", "log", "diff", "show", "blame", "annotate", "shortlog",
	"describe", "rev-parse", "rev-list", "ls-files", "ls-tree", "cat-file",
	"grep", "whatchanged", "name-rev", "merge-base", "count-objects",
	"verify-commit", "verify-tag", "cherry", "version", "help", "var",
	"check-ignore", "check-attr", "check-ref-format", "for-each-ref",
	"show-ref", "show-branch", "range-diff", "fsck", "diff-tree",
	"diff-files", "diff-index", "hash-object", NULL,
};

static const char *const git_write[] = {
	"add", "commit", "merge", "rebase", "cherry-pick", "revert", "mv",
	"rm", "init", "apply", "am", "notes", "bisect", "worktree", "stage",
	"sparse-checkout", "update-index", "symbolic-ref", "update-ref",
	"switch", "format-patch", "mergetool", "restore", "checkout", "reset",
	"stash", "tag", "branch", "config", "clean", "reflog", "gc", "prune",
	"repack", "filter-branch", "submodule", "remote", "maintenance", NULL,
};

static int
in_list(const char *s, const char *const *l)
{
	for (; *l != NULL; l++)
		if (strcmp(s, *l) == 0)
			return 1;
	return 0;
}

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

static void
git_judge(struct ev *ev, struct cmdv *v)
{
	const char *sub = NULL, *s, *dir = ".";
	int k, i, pos = 0, unknown_repo = 0;
	int write = 0;

	for (k = 1; k < v->n; k++) {
		s = v->w[k].s;
		if (strncmp(s, "--git-dir=", 10) == 0 ||
		    strncmp(s, "--work-tree=", 12) == 0) {
			unknown_repo = 1;
			continue;
		}
		if (!an_lit(&v->w[k])) {
			ev_factor(ev, F_UNKNOWN);
			ev_note(ev, POLICY_ESCALATE, "shell", "builtin: git",
			    "git subcommand is only known at run time");
			return;
		}
		if (strcmp(s, "-C") == 0 && k + 1 < v->n) {
			k++;    /* applied to the working directory by an_cls_git */
			continue;
		}
		if (strcmp(s, "-c") == 0 || strncmp(s, "--config-env", 12) == 0 ||
		    strncmp(s, "--exec-path", 11) == 0) {
			ev_factor(ev, F_CODE);
			ev_note(ev, POLICY_ESCALATE, "shell", "builtin: git -c",
			    "git %s can set options that run commands", s);
			return;
		}
		if (strncmp(s, "--git-dir", 9) == 0 || strncmp(s, "--work-tree", 11) == 0) {
			unknown_repo = 1;
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
				return;
			continue;
		}
		sub = s;
		break;
	}
	if (sub == NULL)
		return;         /* git alone prints help */

	i = k + 1;
	/* git CMD --help shows the manual; elsewhere it may be a value */
	if (i < v->n && (strcmp(v->w[i].s, "--help") == 0 ||
	    (strcmp(v->w[i].s, "-h") == 0 && v->n == i + 1)))
		return;
	if (strcmp(sub, "push") == 0) {
		ev_factor(ev, F_NETWORK);
		for (k = i; k < v->n; k++) {
			s = v->w[k].s;
			if (strcmp(s, "-f") == 0 || strncmp(s, "--force", 7) == 0 ||
			    strcmp(s, "--delete") == 0 || strcmp(s, "-d") == 0 ||
			    strcmp(s, "--mirror") == 0 || strcmp(s, "--prune") == 0 ||
			    (s[0] == '+' && s[1] != '\0') || (s[0] == ':' && s[1]))
				ev_factor(ev, F_DESTRUCTIVE);
		}
		ev_note(ev, POLICY_ESCALATE, "network", "builtin: git push",
		    "git push publishes to a remote; a human decides");
		return;
	}
	if (strcmp(sub, "pull") == 0 || strcmp(sub, "fetch") == 0 ||
	    strcmp(sub, "ls-remote") == 0 || strcmp(sub, "clone") == 0 ||
	    strcmp(sub, "send-email") == 0 || strcmp(sub, "request-pull") == 0) {
		int hosts = 0;

		/* options that run programs or plant hooks in the new repo */
		for (k = i; k < v->n; k++) {
			s = v->w[k].s;
			if (strncmp(s, "--upload-pack", 13) == 0 ||
			    strcmp(s, "-u") == 0 || strncmp(s, "--receive-pack", 14) == 0 ||
			    strncmp(s, "--exec", 6) == 0 || strcmp(s, "-c") == 0 ||
			    strncmp(s, "--config", 8) == 0 ||
			    strncmp(s, "--template", 10) == 0 ||
			    strncmp(s, "--separate-git-dir", 18) == 0) {
				ev_factor(ev, F_CODE);
				ev_note(ev, POLICY_ESCALATE, "shell", "builtin: git",
				    "git %s %s can run programs or install hooks", sub, s);
				return;
			}
		}

		for (k = i; k < v->n; k++)
			if (an_lit(&v->w[k]) && strstr(v->w[k].s, "://") != NULL) {
				an_net_host_word(ev, "git", v->w[k].s);
				hosts++;
			}
		if (hosts == 0)
			trig_network(ev, NULL, "git");
		else
			ev_factor(ev, F_NETWORK);
		if (strcmp(sub, "ls-remote") != 0)
			trig_write(ev, dir, "git");
		return;
	}
	if ((strcmp(sub, "ls-files") == 0 || (strcmp(sub, "diff") == 0 &&
	    an_has_word(v, i, "--name-only"))) && v->c->pipeline >= 0 &&
	    an_cwd_in_project(ev)) {
		/* git ls-files '*.c' | xargs ...: project files; with name
		 * patterns that match none of sbx's files, never those */
		int safe = 0, other = 0;

		for (k = i; k < v->n; k++) {
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
	if (in_list(sub, git_read)) {
		for (k = i; k < v->n; k++) {
			s = v->w[k].s;
			/* paths and REV:PATH name files whose content is shown */
			if (!an_is_opt(&v->w[k]) && an_lit(&v->w[k])) {
				const char *colon = strchr(s, ':');

				trig_read(ev, colon != NULL && colon[1] != '\0' ?
				    colon + 1 : s, "git");
			}
			if (strncmp(s, "--output=", 9) == 0)
				trig_write(ev, s + 9, "git");
			else if ((strcmp(s, "--output") == 0 || strcmp(s, "-o") == 0) &&
			    k + 1 < v->n && strcmp(sub, "grep") != 0)
				an_write_word(ev, v, &v->w[k + 1]);
			else if (strcmp(s, "--ext-diff") == 0 ||
			    strcmp(s, "-O") == 0 ||
			    strncmp(s, "--open-files-in-pager", 21) == 0)
				ev_note(ev, POLICY_ESCALATE, "shell", "builtin: git",
				    "git %s %s runs an external program", sub, s);
		}
		if (strcmp(sub, "fsck") == 0 && an_has_word(v, i, "--lost-found"))
			write = 1;
		if (!write)
			return;
	}
	if (!in_list(sub, git_write) && !write) {
		ev_factor(ev, F_UNKNOWN);
		ev_note(ev, POLICY_ESCALATE, "shell", "builtin: git",
		    "git %s is not a subcommand the policy knows (aliases can "
		    "run commands)", sub);
		return;
	}
	for (k = i; k < v->n; k++)
		if (!an_is_opt(&v->w[k]))
			pos++;
	/* read-only forms of the mixed subcommands */
	if (strcmp(sub, "config") == 0) {
		int get = 0;

		for (k = i; k < v->n; k++) {
			s = v->w[k].s;
			if (strcmp(s, "--get") == 0 || strcmp(s, "--get-all") == 0 ||
			    strcmp(s, "--get-regexp") == 0 || strcmp(s, "--list") == 0 ||
			    strcmp(s, "-l") == 0 || strcmp(s, "--get-color") == 0 ||
			    strcmp(s, "--get-urlmatch") == 0 || strcmp(s, "get") == 0 ||
			    strcmp(s, "list") == 0)
				get = 1;
		}
		if (get || (pos == 1 && !an_has_word(v, i, "--unset") &&
		    !an_has_word(v, i, "--unset-all") && !an_has_word(v, i, "--edit") &&
		    !an_has_word(v, i, "-e")))
			return;
		if (an_has_word(v, i, "--global"))
			trig_write(ev, "~/.gitconfig", "git config");
		else if (an_has_word(v, i, "--system"))
			trig_write(ev, "/etc/gitconfig", "git config");
		git_config_write(ev, "git config");
		return;
	}
	if (strcmp(sub, "maintenance") == 0 && i < v->n &&
	    strcmp(v->w[i].s, "run") != 0) {
		ev_note(ev, POLICY_ESCALATE, "shell", "builtin: git",
		    "git maintenance %s changes the user's git configuration and "
		    "schedules jobs", v->w[i].s);
		return;
	}
	if (strcmp(sub, "stash") == 0) {
		for (k = i; k < v->n; k++) {
			s = v->w[k].s;
			if (!an_lit(&v->w[k]) || strcmp(s, "--all") == 0 ||
			    strcmp(s, "--include-untracked") == 0 ||
			    (s[0] == '-' && s[1] != '-' && strpbrk(s, "au") != NULL)) {
				ev_factor(ev, F_PROTECTED | F_DESTRUCTIVE);
				ev_note(ev, POLICY_ESCALATE, "write", "self-protection",
				    "git stash %s stashes away (removes) untracked or "
				    "ignored files, sbx's own .sandbox among them", s);
				return;
			}
		}
	}
	if (strcmp(sub, "init") == 0) {
		for (k = i; k < v->n; k++)
			if (!an_is_opt(&v->w[k]) && !(k > i &&
			    an_lit(&v->w[k - 1]) && (strcmp(v->w[k - 1].s, "-b") == 0 ||
			    strcmp(v->w[k - 1].s, "--initial-branch") == 0 ||
			    strcmp(v->w[k - 1].s, "--object-format") == 0 ||
			    strcmp(v->w[k - 1].s, "--ref-format") == 0 ||
			    strcmp(v->w[k - 1].s, "--shared") == 0)))
				an_write_tree_word(ev, v, &v->w[k]);
	}
	if (strcmp(sub, "stash") == 0) {
		if (i < v->n && (strcmp(v->w[i].s, "list") == 0 ||
		    strcmp(v->w[i].s, "show") == 0))
			return;
		if (i < v->n && (strcmp(v->w[i].s, "drop") == 0 ||
		    strcmp(v->w[i].s, "clear") == 0)) {
			git_destructive(ev, "git stash drop/clear");
			return;
		}
	} else if (strcmp(sub, "branch") == 0 || strcmp(sub, "tag") == 0) {
		int del = 0, force = 0, change = 0;

		for (k = i; k < v->n; k++) {
			s = v->w[k].s;
			if (strcmp(s, "-D") == 0 || (strcmp(sub, "tag") == 0 &&
			    strcmp(s, "-d") == 0))
				del = force = 1;
			else if (strcmp(s, "-d") == 0 || strcmp(s, "--delete") == 0)
				del = 1;
			else if (strcmp(s, "-f") == 0 || strcmp(s, "--force") == 0)
				force = 1;
			else if (strcmp(s, "-m") == 0 || strcmp(s, "-M") == 0 ||
			    strcmp(s, "-c") == 0 || strcmp(s, "-C") == 0 ||
			    strcmp(s, "-a") == 0 || strcmp(s, "-s") == 0 ||
			    strncmp(s, "--set-upstream", 14) == 0 ||
			    strcmp(s, "-u") == 0 || strcmp(s, "--unset-upstream") == 0 ||
			    strcmp(s, "--edit-description") == 0 ||
			    strcmp(s, "--move") == 0 || strcmp(s, "--copy") == 0)
				change = 1;
		}
		if (del && force) {
			git_destructive(ev, "deleting a branch or tag by force");
			return;
		}
		if (!del && !change && pos == 0)
			return;         /* listing */
		if (strcmp(sub, "tag") == 0 && an_has_word(v, i, "-l") && !del)
			return;
		if (strcmp(sub, "branch") == 0 && !del && !change &&
		    (an_has_word(v, i, "--list") || an_has_word(v, i, "-l") ||
		    an_has_word(v, i, "--contains") || an_has_word(v, i, "--merged")))
			return;
	} else if (strcmp(sub, "remote") == 0) {
		if (i >= v->n || strcmp(v->w[i].s, "-v") == 0 ||
		    strcmp(v->w[i].s, "get-url") == 0 ||
		    strcmp(v->w[i].s, "--verbose") == 0)
			return;
		if (strcmp(v->w[i].s, "show") == 0 || strcmp(v->w[i].s, "update") == 0 ||
		    strcmp(v->w[i].s, "prune") == 0) {
			trig_network(ev, NULL, "git remote");
			return;
		}
		git_config_write(ev, "git remote");
		return;
	} else if (strcmp(sub, "worktree") == 0) {
		if (i < v->n && strcmp(v->w[i].s, "list") == 0)
			return;
		if (i + 1 < v->n && strcmp(v->w[i].s, "add") == 0)
			for (k = i + 1; k < v->n; k++)
				if (!an_is_opt(&v->w[k])) {
					an_write_word(ev, v, &v->w[k]);
					break;
				}
	} else if (strcmp(sub, "submodule") == 0) {
		if (i >= v->n || strcmp(v->w[i].s, "status") == 0 ||
		    strcmp(v->w[i].s, "summary") == 0 ||
		    strcmp(v->w[i].s, "foreach") == 0) {
			if (i < v->n && strcmp(v->w[i].s, "foreach") == 0)
				ev_note(ev, POLICY_ESCALATE, "shell", "builtin: git",
				    "git submodule foreach runs a command string");
			return;
		}
		trig_network(ev, NULL, "git submodule");
	} else if (strcmp(sub, "reflog") == 0) {
		if (i < v->n && (strcmp(v->w[i].s, "expire") == 0 ||
		    strcmp(v->w[i].s, "delete") == 0)) {
			git_destructive(ev, "git reflog expire/delete");
			return;
		}
		if (i >= v->n || strcmp(v->w[i].s, "show") == 0 || v->w[i].s[0] == '-')
			return;
	} else if (strcmp(sub, "clean") == 0) {
		if (an_has_word(v, i, "-n") || an_has_word(v, i, "--dry-run"))
			return;
		git_destructive(ev, "git clean");
		return;
	} else if (strcmp(sub, "reset") == 0) {
		if (an_has_word(v, i, "--hard") || an_has_word(v, i, "--merge") ||
		    an_has_word(v, i, "--keep")) {
			git_destructive(ev, "git reset --hard");
			return;
		}
	} else if (strcmp(sub, "checkout") == 0) {
		for (k = i; k < v->n; k++) {
			s = v->w[k].s;
			if (strcmp(s, "--") == 0 || strcmp(s, ".") == 0 ||
			    strcmp(s, "-f") == 0 || strcmp(s, "--force") == 0 ||
			    strcmp(s, "-p") == 0 || strcmp(s, "--patch") == 0 ||
			    strcmp(s, "--ours") == 0 || strcmp(s, "--theirs") == 0 ||
			    (!an_is_opt(&v->w[k]) && (strchr(s, '.') != NULL ||
			    strchr(s, '/') != NULL) && !(k > i &&
			    (strcmp(v->w[k - 1].s, "-b") == 0 ||
			    strcmp(v->w[k - 1].s, "-B") == 0)))) {
				git_path_writes(ev, v, i);
				git_destructive(ev, "git checkout of paths");
				return;
			}
		}
	} else if (strcmp(sub, "restore") == 0) {
		if (!((an_has_word(v, i, "--staged") || an_has_short(v, i, 'S', "s")) &&
		    !an_has_word(v, i, "--worktree") && !an_has_short(v, i, 'W', "s"))) {
			git_path_writes(ev, v, i);
			git_destructive(ev, "git restore");
			return;
		}
	} else if (strcmp(sub, "switch") == 0) {
		if (an_has_word(v, i, "--discard-changes") || an_has_word(v, i, "-f") ||
		    an_has_word(v, i, "--force") || an_has_word(v, i, "-C")) {
			git_destructive(ev, "git switch --discard-changes");
			return;
		}
	} else if (strcmp(sub, "mv") == 0 || strcmp(sub, "rm") == 0) {
		for (k = i; k < v->n; k++)
			if (!an_is_opt(&v->w[k]))
				an_write_tree_word(ev, v, &v->w[k]);
		if (v->extra)
			trig_write(ev, NULL, "git");
	} else if (strcmp(sub, "apply") == 0 || strcmp(sub, "am") == 0) {
		if (strcmp(sub, "apply") == 0 && (an_has_word(v, i, "--check") ||
		    an_has_word(v, i, "--stat") || an_has_word(v, i, "--numstat") ||
		    an_has_word(v, i, "--summary")) && !an_has_word(v, i, "--apply"))
			return;
		ev_note(ev, POLICY_ESCALATE, "shell", "builtin: git patch",
		    "git %s applies a patch the policy cannot see; it may change "
		    "any file, sbx's own included", sub);
		return;
	} else if (strcmp(sub, "update-index") == 0 ||
	    strcmp(sub, "update-ref") == 0 || strcmp(sub, "symbolic-ref") == 0) {
		ev_note(ev, POLICY_ESCALATE, "shell", "builtin: git plumbing",
		    "git %s can rewrite any tracked file or ref, sbx's own "
		    "included", sub);
		return;
	} else if (strcmp(sub, "gc") == 0 || strcmp(sub, "prune") == 0 ||
	    strcmp(sub, "repack") == 0 || strcmp(sub, "filter-branch") == 0) {
		git_destructive(ev, "git gc/prune/filter-branch");
		return;
	} else if (strcmp(sub, "mergetool") == 0) {
		ev_note(ev, POLICY_ESCALATE, "shell", "builtin: git",
		    "git mergetool runs an external program");
		return;
	} else if (strcmp(sub, "bisect") == 0 && i < v->n &&
	    strcmp(v->w[i].s, "run") == 0) {
		ev_note(ev, POLICY_ESCALATE, "shell", "builtin: git",
		    "git bisect run runs a command");
		return;
	} else if (strcmp(sub, "rebase") == 0 && (an_has_word(v, i, "-x") ||
	    an_has_word(v, i, "--exec"))) {
		ev_note(ev, POLICY_ESCALATE, "shell", "builtin: git",
		    "git rebase --exec runs a command");
		return;
	}
	/* A local write to the repository. */
	if (unknown_repo) {
		trig_write(ev, NULL, "git");
		return;
	}
	trig_write(ev, dir, "git");
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

	memcpy(saved, ev->cwd, sizeof(saved));
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
		    path_resolve(ev->cwd, ev->call->home, path, res,
		    sizeof(res)) < 0) {
			ev->cwd_known = 0;
			continue;
		}
		memcpy(ev->cwd, res, sizeof(res));
		ev->cwd_known = 1;
	}
	git_judge(ev, v);
	if (moved) {
		memcpy(ev->cwd, saved, sizeof(saved));
		ev->cwd_known = saved_known;
	}
}
